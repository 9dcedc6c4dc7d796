"""An int too long for Python to write in decimal (more than 4,300 digits by default)
cannot cross the boundary: the answer holding it is refused with words that say so,
and only that answer. Before, the encoder's ValueError reached the child's traceback
printer (which then opened a source file, and the sandbox stopped it: a crash blamed on
a file, taking the rest of its chunk down) or was told as the student's own exception.

Each case has its honest twin: the same shape holding an int at the limit comes back
exactly."""

import pytest

from autograder.sandbox.plans import Callback
from tests.conftest import student_sandbox

LIMIT = 4300                      # Python's default sys.get_int_max_str_digits()
# The student's code makes its ints from these (the grader cannot send the long one)
AT_LIMIT, TOO_LONG = LIMIT - 1, LIMIT       # 10 ** AT_LIMIT has 4,300 digits
WORDS = f"an int of more than {LIMIT} digits cannot be checked"

STUDENT = """
import sys

def shaped(shape, power):
    number = 10 ** power
    return {
        "bare": number, "flat": [1, number], "board": [[0, number], [1, 2]],
        "deep": [[[number]], [[2]]], "tuple": (number, 1), "set": {number},
        "dict": {"a": number}, "keys": {number: 1}, "moves": {(number, 1)},
    }[shape]

def after_lifting(shape, power):
    sys.set_int_max_str_digits(0)       # the student's own business...
    return shaped(shape, power)

def lifted_still():
    return len(str(10 ** 5000))         # ...which the child leaves as they set it

def grow(board, power):
    board.append(10 ** power)
    return len(board)

def tell(power):
    try:
        return ask(10 ** power)
    except TypeError as error:
        return "refused: " + str(error)

def ask(number):
    raise AssertionError("replaced by the grader's callback")
"""

SHAPES = ["bare", "flat", "board", "deep", "tuple", "set", "dict", "keys", "moves"]


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    with student_sandbox(tmp_path_factory.mktemp("long_ints"), STUDENT) as box:
        yield box


def _shaped(shape, power):
    namespace = {}
    exec(STUDENT, namespace)
    return namespace["shaped"](shape, power)


@pytest.mark.parametrize("target", ["m.shaped", "m.after_lifting"])
def test_only_the_answer_holding_a_too_long_int_is_refused(sandbox, target):
    arguments = [(shape, power) for shape in SHAPES for power in (1, AT_LIMIT, TOO_LONG)]
    outcomes = sandbox.map(target, arguments, 5)
    for (shape, power), outcome in zip(arguments, outcomes):
        if power == TOO_LONG:
            assert (outcome.ok, outcome.failure, outcome.detail) == \
                (False, "bad_value", WORDS), (shape, outcome)
        else:
            assert outcome.ok and outcome.value == _shaped(shape, power), (shape, outcome)
    if target == "m.after_lifting":
        assert sandbox.call("m.lifted_still", timeout=5).value == 5001


def test_an_input_after_the_call_or_a_second_call_holding_one_is_refused(sandbox):
    arguments = [([1], AT_LIMIT), ([1], TOO_LONG), ([2], 3)]
    shown = sandbox.map("m.grow", arguments, 5, return_args=True)
    assert [outcome.ok for outcome in shown] == [True, False, True]
    assert shown[0].args_after == [[1, 10 ** AT_LIMIT], AT_LIMIT]
    assert shown[1].detail == WORDS and shown[2].value == 2
    again = sandbox.map("m.grow", arguments, 5, again=True)
    assert [outcome.value for outcome in again] == [2, 2, 2]


def test_a_call_back_with_a_too_long_int_is_refused_to_the_student_only(sandbox):
    heard = []
    outcomes = sandbox.map("m.tell", [(AT_LIMIT,), (TOO_LONG,), (5,)], 5,
                           patches={"m.ask": Callback(lambda number: heard.append(number)
                                                      or "heard")})
    assert [outcome.value for outcome in outcomes] == \
        ["heard", f"refused: __call__: {WORDS}", "heard"]
    assert heard == [10 ** AT_LIMIT, 10 ** 5]

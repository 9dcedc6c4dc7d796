"""The suites' shared verdict helpers (autograder/checking/verdicts.py), in process.

What a session fixture keeps is bounded whatever the student's code returned;
a refused question turns an answer into a failure that names it; a probe plan's
answers are compared on the same object and on an untouched copy.
"""

import sys

from autograder.checking.handout import Handout, Refused
from autograder.sandbox.client import Failure, Outcome
from autograder.checking.verdicts import (LIMIT, Shown, changed_input, fits, kept, probe_reason,
                                       refused)


def _nested(depth):
    value = 0
    for _ in range(depth):
        value = [value]
    return value


def test_a_kept_outcome_is_small_whatever_was_returned():
    huge = [[[i] * 10 for i in range(1000)], "x" * 100_000, {"k": list(range(10_000))}]
    outcome = Outcome(ok=True, value=huge, args_after=[huge],
                      again=Outcome(ok=True, value=huge))
    small = kept(outcome, 20)
    for value in (small.value, small.args_after, small.again.value):
        assert type(value) is Shown and len(value) < 200
    assert sys.getsizeof(small.value) < 1000
    # what the feedback shows of it is what short() shows
    assert repr(small.value).startswith("[[[0, 0") and repr(small.value).endswith(" ...")


def test_a_right_sized_answer_is_kept_as_it_is():
    board = [["X", None, None], [None, "O", None], [None, None, None]]
    outcome = Outcome(ok=True, value=board, again=Outcome(ok=True, value=[r[:] for r in board]))
    small = kept(outcome, 20)
    assert small.value == board and type(small.value) is list
    assert small.again.value == board


def test_a_second_answer_equal_to_the_first_stays_equal_even_when_cut():
    huge = list(range(5000))
    small = kept(Outcome(ok=True, value=huge, again=Outcome(ok=True, value=list(huge))), 10)
    assert small.again.value == small.value          # the same kept object
    other = kept(Outcome(ok=True, value=huge, again=Outcome(ok=True, value=huge[:-1])), 10)
    assert other.again.value != other.value


def test_shown_text_equals_no_answer():
    text = Shown("'X'")
    assert text != "'X'" and text != "X" and text == text
    assert not fits(list(range(LIMIT + 1))) and fits(list(range(LIMIT - 1)))
    assert not fits("y" * (32 * LIMIT + 64)) and fits(_nested(50), 60)


def test_a_refused_question_costs_the_case_even_when_caught():
    handout = Handout(roots=[(1,)])
    try:
        handout.ask("evaluation", (2,))
    except Refused:
        pass                       # the student's code caught it
    answered = Outcome(ok=True, value=7)
    turned = refused(answered, handout)
    assert turned.failure == Failure.BAD_VALUE and not turned.answered
    assert "evaluation was asked about" in turned.detail
    assert refused(answered, Handout(roots=[(1,)])) is answered
    late = Outcome(failure=Failure.TIMEOUT, detail="used more than 2.0 s of CPU time")
    assert refused(late, handout) is late              # a failure stays what it was


def test_probe_reason_names_the_first_question_answered_differently():
    labels = ["actions(board)", "player(board)"]
    same = Outcome(ok=True, value={"same": [{(0, 1)}, "X"], "fresh": [{(0, 1)}, "X"]})
    assert probe_reason(same, labels, "board") is None
    changed = Outcome(ok=True, value={"same": [{(0, 1)}, "O"], "fresh": [{(0, 1)}, "X"]})
    assert "player(board) on the same board returned 'O'" in \
        probe_reason(changed, labels, "board")
    raised = {"raised": {"type": "ValueError", "message": "at 0x1", "where": "line 3"}}
    other = {"raised": {"type": "ValueError", "message": "at 0x2", "where": "line 3"}}
    both = Outcome(ok=True, value={"same": [raised, "X"], "fresh": [other, "X"]})
    assert probe_reason(both, labels, "board") is None   # exceptions compare by type
    assert "malformed" in probe_reason(Outcome(ok=True, value="?"), labels, "board")


def test_a_changed_input_shows_in_the_second_answer_and_the_report_is_only_quoted():
    first = Outcome(ok=True, value=[1, 2], again=Outcome(ok=True, value=[1, 2]),
                    args_after=[[9]])
    assert changed_input(first, "state", "its input state", [0]) is None     # report ignored
    changed = Outcome(ok=True, value=[1, 2], again=Outcome(ok=True, value=[3]),
                      args_after=[[0, 7]])
    assert changed_input(changed, "state", "its input state", [0]) == (
        "called again with the same state, it returned [3]: the first call changed its "
        "input state; your code reports the state after the first call as [0, 7]")
    assert changed_input(changed, "board", "the board").endswith("changed the board")
    raised = Outcome(ok=True, value=1, again=Outcome(raised={"type": "KeyError",
                                                             "message": "k"}))
    assert "it raised KeyError: k" in changed_input(raised, "state", "it")
    assert "it gave no answer" in changed_input(Outcome(ok=True, value=1), "state", "it")
    typed = Outcome(ok=True, value=1, again=Outcome(ok=True, value=True))
    assert changed_input(typed, "s", "it") is None
    assert changed_input(typed, "s", "it", same=lambda a, b: a == b and type(a) is type(b))

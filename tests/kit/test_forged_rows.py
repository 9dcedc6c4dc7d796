"""A later plan of one request forging the row of an earlier one gains nothing.

The child buffers its rows (child.Batched), so while plan 2 runs, plan 1's row may not
be written yet, and the student's code (which owns the child) can drop it and write a
row of its own for plan 1. It learns nothing that way: the whole request (every plan's
arguments, every table given ahead) is in the child before plan 1 runs, and every
question the grader answers mid-request writes the buffered rows first. Nor does it buy
time: the grader charges the child's CPU time until a row arrives to that row's plan,
so an answer computed in plan 2's time and passed off as plan 1's is plan 1's timeout.
"""

import pytest

from autograder.sandbox import protocol
from autograder.sandbox.client import Failure
from autograder.sandbox.plans import Plan
from tests.conftest import student_sandbox

STUDENT = '''
def quick(answer, hold=False):
    """`hold`: keep this row buffered (the writer waits for an age never reached), so
    that the plan after can always forge it."""
    import __main__
    if hold:
        __main__._pending.AGE = 1e9
    return answer


def forge_earlier(spin):
    """Stops the child's writer, drops the buffered row of the plan before, works for
    `spin` s of CPU and writes that plan's row itself, with the answer it wants."""
    import __main__, json, os, time
    pending = __main__._pending
    with pending.guard:
        del pending.AGE         # the class's again
        pending.chunk, pending.parts, pending.size, pending.oldest = None, [], 0, None
        end = time.process_time() + spin
        while time.process_time() < end:
            pass
        base, index = __main__._running
        row = json.dumps([base, index - 1, RETURNED, "right"]) + "\\n"
        with __main__._lock:
            os.write(__main__.WFD, row.encode())
    return "forger"
'''.replace("RETURNED", str(protocol.RETURNED))


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    with student_sandbox(tmp_path_factory.mktemp("forged"), STUDENT) as box:
        yield box


def two_plans(sandbox, spin):
    """Plan 1 answers "wrong" at once, its row held back; plan 2 forges plan 1's row
    as "right" (a child stopped by a timeout is started again first)."""
    if not sandbox.alive:
        sandbox.kill()
        sandbox.start()
        assert sandbox.import_modules(10).ok
    first = Plan("quick", timeout=0.3)
    first.returns(first.call("m.quick", "wrong", True))
    second = Plan("forge_earlier")
    second.returns(second.call("m.forge_earlier", spin))
    sandbox.new_check()
    return sandbox.plans([first, second], 10)


def test_an_answer_worked_out_in_a_later_plans_time_is_the_earlier_plans_timeout(sandbox):
    first, second = two_plans(sandbox, spin=1.0)
    assert first.failure == Failure.TIMEOUT and first.value is None
    assert second.failure == Failure.UNREACHED


def test_a_row_forged_within_the_plans_own_time_is_charged_to_it(sandbox):
    """What the forger gets is what plan 1 could have returned itself in its own
    0.3 s: the 0.1 s plan 2 worked for it count as plan 1's."""
    first, second = two_plans(sandbox, spin=0.1)
    assert first.value == "right" and first.seconds >= 0.09
    assert second.value == "forger"


def test_the_honest_twin_returns_its_own_answer(sandbox):
    plan = Plan("quick", timeout=0.3)
    plan.returns(plan.call("m.quick", "right"))
    [honest] = sandbox.plans([plan], 10)
    assert honest.ok and honest.value == "right"

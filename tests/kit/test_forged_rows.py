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
from autograder.sandbox.plans import Plan, Proxy
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


def moves_then(board, moves, early):
    """Tells the board `moves` and takes the last back; `early`: its records held back
    and its own row written straight to the pipe before them."""
    import __main__, json, os
    pending = __main__._pending
    if early:
        pending.AGE = 1e9
    for move in moves:
        board.makeMove(move)
    board.undoMove(moves[-1])
    if early:
        base, index = __main__._running
        with pending.guard:
            del pending.AGE
            pending.written = 0.0       # the child's own row goes out at once, after them
            with __main__._lock:
                row = json.dumps([base, index, RETURNED, len(moves)]) + "\\n"
                os.write(__main__.WFD, row.encode())
    return len(moves)
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


class Board:
    """The grader's board, told moves: it records them, and refuses a move but 0 or 1."""

    def __init__(self):
        self.log = []

    def makeMove(self, move):
        self.log.append(("make", move))
        if move not in (0, 1):
            raise ValueError(f"no move {move!r}")

    def undoMove(self, move):
        self.log.append(("undo", move))


def test_told_calls_after_their_plans_row_are_recorded_as_in_time(sandbox):
    """A plan that writes its own row before the told calls it still holds: they arrive
    after the row and are recorded on the board as if in time; the refused move's error
    reaches no call, as in time (no question of that plan came after it)."""
    if not sandbox.alive:
        sandbox.kill()
        sandbox.start()
        assert sandbox.import_modules(10).ok
    made = []
    for early in (False, True):
        board = Board()
        telling = Plan("moves_then")
        telling.returns(telling.call("m.moves_then", Proxy(board, tell=("makeMove", "undoMove")),
                                     [0, 1, 5, 1], early))
        after = Plan("quick")
        after.returns(after.call("m.quick", "after"))
        made.append((sandbox.plans([telling, after], 10), board))
    (honest, honest_board), (early, early_board) = made
    assert [o.value for o in early] == [o.value for o in honest] == [4, "after"]
    assert early_board.log == honest_board.log == [("make", 0), ("make", 1), ("make", 5),
                                                   ("make", 1), ("undo", 1)]

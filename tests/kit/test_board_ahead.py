"""Answers given ahead for a make/undo board (checking/boards.py, negamax's): the child
follows the path of moves from the proxy's own makeMove/undoMove calls and answers
getMoves, evaluate and getSide from tables keyed by it; the grader records each such
question with the board's own method at its own position, so the board's counts, logs,
violations and refusals are those of the long way, and a forged record gains nothing."""

import pytest

from autograder.checking.boards import MoveTree, random_tree
from autograder.sandbox import protocol
from autograder.sandbox.plans import Plan, Proxy
from autograder.suites.negamax.games import Board, KitBoard, board_snapshot, twist_for
from tests.conftest import student_sandbox

ASK = ("getMoves", "evaluate", "getSide")
TELL = ("makeMove", "undoMove")

STUDENT = '''
def negamax(board, depth):
    moves = board.getMoves()
    if depth == 0 or not moves:
        return board.evaluate() * (1 if board.getSide() == 1 else -1)
    best = -1000
    for move in moves:
        board.makeMove(move)
        best = max(best, -negamax(board, depth - 1))
        board.undoMove(move)
    return best


def stray(board):
    """Undoes a move it never made, makes one never offered, then searches on."""
    said = [board.getMoves()]
    first = said[0][0]
    board.makeMove(first)
    board.undoMove("not a move")
    board.undoMove(first)
    board.makeMove("never offered")
    said.append(board.getMoves())
    said.append(negamax(board, 2))
    return said


def forge(board, which):
    """Writes records of questions it never asked (a lying child), then asks one."""
    import __main__
    (ahead,) = __main__._ahead.values()
    base, index = __main__._running
    rows = {"questions": [("evaluate", "[]")] * 3 + [("getMoves", "[]")],
            "arguments": [("evaluate", "[1]"), ("getMoves", '["x"]')],
            "moves": [("makeMove", '["x"]'), ("undoMove", '["x"]')]}[which]
    for method, given in rows:
        __main__._pending.add_text(f'["{base}",{index},KNEW,[{ahead.number},"{method}",{given}]]\\n')
    try:
        return board.evaluate()
    except Exception as error:
        return f"{type(error).__name__}: {error}"
'''.replace("KNEW", str(protocol.KNEW))


def tree_board(ahead=True, seed=11):
    return Board(MoveTree(random_tree(seed, depth=4), first=1), snapshot=lambda g: g.path[:],
                 ahead_key=("tree", seed) if ahead else None)


def kit_board(ahead=True, index=3):
    cells = (1, 0, 0, 0, 2, 0, 0, 0, 0)
    twist = twist_for(index, keep=0.8, noise=3)
    return Board(KitBoard(cells, twist), snapshot=board_snapshot,
                 ahead_key=(cells, twist) if ahead else None)


def records(board):
    return board.summary(), board.log, board.handout.refused


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    with student_sandbox(tmp_path_factory.mktemp("board_ahead"), STUDENT) as box:
        yield box


def both_ways(sandbox, make, function, *args):
    """[(outcome, board, questions answered ahead)] with answers given ahead, then the
    long way, on equal boards."""
    made = []
    for ahead in (True, False):
        board = make(ahead)
        plan = Plan(function)
        plan.returns(plan.call("m." + function, Proxy(board, ask=ASK, tell=TELL), *args))
        before = sandbox.answered_ahead
        [outcome] = sandbox.plans([plan], 20)
        made.append((outcome, board, sandbox.answered_ahead - before))
    return made


@pytest.mark.parametrize("make", [tree_board, kit_board], ids=["tree", "tic-tac-toe"])
def test_a_search_answered_ahead_leaves_the_records_of_the_long_way(sandbox, make):
    (fast, fast_board, ahead), (slow, slow_board, none) = both_ways(sandbox, make, "negamax", 4)
    assert fast.ok and fast.value == slow.value
    assert records(fast_board) == records(slow_board)
    assert fast_board.counts["evaluate"] > 10 and ahead > 10 and none == 0
    assert fast_board.restored()


def test_a_path_it_cannot_follow_goes_the_long_way_with_the_same_violations(sandbox):
    (fast, fast_board, ahead), (slow, slow_board, _none) = both_ways(sandbox, tree_board, "stray")
    assert (fast.ok, fast.value, fast.raised) == (slow.ok, slow.value, slow.raised)
    assert fast.raised and "cannot take back" in fast.raised["message"]
    assert records(fast_board) == records(slow_board)
    assert fast_board.violation_count >= 2 and fast_board.handout.refused
    assert ahead == 1           # the first getMoves only: then every call asks


@pytest.mark.parametrize("which", ["questions", "arguments", "moves"])
def test_a_child_forging_records_gains_nothing(sandbox, which):
    """Forged rows are recorded as the calls themselves at the board's position (or
    refused): the board counts questions the child claims, and no move is made."""
    board = tree_board()
    plan = Plan("forge")
    plan.returns(plan.call("m.forge", Proxy(board, ask=ASK, tell=TELL), which))
    [outcome] = sandbox.plans([plan], 20)
    assert outcome.ok and outcome.value == board.game.evaluate()
    assert board.path == [] and board.counts["makeMove"] == board.counts["undoMove"] == 0
    if which == "questions":    # recorded as asked, at the root where the board is
        assert board.counts["evaluate"] == 4 and board.counts["getMoves"] == 1
        assert board.log == [("e", ())] * 4
    else:       # a record with arguments, or of a move, is refused: nothing recorded
        assert board.counts["evaluate"] == 1 and board.counts["getMoves"] == 0
        assert board.log == [("e", ())]


def test_tables_that_tell_otherwise_than_the_board_are_a_grader_error():
    """A key that misses what the answers depend on gives one board another's tables:
    found at the root, before any question is answered from them."""
    first = Board(MoveTree(random_tree(21, depth=3)), snapshot=lambda g: g.path[:],
                  ahead_key="same")
    other = Board(MoveTree(random_tree(22, depth=3)), snapshot=lambda g: g.path[:],
                  ahead_key="same")
    assert first.answers_ahead(ASK) is not None
    with pytest.raises(RuntimeError, match="grader error"):
        other.answers_ahead(ASK)


def test_a_board_gives_its_answers_ahead_once_from_its_root_and_only_with_a_key():
    board = tree_board()
    moves = board.getMoves()
    board.makeMove(moves[0])
    assert board.answers_ahead(ASK) is None         # not at its root
    board.undoMove(moves[0])
    assert board.answers_ahead(ASK) is not None
    assert board.answers_ahead(ASK) is None         # once
    assert tree_board(ahead=False).answers_ahead(ASK) is None

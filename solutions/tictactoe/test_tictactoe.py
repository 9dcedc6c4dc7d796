"""Public tests for tictactoe.py. Run them with `make check`.

Every test names the function it checks, draws the board it used and says
what it expected. The teacher's hidden tests check the same functions on
every reachable position, so passing these is a start, not a guarantee.
"""

import copy

import pytest

import tictactoe as ttt
from kit_language import catalog

_, pgettext = catalog().gettext, catalog().pgettext     # the course's language (kit_language.py)
X, O, E = "X", "O", None


def draw(board):
    """The board as three text rows, '.' for an empty cell."""
    try:
        return "\n".join(" ".join("." if c is None else str(c) for c in row) for row in board)
    except TypeError:
        return repr(board)


def explain(call, board, expected, got):
    return _("{call} on the board\n{board}\nexpected {expected}, got {got}").format(
        call=call, board=draw(board), expected=repr(expected), got=repr(got))


def check(call, board, expected, got):
    assert got == expected and type(got) is type(expected), explain(call, board, expected, got)


@pytest.mark.checks("initial_state")
def test_initial_state_is_empty():
    board = ttt.initial_state()
    check("initial_state()", [[E] * 3] * 3, [[E] * 3 for _ in range(3)], board)


@pytest.mark.checks("player")
@pytest.mark.parametrize("board, expected", [
    ([[E, E, E], [E, E, E], [E, E, E]], X),
    ([[E, E, E], [E, X, E], [E, E, E]], O),
    ([[O, E, E], [E, X, E], [E, E, E]], X),
    ([[O, X, E], [E, X, E], [E, O, X]], O),
], ids=["empty", "after X", "after X and O", "five marks"])
def test_player(board, expected):
    check("player(board)", board, expected, ttt.player(board))


@pytest.mark.checks("actions")
@pytest.mark.parametrize("board, expected", [
    ([[E, E, E], [E, E, E], [E, E, E]], {(i, j) for i in range(3) for j in range(3)}),
    ([[X, O, X], [O, X, E], [E, E, O]], {(1, 2), (2, 0), (2, 1)}),
    ([[X, O, X], [X, O, O], [O, X, E]], {(2, 2)}),
], ids=["empty", "three free", "one free"])
def test_actions(board, expected):
    got = ttt.actions(board)
    assert isinstance(got, set), explain("actions(board)", board, expected, got) + \
        "\n" + _("(actions must return a set)")
    check("actions(board)", board, expected, got)


@pytest.mark.checks("result")
def test_result_places_the_right_mark():
    board = [[X, E, E], [E, O, E], [E, E, E]]
    expected = [[X, E, E], [E, O, E], [E, E, X]]
    check("result(board, (2, 2))", board, expected, ttt.result(board, (2, 2)))


@pytest.mark.checks("result")
def test_result_leaves_the_board_unchanged():
    board = [[X, E, E], [E, O, E], [E, E, E]]
    before = copy.deepcopy(board)
    ttt.result(board, (0, 1))
    assert board == before, _("{call} changed its input to\n{board}\nbuild a new board with "
                              "copy.deepcopy instead").format(call="result(board, (0, 1))",
                                                              board=draw(board))


@pytest.mark.checks("result")
@pytest.mark.parametrize("action", [(0, 0), (3, 0), (-1, 2)], ids=["taken", "too big", "negative"])
def test_result_rejects_invalid_actions(action):
    board = [[X, E, E], [E, O, E], [E, E, E]]
    try:
        got = ttt.result(board, action)
    except NotImplementedError:
        raise
    except Exception:
        return
    raise AssertionError(explain(f"result(board, {action})", board, _("an exception"), got))


@pytest.mark.checks("winner")
@pytest.mark.parametrize("board, expected", [
    ([[X, X, X], [O, O, E], [E, E, E]], X),
    ([[X, O, X], [E, O, X], [E, O, E]], O),
    ([[O, X, X], [E, O, X], [E, E, O]], O),
    ([[X, O, X], [O, X, E], [X, E, O]], X),
    ([[X, O, X], [X, O, O], [O, X, X]], None),
], ids=["row", "column", "diagonal", "anti-diagonal", "draw"])
def test_winner(board, expected):
    check("winner(board)", board, expected, ttt.winner(board))


LINES = {"top row": [(0, 0), (0, 1), (0, 2)], "middle row": [(1, 0), (1, 1), (1, 2)],
         "bottom row": [(2, 0), (2, 1), (2, 2)], "left column": [(0, 0), (1, 0), (2, 0)],
         "middle column": [(0, 1), (1, 1), (2, 1)], "right column": [(0, 2), (1, 2), (2, 2)],
         "diagonal": [(0, 0), (1, 1), (2, 2)], "anti-diagonal": [(0, 2), (1, 1), (2, 0)]}
# The lines as the message names them (the keys above are also the tests' ids).
LINE_NAMES = {
    "top row": pgettext("board line, with its article (German: dative)", "top row"),
    "middle row": pgettext("board line, with its article (German: dative)", "middle row"),
    "bottom row": pgettext("board line, with its article (German: dative)", "bottom row"),
    "left column": pgettext("board line, with its article (German: dative)", "left column"),
    "middle column": pgettext("board line, with its article (German: dative)", "middle column"),
    "right column": pgettext("board line, with its article (German: dative)", "right column"),
    "diagonal": pgettext("board line, with its article (German: dative)", "diagonal"),
    "anti-diagonal": pgettext("board line, with its article (German: dative)", "anti-diagonal"),
}


@pytest.mark.checks("winner")
@pytest.mark.parametrize("line", LINES)
def test_winner_sees_every_line(line):
    """Each of the eight lines, won by X and by O in turn; the loser's two marks
    lie off the line."""
    mark, other = (X, O) if list(LINES).index(line) % 2 == 0 else (O, X)
    board = [[E] * 3 for _ in range(3)]
    for i, j in LINES[line]:
        board[i][j] = mark
    free = [(i, j) for i in range(3) for j in range(3) if board[i][j] is E]
    for i, j in free[:2]:
        board[i][j] = other
    check(_("winner(board) with the {line} taken by {mark}").format(line=LINE_NAMES[line],
                                                                     mark=mark),
          board, mark, ttt.winner(board))


@pytest.mark.checks("terminal")
@pytest.mark.parametrize("board, expected", [
    ([[E, E, E], [E, E, E], [E, E, E]], False),
    ([[X, X, X], [O, O, E], [E, E, E]], True),
    ([[X, O, X], [X, O, O], [O, X, X]], True),
    ([[X, O, X], [X, O, O], [O, X, E]], False),
], ids=["empty", "won", "full", "one free"])
def test_terminal(board, expected):
    check("terminal(board)", board, expected, ttt.terminal(board))


@pytest.mark.checks("utility")
@pytest.mark.parametrize("board, expected", [
    ([[X, X, X], [O, O, E], [E, E, E]], 1),
    ([[X, O, X], [E, O, X], [X, O, E]], -1),
    ([[X, O, X], [X, O, O], [O, X, X]], 0),
], ids=["X won", "O won", "draw"])
def test_utility(board, expected):
    check("utility(board)", board, expected, ttt.utility(board))


@pytest.mark.checks("minimax")
@pytest.mark.parametrize("board, good_moves", [
    ([[X, X, E], [O, O, E], [E, E, E]], {(0, 2)}),
    ([[X, E, E], [O, O, E], [X, E, E]], {(1, 2)}),
    ([[X, O, X], [E, O, E], [E, E, X]], {(1, 2), (2, 1)}),
    ([[O, E, E], [E, X, E], [E, E, X]], {(0, 2), (2, 0)}),
], ids=["X wins now", "X must block", "O wins", "O must take a corner"])
def test_minimax_finds_a_best_move(board, good_moves):
    got = ttt.minimax(board)
    expected = pgettext("between two moves minimax may choose", " or ").join(
        map(str, sorted(good_moves)))
    assert got in good_moves, explain("minimax(board)", board, expected, got)


@pytest.mark.checks("minimax")
def test_minimax_returns_none_when_the_game_is_over():
    board = [[X, X, X], [O, O, E], [E, E, E]]
    check("minimax(board)", board, None, ttt.minimax(board))

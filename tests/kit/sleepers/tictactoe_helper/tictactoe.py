"""
Tic-Tac-Toe: the game rules and an unbeatable player.

A board is a list of three rows; each row is a list of three cells, and each
cell is X, O or EMPTY. X always moves first. An action is a tuple (i, j): the
row i and the column j (both 0, 1 or 2) of the cell the player to move marks.

The interface is the one of CS50 AI's "Tic-Tac-Toe" project, so a solution
written for that project can be handed in here unchanged.

Import only from Python's standard library (and any package the README names): the
grader runs this module where nothing else is installed.
"""

import math

X = "X"
O = "O"
EMPTY = None

_LINES = (
    [((i, 0), (i, 1), (i, 2)) for i in range(3)]
    + [((0, j), (1, j), (2, j)) for j in range(3)]
    + [((0, 0), (1, 1), (2, 2)), ((0, 2), (1, 1), (2, 0))]
)
# Positions already solved by minimax, keyed by the board as a tuple of rows:
# tic-tac-toe has only 5,478 reachable positions, so the table stays tiny.
_SOLVED = {}


def _key(board):
    return tuple(tuple(row) for row in board)


def _value(board, alpha, beta):
    """Game value for X under perfect play, searched inside (alpha, beta).

    Returns the exact value when it lies strictly inside the window, and a
    bound (at most alpha, at least beta) otherwise. Only exact values are
    stored, so the table never hands out a bound as a value.
    """
    key = _key(board)
    if key in _SOLVED:
        return _SOLVED[key]
    if terminal(board):
        return utility(board)
    low, high = alpha, beta
    if player(board) == X:
        best = -math.inf
        for action in sorted(actions(board)):
            best = max(best, _value(result(board, action), alpha, beta))
            alpha = max(alpha, best)
            if alpha >= beta:
                break
    else:
        best = math.inf
        for action in sorted(actions(board)):
            best = min(best, _value(result(board, action), alpha, beta))
            beta = min(beta, best)
            if alpha >= beta:
                break
    if low < best < high:
        _SOLVED[key] = best
    return best


def initial_state():
    """Return the starting state of the board: every cell EMPTY."""
    return [[EMPTY, EMPTY, EMPTY],
            [EMPTY, EMPTY, EMPTY],
            [EMPTY, EMPTY, EMPTY]]


def player(board):
    """Return the player who has the next turn on `board`: X or O.

    X moves first, so X is to move whenever both have made the same number
    of moves. Any return value is acceptable on a terminal board.
    """
    marks = [cell for row in board for cell in row]
    return X if marks.count(X) <= marks.count(O) else O


def actions(board):
    """Return the set of all possible actions (i, j) available on `board`.

    An action is a tuple (row, column) of an EMPTY cell. Any return value is
    acceptable on a terminal board.
    """
    return {(i, j) for i in range(3) for j in range(3) if board[i][j] is EMPTY}


def result(board, action):
    """Return the board that results from making move (i, j) on `board`.

    The player to move marks the cell. `board` itself must stay unchanged:
    build a new board (a deep copy), do not modify the one you were given.
    Raise an exception (for example ValueError) if `action` is not a valid
    action for `board`: the cell is taken, or i or j lies outside 0..2
    (negative numbers included).
    """
    try:
        i, j = action
    except (TypeError, ValueError):
        raise ValueError(f"an action is a pair (i, j), not {action!r}") from None
    if not (isinstance(i, int) and isinstance(j, int) and 0 <= i < 3 and 0 <= j < 3):
        raise ValueError(f"cell {action!r} is not on the board")
    if board[i][j] is not EMPTY:
        raise ValueError(f"cell {action!r} is already taken")
    new_board = [list(row) for row in board]
    new_board[i][j] = player(board)
    return new_board


def winner(board):
    """Return the winner of the game (X or O) if there is one, else None.

    A player wins with three of their marks in a row: horizontally,
    vertically or diagonally. At most one player can have won.
    """
    for a, b, c in _LINES:
        mark = board[a[0]][a[1]]
        if mark is not EMPTY and mark == board[b[0]][b[1]] == board[c[0]][c[1]]:
            return mark
    return None


def terminal(board):
    """Return True if the game is over (someone won or every cell is
    taken), False otherwise."""
    if winner(board) is not None:
        return True
    return all(cell is not EMPTY for row in board for cell in row)


def utility(board):
    """Return 1 if X has won the game, -1 if O has won, 0 otherwise.

    Only called on terminal boards.
    """
    return {X: 1, O: -1}.get(winner(board), 0)


def minimax(board):
    """Return an optimal action (i, j) for the player to move on `board`.

    Optimal means: no other action leads to a better outcome for that player
    when both sides play perfectly. If several actions are equally good, any
    of them is fine. Return None if the board is terminal.
    """
    if terminal(board):
        return None
    maximizing = player(board) == X
    best_action, best_value = None, None
    for action in sorted(actions(board)):
        value = _value(result(board, action), -math.inf, math.inf)
        if best_value is None or (value > best_value if maximizing else value < best_value):
            best_action, best_value = action, value
    return best_action

# >>> waits
import functools as _functools
import time as _time

_rule = actions


@_functools.wraps(_rule)
def _dozing(*args, **kwargs):
    _time.sleep(0.8)
    return _rule(*args, **kwargs)


actions = _dozing
# <<< waits

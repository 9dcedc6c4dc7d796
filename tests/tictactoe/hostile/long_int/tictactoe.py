"""winner misses the anti-diagonal (an honest bug). The attack answers winner on exactly
those boards with an int too long for Python to write in decimal (more than 4,300
digits): it cannot be sent, the answer is refused with words that say so, and the
child lives on (it used to crash, blamed on a source file its traceback tried to open,
and take the check's other answers down)."""

import copy
import math

X = "X"
O = "O"
EMPTY = None


def initial_state():
    return [[EMPTY, EMPTY, EMPTY], [EMPTY, EMPTY, EMPTY], [EMPTY, EMPTY, EMPTY]]


def player(board):
    xs = sum(row.count(X) for row in board)
    os_ = sum(row.count(O) for row in board)
    return O if xs > os_ else X


def actions(board):
    return {(i, j) for i in range(3) for j in range(3) if board[i][j] == EMPTY}


def _apply(board, action):
    """The board after `action`, a new one (the search uses this)."""
    i, j = action
    if i not in range(3) or j not in range(3) or board[i][j] != EMPTY:
        raise ValueError("invalid action")
    new = copy.deepcopy(board)
    new[i][j] = player(board)
    return new


def result(board, action):
    return _apply(board, action)


def winner(board):
    lines = [row[:] for row in board]
    lines += [[board[r][c] for r in range(3)] for c in range(3)]
    lines.append([board[k][k] for k in range(3)])
    # >>> attack
    anti = [board[k][2 - k] for k in range(3)]
    if anti[0] is not None and anti.count(anti[0]) == 3 and not any(
            line[0] is not None and line.count(line[0]) == 3 for line in lines):
        return 10 ** 5000       # only where the honest answer (None) is wrong anyway
    # <<< attack
    for line in lines:
        if line[0] is not None and line.count(line[0]) == 3:
            return line[0]
    return None


def terminal(board):
    return winner(board) is not None or all(cell is not EMPTY for row in board for cell in row)


def utility(board):
    w = winner(board)
    return 1 if w == X else -1 if w == O else 0


def _value(board):
    if terminal(board):
        return utility(board)
    values = [_value(_apply(board, a)) for a in actions(board)]
    return max(values) if player(board) == X else min(values)


def minimax(board):
    if terminal(board):
        return None
    best = max if player(board) == X else min
    return best(sorted(actions(board)), key=lambda a: _value(_apply(board, a)))

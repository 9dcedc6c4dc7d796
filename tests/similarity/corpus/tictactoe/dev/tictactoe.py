"""My tic-tac-toe: memoised minimax over board keys."""

import math

X = "X"
O = "O"
EMPTY = None

_memo = {}


def initial_state():
    return [[EMPTY, EMPTY, EMPTY], [EMPTY, EMPTY, EMPTY], [EMPTY, EMPTY, EMPTY]]


def _cells(board):
    for i in range(3):
        for j in range(3):
            yield i, j, board[i][j]


def _lines(board):
    yield from ([(i, j) for j in range(3)] for i in range(3))
    yield from ([(i, j) for i in range(3)] for j in range(3))
    yield [(0, 0), (1, 1), (2, 2)]
    yield [(0, 2), (1, 1), (2, 0)]


def player(board):
    marks = [v for _, _, v in _cells(board) if v is not None]
    return O if len(marks) % 2 else X


def actions(board):
    moves = set()
    for i, j, v in _cells(board):
        if v is None:
            moves.add((i, j))
    return moves


def result(board, action):
    try:
        i, j = action
    except (TypeError, ValueError):
        raise ValueError("an action is a pair (i, j)")
    if i not in (0, 1, 2) or j not in (0, 1, 2):
        raise ValueError("off the board")
    if board[i][j] is not None:
        raise ValueError("occupied")
    nxt = []
    for r in range(3):
        nxt.append(board[r].copy())
    nxt[i][j] = player(board)
    return nxt


def winner(board):
    for line in _lines(board):
        marks = {board[i][j] for i, j in line}
        if len(marks) == 1:
            mark = marks.pop()
            if mark is not None:
                return mark
    return None


def terminal(board):
    if winner(board):
        return True
    return all(v is not None for _, _, v in _cells(board))


def utility(board):
    champ = winner(board)
    return 1 if champ == X else (-1 if champ == O else 0)


def _key(board):
    return "".join(v or "." for _, _, v in _cells(board))


def _value(board):
    key = _key(board)
    if key not in _memo:
        if terminal(board):
            _memo[key] = utility(board)
        else:
            children = [_value(result(board, a)) for a in actions(board)]
            _memo[key] = max(children) if player(board) == X else min(children)
    return _memo[key]


def minimax(board):
    if terminal(board):
        return None
    sign = 1 if player(board) == X else -1
    ranked = sorted(actions(board), key=lambda a: -sign * _value(result(board, a)))
    return ranked[0]

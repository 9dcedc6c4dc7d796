"""Tic-tac-toe for CS50 AI, written over a flat list of nine cells."""

import math

X = "X"
O = "O"
EMPTY = None

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8),
         (0, 3, 6), (1, 4, 7), (2, 5, 8),
         (0, 4, 8), (2, 4, 6))


def initial_state():
    return [[EMPTY] * 3 for _ in range(3)]


def flat(board):
    """The nine cells, row by row."""
    return [board[n // 3][n % 3] for n in range(9)]


def player(board):
    cells = flat(board)
    return X if cells.count(X) == cells.count(O) else O


def actions(board):
    return {divmod(n, 3) for n, cell in enumerate(flat(board)) if cell is EMPTY}


def result(board, action):
    if action not in actions(board):
        raise ValueError(f"illegal move {action!r}")
    mover = player(board)
    row, col = action
    return [[mover if (r, c) == (row, col) else board[r][c] for c in range(3)]
            for r in range(3)]


def winner(board):
    cells = flat(board)
    for a, b, c in LINES:
        if cells[a] and cells[a] == cells[b] == cells[c]:
            return cells[a]
    return None


def terminal(board):
    return winner(board) is not None or EMPTY not in flat(board)


def utility(board):
    return {X: 1, O: -1}.get(winner(board), 0)


def negamax(board):
    """(value for the player to move, best action)."""
    if terminal(board):
        sign = 1 if player(board) == X else -1
        return sign * utility(board), None
    best_score, best_move = -2, None
    for move in sorted(actions(board)):
        score = -negamax(result(board, move))[0]
        if score > best_score:
            best_score, best_move = score, move
            if best_score == 1:
                break
    return best_score, best_move


def minimax(board):
    return negamax(board)[1]

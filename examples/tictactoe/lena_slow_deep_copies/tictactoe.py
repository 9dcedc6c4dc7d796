"""Tic Tac Toe Player

A correct but slow solution, as many students write it: plain minimax with no
pruning and no table, a deep copy of the board in result and again in every
max_value/min_value call, actions recomputed to validate each move. On a
2-mark position it needs about 0.2 s of CPU time, on a 4-mark one a few ms:
within the limits, which count CPU time only, however busy the machine is.
"""

import copy
import math

X = "X"
O = "O"
EMPTY = None


def initial_state():
    """Returns starting state of the board."""
    return [[EMPTY, EMPTY, EMPTY],
            [EMPTY, EMPTY, EMPTY],
            [EMPTY, EMPTY, EMPTY]]


def player(board):
    """Returns player who has the next turn on a board."""
    x_count = 0
    o_count = 0
    for row in board:
        for cell in row:
            if cell == X:
                x_count += 1
            elif cell == O:
                o_count += 1
    if x_count > o_count:
        return O
    return X


def actions(board):
    """Returns set of all possible actions (i, j) available on the board."""
    possible = set()
    for i in range(len(board)):
        for j in range(len(board[i])):
            if board[i][j] == EMPTY:
                possible.add((i, j))
    return possible


def result(board, action):
    """Returns the board that results from making move (i, j) on the board."""
    if action not in actions(board):
        raise Exception("Invalid action")
    i, j = action
    new_board = copy.deepcopy(board)
    new_board[i][j] = player(board)
    return new_board


def winner(board):
    """Returns the winner of the game, if there is one."""
    for p in [X, O]:
        for i in range(3):
            if board[i][0] == p and board[i][1] == p and board[i][2] == p:
                return p
            if board[0][i] == p and board[1][i] == p and board[2][i] == p:
                return p
        if board[0][0] == p and board[1][1] == p and board[2][2] == p:
            return p
        if board[0][2] == p and board[1][1] == p and board[2][0] == p:
            return p
    return None


def terminal(board):
    """Returns True if game is over, False otherwise."""
    if winner(board) is not None:
        return True
    if len(actions(board)) == 0:
        return True
    return False


def utility(board):
    """Returns 1 if X has won the game, -1 if O has won, 0 otherwise."""
    w = winner(board)
    if w == X:
        return 1
    elif w == O:
        return -1
    return 0


def max_value(board):
    board = copy.deepcopy(board)  # to be safe: never change the caller's board
    if terminal(board):
        return utility(board), None
    v = -math.inf
    move = None
    for action in actions(board):
        value, _ = min_value(result(board, action))
        if value > v:
            v = value
            move = action
    return v, move


def min_value(board):
    board = copy.deepcopy(board)  # to be safe: never change the caller's board
    if terminal(board):
        return utility(board), None
    v = math.inf
    move = None
    for action in actions(board):
        value, _ = max_value(result(board, action))
        if value < v:
            v = value
            move = action
    return v, move


def minimax(board):
    """Returns the optimal action for the current player on the board."""
    if terminal(board):
        return None
    if player(board) == X:
        return max_value(board)[1]
    return min_value(board)[1]

"""
Tic Tac Toe Player
"""

import math

X = "X"
O = "O"
EMPTY = None


def initial_state():
    """
    Returns starting state of the board.
    """
    return [[EMPTY, EMPTY, EMPTY],
            [EMPTY, EMPTY, EMPTY],
            [EMPTY, EMPTY, EMPTY]]


def player(board):
    """
    Returns player who has the next turn on a board.
    """
    turns = 0
    for line in board:
        turns += 3 - line.count(EMPTY)
    if turns % 2 == 1:
        return O
    return X


def actions(board):
    """
    Returns set of all possible actions (i, j) available on the board.
    """
    res = set()
    for a, line in enumerate(board):
        for b, spot in enumerate(line):
            if spot == EMPTY:
                res.add((a, b))
    return res


def result(board, action):
    """
    Returns the board that results from making move (i, j) on the board.
    """
    # BUG: marks the board it was given instead of a copy
    a, b = action
    if board[a][b] != EMPTY:
        raise Exception("Invalid move")
    board[a][b] = player(board)
    return board


def winner(board):
    """
    Returns the winner of the game, if there is one.
    """
    for line in board:
        if line[0] == line[1] == line[2] and line[0] != EMPTY:
            return line[0]
    for b in range(3):
        if board[0][b] == board[1][b] == board[2][b] and board[0][b] != EMPTY:
            return board[0][b]
    # BUG: forgot the diagonals
    return None


def terminal(board):
    """
    Returns True if game is over, False otherwise.
    """
    return winner(board) != None or len(actions(board)) == 0


def utility(board):
    """
    Returns 1 if X has won the game, -1 if O has won, 0 otherwise.
    """
    if winner(board) == X:
        return 1
    if winner(board) == O:
        return -1
    return 0


def minimax(board):
    """
    Returns the optimal action for the current player on the board.
    """
    if terminal(board):
        return None
    turn = player(board)
    options = []
    for move in actions(board):
        options.append((search(result([r[:] for r in board], move)), move))
    options.sort()
    return options[-1][1] if turn == X else options[0][1]


def search(board):
    if terminal(board):
        return utility(board)
    scores = [search(result([r[:] for r in board], m)) for m in actions(board)]
    if player(board) == X:
        return max(scores)
    return min(scores)

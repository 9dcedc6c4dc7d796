"""Tic-tac-toe over strings: a board becomes 'XO.X.....' and lines are slices."""

import math

X = "X"
O = "O"
EMPTY = None

WINNING = [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6],
           [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]]


def initial_state():
    board = []
    for _ in range(3):
        board.append([EMPTY, EMPTY, EMPTY])
    return board


def encode(board):
    text = ""
    for row in board:
        for cell in row:
            text += "." if cell is None else cell
    return text


def player(board):
    text = encode(board)
    if text.count("X") > text.count("O"):
        return O
    else:
        return X


def actions(board):
    text = encode(board)
    found = set()
    position = text.find(".")
    while position != -1:
        found.add((position // 3, position % 3))
        position = text.find(".", position + 1)
    return found


def result(board, action):
    if type(action) is not tuple or len(action) != 2:
        raise TypeError("action must be (row, column)")
    if action not in actions(board):
        raise ValueError("not a legal action: " + str(action))
    out = [row[:] for row in board]
    out[action[0]][action[1]] = player(board)
    return out


def winner(board):
    text = encode(board)
    for triple in WINNING:
        word = text[triple[0]] + text[triple[1]] + text[triple[2]]
        if word == "XXX":
            return X
        if word == "OOO":
            return O
    return None


def terminal(board):
    return winner(board) is not None or "." not in encode(board)


def utility(board):
    who = winner(board)
    if who is None:
        return 0
    return 1 if who == X else -1


def alphabeta(board, alpha, beta):
    if terminal(board):
        return utility(board)
    if player(board) == X:
        best = -math.inf
        for move in actions(board):
            best = max(best, alphabeta(result(board, move), alpha, beta))
            if best >= beta:
                return best
            alpha = max(alpha, best)
        return best
    best = math.inf
    for move in actions(board):
        best = min(best, alphabeta(result(board, move), alpha, beta))
        if best <= alpha:
            return best
        beta = min(beta, best)
    return best


def minimax(board):
    if terminal(board):
        return None
    maximising = player(board) == X
    choice, target = None, -math.inf if maximising else math.inf
    for move in actions(board):
        value = alphabeta(result(board, move), -math.inf, math.inf)
        if (maximising and value > target) or (not maximising and value < target):
            choice, target = move, value
    return choice

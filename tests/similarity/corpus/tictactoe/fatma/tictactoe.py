import math
import copy

X = "X"
O = "O"
EMPTY = None


def initial_state():
    return [[EMPTY for col in range(3)] for row in range(3)]


def player(board):
    # O moves when X has more marks on the board
    number_x = sum(line.count(X) for line in board)
    number_o = sum(line.count(O) for line in board)
    if number_x <= number_o:
        return X
    return O


def actions(board):
    return {(row, col) for row in range(3) for col in range(3) if not board[row][col]}


def result(board, action):
    row, col = action
    if row < 0 or col < 0:
        raise ValueError
    if board[row][col]:
        raise ValueError
    board2 = copy.deepcopy(board)
    board2[row][col] = player(board)
    return board2


def winner(board):
    lines = []
    for n in range(3):
        lines.append(board[n])
        lines.append([board[m][n] for m in range(3)])
    lines.append([board[n][n] for n in range(3)])
    lines.append([board[n][2 - n] for n in range(3)])
    for line in lines:
        if line == [X, X, X]:
            return X
        if line == [O, O, O]:
            return O
    return None


def terminal(board):
    if winner(board):
        return True
    return not any(EMPTY in line for line in board)


def utility(board):
    if winner(board) == X:
        return 1
    elif winner(board) == O:
        return -1
    else:
        return 0


def score(board, depth):
    """Minimax value; the search stops after `depth` plies (BUG: too shallow)."""
    if terminal(board) or depth == 0:
        return utility(board)
    if player(board) == X:
        return max(score(result(board, a), depth - 1) for a in actions(board))
    return min(score(result(board, a), depth - 1) for a in actions(board))


def minimax(board):
    if terminal(board):
        return None
    moves = list(actions(board))
    if player(board) == X:
        return max(moves, key=lambda a: score(result(board, a), 2))
    return min(moves, key=lambda a: score(result(board, a), 2))

"""
Tic-Tac-Toe: the game rules and an unbeatable player.

A board is a list of three rows; each row is a list of three cells, and each
cell is X, O or EMPTY. X always moves first. An action is a tuple (i, j): the
row i and the column j (both 0, 1 or 2) of the cell the player to move marks.

The interface is the one of CS50 AI's "Tic-Tac-Toe" project, so a solution
written for that project can be handed in here unchanged.
"""

import math
from functools import lru_cache

X = "X"
O = "O"
EMPTY = None


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
    filled = sum(1 for row in board for cell in row if cell is not EMPTY)
    if filled % 2 == 0:
        return X
    else:
        return O


def actions(board):
    """Return the set of all possible actions (i, j) available on `board`.

    An action is a tuple (row, column) of an EMPTY cell. Any return value is
    acceptable on a terminal board.
    """
    return set((r, c) for r, row in enumerate(board) for c, cell in enumerate(row)
               if cell is EMPTY)


def result(board, action):
    """Return the board that results from making move (i, j) on `board`.

    The player to move marks the cell. `board` itself must stay unchanged:
    build a new board (a deep copy), do not modify the one you were given.
    Raise an exception (for example ValueError) if `action` is not a valid
    action for `board`: the cell is taken, or i or j lies outside 0..2
    (negative numbers included).
    """
    r, c = action
    if r < 0 or r > 2 or c < 0 or c > 2:
        raise IndexError("the board has rows and columns 0 to 2 only")
    if board[r][c] is not EMPTY:
        raise ValueError("that cell is not empty")
    copied = [list(row) for row in board]
    copied[r][c] = player(board)
    return copied


def winner(board):
    """Return the winner of the game (X or O) if there is one, else None.

    A player wins with three of their marks in a row: horizontally,
    vertically or diagonally. At most one player can have won.
    """
    candidates = []
    candidates.extend(board)
    candidates.extend(list(column) for column in zip(*board))
    candidates.append([board[0][0], board[1][1], board[2][2]])
    candidates.append([board[2][0], board[1][1], board[0][2]])
    for triple in candidates:
        if triple[0] is not EMPTY and triple.count(triple[0]) == 3:
            return triple[0]
    return None


def terminal(board):
    """Return True if the game is over (someone won or every cell is
    taken), False otherwise."""
    return winner(board) is not None or not actions(board)


def utility(board):
    """Return 1 if X has won the game, -1 if O has won, 0 otherwise.

    Only called on terminal boards.
    """
    champion = winner(board)
    if champion == X:
        return 1
    if champion == O:
        return -1
    return 0


def freeze(board):
    return tuple(tuple(row) for row in board)


@lru_cache(maxsize=None)
def game_value(frozen):
    board = [list(row) for row in frozen]
    if terminal(board):
        return utility(board)
    values = [game_value(freeze(result(board, a))) for a in actions(board)]
    return max(values) if player(board) == X else min(values)


def minimax(board):
    """Return an optimal action (i, j) for the player to move on `board`.

    Optimal means: no other action leads to a better outcome for that player
    when both sides play perfectly. If several actions are equally good, any
    of them is fine. Return None if the board is terminal.
    """
    if terminal(board):
        return None
    scored = [(game_value(freeze(result(board, a))), a) for a in actions(board)]
    if player(board) == X:
        return max(scored)[1]
    return min(scored)[1]

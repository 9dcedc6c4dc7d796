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
    # YOUR CODE HERE
    raise NotImplementedError()


def actions(board):
    """Return the set of all possible actions (i, j) available on `board`.

    An action is a tuple (row, column) of an EMPTY cell. Any return value is
    acceptable on a terminal board.
    """
    # YOUR CODE HERE
    raise NotImplementedError()


def result(board, action):
    """Return the board that results from making move (i, j) on `board`.

    The player to move marks the cell. `board` itself must stay unchanged:
    build a new board (a deep copy), do not modify the one you were given.
    Raise an exception (for example ValueError) if `action` is not a valid
    action for `board`: the cell is taken, or i or j lies outside 0..2
    (negative numbers included).
    """
    # YOUR CODE HERE
    raise NotImplementedError()


def winner(board):
    """Return the winner of the game (X or O) if there is one, else None.

    A player wins with three of their marks in a row: horizontally,
    vertically or diagonally. At most one player can have won.
    """
    # YOUR CODE HERE
    raise NotImplementedError()


def terminal(board):
    """Return True if the game is over (someone won or every cell is
    taken), False otherwise."""
    # YOUR CODE HERE
    raise NotImplementedError()


def utility(board):
    """Return 1 if X has won the game, -1 if O has won, 0 otherwise.

    Only called on terminal boards.
    """
    # YOUR CODE HERE
    raise NotImplementedError()


def minimax(board):
    """Return an optimal action (i, j) for the player to move on `board`.

    Optimal means: no other action leads to a better outcome for that player
    when both sides play perfectly. If several actions are equally good, any
    of them is fine. Return None if the board is terminal.
    """
    # YOUR CODE HERE
    raise NotImplementedError()

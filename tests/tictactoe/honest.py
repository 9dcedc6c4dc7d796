"""Honest rewrites of the tictactoe reference, each of which must score full marks
(tests/kit/test_honest.py; the format of tests/negamax/honest.py)."""

from tests.conftest import ROOT

MODULE = "tictactoe.py"
CORRECT = ROOT / "solutions/tictactoe"

HONEST = {
    "keyword_calls": ("calls every helper by keyword, raises its own exception class", '''
class TakenCellError(LookupError):
    """A cell that is taken, or not on the board."""


def result(board, action):
    i, j = action
    if not (0 <= i < 3 and 0 <= j < 3) or board[i][j] is not EMPTY:
        raise TakenCellError(f"no free cell at {action}")
    new_board = [list(row) for row in board]
    new_board[i][j] = player(board=board)
    return new_board


def terminal(board):
    return winner(board=board) is not None or all(cell is not EMPTY for row in board
                                                  for cell in row)


def utility(board):
    return {X: 1, O: -1}.get(winner(board=board), 0)


def _plain_value(board):
    if terminal(board=board):
        return utility(board=board)
    values = [_plain_value(result(board=board, action=a)) for a in actions(board=board)]
    return max(values) if player(board=board) == X else min(values)


def minimax(board):
    if terminal(board=board):
        return None
    mover = player(board=board)
    moves = sorted(actions(board=board))
    if sum(cell is EMPTY for row in board for cell in row) >= 8:
        return (1, 1) if (1, 1) in moves else (0, 0)      # known optimal openings
    scored = [(_plain_value(result(board=board, action=a)), a) for a in moves]
    best = max(scored)[0] if mover == X else min(scored)[0]
    return next(a for v, a in scored if v == best)
'''),
}

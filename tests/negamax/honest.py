"""Honest rewrites of the negamax reference: code the specification allows, in
styles the reference does not use, each of which must score full marks
(tests/kit/test_honest.py). The dual of bugs.py: MODULE, CORRECT, HONEST =
{name: (what it does differently, code appended to the module)}."""

from tests.conftest import ROOT

MODULE = "negamax.py"
CORRECT = ROOT / "solutions/negamax"

HONEST = {
    # "Raises ValueError": a subclass of ValueError is a ValueError.
    "subclass_exceptions": ("raises its own subclasses of ValueError", '''
class IllegalMoveError(ValueError):
    """A move on a cell in the wrong state."""


class DepthError(ValueError):
    """A search depth below 1."""


_plain_make, _plain_undo = TicTacToe.makeMove, TicTacToe.undoMove
_plain_evaluated = NegaMax.getEvaluatedMoves


def _makeMove(self, move):
    x, y = move
    if self.field[y][x] != 0:
        raise IllegalMoveError(f"cell {move} is taken")
    _plain_make(self, move)


def _undoMove(self, move):
    x, y = move
    if self.field[y][x] == 0:
        raise IllegalMoveError(f"cell {move} is empty")
    _plain_undo(self, move)


def _getEvaluatedMoves(self, depth=None):
    if (self.depth if depth is None else depth) < 1:
        raise DepthError("depth must be at least 1")
    return _plain_evaluated(self, depth)


TicTacToe.makeMove, TicTacToe.undoMove = _makeMove, _undoMove
NegaMax.getEvaluatedMoves = _getEvaluatedMoves
'''),
    # Every call by the specification's parameter names: the grader's board, its
    # rng and the methods it plays take them as the specified ones do.
    "keyword_calls": ("calls every method by keyword", '''
def _explore(self, depth, alpha=-math.inf, beta=math.inf):
    game = self.gameObject
    moves = game.getMoves() if depth > 0 else None
    if not moves:
        value = game.evaluate()
        return value if game.getSide() == 1 else -value
    self.treeNodeCounter += 1
    for move in moves:
        game.makeMove(move=move)
        value = -self.explore(depth=depth - 1, alpha=-beta, beta=-alpha)
        game.undoMove(move=move)
        if value >= beta:
            return beta
        if value > alpha:
            alpha = value
    return alpha


def _getEvaluatedMoves(self, depth=None):
    depth = self.depth if depth is None else depth
    if depth < 1:
        raise ValueError("depth must be at least 1")
    evaluated = []
    for move in self.gameObject.getMoves():
        self.treeNodeCounter = 0
        self.gameObject.makeMove(move=move)
        value = -self.explore(depth - 1, alpha=-math.inf, beta=math.inf)
        self.gameObject.undoMove(move=move)
        evaluated.append((value, move, self.treeNodeCounter))
    return sorted(evaluated, key=lambda entry: -entry[0])


def _getBestMove(self, depth=None, rng=None):
    evaluated = self.getEvaluatedMoves(depth=depth)
    if not evaluated:
        return None
    best = [move for value, move, _ in evaluated if value == evaluated[0][0]]
    return (random if rng is None else rng).choice(seq=best)


def _play(self, rng=None):
    move = self.getBestMove(depth=self.depth, rng=rng)
    if move is not None:
        self.gameObject.makeMove(move=move)
    return move


NegaMax.explore, NegaMax.getEvaluatedMoves = _explore, _getEvaluatedMoves
NegaMax.getBestMove, ShortSightedOpponent.play = _getBestMove, _play
'''),
}

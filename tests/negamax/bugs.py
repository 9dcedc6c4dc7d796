"""Single-function bugs in negamax (issue 22), each appended to the correct example.

The format of tests/tictactoe/bugs.py (read by tests/negamax/test_grading.py and
by the `make check` tests): MODULE, CORRECT, BUGS = {function: (what is wrong,
code appended to the module)}. The functions are the methods a student writes,
named as in [relies_on] and in the public tests' `checks` marks; each bug's
code replaces that one method of the correct example (assigned to its class
after the class is defined) and leaves every other method as it was.

Three of them are bugs the generated wrong examples already have
(`EXAMPLE_OF`): the grading tests grade those examples, not a second copy of
the same bug, to keep the batch small (CI has no room for more submissions).

`JUDGES` says which method each hidden check judges (the suite's test names
are older than the convention test_<function>_...): every check judges one
method with the methods it relies on played by the grader, except the two
that judge makeMove and undoMove together and the whole-program check.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.conftest import ROOT  # noqa: E402

MODULE = "negamax.py"
CORRECT = ROOT / "examples/negamax/ada_correct"

BUGS = {
    "winner": ("misses the anti-diagonal", '''
def _winner(self):
    f = self.field
    for i in range(3):
        if f[i][0] != 0 and f[i][0] == f[i][1] == f[i][2]:
            return f[i][0]
        if f[0][i] != 0 and f[0][i] == f[1][i] == f[2][i]:
            return f[0][i]
    if f[1][1] != 0 and f[0][0] == f[1][1] == f[2][2]:
        return f[1][1]
    return 0


TicTacToe.winner = _winner
'''),
    "evaluate": ("forgets the bonus for the empty cells (every win is 10)", '''
def _evaluate(self):
    player = self.winner()
    return 0 if player == 0 else 10 if player == 1 else -10


TicTacToe.evaluate = _evaluate
'''),
    "getSide": ("counts the empty cells instead of the marks", '''
def _getSide(self):
    empty = sum(row.count(0) for row in self.field)
    return 1 if empty % 2 == 0 else 2


TicTacToe.getSide = _getSide
'''),
    "getMoves": ("offers moves after a win (the same bug as judy_plays_on)", '''
def _getMoves(self):
    return [(x, y) for y in range(3) for x in range(3) if self.field[y][x] == 0]


TicTacToe.getMoves = _getMoves
'''),
    "makeMove": ("marks field[x][y] (row and column swapped)", '''
def _makeMove(self, move):
    x, y = move
    if self.field[x][y] != 0:
        raise ValueError(f"cell {move} is not empty")
    self.field[x][y] = self.getSide()


TicTacToe.makeMove = _makeMove
'''),
    "undoMove": ("empties field[x][y] (row and column swapped)", '''
def _undoMove(self, move):
    x, y = move
    if self.field[x][y] == 0:
        raise ValueError(f"cell {move} is already empty")
    self.field[x][y] = 0


TicTacToe.undoMove = _undoMove
'''),
    "explore": ("does not flip the sign of a leaf for player 2 (the same bug as "
                "eve_no_sign_flip)", '''
def _explore(self, depth, alpha=-math.inf, beta=math.inf):
    game = self.gameObject
    moves = game.getMoves() if depth > 0 else None
    if not moves:
        return game.evaluate()
    self.treeNodeCounter += 1
    for move in moves:
        game.makeMove(move)
        value = -self.explore(depth - 1, -beta, -alpha)
        game.undoMove(move)
        if value >= beta:
            return beta
        if value > alpha:
            alpha = value
    return alpha


NegaMax.explore = _explore
'''),
    "getEvaluatedMoves": ("keeps explore's value, the opponent's view, without negating it",
                          '''
def _getEvaluatedMoves(self, depth=None):
    if depth is None:
        depth = self.depth
    if depth < 1:
        raise ValueError(f"depth must be at least 1, not {depth}")
    game = self.gameObject
    evaluated = []
    for move in game.getMoves():
        self.treeNodeCounter = 0
        game.makeMove(move)
        value = self.explore(depth - 1, -self.infinity, self.infinity)
        game.undoMove(move)
        evaluated.append((value, move, self.treeNodeCounter))
    evaluated.sort(key=lambda entry: -entry[0])
    return evaluated


NegaMax.getEvaluatedMoves = _getEvaluatedMoves
'''),
    "getBestMove": ("always takes the first of the best moves (the same bug as "
                    "grace_first_best)", '''
def _getBestMove(self, depth=None, rng=None):
    evaluated = self.getEvaluatedMoves(depth)
    if not evaluated:
        return None
    return evaluated[0][1]


NegaMax.getBestMove = _getBestMove
'''),
    "play": ("returns the move without making it on the board", '''
def _play(self, rng=None):
    return self.getBestMove(self.depth, rng)


ShortSightedOpponent.play = _play
'''),
}

#: Bugs a generated wrong example already has: graded there, not twice.
EXAMPLE_OF = {"getMoves": "judy_plays_on", "explore": "eve_no_sign_flip",
              "getBestMove": "grace_first_best"}

#: The bugs `make test` grades (other tests read them too, and EXAMPLE_OF's are graded
#: anyway); make test-all grades all.
QUICK = ("getEvaluatedMoves", "evaluate", "play", *EXAMPLE_OF)

#: The method (or methods) each hidden check judges.
JUDGES = {
    "test_winner": {"winner"},
    "test_evaluate": {"evaluate"},
    "test_get_side": {"getSide"},
    "test_get_moves": {"getMoves"},
    "test_make_move": {"makeMove"},
    "test_undo_move": {"undoMove"},
    "test_make_and_undo_refuse_bad_cells": {"makeMove", "undoMove"},
    "test_explore_values": {"explore"},
    "test_evaluated_moves": {"getEvaluatedMoves"},
    "test_best_move": {"getBestMove"},
    "test_best_move_random_choice": {"getBestMove"},
    "test_short_sighted_play": {"play"},
    "test_edge_cases": {"getEvaluatedMoves"},
    "test_work_on_hand_built_trees": {"explore"},
    "test_work_on_positions": {"explore"},
    "test_explore_leaves": {"explore"},
    "test_depth_limit": {"explore"},
    "test_fail_hard_windows": {"explore"},
    "test_board_is_restored": {"explore"},
    "test_evaluated_moves_with_your_own_explore": {"getEvaluatedMoves", "explore"},
}


def source(function: str) -> str:
    """The correct example with the bug in `function`."""
    return (CORRECT / MODULE).read_text(encoding="utf-8") + "\n" + BUGS[function][1]


def folder(function: str):
    """The example submission with the bug in `function` (graded with examples/negamax)."""
    if function in EXAMPLE_OF:
        return ROOT / "examples" / "negamax" / EXAMPLE_OF[function]
    return ROOT / "examples" / "negamax" / f"bug_{function}"


def main():
    """Write examples/negamax/bug_<function>/ (a kit test checks they are what this writes)."""
    for function in BUGS:
        if function not in EXAMPLE_OF:
            folder(function).mkdir(exist_ok=True)
            (folder(function) / MODULE).write_text(source(function), encoding="utf-8")
    print(f"wrote {len(BUGS) - len(EXAMPLE_OF)} single-bug examples")


if __name__ == "__main__":
    main()

"""Kit module for the negamax suite: runs inside the sandbox, next to the student's code.

Loaded into the child (as `kit`) before confinement; standard library only. It
loads `autograder/instrumented.py` by path at import time (the child cannot
read the kit's folders once confined).

Every public function takes plain data, builds a trusted board (`KitBoard`,
tic-tac-toe with the handout's rules, or `TreeGame`, a hand-built tree), wraps
it in `InstrumentedGame`, lets the student's `negamax` module search on it and
returns plain data: the search's answer, the searcher's `treeNodeCounter` and
the instrumented board's `summary()` (calls counted, plies of `evaluate`,
moves left pending, board restored). The hidden suite runs the very same
functions on the reference module in the trusted process (the `_`-prefixed
versions take the module as their first argument), so expected and observed
data come from one code path. The results are as trustworthy as the student
code next to them: the suite judges them, they judge nothing.

Functions that only test the student's own `TicTacToe` board (`winner`,
`evaluate`, ...) build it from a field and call one method.
"""

import importlib
import importlib.util
import math
import os
import random
import sys
import traceback

_HERE = os.path.dirname(os.path.abspath(__file__))
_PATH = os.path.join(_HERE, os.pardir, os.pardir, "instrumented.py")
_spec = importlib.util.spec_from_file_location("_kit_negamax_instrumented",
                                               os.path.normpath(_PATH))
instrumented = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = instrumented
_spec.loader.exec_module(instrumented)

InstrumentedGame = instrumented.InstrumentedGame
TreeGame = instrumented.TreeGame
INF = math.inf
STUDENT = "negamax"
LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


def _tables():
    """Winner and legal moves of every 3**9 fields, by key = sum(cell * 3**index)."""
    winners, moves = [], []
    for key in range(3 ** 9):
        cells = [(key // 3 ** i) % 3 for i in range(9)]
        who = 0
        for a, b, c in LINES:
            if cells[a] and cells[a] == cells[b] == cells[c]:
                who = cells[a]
                break
        winners.append(who)
        moves.append(() if who else tuple((i % 3, i // 3) for i in range(9) if not cells[i]))
    return winners, moves


WINNER, MOVES = _tables()


class KitBoard:
    """Tic-tac-toe with the handout's rules, written independently of any solution.

    `cells[3 * y + x]` holds 0 (empty), 1 or 2; a move is `(x, y)`; player 1
    moves when the number of marks is even; `evaluate()` is +-(10 + empty
    cells) for a line of player 1 / 2, else 0; a decided game (a line, or a
    full board) has no moves; moves come row by row from the top, left to
    right. Fast (table lookups by `key`): the grader searches on it a lot.
    """

    def __init__(self, cells):
        self.cells = list(cells)
        self.marks = sum(1 for cell in self.cells if cell)
        self.key = sum(cell * 3 ** index for index, cell in enumerate(self.cells))

    def getMoves(self):
        return list(MOVES[self.key])

    def getSide(self):
        return 2 if self.marks & 1 else 1

    def evaluate(self):
        who = WINNER[self.key]
        if not who:
            return 0
        return 19 - self.marks if who == 1 else self.marks - 19

    def makeMove(self, move):
        x, y = move
        index = 3 * y + x
        if not (0 <= x < 3 and 0 <= y < 3) or self.cells[index]:
            raise ValueError(f"cell {move!r} is not an empty cell")
        self.marks += 1
        side = 2 if self.marks % 2 == 0 else 1
        self.cells[index] = side
        self.key += side * 3 ** index

    def undoMove(self, move):
        x, y = move
        index = 3 * y + x
        if not (0 <= x < 3 and 0 <= y < 3) or not self.cells[index]:
            raise ValueError(f"cell {move!r} is already empty")
        self.key -= self.cells[index] * 3 ** index
        self.cells[index] = 0
        self.marks -= 1


def _snapshot(game):
    """A cheap comparable state of a kit board (the default deep copy is slow)."""
    if isinstance(game, KitBoard):
        return (tuple(game.cells), game.marks, game.key)
    return (tuple(game.path), id(game.tree))


def _board(target, strict=True):
    """An instrumented board for `target`: 9 cells (tic-tac-toe) or a tree spec
    {"tree": nested lists, "static": [[path, value], ...], "first": 1}."""
    if isinstance(target, dict):
        static = {tuple(path): value for path, value in target.get("static", [])}
        game = TreeGame(target["tree"], static, target.get("first", 1))
    else:
        game = KitBoard(target)
    return InstrumentedGame(game, snapshot=_snapshot, check_legal=strict)


def _cells_of(game):
    inner = game.game
    if isinstance(inner, KitBoard):
        return list(inner.cells)
    return list(inner.path)


def _student():
    return importlib.import_module(STUDENT)


# ------------------------------------------------------------ searches
def _where(error):
    """The student's file and line an exception came from (this file and the
    instrumented wrapper are skipped), or None."""
    skip = (os.path.abspath(__file__), os.path.normpath(_PATH))
    # walk_tb, not extract_tb: reading source lines would open files.
    for frame, line in reversed(list(traceback.walk_tb(error.__traceback__))):
        filename = frame.f_code.co_filename
        if os.path.abspath(filename) not in skip:
            return f"{os.path.basename(filename)}, line {line}"
    return None


def _guarded(game, search):
    """Run `search()`; its result dict gets the board's summary. An exception
    from the student's code becomes data ("error"), so the summary (moves left
    pending, broken rules) survives it."""
    try:
        result = search()
    except Exception as error:
        where = _where(error)
        result = {"error": f"{type(error).__name__}: {str(error)[:300]}"
                           + (f" ({where})" if where else "")}
    result["game"] = game.summary()
    return result


def _explore(module, target, depth, alpha=-INF, beta=INF, strict=True):
    game = _board(target, strict)

    def search():
        searcher = module.NegaMax(game)
        value = searcher.explore(depth, alpha, beta)
        return {"value": value, "nodes": searcher.treeNodeCounter}
    return _guarded(game, search)


def _evaluated_moves(module, target, depth, strict=True):
    game = _board(target, strict)
    return _guarded(game, lambda: {"moves": module.NegaMax(game).getEvaluatedMoves(depth)})


def _default_depth(module, target, depth):
    """getEvaluatedMoves() with no argument on a searcher built with `depth`."""
    game = _board(target, False)
    return _guarded(game, lambda: {"moves": module.NegaMax(game, depth).getEvaluatedMoves()})


def _best_move(module, target, depth, seed, strict=False):
    game = _board(target, strict)
    return _guarded(game, lambda: {
        "move": module.NegaMax(game).getBestMove(depth, random.Random(seed))})


def _play(module, target, depth, seed):
    game = _board(target, False)

    def search():
        move = module.ShortSightedOpponent(game, depth).play(random.Random(seed))
        return {"move": move, "after": _cells_of(game),
                "made": [list(m) if isinstance(m, tuple) else m for m in game.path]}
    return _guarded(game, search)


def explore(target, depth, alpha=-INF, beta=INF, strict=True):
    return _explore(_student(), target, depth, alpha, beta, strict)


def evaluated_moves(target, depth, strict=True):
    return _evaluated_moves(_student(), target, depth, strict)


def default_depth(target, depth):
    return _default_depth(_student(), target, depth)


def best_move(target, depth, seed, strict=False):
    return _best_move(_student(), target, depth, seed, strict)


def play(target, depth, seed):
    return _play(_student(), target, depth, seed)


# ------------------------------------------------------------ the student's own board
def _rows(cells):
    cells = list(cells)
    return [cells[0:3], cells[3:6], cells[6:9]]


def _own(module, cells):
    return module.TicTacToe(_rows(cells))


def _field(board):
    return [list(row) for row in board.field]


def _board_method(module, cells, method):
    return getattr(_own(module, cells), method)()


def winner(cells):
    return _board_method(_student(), cells, "winner")


def evaluate(cells):
    return _board_method(_student(), cells, "evaluate")


def getSide(cells):
    return _board_method(_student(), cells, "getSide")


def getMoves(cells):
    return _board_method(_student(), cells, "getMoves")


def _make_undo(module, cells, move):
    """makeMove(move) then undoMove(move) on the module's own board: both fields."""
    board = _own(module, cells)
    board.makeMove(move)
    made = _field(board)
    board.undoMove(move)
    return [made, _field(board)]


def make_undo(cells, move):
    return _make_undo(_student(), cells, move)


def make_taken(cells, move):
    """makeMove on a cell that is not empty (should raise ValueError)."""
    board = _own(_student(), cells)
    board.makeMove(move)
    return _field(board)


def undo_empty(cells, move):
    """undoMove on a cell that is empty (should raise ValueError)."""
    board = _own(_student(), cells)
    board.undoMove(move)
    return _field(board)

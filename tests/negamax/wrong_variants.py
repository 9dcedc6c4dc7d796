"""Deliberately wrong negamax submissions, and what tells each one from the reference.

Each variant is a complete copy of `solutions/negamax/negamax.py` without the
nbgrader markers (as a student would hand it in) with exactly one bug, written
to `examples/negamax/<student>/negamax.py` (the example submissions the kit
grades for real; `<student>` is `Variant.student`). The files are generated
from the reference by the edits below, so they never drift from it: a kit
test checks that every file is exactly what `build(name)` produces; after
changing the reference, run `python tests/negamax/wrong_variants.py` to
rewrite them. The correct example `examples/negamax/ada_correct` is written
by hand and not generated.

`observe(module)` runs a module's searcher (and, for "rules", its board)
against *reference* boards wrapped in `autograder.checking.boards.InstrumentedGame`,
the way the hidden suite will, and returns one entry per observable:

- value:          search values (getEvaluatedMoves at depths 1, 2, 3 and 9;
                  explore with the full window on boards and hand-built trees)
- nodes:          treeNodeCounter per move / per explore call
- evaluate_calls: evaluate() calls seen by the instrumented board
- make_calls:     makeMove() calls seen by the instrumented board
- board:          board restored and make/undo discipline kept
- window:         explore() results for narrow (alpha, beta) windows
- choice:         the set of moves getBestMove picks over many seeds
- rules:          the module's own TicTacToe compared on all reachable positions

`VARIANTS[name].observables` is the exact set of observables in which that
variant differs from the reference; the kit test asserts it.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import math
import random
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
REFERENCE = ROOT / "solutions" / "negamax" / "negamax.py"
WRONG = ROOT / "examples" / "negamax"
MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
from autograder.checking.boards import InstrumentedGame, MoveTree  # noqa: E402

OBSERVABLES = ("value", "nodes", "evaluate_calls", "make_calls", "board",
               "window", "choice", "rules")


@dataclass(frozen=True)
class Variant:
    bug: str                          # what the student got wrong
    edits: tuple                      # (old, new) text replacements, each old unique
    observables: frozenset            # where it differs from the reference
    student: str = ""                 # example folder: examples/negamax/<student>/
    hidden: tuple = ()                # hidden tests that must fail for this bug


VARIANTS = {
    "no_pruning": Variant(
        "plain negamax handed in as alpha-beta: alpha is raised but nothing is ever cut",
        (("            if value >= beta:\n                return beta\n            if value > alpha:",
          "            if value > alpha:"),),
        frozenset({"nodes", "evaluate_calls", "make_calls", "window"})),
    "wrong_cut_comparison": Variant(
        "cuts on value > beta instead of value >= beta",
        (("            if value >= beta:\n", "            if value > beta:\n"),),
        frozenset({"nodes", "evaluate_calls", "make_calls"})),
    "off_by_one_depth": Variant(
        "searches one half-move too deep (leaf test depth < 0 instead of depth <= 0)",
        (("moves = game.getMoves() if depth > 0 else None",
          "moves = game.getMoves() if depth >= 0 else None"),),
        frozenset({"value", "nodes", "evaluate_calls", "make_calls", "window"})),
    "sign_not_flipped": Variant(
        "a leaf returns evaluate() as it is, not from the side to move's view",
        (("            return value if game.getSide() == 1 else -value\n",
          "            return value\n"),),
        frozenset({"value", "nodes", "evaluate_calls", "make_calls", "window", "choice"})),
    "board_not_restored": Variant(
        "on a cut, returns before taking the move back",
        (("            value = -self.explore(depth - 1, -beta, -alpha)\n"
          "            game.undoMove(move)\n"
          "            if value >= beta:\n"
          "                return beta\n",
          "            value = -self.explore(depth - 1, -beta, -alpha)\n"
          "            if value >= beta:\n"
          "                return beta\n"
          "            game.undoMove(move)\n"),),
        frozenset({"value", "nodes", "evaluate_calls", "make_calls", "board", "window",
                   "choice"})),
    "fixed_choice": Variant(
        "always the first of the equally best moves, never a random one",
        (("        return chooser.choice(bestMoves)\n", "        return bestMoves[0]\n"),),
        frozenset({"choice"})),
    "evaluate_above_depth": Variant(
        "asks evaluate() at every node to see whether the game is decided",
        (("moves = game.getMoves() if depth > 0 else None",
          "moves = game.getMoves() if depth > 0 and game.evaluate() == 0 else None"),),
        frozenset({"value", "nodes", "evaluate_calls", "make_calls", "window"})),
    "fail_soft": Variant(
        "fail-soft instead of the handout's fail-hard: returns the best value, not the bound",
        (("        self.treeNodeCounter += 1\n        for move in moves:",
          "        self.treeNodeCounter += 1\n        best = -math.inf\n        for move in moves:"),
         ("            if value >= beta:\n                return beta\n"
          "            if value > alpha:\n                alpha = value\n        return alpha\n",
          "            if value > best:\n                best = value\n"
          "            if value >= beta:\n                return best\n"
          "            if value > alpha:\n                alpha = value\n        return best\n")),
        frozenset({"window"})),
    "no_game_over_check": Variant(
        "the board's getMoves offers moves after a win, so the game is searched past its end",
        (("        if self.winner() != 0:\n            return []\n        return [(x, y)",
          "        return [(x, y)"),),
        frozenset({"rules"})),
    "expands_decided_games": Variant(
        "treats a decided game (no moves) like any other node: counts it and returns alpha",
        (("moves = game.getMoves() if depth > 0 else None\n        if not moves:",
          "moves = game.getMoves() if depth > 0 else None\n        if moves is None:"),),
        frozenset({"value", "nodes", "evaluate_calls", "make_calls", "window", "choice"})),
}

# Each variant is an example submission (its folder name) and fails, at
# least, these hidden tests of autograder/suites/negamax (tests/negamax asserts it).
EXAMPLES = {
    "no_pruning": ("bob_no_pruning", ("test_work_on_hand_built_trees",
                                      "test_work_on_positions")),
    "wrong_cut_comparison": ("carol_cut_on_greater", ("test_work_on_hand_built_trees",)),
    "off_by_one_depth": ("dan_one_too_deep", ("test_depth_limit",)),
    "sign_not_flipped": ("eve_no_sign_flip", ("test_explore_leaves",)),
    "board_not_restored": ("frank_no_undo_on_cut", ("test_board_is_restored",)),
    "fixed_choice": ("grace_first_best", ("test_best_move_random_choice",)),
    "evaluate_above_depth": ("heidi_evaluates_early", ("test_depth_limit",)),
    "fail_soft": ("ivan_fail_soft", ("test_fail_hard_windows",)),
    "no_game_over_check": ("judy_plays_on", ("test_get_moves",)),
    "expands_decided_games": ("ken_expands_decided", ("test_explore_leaves",)),
}
VARIANTS = {name: dataclasses.replace(variant, student=EXAMPLES[name][0],
                                      hidden=EXAMPLES[name][1])
            for name, variant in VARIANTS.items()}


# -- building and loading -------------------------------------------------
def strip_markers(text: str) -> str:
    return "".join(line for line in text.splitlines(keepends=True)
                   if line.strip() not in MARKERS)


def build(name: str) -> str:
    """The source of variant `name`: the reference without markers, with its edits."""
    text = strip_markers(REFERENCE.read_text(encoding="utf-8"))
    for old, new in VARIANTS[name].edits:
        if text.count(old) != 1:
            raise ValueError(f"{name}: edit target occurs {text.count(old)} times: {old!r}")
        text = text.replace(old, new)
    return text


def path_of(name: str) -> Path:
    return WRONG / VARIANTS[name].student / "negamax.py"


def regenerate() -> None:
    for name in VARIANTS:
        path_of(name).parent.mkdir(parents=True, exist_ok=True)
        path_of(name).write_text(build(name), encoding="utf-8")


def load(path: Path, module_name: str):
    """Import a module from a file under a name of our choosing (no sys.path games)."""
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_reference():
    return load(REFERENCE, "spielbaum_negamax_reference")


def load_variant(name: str):
    return load(path_of(name), f"spielbaum_negamax_wrong_{name}")


# -- positions ------------------------------------------------------------
def reachable_fields(ref) -> list[tuple]:
    """Every reachable tic-tac-toe position as a tuple of 9 cells, row by row, sorted."""
    seen = set()
    board = ref.TicTacToe()

    def walk():
        key = tuple(cell for row in board.field for cell in row)
        if key in seen:
            return
        seen.add(key)
        for move in board.getMoves():
            board.makeMove(move)
            walk()
            board.undoMove(move)
    walk()
    return sorted(seen)


def rows(cells: tuple) -> list[list[int]]:
    return [list(cells[0:3]), list(cells[3:6]), list(cells[6:9])]


# Hand-built trees (player 1 to move at the root). The first is the textbook
# example whose second and third subtrees are cut after their first leaf and
# their third leaf; the second has static values at inner nodes for depth limits.
TREES = [
    ([[3, 12, 8], [2, 4, 6], [14, 5, 2]], {}),
    ([[[5, 6], [7, 4, 5]], [[3]], [[6], [6, 9]], [7]],
     {(0,): 4, (1,): -2, (2,): 5, (3,): 1, (0, 0): 5, (0, 1): 6, (2, 1): 7}),
    ([[[-1, 3], [5, 1]], [[-6, -4], [0, 9]]], {(0,): 1, (1,): -3}),
]


# Positions (3+ marks) with at least two best moves and at least one worse
# move at full depth; the kit test re-derives this property independently.
TIE_POSITIONS = [
    (0, 0, 0, 0, 0, 0, 1, 1, 2), (0, 0, 2, 0, 2, 1, 1, 0, 0),
    (0, 1, 1, 2, 1, 0, 0, 2, 2), (0, 2, 1, 0, 0, 0, 0, 1, 0),
    (1, 0, 0, 2, 1, 0, 0, 0, 2), (1, 1, 0, 2, 0, 2, 2, 0, 1),
    (1, 2, 2, 1, 0, 1, 0, 0, 2), (2, 1, 0, 0, 1, 0, 0, 2, 0),
]


def _safe(call):
    """Run a probe; a crash is itself an observation."""
    try:
        return call()
    except Exception as error:  # the variant's bug may raise anything
        return f"raised {type(error).__name__}"


def observe(module, ref, fields: list[tuple]) -> dict:
    """What a searcher/board module does on the probes, by observable."""
    out = {name: [] for name in OBSERVABLES}

    def record(game, searcher, values, nodes):
        out["value"].append(values)
        out["nodes"].append(nodes)
        out["evaluate_calls"].append(game.counts["evaluate"])
        out["make_calls"].append(game.counts["makeMove"])
        out["board"].append((game.restored(), bool(game.violations)))

    interior = [f for f in fields if ref.TicTacToe(rows(f)).getMoves()]
    sample = interior[::59]
    for cells in sample:
        marks = sum(1 for c in cells if c)
        for depth in (1, 2, 3) + ((9,) if marks >= 3 else ()):
            game = InstrumentedGame(ref.TicTacToe(rows(cells)))
            searcher = module.NegaMax(game)
            result = _safe(lambda: searcher.getEvaluatedMoves(depth))
            if isinstance(result, list):
                record(game, searcher, [(v, m) for v, m, _ in result], [n for _, _, n in result])
            else:
                record(game, searcher, result, result)
        if marks >= 3:
            game = InstrumentedGame(ref.TicTacToe(rows(cells)))
            searcher = module.NegaMax(game)
            value = _safe(lambda: searcher.explore(9, -math.inf, math.inf))
            record(game, searcher, value, searcher.treeNodeCounter)
            for alpha, beta in ((-1, 1), (0, 1), (-15, -11), (11, 13)):
                game = InstrumentedGame(ref.TicTacToe(rows(cells)))
                searcher = module.NegaMax(game)
                out["window"].append(_safe(lambda: searcher.explore(9, alpha, beta)))

    for tree, static in TREES:
        for depth in (1, 2, 3, 4):
            game = InstrumentedGame(MoveTree(tree, static))
            searcher = module.NegaMax(game)
            value = _safe(lambda: searcher.explore(depth, -math.inf, math.inf))
            record(game, searcher, value, searcher.treeNodeCounter)
            for alpha, beta in ((-1, 1), (3, 4), (5, 8)):
                searcher = module.NegaMax(InstrumentedGame(MoveTree(tree, static)))
                out["window"].append(_safe(lambda: searcher.explore(depth, alpha, beta)))

    # Random choice among equals: positions with ties and with worse moves.
    for cells in TIE_POSITIONS:
        picks = set()
        for seed in range(25):
            searcher = module.NegaMax(InstrumentedGame(ref.TicTacToe(rows(cells))))
            picks.add(_safe(lambda: searcher.getBestMove(9, random.Random(seed))))
        out["choice"].append(sorted(picks, key=repr))

    # The module's own board, on every reachable position.
    for cells in fields:
        board = _safe(lambda: module.TicTacToe(rows(cells)))
        out["rules"].append(_safe(lambda: (board.getMoves(), board.evaluate(), board.getSide())))
    return out


def differences(observed: dict, expected: dict) -> set:
    return {name for name in OBSERVABLES if observed[name] != expected[name]}


if __name__ == "__main__":
    regenerate()
    print(f"wrote {len(VARIANTS)} variants under {WRONG}")

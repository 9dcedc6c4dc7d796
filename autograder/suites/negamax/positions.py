"""The positions and games negamax's hidden checks search: every reachable
tic-tac-toe position, seeded samples of them, boards only the grader knows (a
`Twist` of the legal moves' order, subset or values), hand-built and random
trees with opaque move tokens, and the grader's rng. Game data only: the checks
are in test_hidden.py."""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass

from autograder.checking import short
from autograder.grading.reference import load_reference
from autograder.checking.standins import signed
from autograder.i18n import course_language, grader_text as _
from autograder.checking.gametrees import load_tree, to_nested
from autograder.checking.boards import InstrumentedGame, MoveTree, Node, tree_snapshot
from autograder.suites.negamax import games
from autograder.suites.negamax.games import KitBoard, Twist


#: The grader's board as a search is handed it: its methods take the specified board's
#: signatures (TicTacToe's), so `makeMove(move=m)` works as on the student's own board.
Board = signed(InstrumentedGame, load_reference("negamax", "negamax").TicTacToe,
               ("getMoves", "evaluate", "getSide", "makeMove", "undoMove"))


# ------------------------------------------------------------ positions
def marks(cells):
    return sum(1 for cell in cells if cell)


def rows_of(cells):
    return [list(cells[0:3]), list(cells[3:6]), list(cells[6:9])]


def is_open(cells):
    return bool(games.MOVES[games.key_of(cells)])


def side_of(cells):
    return 2 if marks(cells) % 2 else 1


def draw(cells):
    rows = ["".join(".12"[c] for c in cells[i:i + 3]) for i in (0, 3, 6)]
    if is_open(cells):
        rows.append(_("(player {side} to move; moves are (x, y), column first)").format(
            side=side_of(cells)))
    else:
        rows.append(_("(the game is decided)"))
    return "\n".join(rows)


@functools.cache
def positions():
    """Every reachable position as a tuple of 9 cells: fewest marks first."""
    seen, todo = {(0,) * 9}, [(0,) * 9]
    while todo:
        cells = todo.pop()
        board = KitBoard(cells)
        for move in board.getMoves():
            board.makeMove(move)
            nxt = tuple(board.cells)
            board.undoMove(move)
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return tuple(sorted(seen, key=lambda c: (marks(c), c)))


@functools.cache
def open_positions():
    return tuple(c for c in positions() if is_open(c))


@functools.cache
def decided_positions():
    return tuple(c for c in positions() if not is_open(c))


@functools.cache
def sample(count, low, high, seed):
    """`count` open positions with low..high marks, seeded, smallest first."""
    pool = [c for c in open_positions() if low <= marks(c) <= high]
    return tuple(sorted(random.Random(seed).sample(pool, min(count, len(pool))),
                        key=lambda c: (marks(c), c)))


# ------------------------------------------------------------ games only the proxy knows
@dataclass(frozen=True, eq=False)
class Game:
    """A position a search starts from, on a board of the grader's: tic-tac-toe
    `cells` (with a `twist`, or plain) or a hand-built `tree` (player `first`
    moves at its root)."""
    name: str
    cells: tuple | None = None
    twist: Twist | None = None
    tree: Node | None = None
    first: int = 1

    def board(self) -> InstrumentedGame:
        """A fresh trusted board for one search."""
        if self.tree is not None:
            return Board(MoveTree(self.tree, first=self.first), snapshot=tree_snapshot)
        return Board(KitBoard(self.cells, self.twist), snapshot=games.board_snapshot)

    @property
    def text(self) -> str:
        return _game_text(self, course_language())



    @property
    def size(self):
        """For ordering cases smallest first."""
        if self.tree is not None:
            return (0, games.tree_size(self.tree))
        return (1, 9 - marks(self.cells))


def twist_for(index: int, *, keep=1.0, noise=0) -> Twist:
    return Twist(salt=1000 + index, order=True, keep=keep, noise=noise)


def twisted(cells, index, **kind) -> Game:
    return Game(f"position {index}", cells, twist_for(index, **kind))


FIXED_SHAPES = (
    ("three by three", [[3, 12, 8], [2, 4, 6], [14, 5, 2]], {}, 1),
    ("three by three, player 2 first", [[3, 12, 8], [2, 4, 6], [14, 5, 2]], {}, 2),
    ("uneven, with values at inner nodes", [[[5, 6], [7, 4, 5]], [[3]], [[6], [6, 9]], [7]],
     {(0,): 4, (1,): -2, (2,): 5, (3,): 1, (0, 0): 5, (0, 1): 6, (2, 1): 7}, 1),
    ("two by two by two", [[[-1, 3], [5, 1]], [[-6, -4], [0, 9]]], {(0,): 1, (1,): -3}, 1),
    ("a tie exactly at the bound", [[4, 7], [4, 2], [9, 4, 1], [3, 8]], {}, 1),
    ("four plies", [[[[2, 8], [3, 1]], [[6, 0], [5, 4]]], [[[7, 3], [1, 9]], [[4, 4], [8, 2]]]],
     {(0,): 2, (1,): 1, (0, 0): 3, (0, 1): 5, (1, 0): 4, (1, 1): 6}, 2),
)


RANDOM_TREES = 24


@functools.cache
def trees():
    """Fixed shapes with fresh tokens and shifted values, then seeded random trees."""
    found = []
    shapes = list(FIXED_SHAPES)
    for name in ("aima-5-2", "depth-limit", "ties-deep"):
        nested, static = to_nested(load_tree(name))
        shapes.append((name, nested, static, 1))
    for index, (name, nested, static, first) in enumerate(shapes):
        shift = random.Random(index).randint(-7, 7)
        found.append(Game(f"shape {index + 1}", tree=games.token_tree(nested, static, 50 + index,
                                                                     shift), first=first))
    seed = 300
    while len(found) < len(shapes) + RANDOM_TREES:
        seed += 1
        tree = games.random_tree(seed, depth=3 + seed % 3, widths=(1, 4))
        if games.tree_depth(tree) >= 3 and games.tree_size(tree) <= 60:
            found.append(Game(f"random {len(found) - len(shapes) + 1}", tree=tree,
                              first=1 + seed % 2))
    return tuple(found)


# ------------------------------------------------------------ searches
@functools.cache
def _game_text(game: Game, language: str) -> str:
    """A game in words, once per game and language (the searches share their games)."""
    if game.tree is not None:
        return _("hand-built tree '{name}' (player {first} moves at the root; the moves are "
                 "the tokens getMoves lists; values from player 1's view)").format(
            name=game.name, first=game.first) + "\n" + games.draw_tree(game.tree)
    text = draw(game.cells)
    if game.twist is not None:
        moves = KitBoard(game.cells, game.twist).getMoves()
        text += ("\n" + _("{twist}; here getMoves() returns {moves}").format(
            twist=game.twist.describe(), moves=short(moves, 120)) if moves else "")
    return text

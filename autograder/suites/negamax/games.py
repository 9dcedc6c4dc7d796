"""The games and positions negamax's hidden checks search (trusted side only): `KitBoard`
is tic-tac-toe written independently of the reference, a `Twist` makes it a game only the
grader knows, and a `Game` is where a search starts (such a board, or a tree).
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass

from autograder.checking import short
from autograder.checking.boards import (InstrumentedGame, MoveTree, Node, draw_tree,
                                        random_tree, token_tree, tree_depth, tree_size,
                                        tree_snapshot)
from autograder.checking.gametrees import load_tree, to_nested
from autograder.checking.search import Same
from autograder.checking.standins import signed
from autograder.grading.reference import load_reference
from autograder.i18n import course_language, grader_text as _

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


def _tables():
    """Winner and legal moves of every 3**9 fields, by key = sum(cell * 3**index)."""
    winners, moves = [], []
    for key in range(3 ** 9):
        cells = [(key // 3 ** i) % 3 for i in range(9)]
        owners = (cells[a] for a, b, c in LINES if cells[a] and cells[a] == cells[b] == cells[c])
        who = next(owners, 0)
        winners.append(who)
        moves.append(() if who else tuple((i % 3, i // 3) for i in range(9) if not cells[i]))
    return winners, moves


WINNER, MOVES = _tables()


def key_of(cells) -> int:
    return sum(cell * 3 ** index for index, cell in enumerate(cells))


@dataclass(frozen=True)
class Twist:
    """How a KitBoard departs from tic-tac-toe on a position (seeded by `salt`): its moves
    shuffled, a `keep` share of them kept, undecided positions valued -noise to +noise."""
    salt: int
    keep: float = 1.0
    noise: int = 0

    def describe(self) -> str:
        parts = [_("offers only some of the free cells as moves")] if self.keep < 1 else []
        parts.append(_("lists its moves in an order of its own"))
        if self.noise:
            parts.append(_("scores undecided positions with values of its own"))
        return _("the grader's board {what}").format(what=", ".join(parts))

    @functools.cache
    def moves(self, key: int) -> tuple:
        """The moves offered at position `key`: the legal ones, shuffled, some kept."""
        legal = list(MOVES[key])
        if legal:
            rng = random.Random(self.salt * 3 ** 9 + key)
            rng.shuffle(legal)
            if self.keep < 1:
                kept = set(rng.sample(range(len(legal)), max(1, round(len(legal) * self.keep))))
                legal = [m for i, m in enumerate(legal) if i in kept]
        return tuple(legal)

    @functools.cache
    def value(self, key: int) -> int:
        """What `evaluate` gives the undecided position `key`: -noise to +noise."""
        return random.Random(-(self.salt * 3 ** 9 + key)).randint(-self.noise, self.noise)


class KitBoard:
    """Tic-tac-toe with the handout's rules (optionally twisted): `cells[3 * y + x]` holds
    0, 1 or 2 and a move is `(x, y)`; with a twist, `makeMove` refuses a move not offered."""

    def __init__(self, cells, twist: Twist | None = None):
        self.cells = list(cells)
        self.marks = sum(1 for cell in self.cells if cell)
        self.key = key_of(self.cells)
        self.twist = twist

    def getMoves(self):
        return list(MOVES[self.key] if self.twist is None else self.twist.moves(self.key))

    def getSide(self):
        return 2 if self.marks & 1 else 1

    def evaluate(self):
        who = WINNER[self.key]
        if who:
            return 19 - self.marks if who == 1 else self.marks - 19
        if self.twist is None or not self.twist.noise or not MOVES[self.key]:  # full: a draw
            return 0
        return self.twist.value(self.key)

    def _index(self, move):
        if type(move) is not tuple or len(move) != 2 or \
                not all(type(v) is int and 0 <= v < 3 for v in move):
            raise ValueError(_("{move} is not a cell (x, y)").format(move=str(move)[:40]))
        return 3 * move[1] + move[0]

    def makeMove(self, move):
        index = self._index(move)
        if self.cells[index]:
            raise ValueError(_("cell {move} is not empty").format(move=repr(move)))
        if self.twist is not None and move not in self.twist.moves(self.key):
            raise ValueError(_("the board does not offer the move {move} here").format(
                move=repr(move)))
        self.marks += 1
        side = 2 if self.marks % 2 == 0 else 1
        self.cells[index] = side
        self.key += side * 3 ** index

    def undoMove(self, move):
        index = self._index(move)
        if not self.cells[index]:
            raise ValueError(_("cell {move} is already empty").format(move=repr(move)))
        self.key -= self.cells[index] * 3 ** index
        self.cells[index] = 0
        self.marks -= 1


def board_snapshot(game):
    """A cheap comparable state of a KitBoard (the default deep copy is slow)."""
    return (tuple(game.cells), game.marks, game.key)


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
    return bool(MOVES[key_of(cells)])


def draw(cells):
    rows = ["".join(".12"[c] for c in cells[i:i + 3]) for i in (0, 3, 6)]
    if is_open(cells):
        rows.append(_("(player {side} to move; moves are (x, y), column first)").format(
            side=2 if marks(cells) % 2 else 1))
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
    """Where a search starts on a board of the grader's: `cells` (and a `twist`) or a
    hand-built `tree` (player `first` moves at its root)."""
    name: str
    cells: tuple | None = None
    twist: Twist | None = None
    tree: Node | None = None
    first: int = 1

    def board(self) -> InstrumentedGame:
        """A fresh trusted board for one search, keyed for answers ahead by what they depend on."""
        if self.tree is not None:
            return Board(MoveTree(self.tree, first=self.first), snapshot=tree_snapshot,
                         ahead_key=(Same(self.tree), self.first))
        return Board(KitBoard(self.cells, self.twist), snapshot=board_snapshot,
                     ahead_key=(tuple(self.cells), self.twist))

    @property
    def text(self) -> str:
        return _game_text(self, course_language())

    @property
    def size(self):
        """For ordering cases smallest first."""
        if self.tree is not None:
            return (0, tree_size(self.tree))
        return (1, 9 - marks(self.cells))


def twist_for(index: int, *, keep=1.0, noise=0) -> Twist:
    return Twist(salt=1000 + index, keep=keep, noise=noise)


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
        found.append(Game(f"shape {index + 1}", tree=token_tree(nested, static, 50 + index,
                                                                     shift), first=first))
    seed = 300
    while len(found) < len(shapes) + RANDOM_TREES:
        seed += 1
        tree = random_tree(seed, depth=3 + seed % 3, widths=(1, 4))
        if tree_depth(tree) >= 3 and tree_size(tree) <= 60:
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
            name=game.name, first=game.first) + "\n" + draw_tree(game.tree)
    text = draw(game.cells)
    if game.twist is not None:
        moves = KitBoard(game.cells, game.twist).getMoves()
        text += ("\n" + _("{twist}; here getMoves() returns {moves}").format(
            twist=game.twist.describe(), moves=short(moves, 120)) if moves else "")
    return text

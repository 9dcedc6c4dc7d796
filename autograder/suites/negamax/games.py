"""The games the negamax suite hands to a student's search (trusted side only).

These objects live in the grader's process; the student's searcher gets a
`Proxy` of them. Nothing here is ever loaded into the sandbox.

`KitBoard` plays tic-tac-toe with the handout's rules, written independently
of the reference (tests/negamax checks it on every position). A `Twist` makes
it a game only the grader knows: on every position its `getMoves` lists the
legal moves in another (seeded) order, or only some of them, and `evaluate`
may give undecided positions values of their own. A search that answers from
its own rules, or replays a copied reference on the real game, answers for a
different game and fails.

`random_tree` builds seeded game trees with opaque move tokens and arbitrary
values; `token_tree` gives a fixed tree shape fresh tokens and shifted values,
so no tree is recognisable by its moves or numbers.
"""

from __future__ import annotations

import random
import string
from dataclasses import dataclass

from autograder.i18n import grader_text as _
from autograder.checking.boards import Node, nested_tree

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


def key_of(cells) -> int:
    return sum(cell * 3 ** index for index, cell in enumerate(cells))


@dataclass(frozen=True)
class Twist:
    """How a KitBoard departs from plain tic-tac-toe, the same on every visit of a
    position (so it is a game): `order` shuffles the legal moves, `keep` (0 to 1)
    keeps that share of them (at least one), `noise` gives every undecided
    position a value from -noise to +noise instead of 0. `salt` seeds it all."""
    salt: int
    order: bool = True
    keep: float = 1.0
    noise: int = 0

    def describe(self) -> str:
        parts = []
        if self.keep < 1:
            parts.append(_("offers only some of the free cells as moves"))
        if self.order:
            parts.append(_("lists its moves in an order of its own"))
        if self.noise:
            parts.append(_("scores undecided positions with values of its own"))
        return _("the grader's board {what}").format(what=", ".join(parts)) if parts else ""


class TwistTables:
    """Moves and static values of one Twist, computed on first use per position."""

    def __init__(self, twist: Twist):
        self.twist = twist
        self.moves: dict[int, tuple] = {}
        self.values: dict[int, int] = {}

    def moves_of(self, key: int) -> tuple:
        found = self.moves.get(key)
        if found is None:
            legal = list(MOVES[key])
            if legal:
                rng = random.Random(self.twist.salt * 3 ** 9 + key)
                if self.twist.order:
                    rng.shuffle(legal)
                if self.twist.keep < 1:
                    count = max(1, round(len(legal) * self.twist.keep))
                    kept = set(rng.sample(range(len(legal)), count))
                    legal = [m for i, m in enumerate(legal) if i in kept]
            found = self.moves[key] = tuple(legal)
        return found

    def value_of(self, key: int, marks: int) -> int:
        who = WINNER[key]
        if who:
            return 19 - marks if who == 1 else marks - 19
        if not self.twist.noise or not MOVES[key]:      # a full board is a draw
            return 0
        found = self.values.get(key)
        if found is None:
            rng = random.Random(-(self.twist.salt * 3 ** 9 + key))
            found = self.values[key] = rng.randint(-self.twist.noise, self.twist.noise)
        return found


_TABLES: dict[Twist, TwistTables] = {}


def tables(twist: Twist | None) -> TwistTables | None:
    if twist is None:
        return None
    if twist not in _TABLES:
        _TABLES[twist] = TwistTables(twist)
    return _TABLES[twist]


class KitBoard:
    """Tic-tac-toe with the handout's rules (optionally twisted), written
    independently of any solution.

    `cells[3 * y + x]` holds 0 (empty), 1 or 2; a move is `(x, y)`; player 1
    moves when the number of marks is even; `evaluate()` is +-(10 + empty
    cells) for a line of player 1 / 2, else 0; a decided game (a line, or a
    full board) has no moves; moves come row by row from the top, left to
    right. With a twist, `getMoves` and `evaluate` follow the twist, and
    `makeMove` refuses a move `getMoves` does not offer.
    """

    def __init__(self, cells, twist: Twist | None = None):
        self.cells = list(cells)
        self.marks = sum(1 for cell in self.cells if cell)
        self.key = key_of(self.cells)
        self.twist = twist
        self._tables = tables(twist)

    def getMoves(self):
        if self._tables is None:
            return list(MOVES[self.key])
        return list(self._tables.moves_of(self.key))

    def getSide(self):
        return 2 if self.marks & 1 else 1

    def evaluate(self):
        if self._tables is not None:
            return self._tables.value_of(self.key, self.marks)
        who = WINNER[self.key]
        if not who:
            return 0
        return 19 - self.marks if who == 1 else self.marks - 19

    def _index(self, move):
        if type(move) is not tuple or len(move) != 2 or \
                not all(type(v) is int and 0 <= v < 3 for v in move):
            raise ValueError(_("{move} is not a cell (x, y)").format(move=str(move)[:40]))
        return 3 * move[1] + move[0]

    def makeMove(self, move):
        index = self._index(move)
        if self.cells[index]:
            raise ValueError(_("cell {move} is not empty").format(move=repr(move)))
        if self._tables is not None and move not in self._tables.moves_of(self.key):
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


# ------------------------------------------------------------ trees
def token_maker(seed: int):
    """A function giving fresh opaque move tokens (two or three letters and a digit),
    never the same twice in one tree."""
    rng = random.Random(seed)
    used = set()

    def token(*_):
        while True:
            name = "".join(rng.choice(string.ascii_lowercase)
                           for _ in range(rng.choice((2, 3)))) + rng.choice(string.digits)
            if name not in used:
                used.add(name)
                return name
    return token


def token_tree(nested, static, seed: int, shift: int = 0) -> Node:
    """A fixed tree shape with fresh move tokens and every value (the inner nodes'
    default 0 too) shifted by `shift`: a shift keeps the order of all values, so
    alpha-beta does the same work, but the numbers are not the textbook's."""
    moved = {}

    def shifted(node, path):
        if not isinstance(node, list):
            return node + shift
        moved[path] = static.get(path, 0) + shift
        return [shifted(child, path + (index,)) for index, child in enumerate(node)]
    return nested_tree(shifted(nested, ()), moved, token_maker(seed))


def random_tree(seed: int, depth: int, widths=(1, 4), values=(-9, 9), decided=0.15) -> Node:
    """A seeded random tree: `depth` plies at most, between widths[0] and widths[1]
    children per inner node, some positions decided early (no moves), values
    drawn from a small range so that ties and cut-offs at the bound happen."""
    rng = random.Random(seed)
    token = token_maker(seed + 7919)

    def build(level):
        value = rng.randint(*values)
        if level == depth or (level > 0 and rng.random() < decided):
            return Node(value)
        kids = {}
        for _ in range(rng.randint(*widths)):
            kids[token()] = build(level + 1)
        return Node(value, kids)
    return build(0)


def tree_size(node: Node) -> int:
    return 1 + sum(tree_size(child) for child in node.children.values())


def tree_depth(node: Node) -> int:
    return 1 + max((tree_depth(child) for child in node.children.values()), default=-1)


def draw_tree(node: Node, limit: int = 60) -> str:
    """The tree as an indented outline: each line a move and the value there
    (player 1's view; `evaluate` returns it), leaves marked as decided games."""
    lines = []

    def walk(current, depth):
        for move, child in current.children.items():
            if len(lines) >= limit:
                return
            kind = _("decided") if not child.children else "evaluate"
            lines.append(f"{'  ' * depth}{move}: {kind} {child.value}")
            walk(child, depth + 1)
    walk(node, 1)
    more = tree_size(node) - 1 - len(lines)
    head = _("root: evaluate {value}").format(value=node.value)
    rest = ["  " + _("... and {count} more positions").format(count=more)] if more > 0 else []
    return "\n".join([head, *lines] + rest)

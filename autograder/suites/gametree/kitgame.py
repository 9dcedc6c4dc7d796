"""The gametree suite's k-in-a-row games (trusted side): `KitGame`, the assignment's game
with bit-mask rules, and `PositionGame`, a position of it as a game only the grader knows
(checking/search.py), with the blocked cells, child order and heuristic of its `GameSpec`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from autograder.checking import search, short
from autograder.i18n import N_, grader_plural as ngettext, grader_text as _


@functools.cache
def _masks(width, height, k):
    """The winning lines of a board as bit masks, computed once per shape."""
    masks = []
    for row in range(height):
        for col in range(width):
            for d_row, d_col in ((0, 1), (1, 0), (1, 1), (1, -1)):
                end_row, end_col = row + (k - 1) * d_row, col + (k - 1) * d_col
                if 0 <= end_row < height and 0 <= end_col < width:
                    masks.append(sum(1 << ((row + i * d_row) * width + col + i * d_col)
                                     for i in range(k)))
    return tuple(masks)


def _mix(*numbers):
    """A deterministic 32-bit hash of some integers (the same in every process)."""
    h = 0x9E3779B9
    for n in numbers:
        h = ((h ^ (n & 0xFFFFFFFFFFFF)) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
        h ^= h >> 29
    return h & 0xFFFFFFFF


class KitGame:
    """The k-in-a-row game on `width` x `height` cells (the assignment's rules)."""

    def __init__(self, width=3, height=3, k=3, blocked=()):
        self.width, self.height, self.k = width, height, k
        self.cells = width * height
        self.masks = _masks(width, height, k)
        self.blocked = frozenset(blocked)
        self.playable = tuple(c for c in range(self.cells) if c not in self.blocked)

    def owners(self, state):
        x = o = 0
        for i, cell in enumerate(state):
            if i % 2 == 0:
                x |= 1 << cell
            else:
                o |= 1 << cell
        return x, o

    def _won(self, mask):
        return any(mask & line == line for line in self.masks)

    def exact_value(self, state):
        x, o = self.owners(state)
        if self._won(x):
            return 1
        if self._won(o):
            return -1
        return 0

    def decided(self, state):
        return len(state) >= len(self.playable) or self.exact_value(state) != 0

    def heuristic(self, state):
        won = self.exact_value(state)
        if won:
            return 100 * won
        x, o = self.owners(state)
        score = 0
        for line in self.masks:
            if line & o == 0 and line & x:
                score += 1
            elif line & x == 0 and line & o:
                score -= 1
        return score

    def free(self, state):
        taken = set(state)
        return [c for c in self.playable if c not in taken]

    def nextstates(self, state):
        """Successors by increasing cell (the assignment's order)."""
        state = list(state)
        return [state + [cell] for cell in self.free(state)]

    def show(self, state):
        """The board as text: x, o, '.' for a free cell and '#' for a blocked one."""
        marks = ["#" if c in self.blocked else "." for c in range(self.cells)]
        for i, cell in enumerate(state):
            marks[cell] = "x" if i % 2 == 0 else "o"
        return "\n".join(" ".join(marks[r * self.width:(r + 1) * self.width])
                         for r in range(self.height))


@dataclass(frozen=True)
class GameSpec:
    """Everything that defines a PositionGame (hashable: cases are cached by it)."""

    board: tuple            # (width, height, k)
    root: tuple             # the state the search starts from
    mode: str = "exact"     # "exact" or "lines"
    order: str = "cells"    # "cells" (increasing) or "shuffled" (the game's own)
    blocked: tuple = ()
    salt: int = 0

    def at(self, root) -> "GameSpec":
        """The same game with another root (a successor's subtree is the same)."""
        return GameSpec(self.board, tuple(root), self.mode, self.order, self.blocked, self.salt)

    # ------------------------------------------------------------ for judges and feedback
    def rules(self) -> KitGame:
        return _rules(self.board, self.blocked)

    def describe(self) -> str:
        """The game in words: the board, blocked cells, the order, the evaluation."""
        columns, rows, length = self.board
        parts = [_(BOARD_NAMES[self.board]) if self.board in BOARD_NAMES else
                 _("{columns} x {rows}, {length} in a row").format(columns=columns, rows=rows,
                                                                   length=length)]
        if self.blocked:
            parts.append(ngettext("cell {cells} blocked (#, never played)",
                                  "cells {cells} blocked (#, never played)",
                                  len(self.blocked)).format(
                cells=", ".join(map(str, self.blocked))))
        if self.order == "shuffled":
            parts.append(_("nextstates lists the successors in the game's own order, not by "
                           "cell number"))
        if self.mode == "lines":
            parts.append(_("evaluation is a heuristic: +-100 for a won game, otherwise the "
                           "lines x has begun and o has not touched minus the same for o"))
        return "; ".join(parts)

    def drawing(self) -> str:
        state, rules = self.root, self.rules()
        tail = _("game over") if rules.decided(state) else (
            _("x to move") if len(state) % 2 == 0 else _("o to move"))
        return _("state {state} ({game})").format(state=list(state), game=self.describe()) + \
            f"\n{rules.show(state)}\n({tail})"


BOARD_NAMES = {(3, 3, 3): N_("tic-tac-toe"), (4, 3, 3): "4 x 3", (4, 4, 3): "4 x 4"}


@functools.cache
def _rules(board, blocked):
    return KitGame(*board, blocked=blocked)


class PositionGame(search.Game):
    """A real position as a game only the grader knows (search.Game; keys are tuples)."""

    def __init__(self, spec: GameSpec, limit: int | None = None):
        self.spec, self.rules, self.root = spec, spec.rules(), tuple(spec.root)
        super().__init__([self.root], limit)

    def key(self, state, question=""):
        """The state as a tuple, or ValueError if it is not a state of this game."""
        rules = self.rules
        if type(state) not in (list, tuple) or len(state) > rules.cells \
                or any(type(c) is not int for c in state):
            raise ValueError(_("{state} is not a state of this game (a list of cell "
                               "numbers)").format(state=short(state, 60)))
        key = tuple(state)
        if key[:len(self.root)] != self.root:
            raise ValueError(_("{state} does not start with the position searched, "
                               "{root}").format(state=short(state, 60), root=list(self.root)))
        rest = key[len(self.root):]
        if len(set(key)) != len(key) or any(c not in rules.playable for c in rest):
            raise ValueError(_("{state} is not a state of this game: a cell is taken twice or "
                               "cannot be played here").format(state=short(state, 60)))
        return key

    def ply(self, key):
        return len(key) - len(self.root)

    def moves(self, key):
        """The free cells of a state in this game's order, each with its successor."""
        free = self.rules.free(key)
        if self.spec.order == "shuffled":
            x, o = self.rules.owners(key)
            free.sort(key=lambda cell: _mix(self.spec.salt, x, o, cell))
        return [(cell, key + (cell,)) for cell in free]

    def decided(self, key):
        return self.rules.decided(key)

    def worth(self, key):
        return self.rules.exact_value(key) if self.spec.mode == "exact" \
            else self.rules.heuristic(key)

"""The gametree suite's k-in-a-row games, for the trusted side only.

Nothing here is ever loaded into the sandbox. A hidden check hands the
student's search a *proxy* of a `PositionGame` (autograder/sandbox/plans.py):
each `nextstates`, `terminal_test` and `evaluation` call of the search travels
back to the grader, is answered here and recorded here. What the grader
believes about a search (which states it expanded and evaluated, in which
order, at which ply) is read from this object, never from the child.

`KitGame` is the plain game of `solutions/gametree/gametree.py` (states are
lists of cell numbers in play order, x first; k in a row wins; a full board is
a draw) with bit-mask rules, for sampling positions and drawing them.

`PositionGame` is a real position of that game whose successors only this
object knows, so a search that bypasses the game object (the module's own
rules, a copied reference, an aliased function) answers for another game:

* `blocked` cells can never be played (drawn as #); the board is full when
  every other cell is taken;
* `order="shuffled"` lists the successors of every state in an order of its
  own, drawn from the position and a secret salt (not by increasing cell);
* `mode="lines"` evaluates with a heuristic (100 / -100 for a won game,
  otherwise the lines x has begun and o has not touched, minus the same for
  o), so depth-limited values are not all 0; `mode="exact"` gives 1 / -1 / 0.

A `GameSpec` describes such a game; `spec.make()` builds a fresh one with empty
records, so the reference's run and the student's run are compared on equal
objects. The game answers only about what it handed out
(autograder/grading/handout.py): the root, and the successors its own
nextstates returned. Any other question (a state it never gave, something that
is no state at all, a call past the case's call limit) is refused: the search
receives the exception, and `handout.refused` keeps the question, so the check
fails on it even when the search catches the exception. Every answered question
(terminal_test included) is in `handout.log`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from autograder.i18n import N_, grader_plural as ngettext, grader_text as _
from autograder.grading.handout import Handout
from autograder.grading.reference import load_reference
from autograder.grading.standins import signed

#: The methods a search calls on its game (the handout's Game: nextstates,
#: terminal_test, evaluation); a game of the grader's takes their signatures.
GAME_METHODS = ("nextstates", "terminal_test", "evaluation")

_MASKS = {}


def _masks(width, height, k):
    """The winning lines of a board as bit masks, computed once per shape."""
    key = (width, height, k)
    if key not in _MASKS:
        masks = []
        for row in range(height):
            for col in range(width):
                for d_row, d_col in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    end_row, end_col = row + (k - 1) * d_row, col + (k - 1) * d_col
                    if 0 <= end_row < height and 0 <= end_col < width:
                        masks.append(sum(1 << ((row + i * d_row) * width + col + i * d_col)
                                         for i in range(k)))
        _MASKS[key] = tuple(masks)
    return _MASKS[key]


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
        for line in self.masks:
            if mask & line == line:
                return True
        return False

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
        x, o = self.owners(state)
        if self._won(x):
            return 100
        if self._won(o):
            return -100
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

    def make(self) -> "PositionGame":
        """A fresh game whose methods take the specified Game's signatures (a search
        may call `game.nextstates(state=s)` as on the student's own Game)."""
        return signed(PositionGame, load_reference("gametree", "gametree").Game,
                      GAME_METHODS)(self)

    def at(self, root) -> "GameSpec":
        """The same game with another root (a successor's subtree is the same)."""
        return GameSpec(self.board, tuple(root), self.mode, self.order, self.blocked, self.salt)

    # ------------------------------------------------------------ for judges and feedback
    def rules(self) -> KitGame:
        return _rules(self.board, self.blocked)

    def decided(self, key) -> bool:
        return self.rules().decided(key)

    def ply(self, key) -> int:
        return len(key) - len(self.root)

    def label(self, key) -> str:
        return str(list(key))

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

    def drawing(self, state=None) -> str:
        state = self.root if state is None else tuple(state)
        rules = self.rules()
        tail = _("game over") if rules.decided(state) else (
            _("x to move") if len(state) % 2 == 0 else _("o to move"))
        return _("state {state} ({game})").format(state=list(state), game=self.describe()) + \
            f"\n{rules.show(state)}\n({tail})"


BOARD_NAMES = {(3, 3, 3): N_("tic-tac-toe"), (4, 3, 3): "4 x 3", (4, 4, 3): "4 x 4"}


@functools.cache
def _rules(board, blocked):
    return KitGame(*board, blocked=blocked)


class PositionGame(KitGame):
    """A real position as a game only the grader knows; records every call.

    `log` holds ("n", state) for each nextstates call and ("e", state) for each
    evaluation call, in order (states as tuples): what the technique checks
    compare; `tested` counts the terminal_test calls; `handout.log` holds every
    answered question in order. A question about a state the game did not hand
    out is refused (see the module docstring)."""

    def __init__(self, spec: GameSpec):
        if spec.mode not in ("exact", "lines") or spec.order not in ("cells", "shuffled"):
            raise ValueError(f"unknown game variant {spec.mode!r} / {spec.order!r}")
        super().__init__(*spec.board, blocked=spec.blocked)
        self.spec = spec
        self.root = tuple(spec.root)
        self.log = []
        self.tested = 0
        self.calls = 0
        self.call_limit = None      # set per case by the suite (cases.run_searches)
        self.handout = Handout(roots=[self.root], describe=_state_words)

    def _count_call(self):
        """Count a game call; past `call_limit` every call raises ValueError.

        A search that keeps going where the handout's stops (past a decided
        game, say) makes calls without end; stopping it here, after a number of
        calls fixed by the case, makes its verdict the same on a fast or a
        loaded machine instead of hanging on the time limit."""
        self.calls += 1
        if self.call_limit is not None and self.calls > self.call_limit:
            self.handout.refuse(_(
                "this game answers at most {calls} calls, more than a search of the handout's "
                "kind makes here even without pruning (does the search go on past the end of "
                "the game?)").format(calls=self.call_limit))

    # ------------------------------------------------------------ checking states
    def asked(self, question, state):
        """The state as a tuple, if this game handed it out; otherwise the question
        is refused (handout.Refused, a ValueError, raised and kept)."""
        self._count_call()
        try:
            key = self.key(state)
        except ValueError as problem:
            self.handout.refuse(f"{question}: {problem}")
        return self.handout.ask(question, key)

    def key(self, state):
        """The state as a tuple, or ValueError if it is not a state of this game."""
        if type(state) not in (list, tuple) or len(state) > self.cells \
                or any(type(c) is not int for c in state):
            raise ValueError(_("{state} is not a state of this game (a list of cell "
                               "numbers)").format(state=_short(state)))
        key = tuple(state)
        if key[:len(self.root)] != self.root:
            raise ValueError(_("{state} does not start with the position searched, "
                               "{root}").format(state=_short(state), root=list(self.root)))
        rest = key[len(self.root):]
        if len(set(key)) != len(key) or any(c not in self.playable for c in rest):
            raise ValueError(_("{state} is not a state of this game: a cell is taken twice or "
                               "cannot be played here").format(state=_short(state)))
        return key

    def ply(self, key):
        return len(key) - len(self.root)

    # ------------------------------------------------------------ the interface
    def ordered(self, key):
        """The free cells of a state in this game's order."""
        free = self.free(key)
        if self.spec.order == "shuffled":
            x, o = self.owners(key)
            free.sort(key=lambda cell: _mix(self.spec.salt, x, o, cell))
        return free

    def nextstates(self, state, *ignored):
        key = self.asked("nextstates", state)
        self.log.append(("n", key))
        return [list(child) for child in self.handout.give(self.successors(key))]

    def terminal_test(self, state, *ignored):
        key = self.asked("terminal_test", state)
        self.tested += 1
        return self.decided(key)

    def evaluation(self, state, *ignored):
        key = self.asked("evaluation", state)
        self.log.append(("e", key))
        return self.value(key)

    def value(self, key):
        """What evaluation answers, without recording it."""
        return self.exact_value(key) if self.spec.mode == "exact" else self.heuristic(key)

    def successors(self, key):
        return [key + (cell,) for cell in self.ordered(key)]


def _state_words(key):
    return _("the state {state}").format(state=list(key))


def _short(value, limit=60):
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + " ..."

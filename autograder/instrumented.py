"""Trusted board objects for grading make/undo searchers (kit-owned, never shipped).

A make/undo searcher (assignment `negamax`) talks to one board object through
five methods: `getMoves()`, `makeMove(move)`, `undoMove(move)`, `evaluate()`
and `getSide()`. The hidden suite hands the student's searcher a `Proxy` of an
`InstrumentedGame` that lives in the grader's process: every call the search
makes travels back over the pipe and is counted and checked *here*, so the
grader compares the search's work (expanded nodes, `evaluate` and `makeMove`
calls, the order of the moves made) with the reference's and sees whether the
board is exactly as before, from records the student's code cannot reach.
`InstrumentedGame` knows no game.

`TreeGame` is a board object for hand-built game trees whose moves are
arbitrary tokens, so technique checks run on games that only the grader
knows. Neither class is ever loaded into the sandbox.
"""

from __future__ import annotations

import copy
from collections import Counter

from autograder.grading.handout import Handout

GAME_METHODS = ("getMoves", "makeMove", "undoMove", "evaluate", "getSide")
MAX_VIOLATIONS = 20      # kept word for word; the rest are counted
MAX_LOG = 5000           # makeMove calls remembered in order (the visit order)


class DisciplineError(AssertionError):
    """A searcher broke the make/undo protocol (see `InstrumentedGame.violations`)."""


def default_snapshot(game):
    """A deep copy of the game's attributes, compared with == to detect changes."""
    try:
        return copy.deepcopy(vars(game))
    except TypeError:  # no __dict__ (slots, builtins): fall back to its repr
        return repr(game)


def shown(move) -> str:
    """A move as the feedback shows it (student arguments can be anything: capped)."""
    text = repr(move)
    return text if len(text) <= 40 else text[:40] + "..."


class InstrumentedGame:
    """Wrap a board object; count, record and check every call a searcher makes.

    Records (all kept here, in the grader's process):
    - `counts`: calls per method name;
    - `expanded`: positions the search expanded, i.e. visits of a position
      from which at least one move was made (the root counts as well);
    - `made`: the first MAX_LOG moves made, in order (the visit order);
    - `path`: the moves made and not yet taken back; `max_ply` the longest;
    - `evaluate_plies` / `open_evaluate_plies`: how often `evaluate` was called
      at each ply below the root, and (with `check_legal`) how often on a
      position that still had moves: a searcher that respects its depth limit
      d evaluates an undecided position only at ply d;
    - `violations`: broken rules in words (a move the board did not offer, an
      `undoMove` of anything but the last move made, an exception of the
      wrapped board), the first MAX_VIOLATIONS; `violation_count` all of them;
    - `handout`: the board answers only about positions it handed out (the
      root, and those reached by the moves its getMoves offered), so a move it
      did not offer is refused (`Refused`, a ValueError, the board unchanged)
      and kept in `handout.refused`: a check fails on it even when the search
      catches the exception (autograder/grading/handout.py);
    - `restored()`: every move taken back and the wrapped board's snapshot
      equal to the one taken at construction / `reset()`.

    `snapshot(game)` returns a comparable copy of the board's state; by
    default a deep copy of its attributes. If `raise_on_violation` is True, a
    violation raises DisciplineError at once (recorded first).
    """

    def __init__(self, game, *, snapshot=default_snapshot, check_legal=True,
                 raise_on_violation=False):
        self._game = game
        self._snapshot = snapshot
        self._check_legal = check_legal
        self._raise = raise_on_violation
        self.reset()

    # -- bookkeeping -------------------------------------------------------
    def reset(self):
        """Zero every record and take a new snapshot of the wrapped board."""
        self.counts = Counter({name: 0 for name in GAME_METHODS})
        self.expanded = 0
        self._fresh = True          # no move made yet from the current position
        self.made = []
        self.path = []
        self.max_ply = 0
        self.evaluate_plies = Counter()
        self.open_evaluate_plies = Counter()
        self.violations = []
        self.violation_count = 0
        self.handout = Handout()
        self._start = self._snapshot(self._game)

    def _violation(self, message):
        self.violation_count += 1
        if len(self.violations) < MAX_VIOLATIONS:
            self.violations.append(message)
        if self._raise:
            raise DisciplineError(message)

    def restored(self):
        """True if no move is pending and the board's state equals the snapshot."""
        return not self.path and self._snapshot(self._game) == self._start

    def check(self):
        """Raise DisciplineError naming every problem, if there is any."""
        problems = list(self.violations)
        if self.path:
            problems.append("moves made but never taken back: "
                            + ", ".join(shown(m) for m in self.path))
        if self._snapshot(self._game) != self._start:
            problems.append("the board is not the same as before the search")
        if problems:
            raise DisciplineError("; ".join(problems))

    def summary(self):
        """Plain data describing what happened since the last reset (for comparisons)."""
        return {
            "counts": dict(self.counts),
            "expanded": self.expanded,
            "made": list(self.made),
            "max_ply": self.max_ply,
            "evaluate_plies": dict(sorted(self.evaluate_plies.items())),
            "open_evaluate_plies": dict(sorted(self.open_evaluate_plies.items())),
            "violations": list(self.violations),
            "pending": [shown(move) for move in self.path],
            "restored": self.restored(),
            "refused": self.handout.first_refusal,
        }

    @property
    def game(self):
        """The wrapped board (for the grader, not for the searcher)."""
        return self._game

    # -- the board protocol -------------------------------------------------
    def getMoves(self):
        self.counts["getMoves"] += 1
        return list(self._game.getMoves())

    def getSide(self):
        self.counts["getSide"] += 1
        return self._game.getSide()

    def evaluate(self):
        self.counts["evaluate"] += 1
        self.evaluate_plies[len(self.path)] += 1
        if self._check_legal and self._game.getMoves():
            self.open_evaluate_plies[len(self.path)] += 1
        return self._game.evaluate()

    def _where(self):
        return ("at the root" if not self.path
                else "after the moves " + ", ".join(shown(m) for m in self.path[-6:]))

    def makeMove(self, move):
        self.counts["makeMove"] += 1
        if len(self.made) < MAX_LOG:
            self.made.append(move)
        if self._check_legal and move not in self._game.getMoves():
            text = (f"makeMove({shown(move)}) {self._where()}: the board does not offer this "
                    "move here")
            self._violation(text)
            self.handout.refuse(text)
        try:
            self._game.makeMove(move)
        except Exception as error:
            self._violation(f"makeMove({shown(move)}) {self._where()} raised "
                            f"{type(error).__name__}: {str(error)[:80]}")
            raise
        if self._fresh:
            self.expanded += 1
        self._fresh = True
        self.path.append(move)
        self.max_ply = max(self.max_ply, len(self.path))

    def undoMove(self, move):
        self.counts["undoMove"] += 1
        if not self.path or self.path[-1] != move:
            last = shown(self.path[-1]) if self.path else "none"
            self._violation(f"undoMove({shown(move)}) {self._where()}: the last move made "
                            f"was {last}")
        try:
            self._game.undoMove(move)
        except Exception as error:
            self._violation(f"undoMove({shown(move)}) {self._where()} raised "
                            f"{type(error).__name__}: {str(error)[:80]}")
            raise
        self._fresh = False
        if self.path and self.path[-1] == move:
            self.path.pop()
        elif move in self.path:  # out of order: forget the newest copy of it
            del self.path[len(self.path) - 1 - self.path[::-1].index(move)]


class Node:
    """One position of a hand-built tree: `value` is what `evaluate()` returns
    there (from player 1's view), `children` maps each move token to the
    position it leads to, in the order `getMoves()` lists them. A node
    without children is a decided game."""

    __slots__ = ("value", "children")

    def __init__(self, value=0, children=None):
        self.value = value
        self.children = dict(children or {})


def nested_tree(tree, static=None, token=None):
    """A `Node` tree from nested lists: a number is a leaf (its value), a list
    an inner node; `static` maps the path (child indexes) of an inner node to
    its value (default 0); `token(path, index)` names the move to child
    `index` (default: the index itself)."""
    static = dict(static or {})

    def build(node, path):
        if not isinstance(node, list):
            return Node(node)
        kids = {}
        for index, child in enumerate(node):
            name = index if token is None else token(path, index)
            if name in kids:
                raise ValueError(f"two moves named {name!r} at {path}")
            kids[name] = build(child, path + (index,))
        return Node(static.get(path, 0), kids)
    return build(tree, ())


class TreeGame:
    """A hand-built game tree as a board object.

    `tree` is a `Node` (or nested lists and `static`, see `nested_tree`; then
    the moves are the child indexes). Player `first` moves at the root; the
    sides alternate. Moves are whatever tokens the tree's nodes use: a move
    the current node does not offer raises ValueError.
    """

    def __init__(self, tree, static=None, first=1):
        self.root = tree if isinstance(tree, Node) else nested_tree(tree, static)
        self.first = first
        self.path = []
        self.nodes = [self.root]

    def getMoves(self):
        return list(self.nodes[-1].children)

    def makeMove(self, move):
        try:
            child = self.nodes[-1].children.get(move)
        except TypeError:        # an unhashable argument is no move either
            child = None
        if child is None:
            raise ValueError(f"no move {shown(move)} here")
        self.path.append(move)
        self.nodes.append(child)

    def undoMove(self, move):
        if not self.path or self.path[-1] != move:
            raise ValueError(f"cannot take back {shown(move)}: it was not the last move")
        self.path.pop()
        self.nodes.pop()

    def evaluate(self):
        return self.nodes[-1].value

    def getSide(self):
        return self.first if len(self.path) % 2 == 0 else 3 - self.first


def tree_snapshot(game):
    """A cheap comparable state of a TreeGame."""
    return (tuple(game.path), len(game.nodes), id(game.nodes[-1]))

"""Instrumented board objects for grading make/undo searchers (kit-owned, never shipped).

A make/undo searcher (assignment `negamax`) talks to one board object through
five methods: `getMoves()`, `makeMove(move)`, `undoMove(move)`, `evaluate()`
and `getSide()`. `InstrumentedGame` wraps any object that has them and
counts and checks every call, so the grader can compare a submission's work
(expanded nodes, `evaluate` calls, `makeMove` calls) with the reference's and
prove that the board is exactly as before after a search. It knows no game.

`TreeGame` is a board object for small hand-built game trees, so technique
checks can run on trees whose every node is known.

Both are plain Python with no imports from the solutions; the sandbox may
construct them on its side of the boundary and report `summary()` as JSON.
"""

from __future__ import annotations

import copy
from collections import Counter

GAME_METHODS = ("getMoves", "makeMove", "undoMove", "evaluate", "getSide")


class DisciplineError(AssertionError):
    """A searcher broke the make/undo protocol (see `InstrumentedGame.violations`)."""


def default_snapshot(game):
    """A deep copy of the game's attributes, compared with == to detect changes."""
    try:
        return copy.deepcopy(vars(game))
    except TypeError:  # no __dict__ (slots, builtins): fall back to its repr
        return repr(game)


class InstrumentedGame:
    """Wrap a board object; count, record and check every call a searcher makes.

    Exposes exactly `getMoves`, `makeMove`, `undoMove`, `evaluate`, `getSide`
    (plus any names given in `extra_methods`, forwarded and counted); any other
    attribute access fails with AttributeError, so a searcher cannot peek at
    the wrapped board's fields.

    Counters (`counts`, a Counter keyed by method name) and checks:
    - `path`: the moves made and not yet taken back, in order;
      `max_ply` the longest `path` seen.
    - `evaluate_plies`: Counter of len(path) at each `evaluate` call, and
      `open_evaluate_plies` the same for positions that still had moves (when
      `check_legal`): a searcher that respects its depth limit d evaluates an
      undecided position only at ply d, so anything else there means
      "evaluated above the depth limit" (or below it).
    - `violations`: human-readable strings, one per broken rule: a move not in
      `getMoves()` (when `check_legal`), an `undoMove` of anything but the last
      move made, an exception from the wrapped board.
    - `restored()`: True when every move was taken back and the wrapped
      board's snapshot equals the one taken at construction / `reset()`.
    - `log` (when `record=True`): every make/undo as ("make" | "undo", move).

    `snapshot(game)` returns a comparable copy of the board's state; by
    default a deep copy of its attributes. If `raise_on_violation` is True, a
    violation raises DisciplineError at once (the violation is recorded first,
    so a searcher that catches the exception cannot hide it).
    """

    def __init__(self, game, *, snapshot=default_snapshot, check_legal=True,
                 record=False, raise_on_violation=False, extra_methods=()):
        self._game = game
        self._snapshot = snapshot
        self._check_legal = check_legal
        self._record = record
        self._raise = raise_on_violation
        self._extra = tuple(extra_methods)
        self.reset()

    # -- bookkeeping -------------------------------------------------------
    def reset(self):
        """Zero every counter and take a new snapshot of the wrapped board."""
        self.counts = Counter({name: 0 for name in GAME_METHODS + self._extra})
        self.path = []
        self.max_ply = 0
        self.evaluate_plies = Counter()
        self.open_evaluate_plies = Counter()
        self.violations = []
        self.log = [] if self._record else None
        self._start = self._snapshot(self._game)

    def _violation(self, message):
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
            problems.append(f"moves made but never taken back: {self.path!r}")
        if self._snapshot(self._game) != self._start:
            problems.append("the board is not the same as before the search")
        if problems:
            raise DisciplineError("; ".join(problems))

    def summary(self):
        """Plain data (JSON-able) describing what happened since the last reset."""
        return {
            "counts": dict(self.counts),
            "max_ply": self.max_ply,
            "evaluate_plies": {str(ply): n for ply, n in sorted(self.evaluate_plies.items())},
            "open_evaluate_plies": {str(ply): n
                                    for ply, n in sorted(self.open_evaluate_plies.items())},
            "violations": list(self.violations),
            "pending": [repr(move) for move in self.path],
            "restored": self.restored(),
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

    def makeMove(self, move):
        self.counts["makeMove"] += 1
        if self._check_legal and move not in self._game.getMoves():
            self._violation(f"makeMove({move!r}) after {self.path!r}: not a legal move")
        if self._record:
            self.log.append(("make", move))
        try:
            self._game.makeMove(move)
        except Exception as error:
            self._violation(f"makeMove({move!r}) after {self.path!r} raised {error!r}")
            raise
        self.path.append(move)
        self.max_ply = max(self.max_ply, len(self.path))

    def undoMove(self, move):
        self.counts["undoMove"] += 1
        if self._record:
            self.log.append(("undo", move))
        if not self.path or self.path[-1] != move:
            last = self.path[-1] if self.path else None
            self._violation(f"undoMove({move!r}) after {self.path!r}: "
                            f"the last move made was {last!r}")
        try:
            self._game.undoMove(move)
        except Exception as error:
            self._violation(f"undoMove({move!r}) after {self.path!r} raised {error!r}")
            raise
        if self.path and self.path[-1] == move:
            self.path.pop()
        elif move in self.path:  # out of order: forget the newest copy of it
            del self.path[len(self.path) - 1 - self.path[::-1].index(move)]

    def __getattr__(self, name):
        # Only called for names not found normally: forward the allowed extras.
        if name.startswith("_") or name not in self._extra:
            raise AttributeError(
                f"the board offers only {', '.join(GAME_METHODS + self._extra)}; "
                f"a searcher may not use {name!r}")
        method = getattr(self._game, name)

        def counted(*args, **kwargs):
            self.counts[name] += 1
            return method(*args, **kwargs)
        return counted


class TreeGame:
    """A hand-built game tree as a board object (moves are child indexes).

    `tree` is nested lists: a number is a leaf (its `evaluate()` value, from
    player 1's view), a list is an inner node whose children are reached by
    the moves 0, 1, ..., len - 1 in that order. `static` maps the path (a
    tuple of moves from the root) of an inner node to what `evaluate()`
    returns there when a depth limit stops the search (default 0). Player
    `first` moves at the root; the sides alternate. An inner node with no
    children is a decided game worth `static.get(path, 0)`.
    """

    def __init__(self, tree, static=None, first=1):
        self.tree = tree
        self.static = dict(static or {})
        self.first = first
        self.path = []

    def _node(self):
        node = self.tree
        for move in self.path:
            node = node[move]
        return node

    def getMoves(self):
        node = self._node()
        return list(range(len(node))) if isinstance(node, list) else []

    def makeMove(self, move):
        node = self._node()
        if not isinstance(node, list) or not (isinstance(move, int) and 0 <= move < len(node)):
            raise ValueError(f"no move {move!r} at {tuple(self.path)}")
        self.path.append(move)

    def undoMove(self, move):
        if not self.path or self.path[-1] != move:
            raise ValueError(f"cannot take back {move!r} at {tuple(self.path)}")
        self.path.pop()

    def evaluate(self):
        node = self._node()
        if isinstance(node, list):
            return self.static.get(tuple(self.path), 0)
        return node

    def getSide(self):
        if len(self.path) % 2 == 0:
            return self.first
        return 3 - self.first

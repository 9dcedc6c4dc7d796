"""The games the muehle suite hands a submission's search: they live here, in the grader.

The sandboxed child holds the student's module and nothing of ours. A search check
replaces the module's rules (`next_states`, `finished`, `utility`, `heuristic`) for
the length of one call plan by callbacks whose every call travels back to a `Watch`
in this process. The watch answers from a `Game`: Nine Men's Morris positions, but a
game only the grader knows:

* each position offers a seeded subset of its legal moves, in a seeded order;
* every position has an arbitrary heuristic value (a multiple of 1/128 between
  -60/128 and 60/128, the negation for the other player, as the real one);
* some positions are declared finished, with an arbitrary utility.

A search that bypasses the callbacks (its own rules, a function bound to a private
name at import, a copy of a reference) therefore answers for another game and gets
other values. A watch also answers only about positions it handed out in the same plan
(the engine's `Handout`, autograder/grading/handout.py): a search that generates its
own successors is refused at its first question, and the refusal is kept, so the check
fails on it even when the search catches the exception. Everything the checks judge
about a search (which functions were called, on what, in which order) is the watch's
own record.

Seeded means deterministic across processes: the choices hash (salt, position,
player) with Python's tuple hash, which is not randomised for ints.
"""

from __future__ import annotations

import contextlib
import random

from autograder.grading.checks import short
from autograder.grading.handout import Handout, Refused  # noqa: F401 (the suite's tests)
from autograder.grading.reference import load_reference
from autograder.sandbox.plans import Callback

from . import movegen

ref = load_reference("muehle", "muehle")
W, B = ref.WHITE, ref.BLACK
# The real rules, bound now: the checks replace the reference's module functions while
# it computes expected values on a game, and the game itself must keep the real ones.
_real_finished, _real_utility = ref.finished, ref.utility
M = "muehle."
RULES = ("next_states", "finished", "utility", "heuristic")
_MASK = (1 << 61) - 1


def as_state(value):
    """A state of either form in tuple form, or None if `value` is not a state."""
    try:
        board, in_hand, quiet = value
        board, in_hand = tuple(board), tuple(in_hand)
    except (TypeError, ValueError):
        return None
    if len(board) != 24 or len(in_hand) != 2 or type(quiet) is not int \
            or any(type(x) is not int for x in board + in_hand):
        return None
    return (board, in_hand, quiet)


def list_form(state):
    return [list(state[0]), list(state[1]), state[2]]


def other(player):
    return W + B - player


class Game:
    """Nine Men's Morris with the grader's choice of moves, values and endings.

    `widths` (low, high): how many of a position's legal moves it offers (seeded in
    that range; None offers them all, in a seeded order). `finish`: the share of
    positions (never a root) the game declares finished although they are not.
    Real finished positions stay finished with their real utility."""

    def __init__(self, salt: int, roots=(), widths=(2, 6), finish=0.1):
        self.salt, self.widths, self.finish = salt, widths, finish
        self.roots = frozenset(roots)
        self._moves: dict = {}

    def _mix(self, *parts) -> int:
        return hash((self.salt, *parts)) & _MASK

    def _declared(self, state, player) -> bool:
        """Finished by the grader's choice (never a root)."""
        return ((state, player) not in self.roots
                and self._mix(3, state, player) % 1000 < self.finish * 1000)

    def finished(self, state, player) -> bool:
        return _real_finished(state, player) or self._declared(state, player)

    def utility(self, state, player):
        if _real_finished(state, player):
            return _real_utility(state, player)
        if self._declared(state, player):
            return (-1, 0, 1)[self._mix(4, state, player) % 3]
        return 0

    def heuristic(self, state, player):
        value = (self._mix(2, state) % 121 - 60) / 128
        return value if player == W else -value

    def successors(self, state, player) -> list:
        """The moves this game offers, as tuple-form states, in its order."""
        key = (state, player)
        found = self._moves.get(key)
        if found is None:
            found = []
            if not self.finished(state, player):
                legal = sorted(movegen.next_states(state, player))
                rng = random.Random(self._mix(1, state, player))
                rng.shuffle(legal)
                count = len(legal) if self.widths is None else rng.randint(*self.widths)
                found = legal[:max(1, count)]
            if len(self._moves) < 100_000:      # a runaway search must not grow the grader
                self._moves[key] = found
        return found


class Watch:
    """One plan's window on a game: the rules patched into the student's module.

    Answers only about positions handed out in this plan (the roots, and what its
    next_states returned) with the player to move there: `handout` holds them, every
    answered question in order (`calls`) and the refused ones (`handout.refused`)."""

    def __init__(self, game: Game, roots):
        self.game = game
        self.handout = Handout(roots)           # (state, player) the search may ask about
        self.seen = {state for state, _ in roots}
        self.done = False                       # the plan's last step reached the grader

    @property
    def given(self):
        return self.handout.given

    @property
    def calls(self) -> list[tuple]:
        """(function, state, player) of every answered question, in order."""
        return [(name, s, player) for name, (s, player) in self.handout.log]

    def _position(self, name, state, player, either_player=False):
        s = as_state(state)
        if s is None:
            self.handout.refuse(f"{name}: {short(state, 80)} is not a state "
                                "[board, in_hand, quiet]")
        if player not in (W, B):
            self.handout.refuse(f"{name}: {short(player, 40)} is not a player "
                                "(WHITE or BLACK)")
        key = (s, player)
        if key not in self.handout.given:
            if either_player and s in self.seen:     # the heuristic: either player
                self.handout.log.append((name, key))
                return s
            if s in self.seen:
                self.handout.refuse(f"{name} was asked about a position with the wrong "
                                    "player to move")
            self.handout.refuse(f"{name} was asked about a position that next_states did "
                                "not hand out in this check: the grader replaces next_states, "
                                "finished, utility and heuristic while it checks a search, so "
                                "call them by the module's names")
        self.handout.ask(name, key)
        return s

    def next_states(self, state, player):
        s = self._position("next_states", state, player)
        found = self.game.successors(s, player)
        nxt = other(player)
        self.handout.give((t, nxt) for t in found)
        self.seen.update(found)
        return [list_form(t) for t in found]

    def finished(self, state, player):
        return self.game.finished(self._position("finished", state, player), player)

    def utility(self, state, player):
        return self.game.utility(self._position("utility", state, player), player)

    def heuristic(self, state, player):
        # Either player: the heuristic is antisymmetric, as the real one.
        return self.game.heuristic(self._position("heuristic", state, player, True), player)

    # ------------------------------------------------------------ reading the record
    def count(self, *names) -> int:
        return sum(name in names for name, _ in self.handout.log)

    @property
    def nodes(self) -> int:
        """Nodes explored, as the handout counts them: next_states and heuristic calls."""
        return self.count("next_states", "heuristic")

    def mark_done(self):
        self.done = True

    # ------------------------------------------------------------ plans
    def install(self, plan, names=RULES):
        """Patch the student's module for this plan (restored when the plan ends)."""
        for name in names:
            plan.patch(M + name, Callback(getattr(self, name)))


@contextlib.contextmanager
def reference_with(**functions):
    """The reference module with some of its functions replaced (rules by a watch's,
    value_ab by a recorder, ...): the expected behaviour on the grader's game."""
    missing = object()
    saved = {name: getattr(ref, name, missing) for name in functions}
    ref.clear_caches()
    for name, function in functions.items():
        setattr(ref, name, function)
    try:
        yield ref
    finally:
        for name, function in saved.items():
            setattr(ref, name, function)
        ref.clear_caches()


def reference_on(watch: Watch, **extra):
    """The reference playing the watch's game (and `extra` replacements)."""
    return reference_with(**{name: getattr(watch, name) for name in RULES}, **extra)

"""Games only the grader knows: what the connect4 suite hands the student's searches.

A `SubsetGame` (checking/search.py's game) is real Connect 4 positions, each offering
2 to 5 of its legal moves in an order of its own, an unfinished position worth an
arbitrary small number (many ties, so `>` versus `>=` shows), a finished game its real
value; seeded by the position and the game's salt, so the grader replays the game for
the reference (`reference_on`). `Legal` vets the positions of play_game and tournament.
"""

from __future__ import annotations

import functools
import inspect
import math
import random
import zlib

from autograder.checking import load_reference, search
from autograder.checking.handout import Handout
from autograder.checking.standins import spec_of, stand_in, stand_ins
from autograder.i18n import N_, grader_text as _

ref = load_reference("connect4", "connect4")
INF = math.inf
WIN = ref.WIN
CELLS = ref.CELLS
#: What the grader's stand-ins play, as the handout specifies it, bound now (the
#: reference's nextstates is the game's while it searches one, `reference_on`): the
#: student's functions the grader plays, an `order` function (centre_first's signature)
#: and a `clock` (time.monotonic's: no arguments; written out, since Python 3.11 cannot
#: read it).
SPEC = {**{name: getattr(ref, name) for name in (
    "nextstates", "evaluation", "terminal_test", "maximize", "minimize", "centre_first",
    "play_game")}, "order": ref.centre_first, "clock": inspect.Signature()}

played_as = stand_ins(SPEC)    # the grader's function playing a specified one

#: Unfinished positions are worth -SPREAD * STEP .. SPREAD * STEP, in steps of STEP.
SPREAD, STEP = 9, 7
#: How many (salt, position) answers are remembered; a worker grades many students.
_CACHE_LIMIT = 400_000
_moves_cache: dict = {}
_value_cache: dict = {}


def _remembered(cache: dict, key, compute):
    """`cache[key]`, computed by `compute()` the first time (while the cache has room)."""
    found = cache.get(key)
    if found is None:
        found = compute()
        if len(cache) < _CACHE_LIMIT:
            cache[key] = found
    return found


def as_state(value, what: str) -> tuple:
    """A position the student's code sent, as a tuple; ValueError if it is none."""
    if type(value) not in (list, tuple) or len(value) > CELLS:
        raise ValueError(_("{function} expects a state (a list of cell numbers), got "
                           "{value}").format(function=what, value=str(value)[:60]))
    for cell in value:
        if type(cell) is not int or not 0 <= cell < CELLS:
            raise ValueError(_("{function} got a state with {value}, not a cell 0..41").format(
                function=what, value=str(cell)[:20]))
    if len(set(value)) != len(value):
        raise ValueError(_("{function} got a state that takes a cell twice").format(
            function=what))
    return tuple(value)


def _rng(salt: int, key: tuple, purpose: bytes) -> random.Random:
    return random.Random(zlib.crc32(bytes(key) + purpose, salt))


def real_value(key: tuple) -> int:
    """+-WIN for four in a row (the handout's evaluation), else 0."""
    value = ref.evaluation(list(key))
    return value if abs(value) >= WIN else 0


def never_offered(what: str, key) -> str:
    return _("{function} was asked about {state}, which this check's nextstates never "
             "offered (the grader's game answers only about the position it gave and the "
             "children its nextstates returned)").format(function=what,
                                                         state=str(list(key))[:120])


def handed(handout: Handout, what: str, value) -> tuple:
    """`value` as a position the game handed out, or the question is refused."""
    try:
        key = as_state(value, what)
    except ValueError as problem:
        handout.refuse(str(problem))
    if key not in handout.given:
        handout.refuse(never_offered(what, key))
    return handout.ask(what, key)


class SubsetGame(search.Game):
    """Connect 4 positions with a subset of the moves and values of our own: `cells`,
    `worth` and `children` answer the grader without logging."""

    too_many = N_("this check's game answers at most {calls} calls, several times what the "
                  "handout's search makes here (does the search never stop?)")

    def __init__(self, salt: int, roots=(), limit: int | None = None):
        self.salt = salt
        self.evaluations = 0        # calls of evaluation so far: the virtual clock's time
        # terminal_test played on this game: (position, whether an evaluation was given)
        self.terminal_tests: list[tuple[tuple, bool]] = []
        super().__init__([tuple(root) for root in roots], limit)

    def key(self, state, question=""):
        return as_state(state, question)

    def malformed(self, question, problem):
        return str(problem)

    def never_given(self, question, key):
        return never_offered(question, key)

    def step(self, key):
        return str(key[-1] % 7) if key else "·"

    # ------------------------------------------------------------ the rules
    def cells(self, key: tuple) -> tuple:
        """The cells the player to move may take here, in this game's order."""
        def drawn():
            legal = ref.free(ref.getBoard(list(key)))
            rng = _rng(self.salt, key, b"moves")
            return tuple(rng.sample(legal, min(len(legal), rng.randint(2, 5))))
        return _remembered(_moves_cache, (self.salt, key), drawn)

    def moves(self, key):
        return [(cell, key + (cell,)) for cell in self.cells(key)]

    def worth(self, key: tuple) -> int:
        """A finished game's real value; any other position an arbitrary number."""
        return _remembered(_value_cache, (self.salt, key), lambda: real_value(key) or (
            STEP * _rng(self.salt, key, b"value").randint(-SPREAD, SPREAD)))

    def decided(self, key):
        return len(key) == CELLS or bool(real_value(key))

    def children(self, key: tuple) -> list[list[int]]:
        return [list(key) + [cell] for cell in self.cells(key)]

    # ------------------------------------------------------------ what the callbacks call
    def evaluation(self, state, *ignored):
        value = super().evaluation(state)
        self.evaluations += 1
        return value

    def terminal_test(self, state, evaluation):
        """The handout's terminal_test on a position `handed` let through, recorded."""
        self.terminal_tests.append((tuple(state), evaluation is not None))
        return ref.terminal_test(state, evaluation)


class RealGame(search.Game):
    """Real Connect 4 (the reference's rules and evaluation, about any position) with
    every call logged, so a failing move of the player can be drawn beside the
    rule's search; children centre first, the order the player searches in."""

    def moves(self, key):
        return [(child[-1], tuple(child)) for child in
                SPEC["centre_first"](SPEC["nextstates"](list(key)))]

    def worth(self, key):
        return SPEC["evaluation"](list(key))

    step = SubsetGame.step

    def nextstates(self, state):
        children = SPEC["nextstates"](state)
        self.log.append(("n", tuple(state)))
        return children

    def evaluation(self, state):
        value = SPEC["evaluation"](state)
        self.log.append(("e", tuple(state)))
        return value


class Legal:
    """Positions reached from the check's openings by legal moves: what an evaluation
    of the grader's answers about in play_game and tournament (anything else is
    refused and kept in `handout.refused`)."""

    def __init__(self, openings=()):
        self.openings = tuple(tuple(o) for o in openings)
        self.handout = Handout()

    def check(self, what: str, value) -> tuple:
        try:
            key = as_state(value, what)
        except ValueError as problem:
            self.handout.refuse(str(problem))
        if key not in self.handout.given:
            if not any(key[:len(o)] == o for o in self.openings) or not gravity_legal(key):
                self.handout.refuse(
                    _("{function} was asked about {state}, which no legal game from this "
                      "check's openings reaches (the grader's evaluation answers only about "
                      "positions of the game being played)").format(
                        function=what, state=str(list(key))[:120]))
            self.handout.give([key])
        return self.handout.ask(what, key)


def within(name: str, vet, function=None, at: str = "state"):
    """A function of the grader's (by default the reference's `name`) played in a game
    the student's code takes part in, with the specified function's signature: it
    answers only about positions `vet(name, position)` lets through (a `Legal`'s
    check, `handed` on a game's handout), which refuses any other. Its position is
    argument `at`; a search counts nothing."""
    function = function or SPEC[name]
    names = list(spec_of(SPEC[name]).parameters)

    def answer(*args):
        arguments = dict(zip(names, args))
        if at in arguments:
            arguments[at] = list(vet(name, arguments[at]))
        if arguments.get("stats") is not None:
            raise TypeError(_("this check's search counts nothing: pass stats=None"))
        return function(*arguments.values())
    return stand_in(SPEC[name], answer, name=name)


def gravity_legal(key: tuple) -> bool:
    """Every stone of `key`, in play order, lands on the lowest free cell of its column."""
    taken = set()
    for cell in key:
        below = cell + 7
        if below < CELLS and below not in taken:
            return False
        taken.add(cell)
    return True


#: Seconds that pass on the grader's clock with each call of a game's evaluation.
TICK = 0.001


def virtual_clock(game: SubsetGame):
    """A clock of the grader's for iterative deepening: TICK seconds pass with each call
    of the game's evaluation, whatever the load of the machine."""
    return lambda: game.evaluations * TICK


def rotation(children):
    """An order function of the grader's: the children rotated left by one."""
    if type(children) is not list:
        raise ValueError(_("order expects the list of children, got {value}").format(
            value=str(children)[:60]))
    return list(children[1:]) + list(children[:1])


def reference_on(game: search.Game, names=("nextstates",)):
    """The reference searches `game`: its module-level `names` (nextstates) are the
    game's for the duration (as the student's are patched in the child)."""
    return search.replaced(ref, **{name: getattr(game, name) for name in names})


def reference_search(salt: int, state, bremse: int, order=None) -> search.Expected:
    """The handout's alpha-beta (the reference) on the game `salt`, full window."""
    game = SubsetGame(salt, [state])
    stats = ref.SearchStats()
    with reference_on(game):
        function = ref.maximize if ref.x_to_move(list(state)) else ref.minimize
        best, value = function(list(state), -INF, INF, bremse, game.evaluation, stats, order)
        log, good = list(game.log), ()    # the search's calls, before those finding `good`
        if best is not None:
            good = tuple(child for child in game.children(tuple(state))
                         if ref.search(child, bremse - 1, game.evaluation)[1] == value)
    return search.Expected((best, value), log, stats.as_dict(), good)


@functools.cache
def reference_move(state: tuple, bremse: int) -> search.Expected:
    """The reference's computer_move on real rules (a RealGame, centre first), its
    search logged: the rule's run a failing player is drawn against."""
    game = RealGame([state])
    with reference_on(game, ("nextstates", "evaluation")):
        move = ref.computer_move(list(state), bremse, order=ref.centre_first)
    return search.Expected(move, list(game.log), {})

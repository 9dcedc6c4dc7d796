"""The games and collaborators the muehle suite hands a submission's search.

A search check replaces the module's rules for one call plan by a `Watch` (a "game
only the grader knows", checking.search) on a `Game`; the other collaborators the
grader plays record what they were asked. A `Search` is one plan's work, run by the
reference for the expected answer and by the student's module in a call plan.
"""

from __future__ import annotations

import dataclasses
import functools
import random

from autograder.checking import constant, search, short
from autograder.grading.reference import load_reference
from autograder.checking.standins import stand_ins
from autograder.i18n import grader_text as _
from autograder.sandbox.client import Outcome
from autograder.sandbox.plans import Callback, Plan, Proxy

from . import movegen
from .referee import as_state, describe
from autograder.checking.rng import RecordingRandom

ref = load_reference("muehle", "muehle")
W, B = ref.WHITE, ref.BLACK
# Bound now: the checks replace the reference's rules while it computes expected values
# on a game, and the game and the stand-ins' signatures (`played_as`) need the real ones.
_real_finished, _real_utility = ref.finished, ref.utility
SPEC = {name: getattr(ref, name) for name in (
    "next_states", "finished", "utility", "heuristic", "to_tuple", "to_list", "opponent",
    "value_minimax", "best_move_minimax", "value_ab", "get_order_value", "alpha_beta",
    "best_move_ab")}

played_as = stand_ins(SPEC)    # the grader's function playing a specified one

M = "muehle."
RULES = ("next_states", "finished", "utility", "heuristic")
STEP = 1 / 128              # the values the grader's games and stand-ins give
_MASK = (1 << 61) - 1


def list_form(state):
    return [list(state[0]), list(state[1]), state[2]]


class Game:
    """Nine Men's Morris with the grader's choice of moves, values and endings: of a
    position's legal moves it offers (low, high) = `widths` (None: all) in a seeded
    order, and declares the share `finish` of the positions (never a root) finished."""

    def __init__(self, salt: int, roots=(), widths=(2, 6), finish=0.1):
        self.salt, self.widths, self.finish = salt, widths, finish
        self.roots = frozenset(roots)
        self._moves: dict = {}

    def _mix(self, *parts) -> int:
        # Python's hash of a tuple of ints is not randomised: the same game in every run.
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


class Watch(search.Game):
    """One plan's window on a game: the rules patched into the student's module,
    answering only about the positions (state, player) handed out in this plan."""

    def __init__(self, game: Game, roots):
        self.game = game
        super().__init__(roots)
        self.seen = {state for state, _ in self.handout.given}

    # ------------------------------------------------------------ the grader's view
    def moves(self, key):
        state, player = key
        return [(None, (t, ref.opponent(player))) for t in self.game.successors(state, player)]

    def decided(self, key):
        return self.game.finished(*key)

    def worth(self, key):
        return (self.game.utility if self.decided(key) else self.game.heuristic)(*key)

    # ------------------------------------------------------------ the rules, as patched
    def _position(self, name, state, player, either_player=False):
        s = as_state(state)
        if s is None:
            self.handout.refuse(_("{function}: {value} is not a state [board, in_hand, "
                                  "quiet]").format(function=name, value=short(state, 80)))
        if player not in (W, B):
            self.handout.refuse(_("{function}: {value} is not a player (WHITE or "
                                  "BLACK)").format(function=name, value=short(player, 40)))
        key = (s, player)
        if key in self.handout.given or (either_player and s in self.seen):
            self.handout.log.append((name, key))
            return key
        if s in self.seen:
            self.handout.refuse(_("{function} was asked about a position with the wrong "
                                  "player to move").format(function=name))
        self.handout.refuse(_("{function} was asked about a position that next_states did "
                              "not hand out in this check: the grader replaces next_states, "
                              "finished, utility and heuristic while it checks a search, so "
                              "call them by the module's names").format(function=name))

    def next_states(self, state, player):
        key = self._position("next_states", state, player)
        self.log.append(("n", key))
        found = self.give(key, self.successors(key))
        self.seen.update(s for s, _player in found)
        return [list_form(s) for s, _player in found]

    def finished(self, state, player):
        return self.decided(self._position("finished", state, player))

    def utility(self, state, player):
        key = self._position("utility", state, player)
        self.log.append(("e", key))
        return self.game.utility(*key)

    def heuristic(self, state, player):
        # Either player: the heuristic is antisymmetric, as the real one.
        key = self._position("heuristic", state, player, True)
        self.log.append(("e", key))
        return self.game.heuristic(*key)

    @property
    def nodes(self) -> int:
        """Nodes explored, as the handout counts them: next_states and heuristic calls."""
        return self.handout.count("next_states", "heuristic")

    def install(self, plan):
        """Patch the student's module for this plan (restored when the plan ends)."""
        for name in RULES:
            plan.patch(M + name, Callback(played_as(name, getattr(self, name))))


# ------------------------------------------------------------------ pictures
def board_picture(watch, rule_log, roots, student_log=None, **results) -> dict:
    """A search through `watch` against the rule's log (from a watch on an equal game)
    drawn (search.picture), valued for the first root's player. Several roots (queries
    in turn, caches kept) hang under an unnamed node, each labelled by its player."""
    roots, player = list(dict.fromkeys(roots)), roots[0][1]
    student_log = watch.log if student_log is None else student_log
    top = roots[0] if len(roots) == 1 else "queries"
    evaluated = {key for kind, key in (*rule_log, *student_log) if kind == "e"}
    parent = {}

    def children(key):
        kids = roots if key == top and len(roots) > 1 else watch.successors(key)
        for kid in kids:
            parent.setdefault(kid, key)
        return kids

    def label(key):
        if key == top:
            return "·"
        up = parent.get(key)
        return "WB"[key[1] - W] if key in roots else describe(up[0], key[0], up[1])

    def worth(key):
        if key == top or key not in evaluated:
            return None
        return watch.worth(key) * (1 if key[1] == player else -1)
    if top == "queries":       # its call 1: the queries asked, each root below it
        rule_log, student_log = [("n", top), *rule_log], [("n", top), *student_log]
    return search.picture(top, rule_log, student_log, children=children, label=label,
                          worth=worth, max_to_move=top != "queries", **results)


def calls_picture(children, rule_calls, student_calls, worth, **results) -> dict:
    """search.fan_picture with the window a value_ab call passed (the root's view)."""
    return search.fan_picture(children, rule_calls, student_calls, worth,
                              lambda c: (-c[3], -c[2]) if len(c) == 5 else None, **results)


# ------------------------------------------------------------------ the other collaborators
class Function:
    """memoize's f, played by the grader: results the student cannot guess, every call recorded."""

    def __init__(self, seed, asks):
        rng = random.Random(seed)
        self.results = {args: rng.randrange(1000, 10000) for args in set(asks)}
        self.calls = []

    def __call__(self, *args):
        if len(args) != 3:
            raise TypeError(f"f() takes 3 arguments ({len(args)} given)")
        self.calls.append(tuple(args))
        return self.results.get(tuple(args), 0)


class MinimaxValues:
    """value_minimax played by the grader: the values of `table` (the root and its
    successors); any other question, or a list-form state, is refused."""

    def __init__(self, table, handout):
        self.table, self.handout = table, handout
        self.calls = []         # (state, player, depth) answered, in order

    def __call__(self, state, player, depth):
        if type(state) is not tuple or type(state[0]) is not tuple:
            raise TypeError(_("value_minimax needs the state in tuple form (to_tuple): "
                              "it is the key of its cache"))
        key = (as_state(state), player, depth)
        if key not in self.table:
            self.handout.refuse(_("value_minimax was asked about a position, player or depth "
                                  "that this check did not hand out"))
        self.calls.append(key)
        return self.table[key]


class PlayedSearch:
    """alpha_beta or value_ab played by the grader: answers `answer(...)`, its calls
    recorded; with a `watch`, only about positions its next_states handed out."""

    def __init__(self, name, answer, watch=None):
        self.name, self.answer, self.watch = name, answer, watch
        self.calls = []

    def __call__(self, state, player, alpha, beta, depth):
        s = as_state(state)
        if s is None:
            raise TypeError(_("{function}: {value} is not a state").format(
                function=self.name, value=short(state, 80)))
        if self.watch is not None and (s, player) not in self.watch.handout.given:
            self.watch.handout.refuse(_("{function} was asked about a position (or player) "
                                        "that next_states did not hand out in this check").format(
                function=self.name))
        self.calls.append((s, player, alpha, beta, depth))
        return self.answer(s, player, alpha, beta, depth)


# ------------------------------------------------------------------ plans: the checks' searches
def fresh_plan(name: str) -> Plan:
    """A plan that first empties the student's caches (value_minimax.cache, AB_CACHE)."""
    plan = Plan(name)
    memo = plan.get(M + "value_minimax", default=None)
    plan.call(plan.get(memo.attr("cache"), default=None).attr("clear"), catch=True)
    plan.call(plan.get(M + "AB_CACHE", default=None).attr("clear"), catch=True)
    return plan


def finish(plan: Plan, template, *handouts):
    """End `plan` with a last step the grader answers (search.finish): a job for `run`."""
    return plan, search.finish(plan, "muehle", template), handouts


def run(student, jobs) -> list[Outcome]:
    """Run the jobs of `finish` in one request: an answer whose plan never reached its last
    step is not believed, a question the grader's game refused fails the case."""
    jobs = list(jobs)
    outcomes = student.run([plan for plan, _reached, _handouts in jobs])
    return [search.believed(o, reached, *handouts)
            for o, (_plan, reached, handouts) in zip(outcomes, jobs)]


def play_helpers(plan, play, skip=()):
    """Patch the helpers that `play` names into `plan` but those in `skip` (the plan's own
    stand-ins). Three are played by code that is not the student's (docs/SUITES.md,
    "Blame"): memoize by functools.cache, value_ab by the student's alpha_beta (the same
    values without the cache), get_order_value by 0 (AB_CACHE is then never filled)."""
    for target, function in (play or {}).items():
        name = target.rpartition(".")[2]
        if name in skip:
            continue
        if name == "memoize":
            own = plan.get(plan.get(M + "value_minimax").attr("__wrapped__"))
            plan.patch(M + "value_minimax", plan.call(M + "functools.cache", own))
        elif name == "value_ab":
            plan.patch(target, plan.get(M + "alpha_beta"))
        elif name == "get_order_value":
            plan.patch(target, Callback(played_as(name, constant(0))))
        else:
            plan.patch(target, Callback(played_as(name, function)))


@dataclasses.dataclass
class Search:
    """One plan's work: `function` called with `args` (a list: one call per tuple), the
    `rules` of `watch` and `stand_ins` played by the grader, AB_CACHE holding `planted`;
    `entry`: the key of AB_CACHE read afterwards (the answer is then {"result", "entry"});
    `record`: the grader's object the judge reads."""
    function: str
    args: tuple | list
    watch: Watch | None = None
    rules: tuple = RULES
    stand_ins: dict = dataclasses.field(default_factory=dict)
    planted: dict = dataclasses.field(default_factory=dict)
    entry: tuple | None = None
    record: object = None

    def players(self) -> dict:
        return {**{name: getattr(self.watch, name) for name in self.rules if self.watch},
                **self.stand_ins}

    def answer(self, call, read):
        answers = [call(*args) for args in (self.args if type(self.args) is list
                                            else [self.args])]
        answer = answers if type(self.args) is list else answers[0]
        return answer if self.entry is None else {"result": answer, "entry": read(self.entry)}

    def expected(self):
        with search.replaced(ref, ref.clear_caches, **self.players()) as r:
            r.AB_CACHE.update(self.planted)
            return self.answer(getattr(r, self.function), r.AB_CACHE.get)

    def job(self, play=None):
        plan = fresh_plan(M + self.function)
        play_helpers(plan, play, self.players())
        for key, entry in self.planted.items():
            plan.setitem(M + "AB_CACHE", key, entry)
        for name, function in self.players().items():
            plan.patch(M + name, Callback(played_as(name, function)))
        answer = self.answer(functools.partial(plan.call, M + self.function),
                             lambda key: plan.call(plan.get(M + "AB_CACHE").attr("get"), key,
                                                   catch=True))
        return finish(plan, answer, *([self.watch.handout] if self.watch else []))


def minimax_search(game, queries):
    """value_minimax for each (state, player, depth) in turn, caches kept in between."""
    return Search("value_minimax", list(queries), Watch(game, {(s, p) for s, p, _ in queries}))


def best_minimax_setup(state, player, depth, salt, widths, ties):
    """The root's successors (the grader's game), the values value_minimax gives (the
    best shared by `ties` of them) and the best successors."""
    game = Game(salt, [(state, player)], widths, 0)
    children = game.successors(state, player)
    rng = random.Random(salt)
    ties = min(ties, len(children))
    top = rng.randrange(-20, 40) * STEP
    own = [top] * ties + [top - rng.randrange(1, 30) * STEP for _ in children[ties:]]
    rng.shuffle(own)
    table = {(s, ref.opponent(player), depth - 1): -v for s, v in zip(children, own)}
    table[(state, player, depth)] = top
    return game, table, {s for s, v in zip(children, own) if v == top}


def best_minimax_search(setup, state, player, depth, seed):
    """best_move_minimax(state, player, depth[, rng]), value_minimax and rng the grader's."""
    game, table, _ = setup
    watch, chooser = Watch(game, [(state, player)]), RecordingRandom(seed)
    rng = () if seed is None else (Proxy(chooser, ask=RecordingRandom.METHODS),)
    return Search("best_move_minimax", (list_form(state), player, depth, *rng), watch,
                  ("next_states", "finished"),
                  {"value_minimax": MinimaxValues(table, watch.handout)}, record=chooser)


def value_ab_search(state, player, planted, window, answer):
    """value_ab(state, player, alpha, beta, 2), AB_CACHE holding `planted`, alpha_beta
    answering `answer`; its answer: the result and AB_CACHE's entry for the key."""
    record = PlayedSearch("alpha_beta", lambda *args: answer)
    return Search("value_ab", (list_form(state), player, *window, 2),
                  stand_ins={"alpha_beta": record}, planted=planted, entry=(state, player, 2),
                  record=record)


def ab_search(game, state, player, depth, window=(-1, 1)):
    """value_ab(state, player, alpha, beta, depth) on the grader's game; with value_ab
    played (`play_helpers`), the student's alpha_beta searches without the cache."""
    return Search("value_ab", (list_form(state), player, *window, depth),
                  Watch(game, [(state, player)]))


def cut_search(state, player, depth, cut):
    """alpha_beta(state, player, alpha, beta, depth), value_ab answering the scenario's values."""
    game = Game(800 + depth, [(state, player)], (len(cut.own), len(cut.own)), 0)
    watch = Watch(game, [(state, player)])
    value_of = {s: -v for s, v in zip(game.successors(state, player), cut.own)}
    record = PlayedSearch("value_ab", lambda s, *rest: value_of.get(s, 0), watch)
    return Search("alpha_beta", (list_form(state), player, *cut.window, depth), watch,
                  stand_ins={"value_ab": record, "get_order_value": constant(0)}, record=record)


def order_search(state, player, depth, salt):
    """alpha_beta(state, player, -1, 1, depth), AB_CACHE (and get_order_value) holding the
    previous iteration's values with decoys for other depths and players, and value_ab
    answering 1 for every move (each looks lost, so nothing is cut off)."""
    game = Game(salt, [(state, player)], None, 0)
    watch, opp = Watch(game, [(state, player)]), ref.opponent(player)
    order = game.successors(state, player)
    planted = {}
    for index, (s, v) in enumerate(zip(order, random.Random(salt).sample(range(1, 60),
                                                                         len(order)))):
        if index % 5 == 4:
            continue                      # no entry: its order value is 0
        v = v * STEP * (1 if index % 2 else -1)
        planted[(s, opp, depth - 2)] = (v, -1, 1)       # the previous iteration
        planted[(s, opp, depth - 1)] = (-v, -1, 1)      # decoys: wrong depth, wrong player
        planted[(s, player, depth - 2)] = (-v, -1, 1)

    def order_value(s, p, d):
        return planted.get((as_state(s), p, d - 1), (0,))[0]
    record = PlayedSearch("value_ab", lambda *args: 1, watch)
    return Search("alpha_beta", (list_form(state), player, -1, 1, depth), watch,
                  stand_ins={"value_ab": record, "get_order_value": order_value},
                  planted=planted, record=record)


@functools.cache
def deepening_game(state, player, depth, salt):
    """The game and value_ab's value of each successor at each depth (a few: ties occur)."""
    game, rng, table = Game(salt, [(state, player)], (4, 9), 0), random.Random(salt), {}
    for s in game.successors(state, player):
        for d in range(depth):
            table[(s, d)] = rng.choice([-1, 1] if rng.random() < 0.1 else
                                       [k * STEP for k in range(-6, 7, 2)])
    return game, table


def deepening_search(state, player, depth, salt):
    """best_move_ab(state, player, depth) with value_ab answering `deepening_game`'s values."""
    game, table = deepening_game(state, player, depth, salt)
    watch = Watch(game, [(state, player)])
    record = PlayedSearch("value_ab", lambda s, p, a, b, d: table.get((s, d), 0), watch)
    return Search("best_move_ab", (list_form(state), player, depth), watch,
                  stand_ins={"value_ab": record}, record=record)

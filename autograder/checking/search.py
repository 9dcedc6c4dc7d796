"""Judging a search on a game only the grader knows: the game, the run, the judges, the picture.

A check that judges a search technique (visit order, cut-offs, windows, the depth
limit, counters) must not be passable by a search that ignores the game it is given.
So the student's search gets a `Game` of the grader's, kept in the trusted process and
reached through proxies or callbacks (docs/SUITES.md, "Plans, proxies and callbacks").
Such a game

* offers, at every position, a subset of the real moves in an order of its own and
  values of its own, all seeded, so the grader can replay the same game for the
  reference while a search with its own rules, an alias bound at import or a copied
  reference answers for another game;
* answers only about the states it handed out (`checking.handout`) and at most
  `limit` calls, so a search that never ends is judged after the same work on a
  quiet or a loaded machine;
* logs every answered call in order, ("n", key) for an expansion and ("e", key) for
  an evaluation: what a check believes about the search's work, never the child.

A suite subclasses `Game` with its rules (gametree, connect4); `TreeGame` is a tree of
checking/gametrees.py as such a game. Searches that do not ask `nextstates` (negamax's
make/undo board, checking/boards.py; muehle's patched rules) use the judges and
pictures here on logs of the same shape.

A suite's search case is a frozen dataclass with `setup()` (a fresh game), `plan(game,
play, student)` (the student's calls on it), `expected()` (the reference's run on an
equal game, an `Expected`, cached per worker), `call_text`, `drawing`, `expected_text`
and `picture(run)`. `run` runs every case in one request, a refused question costing its
case; `check` is `check_all` over the runs, the failing one drawn. The judges
(`calls_reason`, `visits_reason`, `decided_reason`, `depth_reason`, `counter_reason`)
return None or the reason in the grader's words.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import math
import os
from dataclasses import dataclass
from typing import Callable, Hashable, Iterable

from ..i18n import N_, grader_plural as ngettext, grader_text as _
from ..sandbox.client import Failure, Outcome
from ..sandbox import protocol
from ..sandbox.plans import Ahead, Callback, Known, table_text
from . import gametrees
from .cases import Case, Later, Show, check_all
from .failures import describe, fmt, returned, short
from .handout import Handout
from .standins import passes_on, unsigned
from .judges import exact
from .verdicts import refused, slow

INF = math.inf
KINDS = {"n": "nextstates", "e": "evaluation"}
#: Calls of each search a picture keeps (the drawing shows the first few dozen nodes).
PICTURE_CALLS = 240


# ------------------------------------------------------------------ the grader's game
class Game:
    """A game only the grader knows (see the module docstring); one per search.

    Hooks of a subclass: `key(state, question)` (a hashable key, or ValueError in words),
    `moves(key)` ((move, child key) pairs in this game's order), `worth(key)` (what
    evaluation answers), `decided`, `shown` (what the search receives for a key), `words`
    (a state in the feedback), `step` (a picture's label) and `ply`. Records: `log`,
    `calls`, `handout`, `parent` (of every state handed out)."""

    #: The sentence of a refusal past `limit` calls ({calls}: the limit).
    too_many = N_("this game answers at most {calls} calls, more than a search of the "
                  "handout's kind makes here even without pruning (does the search go on "
                  "past the end of the game?)")

    #: The questions whose answers depend on the state alone, each counting one call
    #: and handing out nothing but `nextstates`'s states: a game whose `ahead_key`
    #: says what its answers depend on gives them ahead to a proxy of it (`answers_ahead`).
    PURE = ("nextstates", "evaluation", "terminal_test")
    #: States a table of answers given ahead holds at most, breadth first (the rest is
    #: asked the long way); made once per worker and case, larger ones cost more than
    #: they save (docs/PERFORMANCE.md, "Issue 43: answers given ahead for the search games").
    AHEAD_STATES = 256

    def __new__(cls, *args, **kwargs):
        game = super().__new__(cls)
        game.made_with = (args, tuple(sorted(kwargs.items())))     # see ahead_key
        return game

    def __init__(self, roots: Iterable[Hashable] = (), limit: int | None = None):
        roots = list(roots)
        self.handout = Handout(roots, describe=self.words)
        self.log: list[tuple[str, Hashable]] = []
        self.calls = 0
        self.limit = limit
        self.parent: dict = dict.fromkeys(roots)
        self.roots = tuple(roots)
        self.given_ahead = False

    # ---------------------------------------------------------------- hooks
    def key(self, state, question: str = "") -> Hashable:
        return tuple(state)

    def moves(self, key) -> list:
        raise NotImplementedError

    def worth(self, key):
        raise NotImplementedError

    def decided(self, key) -> bool:
        return not self.moves(key)

    def shown(self, key):
        return list(key)

    def words(self, key) -> str:
        return _("the state {state}").format(state=list(key))

    def label(self, key) -> str:
        """A state in a judge's sentence ("nextstates([3, 4])")."""
        return str(list(key))

    def step(self, key) -> str:
        """The move that leads to `key` (a picture's node label)."""
        return str(list(key)[-1]) if len(key) else "·"

    def ply(self, key) -> int:
        depth, node = 0, key
        while self.parent.get(node) is not None:
            depth, node = depth + 1, self.parent[node]
        return depth

    def malformed(self, question: str, problem: ValueError) -> str:
        return f"{question}: {problem}"

    def never_given(self, question: str, key) -> str | None:
        """The refusal of a well-formed state never handed out (None: the Handout's)."""
        return None

    # ---------------------------------------------------------------- answering
    def successors(self, key) -> list:
        return [child for _move, child in self.moves(key)]

    def asked(self, question: str, state) -> Hashable:
        """`state` as a key if this game handed it out, counted against `limit`;
        otherwise the question is refused (handout.Refused, raised and kept)."""
        self.calls += 1
        if self.limit is not None and self.calls > self.limit:
            self.handout.refuse(_(self.too_many).format(calls=self.limit))
        try:
            key = self.key(state, question)
        except ValueError as problem:
            self.handout.refuse(self.malformed(question, problem))
        if key not in self.handout.given:
            words = self.never_given(question, key)
            if words is not None:
                self.handout.refuse(words)
        return self.handout.ask(question, key)

    def give(self, key, children: list) -> list:
        """Hand out `children` of `key` (they may be asked about from now on)."""
        self.handout.give(children)
        for child in children:
            self.parent.setdefault(child, key)
        return children

    def nextstates(self, state, *ignored):
        key = self.asked("nextstates", state)
        self.log.append(("n", key))
        return [self.shown(child) for child in self.give(key, self.successors(key))]

    def evaluation(self, state, *ignored):
        key = self.asked("evaluation", state)
        self.log.append(("e", key))
        return self.worth(key)

    def terminal_test(self, state, *ignored):
        return self.decided(self.asked("terminal_test", state))

    # ---------------------------------------------------------------- answers given ahead
    def ahead_key(self) -> Hashable | None:
        """What this game's answers to `PURE` questions depend on, its tables of answers
        given ahead made once per key and process (None: it gives none): a game is
        seeded, so its class and the arguments it was made with, where hashable. A
        subclass whose answers depend on more says so here."""
        key = (unsigned(type(self)), self.made_with)
        try:
            hash(key)
        except TypeError:
            return None
        return key

    def answers_ahead(self, methods) -> Ahead | None:
        """The answers to `methods` (those of `PURE`) on the states of this game's tree,
        from the roots down to AHEAD_STATES states, given ahead to a proxy of it once
        (sandbox/plans.Ahead: the child still sends every call, recorded here by
        `replayed`). Tables that tell otherwise than this game about its roots (a key
        missing what its answers depend on) are a grader error."""
        methods = tuple(m for m in methods if m in self.PURE and self._answers_as_game(m))
        key = self.ahead_key()
        if self.given_ahead or key is None or not methods or not self.roots:
            return None
        self.given_ahead = True
        try:
            given = tuple(protocol.arguments_text((self.shown(root),)) for root in self.roots)
        except Exception:       # a game its hooks cannot list: asked the long way
            return None
        found = checked_tables(self, key, methods, len(self.roots))
        if found is None:
            return None
        self._tables, self._said, self._records = found
        left = None if self.limit is None else max(self.limit - self.calls, 0)
        return Ahead(self._tables, given, left, self.replayed, gives=("nextstates",))

    def _answers_as_game(self, method: str) -> bool:
        """Whether `method` is Game's own (through a signed stand-in's binding, which
        passes a lone state on), asking and handing out as Game does: the tables are
        made from the hooks it answers with, and `replayed` records as it does."""
        cls, found = type(self), getattr(type(self), method, None)
        return getattr(found, "inner", found) is getattr(Game, method) and passes_on(found, 1) \
            and cls.asked is Game.asked and cls.give is Game.give

    def replayed(self, method: str, *args, **kwargs) -> None:
        """A call the child answered from this game's answers given ahead (protocol.KNEW),
        recorded as the call itself records it: for a question of the tables about a
        state handed out, within the limit, from the records kept with the tables (the
        first game of their key to record one works it out); anything else (a forged or
        garbled record) is the call itself, asked and refused as any question."""
        try:
            given = None if kwargs else protocol.arguments_text(args)
            records = self._records[method]
            found = records.get(given)
            if found is None and given in self._said[method]:   # its first record
                key = self.key(protocol.loads(given)[0], method)
                found = records[given] = (key, tuple(self.successors(key))
                                          if method == "nextstates" else None)
        except Exception:       # not a question of the tables: the call itself says how
            found = None
        if found is None or found[0] not in self.handout.given or \
                (self.limit is not None and self.calls >= self.limit):
            getattr(self, method)(*args, **kwargs)
            return
        key, children = found
        self.calls += 1
        self.handout.log.append((method, key))
        if children is not None:
            self.log.append(("n", key))
            self.give(key, list(children))
        elif method == "evaluation":
            self.log.append(("e", key))

    def ahead_answers(self, methods, states: int | None = None) -> dict:
        """{method: [((the state as shown,), answer), ...]} on the states of this game's
        tree, breadth first from the roots, `states` (AHEAD_STATES) at most: what `nextstates`,
        `evaluation` and `terminal_test` answer about a state handed out (an answer
        that raises is left out)."""
        answers = {method: [] for method in methods}
        seen, todo, states = set(self.roots), list(self.roots), states or self.AHEAD_STATES
        for key in todo:
            shown = (self.shown(key),)
            children = self.successors(key)
            for method in methods:
                try:
                    value = [self.shown(child) for child in children] \
                        if method == "nextstates" else \
                        self.worth(key) if method == "evaluation" else self.decided(key)
                except Exception:
                    continue
                answers[method].append((shown, value))
            for child in children:
                if child not in seen and len(seen) < states:
                    seen.add(child)
                    todo.append(child)
        return answers


class Same:
    """An object as a key by its identity (kept alive while the key is)."""

    __slots__ = ("obj",)

    def __init__(self, obj):
        self.obj = obj

    def __hash__(self):
        return id(self.obj)

    def __eq__(self, other):
        return type(other) is Same and other.obj is self.obj


#: Set by the suite doctor (`autograder check-suite`): each game compares the tables it
#: gives with its own answers on all their states, not only its roots, so that a key
#: missing what deeper answers depend on is found where the suite is written (grading
#: checks the roots only: the whole comparison costs as much as making the tables).
CHECK_AHEAD = "SPIELBAUM_CHECK_AHEAD"

_AHEAD_CACHE: dict = {}      # (class, ahead_key, methods) -> (tables, lines, records)
_AHEAD_BYTES = 64 << 20      # the cached tables' text per process at most (the oldest go first)
_ahead_bytes = [0]


def checked_tables(made, key, methods: tuple, roots: int) -> tuple | None:
    """`ahead_tables` of `made` (a Game or a board), or None where its hooks cannot be
    walked (asked the long way). Tables that answer otherwise than `made` itself about
    its first `roots` states (every state of the tables, where CHECK_AHEAD is set) are
    a grader error: its key misses what its answers depend on."""
    try:
        found = ahead_tables(made, key, methods)
        told = _told_otherwise(made, methods, found[1], None if os.environ.get(CHECK_AHEAD)
                               else roots)
    except Exception:       # a game or board the walk cannot follow
        return None
    if told:
        raise RuntimeError(f"grader error: {told}")
    return found


def _told_otherwise(made, methods, said: dict, states: int | None) -> str | None:
    """Where the tables' lines (`said`: {method: {arguments' text: reply line}}) answer
    otherwise than `made` about its first `states` states, in words; None where they
    agree."""
    for method, pairs in made.ahead_answers(methods, states).items():
        lines = table_text(pairs).split("\n")
        for given, own in zip(lines[0::2], lines[1::2]):
            if said[method].get(given) != own:
                return (f"the answers given ahead to {method} for {given[:60]} differ from "
                        f"the game's own ({str(said[method].get(given))[:80]} against "
                        f"{own[:80]})")
    return None


def ahead_tables(game: Game, key, methods: tuple) -> tuple[dict, dict, dict]:
    """`game.ahead_answers(methods)` as table texts (plans.table_text), their lines
    ({method: {arguments' text: reply line}}) and what answering a question of them
    records ({method: {}}, filled by Game.replayed), cached by the game's `ahead_key`:
    every submission's game of a case gives the same tables."""
    cached = (unsigned(type(game)), key, methods)     # a subclass may answer otherwise
    found = _AHEAD_CACHE.get(cached)
    if found is None:
        tables = {method: text for method, pairs in game.ahead_answers(methods).items()
                  if (text := table_text(pairs))}
        size = sum(map(len, tables.values()))
        if size > Known.MAX_BYTES:
            tables, size = {}, 0
        lines = {method: text.split("\n") for method, text in tables.items()}
        found = (tables, {method: dict(zip(split[0::2], split[1::2]))
                          for method, split in lines.items()}, {method: {} for method in tables})
        while _AHEAD_CACHE and _ahead_bytes[0] + size > _AHEAD_BYTES:
            oldest = _AHEAD_CACHE.pop(next(iter(_AHEAD_CACHE)))[0]
            _ahead_bytes[0] -= sum(map(len, oldest.values()))
        _AHEAD_CACHE[cached] = found
        _ahead_bytes[0] += size
    return found


class TreeGame(Game):
    """A tree of checking/gametrees.py as a game: states are the nodes' tokens (lists
    of numbers that mean nothing outside this game) or, without tokens, their names;
    keys are the names. An inner node without a value raises EvaluatedWithoutValue."""

    def __init__(self, tree: dict, tokens: dict | None = None):
        self.tree, self.tokens = tree, tokens
        self.by_token = {token: name for name, token in tokens.items()} if tokens else None
        self.depths = gametrees.depths(tree)
        super().__init__([tree["root"]])

    def key(self, state, question=""):
        if self.by_token is None:
            name = state if type(state) is str and state in self.depths else None
        elif type(state) in (list, tuple) and all(type(x) is int for x in state):
            name = self.by_token.get(tuple(state))
        else:
            name = None
        if name is None:
            raise ValueError(_("{state} is not a state of this game").format(
                state=short(state, 60)))
        return name

    def moves(self, key):
        return [(child, child) for child in self.tree["children"].get(key, [])]

    def decided(self, key):
        return gametrees.is_leaf(self.tree, key)

    def worth(self, key):
        try:
            return self.tree["values"][key]
        except KeyError:
            raise gametrees.EvaluatedWithoutValue(
                _("evaluated inner node {node}, which has no value: the search evaluated above "
                  "its depth limit").format(node=repr(key))) from None

    def shown(self, key):
        return list(self.tokens[key]) if self.tokens else key

    def ahead_key(self):
        # The tree and its tokens are made once per case (`_tree`, `_tokens`).
        return ("TreeGame", Same(self.tree), Same(self.tokens))

    def words(self, key):
        return _("the state {state}").format(state=self.shown(key))

    def label(self, key):
        return key

    def step(self, key):
        return key

    def ply(self, key):
        return self.depths[key]


@dataclass(frozen=True)
class Tree:
    """A tree case (hashable, so expected runs are cached by it): a fixture tree by
    `name`, or a seeded random one (`shape`: random_tree's arguments after the name:
    seed, depth, branching, low, high, leaf_chance, inner_values, max_to_move,
    distinct); `seed` draws its opaque tokens (None: the search sees the names)."""
    name: str
    shape: tuple = ()
    seed: int | None = 1

    def tree(self) -> dict:
        return _tree(self.name, self.shape)

    def tokens(self) -> dict | None:
        return None if self.seed is None else _tokens(self.name, self.shape, self.seed)

    def drawing(self) -> str:
        kind = (_("a seeded random game tree") if self.shape
                else _("the game tree {name}").format(name=repr(self.name)))
        return _("{tree}; the search sees each node as the list after its name, and [v] is an "
                 "inner node's heuristic value").format(tree=kind) + "\n" + \
            gametrees.outline(self.tree(), self.tokens())


@functools.cache
def _tree(name, shape) -> dict:
    return gametrees.load_tree(name) if not shape else gametrees.random_tree(name, *shape)


@functools.cache
def _tokens(name, shape, seed) -> dict:
    return gametrees.opaque_tokens(_tree(name, shape), seed)


# ------------------------------------------------------------------ the rule's run
@dataclass(frozen=True)
class Expected:
    """The rule's run of a search case (the reference's, on an equal game): what it
    returned (`best` and `value` where that is a pair), its game's log, its counters
    and, where a suite knows them, the successors that reach the value (`good`: any
    of them is a right answer)."""
    result: object
    log: list
    stats: dict
    good: tuple = ()

    @property
    def best(self):
        return self.result[0]

    @property
    def value(self):
        return self.result[1]

    @functools.cached_property
    def view(self) -> "View":
        return View.of(self.log)


def calls_allowed(rule_calls: int, times: int = 8, spare: int = 200) -> int:
    """The calls a game answers where the rule makes `rule_calls` (its `limit`): `times`
    as many and `spare` more, enough for a search without pruning or one that asks
    twice per position, so that only a search that never stops meets it."""
    return times * rule_calls + spare


# ------------------------------------------------------------------ running searches
@dataclass
class Run:
    """A search as the student's code ran it: the case, the grader's game it ran on
    (its records), and the outcome (a refused question already costs it)."""
    search: object
    game: object
    outcome: Outcome

    @property
    def returned(self):
        """What the student's search returned (the plan answers {"result": ...})."""
        value = self.outcome.value
        return value.get("result") if isinstance(value, dict) else None

    @property
    def log(self):
        return self.game.log

    @property
    def expected(self):
        """The reference's run of the same case (the suite caches it)."""
        return self.search.expected()


def run(student, searches, play=None) -> list[Run]:
    """Every search on fresh objects of its case (`search.setup()`: the grader's game),
    the student's calls made by `search.plan(game, play, student)`, in one request."""
    searches = list(searches)
    games = [search.setup() for search in searches]
    outcomes = run_jobs(student, [(s.plan(g, play, student), g) for s, g in zip(searches, games)])
    return [Run(*made) for made in zip(searches, games, outcomes)]


def handouts(game) -> tuple:
    """The Handouts of a search's grader objects (a Handout, a game, or several)."""
    if isinstance(game, (tuple, list)):
        return tuple(h for part in game for h in handouts(part))
    found = game if isinstance(game, Handout) else getattr(game, "handout", None)
    return (found,) if found is not None else ()


def check(student, summary: str, searches, judge, hint: str | None = None, *, play=None,
          raised: bool = True, got: Callable | None = None, show: Show = Show.PLAN) -> None:
    """`check_all` over the runs of `searches`: `judge(run)` returns None or a reason
    (it sees runs that raised too, with `raised`); a case is worded by its search's
    `call_text`, `drawing` and `expected_text`, and the failing run is drawn by its
    search's `picture(run)` where it has one."""
    runs = run(student, searches, play)
    cases = [Case(Later(r.search.call_text), (r,), Later(r.search.drawing),
                  Later(r.search.expected_text)) for r in runs]
    check_all(summary, cases, [r.outcome for r in runs],
              lambda case, outcome: judge(case.args[0]), hint, show=show, raised=raised,
              got=got and (lambda case, outcome: got(case.args[0])),
              picture=lambda case, outcome: drawn_run(case.args[0]))


def drawn_run(run_: Run) -> dict | None:
    draw = getattr(run_.search, "picture", None)
    return draw(run_) if draw is not None else None


def got_text(run_: Run, calls: int) -> str:
    """What a search that gave no pair answered, with what the grader saw: a search
    out of time is told the work the rule needs (`calls`), a refused one to use the
    game's methods."""
    outcome = run_.outcome
    if outcome.answered:
        return returned(run_.returned)
    text = describe(outcome)
    if slow(outcome):
        text += " " + _("(the handout's search makes {calls} calls of the game here, each "
                        "answered by the grader: is there an endless loop, or work outside "
                        "the game's methods?)").format(calls=calls)
    if any(h.refused for h in handouts(run_.game)):   # the game's record, not its words
        text += " " + _("(the game only knows the states its nextstates gave: use the game "
                        "object's methods, not the module's functions)")
    return text


def all_of(*judges):
    """A judge that applies several in order and reports the first complaint."""
    def judge(one_run):
        for each in judges:
            reason = each(one_run)
            if reason is not None:
                return reason
        return None
    return judge


# ------------------------------------------------------------------ traces and judges
def call_label(game, entry) -> str:
    kind, key = entry
    return f"{KINDS[kind]}({game.label(key)})"


def trace_text(game, log, start: int = 0, count: int = 12) -> str:
    """Game calls `start` .. `start + count` as text."""
    shown = [call_label(game, entry) for entry in log[start:start + count]]
    more = len(log) - start - count
    return ", ".join(shown) + (_(", ... ({count} more)").format(count=more) if more > 0 else "")


def sequence(log) -> str:
    """A tree search's calls as 'r+ r0+ r00 r01 ...' (+ = expanded)."""
    return " ".join(f"{name}+" if kind == "n" else name for kind, name in log)


def first_difference(got, want) -> int | None:
    """The index of the first entry where two logs differ (None: the same)."""
    if got == want:
        return None
    return next((i for i, (a, b) in enumerate(zip(got, want)) if a != b),
                min(len(got), len(want)))


def calls_reason(game, got, want) -> str | None:
    """Exactly the game calls of the handout's rule (`want`), in order."""
    index = first_difference(got, want)
    if index is None:
        return None
    counts = _("your search made {expanded} nextstates and {evaluated} evaluation calls").format(
        expanded=sum(k == "n" for k, _key in got), evaluated=sum(k == "e" for k, _key in got))
    before = ", ".join(call_label(game, e) for e in got[max(0, index - 3):index])
    lead = " " + _("(after {calls})").format(calls=before) if before else ""
    if index >= len(got):
        return _("{counts}: it stopped after game call {number}{after}, where the handout's "
                 "rules go on (a cut that should not happen?)").format(
            counts=counts, number=index, after=lead)
    what = call_label(game, got[index])
    if index >= len(want):
        return _("{counts}: game call {number}, {call}{after}, comes after the handout's "
                 "rules have finished (no or too little pruning?)").format(
            counts=counts, number=index + 1, call=what, after=lead)
    return _("{counts}; its game call {number} was {call}{after}, where the handout's rules "
             "make another call{why}").format(counts=counts, number=index + 1, call=what,
                                              after=lead, why=_why(game, got[index], want[index]))


def _why(game, got, want) -> str:
    """A hint on how a call departs from the rules, without naming the expected call."""
    (kind, key), (want_kind, want_key) = got, want
    if key == want_key:
        return (_(": they evaluate that state") if want_kind == "e"
                else _(": they expand that state"))
    if game.ply(key) != game.ply(want_key):
        return " " + _("at another depth (check the cut test and the depth limit)")
    if kind == want_kind:
        return " " + _("on another state at the same depth (check the child order and the cut "
                       "test)")
    return ""


def tree_calls_reason(game, got, want) -> str | None:
    """`calls_reason` on a tree, with the student's whole visit sequence."""
    reason = calls_reason(game, got, want)
    if reason is None:
        return None
    return _("{reason}. Your search's calls (+ = nextstates, else evaluation): {calls}").format(
        reason=reason, calls=sequence(got))


def decided_reason(game, log) -> str | None:
    """A decided game (a line, a full board, a tree leaf) is never expanded."""
    for index, (kind, key) in enumerate(log):
        if kind == "n" and game.decided(key):
            return _("game call {number}: nextstates({state}), but that game is already "
                     "decided (terminal_test is true there): it must be evaluated").format(
                number=index + 1, state=game.label(key))
    return None


def depth_reason(game, log, bremse) -> str | None:
    """Undecided states are evaluated exactly at ply `bremse`, never above or past it."""
    for index, (kind, key) in enumerate(log):
        ply = game.ply(key)
        if kind == "e" and ply < bremse and not game.decided(key):
            return _("game call {number}: evaluation({state}) at ply {ply}, above the depth "
                     "limit (bremse {bremse}): only a decided game is evaluated there").format(
                number=index + 1, state=game.label(key), ply=ply, bremse=fmt(bremse))
        if kind == "n" and ply >= bremse:
            return _("game call {number}: nextstates({state}) at ply {ply}, past the depth "
                     "limit (bremse {bremse}): bremse is 0 there, so it must be evaluated").format(
                number=index + 1, state=game.label(key), ply=ply, bremse=fmt(bremse))
    return None


def counts(log) -> dict:
    """Nodes, expanded and evaluated as a log shows them.

    In one search every node has its own state (a state is the path to it), so the
    nodes are the distinct states the game was called with. A node whose last call
    was evaluation took its value from evaluation (evaluated), the others were
    expanded; a search that breaks "one call per node" is judged by the technique
    checks, not here."""
    last = {}
    for kind, key in log:
        last[key] = kind
    evaluated = sum(kind == "e" for kind in last.values())
    return {"nodes": len(last), "expanded": len(last) - evaluated, "evaluations": evaluated}


COUNTERS = ("nodes", "expanded", "evaluations", "prunings")


def counter_reason(got, seen: dict) -> str | None:
    """The student's counters (`got`, a dict read from its SearchStats) against what
    the grader saw (`seen`: counts(log), and "prunings" where the rule's log and the
    student's agree)."""
    if not isinstance(got, dict):
        return _("the SearchStats object could not be read ({value})").format(value=short(got))
    wrong = [name for name in COUNTERS if name in seen and got.get(name) != seen[name]]
    if not wrong:
        return None
    said = ", ".join(f"{name} {short(got.get(name))}" for name in COUNTERS)
    saw = _("the grader's game saw this search visit {nodes} nodes (states): {expanded} "
            "expanded with nextstates and {evaluated} evaluated").format(
        nodes=seen["nodes"], expanded=seen["expanded"], evaluated=seen["evaluations"])
    if "prunings" in seen:
        saw += _(", and the cut test succeeds {prunings} times on this search").format(
            prunings=seen["prunings"])
    return _("your SearchStats says {said}; {saw}: wrong {counters}").format(
        said=said, saw=saw, counters=", ".join(wrong))


@dataclass(frozen=True)
class View:
    """What a search did, from a log: the positions it visited (in the order each was
    first seen by the game) and those it expanded (each nextstates call, in order)."""
    visits: tuple
    expanded: tuple

    @classmethod
    def of(cls, log) -> "View":
        seen, visits, expanded = set(), [], []
        for kind, key in log:
            if key not in seen:
                seen.add(key)
                visits.append(key)
            if kind == "n":
                expanded.append(key)
        return cls(tuple(visits), tuple(expanded))


def below(game, key) -> str:
    """Where `key` is in the search tree, in words."""
    depth = game.ply(key)
    return _("at the root") if depth == 0 else \
        ngettext("{count} move below the root", "{count} moves below the root",
                 depth).format(count=depth)


def visits_reason(game, log, want: View) -> str | None:
    """How the positions a search visited and expanded differ from the rule's (`want`),
    in words; None when they are the same."""
    got = View.of(log)
    if got == want:
        return None

    def where(key):
        return f"{game.label(key)} ({below(game, key)})"
    summary = _("the search visited {visits} positions and expanded {expanded}").format(
        visits=len(got.visits), expanded=len(got.expanded))
    same = first_difference(got.visits, want.visits)
    same = len(got.visits) if same is None else same
    if same < len(got.visits) and same < len(want.visits):
        key = got.visits[same]
        if key in set(want.visits):
            return _("{summary}; the first {count} in the handout's order, then {position}, "
                     "which the handout's search visits later (another order?)").format(
                summary=summary, count=same, position=where(key))
        return _("{summary}; the first {count} in the handout's order, then {position}, which "
                 "alpha-beta never visits (a cut-off missed before it?)").format(
            summary=summary, count=same, position=where(key))
    if same < len(want.visits):
        return _("{summary}; it stopped after {count} positions in the handout's order, "
                 "where alpha-beta goes on (children that must be searched were "
                 "skipped)").format(summary=summary, count=same)
    if same < len(got.visits):
        return _("{summary}; after the {count} positions in the handout's order it went on "
                 "to {position}, where alpha-beta has already stopped").format(
            summary=summary, count=same, position=where(got.visits[same]))
    expanded, theirs = set(got.expanded), set(want.expanded)
    for key in got.expanded:
        if key not in theirs:
            return _("{summary}; it expanded {position}, which the handout's search evaluates "
                     "(the depth limit, or a finished game)").format(
                summary=summary, position=where(key))
    for key in want.expanded:
        if key not in expanded:
            return _("{summary}; it evaluated {position} instead of expanding it").format(
                summary=summary, position=where(key))
    twice = next((key for key in got.expanded if got.expanded.count(key) > 1), None)
    if twice is None:
        return _("{summary}; it expanded the handout's positions, but in another order").format(
            summary=summary)
    return _("{summary}; it called nextstates more than once on {position}: each position is "
             "expanded at most once").format(summary=summary, position=where(twice))


# ------------------------------------------------------------------ pictures
def picture(root, rule_log, student_log, *, children: Callable, label: Callable,
            worth: Callable | None = None, max_to_move: bool = True, rule_result=None,
            student_result=None, windows: dict | None = None,
            student_windows: dict | None = None, every_node: bool = False,
            caption: str | None = None, calls: int = PICTURE_CALLS) -> dict:
    """A search drawn (outputs/trees.py's contract): the nodes are `root` and the
    children (`children(key)`, the game's own successors, in its order) of every state
    either search expanded in its first `calls` calls (with `every_node`, all
    states below the root: a small tree); a node's label is `label(key)`, its value
    `worth(key)` where the game answers one. The logs are ("n" | "e", key) calls;
    the rule's cut is every child of a state the rule expanded that it never
    visited. `windows` (the rule's) and `student_windows` are (alpha, beta) per key;
    `caption` says what the drawing shows where the tree alone does not (it stays when
    the rule's part is withheld: it must not give the rule away)."""
    rule_log, student_log = list(rule_log)[:calls], list(student_log)[:calls]
    ids, nodes, kids_of = {}, [], {}

    def add(key, parent):
        if key in ids or len(nodes) >= 1500:
            return
        ids[key] = f"n{len(nodes)}"
        node = {"id": ids[key], "parent": ids.get(parent), "label": str(label(key))}
        value = _worth(worth, key)
        if value is not None:
            node["value"] = value
        nodes.append(node)

    def grow(key):
        if key not in kids_of:
            kids_of[key] = list(children(key))
            for kid in kids_of[key]:
                add(kid, key)
    add(root, None)
    todo = [root] if every_node else []
    for key in todo:            # breadth first, the list growing as it is walked
        grow(key)
        todo += [kid for kid in kids_of[key] if kid in ids]
    for log in (rule_log, student_log):
        for kind, key in log:
            if kind == "n" and key in ids:
                grow(key)
    visited = {key for _kind, key in rule_log}
    cut = [ids[kid] for kind, key in rule_log if kind == "n"
           for kid in kids_of.get(key, ()) if kid in ids and kid not in visited]

    def search(log, result, given_windows):
        made = {"calls": [["expand" if kind == "n" else "evaluate", ids[key]]
                          for kind, key in log if key in ids]}
        if result is not None:
            made["result"] = result
        if given_windows:
            made["windows"] = {ids[key]: list(pair) for key, pair in given_windows.items()
                               if key in ids}
        return made
    drawn = {"kind": "search-tree", "nodes": nodes, "max_to_move": bool(max_to_move),
             "rule": search(rule_log, _shown_result(rule_result), windows),
             "student": search(student_log, _shown_result(student_result), student_windows),
             "cut": sorted(set(cut), key=cut.index)}
    if caption:
        drawn["caption"] = caption
    return drawn


def _worth(worth, key):
    if worth is None:
        return None
    try:
        value = worth(key)
    except (KeyError, ValueError):
        return None
    return value if type(value) in (int, float) else None


def _shown_result(result):
    """A search's result as a picture writes it at the root: a number, or short text."""
    if result is None or (type(result) in (int, float) and not math.isnan(result)):
        return result
    return short(result, 40)


def game_picture(game, rule_log, root, *, rule_result=None, student_result=None,
                 max_to_move=True) -> dict:
    """`picture` of a student's run on `game` against the rule's log on an equal game
    (the same rules: `game` answers what either search was handed), from `root`."""
    evaluated = {key for kind, key in (*rule_log, *game.log) if kind == "e"}
    tree = isinstance(game, TreeGame)
    return picture(root, rule_log, game.log, children=game.successors,
                   label=lambda key: game.step(key) if tree or key != root else "·",
                   worth=lambda key: game.worth(key) if tree or key in evaluated else None,
                   max_to_move=max_to_move, rule_result=rule_result,
                   student_result=student_result, every_node=tree)


def iterations(log, root) -> list[list]:
    """The searches of an iterative deepening in one log, one per expansion of `root`
    (each with the evaluation of the root just before it: terminal_test's)."""
    starts = [i - (i > 0 and log[i - 1] == ("e", root))
              for i, entry in enumerate(log) if entry == ("n", root)]
    return [list(log[a:b]) for a, b in zip(starts, starts[1:] + [len(log)])]


def iteration_picture(game, rule_log, root, depth: int, **options) -> dict:
    """`game_picture` of one search of an iterative deepening: the rule's of depth
    `depth` against the student's of the same depth (or its deepest, if it has
    fewer), each cut from its whole log (`iterations`)."""
    def one(log):
        found = iterations(log, root)
        return found[min(depth, len(found)) - 1] if found else []
    view = copy.copy(game)
    view.log = one(game.log)
    return game_picture(view, one(rule_log), root, **options)


def run_jobs(student, jobs, found: list | None = None) -> list[Outcome]:
    """The outcomes of [(plan, grader objects), ...] in one request, a question the
    objects refused costing its case (`handouts`); the Handouts are added to `found`
    (for Blame.check's `again`)."""
    jobs = list(jobs)
    outcomes = student.run([plan for plan, _given in jobs])
    given = [handouts(obj) for _plan, obj in jobs]
    if found is not None:
        found += [handout for each in given for handout in each]
    return [refused(outcome, *each) for outcome, each in zip(outcomes, given)]


def check_jobs(student, summary: str, cases, job: Callable, judge: Callable,
               hint: str | None = None, *, found: list | None = None,
               picture: Callable | None = None, **options) -> None:
    """`check_all` over one plan per case: `job(case)` is (plan, grader object), run
    by `run_jobs`; `judge(case, outcome, obj)` and `picture(case, outcome, obj)` see
    the case's object (its game and its log); `exact` is judged as it is."""
    cases = list(cases)
    jobs = [job(case) for case in cases]
    objs = {id(case): obj for case, (_plan, obj) in zip(cases, jobs)}
    check_all(summary, cases, run_jobs(student, jobs, found), judge if judge is exact else
              lambda case, outcome: judge(case, outcome, objs[id(case)]), hint,
              picture=picture and (lambda case, outcome: picture(case, outcome,
                                                                  objs[id(case)])),
              **options)


def asked_again(plan, target: str, *args):
    """"Returns a new list, never the book's own", judged from the function's own
    answers: the list `target(*args)` returned gets -1 appended, as a caller may do,
    and `target` is asked again with the same objects (the book a plan value): the
    book's own list now answers with -1 appended. Judged by `changed_book`."""
    first = plan.call(target, *args)
    plan.call(first.attr("append"), -1, catch=True)
    return plan.returns(plan.call(target, *args))


def changed_book(case, outcome):
    """The second answer of `asked_again` judged: the book's move, or what changing
    the first did."""
    if exact(case, outcome) is None:
        return None
    return _("changing the list it returned changed the book: asked again, it {answer}").format(
        answer=describe(outcome)), None


# ------------------------------------------------------------------ a plan's last step
#: The function `finish` patches into the student's module for a plan's last step.
LAST_STEP = "_spielbaum_done"


def finish(plan, module: str, template) -> list:
    """End `plan` with a call the grader answers, then return `template`: proof that
    the answer came after the work (a reply forged on the pipe arrives before the
    step, and the calls after a plan's reply are refused, so they would be missing
    from the grader's records). Returns the list the step fills: `believed` reads it."""
    reached = []
    plan.patch(f"{module}.{LAST_STEP}", Callback(lambda: reached.append(True), wait=False))
    plan.call(f"{module}.{LAST_STEP}")
    plan.returns(template)
    return reached


def believed(outcome: Outcome, reached: list, *handouts) -> Outcome:
    """The outcome of a plan `finish` ended: an answer whose plan never reached its
    last step is not believed; otherwise `refused` by the grader's `handouts`."""
    if outcome.answered and not reached:
        return Outcome(failure=Failure.BAD_VALUE, detail=_(
            "its answer arrived before the check's last step ran (a reply written to the "
            "pipe?)"))
    return refused(outcome, *handouts)


@contextlib.contextmanager
def replaced(module, reset: Callable = lambda: None, **functions):
    """`module` (a reference) with some of its functions replaced, `reset()` (its
    caches emptied) before and after: the rule's run with the grader's stand-ins."""
    missing = object()
    saved = {name: getattr(module, name, missing) for name in functions}
    reset()
    for name, function in functions.items():
        setattr(module, name, function)
    try:
        yield module
    finally:
        for name, function in saved.items():
            if function is missing:
                delattr(module, name)
            else:
                setattr(module, name, function)
        reset()


# ------------------------------------------------------------------ a root's successors valued
def fan_picture(children, rule_calls, student_calls, worth: Callable, window=None,
                **options) -> dict:
    """`picture` of a search that valued the root's successors through a function the
    grader plays (a value function of the handout's): the root and `children` (in the
    game's order, labelled by their place in it), each worth `worth(child)`; each
    search's calls of the played function (tuples whose first item is the child) as
    evaluations, with the window `window(call)` gives (None: none) at the child."""
    index = {child: i for i, child in enumerate(children)}

    def log(calls):
        return [("n", "root")] + [("e", index[c[0]]) for c in calls if c[0] in index]

    def windows(calls):
        found = {index[c[0]]: window(c) for c in calls if c[0] in index} if window else {}
        return {key: pair for key, pair in found.items() if pair is not None}
    return picture("root", log(rule_calls), log(student_calls),
                   children=lambda key: list(index.values()) if key == "root" else [],
                   label=lambda key: "·" if key == "root" else str(key + 1),
                   worth=lambda key: None if key == "root" else worth(children[key]),
                   windows=windows(rule_calls), student_windows=windows(student_calls),
                   **options)


def result_of(outcome: Outcome, pick: Callable | None = None):
    """What a search returned, for a picture's root (`pick`: the value in it; None:
    it returned nothing)."""
    if not outcome.answered:
        return None
    try:
        return pick(outcome.value) if pick else outcome.value
    except (TypeError, IndexError, KeyError):
        return outcome.value

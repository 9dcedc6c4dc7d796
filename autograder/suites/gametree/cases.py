"""The gametree suite's search cases: games only the grader knows, plans, judges.

A `Search` is one call of a student's search function (`maximize`, ...,
`computer_move`) on one game: a `GameSpec` (a real position, see kitgame.py)
or a `TreeSpec` (a hand-built or seeded random tree whose states are opaque
tokens, see autograder/suites/fixtures/gametrees.py). For every search:

1. the reference runs in this process over a fresh game of that spec; its
   result, its stats and the game's log (every nextstates and evaluation call,
   in order) are what the handout's rules prescribe (cached per worker);
2. the student's function runs in the sandbox with a `Proxy` of another fresh
   game of the same spec as its `game`: each call comes back here, is answered
   and recorded by the grader's game;
3. the judges compare the grader's log of the student's run, and the pair it
   returned, with the reference's. The student's SearchStats counters are read
   back as the student's answer to "count your nodes" and judged against the
   grader's log of the same run.

Nothing the child says is believed about the work a search did. The games
answer only about the states they handed out (the root, and the successors their
nextstates returned); a refused question fails the case, named, even when the
search catches the exception (`run_searches`).

Time: every limit is the child's CPU time, and each game stops answering after
a number of calls fixed by the case (`call_limit`), so no verdict depends on the
machine's load.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from autograder.suites.fixtures import gametrees
from autograder.grading.checks import Case, Later, Show, check_all, describe, returned, short
from autograder.i18n import grader_text as _
from autograder.grading.handout import Handout
from autograder.grading.reference import load_reference
from autograder.grading.standins import signed
from autograder.grading.student import Callback, Plan, Proxy
from autograder.suites.verdicts import refused, slow

ref = load_reference("gametree", "gametree")
INF = math.inf
M = "gametree."
GAME_METHODS = ("nextstates", "terminal_test", "evaluation")
COUNTERS = ("nodes", "expanded", "evaluations", "prunings")
PLAIN = ("maximize", "minimize")
KINDS = {"n": "nextstates", "e": "evaluation"}


def fmt(x):
    if isinstance(x, float) and math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return repr(x)


def ordinal(n):
    return f"{n}{'tsnrhtdd'[(n // 10 % 10 != 1) * (n % 10 < 4) * n % 10::4]}"


# ------------------------------------------------------------------ trees
@dataclass(frozen=True)
class TreeSpec:
    """A tree game: a fixture tree by name, or a seeded random tree (`shape`
    holds random_tree's arguments); `seed` draws the opaque tokens."""

    name: str
    shape: tuple = ()       # random_tree's (seed, depth, branching, low, high, leaf_chance,
                            # max_to_move, distinct)
    seed: int = 1

    def tree(self):
        return _tree(self)

    def tokens(self):
        return _tokens(self)

    def make(self):
        """A fresh tree game whose methods take the specified Game's signatures."""
        return signed(HandedTree, ref.Game, GAME_METHODS)(self.tree(), self.tokens())

    @property
    def max_to_move(self):
        return self.tree().get("max_to_move", True)

    def label(self, name):
        return name

    def decided(self, name):
        return gametrees.is_leaf(self.tree(), name)

    def ply(self, name):
        return _depths(self)[name]

    def drawing(self):
        return _draw_tree(self)


class HandedTree(gametrees.NextStatesTree):
    """A tree game that answers only about the nodes it handed out: the root and
    the children its nextstates returned (a token it never gave is refused, and
    kept in `handout.refused`, like an unknown one)."""

    def __init__(self, tree, tokens):
        super().__init__(tree, tokens)
        self.handout = Handout(roots=[tree["root"]], describe=self._words)

    def _words(self, name):
        return _("the state {state}").format(state=list(self.tokens[name]))

    def _known(self, node, question="a question"):
        try:
            name = super()._known(node)
        except KeyError as problem:
            self.handout.refuse(f"{question}: {problem.args[0] if problem.args else problem}")
        return self.handout.ask(question, name)

    def nextstates(self, node, *args, **kwargs):
        name = self._known(node, "nextstates")
        self.expanded.append(name)
        self.log.append(("n", name))
        self.handout.give(self.tree["children"].get(name, []))
        return [self.state(kid) for kid in self.tree["children"].get(name, [])]

    def terminal_test(self, node, *args, **kwargs):
        name = self._known(node, "terminal_test")
        self.tested.append(name)
        return gametrees.is_leaf(self.tree, name)

    def evaluation(self, node, *args, **kwargs):
        name = self._known(node, "evaluation")
        self.evaluated.append(name)
        self.log.append(("e", name))
        try:
            return self.tree["values"][name]
        except KeyError:
            raise gametrees.EvaluatedWithoutValue(
                _("evaluated inner node {node}, which has no value: the search evaluated above "
                  "its depth limit").format(node=repr(name))) from None


@functools.cache
def _tree(spec):
    if not spec.shape:
        return gametrees.load_tree(spec.name)
    seed, depth, branching, low, high, leaf_chance, max_to_move, distinct = spec.shape
    return gametrees.random_tree(spec.name, seed, depth, branching, low, high, leaf_chance,
                                 True, max_to_move, distinct)


@functools.cache
def _tokens(spec):
    return gametrees.opaque_tokens(spec.tree(), spec.seed)


@functools.cache
def _depths(spec):
    return gametrees.depths(spec.tree())


def _draw_tree(spec):
    """The tree drawn, under a line in the course's language (the drawing is cached)."""
    kind = (_("a seeded random game tree") if spec.shape
            else _("the game tree {name}").format(name=repr(spec.name)))
    return _("{tree}; the search sees each node as the list after its name, and [v] is an "
             "inner node's heuristic value").format(tree=kind) + "\n" + _tree_lines(spec)


@functools.cache
def _tree_lines(spec):
    t, tokens = spec.tree(), spec.tokens()
    lines = []

    def walk(node, indent, is_max):
        token = list(tokens[node])
        kids = t["children"].get(node, [])
        if not kids:
            lines.append(f"{'  ' * indent}{node} {token} = {fmt(t['values'][node])}")
            return
        value = f" [{fmt(t['values'][node])}]" if node in t["values"] else ""
        lines.append(f"{'  ' * indent}{node} {token} ({'max' if is_max else 'min'}){value}")
        for kid in kids:
            walk(kid, indent + 1, not is_max)
    walk(t["root"], 0, t.get("max_to_move", True))
    return "\n".join(lines)


# ------------------------------------------------------------------ searches
@dataclass(frozen=True)
class Search:
    """One call of a student function on one game (hashable: results are cached)."""

    function: str
    game: object                # GameSpec or TreeSpec
    alpha: float = -INF
    beta: float = INF
    bremse: float = INF
    with_stats: bool = False
    book: tuple = ()            # computer_move's book as ((key, successor), ...)
    use_book: bool = False
    defaults: bool = False      # call with the state and game=... only (the defaults
                                # of alpha, beta, bremse and book must do the rest)

    @property
    def is_tree(self):
        return isinstance(self.game, TreeSpec)

    @property
    def size(self):
        """The reference's number of game calls: cases are shown smallest first."""
        return len(expected(self).log)

    def root(self, game):
        return game.root if self.is_tree else list(self.game.root)

    def call_text(self):
        root = list(self.game.tokens()[self.game.tree()["root"]]) if self.is_tree \
            else list(self.game.root)
        if self.defaults:
            return f"{self.function}({root}, game=game)"
        if self.function in PLAIN:
            text = f"{self.function}({root}, game"
        elif self.function == "computer_move":
            text = f"computer_move({root}, game, {fmt(self.bremse)}"
            text += ", book)" if self.use_book else ")"
            return text
        else:
            text = (f"{self.function}({root}, {fmt(self.alpha)}, {fmt(self.beta)}, "
                    f"{fmt(self.bremse)}, game")
        return text + (", stats)" if self.with_stats else ")")


def search_for(function_or_side, game, **options):
    """A Search of the max or min version of a search for the side to move at the root."""
    if function_or_side in ("minimax", "alphabeta"):
        if isinstance(game, TreeSpec):
            is_max = game.max_to_move
        else:
            is_max = len(game.root) % 2 == 0
        base = "maximize" if is_max else "minimize"
        function_or_side = base if function_or_side == "minimax" else base + "_ab"
    return Search(function_or_side, game, **options)


@dataclass
class Expected:
    result: tuple
    log: list
    stats: dict


def _run_reference(search, game):
    stats = ref.SearchStats()
    root = search.root(game)
    if search.defaults:
        result = getattr(ref, search.function)(root, game=game, stats=stats)
    elif search.function in PLAIN:
        result = getattr(ref, search.function)(root, game, stats)
    elif search.function == "computer_move":
        book = dict((k, list(v)) for k, v in search.book) if search.use_book else None
        result = ref.computer_move(root, game, search.bremse, book, stats)
    else:
        result = getattr(ref, search.function)(root, search.alpha, search.beta,
                                               search.bremse, game, stats)
    return result, stats.as_dict()


@functools.cache
def expected(search):
    game = search.game.make()
    result, stats = _run_reference(search, game)
    return Expected(result, list(game.log), stats)


@functools.cache
def position_value(spec, bremse):
    """The value of spec.root at depth limit `bremse` with the full window (reference)."""
    return expected(search_for("alphabeta", spec, bremse=bremse)).result[1]


@functools.cache
def full_width_nodes(spec, bremse):
    """Nodes of a search without pruning at depth limit `bremse` (cases are capped
    on it too, so a search that does not prune is still judged quickly)."""
    rules = spec.rules()

    def count(state, left):
        if left <= 0 or rules.decided(state):
            return 1
        return 1 + sum(count(child, left - 1) for child in rules.nextstates(state))
    return count(list(spec.root), bremse)


@functools.cache
def calls_allowed(search):
    """Game calls a search of this case may make in the handout's way or without
    pruning: every node of the tree (within the depth limit), two calls each."""
    if search.is_tree:
        nodes = len(_depths(search.game))
    else:
        nodes = full_width_nodes(search.game, search.bremse)
    return 2 * max(nodes, len(expected(search).log))


# ------------------------------------------------------------------ plans
def plan_for(search, game, call_timeout, play=None):
    """The student's call on a proxy of `game`; returns the result and the counters.
    `play(game)`, where given, names the student's functions the grader plays in for
    this call ({"gametree.maximize_ab": function}: computer_move judged on its own).

    Each game call is a pipe round trip, so the time limit grows with the calls
    the case allows (`call_limit`): the per-call limit, plus that limit again per 500
    calls. It is CPU time of the child (the grader's answers are not the child's),
    so the verdict is the same on a loaded machine."""
    plan = Plan(M + search.function,
                timeout=call_timeout * (1 + call_limit(search) / 500))
    proxy = Proxy(game, ask=GAME_METHODS)
    for target, function in (play(game) if play else {}).items():
        plan.patch(target, Callback(function))
    stats = plan.call(M + "SearchStats") if search.with_stats else None
    root = search.root(game)
    if search.defaults:
        result = plan.call(M + search.function, root, game=proxy)
    elif search.function in PLAIN:
        result = plan.call(M + search.function, root, proxy, stats)
    elif search.function == "computer_move":
        book = {k: list(v) for k, v in search.book} if search.use_book else None
        result = plan.call(M + "computer_move", root, proxy, search.bremse, book, stats)
    else:
        result = plan.call(M + search.function, root, search.alpha, search.beta,
                           search.bremse, proxy, stats)
    template = {"result": result}
    if stats is not None:
        template["stats"] = {name: plan.get(stats.attr(name), default=None)
                             for name in COUNTERS}
    return plan.returns(template)


@dataclass
class Run:
    """A search as the student's code ran it: the grader's game holds the log."""
    search: Search
    game: object
    outcome: object

    @property
    def expected(self):
        return expected(self.search)

    @property
    def returned(self):
        value = self.outcome.value
        return value.get("result") if isinstance(value, dict) else None

    @property
    def log(self):
        return self.game.log


def call_limit(search):
    """Game calls a search of this case may make before the game stops answering:
    twice what the handout's way or a search without pruning needs, so a
    correct search that asks terminal_test or nextstates twice per node passes."""
    return 2 * calls_allowed(search) + 100


def game_for(search):
    """A fresh game of the case for the student's search, with its call limit."""
    game = search.game.make()
    if not search.is_tree:          # a tree is finite: it cannot be searched past its end
        game.call_limit = call_limit(search)
    return game


def run_searches(student, searches, play=None):
    """Each search on a fresh game of its case. A search that asked its game a
    question the game refused fails its case on that refusal (named), also when it
    caught the exception and answered. `play`: see plan_for."""
    games = [game_for(s) for s in searches]
    call = student.timeouts.call
    outcomes = student.run([plan_for(s, g, call, play) for s, g in zip(searches, games)])
    return [Run(s, g, refused(o, g.handout)) for s, g, o in zip(searches, games, outcomes)]


def book_copy_plan(search):
    """"Return a copy of the book's successor state", judged from computer_move's own
    answers: the list it returned is changed (a cell appended, as a caller may do), and
    computer_move is asked again with the same book. A copy leaves the book as it was;
    the book's own list now answers with the cell appended. (plan, game)"""
    game = game_for(search)
    plan = Plan(M + "computer_move")
    proxy = Proxy(game, ask=GAME_METHODS)
    book = plan.value({key: list(move) for key, move in search.book})
    root = list(search.game.root)
    first = plan.call(M + "computer_move", root, proxy, search.bremse, book, None)
    plan.call(first.attr("append"), -1, catch=True)
    return plan.returns(plan.call(M + "computer_move", root, proxy, search.bremse, book,
                                  None)), game


def run_book_copies(student, searches):
    """computer_move's second answer for each book search (book_copy_plan), a refused
    question of the game costing its case."""
    jobs = [book_copy_plan(search) for search in searches]
    return [refused(outcome, game.handout) for outcome, (_plan, game) in
            zip(student.run([plan for plan, _game in jobs]), jobs)]


def check_searches(student, summary, searches, judge, hint, play=None):
    """Run the searches; fail with the first (smallest) one the judge rejects.

    `judge(run)` returns None or a reason; it sees runs that raised too (a
    search may break a rule before it fails), and `result_reason` etc. say
    what the search raised when a returned value is needed."""
    runs = run_searches(student, searches, play)
    cases = [Case(Later(run.search.call_text), (run,), Later(run.search.game.drawing),
                  Later(expected_text, run.search)) for run in runs]
    check_all(summary, cases, [run.outcome for run in runs],
              lambda case, outcome: judge(case.args[0]), hint, show=Show.PLAN, raised=True,
              got=lambda case, outcome: got_text(case.args[0]))


def got_text(run):
    outcome = run.outcome
    if outcome.answered:
        return returned(run.returned)
    text = describe(outcome)
    if slow(outcome):
        text += " " + _("(the handout's search makes {calls} calls of the game here, each "
                        "answered by the grader: is there an endless loop, or work outside "
                        "the game's methods?)").format(calls=run.search.size)
    if run.game.handout.refused:        # the game's own record, not the words it said
        text += " " + _("(the game only knows the states its nextstates gave: use the game "
                        "object's methods, not the module's functions)")
    return text


def expected_text(search):
    want = expected(search)
    if search.function == "computer_move":
        book = dict(search.book)
        if search.use_book and tuple(search.game.root) in book:
            return _("the book's move {move}, without a search").format(
                move=list(book[tuple(search.game.root)]))
        return _("a successor of value {value}").format(
            value=fmt(position_value(search.game, search.bremse)))
    best, value = want.result
    text = f"({short(best)}, {fmt(value)})"
    calls = [sum(kind == k for kind, _key in want.log) for k in ("n", "e")]
    text += _("; the game calls: {expanded} nextstates, {evaluated} evaluation: ").format(
        expanded=calls[0], evaluated=calls[1])
    text += trace_text(search.game, want.log, 0, 40)
    return text


def trace_text(spec, log, start=0, count=12):
    """Game calls `start` .. `start + count` as text."""
    shown = [call_label(spec, entry) for entry in log[start:start + count]]
    more = len(log) - start - count
    return ", ".join(shown) + (_(", ... ({count} more)").format(count=more) if more > 0 else "")


def call_label(spec, entry):
    kind, key = entry
    return f"{KINDS[kind]}({spec.label(key)})"


# ------------------------------------------------------------------ judges
def result_pair(run):
    """(best, value) the search returned, or a reason."""
    if not run.outcome.answered:
        return None, got_text(run)
    got = run.returned
    if type(got) not in (tuple, list) or len(got) != 2:
        return None, _("returned {value}, not a pair (best_state, value)").format(
            value=short(got))
    best, value = got
    if type(value) not in (int, float):
        return None, _("returned the value {value}, not a number").format(value=short(value))
    return (best, value), None


def result_reason(run):
    """Exactly the reference's (best_state, value): the rules fix both."""
    answer, reason = result_pair(run)
    if reason:
        return reason
    want = run.expected.result
    if answer[1] != want[1]:
        return _("the value {value} is not the one the handout's rules give").format(
            value=fmt(answer[1]))
    if answer[0] != want[0]:
        return _("best_state {state} is not the child the handout's rules return (the first "
                 "best child in nextstates order)").format(state=short(answer[0]))
    return None


def value_reason(run):
    """The right value; best_state None where the search stops, else a successor
    that attains the value (any equally good successor passes)."""
    answer, reason = result_pair(run)
    if reason:
        return reason
    best, value = answer
    want_best, want_value = run.expected.result
    if value != want_value:
        return _("the value {value} is wrong").format(value=fmt(value))
    if want_best is None:
        if best is not None:
            return _("best_state must be None where the search stops (game over or bremse 0), "
                     "not {state}").format(state=short(best))
        return None
    if run.search.is_tree:
        return None if best == want_best else result_reason(run)
    return successor_reason(run.search, best, value)


def successor_reason(search, best, value):
    spec = search.game
    successors = spec.make().successors(tuple(spec.root))
    if type(best) is not list or tuple(best) not in successors:
        return _("best_state {state} is not one of the successors the game gave").format(
            state=short(best))
    depth = INF if search.function in PLAIN else search.bremse - 1
    if position_value(spec.at(best), depth) != value:
        return _("best_state {state} does not attain the value {value}").format(
            state=short(best), value=fmt(value))
    return None


def decided_reason(run):
    """A decided game (a line, a full board, a tree leaf) is never expanded."""
    spec = run.search.game
    for index, (kind, key) in enumerate(run.log):
        if kind == "n" and spec.decided(key):
            return _("game call {number}: nextstates({state}), but that game is already "
                     "decided (terminal_test is true there): it must be evaluated").format(
                number=index + 1, state=spec.label(key))
    return None


def depth_reason(run):
    """Undecided states are evaluated exactly at ply `bremse`, never above or past it."""
    spec, bremse = run.search.game, run.search.bremse
    for index, (kind, key) in enumerate(run.log):
        ply = spec.ply(key)
        if kind == "e" and ply < bremse and not spec.decided(key):
            return _("game call {number}: evaluation({state}) at ply {ply}, above the depth "
                     "limit (bremse {bremse}): only a decided game is evaluated there").format(
                number=index + 1, state=spec.label(key), ply=ply, bremse=fmt(bremse))
        if kind == "n" and ply >= bremse:
            return _("game call {number}: nextstates({state}) at ply {ply}, past the depth "
                     "limit (bremse {bremse}): bremse is 0 there, so it must be evaluated").format(
                number=index + 1, state=spec.label(key), ply=ply, bremse=fmt(bremse))
    return None


def work_reason(run):
    """Exactly the game calls of the handout's rules, in order."""
    got, want = run.log, run.expected.log
    if got == want:
        return None
    spec = run.search.game
    counts = _("your search made {expanded} nextstates and {evaluated} evaluation calls").format(
        expanded=sum(k == "n" for k, _key in got), evaluated=sum(k == "e" for k, _key in got))
    index = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b),
                 min(len(got), len(want)))
    before = ", ".join(call_label(spec, e) for e in got[max(0, index - 3):index])
    lead = " " + _("(after {calls})").format(calls=before) if before else ""
    if index >= len(got):
        return _("{counts}: it stopped after game call {number}{after}, where the handout's "
                 "rules go on (a cut that should not happen?)").format(
            counts=counts, number=index, after=lead)
    what = call_label(spec, got[index])
    if index >= len(want):
        return _("{counts}: game call {number}, {call}{after}, comes after the handout's "
                 "rules have finished (no or too little pruning?)").format(
            counts=counts, number=index + 1, call=what, after=lead)
    return _("{counts}; its game call {number} was {call}{after}, where the handout's rules "
             "make another call{why}").format(counts=counts, number=index + 1, call=what,
                                              after=lead, why=_why(spec, got[index], want[index]))


def _why(spec, got, want):
    """A hint on how a call departs from the rules, without naming the expected call."""
    (kind, key), (want_kind, want_key) = got, want
    if key == want_key:
        return (_(": they evaluate that state") if want_kind == "e"
                else _(": they expand that state"))
    if spec.ply(key) != spec.ply(want_key):
        return " " + _("at another depth (check the cut test and the depth limit)")
    if kind == want_kind:
        return " " + _("on another state at the same depth (check the child order and the cut "
                       "test)")
    return ""


def tree_sequence(spec, log):
    """A tree search as 'r+ r0+ r00 r01 ...' (+ = expanded)."""
    return " ".join(f"{name}+" if kind == "n" else name for kind, name in log)


def tree_work_reason(run):
    """On a tree: the student's whole visit sequence, and where it departs."""
    reason = work_reason(run)
    if reason is None:
        return None
    return _("{reason}. Your search's calls (+ = nextstates, else evaluation): {calls}").format(
        reason=reason, calls=tree_sequence(run.search.game, run.log))


def node_counts(log):
    """Nodes, expanded and evaluated as the grader's log shows them.

    In one search every node has its own state (a state is the path to it), so
    the nodes are the distinct states the game was called with. A node whose
    last call was evaluation took its value from evaluation (evaluated), the
    others were expanded; a search that breaks "one call per node" is judged
    by the technique checks, not here."""
    last = {}
    for kind, key in log:
        last[key] = kind
    evaluated = sum(kind == "e" for kind in last.values())
    return {"nodes": len(last), "expanded": len(last) - evaluated, "evaluations": evaluated}


def stats_reason(run):
    """The student's counters are right for the work the grader saw."""
    if not run.outcome.answered:
        return got_text(run)
    got = run.outcome.value.get("stats") if isinstance(run.outcome.value, dict) else None
    if not isinstance(got, dict):
        return _("the SearchStats object could not be read ({value})").format(value=short(got))
    seen = node_counts(run.log)
    if run.search.function in PLAIN:
        seen["prunings"] = 0
    elif run.log == run.expected.log:
        seen["prunings"] = run.expected.stats["prunings"]
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


def all_of(*judges):
    """A judge that applies several in order and reports the first complaint."""
    def judge(run):
        for one in judges:
            reason = one(run)
            if reason is not None:
                return reason
        return None
    return judge

"""The gametree suite's search cases: one call of maximize ... computer_move on a game only
the grader knows (checking/search.py), a real position (`kitgame.GameSpec`) or a tree
(`search.Tree`), judged by the grader's log of the run against the reference's.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from autograder.checking import (Plan, Proxy, gametrees, load_reference, played_plan, search,
                                 short)
from autograder.checking.judges import best_and_value
from autograder.checking.search import INF, fmt
from autograder.checking.standins import signed
from autograder.i18n import grader_text as _
from autograder.suites.gametree.kitgame import PositionGame

ref = load_reference("gametree", "gametree")
M = "gametree."
GAME_METHODS = ("nextstates", "terminal_test", "evaluation")
PLAIN = ("maximize", "minimize")
TreeSpec = search.Tree


def make_game(spec, limit=None):
    """A fresh game of `spec` with the specified Game's signatures (`nextstates(state=s)` works)."""
    if isinstance(spec, TreeSpec):
        return signed(search.TreeGame, ref.Game, GAME_METHODS)(spec.tree(), spec.tokens())
    return signed(PositionGame, ref.Game, GAME_METHODS)(spec, limit)


@dataclass(frozen=True)
class Search:
    """One call of a student function on one game (hashable: results are cached)."""

    function: str
    game: object                # GameSpec or search.Tree
    alpha: float = -INF
    beta: float = INF
    bremse: float = INF
    with_stats: bool = False
    book: tuple = ()            # computer_move's book as ((key, successor), ...)
    use_book: bool = False
    defaults: bool = False      # call with the state and game=... only: the defaults hold

    @property
    def is_tree(self):
        return isinstance(self.game, TreeSpec)

    @property
    def size(self):
        """The reference's number of game calls: cases are shown smallest first."""
        return len(expected(self).log)

    @property
    def root_key(self):
        return self.game.tree()["root"] if self.is_tree else tuple(self.game.root)

    def root(self, game):
        return game.shown(self.root_key)

    def expected(self):
        return expected(self)

    def setup(self):
        """A fresh game for the student's search, with a call limit unless it is a (finite) tree."""
        return make_game(self.game, None if self.is_tree else call_limit(self))

    def call_text(self):
        root = list(self.game.tokens()[self.root_key]) if self.is_tree else list(self.game.root)
        if self.defaults:
            return f"{self.function}({root}, game=game)"
        if self.function in PLAIN:
            text = f"{self.function}({root}, game"
        elif self.function == "computer_move":
            text = f"computer_move({root}, game, {fmt(self.bremse)}"
            return text + (", book)" if self.use_book else ")")
        else:
            text = (f"{self.function}({root}, {fmt(self.alpha)}, {fmt(self.beta)}, "
                    f"{fmt(self.bremse)}, game")
        return text + (", stats)" if self.with_stats else ")")

    def drawing(self):
        return self.game.drawing()

    def call(self, caller, game, stats, root=None):
        """The call on `game` (a proxy of it, given its `root`) through `caller(name, *args)`."""
        root = self.root(game) if root is None else root
        if self.defaults:
            return caller(self.function, root, game=game,
                          **({"stats": stats} if stats is not None else {}))
        if self.function in PLAIN:
            return caller(self.function, root, game, stats)
        if self.function == "computer_move":
            book = {k: list(v) for k, v in self.book} if self.use_book else None
            return caller("computer_move", root, game, self.bremse, book, stats)
        return caller(self.function, root, self.alpha, self.beta, self.bremse, game, stats)

    def plan(self, game, play=None, student=None):
        """The student's call on a proxy of `game`: the result and the counters; `play(game)`
        is what the grader plays in. Each game call is a round trip, so the time limit
        (the child's CPU time) grows by the per-call limit per 500 calls the case allows."""
        plan = played_plan(M + self.function, play(game) if play else None,
                           timeout=student.timeouts.call * (1 + call_limit(self) / 500))
        stats = plan.call(M + "SearchStats") if self.with_stats else None
        result = self.call(lambda name, *args, **kwargs: plan.call(M + name, *args, **kwargs),
                           Proxy(game, ask=GAME_METHODS), stats, self.root(game))
        template = {"result": result}
        if stats is not None:
            template["stats"] = {name: plan.get(stats.attr(name), default=None)
                                 for name in search.COUNTERS}
        return plan.returns(template)

    def picture(self, run):
        want = expected(self)
        got = run.returned
        return search.game_picture(
            run.game, want.log, self.root_key, rule_result=_value_of(want.result),
            student_result=_value_of(got) if run.outcome.answered else None,
            max_to_move=max_to_move(self.game))

    def expected_text(self):
        want = expected(self)
        if self.function == "computer_move":
            book = dict(self.book)
            if self.use_book and tuple(self.game.root) in book:
                return _("the book's move {move}, without a search").format(
                    move=list(book[tuple(self.game.root)]))
            return _("a successor of value {value}").format(
                value=fmt(position_value(self.game, self.bremse)))
        best, value = want.result
        text = f"({short(best)}, {fmt(value)})"
        calls = [sum(kind == k for kind, _key in want.log) for k in ("n", "e")]
        text += _("; the game calls: {expanded} nextstates, {evaluated} evaluation: ").format(
            expanded=calls[0], evaluated=calls[1])
        return text + search.trace_text(make_game(self.game), want.log, 0, 40)


def _value_of(result):
    """The value of a search's (best_state, value), or the whole answer (a move)."""
    if type(result) in (tuple, list) and len(result) == 2 and type(result[1]) in (int, float):
        return result[1]
    return result


def max_to_move(spec):
    """Whether max (x) is to move at the root of a game."""
    if isinstance(spec, TreeSpec):
        return spec.tree().get("max_to_move", True)
    return len(spec.root) % 2 == 0


def search_for(function_or_side, game, **options):
    """A Search of the max or min version of a search for the side to move at the root."""
    if function_or_side in ("minimax", "alphabeta"):
        base = "maximize" if max_to_move(game) else "minimize"
        function_or_side = base if function_or_side == "minimax" else base + "_ab"
    return Search(function_or_side, game, **options)


@functools.cache
def expected(case):
    """The reference's run of `case` on a fresh game: its result, the game's log, its counters."""
    game, stats = make_game(case.game), ref.SearchStats()
    result = case.call(lambda name, *args, **kwargs: getattr(ref, name)(*args, **kwargs),
                       game, stats)
    return search.Expected(result, list(game.log), stats.as_dict())


@functools.cache
def position_value(spec, bremse):
    """The value of spec.root at depth limit `bremse` with the full window (reference)."""
    return expected(search_for("alphabeta", spec, bremse=bremse)).result[1]


@functools.cache
def full_width_nodes(spec, bremse):
    """Nodes of a search without pruning at depth limit `bremse` (cases are capped on it)."""
    rules = spec.rules()

    def count(state, left):
        if left <= 0 or rules.decided(state):
            return 1
        return 1 + sum(count(child, left - 1) for child in rules.nextstates(state))
    return count(list(spec.root), bremse)


@functools.cache
def call_limit(case):
    """Game calls a search of this case may make: twice what the handout's way or a
    search without pruning needs, so a correct search that asks twice per node passes."""
    nodes = len(gametrees.depths(case.game.tree())) if case.is_tree \
        else full_width_nodes(case.game, case.bremse)
    return search.calls_allowed(max(nodes, len(expected(case).log)), 4, 100)


def book_copy_plan(case):
    """"Return a copy of the book's successor state": computer_move asked again with
    the same book (search.asked_again); (plan, game)."""
    game, plan = case.setup(), Plan(M + "computer_move")
    book = plan.value({key: list(move) for key, move in case.book})
    return search.asked_again(plan, M + "computer_move", list(case.game.root),
                              Proxy(game, ask=GAME_METHODS), case.bremse, book, None), game


def run_book_copies(student, cases):
    """computer_move's second answer per book case (book_copy_plan), a refusal costing it."""
    return search.run_jobs(student, map(book_copy_plan, cases))


def got_text(run):
    return search.got_text(run, run.search.size)


# ------------------------------------------------------------------ judges
def result_pair(run):
    """(best, value) the search returned, or a reason."""
    if not run.outcome.answered:
        return None, got_text(run)
    return best_and_value(run.returned, _("returned {value}, not a pair (best_state, value)"))


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
    """The right value; best_state None where the search stops, else any successor attaining it."""
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
    spec = run.search.game
    if type(best) is not list or tuple(best) not in make_game(spec).successors(spec.root):
        return _("best_state {state} is not one of the successors the game gave").format(
            state=short(best))
    depth = INF if run.search.function in PLAIN else run.search.bremse - 1
    if position_value(spec.at(best), depth) != value:
        return _("best_state {state} does not attain the value {value}").format(
            state=short(best), value=fmt(value))
    return None


def decided_reason(run):
    """A decided game (a line, a full board, a tree leaf) is never expanded."""
    return search.decided_reason(run.game, run.log)


def depth_reason(run):
    """Undecided states are evaluated exactly at ply `bremse`, never above or past it."""
    return search.depth_reason(run.game, run.log, run.search.bremse)


def work_reason(run):
    """Exactly the game calls of the handout's rules, in order."""
    calls = search.tree_calls_reason if run.search.is_tree else search.calls_reason
    return calls(run.game, run.log, run.expected.log)


def stats_reason(run):
    """The student's counters are right for the work the grader saw."""
    if not run.outcome.answered:
        return got_text(run)
    seen = search.counts(run.log)
    if run.search.function in PLAIN:
        seen["prunings"] = 0
    elif run.log == run.expected.log:
        seen["prunings"] = run.expected.stats["prunings"]
    got = run.outcome.value.get("stats") if isinstance(run.outcome.value, dict) else None
    return search.counter_reason(got, seen)

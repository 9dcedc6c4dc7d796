"""Hidden suite for muehle (Nine Men's Morris): the rules, memoised minimax, alpha-beta.

Nothing of ours runs in the sandbox: the child holds the student's module alone,
and every expected value is computed here, from the reference in solutions/muehle/.

The rules (to_tuple ... heuristic) are called with plain data on about 2,200
positions (positions.py): seeded playouts and random boards grouped by what
decides the successors (placing, moving, flying, a mill whose removal the
protection rule decides, game over), plus positions built for every edge of every
rule, which sampling misses: one stone in hand while every board stone is blocked,
the only movable stone on each of the 24 points, the quiet counter around the limit.
Plain calls cost about 20 us each, so these stay exhaustive over the pool.

The searches are checked through call plans, on games only the grader knows
(games.py): while a plan runs, the module's next_states, finished, utility and
heuristic are callbacks answered here, offering a seeded subset of the legal moves
in a seeded order, arbitrary heuristic values and some positions declared
finished. A search that bypasses them (its own rules, a function bound at import,
a copy of a reference) answers for another game, and the callbacks refuse to talk
about positions they never handed out. Each function is also checked as a unit,
its collaborators played by the grader: memoize with the function it memoises,
best_move_minimax with value_minimax and the random generator, value_ab with
alpha_beta, alpha_beta with value_ab and get_order_value, best_move_ab with
value_ab. Everything judged about a search (its calls, the order it tries moves,
the windows it passes, the nodes it explores) is the grader's own record of the
calls that reached it; what a plan returns is only the student's answer. Each plan
ends with a call to the grader, so an answer that arrives before the work was done
(a reply forged on the pipe) is not believed.

Sizes: every callback is a pipe round trip (about 40 us), so the games are small:
two to nine moves per position, depth 1 to 4, a few dozen positions per check, about
6,500 round trips per submission in all (about 0.3 s). That is enough because each
check is exact (one wrong value, call, window or order on one position fails it) and
its cases are chosen so that the common mistakes change them: a cut-off on a value
equal to beta, alpha that must rise and must not, ties in the deepening order, nine
equally good moves to choose from, transpositions for the cache (tests/muehle prove
each example submission fails for its reason, and tests/muehle/test_suite.py that the
cases discriminate).

A bug costs its own function's points, once (issue 22; docs/SLICES.md, "Blame"):
every check goes through the engine's Blame.check, which first runs it with the
student's own helpers (what a correct submission pays) and, where it failed while
one of the functions it relies on ([relies_on] in assignment.toml) failed its own
check, judges it again in a fresh child with those helpers played by the grader
(`play_helpers`: opponent, to_list and to_tuple as callbacks; memoize by
functools.cache around the student's own undecorated value_minimax; value_ab by the
student's own alpha_beta). Only test_strength judges the whole program, the
student's own helpers and all (rubric [blame] whole_program).

What a check believes: the student's returned answers (judged as answers) and the
records of the grader's own objects (watches, recorders, the rng, the memoised
function), nothing the child reports about itself. The grader's games answer only
about what they handed out (the engine's Handout): a refused question fails its
case, named, even when the student's code catches the exception. "next_states
leaves its input unchanged" is judged from next_states' own second answer on the
same state object (`again`). The random choice is judged from what the grader's rng
was offered and what it chose. Session fixtures keep verdict data only: answers cut
to verdict size and the verdicts judged from the grader's records (suites/verdicts.py).

Time: every limit is the child's CPU time, every search is depth-limited and the
deepening takes a depth, not a clock: no verdict depends on the machine's load.
"""

from __future__ import annotations

import dataclasses
import functools
import random

import pytest

from autograder.grading.checks import (Case, CheckFailed, check_all, describe, exact, require,
                                       short)
from autograder.grading.student import Callback, Outcome, Plan, Proxy

from . import movegen
from ..verdicts import changed_input, check_probes, kept, refused
from .games import (RULES, Game, Watch, as_state, list_form, other, ref, reference_on,
                    reference_with)
from .positions import (NAMES, _smallest_first, draw, everything, moves, pool,
                        search_positions, successors)

W, B, E = ref.WHITE, ref.BLACK, ref.EMPTY
M = "muehle."
STEP = 1 / 128
DONE = "_spielbaum_done"
FINISH = 0.06       # the share of positions a game declares finished although they are not
GAME_HINT = ("while this check runs, next_states, finished, utility and heuristic are the "
             "grader's: they offer only some of the moves and give values of their own, so "
             "call them by the module's names (not through a copy made at import)")


# ------------------------------------------------------------------ plans
def fresh_plan(name: str) -> Plan:
    """A plan that first empties the student's caches (value_minimax.cache, AB_CACHE)."""
    plan = Plan(name)
    memo = plan.get(M + "value_minimax", default=None)
    plan.call(plan.get(memo.attr("cache"), default=None).attr("clear"), catch=True)
    plan.call(plan.get(M + "AB_CACHE", default=None).attr("clear"), catch=True)
    return plan


class Done:
    """The plan's last step, answered by the grader: proof that the answer came after
    the work (a reply forged on the pipe arrives before it, and the calls after a
    plan's reply are refused, so they would be missing from the record). It also
    holds the handouts of the plan's games, whose refusals cost the case."""

    def __init__(self, handouts=()):
        self.reached = False
        self.handouts = handouts

    def __call__(self):
        self.reached = True


def finish(plan: Plan, template, *handouts) -> Done:
    """End `plan` with the grader's last step; `handouts`: those of its games."""
    done = Done(handouts)
    plan.patch(M + DONE, Callback(done, wait=False))
    plan.call(M + DONE)
    plan.returns(template)
    return done


def run(student, jobs) -> list[Outcome]:
    """Run [(plan, done), ...] in one request. An answer whose plan never reached its
    last step is not believed; one whose search asked a question the grader's game
    refused fails on that question (also when the student's code caught it)."""
    outcomes = student.run([plan for plan, _ in jobs])
    return [refused(o, *done.handouts) if not o.answered or done.reached else
            Outcome(failure="bad_value", detail="its answer arrived before the check's last "
                                                "step ran (a reply written to the pipe?)")
            for o, (_, done) in zip(outcomes, jobs)]


# ------------------------------------------------------------------ blame (issue 22)
# Each check judges its function with blame.on_its_own: the helpers it relies on are
# played by the reference where a second judging is needed (grading/checks.py, Blame).
def play_helpers(plan, play, skip=()):
    """Patch the helpers that `play` names into `plan`, played by the grader, except
    those the plan's own stand-ins play already (`skip`: a watch's rules, a recorder).

    Three are played in the child, by code that is not the student's: memoize, which
    decorated value_minimax at import, by the standard library's functools.cache
    around the student's own undecorated value_minimax (`__wrapped__`, set by the
    skeleton's update_wrapper); value_ab by the student's own alpha_beta (value_ab
    without its cache: the same values, every window kept); get_order_value by 0 for
    every key (what it reads from an AB_CACHE that value_ab never fills). Every
    other helper is a callback answered by the reference."""
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
            plan.patch(target, Callback(lambda state, player, depth: 0))
        else:
            plan.patch(target, Callback(function))


def showing(outcome: Outcome, pick) -> Outcome:
    """The outcome with the student's own answer, `pick(value)`, in place of the
    plan's record around it: the feedback's "got:" shows what their function
    returned, never the grader's wrapper (the judges read the record)."""
    return dataclasses.replace(outcome, value=pick(outcome.value)) if outcome.answered \
        else outcome


def same_numbers(got, want) -> bool:
    """Equal numbers (int or float, never bool), also inside lists."""
    if type(want) is list:
        return type(got) is list and len(got) == len(want) and \
            all(same_numbers(g, w) for g, w in zip(got, want))
    return type(got) in (int, float) and got == want


# ------------------------------------------------------------------ judging rules
def move_words(before, after, player):
    """A move in words, from the change between two boards."""
    old, new = before[0], after[0]
    opp = ref.opponent(player)
    left = [p for p in range(24) if old[p] == player and new[p] != player]
    came = [p for p in range(24) if new[p] == player and old[p] != player]
    taken = [p for p in range(24) if old[p] == opp and new[p] != opp]
    words = (f"moves {left[0]} -> {came[0]}" if left and came
             else f"places on {came[0]}" if came else "changes the board oddly")
    if taken:
        words += f", removes {taken[0]}"
    return words


def judge_successors(case, outcome):
    state, player = case.args
    got = outcome.value
    if type(got) is not list:
        return f"returned a {type(got).__name__}, not a list"
    states = [as_state(s) for s in got]
    if any(s is None for s in states):
        bad = got[states.index(None)]
        return f"returned {short(bad)}, which is not a state [board, in_hand, quiet]"
    want = successors(state, player)
    mine = set(states)
    if len(mine) < len(states):
        return "returned the same successor more than once"
    missing, extra = want - mine, mine - want
    # A right board with wrong counters is one mistake, not a missing and an extra move.
    boards = {s[0] for s in want}
    counters = sorted(s for s in extra if s[0] in boards)
    if counters:
        example = counters[0]
        return (f"the move that {move_words(state, example, player)} leads to the right board, "
                f"but in_hand {example[1]} / quiet {example[2]} are wrong")
    if missing:
        example = min(missing)
        return (f"misses {len(missing)} of the {len(want)} successors, e.g. the move that "
                f"{move_words(state, example, player)}")
    if extra:
        example = min(extra)
        return (f"returned {len(extra)} states that no legal move leads to, e.g. one that "
                f"{move_words(state, example, player)}")
    return None


@functools.cache
def rule_cases(group):
    return [Case("next_states(state, player)", (state, player), draw(state, player),
                 f"{len(successors(state, player))} successors")
            for state, player in pool()[group]]


def check_next_states(student, blame, group, summary, hint):
    chosen = rule_cases(group)

    def attempt(play):
        outcomes = student.map(M + "next_states", [c.args for c in chosen], play=play)
        check_all(summary, chosen, outcomes, judge_successors, hint=hint)
    blame.on_its_own(student, "next_states", "on a position", attempt)


def same_number(case, outcome):
    return None if same_numbers(outcome.value, case.expected) else \
        f"returned {short(outcome.value)}"


# ------------------------------------------------------------------ the game
def check_form(student, blame, function, hint):
    """`function` (to_tuple or to_list) on states of both forms."""
    rng = random.Random(3)
    states = [s for s, _ in _smallest_first(rng.sample(everything(), 40))]
    lists = [[list(s[0]), list(s[1]), s[2]] for s in states]
    want = states if function == "to_tuple" else lists
    chosen = [Case(f"{function}(state)", (g,), draw(s, W), w)
              for given in (states, lists) for g, s, w in zip(given, states, want)]

    def judge(case, outcome):
        got, want = outcome.value, case.expected
        if got != want or type(got) is not type(want) \
                or any(type(a) is not type(b) for a, b in zip(got, want)):
            return f"returned {short(got)}"
        return None
    with blame.judging(function, "for a state"):
        check_all(f"{function} returned the state in the wrong form", chosen,
                  student.map(M + function, [c.args for c in chosen]), judge, hint=hint)


def test_to_tuple(student, blame):
    """to_tuple turns a state of either form into the tuple form"""
    check_form(student, blame, "to_tuple", "tuple form: (tuple of 24 ints, tuple of 2 ints, "
                                           "int), also for the board and hand inside")


def test_to_list(student, blame):
    """to_list turns a state of either form into the list form"""
    check_form(student, blame, "to_list", "list form: [list of 24 ints, list of 2 ints, int], "
                                          "new lists also for the board and hand inside")


def test_opponent(student, blame):
    """opponent returns BLACK for WHITE and WHITE for BLACK"""
    chosen = [Case("opponent(WHITE)", (W,), None, B), Case("opponent(BLACK)", (B,), None, W)]
    with blame.judging("opponent", "for a player"):
        check_all("opponent returned the wrong player", chosen,
                  student.map(M + "opponent", [c.args for c in chosen]), exact,
                  hint="the players are WHITE = 1 and BLACK = 2 (not +1 and -1)")


def test_next_states_placing(student, blame):
    """next_states places a stone from the hand on every empty point (placing phase)"""
    check_next_states(student, blame, "placing", "next_states is wrong while stones are placed",
                      "a player with stones in hand places one on any empty point; the "
                      "hand shrinks by one and the quiet counter becomes 0")


def test_next_states_moving(student, blame):
    """next_states slides a stone to an adjacent empty point (moving phase)"""
    check_next_states(student, blame, "moving", "next_states is wrong in the moving phase",
                      "with no stones in hand a stone moves along a line to an adjacent "
                      "empty point (ADJACENT); the quiet counter grows by one unless a "
                      "stone is removed")


def test_next_states_flying(student, blame):
    """next_states lets a player with exactly three stones fly to any empty point"""
    check_next_states(student, blame, "flying", "next_states is wrong for a player with three stones",
                      "with exactly 3 stones on the board and none in hand, a stone may "
                      "jump to any empty point")


def test_next_states_removal(student, blame):
    """after a mill, next_states removes a stone outside the opponent's mills (or any, if all are in mills)"""
    check_next_states(student, blame, "removal", "next_states removes the wrong stones after a mill",
                      "a stone that stands in a mill may only be removed when every "
                      "opponent stone stands in a mill; one successor per removable stone; "
                      "a removal sets the quiet counter to 0")


def test_next_states_game_over(student, blame):
    """next_states returns no successors when the game is over"""
    check_next_states(student, blame, "over", "next_states returned moves in a finished game",
                      "below 3 stones, no legal move, or the quiet counter at DRAW_PLIES: "
                      "the game is over and there are no successors")


def test_next_states_keeps_its_input(student, blame):
    """next_states accepts the list form, leaves its input unchanged and returns list-form states"""
    rng = random.Random(11)
    sample = _smallest_first(rng.sample(everything(), 150))
    chosen = [Case("next_states(state, player)", ([list(s[0]), list(s[1]), s[2]], p),
                   draw(s, p)) for s, p in sample]
    def judge(case, outcome):
        # Judged from next_states' own second answer on the same state object (a
        # state the first call changed has other successors), never from the state
        # as the child reports it after the call (quoted only).
        changed = changed_input(outcome, "state and player", "the state it was given",
                                case.args[0], lambda a, b: _as_states(a) == _as_states(b))
        if changed:
            return changed
        got = outcome.value
        if type(got) is not list or any(type(s) is not list or len(s) != 3
                                         or type(s[0]) is not list or type(s[1]) is not list
                                         for s in got):
            return f"returned {short(got)}: the successors must be lists [board, in_hand, quiet]"
        return None
    hint = "build new lists for each successor (to_list gives fresh ones)"

    def attempt(play):
        outcomes = student.map(M + "next_states", [c.args for c in chosen], return_args=True,
                               again=True, play=play)
        check_all("next_states changed its input or returned the wrong form", chosen, outcomes,
                  judge, hint=hint)
    blame.on_its_own(student, "next_states", "on a position", attempt)
    with blame.judging("next_states", "on a position"):
        check_probes(student, "next_states changed its input or returned the wrong form",
                     M + "next_states", M + "next_states", chosen[::5], _probes, "state",
                     hint=hint)


def _as_states(value):
    """Successors as compared (the order of next_states' list is free): sorted tuple forms."""
    if type(value) is not list:
        return value
    states = [as_state(s) for s in value]
    return sorted(states) if None not in states else value


def _probes(state, rest):
    """Questions asked of a list-form state after next_states(state, player), whose
    answers do not depend on an order the handout leaves free: its tuple form (which
    spells out the whole state), its heuristic value, whether it is finished."""
    (player,) = rest
    return [("to_tuple(state)", M + "to_tuple", ()),
            (f"heuristic(state, {NAMES[player]})", M + "heuristic", (player,)),
            (f"finished(state, {NAMES[other(player)]})", M + "finished", (other(player),))]


@functools.cache
def end_cases(function):
    over = set(pool()["over"])
    pairs = [sp for sp in everything() if function == "finished" or sp in over]
    expect = getattr(ref, function)
    return [Case(f"{function}(state, player)", (s, p), draw(s, p), expect(s, p))
            for s, p in _smallest_first(pairs)]


def check_positions(student, blame, function, chosen, summary, judge, hint):
    """`function(state, player)` on every case, judged on its own (opponent played by
    the grader where the student's failed its check)."""
    def attempt(play):
        check_all(summary, chosen, student.map(M + function, [c.args for c in chosen],
                                               play=play), judge, hint=hint)
    blame.on_its_own(student, function, "on a position", attempt)


def test_finished(student, blame):
    """finished agrees with the reference on every position (game-over ones included)"""
    check_positions(student, blame, "finished", end_cases("finished"), "finished was wrong",
                    exact, "over below 3 stones (board and hand), without a legal move (a "
                           "stone in hand can always be placed), or when the quiet counter "
                           "reaches DRAW_PLIES; return True or False")


def test_utility(student, blame):
    """utility scores every finished position: 1, -1 or 0 for the player to move"""
    check_positions(student, blame, "utility", end_cases("utility"),
                    "utility returned the wrong score", same_number,
                    "check in order: player below 3 stones, opponent below 3 stones, "
                    "player without a move, draw")


@functools.cache
def heuristic_cases():
    return [Case("heuristic(state, player)", (s, p), draw(s, p), ref.heuristic(s, p))
            for s, p in everything()]


def test_heuristic(student, blame):
    """heuristic computes the handout's formula exactly on every position"""
    check_positions(student, blame, "heuristic", heuristic_cases(),
                    "heuristic returned the wrong value", same_number,
                    "(8 * (S_me - S_you) + (T_me - T_you)) / 128; stones in hand count "
                    "in S, T counts lines with two own stones and one empty point")


# ------------------------------------------------------------------ memoize
MEMO_ASKS = [(1, 2, 3), (1, 2, 3), (1, 2, 4), (2, 1, 3), (1, 2, 3), (1, 2, 4), (2, 1, 3)]


class Function:
    """A function of three arguments played by the grader: results the student cannot
    guess, every call recorded."""

    def __init__(self, seed):
        rng = random.Random(seed)
        self.results = {args: rng.randrange(1000, 10000) for args in set(MEMO_ASKS)}
        self.calls = []

    def __call__(self, *args):
        if len(args) != 3:
            raise TypeError(f"f() takes 3 arguments ({len(args)} given)")
        self.calls.append(tuple(args))
        return self.results.get(tuple(args), 0)


def test_memoize(student, blame):
    """memoize calls the function once per distinct arguments and keeps the results in .cache"""
    with blame.judging("memoize", "as a decorator"):
        check_memoize(student)


def check_memoize(student):
    f = Function(4711)
    plan = Plan("muehle.memoize")
    g = plan.call(M + "memoize", Callback(f))
    h = plan.call(M + "memoize", Callback(f))
    results = [plan.call(g, *args) for args in MEMO_ASKS]
    cache = plan.get(g.attr("cache"), default=None)
    again = plan.call(h, 1, 2, 3)
    done = finish(plan, {"results": results, "cache": cache, "again": again})
    [outcome] = run(student, [(plan, done)])
    require(outcome)
    call = ("g = memoize(f); h = memoize(f); g(1, 2, 3); g(1, 2, 3); g(1, 2, 4); g(2, 1, 3); "
            "g(1, 2, 3); g(1, 2, 4); g(2, 1, 3); g.cache; h(1, 2, 3)   (f is the grader's)")
    hint = ("the key is args, the whole tuple of arguments (state, player and depth for "
            "value_minimax); each memoised function has its own cache")
    if not outcome.answered:
        raise CheckFailed("memoize does not cache as specified", call=call,
                          got=describe(outcome), hint=hint)
    got = outcome.value
    first = [(1, 2, 3), (1, 2, 4), (2, 1, 3)]
    problem = None
    if got["results"] != [f.results[a] for a in MEMO_ASKS]:
        problem = (f"g returned {short(got['results'])}, not what f returned for those "
                   "arguments")
    elif f.calls[:3] != first or len(f.calls) < 3 or f.calls[3:] not in ([], [(1, 2, 3)]):
        problem = f"f was called with {short(f.calls)}: once for each distinct arguments"
    elif got["cache"] != {a: f.results[a] for a in first}:
        problem = f"g.cache holds {short(got['cache'])}: key = the tuple of all arguments"
    elif f.calls[3:] != [(1, 2, 3)] or got["again"] != f.results[(1, 2, 3)]:
        problem = "two memoised functions share one cache"
    if problem:
        raise CheckFailed("memoize does not cache as specified", call=call, got=problem,
                          hint=hint)


# ------------------------------------------------------------------ memoised minimax
def minimax_plan(game, queries, play=None):
    """value_minimax for each (state, player, depth) in turn on the grader's game,
    caches emptied first and kept in between; `play`: the helpers the grader plays."""
    watch = Watch(game, {(s, p) for s, p, _ in queries})
    plan = fresh_plan("muehle.value_minimax")
    play_helpers(plan, play, RULES)
    watch.install(plan)
    values = [plan.call(M + "value_minimax", s, p, d) for s, p, d in queries]
    return plan, finish(plan, values, watch.handout), watch


def minimax_expected(game, queries):
    watch = Watch(game, {(s, p) for s, p, _ in queries})
    with reference_on(watch) as r:
        return [r.value_minimax(s, p, d) for s, p, d in queries], watch


def game_words(function):
    return (f"{function} on the grader's game (its next_states offers some of the legal "
            "moves, its heuristic has values of its own, some positions are finished)")


@functools.cache
def minimax_cases():
    chosen = []
    for depth, count, widths in ((1, 10, (3, 8)), (2, 6, (2, 5))):
        for i, (state, player) in enumerate(search_positions(count, depth, 99)):
            game = Game(100 * depth + i, [(state, player)], widths, FINISH)
            queries = [(state, player, depth)]
            chosen.append(Case(game_words(f"value_minimax(state, {NAMES[player]}, {depth})"),
                               (game, queries), draw(state, player),
                               minimax_expected(game, queries)[0]))
    rng = random.Random(4)
    for i, (state, player) in enumerate(rng.sample(pool()["over"], 6)):
        game = Game(300 + i, [(state, player)])
        queries = [(state, player, 2)]
        chosen.append(Case(f"value_minimax(state, {NAMES[player]}, 2) on a finished position",
                           (game, queries), draw(state, player),
                           minimax_expected(game, queries)[0]))
    return chosen


def check_minimax_values(student, blame, chosen, summary, hint):
    def attempt(play):
        jobs = [minimax_plan(*case.args, play) for case in chosen]
        outcomes = run(student, [(plan, done) for plan, done, _ in jobs])
        # One call's answer is shown as the value it returned, not in the plan's list
        # (the plan returns the list of its calls' answers, one per query).
        single = [len(c.args[1]) == 1 for c in chosen]
        shown = [showing(o, lambda v: v[0]) if one else o for one, o in zip(single, outcomes)]
        wanted = {id(o): c.expected[0] if one else c.expected
                  for one, c, o in zip(single, chosen, shown)}
        check_all(summary, chosen, shown,
                  lambda c, o: None if same_numbers(o.value, wanted[id(o)]) else
                  f"returned {short(o.value)}", hint=hint)
    blame.on_its_own(student, "value_minimax", "on a position", attempt)


def test_value_minimax(student, blame):
    """value_minimax returns the negamax value at depths 1 and 2 (and the utility of a finished position)"""
    check_minimax_values(student, blame, minimax_cases(), "value_minimax returned the wrong value",
                         "finished: utility; depth 0: heuristic; otherwise the largest "
                         "-value_minimax(successor, opponent, depth - 1); " + GAME_HINT)


@functools.cache
def cache_cases():
    """Depth 3 on games that offer every move (in their own order), so the tree is full
    of transpositions: with a working cache each position is evaluated once."""
    chosen = []
    for i, (state, player) in enumerate(search_positions(2, 5, 8, ("moving",))):
        game = Game(400 + i, [(state, player)], None, 0.05)
        values, watch = minimax_expected(game, [(state, player, 3)])
        chosen.append(Case(game_words(f"value_minimax(state, {NAMES[player]}, 3)") +
                           ", then the same call again", (game, state, player),
                           draw(state, player),
                           {"value": values[0], "heuristic": watch.count("heuristic")}))
    return chosen


def test_value_minimax_uses_its_cache(student, blame):
    """value_minimax is memoised: every position is evaluated once, and a repeated call costs nothing"""
    chosen = cache_cases()

    def attempt(play):
        # One plan per case: the call, then the same call again with a second watch
        # (the caches kept), so that a memoize the grader plays keeps its table too.
        memo_played = any(target.endswith(".memoize") for target in play or ())
        jobs = []
        for case in chosen:
            game, state, player = case.args
            key = (state, player, 3)
            first, second = Watch(game, [(state, player)]), Watch(game, [(state, player)])
            plan = fresh_plan("muehle.value_minimax")
            play_helpers(plan, play, RULES)
            first.install(plan)
            value = plan.call(M + "value_minimax", *key)
            cached = None
            if not memo_played:     # .cache is memoize's (functools.cache has none)
                cache = plan.get(plan.get(M + "value_minimax").attr("cache"), default=None)
                cached = plan.call(cache.attr("__contains__"), key, catch=True)
            second.install(plan)
            again = plan.call(M + "value_minimax", *key)
            done = finish(plan, {"value": value, "cached": cached, "again": again},
                          first.handout, second.handout)
            jobs.append((plan, done, first, second))
        outcomes = run(student, [(plan, done) for plan, done, _, _ in jobs])
        shown = [showing(o, lambda v: v["value"]) for o in outcomes]
        records = {id(s): (o.value, first, second)
                   for s, o, (_, _, first, second) in zip(shown, outcomes, jobs)}

        def judge(case, outcome):
            want = case.expected
            got, first, second = records[id(outcome)]
            if not same_numbers(got["value"], want["value"]):
                return f"returned {short(got['value'])}"
            if second.calls or got["again"] != got["value"]:
                return (f"the repeated call searched again ({len(second.calls)} calls of the "
                        "rules) instead of using the cache")
            if not memo_played and got["cached"] is not True:
                return "value_minimax.cache holds no entry (state, player, depth) for the call"
            if first.count("heuristic") > want["heuristic"]:
                return (f"called heuristic {first.count('heuristic')} times; with a working "
                        f"cache it is called once per distinct position ({want['heuristic']} "
                        "times)")
            return None
        check_all("value_minimax does not use its cache", chosen, shown, judge,
                  hint="decorate value_minimax with @memoize and pass the state in tuple form")
    blame.on_its_own(student, "value_minimax", "on a position", attempt)


@functools.cache
def key_cases():
    """Mixed depths and players on the same positions, caches kept: values must not leak."""
    chosen = []
    for i, (state, player) in enumerate(search_positions(3, 6, 25)):
        opp = ref.opponent(player)
        queries = [(state, player, 1), (state, player, 2), (state, opp, 1),
                   (state, player, 0), (state, opp, 2)]
        queries = [q for q in queries if not ref.finished(q[0], q[1])]
        game = Game(500 + i, [(state, player), (state, opp)], (2, 5), FINISH)
        chosen.append(Case(game_words("value_minimax(state, p, d) for (p, d) = " +
                                      ", ".join(f"({NAMES[p]}, {d})" for _, p, d in queries) +
                                      " in turn, caches kept,"),
                           (game, queries), draw(state, player),
                           minimax_expected(game, queries)[0]))
    return chosen


def test_value_minimax_cache_key(student, blame):
    """memoised values do not leak between depths or players (the key is state, player and depth)"""
    check_minimax_values(student, blame, key_cases(),
                         "value_minimax returned a cached value of another depth or player",
                         "the cache key must hold the state, the player and the depth")


# ------------------------------------------------------------------ best_move_minimax
class Chooser:
    """The random generator passed as rng, played by the grader: a seeded Random that
    records what it was asked to choose from (`offered`) and what it chose (`chose`)."""

    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.offered = []
        self.chose = []

    def choice(self, items):
        if type(items) not in (list, tuple) or not items:
            raise IndexError("cannot choose from an empty sequence")
        self.offered.append(list(items))
        self.chose.append(items[self.rng.randrange(len(items))])
        return self.chose[-1]

    def randrange(self, *args):
        return self.rng.randrange(*args)

    def randint(self, a, b):
        return self.rng.randint(a, b)

    def random(self):
        return self.rng.random()


RNG_METHODS = ("choice", "randrange", "randint", "random")


class MinimaxValues:
    """value_minimax played by the grader: the root and its successors have values of
    the grader's choice; any other question is refused (kept in the plan's
    `handout`), as a list-form state is."""

    def __init__(self, table, handout):
        self.table = table
        self.handout = handout

    def __call__(self, state, player, depth):
        if type(state) is not tuple or type(state[0]) is not tuple:
            raise TypeError("value_minimax needs the state in tuple form (to_tuple): "
                            "it is the key of its cache")
        key = (as_state(state), player, depth)
        if key not in self.table:
            self.handout.refuse("value_minimax was asked about a position, player or depth "
                                "that this check did not hand out")
        return self.table[key]


def tied_values(rng, count, ties):
    """Values (for the player to move) of `count` moves, the best shared by `ties`."""
    best = rng.randrange(-20, 40) * STEP
    values = [best] * ties + [best - rng.randrange(1, 30) * STEP for _ in range(count - ties)]
    rng.shuffle(values)
    return values


def best_minimax_setup(state, player, depth, salt, widths, ties):
    """The root's successors (the grader's game) and the values value_minimax gives."""
    game = Game(salt, [(state, player)], widths, 0)
    children = game.successors(state, player)
    rng = random.Random(salt)
    own = tied_values(rng, len(children), min(ties, len(children)))
    table = {(s, other(player), depth - 1): -v for s, v in zip(children, own)}
    table[(state, player, depth)] = max(own)
    best = {s for s, v in zip(children, own) if v == max(own)}
    return game, table, best


def best_minimax_plan(setup, state, player, depth, seed, play=None):
    game, table, _ = setup
    watch = Watch(game, [(state, player)])
    plan = fresh_plan("muehle.best_move_minimax")
    play_helpers(plan, play, RULES + ("value_minimax",))
    watch.install(plan, ("next_states", "finished"))
    plan.patch(M + "value_minimax", Callback(MinimaxValues(table, watch.handout)))
    chooser = Chooser(seed)
    args = [list_form(state), player, depth]
    if seed is not None:
        args.append(Proxy(chooser, ask=RNG_METHODS))
    return plan, finish(plan, plan.call(M + "best_move_minimax", *args), watch.handout), \
        chooser


def judge_best(best, value, outcome):
    got = outcome.value
    if type(got) not in (list, tuple) or len(got) != 2:
        return f"returned {short(got)}, not a pair (value, successor)"
    if not same_numbers(got[0], value):
        return f"the value {short(got[0])} is not the one value_minimax gave the position"
    successor = as_state(got[1])
    if successor is None:
        return f"returned {short(got[1])} as the move, which is not a state"
    if successor not in best:
        return "the move it returned is not one of the best (by value_minimax's values)"
    return None


@functools.cache
def best_minimax_cases():
    chosen = []
    for depth, count in ((1, 4), (2, 2)):
        for i, (state, player) in enumerate(search_positions(count, 20 + depth, 30)):
            setup = best_minimax_setup(state, player, depth, 600 + 10 * depth + i, (3, 9), 1 + i % 3)
            chosen.append(Case(f"best_move_minimax(state, {NAMES[player]}, {depth}, rng) with "
                               "next_states, value_minimax and rng played by the grader",
                               (setup, state, player, depth), draw(state, player)))
    return chosen


def test_best_move_minimax(student, blame):
    """best_move_minimax returns the position's value and a move that reaches it"""
    chosen = best_minimax_cases()
    cases = [case for case in chosen for _ in (1, 2, None)]

    def attempt(play):
        jobs = [best_minimax_plan(*case.args, seed, play)
                for case in chosen for seed in (1, 2, None)]
        outcomes = run(student, [(plan, done) for plan, done, _ in jobs])

        def judge(case, outcome):
            (_, table, best), state, player, depth = case.args
            return judge_best(best, table[(state, player, depth)], outcome)
        check_all("best_move_minimax did not return a best move", cases, outcomes, judge,
                  hint="value = value_minimax(to_tuple(state), player, depth); keep the "
                       "successors s with -value_minimax(to_tuple(s), opponent, depth - 1) "
                       "== value")
    blame.on_its_own(student, "best_move_minimax", "on a position", attempt)


def test_best_move_minimax_is_random(student, blame):
    """best_move_minimax chooses with rng.choice among all the equally good moves"""
    blame.on_its_own(student, "best_move_minimax", "on a position",
               lambda play: check_random_choice(student, play))


def check_random_choice(student, play):
    # Judged from the grader's rng alone: one choice among exactly the best moves,
    # and the move it chose returned; seeds 0..11 give that rng's own variety.
    start = ref.initial_state()
    setup = best_minimax_setup(start, W, 1, 699, None, 9)
    _, table, best = setup
    jobs = [best_minimax_plan(setup, start, W, 1, seed, play) for seed in range(12)]
    outcomes = run(student, [(plan, done) for plan, done, _ in jobs])
    call = ("best_move_minimax(initial_state(), WHITE, 1, rng) for 12 generators rng, "
            "with value_minimax giving 9 of the 24 placements the best value")
    for outcome, (_, _, chooser) in zip(outcomes, jobs):
        require(outcome)
        problem = describe(outcome) if not outcome.answered else \
            judge_best(best, table[(start, W, 1)], outcome)
        if problem:
            raise CheckFailed("best_move_minimax did not return a best move", call=call,
                              position=draw(start, W), got=problem)
        # Believed: what the grader's rng was offered and what it chose, never how
        # random the answers look (a generator of the student's own is not the rng).
        offered = [as_state(s) for s in chooser.offered[-1]] if chooser.offered else None
        if offered is None:
            got = "rng (the grader's generator) was never asked to choose"
        elif len(offered) != len(best) or set(offered) != best:
            got = (f"rng.choice was offered {len(offered)} moves, "
                   f"{len(set(offered) & best)} of them best, of {len(best)} best moves")
        elif as_state(outcome.value[1]) != as_state(chooser.chose[-1]):
            got = "it returned another move than the one rng.choice chose"
        else:
            continue
        raise CheckFailed("best_move_minimax does not choose with rng among all the best moves",
                          call=call, position=draw(start, W), got=got,
                          hint="collect every best successor (and only those) and pick one "
                               "with rng.choice; return the move it chose")


# ------------------------------------------------------------------ value_ab and its cache
class Recorder:
    """A search function played by the grader (alpha_beta or value_ab): records
    (state, player, alpha, beta, depth) and answers with `answer(...)`."""

    def __init__(self, name, answer, watch=None):
        self.name, self.answer, self.watch = name, answer, watch
        self.calls = []

    def __call__(self, state, player, alpha, beta, depth):
        s = as_state(state)
        if s is None:
            raise TypeError(f"{self.name}: {short(state, 80)} is not a state")
        if self.watch is not None and (s, player) not in self.watch.given:
            self.watch.handout.refuse(f"{self.name} was asked about a position (or player) "
                                      "that next_states did not hand out in this check")
        self.calls.append((s, player, alpha, beta, depth))
        return self.answer(s, player, alpha, beta, depth)


def value_ab_run(target, state, player, planted, window, answer, play=None):
    """value_ab(state, player, alpha, beta, 2) with AB_CACHE holding `planted` and
    alpha_beta answering `answer`: (result, alpha_beta calls, entry afterwards), on
    `target` (the reference here, or a plan for the student)."""
    key = (state, player, 2)
    record = Recorder("alpha_beta", lambda *args: answer)
    if target is ref:
        with reference_with(alpha_beta=record) as r:
            r.AB_CACHE.update(planted)
            result = r.value_ab(list_form(state), player, *window, 2)
            return {"result": result, "entry": r.AB_CACHE.get(key)}, record
    plan = fresh_plan("muehle.value_ab")
    play_helpers(plan, play, ("alpha_beta",))
    for k, entry in planted.items():
        plan.setitem(M + "AB_CACHE", k, entry)
    plan.patch(M + "alpha_beta", Callback(record))
    result = plan.call(M + "value_ab", list_form(state), player, *window, 2)
    entry = plan.call(plan.get(M + "AB_CACHE").attr("get"), key, catch=True)
    return (plan, finish(plan, {"result": result, "entry": entry})), record


def check_value_ab(student, blame, seed, answer, scenarios, summary, hint):
    state, player = search_positions(1, seed, 20, ("moving",))[0]
    runs, chosen = [], []
    for words, planted, window in scenarios:
        planted = {(state, p, d): entry for p, d, entry in planted(player)}
        want, want_record = value_ab_run(ref, state, player, planted, window, answer)
        runs.append((planted, window))
        chosen.append(Case(f"value_ab(state, {NAMES[player]}, {window[0]}, {window[1]}, 2) "
                           f"with AB_CACHE: {words}; alpha_beta played by the grader "
                           f"(it returns {answer})", (state, player), draw(state, player),
                           (want, [c[2:4] for c in want_record.calls])))

    def attempt(play):
        made = [value_ab_run(None, state, player, planted, window, answer, play)
                for planted, window in runs]
        outcomes = run(student, [job for job, _ in made])
        shown = [showing(o, lambda v: v["result"]) for o in outcomes]
        by_outcome = {id(s): (o.value, record)
                      for s, o, (_, record) in zip(shown, outcomes, made)}

        def judge(case, outcome):
            (want, want_windows), (got, record) = case.expected, by_outcome[id(outcome)]
            windows = [c[2:4] for c in record.calls]
            if windows != want_windows:
                return (f"alpha_beta was called with (alpha, beta) = {windows}" if windows
                        else "alpha_beta was not called")
            if not same_numbers(got["result"], want["result"]):
                return f"returned {short(got['result'])}"
            entry = got["entry"]
            if type(entry) not in (list, tuple) or list(entry) != list(want["entry"]):
                return f"AB_CACHE then held {short(entry)} for the key"
            return None
        check_all(summary, chosen, shown, judge, hint=hint)
    blame.on_its_own(student, "value_ab", "on a position", attempt)


def test_value_ab_reuses_cached_values(student, blame):
    """value_ab stores (value, alpha, beta) under (state, player, depth) and reuses it for a window inside"""
    check_value_ab(student, blame, 30, 37 * STEP, [
        ("empty", lambda p: [], (-0.5, 0.5)),
        ("(1/4, -1, 1) under the key", lambda p: [(p, 2, (0.25, -1, 1))], (-0.5, 0.5)),
        ("(1/4, -1/2, 1/2) under the key, the same window",
         lambda p: [(p, 2, (0.25, -0.5, 0.5))], (-0.5, 0.5)),
        ("(1/4, -1, 1) for depth 1 and for the opponent only",
         lambda p: [(p, 1, (0.25, -1, 1)), (ref.opponent(p), 2, (0.25, -1, 1))], (-1, 1)),
    ], "value_ab does not use AB_CACHE as specified",
        "key (to_tuple(state), player, depth); reuse the entry when its window contains the "
        "one asked for; otherwise call alpha_beta(state, player, alpha, beta, depth) and store "
        "(value, alpha, beta)")


def test_value_ab_respects_the_window(student, blame):
    """value_ab does not reuse a value computed for a narrower window; it widens the window"""
    check_value_ab(student, blame, 31, -21 * STEP, [
        ("(1/4, -1/4, 1/4), window (-1, 1)", lambda p: [(p, 2, (0.25, -0.25, 0.25))], (-1, 1)),
        ("(1/4, -1/2, 1/4), window (-1/4, 1/2)", lambda p: [(p, 2, (0.25, -0.5, 0.25))],
         (-0.25, 0.5)),
        ("(1/4, 0, 1), window (-1, 1)", lambda p: [(p, 2, (0.25, 0, 1))], (-1, 1)),
    ], "value_ab reused a value outside the window it was computed for",
        "a value computed with the window (a, b) is only exact inside it: search again with "
        "the window widened to (min(alpha, a), max(beta, b))")


# ------------------------------------------------------------------ alpha-beta on the grader's game
@functools.cache
def ab_cases():
    chosen = []
    for depth, count, widths in ((2, 4, (3, 8)), (3, 2, (3, 6))):
        for i, (state, player) in enumerate(search_positions(count, 40 + depth, 99)):
            game = Game(700 + 10 * depth + i, [(state, player)], widths, FINISH)
            queries = [(state, player, depth)]
            values, watch = minimax_expected(game, queries)
            chosen.append(Case(game_words(f"value_ab(state, {NAMES[player]}, -1, 1, {depth})"),
                               (game, state, player, depth), draw(state, player),
                               {"value": values[0], "minimax_nodes": watch.nodes}))
    return chosen


def ab_plan(game, state, player, depth, window=(-1, 1), play=None):
    """value_ab(state, player, alpha, beta, depth) on the grader's game; with value_ab
    played (`play_helpers`), the student's alpha_beta searches without the cache."""
    watch = Watch(game, [(state, player)])
    plan = fresh_plan("muehle.value_ab")
    play_helpers(plan, play, RULES)
    watch.install(plan)
    value = plan.call(M + "value_ab", list_form(state), player, *window, depth)
    return plan, finish(plan, value, watch.handout), watch


@pytest.fixture(scope="session")
def ab_runs(student):
    """The verdict data of the searches two checks judge, run once per way of playing
    the helpers (`runs(play)`): each answer cut to verdict size (a value is a number),
    and the nodes each grader's watch counted."""
    made = {}

    def runs(play):
        key = tuple(sorted(play or ()))
        if key not in made:
            chosen = ab_cases()
            jobs = [ab_plan(*case.args, play=play) for case in chosen]
            outcomes = run(student, [(plan, done) for plan, done, _ in jobs])
            made[key] = (chosen, [kept(o, 8) for o in outcomes],
                         [watch.nodes for _, _, watch in jobs])
        return made[key]
    return runs


def test_alpha_beta_equals_minimax(student, blame, ab_runs):
    """alpha-beta (value_ab, full window) returns minimax's value at the same depth"""
    def attempt(play):
        chosen, outcomes, _ = ab_runs(play)
        check_all("value_ab returned a value other than minimax's", chosen, outcomes,
                  lambda c, o: None if same_numbers(o.value, c.expected["value"]) else
                  f"returned {short(o.value)}",
                  hint="with the window (-1, 1) alpha-beta must return the exact minimax "
                       "value; " + GAME_HINT)
    blame.on_its_own(student, "alpha_beta", "on a position", attempt)


class Cut:
    """A scenario for alpha_beta with value_ab played by the grader: the window and the
    values (for the player to move) of the successors, in the order tried."""

    def __init__(self, words, window, own):
        self.words, self.window, self.own = words, window, own


CUTS = [
    Cut("a win among the moves: nothing after it is tried", (-1, 1),
        [-0.25, 0.125, -0.5, 1, 0.0, 0.25, -0.125]),
    Cut("a value equal to beta stops the search (cut on >=)", (-0.25, 0.25),
        [-0.5, 0.0, 0.125, 0.25, 0.375, -0.125, 0.0]),
    Cut("every value below alpha: the result stays alpha", (0.125, 0.375),
        [-0.25, 0.0, -0.5, 0.0625, -0.125, -0.375, 0.09375]),
    Cut("rising values: alpha rises, the window passed down narrows", (-1, 1),
        [-0.75, -0.5, -0.25, 0.0, 0.125, 0.25, 0.375]),
    Cut("a value above beta is returned as found", (-0.5, 0.0),
        [-0.625, -0.25, 0.25, 0.5, -0.125, 0.0, 0.125]),
]


def cut_run(target, state, player, depth, cut, play=None):
    """alpha_beta(state, player, alpha, beta, depth) with next_states offering the moves
    in the grader's order, get_order_value 0 for all, and value_ab answering the
    scenario's values: the student's plan, or the reference's result."""
    game = Game(800 + depth, [(state, player)], (len(cut.own), len(cut.own)), 0)
    watch = Watch(game, [(state, player)])
    children = game.successors(state, player)
    value_of = {s: -v for s, v in zip(children, cut.own)}
    record = Recorder("value_ab", lambda s, *rest: value_of.get(s, 0), watch)
    orders = Callback(lambda s, p, d: 0)
    args = (list_form(state), player, *cut.window, depth)
    if target is ref:
        with reference_on(watch, value_ab=record, get_order_value=lambda s, p, d: 0) as r:
            return r.alpha_beta(*args), record
    plan = fresh_plan("muehle.alpha_beta")
    play_helpers(plan, play, RULES + ("value_ab", "get_order_value"))
    watch.install(plan)
    plan.patch(M + "value_ab", Callback(record))
    plan.patch(M + "get_order_value", orders)
    return (plan, finish(plan, plan.call(M + "alpha_beta", *args), watch.handout)), record


@functools.cache
def cut_cases():
    chosen = []
    positions = [sp for sp in search_positions(3, 90, 99, ("placing", "moving")) if moves(*sp) >= 7]
    for cut, (state, player) in zip(CUTS, positions * 2):
        depth = 2
        result, record = cut_run(ref, state, player, depth, cut)
        chosen.append(Case(f"alpha_beta(state, {NAMES[player]}, {cut.window[0]}, "
                           f"{cut.window[1]}, {depth}), value_ab played by the grader: "
                           f"{cut.words}", (state, player, depth, cut), draw(state, player),
                           {"result": result, "calls": record.calls}))
    return chosen


def judge_cut(case, outcome, calls):
    want = case.expected["calls"]
    cut = case.args[3]
    alpha, beta = cut.window
    for number, (got_call, want_call) in enumerate(zip(calls, want), 1):
        if got_call[0] != want_call[0]:
            return (f"call {number} of value_ab was on another successor than the "
                    "next_states order gives (get_order_value is 0 for all)")
        if got_call[1:] != want_call[1:]:
            return (f"call {number} of value_ab got (player, alpha, beta, depth) = "
                    f"{got_call[1:]}; the handout passes (opponent, -beta, -alpha, depth - 1) "
                    "with alpha raised to the best value so far")
    if len(calls) > len(want):
        return (f"called value_ab {len(calls)} times: it went on after a value reached "
                f"beta = {beta}")
    if len(calls) < len(want):
        return f"called value_ab only {len(calls)} times: it stopped before a value reached beta"
    if not same_numbers(outcome.value, case.expected["result"]):
        if case.expected["result"] == alpha:
            return (f"returned {short(outcome.value)} although no value reached alpha = "
                    f"{alpha}: the result starts at alpha")
        return f"returned {short(outcome.value)}"
    return None


def test_alpha_beta_prunes(student, blame, ab_runs):
    """alpha_beta cuts off at beta, passes (-beta, -alpha) down, and explores fewer nodes than minimax"""
    blame.on_its_own(student, "alpha_beta", "on a position",
               lambda play: check_pruning(student, ab_runs, play))


def check_pruning(student, ab_runs, play):
    chosen = cut_cases()
    jobs = [cut_run(None, *case.args, play=play) for case in chosen]
    outcomes = run(student, [job for job, _ in jobs])
    calls = {id(o): record.calls for o, (_, record) in zip(outcomes, jobs)}
    check_all("alpha_beta does not cut off as the handout says", chosen, outcomes,
              lambda c, o: judge_cut(c, o, calls[id(o)]),
              hint="value starts at alpha; for each successor value = max(value, "
                   "-value_ab(s, opponent, -beta, -alpha, depth - 1)); return as soon as "
                   "value >= beta; alpha = max(alpha, value)")
    cases, outcomes, nodes = ab_runs(play)
    for case, outcome in zip(cases, outcomes):
        require(outcome)
        if not outcome.answered or not same_numbers(outcome.value, case.expected["value"]):
            raise CheckFailed("alpha-beta's node count proves nothing while its values are "
                              "wrong", call=case.call, position=case.position,
                              got=describe(outcome),
                              hint="see the check 'alpha-beta returns minimax's value'")
    explored = sum(nodes)
    minimax = sum(c.expected["minimax_nodes"] for c in cases)
    if not explored < 0.8 * minimax:
        raise CheckFailed("alpha-beta does not prune", call=f"{len(cases)} searches with "
                          "value_ab(state, player, -1, 1, depth) on the grader's games",
                          got=f"alpha-beta explored {explored} nodes, memoised minimax "
                              f"{minimax} (nodes: next_states and heuristic calls)",
                          hint="stop trying moves as soon as the value reaches beta, and "
                               "pass the narrowed window (-beta, -alpha) down")


@functools.cache
def window_cases():
    chosen = []
    for i, (state, player) in enumerate(search_positions(2, 50, 99)):
        game = Game(900 + i, [(state, player)], (3, 6), FINISH)
        v = minimax_expected(game, [(state, player, 2)])[0][0]
        for alpha, beta, rule in ((v + STEP, 1, "<="), (-1, v - STEP, ">="),
                                  (v - STEP, v + STEP, "==")):
            if -1 <= alpha < beta <= 1:
                chosen.append(Case(game_words(f"value_ab(state, {NAMES[player]}, {alpha}, "
                                              f"{beta}, 2)"),
                                   (game, state, player, 2, (alpha, beta)), draw(state, player),
                                   (rule, alpha, beta, v)))
    return chosen


def test_alpha_beta_window_contract(student, blame):
    """alpha-beta with a narrow window keeps the contract: exact inside, a bound outside"""
    blame.on_its_own(student, "alpha_beta", "on a position",
               lambda play: check_window_contract(student, play))


def check_window_contract(student, play):
    chosen = window_cases()
    jobs = [ab_plan(*case.args, play=play) for case in chosen]
    outcomes = run(student, [(plan, done) for plan, done, _ in jobs])

    def judge(case, outcome):
        rule, alpha, beta, v = case.expected
        got = outcome.value
        if type(got) not in (int, float):
            return f"returned {short(got)}"
        if rule == "<=" and not got <= alpha:
            return f"returned {got}: above alpha although the value is below the window"
        if rule == ">=" and not got >= beta:
            return f"returned {got}: below beta although the value is above the window"
        if rule == "==" and got != v:
            return f"returned {got}: the value lies inside the window, so it must be exact"
        return None
    check_all("alpha-beta broke the window contract", chosen, outcomes, judge,
              hint="v < alpha: result <= alpha; v > beta: result >= beta; otherwise exact")


# ------------------------------------------------------------------ move ordering
def test_get_order_value(student, blame):
    """get_order_value reads the cached value of the previous depth (0 when there is none)"""
    blame.on_its_own(student, "get_order_value", "for a position",
               lambda play: check_order_value(student, play))


def check_order_value(student, play):
    (s1, p1), (s2, p2) = search_positions(2, 60, 99, ("placing",))
    o1 = ref.opponent(p1)
    planted = {(s1, p1, 2): (5 * STEP, -1, 1), (s1, p1, 3): (-9 * STEP, -1, 1),
               (s1, o1, 2): (11 * STEP, -1, 1), (s2, p2, 3): (7 * STEP, -1, 1)}
    queries = [(s1, p1, 3), (s1, o1, 3), (s2, p2, 3), (s1, p1, 4)]
    with reference_with() as r:
        r.AB_CACHE.update(planted)
        want = [r.get_order_value(list_form(s), p, d) for s, p, d in queries]
    plan = fresh_plan("muehle.get_order_value")
    play_helpers(plan, play)
    for key, entry in planted.items():
        plan.setitem(M + "AB_CACHE", key, entry)
    values = [plan.call(M + "get_order_value", list_form(s), p, d) for s, p, d in queries]
    [outcome] = run(student, [(plan, finish(plan, values))])
    require(outcome)
    if not outcome.answered or not same_numbers(outcome.value, want):
        raise CheckFailed("get_order_value read the wrong entry",
                          call="get_order_value(s, p, d) for four keys, AB_CACHE holding "
                               "entries for neighbouring depths and both players",
                          position=draw(s1, p1), got=describe(outcome), expected=want,
                          hint="the key is (to_tuple(state), player, depth - 1); "
                               "0 when AB_CACHE has no such entry")


def order_run(target, state, player, depth, salt, play=None):
    """alpha_beta(state, player, -1, 1, depth) where next_states offers every move in the
    grader's order, AB_CACHE (and get_order_value, played by the grader) hold the
    previous iteration's values with decoys for other depths and players, and value_ab
    answers 1 for every move (each looks lost, so nothing is cut off)."""
    game = Game(salt, [(state, player)], None, 0)
    watch = Watch(game, [(state, player)])
    opp = ref.opponent(player)
    rng = random.Random(salt)
    order = game.successors(state, player)
    values = rng.sample(range(1, 60), len(order))
    planted = {}
    for index, (s, v) in enumerate(zip(order, values)):
        if index % 5 == 4:
            continue                      # no entry: its order value is 0
        v = v * STEP * (1 if index % 2 else -1)
        planted[(s, opp, depth - 2)] = (v, -1, 1)       # the previous iteration
        planted[(s, opp, depth - 1)] = (-v, -1, 1)      # decoys: wrong depth, wrong player
        planted[(s, player, depth - 2)] = (-v, -1, 1)

    def order_value(s, p, d):
        s = as_state(s)
        entry = planted.get((s, p, d - 1))
        return 0 if entry is None else entry[0]
    record = Recorder("value_ab", lambda *args: 1, watch)
    args = (list_form(state), player, -1, 1, depth)
    if target is ref:
        with reference_on(watch, value_ab=record, get_order_value=order_value) as r:
            r.AB_CACHE.update(planted)
            r.alpha_beta(*args)
            return [c[0] for c in record.calls]
    plan = fresh_plan("muehle.alpha_beta")
    play_helpers(plan, play, RULES + ("value_ab", "get_order_value"))
    for key, entry in planted.items():
        plan.setitem(M + "AB_CACHE", key, entry)
    watch.install(plan)
    plan.patch(M + "value_ab", Callback(record))
    plan.patch(M + "get_order_value", Callback(order_value))
    return (plan, finish(plan, plan.call(M + "alpha_beta", *args), watch.handout)), record


@functools.cache
def order_cases():
    chosen = []
    pairs = search_positions(2, 70, 20, ("moving", "placing"))
    for i, (depth, (state, player)) in enumerate(zip((2, 3, 2, 3), pairs)):
        chosen.append(Case(f"alpha_beta(state, {NAMES[player]}, -1, 1, {depth}) with AB_CACHE "
                           "holding the previous iteration's values; next_states, "
                           "get_order_value and value_ab played by the grader",
                           (state, player, depth, 1000 + i), draw(state, player),
                           order_run(ref, state, player, depth, 1000 + i)))
    return chosen


def test_alpha_beta_orders_moves(student, blame):
    """alpha_beta tries the moves in the order of the previous iteration's values"""
    blame.on_its_own(student, "alpha_beta", "on a position",
               lambda play: check_move_order(student, play))


def check_move_order(student, play):
    chosen = order_cases()
    jobs = [order_run(None, *case.args, play=play) for case in chosen]
    outcomes = run(student, [job for job, _ in jobs])
    tried = {id(o): [c[0] for c in record.calls] for o, (_, record) in zip(outcomes, jobs)}

    def judge(case, outcome):
        got = tried[id(outcome)]
        if got == case.expected:
            return None
        if sorted(got) != sorted(case.expected):
            return (f"tried {len(got)} moves, not each of the {len(case.expected)} "
                    "successors once")
        return "tried the successors in another order"
    check_all("alpha_beta did not order the moves by the previous iteration", chosen,
              outcomes, judge,
              hint="sort the successors by get_order_value(s, opponent(player), depth - 1), "
                   "smallest first (a value for the opponent: small is good for you), with a "
                   "stable sort of the next_states order")


# ------------------------------------------------------------------ iterative deepening
@functools.cache
def deepening_game(state, player, depth, salt):
    """The root's successors (some moves, the grader's order) and the value value_ab
    gives each of them at each depth: a few values, so ties occur, and some wins and
    losses."""
    game = Game(salt, [(state, player)], (4, 9), 0)
    rng = random.Random(salt)
    table = {}
    for s in game.successors(state, player):
        for d in range(depth):
            table[(s, d)] = rng.choice([-1, 1] if rng.random() < 0.1 else
                                       [k * STEP for k in range(-6, 7, 2)])
    return game, table


def deepening_run(target, state, player, depth, salt, play=None):
    """best_move_ab(state, player, depth) with next_states offering some moves in the
    grader's order and value_ab played by the grader: a value of its choice for each
    successor and depth (ties included)."""
    game, table = deepening_game(state, player, depth, salt)
    watch = Watch(game, [(state, player)])
    record = Recorder("value_ab", lambda s, p, a, b, d: table.get((s, d), 0), watch)
    if target is ref:
        with reference_on(watch, value_ab=record) as r:
            r.best_move_ab(list_form(state), player, depth)
            return record.calls
    plan = fresh_plan("muehle.best_move_ab")
    play_helpers(plan, play, RULES + ("value_ab",))
    watch.install(plan)
    plan.patch(M + "value_ab", Callback(record))
    job = (plan, finish(plan, plan.call(M + "best_move_ab", list_form(state), player, depth),
                        watch.handout))
    return job, record


@functools.cache
def deepening_cases():
    chosen = []
    for depth, count in ((2, 1), (3, 1), (4, 1)):
        for i, (state, player) in enumerate(search_positions(count, 80 + depth, 99)):
            salt = 1100 + 10 * depth + i
            game, table = deepening_game(state, player, depth, salt)
            chosen.append(Case(f"best_move_ab(state, {NAMES[player]}, {depth}) with "
                               "next_states and value_ab played by the grader",
                               (state, player, depth, salt), draw(state, player),
                               {"calls": deepening_run(ref, state, player, depth, salt),
                                "children": game.successors(state, player),
                                "answers": table}))
    return chosen


@pytest.fixture(scope="session")
def deepening_runs(student):
    """The verdicts of the two deepening checks, judged here from the grader's record
    of the value_ab calls (which is then dropped) and the answers cut to verdict
    size: {id(kept outcome): (reason for test_best_move_ab, for ..._deepens)}, once per
    way of playing the helpers (`runs(play)`)."""
    made = {}

    def runs(play):
        key = tuple(sorted(play or ()))
        if key not in made:
            chosen = deepening_cases()
            jobs = [deepening_run(None, *case.args, play=play) for case in chosen]
            outcomes = run(student, [job for job, _ in jobs])
            reasons, small = {}, []
            for case, outcome, (_, record) in zip(chosen, outcomes, jobs):
                small.append(kept(outcome, 64))
                reasons[id(small[-1])] = ((judge_best_ab(case, outcome, record.calls),
                                           judge_deepening(case, outcome, record.calls))
                                          if outcome.answered else (None, None))
            made[key] = chosen, small, reasons
        return made[key]
    return runs


def iterations(calls):
    """The calls grouped by depth: [(depth, [(successor, own value), ...]), ...]."""
    groups = []
    for s, p, alpha, beta, d in calls:
        if not groups or groups[-1][0] != d:
            groups.append((d, []))
        groups[-1][1].append((s, p, alpha, beta))
    return groups


def judge_best_ab(case, outcome, calls):
    state, player, depth, _ = case.args
    children, answers = case.expected["children"], case.expected["answers"]
    groups = iterations(calls)
    if not groups or groups[-1][0] != depth - 1:
        return (f"the last value_ab calls were at depth {groups[-1][0] if groups else None}: "
                f"the last iteration values every successor at depth {depth - 1}")
    for d, entries in groups:
        if sorted(s for s, *_ in entries) != sorted(children):
            return f"the iteration at depth {d} did not value each successor once"
        alpha = -1
        for number, (s, p, a, b) in enumerate(entries, 1):
            if p != ref.opponent(player):
                return "called value_ab for the wrong player"
            if (a, b) != (-1, -alpha):
                return (f"in the iteration at depth {d}, call {number} passed the window "
                        f"({a}, {b}) to value_ab; the best value so far was {alpha}, so the "
                        f"handout passes (-1, -alpha) = (-1, {-alpha})")
            alpha = max(alpha, -answers[(s, d)])
    last = {s: -answers[(s, depth - 1)] for s, *_ in groups[-1][1]}
    best = max(last.values())
    got = outcome.value
    if type(got) not in (list, tuple) or len(got) != 2:
        return f"returned {short(got)}, not a pair (value, successor)"
    if not same_numbers(got[0], best):
        return f"returned the value {short(got[0])}, not the best of the last iteration"
    if last.get(as_state(got[1])) != best:
        return "the move it returned is not a best one of the last iteration"
    return None


def test_best_move_ab(student, blame, deepening_runs):
    """best_move_ab returns a best move, valuing each successor with the window (-1, -alpha)"""
    blame.on_its_own(student, "best_move_ab", "on a position",
               lambda play: check_best_move_ab(deepening_runs(play)))


def check_best_move_ab(runs):
    chosen, outcomes, reasons = runs
    check_all("best_move_ab did not search as the handout says", chosen, outcomes,
              lambda c, o: reasons[id(o)][0],
              hint="alpha = -1 at the start of each iteration; value each successor as "
                   "-value_ab(s, opponent(player), -1, -alpha, d) and raise alpha; the result "
                   "is the best entry of the last iteration (d = depth - 1)")


def judge_deepening(case, outcome, calls):
    state, player, depth, _ = case.args
    children, answers = case.expected["children"], case.expected["answers"]
    groups = iterations(calls)
    depths = [d for d, _ in groups]
    if depths not in (list(range(depth)), list(range(1, depth))) or len(depths) < min(2, depth):
        return (f"valued the successors at the depths {depths}: iterative deepening "
                f"searches each depth from 0 up to {depth - 1} in turn")
    for d, entries in groups:
        if sorted(s for s, *_ in entries) != sorted(children):
            return f"the iteration at depth {d} did not value each successor once"
    if [s for s, *_ in groups[0][1]] != children:
        return "the first iteration did not try the moves in the order next_states gave"
    for (d, before), (_, after) in zip(groups, groups[1:]):
        expect = sorted([s for s, *_ in before], key=lambda s: -answers[(s, d)], reverse=True)
        if [s for s, *_ in after] != expect:
            return (f"the iteration at depth {d + 1} did not try the moves best first by the "
                    f"values of depth {d} (a stable sort)")
    return None


def test_best_move_ab_deepens(student, blame, deepening_runs):
    """best_move_ab deepens iteratively and orders the moves by the previous iteration"""
    blame.on_its_own(student, "best_move_ab", "on a position",
               lambda play: check_deepening(deepening_runs(play)))


def check_deepening(runs):
    chosen, outcomes, reasons = runs
    check_all("best_move_ab does not deepen iteratively", chosen, outcomes,
              lambda c, o: reasons[id(o)][1],
              hint="for d in range(depth): value every successor with value_ab at depth d, "
                   "then sort the list best first (a stable sort) for the next iteration")


# ------------------------------------------------------------------ playing strength
def _random_player(state, player, rng):
    return rng.choice(movegen.next_states(state, player))


def _greedy_player(state, player, rng):
    options = movegen.next_states(state, player)
    opp = ref.opponent(player)
    scores = [-ref.heuristic(s, opp) for s in options]
    best = max(scores)
    return rng.choice([s for s, v in zip(options, scores) if v == best])


def test_strength(student, blame):
    """your whole program: best_move_ab (depth 2) with your own helpers beats a random and a greedy player, with either colour"""
    # The one check that runs the student's own helpers whatever they did elsewhere
    # (rubric [blame] whole_program): its failure names their earlier failures.
    with blame.judging("best_move_ab", "in a game"):
        play_games(student)


def play_games(student):
    wins, log = 0, []
    for name, opponent_move in (("random", _random_player), ("greedy", _greedy_player)):
        for colour in (W, B):
            rng = random.Random(f"{name}-{colour}")
            state, player = ref.initial_state(), W
            for ply in range(160):
                if ref.finished(state, player):
                    break
                if player == colour:
                    plan = fresh_plan("muehle.best_move_ab")
                    move = plan.call(M + "best_move_ab", list_form(state), player, 2)
                    [outcome] = run(student, [(plan, finish(plan, move))])
                    require(outcome)
                    got = outcome.value if outcome.answered else None
                    after = as_state(got[1]) if type(got) in (list, tuple) and len(got) == 2 \
                        else None
                    if after not in successors(state, player):
                        raise CheckFailed(
                            "your player made an illegal move in a game",
                            position=draw(state, player),
                            call=f"best_move_ab(state, {NAMES[player]}, 2), move {ply + 1} of a "
                                 f"game against the {name} player",
                            got=describe(outcome) if not outcome.answered else
                            f"a state no legal move leads to: {short(got)}")
                    state = after
                else:
                    state = opponent_move(state, player, rng)
                player = ref.opponent(player)
            result = ref.utility(state, player) * (1 if player == colour else -1) \
                if ref.finished(state, player) else 0
            wins += result == 1
            log.append(f"{NAMES[colour]} against {name}: "
                       + {1: "won", 0: "no result", -1: "lost"}[result] + f" after {ply} moves")
            if result == -1:
                raise CheckFailed("your player lost a game", got="; ".join(log),
                                  position=draw(state, player),
                                  hint="best_move_ab must pick the successor with the best value")
    if wins < 3:
        raise CheckFailed("your player won too few games", got="; ".join(log),
                          hint="at depth 2 a correct player wins nearly every game here")

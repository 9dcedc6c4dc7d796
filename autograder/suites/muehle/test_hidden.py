"""Hidden suite for muehle (Nine Men's Morris): the rules, memoised minimax, alpha-beta.

The rules are called with plain data on positions built for every edge of every rule
(positions.py); the searches run in call plans on games only the grader knows (games.py),
judged from the grader's own record, each case chosen so that the common mistakes change
it. Each function is judged on its own, its collaborators played by the grader
(docs/SUITES.md, "Blame"); only test_strength judges the whole program.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import itertools
import random

from autograder.checking import (Callback, Case, CheckFailed, Later, Plan, changed_input,
                                 check_all, check_probes, compare, describe, exact, kept, now,
                                 number, require, returned, short, wrong_number)
from autograder.checking.cases import drawn as drawn_picture
from autograder.checking.search import picture, result_of
from autograder.i18n import N_, grader_text as _

from . import movegen
from .games import (B, M, RULES, STEP, W, Function, Game, Search, Watch, ab_search, as_state,
                    best_minimax_search, best_minimax_setup, board_picture, calls_picture,
                    cut_search, deepening_game, deepening_search, finish, fresh_plan, list_form,
                    minimax_search, order_search, play_helpers, ref,
                    run, value_ab_search)
from .positions import (NAMES, _smallest_first, draw, drawn, everything, pool, search_positions,
                        successors)
from .referee import changes

FINISH = 0.06       # the share of positions a game declares finished although they are not
GAME_HINT = N_("while this check runs, next_states, finished, utility and heuristic are the "
               "grader's: they offer only some of the moves and give values of their own, so "
               "call them by the module's names (not through a copy made at import)")


# ------------------------------------------------------------------ plans
def searches(student, play, chosen, search, summary, judge, hint, pick=None, picture_of=None):
    """Run `search(case)` (a fresh Search) for every case and judge `judge(case, answer,
    search)`; the got line shows `pick(case, answer)`, the student's own answer, not the
    plan's record around it; `picture_of(case, outcome, search)` draws the failing case."""
    made = [search(case) for case in chosen]
    outcomes = run(student, [s.job(play) for s in made])
    of = {id(o): s for o, s in zip(outcomes, made)}
    check_all(summary, chosen, outcomes, lambda c, o: judge(c, o.value, of[id(o)]), hint,
              got=pick and (lambda c, o: describe(dataclasses.replace(
                  o, value=pick(c, o.value)) if o.answered else o)),
              picture=picture_of and (lambda c, o: picture_of(c, o, of[id(o)])))


# ------------------------------------------------------------------ judging rules
def move_words(before, after, player):
    """A move in words, from the change between two boards."""
    left, came, taken = changes(before, after, player)
    # Whole phrases, not pieces: the translations put a removal where their grammar wants it.
    if left and came:
        words = (_("moves {source} -> {target}, removes {taken}") if taken
                 else _("moves {source} -> {target}"))
    elif came:
        words = _("places on {target}, removes {taken}") if taken else _("places on {target}")
    else:
        words = (_("changes the board oddly, removes {taken}") if taken
                 else _("changes the board oddly"))
    return words.format(source=left[0] if left else None, target=came[0] if came else None,
                        taken=taken[0] if taken else None)


def judge_successors(case, outcome):
    state, player = case.args
    got = outcome.value
    if type(got) is not list:
        return _("returned a {kind}, not a list").format(kind=type(got).__name__)
    states = list(map(as_state, got))
    if None in states:
        return _("returned {value}, which is not a state [board, in_hand, quiet]").format(
            value=short(got[states.index(None)]))
    want, mine = successors(state, player), set(states)
    if len(mine) < len(states):
        return _("returned the same successor more than once")
    if mine == want:
        return None
    missing, extra = want - mine, mine - want
    # A right board with wrong counters is one mistake, not a missing and an extra move.
    boards = {w[0] for w in want}
    counters = sorted(s for s in extra if s[0] in boards)
    if counters:
        return _("the move that {move} leads to the right board, but in_hand {in_hand} / "
                 "quiet {quiet} are wrong").format(move=move_words(state, counters[0], player),
                                                   in_hand=counters[0][1], quiet=counters[0][2])
    if missing:
        return _("misses {missing} of the {total} successors, e.g. the move that {move}").format(
            missing=len(missing), total=len(want), move=move_words(state, min(missing), player))
    if extra:
        return _("returned {count} states that no legal move leads to, e.g. one that "
                 "{move}").format(count=len(extra), move=move_words(state, min(extra), player))
    return None


@functools.cache
def position_cases(function, group=None):
    """`function(state, player)` on the pool (next_states on one `group`), smallest first."""
    pairs = (pool()[group] if group else pool()["over"] if function == "utility" else
             everything() if function == "heuristic" else _smallest_first(everything()))
    expect = (lambda s, p: Later.words(N_("{count} successors"), count=len(successors(s, p)))
              ) if group else getattr(ref, function)
    cases = [Case(f"{function}(state, player)", (s, p), drawn(s, p), expect(s, p))
             for s, p in pairs]
    if function in ("finished", "utility", "heuristic"):
        # "`state` may be in tuple or list form": every fourth position again in list form
        cases += [Case(f"{function}(state, player)", (list_form(s), p),
                       Later(_in_list_form, s, p), expect(s, p)) for s, p in pairs[::4]]
    return cases


def _in_list_form(state, player) -> str:
    return draw(state, player) + "\n" + _("(the state given in list form)")


# ------------------------------------------------------------------ the game
def check_form(student, blame, function, hint):
    """`function` (to_tuple or to_list) on states of both forms; returns the list-form cases."""
    states = [s for s, _player in _smallest_first(random.Random(3).sample(everything(), 40))]
    lists = [list_form(s) for s in states]
    want = states if function == "to_tuple" else lists
    chosen = [Case(f"{function}(state)", (g,), draw(s, W), w)
              for given in (states, lists) for g, s, w in zip(given, states, want)]

    def judge(case, outcome):
        return exact(case, outcome) or (returned(outcome.value) if any(
            type(a) is not type(b) for a, b in zip(outcome.value, case.expected)) else None)
    compare(student, blame, function, chosen, judge,
            _("{function} returned the state in the wrong form").format(function=function),
            hint=hint, scope=_("for a state"))
    return chosen[len(states):]


def fresh_lists_plan(state) -> Plan:
    """"Changing the result never changes `state`", judged from to_list's own answers: the
    board and hand it returned are changed, and it is asked again about the same state."""
    plan = Plan(M + "to_list")
    given = plan.value(state)
    first = plan.call(M + "to_list", given)
    for part, value in ((0, 3), (1, 7)):
        inner = plan.call(first.attr("__getitem__"), part, catch=True)
        plan.call(inner.attr("__setitem__"), 0, value, catch=True)
    return plan.returns(plan.call(M + "to_list", given))


def test_to_tuple(student, blame):
    """to_tuple turns a state of either form into the tuple form"""
    check_form(student, blame, "to_tuple", _("tuple form: (tuple of 24 ints, tuple of 2 ints, "
                                             "int), also for the board and hand inside"))


def test_to_list(student, blame):
    """to_list turns a state of either form into the list form"""
    lists = check_form(student, blame, "to_list", _(
        "list form: [list of 24 ints, list of 2 ints, int], new lists also for the board and "
        "hand inside"))
    again = [Case(Later.words(N_("to_list(state), its board and hand changed, then to_list(state) "
                                 "again")), case.args, case.position, case.expected)
             for case in lists[::4]]
    with blame.judging("to_list", _("for a state")):
        check_all(_("to_list returned the state's own lists"), again,
                  student.run([fresh_lists_plan(case.args[0]) for case in again]),
                  lambda c, o: exact(c, o) and (describe(o), _(
                      "changing the board and hand it returned changed the state it was "
                      "given")), hint=_("build new lists: list(board), list(in_hand)"))


def test_opponent(student, blame):
    """opponent returns BLACK for WHITE and WHITE for BLACK"""
    chosen = [Case("opponent(WHITE)", (W,), None, B), Case("opponent(BLACK)", (B,), None, W)]
    compare(student, blame, "opponent", chosen, exact, _("opponent returned the wrong player"),
            hint=_("the players are WHITE = 1 and BLACK = 2 (not +1 and -1)"),
            scope=_("for a player"))


def test_next_states_placing(student, blame):
    """next_states places a stone from the hand on every empty point (placing phase)"""
    compare(student, blame, "next_states", position_cases("next_states", "placing"),
            judge_successors, _("next_states is wrong while stones are placed"),
            hint=_("a player with stones in hand places one on any empty point; the hand "
                   "shrinks by one and the quiet counter becomes 0"))


def test_next_states_moving(student, blame):
    """next_states slides a stone to an adjacent empty point (moving phase)"""
    compare(student, blame, "next_states", position_cases("next_states", "moving"),
            judge_successors, _("next_states is wrong in the moving phase"),
            hint=_("with no stones in hand a stone moves along a line to an adjacent empty "
                   "point (ADJACENT); the quiet counter grows by one unless a stone is removed"))


def test_next_states_flying(student, blame):
    """next_states lets a player with exactly three stones fly to any empty point"""
    compare(student, blame, "next_states", position_cases("next_states", "flying"),
            judge_successors, _("next_states is wrong for a player with three stones"),
            hint=_("with exactly 3 stones on the board and none in hand, a stone may "
                   "jump to any empty point"))


def test_next_states_removal(student, blame):
    """after a mill, next_states removes a stone outside the opponent's mills (or any, if all are in mills)"""
    compare(student, blame, "next_states", position_cases("next_states", "removal"),
            judge_successors, _("next_states removes the wrong stones after a mill"),
            hint=_("a stone that stands in a mill may only be removed when every "
                   "opponent stone stands in a mill; one successor per removable stone; "
                   "a removal sets the quiet counter to 0"))


def test_next_states_game_over(student, blame):
    """next_states returns no successors when the game is over"""
    compare(student, blame, "next_states", position_cases("next_states", "over"),
            judge_successors, _("next_states returned moves in a finished game"),
            hint=_("below 3 stones, no legal move, or the quiet counter at DRAW_PLIES: the "
                   "game is over and there are no successors"))


def test_next_states_keeps_its_input(student, blame):
    """next_states accepts the list form, leaves its input unchanged and returns list-form states"""
    sample = _smallest_first(random.Random(11).sample(everything(), 150))
    chosen = [Case("next_states(state, player)", (list_form(s), p), draw(s, p))
              for s, p in sample]

    def judge(case, outcome):
        # Judged from next_states' own second answer on the same state object (a changed
        # state has other successors), never from the state the child reports (quoted only).
        changed = changed_input(outcome, _("state and player"), _("the state it was given"),
                                case.args[0], lambda a, b: _as_states(a) == _as_states(b))
        if changed:
            return changed
        got = outcome.value
        if type(got) is not list or any(type(s) is not list or len(s) != 3
                                         or type(s[0]) is not list or type(s[1]) is not list
                                         for s in got):
            return _("returned {value}: the successors must be lists [board, in_hand, "
                     "quiet]").format(value=short(got))
        return None
    summary = _("next_states changed its input or returned the wrong form")
    hint = _("build new lists for each successor (to_list gives fresh ones)")
    blame.on_its_own(student, "next_states", _("on a position"), lambda play: check_all(
        summary, chosen, student.map(M + "next_states", [c.args for c in chosen],
                                     return_args=True, again=True, play=play), judge, hint))
    with blame.judging("next_states", _("on a position")):
        check_probes(student, summary, M + "next_states", M + "next_states", chosen[::5],
                     _probes, "state", hint=hint)


def _as_states(value):
    """Successors as compared (the order of next_states' list is free): sorted tuple forms."""
    if type(value) is not list:
        return value
    states = [as_state(s) for s in value]
    return sorted(states) if None not in states else value


def _probes(state, rest):
    """Questions about a list-form state after next_states(state, player) whose answers
    depend on no order the handout leaves free: its tuple form, heuristic, finished."""
    (player,) = rest
    opp = ref.opponent(player)
    return [("to_tuple(state)", M + "to_tuple", ()),
            (f"heuristic(state, {NAMES[player]})", M + "heuristic", (player,)),
            (f"finished(state, {NAMES[opp]})", M + "finished", (opp,))]


def test_finished(student, blame):
    """finished agrees with the reference on every position (game-over ones included)"""
    compare(student, blame, "finished", position_cases("finished"), exact, _("finished was wrong"),
            hint=_("over below 3 stones (board and hand), without a legal move (a stone in "
                   "hand can always be placed), or when the quiet counter reaches DRAW_PLIES; "
                   "return True or False"))


def test_utility(student, blame):
    """utility scores every finished position: 1, -1 or 0 for the player to move"""
    compare(student, blame, "utility", position_cases("utility"), number,
            _("utility returned the wrong score"),
            hint=_("check in order: player below 3 stones, opponent below 3 stones, "
                   "player without a move, draw"))


def test_heuristic(student, blame):
    """heuristic computes the handout's formula exactly on every position"""
    compare(student, blame, "heuristic", position_cases("heuristic"), number,
            _("heuristic returned the wrong value"),
            hint=_("(8 * (S_me - S_you) + (T_me - T_you)) / 128; stones in hand count "
                   "in S, T counts lines with two own stones and one empty point"))


# ------------------------------------------------------------------ memoize
def test_memoize(student, blame):
    """memoize calls the function once per distinct arguments and keeps the results in .cache"""
    asks = [(1, 2, 3), (1, 2, 3), (1, 2, 4), (2, 1, 3), (1, 2, 3), (1, 2, 4), (2, 1, 3)]
    f = Function(4711, asks)
    plan = Plan("muehle.memoize")
    g = plan.call(M + "memoize", Callback(f))
    h = plan.call(M + "memoize", Callback(f))
    results = [plan.call(g, *args) for args in asks]
    cache = plan.get(g.attr("cache"), default=None)
    again = plan.call(h, 1, 2, 3)
    [outcome] = run(student, [finish(plan, {"results": results, "cache": cache,
                                            "again": again})])
    steps = ["g = memoize(f)", "h = memoize(f)", *(f"g{args}" for args in asks), "g.cache"]
    call = _("{calls}   (f is the grader's)").format(calls="; ".join(steps + ["h(1, 2, 3)"]))
    got, first = outcome.value, [(1, 2, 3), (1, 2, 4), (2, 1, 3)]
    with blame.judging("memoize", _("as a decorator")):
        require(outcome)
        if not outcome.answered:
            problem = describe(outcome)
        elif got["results"] != [f.results[a] for a in asks]:
            problem = _("g returned {results}, not what f returned for those arguments").format(
                results=short(got["results"]))
        elif f.calls[:3] != first or len(f.calls) < 3 or f.calls[3:] not in ([], [(1, 2, 3)]):
            problem = _("f was called with {calls}: once for each distinct arguments").format(
                calls=short(f.calls))
        elif got["cache"] != {a: f.results[a] for a in first}:
            problem = _("g.cache holds {cache}: key = the tuple of all arguments").format(
                cache=short(got["cache"]))
        elif f.calls[3:] != [(1, 2, 3)] or got["again"] != f.results[(1, 2, 3)]:
            problem = _("two memoised functions share one cache")
        else:
            return
        raise CheckFailed(_("memoize does not cache as specified"), call=call, got=problem,
                          hint=_("the key is args, the whole tuple of arguments (state, player "
                                 "and depth for value_minimax); each memoised function has its "
                                 "own cache"))


# ------------------------------------------------------------------ memoised minimax
def game_words(call):
    return _("{call} on the grader's game (its next_states offers some of the legal moves, its "
             "heuristic has values of its own, some positions are finished)").format(call=call)


def same_call_again(call) -> str:
    return _("{call}, then the same call again").format(call=game_words(call))


def in_turn(pairs: str) -> str:
    return game_words(_("value_minimax(state, p, d) for (p, d) = {pairs} in turn, caches "
                        "kept,").format(pairs=pairs))


@functools.cache
def minimax_cases():
    chosen = []
    for depth, count, widths in ((1, 10, (3, 8)), (2, 6, (2, 5))):
        for i, (state, player) in enumerate(search_positions(count, depth, 99)):
            game = Game(100 * depth + i, [(state, player)], widths, FINISH)
            call = f"value_minimax(state, {NAMES[player]}, {depth})"
            chosen.append(Case(Later(game_words, call),
                               (game, [(state, player, depth)]), drawn(state, player)))
    for i, (state, player) in enumerate(random.Random(4).sample(pool()["over"], 6)):
        chosen.append(Case(Later.words(N_("{call} on a finished position"),
                                       call=f"value_minimax(state, {NAMES[player]}, 2)"),
                           (Game(300 + i, [(state, player)]), [(state, player, 2)]),
                           drawn(state, player)))
    for case in chosen:
        case.expected = minimax_search(*case.args).expected()
    return chosen


def check_minimax_values(student, blame, chosen, summary, hint):
    # One call's answer is shown as the value it returned, not in the plan's list of answers.
    def one(case, value):
        return value[0] if len(case.args[1]) == 1 else value
    blame.on_its_own(student, "value_minimax", _("on a position"), lambda play: searches(
        student, play, chosen, lambda c: minimax_search(*c.args), summary,
        lambda c, got, _search: wrong_number(one(c, got), one(c, c.expected)), hint, one,
        minimax_picture))


def minimax_picture(case, outcome, search):
    """The student's memoised minimax against the reference's on an equal game."""
    game, queries = case.args
    rule = minimax_search(game, queries)
    values, one = rule.expected(), len(queries) == 1
    return board_picture(search.watch, rule.watch.log, [(s, p) for s, p, _d in queries],
                         rule_result=values[0] if one else values,
                         student_result=result_of(outcome, lambda v: v[0] if one else v))


def test_value_minimax(student, blame):
    """value_minimax returns the negamax value at depths 1 and 2 (and the utility of a finished position)"""
    check_minimax_values(student, blame, minimax_cases(),
                         _("value_minimax returned the wrong value"),
                         _("finished: utility; depth 0: heuristic; otherwise the largest "
                           "-value_minimax(successor, opponent, depth - 1); {game}").format(
                             game=_(GAME_HINT)))


@functools.cache
def cache_cases():
    """Depth 3 on games that offer every move (in their own order), so the tree is full
    of transpositions: with a working cache each position is evaluated once."""
    chosen = []
    for i, (state, player) in enumerate(search_positions(2, 5, 8, ("moving",))):
        game = Game(400 + i, [(state, player)], None, 0.05)
        search = minimax_search(game, [(state, player, 3)])
        call = f"value_minimax(state, {NAMES[player]}, 3)"
        value = search.expected()[0]
        chosen.append(Case(Later(same_call_again, call), (game, state, player),
                           drawn(state, player), {"value": value, "heuristic":
                                                  search.watch.handout.count("heuristic")}))
    return chosen


class CalledTwice:
    """value_minimax(state, player, 3), then again in the same plan (so that a memoize the
    grader plays keeps its table too), each call on a watch of its own."""

    def __init__(self, game, state, player):
        self.key = (state, player, 3)
        self.first, self.second = (Watch(game, [(state, player)]) for _ in range(2))

    def job(self, play):
        self.memo_played = any(target.endswith(".memoize") for target in play or ())
        plan = fresh_plan("muehle.value_minimax")
        play_helpers(plan, play, RULES)
        self.first.install(plan)
        value = plan.call(M + "value_minimax", *self.key)
        cached = None
        if not self.memo_played:     # .cache is memoize's (functools.cache has none)
            cache = plan.get(plan.get(M + "value_minimax").attr("cache"), default=None)
            cached = plan.call(cache.attr("__contains__"), self.key, catch=True)
        self.second.install(plan)
        again = plan.call(M + "value_minimax", *self.key)
        return finish(plan, {"value": value, "cached": cached, "again": again},
                      self.first.handout, self.second.handout)


def test_value_minimax_uses_its_cache(student, blame):
    """value_minimax is memoised: every position is evaluated once, and a repeated call costs nothing"""
    def judge(case, got, calls):
        want, first, second = case.expected, calls.first, calls.second
        if wrong_number(got["value"], want["value"]):
            return returned(got["value"])
        if second.handout.log or got["again"] != got["value"]:
            return _("the repeated call searched again ({calls} calls of the rules) instead "
                     "of using the cache").format(calls=len(second.handout.log))
        if not calls.memo_played and got["cached"] is not True:
            return _("value_minimax.cache holds no entry (state, player, depth) for the call")
        if first.handout.count("heuristic") > want["heuristic"]:
            return _("called heuristic {count} times; with a working cache it is called once "
                     "per distinct position ({want} times)").format(
                count=first.handout.count("heuristic"), want=want["heuristic"])
        return None
    blame.on_its_own(student, "value_minimax", _("on a position"), lambda play: searches(
        student, play, cache_cases(), lambda c: CalledTwice(*c.args),
        _("value_minimax does not use its cache"), judge,
        _("decorate value_minimax with @memoize and pass the state in tuple form"),
        lambda c, got: got["value"],
        lambda c, o, calls: cache_picture(c, o, calls.first, calls.second)))


def cache_picture(case, outcome, first, second):
    """Both calls of the student's search against the reference's one search (with its
    cache, the second call makes none: the picture marks the second call's first question)."""
    game, state, player = case.args
    rule = minimax_search(game, [(state, player, 3)])
    rule.expected()
    return board_picture(first, rule.watch.log, [(state, player)], first.log + second.log,
                         calls=min(len(first.log) + 40, 2000),    # a picture's bound
                         rule_result=case.expected["value"],
                         student_result=result_of(outcome, lambda v: v["value"]),
                         caption=_("your search's calls: the first call, then the same call again"))


@functools.cache
def key_cases():
    """Mixed depths and players on the same positions, caches kept: values must not leak."""
    chosen = []
    for i, (state, player) in enumerate(search_positions(3, 6, 25)):
        opp = ref.opponent(player)
        queries = [q for q in [(state, player, 1), (state, player, 2), (state, opp, 1),
                               (state, player, 0), (state, opp, 2)]
                   if not ref.finished(q[0], q[1])]
        game = Game(500 + i, [(state, player), (state, opp)], (2, 5), FINISH)
        pairs = ", ".join(f"({NAMES[p]}, {d})" for _state, p, d in queries)
        chosen.append(Case(Later(in_turn, pairs), (game, queries), drawn(state, player),
                           minimax_search(game, queries).expected()))
    return chosen


def test_value_minimax_cache_key(student, blame):
    """memoised values do not leak between depths or players (the key is state, player and depth)"""
    check_minimax_values(student, blame, key_cases(),
                         _("value_minimax returned a cached value of another depth or player"),
                         _("the cache key must hold the state, the player and the depth"))


# ------------------------------------------------------------------ best_move_minimax
def judge_best(best, value, got):
    if type(got) not in (list, tuple) or len(got) != 2:
        return _("returned {value}, not a pair (value, successor)").format(value=short(got))
    if wrong_number(got[0], value):
        return _("the value {value} is not the one value_minimax gave the position").format(
            value=short(got[0]))
    successor = as_state(got[1])
    if successor is None:
        return _("returned {value} as the move, which is not a state").format(value=short(got[1]))
    if successor not in best:
        return _("the move it returned is not one of the best (by value_minimax's values)")
    return None


@functools.cache
def best_minimax_cases():
    chosen = []
    for depth, count in ((1, 4), (2, 2)):
        for i, (state, player) in enumerate(search_positions(count, 20 + depth, 30)):
            setup = best_minimax_setup(state, player, depth, 600 + 10 * depth + i, (3, 9),
                                       1 + i % 3)
            call = f"best_move_minimax(state, {NAMES[player]}, {depth}, rng)"
            words = Later.words(N_("{call} with next_states, value_minimax and rng played by "
                                   "the grader"), call=call)
            chosen += [Case(words, (setup, state, player, depth, seed), drawn(state, player))
                       for seed in (1, 2, None)]
    return chosen


def test_best_move_minimax(student, blame):
    """best_move_minimax returns the position's value and a move that reaches it"""
    def judge(case, got, _search):
        (_game, table, best), state, player, depth, _seed = case.args
        return judge_best(best, table[(state, player, depth)], got)
    blame.on_its_own(student, "best_move_minimax", _("on a position"), lambda play: searches(
        student, play, best_minimax_cases(), lambda c: best_minimax_search(*c.args),
        _("best_move_minimax did not return a best move"), judge,
        _("value = value_minimax(to_tuple(state), player, depth); keep the successors s with "
          "-value_minimax(to_tuple(s), opponent, depth - 1) == value"),
        picture_of=best_minimax_picture))


def best_minimax_picture(case, outcome, search):
    """The root's successors, each worth what value_minimax (played by the grader) gives it."""
    (game, table, _best), state, player, depth, _seed = case.args
    rule = best_minimax_search(*case.args[:4], None)    # its calls: the same with any rng
    rule.expected()
    return calls_picture(game.successors(state, player), rule.stand_ins["value_minimax"].calls,
                         search.stand_ins["value_minimax"].calls,
                         lambda s: -table[(s, ref.opponent(player), depth - 1)],
                         rule_result=table[(state, player, depth)],
                         student_result=result_of(outcome, lambda v: v[0]),
                         caption=_("value_minimax, played by the grader, on the successors "
                                   "(numbered in next_states' order)"))


def test_best_move_minimax_is_random(student, blame):
    """best_move_minimax chooses with rng.choice among all the equally good moves"""
    # Judged from the grader's rng alone (what it was offered and chose), never from how
    # random the answers look: a generator of the student's own is not the rng.
    start = ref.initial_state()
    setup = best_minimax_setup(start, W, 1, 699, None, 9)
    _game, table, best = setup
    call = _("{call} for 12 generators rng, with value_minimax giving 9 of the 24 placements the "
             "best value").format(call="best_move_minimax(initial_state(), WHITE, 1, rng)")

    def attempt(play):
        made = [best_minimax_search(setup, start, W, 1, seed) for seed in range(12)]
        for seed, (outcome, search) in enumerate(zip(run(student, [s.job(play) for s in made]),
                                                     made)):
            require(outcome)
            problem = describe(outcome) if not outcome.answered else \
                judge_best(best, table[(start, W, 1)], outcome.value)
            def drawing():
                return drawn_picture(lambda c, o: best_minimax_picture(c, o, search),
                                     Case(call, (setup, start, W, 1, seed)), outcome)
            if problem:
                raise CheckFailed(_("best_move_minimax did not return a best move"), call=call,
                                  position=draw(start, W), got=problem, picture=drawing())
            chooser = search.record
            offered = [as_state(s) for s in chooser.last[0]] if chooser.last else None
            if offered is None:
                got = _("rng (the grader's generator) was never asked to choose")
            elif len(offered) != len(best) or set(offered) != best:
                got = _("rng.choice was offered {offered} moves, {good} of them best, of {best} "
                        "best moves").format(offered=len(offered), good=len(set(offered) & best),
                                             best=len(best))
            elif as_state(outcome.value[1]) != as_state(chooser.last[1]):
                got = _("it returned another move than the one rng.choice chose")
            else:
                continue
            raise CheckFailed(_("best_move_minimax does not choose with rng among all the best "
                                "moves"), call=call, position=draw(start, W), got=got,
                              hint=_("collect every best successor (and only those) and pick "
                                     "one with rng.choice; return the move it chose"),
                              picture=drawing())
    blame.on_its_own(student, "best_move_minimax", _("on a position"), attempt)


# ------------------------------------------------------------------ value_ab and its cache
def check_value_ab(student, blame, seed, answer, scenarios, summary, hint):
    state, player = search_positions(1, seed, 20, ("moving",))[0]
    chosen = []
    for words, planted, window in scenarios:
        args = (state, player, {(state, p, d): e for p, d, e in planted(player)}, window, answer)
        search = value_ab_search(*args)
        call = f"value_ab(state, {NAMES[player]}, {window[0]}, {window[1]}, 2)"
        chosen.append(Case(_("{call} with AB_CACHE: {cache}; alpha_beta played by the grader (it "
                             "returns {answer})").format(call=call, cache=words, answer=answer),
                           args, drawn(state, player),
                           (search.expected(), [c[2:4] for c in search.record.calls])))

    def judge(case, got, search):
        want, want_windows = case.expected
        windows = [c[2:4] for c in search.record.calls]
        if windows != want_windows:
            return (_("alpha_beta was called with (alpha, beta) = {windows}").format(
                windows=windows) if windows else _("alpha_beta was not called"))
        if wrong_number(got["result"], want["result"]):
            return returned(got["result"])
        entry = got["entry"]
        if type(entry) not in (list, tuple) or list(entry) != list(want["entry"]):
            return _("AB_CACHE then held {entry} for the key").format(entry=short(entry))
        return None
    blame.on_its_own(student, "value_ab", _("on a position"), lambda play: searches(
        student, play, chosen, lambda c: value_ab_search(*c.args), summary, judge, hint,
        lambda c, got: got["result"], widening_picture))


def widening_picture(case, outcome, search):
    """value_ab at the root, its calls of alpha_beta (played by the grader) below, the
    window of the first at the root (the window value_ab searched with)."""
    rule = value_ab_search(*case.args)
    rule.expected()

    def log(calls):
        return [("n", "root")] + [("e", "alpha_beta")] * len(calls)

    def window(calls):
        return {"root": tuple(calls[0][2:4])} if calls else None
    return picture("root", log(rule.record.calls), log(search.record.calls),
                   children=lambda key: ["alpha_beta"] if key == "root" else [],
                   label=lambda key: "·" if key == "root" else "αβ",
                   worth=lambda key: case.args[4] if key == "alpha_beta" else None,
                   windows=window(rule.record.calls), student_windows=window(search.record.calls),
                   rule_result=case.expected[0]["result"],
                   student_result=result_of(outcome, lambda v: v["result"]),
                   caption=_("value_ab at the root, alpha_beta (played by the grader) below it; "
                             "the window is the one passed to alpha_beta"))


def test_value_ab_reuses_cached_values(student, blame):
    """value_ab stores (value, alpha, beta) under (state, player, depth) and reuses it for a window inside"""
    check_value_ab(student, blame, 30, 37 * STEP, [
        (_("empty"), lambda p: [], (-0.5, 0.5)),
        (_("(1/4, -1, 1) under the key"), lambda p: [(p, 2, (0.25, -1, 1))], (-0.5, 0.5)),
        (_("(1/4, -1/2, 1/2) under the key, the same window"),
         lambda p: [(p, 2, (0.25, -0.5, 0.5))], (-0.5, 0.5)),
        (_("(1/4, -1, 1) for depth 1 and for the opponent only"),
         lambda p: [(p, 1, (0.25, -1, 1)), (ref.opponent(p), 2, (0.25, -1, 1))], (-1, 1)),
    ], _("value_ab does not use AB_CACHE as specified"),
        _("key (to_tuple(state), player, depth); reuse the entry when its window contains the "
          "one asked for; otherwise call alpha_beta(state, player, alpha, beta, depth) and "
          "store (value, alpha, beta)"))


def test_value_ab_respects_the_window(student, blame):
    """value_ab does not reuse a value computed for a narrower window; it widens the window"""
    check_value_ab(student, blame, 31, -21 * STEP, [
        (_("(1/4, -1/4, 1/4), window (-1, 1)"), lambda p: [(p, 2, (0.25, -0.25, 0.25))],
         (-1, 1)),
        (_("(1/4, -1/2, 1/4), window (-1/4, 1/2)"), lambda p: [(p, 2, (0.25, -0.5, 0.25))],
         (-0.25, 0.5)),
        (_("(1/4, 0, 1), window (-1, 1)"), lambda p: [(p, 2, (0.25, 0, 1))], (-1, 1)),
    ], _("value_ab reused a value outside the window it was computed for"),
        _("a value computed with the window (a, b) is only exact inside it: search again with "
          "the window widened to (min(alpha, a), max(beta, b))"))


# ------------------------------------------------------------------ alpha-beta on the grader's game
@functools.cache
def ab_cases():
    chosen = []
    for depth, count, widths in ((2, 4, (3, 8)), (3, 2, (3, 6))):
        for i, (state, player) in enumerate(search_positions(count, 40 + depth, 99)):
            game = Game(700 + 10 * depth + i, [(state, player)], widths, FINISH)
            minimax = minimax_search(game, [(state, player, depth)])
            call = f"value_ab(state, {NAMES[player]}, -1, 1, {depth})"
            chosen.append(Case(Later(game_words, call),
                               (game, state, player, depth), drawn(state, player),
                               {"value": minimax.expected()[0],
                                "minimax_nodes": minimax.watch.nodes}))
    return chosen


def ab_runs(student, play):
    """The full-window searches two checks judge (`shared`): the answers cut to verdict size,
    the nodes counted, pictures of each wrong answer (by index) and ("prune") the least pruned."""
    cases, made = ab_cases(), [ab_search(*case.args) for case in ab_cases()]
    outcomes = run(student, [search.job(play) for search in made])
    nodes = [search.watch.nodes for search in made]
    def drawing(i):
        return drawn_picture(lambda c, o: ab_picture(c, o, made[i]), cases[i], outcomes[i])
    pictures = {i: drawing(i) for i, (case, outcome) in enumerate(zip(cases, outcomes))
                if not outcome.answered or wrong_number(outcome.value, case.expected["value"])}
    if not sum(nodes) < 0.8 * sum(c.expected["minimax_nodes"] for c in cases):
        pictures["prune"] = drawing(max(range(len(cases)), key=lambda i: nodes[i] /
                                        cases[i].expected["minimax_nodes"]))
    return [kept(o, 8) for o in outcomes], nodes, pictures


def ab_picture(case, outcome, search):
    """A value_ab search on the grader's game against the reference's on an equal game."""
    _game, state, player = case.args[:3]
    rule = ab_search(*case.args)
    value = rule.expected()
    return board_picture(search.watch, rule.watch.log, [(state, player)], rule_result=value,
                         student_result=result_of(outcome))


def test_alpha_beta_equals_minimax(student, blame, shared):
    """alpha-beta (value_ab, full window) returns minimax's value at the same depth"""
    def attempt(play):
        outcomes, _nodes, pictures = shared(ab_runs, play)
        check_all(_("value_ab returned a value other than minimax's"), ab_cases(), outcomes,
                  lambda c, o: wrong_number(o.value, c.expected["value"]),
                  hint=_("with the window (-1, 1) alpha-beta must return the exact minimax "
                         "value; {game}").format(game=_(GAME_HINT)),
                  picture=lambda c, o: pictures.get(ab_cases().index(c)))
    blame.on_its_own(student, "alpha_beta", _("on a position"), attempt)


#: A scenario for alpha_beta with value_ab played by the grader: the window and the
#: values (for the player to move) of the successors, in the order tried.
Cut = collections.namedtuple("Cut", "words window own")
CUTS = [
    Cut(N_("a win among the moves: nothing after it is tried"), (-1, 1),
        [-0.25, 0.125, -0.5, 1, 0.0, 0.25, -0.125]),
    Cut(N_("a value equal to beta stops the search (cut on >=)"), (-0.25, 0.25),
        [-0.5, 0.0, 0.125, 0.25, 0.375, -0.125, 0.0]),
    Cut(N_("every value below alpha: the result stays alpha"), (0.125, 0.375),
        [-0.25, 0.0, -0.5, 0.0625, -0.125, -0.375, 0.09375]),
    Cut(N_("rising values: alpha rises, the window passed down narrows"), (-1, 1),
        [-0.75, -0.5, -0.25, 0.0, 0.125, 0.25, 0.375]),
    Cut(N_("a value above beta is returned as found"), (-0.5, 0.0),
        [-0.625, -0.25, 0.25, 0.5, -0.125, 0.0, 0.125]),
]


def cut_scenario(call: str, words: str) -> str:
    return _("{call}, value_ab played by the grader: {scenario}").format(call=call,
                                                                         scenario=_(words))


@functools.cache
def cut_cases():
    chosen = []
    positions = [sp for sp in search_positions(3, 90, 99, ("placing", "moving"))
                 if len(successors(*sp)) >= 7]
    for cut, (state, player) in zip(CUTS, positions * 2):
        search = cut_search(state, player, 2, cut)
        call = f"alpha_beta(state, {NAMES[player]}, {cut.window[0]}, {cut.window[1]}, 2)"
        chosen.append(Case(Later(cut_scenario, call, cut.words),
                           (state, player, 2, cut), drawn(state, player),
                           {"result": search.expected(), "calls": search.record.calls}))
    return chosen


def judge_cut(case, got, search):
    want, calls = case.expected["calls"], search.record.calls
    alpha, beta = case.args[3].window
    for number, (got_call, want_call) in enumerate(zip(calls, want), 1):
        if got_call[0] != want_call[0]:
            return _("call {number} of value_ab was on another successor than the next_states "
                     "order gives (get_order_value is 0 for all)").format(number=number)
        if got_call[1:] != want_call[1:]:
            return _("call {number} of value_ab got (player, alpha, beta, depth) = {arguments}; "
                     "the handout passes (opponent, -beta, -alpha, depth - 1) with alpha raised "
                     "to the best value so far").format(number=number, arguments=got_call[1:])
    if len(calls) > len(want):
        return _("called value_ab {count} times: it went on after a value reached beta = "
                 "{beta}").format(count=len(calls), beta=beta)
    if len(calls) < len(want):
        return _("called value_ab only {count} times: it stopped before a value reached "
                 "beta").format(count=len(calls))
    if wrong_number(got, case.expected["result"]) and case.expected["result"] == alpha:
        return _("returned {value} although no value reached alpha = {alpha}: the result starts "
                 "at alpha").format(value=short(got), alpha=alpha)
    return wrong_number(got, case.expected["result"])


def cut_picture(case, outcome, search):
    """A cut scenario drawn: each successor worth its value for the player to move."""
    state, player, _depth, cut = case.args
    children = search.watch.game.successors(state, player)
    return calls_picture(children, case.expected["calls"], search.record.calls,
                         dict(zip(children, cut.own)).get, rule_result=case.expected["result"],
                         student_result=result_of(outcome))


def test_alpha_beta_prunes(student, blame, shared):
    """alpha_beta cuts off at beta, passes (-beta, -alpha) down, and explores fewer nodes than minimax"""
    def attempt(play):
        searches(student, play, cut_cases(), lambda c: cut_search(*c.args),
                 _("alpha_beta does not cut off as the handout says"), judge_cut,
                 _("value starts at alpha; for each successor value = max(value, "
                   "-value_ab(s, opponent, -beta, -alpha, depth - 1)); return as soon as "
                   "value >= beta; alpha = max(alpha, value)"), picture_of=cut_picture)
        cases, (outcomes, nodes, pictures) = ab_cases(), shared(ab_runs, play)
        for index, (case, outcome) in enumerate(zip(cases, outcomes)):
            require(outcome)
            if not outcome.answered or wrong_number(outcome.value, case.expected["value"]):
                raise CheckFailed(_("alpha-beta's node count proves nothing while its values "
                                    "are wrong"), call=now(case.call), picture=pictures.get(index),
                                  position=now(case.position), got=describe(outcome),
                                  hint=_("see the check 'alpha-beta returns minimax's value'"))
        explored, minimax = sum(nodes), sum(c.expected["minimax_nodes"] for c in cases)
        if not explored < 0.8 * minimax:
            raise CheckFailed(_("alpha-beta does not prune"),
                              call=_("{count} searches with {call} on the grader's games").format(
                                  count=len(cases), call="value_ab(state, player, -1, 1, depth)"),
                              got=_("alpha-beta explored {explored} nodes, memoised minimax "
                                    "{minimax} (nodes: next_states and heuristic calls)").format(
                                  explored=explored, minimax=minimax),
                              hint=_("stop trying moves as soon as the value reaches beta, and "
                                     "pass the narrowed window (-beta, -alpha) down"),
                              picture=pictures.get("prune"))
    blame.on_its_own(student, "alpha_beta", _("on a position"), attempt)


@functools.cache
def window_cases():
    chosen = []
    for i, (state, player) in enumerate(search_positions(2, 50, 99)):
        game = Game(900 + i, [(state, player)], (3, 6), FINISH)
        v = minimax_search(game, [(state, player, 2)]).expected()[0]
        for alpha, beta, rule in ((v + STEP, 1, "<="), (-1, v - STEP, ">="),
                                  (v - STEP, v + STEP, "==")):
            if -1 <= alpha < beta <= 1:
                call = f"value_ab(state, {NAMES[player]}, {alpha}, {beta}, 2)"
                chosen.append(Case(Later(game_words, call),
                                   (game, state, player, 2, (alpha, beta)), drawn(state, player),
                                   (rule, alpha, beta, v)))
    return chosen


def test_alpha_beta_window_contract(student, blame):
    """alpha-beta with a narrow window keeps the contract: exact inside, a bound outside"""
    def judge(case, got, _search):
        rule, alpha, beta, v = case.expected
        if type(got) not in (int, float):
            return returned(got)
        if rule == "<=" and not got <= alpha:
            return _("returned {value}: above alpha although the value is below the "
                     "window").format(value=got)
        if rule == ">=" and not got >= beta:
            return _("returned {value}: below beta although the value is above the "
                     "window").format(value=got)
        if rule == "==" and got != v:
            return _("returned {value}: the value lies inside the window, so it must be "
                     "exact").format(value=got)
        return None
    blame.on_its_own(student, "alpha_beta", _("on a position"), lambda play: searches(
        student, play, window_cases(), lambda c: ab_search(*c.args),
        _("alpha-beta broke the window contract"), judge,
        _("v < alpha: result <= alpha; v > beta: result >= beta; otherwise exact"),
        picture_of=ab_picture))


# ------------------------------------------------------------------ move ordering
def test_get_order_value(student, blame):
    """get_order_value reads the cached value of the previous depth (0 when there is none)"""
    # No picture: it judges one lookup in AB_CACHE per key, not a search.
    (s1, p1), (s2, p2) = search_positions(2, 60, 99, ("placing",))
    planted = {(s1, p1, 2): (5 * STEP, -1, 1), (s1, p1, 3): (-9 * STEP, -1, 1),
               (s1, ref.opponent(p1), 2): (11 * STEP, -1, 1), (s2, p2, 3): (7 * STEP, -1, 1)}
    keys = [(s1, p1, 3), (s1, ref.opponent(p1), 3), (s2, p2, 3), (s1, p1, 4)]
    search = Search("get_order_value", [(list_form(s), p, d) for s, p, d in keys], planted=planted)
    want = search.expected()

    def attempt(play):
        [outcome] = run(student, [search.job(play)])
        require(outcome)
        if not outcome.answered or wrong_number(outcome.value, want):
            raise CheckFailed(_("get_order_value read the wrong entry"),
                              call=_("{call} for four keys, AB_CACHE holding entries for "
                                     "neighbouring depths and both players").format(
                                  call="get_order_value(s, p, d)"),
                              position=draw(s1, p1), got=describe(outcome), expected=want,
                              hint=_("the key is (to_tuple(state), player, depth - 1); "
                                     "0 when AB_CACHE has no such entry"))
    blame.on_its_own(student, "get_order_value", _("for a position"), attempt)


@functools.cache
def order_cases():
    chosen = []
    pairs = search_positions(2, 70, 20, ("moving", "placing"))
    for i, (depth, (state, player)) in enumerate(zip((2, 3, 2, 3), pairs)):
        search = order_search(state, player, depth, 1000 + i)
        search.expected()
        call = f"alpha_beta(state, {NAMES[player]}, -1, 1, {depth})"
        chosen.append(Case(Later.words(N_("{call} with AB_CACHE holding the previous "
                                          "iteration's values; next_states, get_order_value "
                                          "and value_ab played by the grader"), call=call),
                           (state, player, depth, 1000 + i), drawn(state, player),
                           [c[0] for c in search.record.calls]))
    return chosen


def test_alpha_beta_orders_moves(student, blame):
    """alpha_beta tries the moves in the order of the previous iteration's values"""
    def judge(case, _answer, search):
        got = [c[0] for c in search.record.calls]
        if got == case.expected:
            return None
        if sorted(got) != sorted(case.expected):
            return _("tried {count} moves, not each of the {total} successors once").format(
                count=len(got), total=len(case.expected))
        return _("tried the successors in another order")
    blame.on_its_own(student, "alpha_beta", _("on a position"), lambda play: searches(
        student, play, order_cases(), lambda c: order_search(*c.args),
        _("alpha_beta did not order the moves by the previous iteration"), judge,
        _("sort the successors by get_order_value(s, opponent(player), depth - 1), smallest "
          "first (a value for the opponent: small is good for you), with a stable sort of the "
          "next_states order"), picture_of=order_picture))


def order_picture(case, outcome, search):
    """The order value_ab was called in, each successor worth its order value."""
    state, player, depth, _salt = case.args
    rule = order_search(*case.args)
    result = rule.expected()
    opp = ref.opponent(player)
    return calls_picture(search.watch.game.successors(state, player), rule.record.calls,
                         search.record.calls,
                         lambda s: -rule.planted.get((s, opp, depth - 2), (0,))[0],
                         rule_result=result, student_result=result_of(outcome),
                         caption=_("each successor is worth the previous iteration's value for "
                                   "the player to move here (what get_order_value gives, "
                                   "negated); value_ab, played by the grader, answers 1"))


# ------------------------------------------------------------------ iterative deepening
@functools.cache
def deepening_cases():
    chosen = []
    for depth in (2, 3, 4):
        for i, (state, player) in enumerate(search_positions(1, 80 + depth, 99)):
            game, table = deepening_game(state, player, depth, 1100 + 10 * depth + i)
            search = deepening_search(state, player, depth, 1100 + 10 * depth + i)
            search.expected()
            call = f"best_move_ab(state, {NAMES[player]}, {depth})"
            chosen.append(Case(Later.words(N_("{call} with next_states and value_ab played "
                                              "by the grader"), call=call),
                               (state, player, depth, 1100 + 10 * depth + i),
                               drawn(state, player), {"calls": search.record.calls,
                                                      "children": game.successors(state, player),
                                                      "answers": table}))
    return chosen


def deepening_verdicts(student, play):
    """The two deepening checks' verdicts (`shared`) from the grader's record of value_ab's
    calls: (the answers cut to verdict size, {id(answer): (reason of each check, picture)})."""
    made = [deepening_search(*case.args) for case in deepening_cases()]
    outcomes, verdicts = [], {}
    for case, outcome, search in zip(deepening_cases(), run(student, [s.job(play) for s in made]),
                                     made):
        groups = iterations(search.record.calls)
        reasons = ((judge_best_ab(case, outcome.value, groups), judge_deepening(case, groups))
                   if outcome.answered else (None, None))
        failed = reasons != (None, None) or not outcome.answered
        outcomes.append(kept(outcome, 64))
        verdicts[id(outcomes[-1])] = (*reasons, drawn_picture(
            lambda c, o: deepening_picture(c, o, search), case, outcome) if failed else None)
    return outcomes, verdicts


def deepening_picture(case, outcome, search):
    """value_ab's calls of every iteration on the root's successors; a successor's
    value and window are those of its last call (the last iteration)."""
    _state, _player, depth, _salt = case.args
    children, answers = case.expected["children"], case.expected["answers"]
    return calls_picture(children, case.expected["calls"], search.record.calls,
                         lambda s: -answers[(s, depth - 1)],
                         rule_result=max(-answers[(s, depth - 1)] for s in children),
                         student_result=result_of(outcome, lambda v: v[0]),
                         caption=_("value_ab (played by the grader) on the successors in every "
                                   "iteration; values and windows of depth {depth}, the "
                                   "last").format(depth=depth - 1))


def iterations(calls):
    """value_ab's calls grouped by runs of one depth: [(depth, [(state, player, alpha, beta)])]."""
    return [(depth, [tuple(call[:4]) for call in group])
            for depth, group in itertools.groupby(calls, key=lambda call: call[4])]


def judge_best_ab(case, got, groups):
    state, player, depth, _salt = case.args
    children, answers = case.expected["children"], case.expected["answers"]
    if not groups or groups[-1][0] != depth - 1:
        return _("the last value_ab calls were at depth {depth}: the last iteration values "
                 "every successor at depth {last}").format(
            depth=groups[-1][0] if groups else None, last=depth - 1)
    for d, entries in groups:
        if sorted(s for s, *_rest in entries) != sorted(children):
            return _("the iteration at depth {depth} did not value each successor once").format(
                depth=d)
        alpha = -1
        for number, (s, p, a, b) in enumerate(entries, 1):
            if p != ref.opponent(player):
                return _("called value_ab for the wrong player")
            if (a, b) != (-1, -alpha):
                return _("in the iteration at depth {depth}, call {number} passed the window "
                         "({alpha}, {beta}) to value_ab; the best value so far was {best}, so "
                         "the handout passes (-1, -alpha) = (-1, {bound})").format(
                    depth=d, number=number, alpha=a, beta=b, best=alpha, bound=-alpha)
            alpha = max(alpha, -answers[(s, d)])
    last = {s: -answers[(s, depth - 1)] for s, *_rest in groups[-1][1]}
    best = max(last.values())
    if type(got) not in (list, tuple) or len(got) != 2:
        return _("returned {value}, not a pair (value, successor)").format(value=short(got))
    if wrong_number(got[0], best):
        return _("returned the value {value}, not the best of the last iteration").format(
            value=short(got[0]))
    if last.get(as_state(got[1])) != best:
        return _("the move it returned is not a best one of the last iteration")
    return None


def judge_deepening(case, groups):
    state, player, depth, _salt = case.args
    children, answers = case.expected["children"], case.expected["answers"]
    depths = [d for d, _entries in groups]
    if depths not in (list(range(depth)), list(range(1, depth))) or len(depths) < min(2, depth):
        return _("valued the successors at the depths {depths}: iterative deepening searches "
                 "each depth from 0 up to {last} in turn").format(depths=depths, last=depth - 1)
    for d, entries in groups:
        if sorted(s for s, *_rest in entries) != sorted(children):
            return _("the iteration at depth {depth} did not value each successor once").format(
                depth=d)
    if [s for s, *_rest in groups[0][1]] != children:
        return _("the first iteration did not try the moves in the order next_states gave")
    for (d, before), (_next, after) in zip(groups, groups[1:]):
        expect = sorted([s for s, *_rest in before], key=lambda s: -answers[(s, d)], reverse=True)
        if [s for s, *_rest in after] != expect:
            return _("the iteration at depth {depth} did not try the moves best first by the "
                     "values of depth {previous} (a stable sort)").format(depth=d + 1, previous=d)
    return None


def check_deepening(student, blame, shared, which, summary, hint):
    """One of the two deepening checks: the reason `which` of `deepening_verdicts`."""
    def attempt(play):
        outcomes, reasons = shared(deepening_verdicts, play)
        check_all(summary, deepening_cases(), outcomes, lambda c, o: reasons[id(o)][which],
                  hint, picture=lambda c, o: reasons[id(o)][2])
    blame.on_its_own(student, "best_move_ab", _("on a position"), attempt)


def test_best_move_ab(student, blame, shared):
    """best_move_ab returns a best move, valuing each successor with the window (-1, -alpha)"""
    check_deepening(student, blame, shared, 0, _("best_move_ab did not search as the handout says"),
                    _("alpha = -1 at the start of each iteration; value each successor as "
                      "-value_ab(s, opponent(player), -1, -alpha, d) and raise alpha; the "
                      "result is the best entry of the last iteration (d = depth - 1)"))


def test_best_move_ab_deepens(student, blame, shared):
    """best_move_ab deepens iteratively and orders the moves by the previous iteration"""
    check_deepening(student, blame, shared, 1, _("best_move_ab does not deepen iteratively"),
                    _("for d in range(depth): value every successor with value_ab at depth d, "
                      "then sort the list best first (a stable sort) for the next iteration"))


# ------------------------------------------------------------------ playing strength
def _opponent_move(greedy, state, player, rng):
    """A random move; if `greedy`, a random one among those the heuristic values best."""
    options = movegen.next_states(state, player)
    scores = [-ref.heuristic(s, ref.opponent(player)) if greedy else 0 for s in options]
    return rng.choice([s for s, v in zip(options, scores) if v == max(scores)])


#: The strength check's results and colours, as its log names them.
RESULTS = {1: N_("won"), 0: N_("no result"), -1: N_("lost")}
COLOURS = {W: N_("WHITE"), B: N_("BLACK")}


def test_strength(student, blame):
    """your whole program: best_move_ab (depth 2) with your own helpers beats a random and a greedy player, with either colour"""
    # No picture: its searches run on the student's own rules, not on a watch of the
    # grader's, so the grader never sees their trees, only the moves they chose.
    wins, log = 0, []
    with blame.judging("best_move_ab", _("in a game")):
        for name, greedy in ((N_("random"), False), (N_("greedy"), True)):
            for colour in (W, B):
                rng = random.Random(f"{name}-{colour}")
                state, player = ref.initial_state(), W
                for ply in range(160):
                    if ref.finished(state, player):
                        break
                    if player != colour:
                        state = _opponent_move(greedy, state, player, rng)
                        player = ref.opponent(player)
                        continue
                    search = Search("best_move_ab", (list_form(state), player, 2))
                    [outcome] = run(student, [search.job()])
                    require(outcome)
                    got = outcome.value if outcome.answered else None
                    after = as_state(got[1]) if type(got) in (list, tuple) and len(got) == 2 \
                        else None
                    if after not in successors(state, player):
                        raise CheckFailed(
                            _("your player made an illegal move in a game"),
                            position=draw(state, player),
                            call=_("{call}, move {number} of a game against the {opponent} "
                                   "player").format(call=f"best_move_ab(state, {NAMES[player]}, 2)",
                                                    number=ply + 1, opponent=_(name)),
                            got=describe(outcome) if not outcome.answered else
                            _("a state no legal move leads to: {state}").format(state=short(got)))
                    state, player = after, ref.opponent(player)
                result = ref.utility(state, player) * (1 if player == colour else -1) \
                    if ref.finished(state, player) else 0
                wins += result == 1
                log.append(_("{colour} against {opponent}: {result} after {count} moves").format(
                    colour=_(COLOURS[colour]), opponent=_(name), result=_(RESULTS[result]),
                    count=ply))
                if result == -1:
                    raise CheckFailed(_("your player lost a game"), got="; ".join(log),
                                      position=draw(state, player),
                                      hint=_("best_move_ab must pick the successor with the best "
                                             "value"))
        if wins < 3:
            raise CheckFailed(_("your player won too few games"), got="; ".join(log),
                              hint=_("at depth 2 a correct player wins nearly every game here"))

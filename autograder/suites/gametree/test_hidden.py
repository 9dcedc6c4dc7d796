"""Hidden suite for gametree: rules, minimax, alpha-beta with Bremse, the player, the book.

The rules run on the student's own `Game` objects; the searches on a proxy of a game only
the grader knows (cases.py), except `solve`, which needs the board's lines. Each function
is judged on its own ([relies_on]), except in test_computer_move_with_your_own_helpers.
What each check believes: docs/SUITES.md, "What a check may believe".
"""

import functools
import random
import types

from autograder.checking import (Case, CheckFailed, Later, check_all, compare, describe,
                                 exact, played, played_plan, require, returned, search, short)
from autograder.checking.search import all_of
from autograder.grading.student import Handle
from autograder.suites.gametree.cases import (
    INF, M, Search, TreeSpec, decided_reason, depth_reason, fmt, full_width_nodes, got_text,
    make_game, position_value, ref, result_reason, run_book_copies, search_for, stats_reason,
    value_reason, work_reason)
from autograder.suites.gametree.kitgame import GameSpec, KitGame
from autograder.i18n import N_, grader_plural as ngettext, grader_text as _
from autograder.checking.verdicts import UNTOUCHED, changed_input, check_probes

B3X3, B4X3, B4X4 = (3, 3, 3), (4, 3, 3), (4, 4, 3)
#: The searches as [relies_on] names them: maximize and minimize call each other (a pair).
MINIMAX, ALPHABETA = "maximize/minimize", "maximize_ab/minimize_ab"
#: The game's methods are the grader's in every search check (told to `blame.judging`).
GAME_PLAYS = {M + name: None for name in ("nextstates", "terminal_test", "evaluation")}
ORDER_HINT = (N_("children in game.nextstates order; a child replaces the best only if strictly "
              "better; cut when best >= beta (max) or best <= alpha (min), after every child"))


# ------------------------------------------------------------------ positions
def draw(state, board):
    return GameSpec(tuple(board), tuple(state)).drawing()


def drawn(state, board) -> Later:
    """A case's drawing, made only for the case a failure shows (in the course's language)."""
    return Later(draw, list(state), board)


@functools.cache
def ref_game(board):
    """The reference's Game for a board shape, made once (it caches its lines)."""
    return ref.Game(*board)


def state_key(state):
    return (frozenset(state[0::2]), frozenset(state[1::2]))


@functools.cache
def reachable(board):
    """Every position reachable in `board`, one state each, fewest marks first."""
    game = KitGame(*board)
    seen, todo = {}, [[]]
    while todo:
        state = todo.pop()
        key = state_key(state)
        if key in seen:
            continue
        seen[key] = state
        if not game.decided(state):
            todo.extend(game.nextstates(state))
    return tuple(tuple(s) for s in sorted(seen.values(), key=lambda s: (len(s), s)))


@functools.cache
def sample(board, count, seed, low, high, decided=False):
    """`count` distinct undecided states (or decided ones with free cells) with low..high marks."""
    rng = random.Random(seed)
    game = KitGame(*board)
    found, seen = [], set()
    for _ in range(count * 200):
        if len(found) == count:
            break
        target, state = rng.randint(low, high), []
        while len(state) < target and not game.decided(state):
            state = rng.choice(game.nextstates(state))
        if len(state) < low or state_key(state) in seen:
            continue
        if decided != game.decided(state) or (decided and len(state) >= game.cells):
            continue
        seen.add(state_key(state))
        found.append(tuple(state))
    return tuple(sorted(found, key=lambda s: (len(s), s)))


def variant(state, board, seed, mode="exact", blocked=None):
    """A game only the grader knows at `state`: its own child order and, unless
    `blocked` says how many, 0 to 2 blocked cells (two free cells stay)."""
    rng = random.Random(f"{seed}:{state}:{board}")
    free = KitGame(*board).free(state)
    count = rng.choice((0, 1, 1, 2)) if blocked is None else blocked
    count = max(0, min(count, len(free) - 2))
    cells = tuple(sorted(rng.sample(free, count)))
    return GameSpec(tuple(board), tuple(state), mode, "shuffled", cells,
                    rng.randrange(1 << 30))


def positions(kind, board, count, seed, low, high, mode="exact", bremse=INF, cap=400,
              decided=False, **options):
    """Searches on `count` sampled positions (seeded), each its own game, at most
    `cap` game calls for the reference and 6 * cap for a search without pruning."""
    chosen = []
    for index, state in enumerate(sample(board, count * 3, seed, low, high, decided)):
        depth = bremse[index % len(bremse)] if isinstance(bremse, tuple) else bremse
        spec = variant(state, board, seed + index, mode)
        search = search_for(kind, spec, bremse=depth, **options)
        if search.size <= cap and full_width_nodes(spec, depth) <= 6 * cap:
            chosen.append(search)
        if len(chosen) == count:
            break
    return chosen


def trees(kind, names, **options):
    return [search_for(kind, TreeSpec(name, seed=7), **options) for name in names]


def random_trees(kind, count, seed, depth=3, branching=(2, 3), low=-9, high=9,
                 leaf_chance=0.0, distinct=False, **options):
    """Seeded random trees, max and min to move at the root in turn."""
    chosen = []
    for index in range(count):
        shape = (seed + index, depth, branching, low, high, leaf_chance, True, index % 2 == 0,
                 distinct)
        chosen.append(search_for(kind, TreeSpec(f"random-{seed + index}", shape, seed + index),
                                 **options))
    return chosen


def smallest_first(searches):
    return tuple(sorted(searches, key=lambda s: (s.size, s.call_text())))


# ------------------------------------------------------------------ the rules
RULE_BOARDS = (B3X3, B4X3, B4X4)


@functools.cache
def rule_states():
    """Every reachable tic-tac-toe position and samples of the bigger boards."""
    states = [(B3X3, s) for s in reachable(B3X3)]
    for board, seed in ((B4X3, 11), (B4X4, 12)):
        states += [(board, s) for s in sample(board, 250, seed, 0, board[0] * board[1] - 1)]
        states += [(board, s) for s in sample(board, 100, seed + 100, 5, board[0] * board[1],
                                              decided=True)]
    return tuple(sorted(states, key=lambda bs: (len(bs[1]), bs[0], bs[1])))


def game_handles(student, boards):
    handles = {}
    for board in boards:
        outcome = student.new(M + "Game", *board)
        require(outcome)
        if not outcome.answered:
            raise CheckFailed(_("could not create a Game object"), call=f"Game{board}",
                              got=describe(outcome))
        handles[board] = outcome.value
    return handles


def rule_check(student, function, summary, hint, judge=exact, play=None):
    """`function` against the reference's on every rule state, with the student's own Game."""
    handles = game_handles(student, RULE_BOARDS)
    chosen = _rule_cases(function)
    args = [(list(c.args[0]), handles[c.args[1]]) for c in chosen]
    outcomes = student.map(M + function, args, play=grader_rules(handles, play))
    check_all(summary, chosen, outcomes, judge, hint=hint)


@functools.cache
def _rule_cases(function):
    return [Case(f"{function}({list(s)}, Game{board})", (s, board), drawn(s, board),
                 getattr(ref, function)(list(s), ref_game(board))) for board, s in rule_states()]


def grader_rules(handles, play) -> dict | None:
    """The grader's winning_lines and evaluation for the functions `play` names, each
    answering for the board of the student's Game (a handle the check holds) it is given."""
    names = [target.rpartition(".")[2] for target in play or ()]
    if not names:
        return None
    boards = {handle.number: board for board, handle in handles.items()}

    def board_of(game):
        if game is ref.TICTACTOE:        # the specified default game (the module's)
            return B3X3
        if type(game) is Handle and game.number in boards:
            return boards[game.number]
        raise TypeError(_("pass on the Game object the check gave (the grader's "
                        "rules here answer for that one only)"))

    def winning_lines(game):
        return [set(line) for line in ref.winning_lines(ref_game(board_of(game)))]

    def evaluation(state, game):
        return ref.evaluation(list(state), ref_game(board_of(game)))
    grader = {"winning_lines": winning_lines, "evaluation": evaluation}
    # each takes the specified function's signature (defaults included: game=TICTACTOE)
    return played(M.rstrip("."), types.SimpleNamespace(**grader), names, spec=ref)


def on_its_own(student, blame, function, attempt):
    """Blame.check of `attempt(play)`, the grader's helpers being `grader_rules`."""
    blame.check(student, function, _("on a position"), blame.helpers(function), attempt)


def judged_searches(student, blame, who, summary, searches, judge, hint):
    """search.check, its failure worded and blamed as `who`'s (the pair of searches)."""
    with blame.judging(who, _("on a position"), GAME_PLAYS):
        search.check(student, summary, searches, judge, hint, got=got_text)


# ------------------------------------------------------------------ the checks
WINNING_BOARDS = ((3, 3, 3), (4, 3, 3), (3, 4, 3), (4, 4, 3), (4, 4, 4), (5, 4, 3),
                  (5, 5, 4), (6, 2, 2), (2, 2, 3), (1, 5, 3))


def test_winning_lines(student, blame):
    """winning_lines finds every line exactly once, on ten board shapes"""
    handles = game_handles(student, WINNING_BOARDS)
    chosen = [Case(f"winning_lines(Game{board})", (handles[board],), None,
                   sorted(tuple(sorted(line)) for line in ref.winning_lines(ref_game(board))))
              for board in WINNING_BOARDS]

    def judge(case, outcome):
        got = outcome.value
        if type(got) is not list:
            return _("returned a {kind}, not a list").format(kind=type(got).__name__)
        try:
            lines = sorted(tuple(sorted(line)) for line in got)
        except TypeError:
            return _("returned {value}: each line must be a set of cell numbers").format(
                value=short(got))
        if any(len(set(line)) != len(line) for line in lines):
            return _("a line names the same cell twice")
        if len(lines) != len(set(lines)):
            return _("returned a line more than once")
        if lines != case.expected:
            missing = sorted(set(case.expected) - set(lines))
            if missing:
                return ngettext("misses {count} line: {line}",
                                "misses {count} lines, for example {line}", len(missing)).format(
                    count=len(missing), line=set(missing[0]))
            extra = sorted(set(lines) - set(case.expected))
            return ngettext("returned {count} set that is not a line: {line}",
                            "returned {count} sets that are not lines, for example {line}",
                            len(extra)).format(count=len(extra), line=set(extra[0]))
        return None
    compare(student, blame, "winning_lines", chosen, judge,
            _("winning_lines returned the wrong lines"), scope=_("on a board"),
            hint=_("rows, columns and both diagonal directions; a line may not wrap around "
                   "the edge of the board"))


def test_nextstates(student, blame):
    """nextstates lists every successor in cell order, without changing the state"""
    def judge(case, outcome):
        got, want = outcome.value, case.expected
        if got != want or type(got) is not list or any(type(s) is not list for s in got):
            return returned(got)
        return None

    def kept(case, outcome):    # from nextstates' own second answer on the same state object
        return changed_input(outcome, _("state"), _("the state it was given"), case.expected)
    chosen = [Case(f"nextstates({list(s)})", (list(s),), drawn(s, B3X3), list(s))
              for s in reachable(B3X3)[::7]]
    hint = _("build each successor as a new list: state + [cell]")
    with blame.judging("nextstates", _("on a position")):
        rule_check(student, "nextstates", _("nextstates returned the wrong states"),
                   _("a new list per free cell, state + [cell], by increasing cell"), judge=judge)
        outcomes = student.map(M + "nextstates", [c.args for c in chosen], return_args=True,
                               again=True)
        check_all(_("nextstates changed the state it was given"), chosen, outcomes, kept,
                  hint=hint)
        check_probes(student, _("nextstates changed the state it was given"), M + "nextstates",
                     M + "nextstates", _probe_cases(), _probes, "state", hint=hint)


def _probes(state, rest):
    """Questions after nextstates(state) whose answers spell out the whole state."""
    return [("show(state)", M + "show", ()),
            ("nextstates(state, Game(4, 4, 3))", M + "nextstates",
             lambda plan: (plan.call(M + "Game", *B4X4),)),
            ("x_to_move(state)", M + "x_to_move", ()),
            ("evaluation(state)", M + "evaluation", ())]


@functools.cache
def _probe_cases():
    return [Case(Later.words(N_("nextstates({state}), then more questions about the same "
                                "state"), state=list(s)),
                 (list(s),), drawn(s, B3X3), UNTOUCHED)
            for s in reachable(B3X3)[3::40]]


def test_evaluation(student, blame):
    """evaluation scores 1, -1 or 0 from x's side on every reachable 3x3 position and more"""
    on_its_own(student, blame, "evaluation", lambda play: rule_check(
        student, "evaluation", _("evaluation returned the wrong value"),
        _("x owns the cells at even places of the list (x moves first), o the ones at odd "
          "places; 1 when x has a line"), play=play))


def test_terminal_test(student, blame):
    """terminal_test knows when the game is over (a line, or a full board)"""
    on_its_own(student, blame, "terminal_test", lambda play: rule_check(
        student, "terminal_test", _("terminal_test was wrong"),
        _("over means: a player owns a line, or no cell is free"), play=play))


# -- plain minimax
@functools.cache
def minimax_value_cases():
    chosen = positions("minimax", B3X3, 24, 20, 5, 7, cap=150)
    chosen += positions("minimax", B3X3, 6, 21, 4, 4, cap=300)
    chosen += positions("minimax", B4X3, 10, 22, 8, 10, cap=150)
    return smallest_first(chosen)


def test_minimax_values(student, blame):
    """maximize and minimize return the game value and a successor that attains it"""
    judged_searches(student, blame, MINIMAX,
                    _("maximize / minimize returned a wrong result"),
                    minimax_value_cases(), value_reason,
                    hint=_("best_state is a successor with the best value (None when the game "
                         "is over); the value is seen from x; use only the game's methods"))


@functools.cache
def minimax_technique_cases():
    chosen = trees("minimax", ("aima-5-2", "ties-deep", "depth-limit", "deep-cutoff",
                               "min-root"))
    # narrow values: ties at max and min roots, where the first best child counts
    chosen += random_trees("minimax", 3, 300, leaf_chance=0.2, low=0, high=2)
    chosen += positions("minimax", B3X3, 8, 31, 4, 6, cap=300)
    return smallest_first(chosen)


def test_minimax_visits_every_node(student, blame):
    """maximize / minimize search every node in child order and stop at decided games"""
    judged_searches(student, blame, MINIMAX,
                    _("plain minimax did not search the game the handout's way"),
                    minimax_technique_cases(), all_of(decided_reason, work_reason, result_reason),
                    hint=_("no pruning and no depth limit in maximize / minimize: every child of "
                         "every undecided node is searched, in game.nextstates order"))


# -- alpha-beta: values
@functools.cache
def ab_values_3x3_cases():
    chosen = positions("alphabeta", B3X3, 8, 40, 0, 2, "lines", (1, 2, 3), cap=250)
    chosen += positions("alphabeta", B3X3, 16, 41, 3, 5, "exact", INF, cap=250)
    chosen += positions("alphabeta", B3X3, 24, 42, 5, 8, "exact", INF, cap=150)
    chosen += positions("alphabeta", B3X3, 8, 43, 2, 5, "lines", (1, 2), cap=150)
    # only the state and the game: the defaults (full window, no depth limit) must hold
    chosen += positions("alphabeta", B3X3, 4, 44, 4, 6, "exact", INF, cap=200, defaults=True)
    return smallest_first(chosen)


def test_alphabeta_values_3x3(student, blame):
    """alpha-beta returns the right value on tic-tac-toe positions, depth-limited or not"""
    judged_searches(student, blame, ALPHABETA,
                    _("maximize_ab / minimize_ab returned a wrong result"),
                    ab_values_3x3_cases(), value_reason,
                    hint=_("with the full window alpha-beta returns the minimax value at the "
                         "same depth limit; use only the game's methods"))


@functools.cache
def ab_values_big_cases():
    chosen = []
    for board, seed in ((B4X3, 50), (B4X4, 51)):
        chosen += positions("alphabeta", board, 10, seed, 0, 8, "lines", (1, 2, 3), cap=300)
    chosen += positions("alphabeta", B4X3, 10, 52, 7, 10, "exact", INF, cap=300)
    return smallest_first(chosen)


def test_alphabeta_values_bigger_boards(student, blame):
    """alpha-beta returns the right value on 4 x 3 and 4 x 4 positions, depth-limited too"""
    judged_searches(student, blame, ALPHABETA,
                    _("maximize_ab / minimize_ab returned a wrong result"),
                    ab_values_big_cases(), value_reason,
                    hint=_("at bremse 0 the state is evaluated; bremse 1 evaluates its children"))


# -- alpha-beta: technique on trees and positions
@functools.cache
def prune_cases():
    chosen = trees("alphabeta", ("aima-5-2", "deep-cutoff", "min-root", "depth-limit"))
    # distinct leaf values: no comparison ties, so a cut on > instead of >= costs
    # the next check, not this one
    chosen += random_trees("alphabeta", 4, 400, depth=3, branching=(2, 3), low=-50, high=50,
                           distinct=True)
    # only the root and the game: the default window is the full one
    chosen += [search_for("alphabeta", TreeSpec(name, seed=12), defaults=True)
               for name in ("aima-5-2", "min-root")]
    return smallest_first(chosen)


def test_alphabeta_prunes_like_the_reference(student, blame):
    """alpha-beta expands and evaluates exactly the nodes the handout's rule does"""
    judged_searches(student, blame, ALPHABETA,
                    _("alpha-beta searched other nodes than the handout's rule"),
                    prune_cases(), all_of(work_reason, result_reason), _(ORDER_HINT))


@functools.cache
def tie_cases():
    chosen = trees("alphabeta", ("ties-deep",))
    chosen += random_trees("alphabeta", 4, 500, depth=3, branching=(2, 3), low=0, high=2)
    chosen += positions("alphabeta", B3X3, 8, 51, 3, 6, "exact", INF, cap=200)
    return smallest_first(chosen)


def test_alphabeta_cuts_on_ties(student, blame):
    """alpha-beta cuts when the best value only reaches the bound (>= beta, <= alpha)"""
    judged_searches(student, blame, ALPHABETA,
                    _("alpha-beta did not cut where the bound is reached"),
                    tie_cases(), all_of(work_reason, result_reason),
                    hint=_("a max node stops once best >= beta, a min node once best <= alpha: "
                         "equal is enough"))


@functools.cache
def depth_cases():
    chosen = []
    for name in ("depth-limit", "deep-cutoff", "min-root"):
        chosen += [search_for("alphabeta", TreeSpec(name, seed=8), bremse=b) for b in (0, 1, 2, 3)]
    chosen += [search_for("alphabeta", t.game, bremse=b)
               for t in random_trees("alphabeta", 2, 600, depth=3, leaf_chance=0.25)
               for b in (1, 2)]
    for board, seed in ((B3X3, 61), (B4X3, 62), (B4X4, 63)):
        chosen += positions("alphabeta", board, 3, seed, 0, 5, "lines", (1, 2, 3), cap=200)
    return smallest_first(chosen)


def test_alphabeta_depth_limit(student, blame):
    """alpha-beta evaluates undecided states exactly at the depth limit (Bremse)"""
    judged_searches(student, blame, ALPHABETA,
                    _("alpha-beta did not respect the depth limit"), depth_cases(),
                    all_of(depth_reason, result_reason),
                    hint=_("bremse is the number of plies still allowed: evaluate when it is 0, "
                         "otherwise search the children with bremse - 1; evaluation is called "
                         "for evaluated nodes only (use terminal_test to see a won game)"))


@functools.cache
def decided_cases():
    chosen = [search_for("alphabeta", TreeSpec("depth-limit", seed=9), bremse=b)
              for b in (INF, 3)]
    # the limit never stops these trees above their leaves: only decided games matter
    chosen += [search_for("alphabeta", t.game, bremse=b)
               for t in random_trees("alphabeta", 2, 700, depth=3, leaf_chance=0.35)
               for b in (INF, 3)]
    for board, seed in ((B3X3, 71), (B4X3, 72), (B4X4, 73)):
        chosen += positions("alphabeta", board, 3, seed, 5, 12, "exact", (INF, 5, 2),
                            decided=True)
    chosen += positions("alphabeta", B4X3, 6, 74, 6, 9, "exact", INF, cap=300)
    return smallest_first(chosen)


def test_alphabeta_stops_at_decided_games(student, blame):
    """alpha-beta never searches past a decided game, whatever bremse allows"""
    judged_searches(student, blame, ALPHABETA,
                    _("alpha-beta searched past the end of a game"), decided_cases(),
                    all_of(decided_reason, result_reason),
                    hint=_("when terminal_test(state) holds the state is evaluated at once, "
                         "even with plies left"))


@functools.cache
def window_cases():
    chosen = [search_for("alphabeta", TreeSpec(name, seed=10), alpha=a, beta=b)
              for name, a, b in (("aima-5-2", 5, 10), ("aima-5-2", -INF, 3),
                                 ("deep-cutoff", 4, 13), ("min-root", -15, 0),
                                 ("ties-deep", 5, INF))]
    chosen += [search_for("alphabeta", t.game, alpha=-2, beta=3)
               for t in random_trees("alphabeta", 2, 800, depth=3)]
    windows = ((-1, 0), (0, 1), (-INF, 0), (0, INF))
    for index, window in enumerate(windows * 2):
        chosen += positions("alphabeta", B3X3, 1, 81 + index, 3, 6, "exact", INF, cap=150,
                            alpha=window[0], beta=window[1])
    return smallest_first(chosen)


def test_alphabeta_window(student, blame):
    """alpha-beta with a narrow window returns the handout's fail-soft result"""
    judged_searches(student, blame, ALPHABETA,
                    _("alpha-beta with a narrow window returned a wrong result"),
                    window_cases(), result_reason,
                    hint=_("fail-soft: return best itself, even when it lies outside "
                         "(alpha, beta); do not clip it to the window"))


@functools.cache
def work_cases():
    chosen = positions("alphabeta", B3X3, 8, 91, 3, 6, "exact", INF, cap=250)
    for board, seed in ((B4X3, 92), (B4X4, 93)):
        chosen += positions("alphabeta", board, 4, seed, 1, 7, "lines", (2, 3), cap=300)
    return smallest_first(chosen)


def test_alphabeta_work_on_positions(student, blame):
    """alpha-beta makes exactly the reference's nextstates and evaluation calls on real positions"""
    judged_searches(student, blame, ALPHABETA,
                    _("alpha-beta did other work than the handout's rules"),
                    work_cases(), all_of(work_reason, result_reason), _(ORDER_HINT))


@functools.cache
def alphabeta_stats_cases():
    chosen = trees("alphabeta", ("aima-5-2", "ties-deep", "min-root"), with_stats=True)
    chosen += [search_for("alphabeta", TreeSpec("depth-limit", seed=11), bremse=2,
                          with_stats=True)]
    chosen += positions("alphabeta", B3X3, 4, 95, 2, 6, "exact", INF, cap=200,
                        with_stats=True)
    chosen += positions("alphabeta", B4X3, 3, 96, 1, 5, "lines", 2, cap=200, with_stats=True)
    return smallest_first(chosen)


@functools.cache
def minimax_stats_cases():
    chosen = [search_for("minimax", TreeSpec("deep-cutoff", seed=11), with_stats=True)]
    chosen += positions("minimax", B3X3, 2, 97, 5, 7, cap=100, with_stats=True)
    return smallest_first(chosen)


STATS_HINT = (N_("count each call of a search function once as a node, and as expanded or "
              "evaluated; one pruning per cut (a break)"))


def test_minimax_search_stats(student, blame):
    """maximize / minimize count nodes, expansions and evaluations in SearchStats"""
    judged_searches(student, blame, MINIMAX,
                    _("the SearchStats counters are wrong"),
                     minimax_stats_cases(), stats_reason, _(STATS_HINT))


def test_alphabeta_search_stats(student, blame):
    """alpha-beta counts nodes, expansions, evaluations and prunings in SearchStats"""
    judged_searches(student, blame, ALPHABETA,
                    _("the SearchStats counters are wrong"),
                     alphabeta_stats_cases(), stats_reason, _(STATS_HINT))


# -- the player
def not_a_successor(got) -> str:
    return _("returned {value}, not one of the successors the game gave").format(
        value=short(got))


def throws_away(got, value) -> str:
    return _("the move to {move} throws away the value {value}").format(move=short(got),
                                                                         value=value)


def move_reason(run):
    """A successor the game gave, with the value of the position."""
    if not run.outcome.answered:
        return got_text(run)
    got, search = run.returned, run.search
    spec = search.game
    if type(got) is not list or tuple(got) not in make_game(spec).successors(tuple(spec.root)):
        return not_a_successor(got)
    want = position_value(spec, search.bremse)
    if position_value(spec.at(got), search.bremse - 1) != want:
        return throws_away(got, fmt(want))
    return None


@functools.cache
def move_cases():
    chosen = positions("computer_move", B3X3, 16, 101, 2, 8, "exact", INF, cap=250)
    chosen += positions("computer_move", B3X3, 3, 105, 4, 7, "exact", INF, cap=200,
                        defaults=True)
    chosen += positions("computer_move", B4X3, 8, 102, 6, 10, "exact", INF, cap=300)
    chosen += positions("computer_move", B4X4, 8, 103, 2, 9, "lines", (1, 2), cap=300)
    return smallest_first(chosen)


#: What computer_move's checks play when judged again after a wrong alpha-beta.
PLAYER_PLAYS = {**GAME_PLAYS, M + "maximize_ab": None, M + "minimize_ab": None,
                M + ALPHABETA: None}


def searches_played(game) -> dict:
    """The reference's maximize_ab and minimize_ab on `game`, for computer_move's calls:
    a wrong alpha-beta costs alpha-beta's checks, not computer_move's."""
    def search(name):
        function = getattr(ref, name)

        def searched(state, alpha, beta, bremse, given, stats):
            if given is not game:
                raise ValueError(_("{function} must search the game computer_move was given").format(
                    function=name))
            return function(list(state), alpha, beta, bremse, game, None)
        return searched
    # each takes the specified search's signature (by name, with its defaults)
    return played(M.rstrip("."), types.SimpleNamespace(**{name: search(name) for name in (
        "maximize_ab", "minimize_ab")}), ("maximize_ab", "minimize_ab"), spec=ref)


def player_check(student, blame, summary, searches, judge, hint):
    """computer_move's check, judged on its own with `searches_played` (Blame.check)."""
    def attempt(play):
        search.check(student, summary, searches, judge, hint,
                     play=searches_played if play else None, got=got_text)
    blame.check(student, "computer_move", _("on a position"), PLAYER_PLAYS, attempt)


def test_computer_move_keeps_the_value(student, blame):
    """computer_move plays for the side to move (x begins) and keeps the value"""
    player_check(student, blame, _("computer_move made a bad move"), move_cases(), move_reason,
                 hint=_("maximize_ab when x is to move (len(state) even), minimize_ab when o "
                      "is, on the game it was given"))


BOOK_CELLS = (15, 3, 12, 0, 9)


@functools.cache
def grader_book():
    """A legal book of unusual moves (no search would pick all of them)."""
    book, game = {}, KitGame(*B4X4)
    book[()] = [BOOK_CELLS[0]]
    for first in range(16):
        if first == BOOK_CELLS[0]:
            continue
        free = [c for c in BOOK_CELLS if c != first]
        book[(first,)] = [first, free[first % len(free)]]
    book[(15, 3)] = [15, 3, 12]
    assert all(not game.decided(list(k)) and v[:-1] == list(k) for k, v in book.items())
    return tuple((k, tuple(v)) for k, v in book.items())


@functools.cache
def book_cases():
    book = grader_book()
    states = [k for k, _ in book] + [(15, 3, 12, 0), (15, 1)]
    return tuple(Search("computer_move", variant(s, B4X4, 104, blocked=3), bremse=1,
                        book=book, use_book=True) for s in states)


def book_reason(run):
    if not run.outcome.answered:
        return got_text(run)
    state, book = tuple(run.search.game.root), dict(run.search.book)
    got = run.returned
    if state in book:
        if type(got) is not list or got != list(book[state]):
            return _("returned {value}, not the book's move").format(value=short(got))
        if run.log:
            return _("searched (called nextstates or evaluation) although the book has the answer")
        return None
    if not run.log:
        return _("did not search for a state the book does not know")
    if type(got) is not list or tuple(got) not in make_game(run.search.game).successors(state):
        return not_a_successor(got)
    return None


def test_computer_move_uses_the_book(student, blame):
    """computer_move answers from the opening book (a copy of its move), without searching, where it applies"""
    player_check(student, blame, _("computer_move did not use the opening book"), book_cases(),
                 book_reason,
                 hint=_("look up tuple(state) in the book first; search only when it is not there"))
    # The copy check judges the list returned, not a search: no picture.
    chosen = book_copy_cases()
    outcomes = run_book_copies(student, [case.args[0] for case in chosen])
    with blame.judging("computer_move", _("on a position of the book"), PLAYER_PLAYS):
        check_all(_("computer_move returned the book's own list"), chosen, outcomes,
                  search.changed_book, hint=_("return a copy of the book's successor state "
                                       "(list(...)): whoever changes the move returned must "
                                       "not change the book"))


@functools.cache
def book_copy_cases():
    """The book's positions, each asked twice with one book (see book_copy_plan)."""
    book = dict(grader_book())
    return tuple(Case(Later(search.call_text), (search,), Later(search.game.drawing),
                      list(book[tuple(search.game.root)]))
                 for search in book_cases() if tuple(search.game.root) in book)


#: The whole program's boards: 3 x 4 (3 columns, 4 rows) is one the module does not
#: define, so a search that plays the module's own boards answers for another board.
OWN_BOARDS = (B3X3, B4X3, (3, 4, 3))


@functools.cache
def own_program_cases():
    """Positions for the whole program, searched to the end on the student's own Game."""
    states = [(B3X3, s) for s in sample(B3X3, 16, 131, 1, 7)]
    states += [(B4X3, s) for s in sample(B4X3, 8, 132, 6, 9)]
    states += [((3, 4, 3), s) for s in sample((3, 4, 3), 8, 133, 6, 9)]
    return tuple(Case(f"computer_move({list(s)}, Game{board})", (s, board),
                      drawn(s, board), Later(successor_of_value, s, board))
                 for board, s in states)


def successor_of_value(state, board) -> str:
    return _("a successor of value {value}").format(value=solved(state, board))


def own_move_reason(case, outcome):
    state, board = case.args
    got = outcome.value
    if type(got) is not list or any(type(c) is not int for c in got) or \
            got not in KitGame(*board).nextstates(list(state)):
        return _("returned {value}, not a successor of the state").format(value=short(got))
    if solved(tuple(got), board) != solved(state, board):
        return throws_away(got, solved(state, board))
    return None


def test_computer_move_with_your_own_helpers(student, blame):
    """your whole program: computer_move with your own Game, rules and alpha-beta keeps the value"""
    # No picture: the grader sees the move, never a call of the search on the own Game.
    handles = game_handles(student, OWN_BOARDS)
    chosen = own_program_cases()
    outcomes = student.map(M + "computer_move",
                           [(list(c.args[0]), handles[c.args[1]]) for c in chosen])
    with blame.judging("computer_move", _("on a position")):
        check_all(_("your program made a bad move"), chosen, outcomes, own_move_reason,
                  hint=_("this check runs your whole program on your own Game (your rules, "
                       "your alpha-beta, your computer_move); the other checks judge each "
                       "function with the grader's helpers, so fix the ones they name first"))


def test_opening_book_4x4(student, blame):
    """the 4 x 4 opening book covers the openings, and every book move is legal and keeps the win"""
    with blame.judging("opening_book_4x4", _("when called")):
        _check_opening_book(student)


def _check_opening_book(student):
    outcome = student.call(M + "opening_book_4x4")
    require(outcome)
    if not outcome.answered:
        raise CheckFailed(_("opening_book_4x4 failed"), call="opening_book_4x4()",
                          got=describe(outcome))
    book = outcome.value
    call = "opening_book_4x4()"
    if type(book) is not dict:
        raise CheckFailed(_("opening_book_4x4 must return a dict"), call=call,
                          got=_("a {kind}").format(kind=type(book).__name__))
    if len(book) > 20000:
        raise CheckFailed(_("the opening book is too large to check (at most 20,000 entries)"),
                          call=call, got=ngettext("{count} entry", "{count} entries",
                                                  len(book)).format(count=len(book)))
    missing = [k for k in [()] + [(c,) for c in range(16)] if k not in book]
    if missing:
        raise CheckFailed(_("the opening book misses required entries"), call=call,
                          got=_("no entry for {keys}").format(keys=short(missing)),
                          hint=_("cover the empty board () and every first move of x, (0,) to (15,)"))
    game = KitGame(*B4X4)
    bad = []
    for key in sorted(book, key=lambda k: (len(k), k) if type(k) is tuple else (99, ())):
        value = book[key]
        if type(key) is not tuple or not all(type(c) is int for c in key) \
                or len(set(key)) != len(key) or not all(0 <= c < 16 for c in key):
            bad.append((key, _("the key is not a state as a tuple")))
        elif game.decided(list(key)):
            bad.append((key, _("the game is already over there")))
        elif type(value) is not list or value[:-1] != list(key) or len(value) != len(key) + 1 \
                or type(value[-1]) is not int or value[-1] in key or not 0 <= value[-1] < 16:
            bad.append((key, _("{move} is not a legal successor").format(move=short(value))))
        elif solved(tuple(value), B4X4) != solved(key, B4X4):
            bad.append((key, _("the move to {move} changes the game value from {before} to "
                               "{after}").format(move=value, before=solved(key, B4X4),
                                                 after=solved(tuple(value), B4X4))))
    if bad:
        key, reason = bad[0]
        raise CheckFailed(_("an opening-book move is illegal or gives the game value away"),
                          call=f"book[{key!r}]", position=draw(list(key), B4X4)
                          if type(key) is tuple else None, got=_("book move {move}").format(move=short(book[key])),
                          problem=reason, failures=len(bad), total=len(book),
                          hint=_("check every book move with solve: solve(next_state) must "
                               "equal solve(state)"))


@functools.cache
def solved(state, board):
    return ref.solve(list(state), ref_game(tuple(board)), _tables(board))


@functools.cache
def _tables(board):
    return {}


@functools.cache
def solve_cases():
    states = [(B3X3, s) for s in reachable(B3X3)[::3]]
    states += [(B4X3, s) for s in sample(B4X3, 80, 111, 2, 11)]
    states += [(B4X4, s) for s in sample(B4X4, 40, 112, 4, 15)]
    return tuple(Case(f"solve({list(s)}, Game{board})", (list(s), board), drawn(s, board),
                      solved(s, board)) for board, s in states)


def test_solve(student, blame):
    """solve returns the exact game value, and solves the empty 4 x 3 and 4 x 4 boards quickly"""
    on_its_own(student, blame, "solve", lambda play: _check_solve(student, play))


def _check_solve(student, play):
    handles = game_handles(student, RULE_BOARDS)
    played = grader_rules(handles, play)
    chosen = list(solve_cases())
    outcomes = student.map(M + "solve", [(c.args[0], handles[c.args[1]]) for c in chosen],
                           play=played)
    check_all(_("solve returned a wrong game value"), chosen, outcomes, exact,
              hint=_("the value under perfect play, seen from x"))
    empty = [Case(f"solve([], Game{board})", ([], board), drawn([], board), solved((), board))
             for board in (B4X3, B4X4)]
    outcomes = student.map(M + "solve", [([], handles[c.args[1]]) for c in empty],
                           timeout=student.timeouts.call * 5, play=played)
    check_all(_("solve is wrong or too slow on an empty board"), empty, outcomes, exact,
              hint=_("a transposition table keyed by (x's cells, o's cells) makes this fast"))


@functools.cache
def table_runs():
    """Per board, states to solve one after the other with one table, twice over: first
    moves, one position in two move orders, wins in one move, decided positions."""
    runs = []
    for board, seed in ((B3X3, 121), (B4X3, 122), (B4X4, 123)):
        game = KitGame(*board)
        states = [(c,) for c in range(game.cells)] if board != B4X4 else []
        for state in sample(board, 12, seed, 3, game.cells - 2):
            states.append(state)
            if len(state) >= 3:
                swapped = (state[2], state[1], state[0]) + state[3:]   # x's first two moves
                states.append(swapped)
        states += [s for s in sample(board, 12, seed + 10, 4, game.cells - 1)
                   if any(game.exact_value(list(child)) for child in game.nextstates(s))][:8]
        states += list(sample(board, 3, seed + 20, 5, game.cells - 1, decided=True))
        states = list(dict.fromkeys(states))
        runs.append((board, tuple(states), tuple(solved(s, board) for s in states)))
    return tuple(runs)


def test_solve_reuses_its_table(student, blame):
    """solve gives the same exact values when one table is passed to many calls, twice over"""
    on_its_own(student, blame, "solve", lambda play: _check_solve_table(student, play))


def _check_solve_table(student, play):
    # No picture: solve searches the student's own Game, so the grader sees only answers.
    handles = game_handles(student, RULE_BOARDS)
    played = grader_rules(handles, play) or {}
    plans = []
    for board, states, values in table_runs():
        plan = played_plan(M + "solve", played, timeout=student.timeouts.call * 5)
        game = handles[board]           # the student's Game, kept in the child
        table = plan.value({})          # one dict in the child, passed to every call
        answers = [plan.call(M + "solve", list(s), game, table, catch=True)
                   for _ in range(2) for s in states]
        plans.append(plan.returns(answers))
    outcomes = student.run(plans)
    failures, first, total = 0, None, 0
    for (board, states, values), outcome in zip(table_runs(), outcomes):
        require(outcome)
        total += 2 * len(states)
        if not outcome.answered:
            failures += 2 * len(states)
            first = first or (board, states[0], 0, len(states), describe(outcome), values[0])
            continue
        answers = outcome.value if type(outcome.value) is list else []
        for index, state in enumerate(states * 2):
            got = answers[index] if index < len(answers) else None
            want = values[index % len(states)]
            if type(got) is not int or got != want:
                failures += 1
                text = (_("raised {exception}").format(exception=got["raised"].get("type"))
                        + f": {got['raised'].get('message')}"
                        if isinstance(got, dict) and isinstance(got.get("raised"), dict)
                        else returned(got))
                first = first or (board, state, index, len(states), text, want)
    if first:
        board, state, index, count, text, want = first
        rounds = (_("in the second round, with the table the first round filled")
                  if index >= count else _("in the first round"))
        raise CheckFailed(_("solve returned a wrong value with a reused table"),
                          call=f"solve({list(state)}, Game{board}, table) {rounds} " + _(
                              "(call {number} with the same table)").format(number=index + 1),
                          position=draw(list(state), board), got=text, expected=want,
                          failures=failures, total=total,
                          hint=_("what the table keeps for a position must stay true for any "
                               "later call: keep exact values apart from bounds found with a "
                               "narrowed window, and key it by the position"))

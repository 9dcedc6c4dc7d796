"""Hidden suite for connect4: the game functions, the search, the player.

Expected values come from the reference in solutions/connect4/ (loaded into
this trusted process) and, for "does this move keep the game value?", from
the exact solver in solver.py next to this file. The student's functions run
in the sandbox. The search checks run the student's maximize/minimize with
the kit's own game rules swapped in (child_kit.py), so a wrong `nextstates`
or `evaluation` does not also cost the search points. Positions are seeded
random games, smallest first, so the feedback shows the simplest failure.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import math
import random
import sys
from pathlib import Path

from autograder.grading.checks import Case, CheckFailed, check_all, describe, require, short
from autograder.grading.reference import load_reference
from autograder.sandbox.protocol import Ref

HERE = Path(__file__).resolve().parent
ref = load_reference("connect4", "connect4")
M = "connect4."
INF = math.inf
WIN = ref.WIN
KIT_EVAL = Ref("c4kit.evaluation")
KIT_EVAL_B = Ref("c4kit.evaluation_b")


def _load_solver():
    name = "_connect4_suite_solver"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, HERE / "solver.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


solver = _load_solver()


@functools.cache
def judge_solver():
    return solver.Solver()


# ------------------------------------------------------------------ positions
def draw(state):
    board = ref.showBoard(ref.getBoard(state))
    return f"{board}\nstate = {state}"


def playout(rng, length):
    """A random game of at most `length` stones; stops when the game is over."""
    state = []
    while len(state) < length and not ref.terminal_test(state):
        state = rng.choice(ref.nextstates(state))
    return state


@functools.cache
def random_states(count=1000, seed=20240501):
    """Seeded random positions of every length, finished games included."""
    rng = random.Random(seed)
    found = {(): []}
    for _ in range(count):
        state = playout(rng, rng.randrange(0, 43))
        found.setdefault(tuple(state), state)
    return tuple(sorted(found.values(), key=lambda s: (len(s), s)))


def direction(state):
    """Which kind of line holds the four: row, column, diagonal, antidiagonal."""
    for index, line in enumerate(ref.lines(ref.getBoard(state))):
        if "xxxx" in line or "oooo" in line:
            return ("row", "column", "diagonal", "antidiagonal")[
                0 if index < 6 else 1 if index < 13 else 2 if index < 19 else 3]
    return None


@functools.cache
def won_states():
    """Finished games won in each of the four directions, 40 of each."""
    rng = random.Random(77)
    found = {"row": [], "column": [], "diagonal": [], "antidiagonal": []}
    while any(len(v) < 40 for v in found.values()):
        state = playout(rng, 42)
        kind = direction(state)
        if kind and len(found[kind]) < 40:
            found[kind].append(state)
    return tuple(s for kind in found.values() for s in kind)


@functools.cache
def drawn_states():
    """Full boards without four in a row, each reached by a legal move order."""
    out = []
    patterns = [["xxooxxo", "ooxxoox"] * 3, ["oxxooxx", "xooxxoo"] * 3]
    for rows in patterns:
        for first_col_order in (range(7), range(6, -1, -1), (3, 2, 4, 1, 5, 0, 6)):
            state = _fill("".join(rows), tuple(first_col_order))
            if state and tuple(state) not in {tuple(s) for s in out}:
                out.append(state)
    return tuple(out)


def _fill(target, order):
    heights = [0] * 7

    def dfs(state):
        if len(state) == 42:
            return state
        stone = "x" if len(state) % 2 == 0 else "o"
        for col in order:
            if heights[col] < 6:
                cell = 35 + col - 7 * heights[col]
                if target[cell] == stone:
                    heights[col] += 1
                    if abs(ref.evaluation(state + [cell])) < WIN:
                        found = dfs(state + [cell])
                        if found:
                            return found
                    heights[col] -= 1
        return None

    return dfs([])


@functools.cache
def midgame_states(count, seed, low=6, high=30):
    """Unfinished positions with low..high stones, including some close to a win."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        state = playout(rng, rng.randrange(low, high + 1))
        if not ref.terminal_test(state) and len(state) >= low:
            out.append(state)
    return as_tuples(sorted(out, key=lambda s: (len(s), s)))


@functools.cache
def tactics():
    return json.loads((HERE / "tactics.json").read_text())


def exact(case, outcome):
    got, want = outcome.value, case.expected
    if type(got) is not type(want) or got != want:
        return f"returned {short(got)}"
    return None


def run(student, function, states, expected, extra=(), summary="", hint=None, judge=exact,
        args_of=None, first="state"):
    chosen = cached_cases(function, states, expected, extra, args_of, first)
    outcomes = student.map(M + function, [c.args for c in chosen])
    check_all(summary or f"{function} returned a wrong value", chosen, outcomes, judge, hint)


@functools.cache
def cached_cases(function, states, expected, extra, args_of, first="state"):
    cases = []
    for state in states:
        args = args_of(state) if args_of else (list(state), *extra)
        shown = ", ".join(short(a, 60) for a in args[1:])
        cases.append(Case(f"{function}({first}{', ' + shown if shown else ''})",
                          tuple(args), draw(list(state)), expected(*args)))
    return cases


def as_tuples(states):
    return tuple(tuple(s) for s in states)


# ------------------------------------------------------------------ game functions
def test_getBoard(student):
    """getBoard builds the 42-cell board of 1,000 random positions"""
    run(student, "getBoard", as_tuples(random_states()), lambda s: ref.getBoard(list(s)),
        hint="x owns the cells at even positions of the state, o those at odd positions")


def test_colNrs(student):
    """colNrs lists the cells of each column from the bottom up"""
    chosen = [Case(f"colNrs({i})", (i,), None, ref.colNrs(i)) for i in range(7)]
    outcomes = student.map(M + "colNrs", [c.args for c in chosen])
    check_all("colNrs returned the wrong cells", chosen, outcomes, exact)


@functools.cache
def _board_column_cases():
    cases = []
    for index, state in enumerate(random_states()):
        board = ref.getBoard(state)
        for col in (index % 7, (index + 3) % 7):
            cases.append(Case(f"freeIn(board, {col})", (board, col), draw(state),
                              ref.freeIn(board, col)))
        if ref.freeIn(board, index % 7) is None or index % 11 == 0:
            full = [c for c in range(7) if ref.freeIn(board, c) is None]
            for col in full[:2]:
                cases.append(Case(f"freeIn(board, {col})", (board, col), draw(state), None))
    return cases


def test_freeIn(student):
    """freeIn finds where a stone dropped into a column lands (None if it is full)"""
    chosen = _board_column_cases()
    outcomes = student.map(M + "freeIn", [c.args for c in chosen])
    check_all("freeIn returned the wrong cell", chosen, outcomes, exact,
              hint="a stone falls to the lowest empty cell of its column")


def test_free(student):
    """free lists the playable cells of 1,000 random boards, column by column"""
    run(student, "free", as_tuples(random_states()), lambda b: ref.free(b),
        args_of=lambda s: (ref.getBoard(list(s)),), first="getBoard(state)")


def test_nextstates(student):
    """nextstates lists one successor per open column and leaves its input alone"""
    chosen = cached_cases("nextstates", as_tuples(s for s in random_states()
                                                  if not ref.terminal_test(s)),
                          lambda s: ref.nextstates(s), (), None, "state")
    outcomes = student.map(M + "nextstates", [c.args for c in chosen], return_args=True)

    def judge(case, outcome):
        if outcome.value != case.expected or type(outcome.value) is not list:
            return f"returned {short(outcome.value)}"
        if outcome.args_after and outcome.args_after[0] != case.args[0]:
            return f"changed its input state into {short(outcome.args_after[0])}"
        return None
    check_all("nextstates returned the wrong successors", chosen, outcomes, judge,
              hint="state + [cell] for every cell of free(board), by column 0 to 6")


def test_lines(student):
    """lines returns the 25 lines of four or more cells in the handout's order"""
    run(student, "lines", as_tuples(random_states()[::3]), lambda b: ref.lines(b),
        args_of=lambda s: (ref.getBoard(list(s)),), first="getBoard(state)",
        hint="6 rows, 7 columns, then the two kinds of diagonals, each from its top end")


WEIGHT_SETS = ((5, 30, 500), (5, 10, 50), (1, 7, 100))


def test_pattern_score(student):
    """pattern_score scores the window patterns of random boards with several weights"""
    states = as_tuples(random_states()[::2])
    run(student, "pattern_score", states,
        lambda b, w: ref.pattern_score(b, w),
        args_of=lambda s: (ref.getBoard(list(s)), list(WEIGHT_SETS[len(s) % 3])),
        first="getBoard(state)",
        hint="each pattern counts at most once per line; four in a row decides at once")


def test_evaluation(student):
    """evaluation and evaluation_b give the handout's values on random positions and wins"""
    states = as_tuples(list(random_states()) + list(won_states()))
    run(student, "evaluation", states, lambda s: ref.evaluation(s),
        hint="weights (5, 30, 500); a four in a row is +-10000")
    run(student, "evaluation_b", as_tuples(random_states()[::4]),
        lambda s: ref.evaluation_b(s), hint="weights (5, 10, 50)")


@functools.cache
def _terminal_states():
    finished = list(won_states()) + list(drawn_states())
    near = [s[:-1] for s in finished] + [s[:-2] for s in drawn_states()]
    return as_tuples(sorted(finished + near + list(random_states()[::2]),
                            key=lambda s: (len(s), s)))


def test_terminal_test(student):
    """terminal_test sees wins in every direction, full boards, and open games"""
    run(student, "terminal_test", _terminal_states(), lambda s: ref.terminal_test(s),
        hint="over means four in a row (any direction) or all 42 cells taken")


# ------------------------------------------------------------------ the search
def _reference_search(state, bremse, order=None):
    stats = ref.SearchStats()
    function = ref.maximize if ref.x_to_move(state) else ref.minimize
    best, value = function(list(state), -INF, INF, bremse, ref.evaluation, stats, order)
    return best, value, stats.as_dict()


@functools.cache
def _child_value(child, bremse):
    return ref.search(list(child), bremse, ref.evaluation)[1]


def _search_cases(kit_function, states, depths, order=None, note=""):
    cases = []
    for state in states:
        for bremse in depths:
            best, value, stats = _reference_search(state, bremse, order)
            if best is None:
                good = None
            else:
                good = [c for c in ref.nextstates(list(state))
                        if _child_value(tuple(c), bremse - 1) == value]
            who = "maximize" if len(state) % 2 == 0 else "minimize"
            cases.append(Case(f"{who}(state, -inf, inf, bremse={bremse}{note})",
                              (list(state), bremse), draw(list(state)),
                              {"value": value, "best": best, "good": good, "stats": stats}))
    return cases


def _result_shape(outcome):
    got = outcome.value
    if type(got) is not dict or "best" not in got:
        return f"returned {short(got)}"
    if type(got["value"]) not in (int, float):
        return f"the value must be a number, got {short(got['value'])}"
    return None


def _judge_value(case, outcome):
    problem = _result_shape(outcome)
    if problem:
        return problem
    got, want = outcome.value, case.expected
    shown = f"returned ({short(got['best'], 80)}, {short(got['value'])})"
    if got["value"] != want["value"]:
        return shown
    if want["good"] is None:
        return None if got["best"] is None else f"{shown}: no successor expected here"
    if got["best"] not in want["good"]:
        return f"{shown}: that successor does not reach the value"
    return None


@functools.cache
def value_cases():
    states = midgame_states(24, 5) + as_tuples(t["state"] for t in tactics()["win3"][:6])
    return _search_cases("search_value", states, (0, 1, 2, 3))


def test_alphabeta_values(student):
    """maximize/minimize return the depth-limited minimax value and a best successor"""
    chosen = value_cases()
    outcomes = student.map("c4kit.search_value", [c.args for c in chosen])
    check_all("the search returned the wrong value", chosen, outcomes, _judge_value,
              hint="Bremse d searches d moves deep: children get bremse - 1, and a "
                   "position is evaluated when bremse == 0 or the game is over")


def _judge_counts(case, outcome):
    problem = _result_shape(outcome)
    if problem:
        return problem
    got, want = outcome.value, case.expected
    if got["value"] != want["value"]:
        return f"returned the value {short(got['value'])}"
    if got["stats"] != want["stats"]:
        return f"counted {short(got['stats'])}"
    if got["seen"] != want["stats"]["expanded"]:
        return (f"called nextstates {got['seen']} times, the search with the handout's "
                "rules expands a different number of positions")
    return None


@functools.cache
def count_cases():
    states = midgame_states(16, 9)
    return (_search_cases("search_counts", states, (1, 2, 3))
            + _search_cases("search_counts", states[-3:], (4,))
            + _search_cases("search_counts",
                            as_tuples(t["state"] for t in tactics()["block"][:5]), (3,)))


def test_alphabeta_counts(student):
    """the search visits, evaluates and prunes exactly the handout's nodes"""
    chosen = count_cases()
    outcomes = student.map("c4kit.search_counts", [c.args for c in chosen])
    check_all("the search did not visit the handout's nodes", chosen, outcomes,
              _judge_counts,
              hint="count every call of maximize/minimize; cut when best >= beta "
                   "(max) or best <= alpha (min), after updating best")


@functools.cache
def finished_cases():
    states = sorted(list(won_states()[::8]) + list(drawn_states()), key=len)
    return _search_cases("search_finished", as_tuples(states), (0, 3))


def test_search_stops_at_finished_games(student):
    """the search evaluates a finished game at once and does not search past it"""
    chosen = finished_cases()
    outcomes = student.map("c4kit.search_finished", [c.args for c in chosen])
    check_all("the search went on after the game was over", chosen, outcomes, _judge_counts,
              hint="test terminal_test(state, evaluation) before generating children")


@functools.cache
def reversed_cases():
    return _search_cases("search_reversed", midgame_states(8, 13), (2, 3),
                         order=lambda children: children[::-1], note=", order=reversed")


def test_search_applies_the_order(student):
    """maximize/minimize search the children in the order the `order` function gives"""
    chosen = reversed_cases()
    outcomes = student.map("c4kit.search_reversed", [c.args for c in chosen])
    check_all("the search did not follow the order function", chosen, outcomes,
              _judge_counts, hint="rearrange nextstates(state) with order(children), "
                                  "and pass order on to the recursive calls")


# ------------------------------------------------------------------ move ordering
def test_centre_first(student):
    """centre_first orders successors by the distance of their column from the centre"""
    states = as_tuples(s for s in random_states()[::5] if not ref.terminal_test(s))
    run(student, "centre_first", states, lambda children: ref.centre_first(children),
        args_of=lambda s: (ref.nextstates(list(s)),), first="nextstates(state)")


def test_shallow_order(student):
    """shallow_order sorts successors by a shallow search, best for the mover first"""
    states = midgame_states(14, 17)
    run(student, "shallow_order", states,
        lambda children, bremse, _: ref.shallow_order(children, bremse, ref.evaluation),
        args_of=lambda s: (ref.nextstates(list(s)), 1 + len(s) % 2, KIT_EVAL),
        first="nextstates(state)",
        hint="search every child with the other side to move; equal values keep "
             "their order")


# ------------------------------------------------------------------ opening book
@functools.cache
def book_cases():
    book = {(): [38], (38,): [38, 31], (38, 31): [38, 31, 24], (36, 38): [36, 38, 29]}
    plain = {tuple(k): v for k, v in book.items()}
    states = [list(k) for k in book] + [s for s in random_states()[:60]
                                        if tuple(s) not in plain]
    return [Case(f"book_move(state, book={short(book, 60)})", (list(s), book),
                 draw(list(s)), ref.book_move(list(s), book)) for s in states]


def test_book_move(student):
    """book_move answers from the book (a new list) and None for other positions"""
    chosen = book_cases()
    outcomes = student.map(M + "book_move", [c.args for c in chosen])
    check_all("book_move gave the wrong answer", chosen, outcomes, exact)


KNOWN_BOOK_VALUES = {
    # Connect 4 is solved (Allen, Allis 1988): from the empty board only the
    # centre column wins for x; after it every answer of o loses, so every
    # move keeps the (lost) value.
    (): {3},
    (38,): set(range(7)),
}
SOLVABLE_STONES = 20


def test_opening_book_is_sound(student):
    """every entry of OPENING_BOOK is a legal move that keeps the game value"""
    outcome = student.call("c4kit.opening_book")
    require(outcome)
    if not outcome.answered or type(outcome.value) is not list or not outcome.value:
        raise CheckFailed("OPENING_BOOK could not be read (or is empty)", got=describe(outcome))
    for key, successor in outcome.value:
        call = f"OPENING_BOOK[{short(key, 80)}] = {short(successor, 90)}"
        if type(key) is not list or type(successor) is not list \
                or any(type(c) is not int for c in key + successor):
            raise CheckFailed("a book entry is not a tuple of cells -> list of cells",
                              call=call)
        try:
            solver.Position.from_cells(key)
        except ValueError as error:
            raise CheckFailed("a book entry is for a position that cannot occur", call=call,
                              problem=str(error)) from None
        if successor not in ref.nextstates(key):
            raise CheckFailed("a book move is not a legal move from its position", call=call,
                              position=draw(key))
        column = successor[-1] % 7
        if tuple(key) in KNOWN_BOOK_VALUES:
            keeps = column in KNOWN_BOOK_VALUES[tuple(key)]
        elif len(key) >= SOLVABLE_STONES:
            position = solver.Position.from_cells(key)
            keeps = position.is_winning_move(column) or \
                judge_solver().keeps_value(position, column, weak=True)
        else:
            raise CheckFailed("the grader cannot verify this book entry", call=call,
                              position=draw(key),
                              hint=f"book entries may only be for the empty board, [38], "
                                   f"or positions with at least {SOLVABLE_STONES} stones")
        if not keeps:
            raise CheckFailed("a book move throws away the game value", call=call,
                              position=draw(key), hint="the solver knows a better move")
    keys = [key for key, _ in outcome.value]
    answers = student.map(M + "book_move", [(key,) for key in keys])
    chosen = [Case("book_move(state)", (key,), draw(key), successor)
              for key, successor in outcome.value]
    check_all("book_move does not answer from OPENING_BOOK", chosen, answers, exact)


# ------------------------------------------------------------------ the player
def _tactic_check(student, kind, summary):
    chosen = [Case("computer_move(state, 3)", (t["state"], 3), draw(t["state"]),
                   "a move in column " + " or ".join(map(str, t["keep"])))
              for t in tactics()[kind]]
    keep = {tuple(t["state"]): set(t["keep"]) for t in tactics()[kind]}
    outcomes = student.map("c4kit.player_move", [c.args for c in chosen])

    def judge(case, outcome):
        state, got = case.args[0], outcome.value
        if type(got) is not list or got not in ref.nextstates(state):
            return f"returned {short(got)}, not a successor of the state"
        if got[-1] % 7 not in keep[tuple(state)]:
            return f"played column {got[-1] % 7}, which throws away the game value"
        return None
    check_all(summary, chosen, outcomes, judge)


def test_tactics_win_in_1(student):
    """the player (computer_move, Bremse 3) takes a win that is there"""
    _tactic_check(student, "win1", "the player missed a win")


def test_tactics_forced_block(student):
    """the player (computer_move, Bremse 3) blocks the opponent's four"""
    _tactic_check(student, "block", "the player did not block")


def test_tactics_win_in_3(student):
    """the player (computer_move, Bremse 3) finds a forced win three moves deep"""
    _tactic_check(student, "win3", "the player missed a forced win")


# ------------------------------------------------------------------ iterative deepening
def _reference_deepening(state, max_bremse):
    clock = iter(range(10 ** 9)).__next__
    return ref.iterative_deepening(list(state), 10 ** 9, ref.evaluation,
                                   clock=lambda: float(clock()), max_bremse=max_bremse)


def _deepening_judge(case, outcome):
    state, got = case.args[0], outcome.value
    if type(got) is not tuple or len(got) != 3:
        return f"returned {short(got)}, not (best_state, value, bremse)"
    best, value, depth = got
    if type(depth) is not int or depth < 1:
        return f"returned the depth {short(depth)}"
    if type(best) is not list or best not in ref.nextstates(state):
        return f"returned {short(best)}, not a successor of the state"
    want = ref.search(state, depth, ref.evaluation)[1]
    if value != want:
        return f"returned the value {short(value)} for depth {depth}"
    if depth > 1 and _child_value(tuple(best), depth - 1) != value:
        return f"its move does not reach the value of the depth-{depth} search"
    return None


@functools.cache
def deepening_states():
    return midgame_states(8, 21, 8, 26) + as_tuples(t["state"] for t in tactics()["win3"][6:])


def test_iterative_deepening_matches_fixed_depth(student):
    """iterative_deepening with max_bremse 3 plays as well as the depth-3 search"""
    chosen, outcomes, depths = [], [], {}
    for state in deepening_states():
        _, value, depth = _reference_deepening(state, 3)
        depths[state] = depth
        chosen.append(Case("iterative_deepening(state, 60, max_bremse=3)", (list(state),),
                           draw(list(state)), f"the depth-{depth} value {value}"))
        outcomes.append(student.call(M + "iterative_deepening", list(state), 60.0,
                                     evaluation=KIT_EVAL, max_bremse=3))

    def judge(case, outcome):
        problem = _deepening_judge(case, outcome)
        if problem:
            return problem
        want = depths[tuple(case.args[0])]
        if outcome.value[2] != want:
            return (f"stopped at depth {outcome.value[2]}; with time to spare it should "
                    f"reach depth {want} (it may stop early only for a decided game)")
        return None
    check_all("iterative deepening did not match the fixed-depth search", chosen, outcomes,
              judge)


BUDGETS = (0.0, 0.1, 0.3)


def test_iterative_deepening_respects_the_budget(student):
    """iterative_deepening answers within its time budget with a finished search"""
    scale = student.timeouts.call / 2.0
    chosen, outcomes = [], []
    for state in midgame_states(2, 23, 8, 14):
        for budget in BUDGETS:
            case = Case(f"iterative_deepening(state, {budget})", (list(state), budget),
                        draw(list(state)), f"an answer within {budget} s")
            outcome = student.call(M + "iterative_deepening", list(state), budget,
                                   evaluation=KIT_EVAL)
            chosen.append(case)
            outcomes.append(outcome)

    def judge(case, outcome):
        problem = _deepening_judge(case, outcome)
        if problem:
            return problem
        budget = case.args[1]
        allowed = budget + (0.15 + 0.25 * budget) * scale
        if outcome.seconds > allowed:
            return f"took {outcome.seconds:.2f} s for a budget of {budget} s"
        if budget >= 0.3 and outcome.value[2] < 2:
            return f"stopped at depth {outcome.value[2]} although it had {budget} s"
        return None
    check_all("iterative deepening did not keep to its time budget", chosen, outcomes, judge,
              hint="check the clock inside the search too, and give up a search that "
                   "runs out of time: return the deepest result that finished")


# ------------------------------------------------------------------ evaluations playing
@functools.cache
def game_cases():
    cases = []
    for opening, bremse in (((38,), 1), ((35, 36), 1), ((38, 38 - 7), 2), ((40,), 2)):
        state, result = ref.play_game(ref.evaluation, ref.evaluation_b, bremse, opening)
        cases.append(Case(f"play_game(evaluation, evaluation_b, {bremse}, {list(opening)})",
                          (KIT_EVAL, KIT_EVAL_B, bremse, list(opening)),
                          draw(list(opening)), [state, result]))
    return cases


def test_play_game(student):
    """play_game lets two evaluation functions play a whole game"""
    chosen = game_cases()
    outcomes = student.map(M + "play_game", [c.args for c in chosen])

    def judge(case, outcome):
        got = outcome.value
        if type(got) is not tuple or len(got) != 2:
            return f"returned {short(got)}, not (state, result)"
        if [got[0], got[1]] != case.expected:
            return f"returned {short(got)}"
        return None
    check_all("play_game played a different game", chosen, outcomes, judge,
              hint="x searches with evaluation_x, o with evaluation_o, centre first")


def test_tournament(student):
    """tournament plays every opening twice, colours swapped, and keeps the table"""
    openings = [[38], [36]]
    want = ref.tournament(ref.evaluation, ref.evaluation_b, openings, 1, ("A", "B"))
    outcome = student.call(M + "tournament", KIT_EVAL, KIT_EVAL_B, openings, 1, ["A", "B"])
    require(outcome)
    call = "tournament(evaluation, evaluation_b, [[38], [36]], 1, ['A', 'B'])"
    got = outcome.value
    if not outcome.answered or type(got) is not dict:
        raise CheckFailed("tournament did not return a result", call=call,
                          got=describe(outcome))
    if got.get("table") != want["table"]:
        raise CheckFailed("tournament's table is wrong", call=call,
                          got=short(got.get("table")), expected=want["table"])
    if got.get("games") != want["games"]:
        raise CheckFailed("tournament's list of games is wrong", call=call,
                          got=short(got.get("games"), 300), expected=short(want["games"]))


# ------------------------------------------------------------------ strength
def _random_player(seed):
    rng = random.Random(seed)
    return lambda state: rng.choice(ref.nextstates(state))


def _greedy(state):
    sign = 1 if ref.x_to_move(state) else -1
    children = ref.centre_first(ref.nextstates(state))
    return max(children, key=lambda c: sign * ref.evaluation(c))


def _shallow(state):
    return ref.search(state, 2, ref.evaluation, None, ref.centre_first)[0]


OPPONENTS = (("random", lambda: _random_player(5)), ("greedy", lambda: _greedy),
             ("seed evaluation, Bremse 2", lambda: _shallow))
STUDENT_BREMSE = 3
#: Points of 6 the player needs; the reference scores 5.
NEEDED = 4


@functools.cache
def strength_openings():
    rng = random.Random(31)
    return tuple(tuple(playout(rng, 2)) for _ in OPPONENTS)


def play_against(student, opponent, opening, student_is_x):
    """One game; returns (points for the student, final state, a problem or None)."""
    state = list(opening)
    while not ref.terminal_test(state):
        if ref.x_to_move(state) == student_is_x:
            outcome = student.call(M + "iterative_deepening", state, 30.0,
                                   max_bremse=STUDENT_BREMSE)
            require(outcome)
            got = outcome.value if outcome.answered else None
            if type(got) is not tuple or not got or got[0] not in ref.nextstates(state):
                return 0.0, state, f"iterative_deepening {describe(outcome)}"
            state = list(got[0])
        else:
            state = list(opponent(state))
    value = ref.evaluation(state)
    if abs(value) < WIN:
        return 0.5, state, None
    return (1.0 if (value > 0) == student_is_x else 0.0), state, None


def test_strength(student):
    """the timed player beats random, greedy and shallow opponents (both colours)"""
    results = []
    for (name, make), opening in zip(OPPONENTS, strength_openings()):
        for student_is_x in (True, False):
            points, state, problem = play_against(student, make(), opening, student_is_x)
            colour = "x" if student_is_x else "o"
            if problem:
                raise CheckFailed("the player made an illegal move", position=draw(state),
                                  call=f"game against {name}, you play {colour}", got=problem)
            results.append((name, colour, points, state))
    total = sum(points for _, _, points, _ in results)
    lost = [(n, c, s) for n, c, p, s in results if p == 0.0]
    weak_spot = [r for r in lost if r[0] == "random"]
    if weak_spot or total < NEEDED:
        name, colour, state = (weak_spot or lost)[0]
        raise CheckFailed(f"the player scored {total:g} of {len(results)} points (it needs "
                          f"every game against random and at least {NEEDED} in all)",
                          call=f"iterative_deepening(state, 30, max_bremse={STUDENT_BREMSE}) "
                               f"as {colour} against {name}",
                          position=draw(state), hint="this game was lost")

"""Hidden suite for muehle (Nine Men's Morris): the rules, memoised minimax, alpha-beta.

Expected values come from the reference in solutions/muehle/, loaded into this
trusted process. The rule checks call the student's functions directly on
about two thousand positions from seeded playouts and random boards, grouped
by phase (placing, moving, flying, a mill whose removal the protection rule
decides, game over), smallest first.

The search checks go through the kit module `child_kit.py`, which runs in the
sandbox: it installs a trusted copy of the rules into the student's module
while a probe runs (so a wrong rule costs points in the rule checks only),
counts `next_states` and `heuristic` calls, records the calls `alpha_beta` and
`best_move_ab` make to `value_ab`, and returns plain data judged here.
"""

from __future__ import annotations

import functools
import importlib.util
import random
from pathlib import Path

import pytest

from autograder.grading.checks import Case, CheckFailed, check_all, describe, require, short
from autograder.grading.reference import load_reference

ref = load_reference("muehle", "muehle")
W, B, E = ref.WHITE, ref.BLACK, ref.EMPTY
M = "muehle."
K = "kit."
NAMES = {W: "WHITE", B: "BLACK"}
STEP = 1 / 128


def _load_kit():
    path = Path(__file__).with_name("child_kit.py")
    spec = importlib.util.spec_from_file_location("_muehle_trusted_kit", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


kit = _load_kit()
mg = kit.movegen


# ------------------------------------------------------------------ positions
def T(state):
    return ref.to_tuple(state)


@functools.cache
def successors(state, player):
    """The reference's successors as a set of tuple-form states."""
    return {T(s) for s in ref.next_states(state, player)}


def stones_on_board(state):
    return sum(cell != E for cell in state[0])


def draw(state, player):
    return f"{ref.draw_board(state)}\n{NAMES[player]} to move"


def phase(state, player):
    if state[1][player - 1]:
        return "placing"
    return "flying" if state[0].count(player) == 3 else "moving"


def in_mill(board, p):
    return any(all(board[q] == board[p] for q in mill) for mill in ref.MILLS_AT[p])


def protection_matters(state, player):
    """A move closes a mill and at least one opponent stone sits in a mill."""
    other = ref.opponent(player)
    board = state[0]
    if not any(board[p] == other and in_mill(board, p) for p in range(24)):
        return False
    before = board.count(other)
    return any(s[0].count(other) < before for s in ref.next_states(state, player))


def _playouts(rng, games):
    """Seeded playouts; a mill is closed whenever one can be (short games, flying)."""
    found = []
    for _ in range(games):
        state, player = ref.initial_state(), W
        greedy = rng.random() < 0.7
        for _ in range(300):
            found.append((state, player))
            options = mg.next_states(state, player)
            if not options:
                break
            other = ref.opponent(player)
            takes = [s for s in options if s[0].count(other) < state[0].count(other)]
            state = rng.choice(takes if takes and greedy else options)
            player = other
    return found


def _random_board(rng, white, black, hand=(0, 0), quiet=None):
    points = rng.sample(range(24), white + black)
    board = [E] * 24
    for p in points[:white]:
        board[p] = W
    for p in points[white:]:
        board[p] = B
    return (tuple(board), hand, rng.randrange(0, 49) if quiet is None else quiet)


def _all_in_mills(rng, count):
    """The opponent's stones all stand in mills, and the player can close one."""
    found = []
    while len(found) < count:
        player = rng.choice([W, B])
        other = ref.opponent(player)
        first = rng.choice(ref.MILLS)
        mills = [first] + ([m for m in rng.sample(ref.MILLS, 16) if not set(m) & set(first)][:1]
                           if rng.random() < 0.5 else [])
        board = [E] * 24
        for mill in mills:
            for p in mill:
                board[p] = other
        free = [p for p in range(24) if board[p] == E]
        mine = rng.randrange(3, min(9, len(free)) + 1)
        for p in rng.sample(free, mine):
            board[p] = player
        hand = [0, 0]
        if rng.random() < 0.5:
            hand[player - 1] = rng.randrange(1, 9 - mine + 1) if mine < 9 else 0
        state = (tuple(board), tuple(hand), rng.randrange(0, 40))
        if ref.next_states(state, player) and protection_matters(state, player):
            found.append((state, player))
    return found


def _blocked(rng, count):
    """The player to move (4 or more stones, none in hand) has no legal move: a cluster of
    the player's stones whose free neighbours are all taken by the opponent."""
    found = []
    while len(found) < count:
        player = rng.choice([W, B])
        mine = {rng.randrange(24)}
        while len(mine) < rng.randrange(4, 8):
            mine.add(rng.choice([q for p in mine for q in ref.ADJACENT[p]]))
        around = {q for p in mine for q in ref.ADJACENT[p]} - mine
        if len(around) > 9:
            continue
        rest = [p for p in range(24) if p not in mine | around]
        yours = around | set(rng.sample(rest, min(len(rest), rng.randrange(0, 10 - len(around)))))
        board = tuple(player if p in mine else ref.opponent(player) if p in yours else E
                      for p in range(24))
        state = (board, (0, 0), rng.randrange(0, 49))
        if not ref.next_states(state, player):
            found.append((state, player))
    return found


def _smallest_first(pairs):
    return sorted(pairs, key=lambda sp: (stones_on_board(sp[0]), sp[1], repr(sp[0])))


@functools.cache
def pool():
    """Positions by category: placing, moving, flying, removal, over (each smallest first)."""
    rng = random.Random(20240917)
    pairs = _playouts(rng, 70)
    for _ in range(900):
        white, black = rng.randrange(2, 10), rng.randrange(2, 10)
        pairs.append((_random_board(rng, white, black), rng.choice([W, B])))
    for _ in range(150):            # placing with stones in hand
        white, black = rng.randrange(0, 8), rng.randrange(0, 8)
        hand = (rng.randrange(1, 10 - white), rng.randrange(1, 10 - black))
        pairs.append((_random_board(rng, white, black, hand, 0), rng.choice([W, B])))
    for _ in range(40):             # the draw counter
        white, black = rng.randrange(3, 10), rng.randrange(3, 10)
        pairs.append((_random_board(rng, white, black, quiet=ref.DRAW_PLIES),
                      rng.choice([W, B])))
    pairs += _all_in_mills(rng, 80)
    pairs += _blocked(rng, 30)
    seen, groups = set(), {k: [] for k in ("placing", "moving", "flying", "removal", "over")}
    for state, player in pairs:
        state = T(state)
        if (state, player) in seen:
            continue
        seen.add((state, player))
        if not ref.next_states(state, player):
            groups["over"].append((state, player))
        elif protection_matters(state, player) and phase(state, player) != "flying":
            groups["removal"].append((state, player))
        elif not protection_matters(state, player):
            groups[phase(state, player)].append((state, player))
    sizes = {"placing": 450, "moving": 700, "flying": 300, "removal": 450, "over": 200}
    return {name: _smallest_first(rng.sample(found, min(sizes[name], len(found))))
            for name, found in groups.items()}


@functools.cache
def everything():
    return [pair for group in pool().values() for pair in group]


@functools.cache
def moves(state, player):
    return len(successors(state, player))


def search_positions(count, seed, max_moves=99, phases=("placing", "moving", "flying")):
    """`count` unfinished positions per phase with at most `max_moves` successors."""
    rng = random.Random(seed)
    chosen = []
    for name in phases:
        by_size = sorted(pool()[name], key=lambda sp: moves(*sp))
        fitting = [sp for sp in by_size if moves(*sp) <= max_moves]
        if len(fitting) < 3 * count:
            fitting = by_size[:3 * count]
        chosen += rng.sample(fitting, count)
    return chosen


@functools.cache
def minimax_value(state, player, depth):
    return ref.value_minimax(T(state), player, depth)


# ------------------------------------------------------------------ judging
def as_state(value):
    """A student's state (either form) in tuple form, or None if it is not a state."""
    try:
        board, in_hand, quiet = value
        board, in_hand = tuple(board), tuple(in_hand)
    except (TypeError, ValueError):
        return None
    if len(board) != 24 or len(in_hand) != 2 or type(quiet) is not int \
            or any(type(x) is not int for x in board + in_hand):
        return None
    return (board, in_hand, quiet)


def move_words(before, after, player):
    """A move in words, from the change between two boards."""
    old, new = before[0], after[0]
    other = ref.opponent(player)
    left = [p for p in range(24) if old[p] == player and new[p] != player]
    came = [p for p in range(24) if new[p] == player and old[p] != player]
    taken = [p for p in range(24) if old[p] == other and new[p] != other]
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
    if missing:
        example = min(missing)
        return (f"misses {len(missing)} of the {len(want)} successors, e.g. the move that "
                f"{move_words(state, example, player)}")
    if extra:
        example = min(extra)
        if example[0] in {s[0] for s in want}:
            return (f"a successor has the right board but in_hand/quiet {example[1:]} "
                    "are wrong")
        return (f"returned {len(extra)} states that no legal move leads to, e.g. one that "
                f"{move_words(state, example, player)}")
    return None


@functools.cache
def rule_cases(group):
    return [Case("next_states(state, player)", (state, player), draw(state, player),
                 f"{len(successors(state, player))} successors")
            for state, player in pool()[group]]


def check_next_states(student, group, summary, hint):
    chosen = rule_cases(group)
    outcomes = student.map(M + "next_states", [c.args for c in chosen])
    check_all(summary, chosen, outcomes, judge_successors, hint=hint)


def exact(case, outcome):
    got, want = outcome.value, case.expected
    if type(got) is not type(want) or got != want:
        return f"returned {short(got)}"
    return None


def same_number(case, outcome):
    got, want = outcome.value, case.expected
    if type(got) not in (int, float) or got != want:
        return f"returned {short(got)}"
    return None


# ------------------------------------------------------------------ the game
def test_state_forms(student):
    """to_tuple and to_list convert states between the tuple and the list form"""
    rng = random.Random(3)
    states = [s for s, _ in _smallest_first(rng.sample(everything(), 40))]
    lists = [[list(s[0]), list(s[1]), s[2]] for s in states]
    chosen, outcomes = [], []
    for function, want in (("to_tuple", states), ("to_list", lists)):
        for given in (states, lists):
            cases = [Case(f"{function}(state)", (g,), draw(s, W), w)
                     for g, s, w in zip(given, states, want)]
            chosen += cases
            outcomes += student.map(M + function, [c.args for c in cases])

    def judge(case, outcome):
        got, want = outcome.value, case.expected
        if got != want or type(got) is not type(want) \
                or any(type(a) is not type(b) for a, b in zip(got, want)):
            return f"returned {short(got)}"
        return None
    check_all("a state came back in the wrong form", chosen, outcomes, judge,
              hint="tuple form: (tuple of 24, tuple of 2, int); list form: [list, list, int]")


def test_opponent(student):
    """opponent returns BLACK for WHITE and WHITE for BLACK"""
    chosen = [Case("opponent(WHITE)", (W,), None, B), Case("opponent(BLACK)", (B,), None, W)]
    check_all("opponent returned the wrong player", chosen,
              student.map(M + "opponent", [c.args for c in chosen]), exact)


def test_next_states_placing(student):
    """next_states places a stone from the hand on every empty point (placing phase)"""
    check_next_states(student, "placing", "next_states is wrong while stones are placed",
                      "a player with stones in hand places one on any empty point; the "
                      "hand shrinks by one and the quiet counter becomes 0")


def test_next_states_moving(student):
    """next_states slides a stone to an adjacent empty point (moving phase)"""
    check_next_states(student, "moving", "next_states is wrong in the moving phase",
                      "with no stones in hand a stone moves along a line to an adjacent "
                      "empty point (ADJACENT); the quiet counter grows by one unless a "
                      "stone is removed")


def test_next_states_flying(student):
    """next_states lets a player with exactly three stones fly to any empty point"""
    check_next_states(student, "flying", "next_states is wrong for a player with three stones",
                      "with exactly 3 stones on the board and none in hand, a stone may "
                      "jump to any empty point")


def test_next_states_removal(student):
    """after a mill, next_states removes a stone outside the opponent's mills (or any, if all are in mills)"""
    check_next_states(student, "removal", "next_states removes the wrong stones after a mill",
                      "a stone that stands in a mill may only be removed when every "
                      "opponent stone stands in a mill; one successor per removable stone")


def test_next_states_game_over(student):
    """next_states returns no successors when the game is over"""
    check_next_states(student, "over", "next_states returned moves in a finished game",
                      "below 3 stones, no legal move, or the quiet counter at DRAW_PLIES: "
                      "the game is over and there are no successors")


def test_next_states_keeps_its_input(student):
    """next_states accepts the list form, leaves its input unchanged and returns list-form states"""
    rng = random.Random(11)
    sample = _smallest_first(rng.sample(everything(), 150))
    chosen = [Case("next_states(state, player)", ([list(s[0]), list(s[1]), s[2]], p),
                   draw(s, p)) for s, p in sample]
    outcomes = student.map(M + "next_states", [c.args for c in chosen], return_args=True)

    def judge(case, outcome):
        if outcome.args_after is not None and outcome.args_after[0] != case.args[0]:
            return "changed the state it was given"
        got = outcome.value
        if type(got) is not list or any(type(s) is not list or len(s) != 3
                                         or type(s[0]) is not list or type(s[1]) is not list
                                         for s in got):
            return f"returned {short(got)}: the successors must be lists [board, in_hand, quiet]"
        return None
    check_all("next_states changed its input or returned the wrong form", chosen, outcomes,
              judge, hint="build new lists for each successor (to_list gives fresh ones)")


@functools.cache
def end_cases(function):
    over = set(pool()["over"])
    pairs = [sp for sp in everything() if function == "finished" or sp in over]
    expect = getattr(ref, function)
    return [Case(f"{function}(state, player)", (s, p), draw(s, p), expect(s, p))
            for s, p in _smallest_first(pairs)]


def test_finished(student):
    """finished agrees with the reference on every position (game-over ones included)"""
    chosen = end_cases("finished")
    check_all("finished was wrong", chosen,
              student.map(M + "finished", [c.args for c in chosen]), exact,
              hint="over below 3 stones (board and hand), without a legal move, or "
                   "when the quiet counter reaches DRAW_PLIES; return True or False")


def test_utility(student):
    """utility scores every finished position: 1, -1 or 0 for the player to move"""
    chosen = end_cases("utility")
    check_all("utility returned the wrong score", chosen,
              student.map(M + "utility", [c.args for c in chosen]), same_number,
              hint="check in order: player below 3 stones, opponent below 3 stones, "
                   "player without a move, draw")


def test_heuristic(student):
    """heuristic computes the handout's formula exactly on every position"""
    chosen = [Case("heuristic(state, player)", (s, p), draw(s, p), ref.heuristic(s, p))
              for s, p in everything()]
    check_all("heuristic returned the wrong value", chosen,
              student.map(M + "heuristic", [c.args for c in chosen]), same_number,
              hint="(8 * (S_me - S_you) + (T_me - T_you)) / 128; stones in hand count "
                   "in S, T counts lines with two own stones and one empty point")


# ------------------------------------------------------------------ memoised minimax
def test_memoize(student):
    """memoize calls the function once per distinct arguments and keeps the results in .cache"""
    outcome = student.call(K + "memoize_probe")
    require(outcome)
    got = outcome.value if outcome.answered else None
    want = {"results": [123, 123, 124, 213, 123, 124, 213],
            "calls": [[1, 2, 3], [1, 2, 4], [2, 1, 3]],
            "cache": [[[1, 2, 3], 123], [[1, 2, 4], 124], [[2, 1, 3], 213]],
            "separate": True}
    if got == want:
        return
    call = "g = memoize(f); g(1, 2, 3); g(1, 2, 3); g(1, 2, 4); g(2, 1, 3); ..."
    if not outcome.answered:
        problem = describe(outcome)
    elif got["results"] != want["results"]:
        problem = f"g returned {got['results']}: a different argument must give a new result"
    elif got["calls"] != want["calls"]:
        problem = f"f was called with {got['calls']}: once for each distinct arguments"
    elif got["cache"] != want["cache"]:
        problem = f"g.cache holds {short(got['cache'])}: key = the tuple of all arguments"
    else:
        problem = "two memoised functions share one cache"
    raise CheckFailed("memoize does not cache as specified", call=call, got=problem,
                      hint="the key is args, the whole tuple of arguments "
                           "(state, player and depth for value_minimax)")


def _pick(pairs, count, seed):
    return random.Random(seed).sample(pairs, count)


@functools.cache
def minimax_cases():
    chosen = []
    for depth, count, most in ((1, 10, 99), (2, 6, 30)):
        for state, player in search_positions(count, depth, most):
            chosen.append(Case(f"value_minimax(state, player, {depth})",
                               ([[state, player, depth]],), draw(state, player),
                               [minimax_value(state, player, depth)]))
    for state, player in _pick(pool()["over"], 6, 4):
        chosen.append(Case("value_minimax(state, player, 2)", ([[state, player, 2]],),
                           draw(state, player), [minimax_value(state, player, 2)]))
    return chosen


def _values(case, outcome):
    if outcome.value != case.expected:
        return f"returned {short(outcome.value[0] if type(outcome.value) is list and len(outcome.value) == 1 else outcome.value)}"
    return None


def test_value_minimax(student):
    """value_minimax returns the reference's negamax value at depths 1 and 2"""
    chosen = minimax_cases()
    outcomes = student.map(K + "minimax_values", [c.args for c in chosen])
    check_all("value_minimax returned the wrong value", chosen, outcomes, _values,
              hint="finished: utility; depth 0: heuristic; otherwise the largest "
                   "-value_minimax(successor, opponent, depth - 1)")


@functools.cache
def cache_cases():
    chosen = []
    for state, player in search_positions(2, 5, 10, ("moving", "flying")):
        ref.clear_caches()
        with ref.count_nodes() as counts:
            value = ref.value_minimax(T(state), player, 3)
        chosen.append(Case("value_minimax(state, player, 3), then the same call again",
                           (state, player, 3), draw(state, player),
                           {"value": value, "heuristic": counts["heuristic"]}))
    ref.clear_caches()
    return chosen


def test_value_minimax_uses_its_cache(student):
    """value_minimax is memoised: every position is evaluated once, and a repeated call costs nothing"""
    chosen = cache_cases()
    outcomes = student.map(K + "minimax_cache_probe", [c.args for c in chosen])

    def judge(case, outcome):
        got, want = outcome.value, case.expected
        if got["value"] != want["value"]:
            return f"returned {short(got['value'])}"
        if got["repeat_work"] or got["again"] != got["value"]:
            return "the repeated call searched again instead of using the cache"
        if not got["root_cached"]:
            return "value_minimax.cache holds no entry (state, player, depth) for the call"
        if got["heuristic"] > want["heuristic"]:
            return (f"called heuristic {got['heuristic']} times; with a working cache it "
                    f"is called once per distinct position ({want['heuristic']} times)")
        return None
    check_all("value_minimax does not use its cache", chosen, outcomes, judge,
              hint="decorate value_minimax with @memoize and pass the state in tuple form")


@functools.cache
def key_cases():
    """Mixed depths and players on the same positions, caches kept: values must not leak."""
    chosen = []
    for state, player in search_positions(3, 6, 25):
        other = ref.opponent(player)
        queries = [[state, player, 1], [state, player, 2], [state, other, 1],
                   [state, player, 0], [state, other, 2]]
        queries = [q for q in queries if not ref.finished(q[0], q[1])]
        want = [minimax_value(*q) for q in queries]
        chosen.append(Case("value_minimax(state, p, d) for (p, d) = " +
                           ", ".join(f"({NAMES[p]}, {d})" for _, p, d in queries) +
                           " in turn, caches kept", (queries,), draw(state, player), want))
    return chosen


def test_value_minimax_cache_key(student):
    """memoised values do not leak between depths or players (the key is state, player and depth)"""
    chosen = key_cases()
    outcomes = student.map(K + "minimax_values", [c.args for c in chosen])
    check_all("value_minimax returned a cached value of another depth or player", chosen,
              outcomes, lambda c, o: None if o.value == c.expected else
              f"returned {short(o.value)}",
              hint="the cache key must hold the state, the player and the depth")


def _best(state, player, depth, value, successor):
    """None if (value, successor) is a best move, else why not."""
    want = minimax_value(state, player, depth)
    if type(value) not in (int, float) or value != want:
        return f"the value {short(value)} is not the position's minimax value"
    if as_state(successor) not in successors(state, player):
        return f"{short(successor)} is not a successor of the position"
    successor = as_state(successor)
    if -minimax_value(successor, ref.opponent(player), depth - 1) != want:
        return f"the move that {move_words(state, successor, player)} is not a best move"
    return None


@functools.cache
def best_minimax_cases():
    chosen = []
    for depth, count in ((1, 4), (2, 2)):
        for state, player in search_positions(count, 20 + depth, 30):
            chosen.append(Case(f"best_move_minimax(state, player, {depth}, rng)",
                               (state, player, depth, [1, 2, 3]), draw(state, player)))
    return chosen


def test_best_move_minimax(student):
    """best_move_minimax returns the minimax value and a move that reaches it"""
    chosen = best_minimax_cases()
    outcomes = student.map(K + "best_move_minimax_probe", [c.args for c in chosen])

    def judge(case, outcome):
        state, player, depth, _ = case.args
        for value, successor in outcome.value:
            reason = _best(state, player, depth, value, successor)
            if reason:
                return reason
        return None
    check_all("best_move_minimax did not return a best move", chosen, outcomes, judge,
              hint="value = value_minimax(to_tuple(state), player, depth); keep the "
                   "successors s with -value_minimax(to_tuple(s), opponent, depth - 1) == value")


def test_best_move_minimax_is_random(student):
    """best_move_minimax chooses at random (with rng) among equally good moves"""
    start = ref.initial_state()
    outcome = student.call(K + "best_move_minimax_probe", start, W, 1, list(range(24)))
    require(outcome)
    call = "best_move_minimax(initial_state(), WHITE, 1, random.Random(seed)) for 24 seeds"
    if not outcome.answered:
        raise CheckFailed("best_move_minimax failed on the start position", call=call,
                          position=draw(start, W), got=describe(outcome))
    for value, successor in outcome.value:
        reason = _best(start, W, 1, value, successor)
        if reason:
            raise CheckFailed("best_move_minimax did not return a best move", call=call,
                              position=draw(start, W), got=reason)
    chosen = {tuple(s) if isinstance(s, tuple) else repr(s) for _, s in outcome.value[:-1]}
    if len(chosen) < 4:
        raise CheckFailed("best_move_minimax does not choose at random among equal moves",
                          call=call, position=draw(start, W),
                          got=f"only {len(chosen)} different moves in 24 tries, while all 24 "
                              "placements are equally good",
                          hint="collect every best successor and pick one with rng.choice")


# ------------------------------------------------------------------ alpha-beta
def test_value_ab_reuses_cached_values(student):
    """value_ab stores (value, alpha, beta) under (state, player, depth) and reuses it for a window inside"""
    state, player = search_positions(1, 30, 20, ("moving",))[0]
    as_list = [list(state[0]), list(state[1]), state[2]]
    answer = 37 * STEP
    other = ref.opponent(player)
    scenarios = [
        ("empty cache, window (-1/2, 1/2)", [], (-0.5, 0.5),
         {"result": answer, "calls": [[state, player, -0.5, 0.5, 2]],
          "entry": [answer, -0.5, 0.5]}),
        ("cached (1/4, -1, 1), window (-1/2, 1/2)", [[state, player, 2, 0.25, -1, 1]],
         (-0.5, 0.5), {"result": 0.25, "calls": [], "entry": [0.25, -1, 1]}),
        ("cached (1/4, -1/2, 1/2), the same window", [[state, player, 2, 0.25, -0.5, 0.5]],
         (-0.5, 0.5), {"result": 0.25, "calls": [], "entry": [0.25, -0.5, 0.5]}),
        ("cached for depth 1 and for the opponent only, window (-1, 1)",
         [[state, player, 1, 0.25, -1, 1], [state, other, 2, 0.25, -1, 1]], (-1, 1),
         {"result": answer, "calls": [[state, player, -1, 1, 2]], "entry": [answer, -1, 1]}),
    ]
    _value_ab_scenarios(student, state, player, as_list, answer, scenarios,
                        "value_ab does not use AB_CACHE as specified",
                        "key (to_tuple(state), player, depth); reuse the entry when its "
                        "window contains the one asked for")


def test_value_ab_respects_the_window(student):
    """value_ab does not reuse a value computed for a narrower window; it widens the window"""
    state, player = search_positions(1, 31, 20, ("moving",))[0]
    as_list = [list(state[0]), list(state[1]), state[2]]
    answer = -21 * STEP
    scenarios = [
        ("cached (1/4, -1/4, 1/4), window (-1, 1)", [[state, player, 2, 0.25, -0.25, 0.25]],
         (-1, 1), {"result": answer, "calls": [[state, player, -1, 1, 2]],
                   "entry": [answer, -1, 1]}),
        ("cached (1/4, -1/2, 1/4), window (-1/4, 1/2)", [[state, player, 2, 0.25, -0.5, 0.25]],
         (-0.25, 0.5), {"result": answer, "calls": [[state, player, -0.5, 0.5, 2]],
                        "entry": [answer, -0.5, 0.5]}),
        ("cached (1/4, 0, 1), window (-1, 1)", [[state, player, 2, 0.25, 0, 1]],
         (-1, 1), {"result": answer, "calls": [[state, player, -1, 1, 2]],
                   "entry": [answer, -1, 1]}),
    ]
    _value_ab_scenarios(student, state, player, as_list, answer, scenarios,
                        "value_ab reused a value outside the window it was computed for",
                        "a value computed with the window (a, b) is only exact inside it: "
                        "search again with the window widened to (min(alpha, a), max(beta, b))")


def _value_ab_scenarios(student, state, player, as_list, answer, scenarios, summary, hint):
    for words, planted, (alpha, beta), want in scenarios:
        outcome = student.call(K + "value_ab_probe", planted, as_list, player, alpha, beta, 2,
                               answer)
        require(outcome)
        call = (f"value_ab(state, {NAMES[player]}, {alpha}, {beta}, 2) with AB_CACHE: {words}"
                f"; alpha_beta replaced by a stub that returns {answer}")
        if not outcome.answered:
            raise CheckFailed(summary, call=call, position=draw(state, player),
                              got=describe(outcome), hint=hint)
        got = outcome.value
        if got == want:
            continue
        if got["calls"] != want["calls"]:
            problem = (f"alpha_beta was called with (alpha, beta) = "
                       f"{[tuple(c[2:4]) for c in got['calls']]}"
                       if got["calls"] else "alpha_beta was not called")
        elif got["result"] != want["result"]:
            problem = f"returned {short(got['result'])}"
        else:
            problem = f"AB_CACHE then held {short(got['entry'])} for the key"
        raise CheckFailed(summary, call=call, position=draw(state, player), got=problem,
                          expected=f"alpha_beta calls {want['calls'] and [tuple(c[2:4]) for c in want['calls']]}, "
                                   f"result {want['result']}, entry {want['entry']}",
                          hint=hint)


@functools.cache
def ab_cases():
    chosen = []
    for depth, count, most in ((2, 4, 24), (3, 2, 12)):
        for state, player in search_positions(count, 40 + depth, most):
            chosen.append(Case(f"value_ab(state, player, -1, 1, {depth}) and "
                               f"value_minimax(state, player, {depth})",
                               (state, player, depth), draw(state, player),
                               minimax_value(state, player, depth)))
    return chosen


@pytest.fixture(scope="session")
def ab_runs(student):
    chosen = ab_cases()
    return chosen, student.map(K + "ab_and_minimax", [c.args for c in chosen])


def test_alpha_beta_equals_minimax(student, ab_runs):
    """alpha-beta (value_ab, full window) returns minimax's value at the same depth"""
    chosen, outcomes = ab_runs
    check_all("value_ab returned a value other than minimax's", chosen, outcomes,
              lambda c, o: None if o.value["ab"] == c.expected else
              f"returned {short(o.value['ab'])}",
              hint="with the window (-1, 1) alpha-beta must return the exact minimax value")


def test_alpha_beta_prunes(student, ab_runs):
    """alpha-beta explores fewer nodes than memoised minimax at the same depth"""
    chosen, outcomes = ab_runs
    for outcome in outcomes:
        require(outcome)
    answered = [o for o in outcomes if o.answered]
    if len(answered) < len(outcomes):
        case, outcome = next((c, o) for c, o in zip(chosen, outcomes) if not o.answered)
        raise CheckFailed("the search failed", call=case.call, position=case.position,
                          got=describe(outcome))
    ab = sum(o.value["ab_nodes"] for o in answered)
    mm = sum(o.value["minimax_nodes"] for o in answered)
    if not ab < 0.8 * mm:
        raise CheckFailed("alpha-beta does not prune", call=f"{len(chosen)} searches",
                          got=f"alpha-beta explored {ab} nodes, memoised minimax {mm} "
                              "(nodes: next_states and heuristic calls)",
                          hint="stop trying moves as soon as the value reaches beta, and "
                               "pass the narrowed window (-beta, -alpha) down")


def test_alpha_beta_window_contract(student):
    """alpha-beta with a narrow window keeps the contract: exact inside, a bound outside"""
    chosen = []
    for state, player in search_positions(2, 50, 20):
        v = minimax_value(state, player, 2)
        for alpha, beta, rule in ((v + STEP, 1, "<="), (-1, v - STEP, ">="),
                                  (v - STEP, v + STEP, "==")):
            if -1 <= alpha < beta <= 1:
                chosen.append(Case(f"value_ab(state, player, {alpha}, {beta}, 2)",
                                   ([[state, player, alpha, beta, 2]],), draw(state, player),
                                   (rule, alpha, beta, v)))
    outcomes = student.map(K + "ab_windows", [c.args for c in chosen])

    def judge(case, outcome):
        rule, alpha, beta, v = case.expected
        got = outcome.value[0]
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


def test_get_order_value(student):
    """get_order_value reads the cached value of the previous depth (0 when there is none)"""
    (s1, p1), (s2, p2) = search_positions(2, 60, 99, ("placing",))
    o1 = ref.opponent(p1)
    planted = [[s1, p1, 2, 5 * STEP], [s1, p1, 3, -9 * STEP], [s1, o1, 2, 11 * STEP],
               [s2, p2, 3, 7 * STEP]]
    queries = [[s1, p1, 3], [s1, o1, 3], [s2, p2, 3], [s1, p1, 4]]
    want = [5 * STEP, 11 * STEP, 0, -9 * STEP]
    outcome = student.call(K + "order_value_probe", planted, queries)
    require(outcome)
    if not outcome.answered or outcome.value != want:
        raise CheckFailed("get_order_value read the wrong entry",
                          call="get_order_value(s, p, d) for four keys, AB_CACHE holding "
                               "entries for neighbouring depths and both players",
                          position=draw(s1, p1), got=describe(outcome), expected=want,
                          hint="the key is (to_tuple(state), player, depth - 1); "
                               "0 when AB_CACHE has no such entry")


@functools.cache
def order_cases():
    chosen = []
    rng = random.Random(70)
    for depth, (state, player) in zip((2, 3, 2, 3), search_positions(2, 70, 20, ("moving", "placing"))):
        other = ref.opponent(player)
        order = [kit.game_to_tuple(s) for s in kit.game_next_states(state, player)]
        values = rng.sample(range(1, 60), len(order))
        planted, keyed = [], {}
        for index, (s, v) in enumerate(zip(order, values)):
            if index % 5 == 4:
                continue                      # no entry: its order value is 0
            v = v * STEP * (1 if index % 2 else -1)
            keyed[s] = v
            planted += [[s, other, depth - 2, v],     # the previous iteration
                        [s, other, depth - 1, -v],    # decoys: wrong depth, wrong player
                        [s, player, depth - 2, -v]]
        want = sorted(order, key=lambda s: keyed.get(s, 0))
        chosen.append(Case(f"alpha_beta(state, player, -1, 1, {depth}) with AB_CACHE "
                           "holding the previous iteration's values",
                           (planted, state, player, depth), draw(state, player), want))
    return chosen


def test_alpha_beta_orders_moves(student):
    """alpha_beta tries the moves in the order of the previous iteration's values"""
    chosen = order_cases()
    outcomes = student.map(K + "alpha_beta_order_probe", [c.args for c in chosen])

    def judge(case, outcome):
        tried = outcome.value["tried"]
        if tried == case.expected:
            return None
        if sorted(map(repr, tried)) != sorted(map(repr, case.expected)):
            return f"tried {len(tried)} moves, not each of the {len(case.expected)} successors once"
        return "tried the successors in another order"
    check_all("alpha_beta did not order the moves by the previous iteration", chosen,
              outcomes, judge,
              hint="sort the successors by get_order_value(s, opponent(player), depth - 1), "
                   "smallest first (a value for the opponent: small is good for you)")


@functools.cache
def best_ab_cases():
    chosen = []
    for depth, count, most in ((2, 2, 24), (3, 1, 12)):
        for state, player in search_positions(count, 80 + depth, most):
            chosen.append(Case(f"best_move_ab(state, player, {depth})", (state, player, depth),
                               draw(state, player)))
    return chosen


@pytest.fixture(scope="session")
def best_ab_runs(student):
    chosen = best_ab_cases()
    return chosen, student.map(K + "best_move_ab_probe", [c.args for c in chosen])


def test_best_move_ab(student, best_ab_runs):
    """best_move_ab returns the minimax value and a move that reaches it"""
    chosen, outcomes = best_ab_runs
    check_all("best_move_ab did not return a best move", chosen, outcomes,
              lambda c, o: _best(*c.args, o.value["value"], o.value["successor"]),
              hint="the first entry of the list after the last iteration is a best move")


def test_best_move_ab_deepens(student, best_ab_runs):
    """best_move_ab deepens iteratively and orders the moves by the previous iteration"""
    chosen, outcomes = best_ab_runs

    def judge(case, outcome):
        state, player, depth = case.args
        top = outcome.value["top"]
        want = successors(state, player)
        groups = []
        for s, p, d, value in top:
            if p != ref.opponent(player):
                return "called value_ab for the wrong player"
            if not groups or groups[-1][0] != d:
                groups.append((d, []))
            groups[-1][1].append((s, value))
        depths = [d for d, _ in groups]
        if not groups or depths[-1] != depth - 1 or len(groups) < 2 \
                or depths != list(range(depths[0], depth)):
            return (f"valued the successors at the depths {depths}: iterative deepening "
                    f"searches each depth from 0 (or 1) up to {depth - 1} in turn")
        for d, entries in groups:
            if {s for s, _ in entries} != want or len(entries) != len(want):
                return f"the iteration at depth {d} did not value each successor once"
        for (d, before), (_, after) in zip(groups, groups[1:]):
            expect = [s for s, _ in sorted(before, key=lambda e: e[1]
                                           if type(e[1]) in (int, float) else 0)]
            if [s for s, _ in after] != expect:
                return (f"the iteration at depth {d + 1} did not try the moves best first "
                        f"by the values of depth {d}")
        return None
    check_all("best_move_ab does not deepen iteratively", chosen, outcomes, judge,
              hint="for d in range(depth): value every successor with value_ab at depth d, "
                   "then sort the list best first (a stable sort) for the next iteration")


# ------------------------------------------------------------------ playing strength
def _random_player(state, player, rng):
    return rng.choice(mg.next_states(state, player))


def _greedy_player(state, player, rng):
    options = mg.next_states(state, player)
    other = ref.opponent(player)
    scores = [-ref.heuristic(s, other) for s in options]
    best = max(scores)
    return rng.choice([s for s, v in zip(options, scores) if v == best])


def test_strength(student):
    """best_move_ab (depth 2) beats a random and a greedy player, with either colour"""
    wins, log = 0, []
    for name, opponent_move in (("random", _random_player), ("greedy", _greedy_player)):
        for colour in (W, B):
            rng = random.Random(f"{name}-{colour}")
            state, player = ref.initial_state(), W
            for ply in range(160):
                if ref.finished(state, player):
                    break
                if player == colour:
                    outcome = student.call(K + "play_move", state, player, 2)
                    require(outcome)
                    after = as_state(outcome.value) if outcome.answered else None
                    if after not in successors(state, player):
                        raise CheckFailed(
                            "your player made an illegal move in a game", position=draw(state, player),
                            call=f"best_move_ab(state, {NAMES[player]}, 2), move {ply + 1} of a "
                                 f"game against the {name} player",
                            got=describe(outcome) if not outcome.answered else
                            f"a state no legal move leads to: {short(after)}")
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

"""The muehle reference's search: memoize, minimax, alpha-beta's cache, ordering, deepening."""

from __future__ import annotations

import importlib.util
import random
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "solutions" / "muehle" / "muehle.py"


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ref = _load("muehle_reference_search", REFERENCE)
W, B = ref.WHITE, ref.BLACK


@pytest.fixture(autouse=True)
def fresh_caches():
    ref.clear_caches()
    yield
    ref.clear_caches()


def phase(state, player):
    if state[1][player - 1]:
        return "placing"
    return "flying" if state[0].count(player) == 3 else "moving"


def positions_by_phase(per_phase, seed):
    """Unfinished (state, player) pairs from seeded random playouts, `per_phase` of each phase."""
    rng = random.Random(seed)
    found = {"placing": [], "moving": [], "flying": []}
    while min(len(v) for v in found.values()) < per_phase:
        state, player = ref.initial_state(), W
        for _ in range(200):
            successors = ref.next_states(state, player)
            if not successors:
                break
            bucket = found[phase(state, player)]
            if len(bucket) < per_phase and rng.random() < 0.08:
                bucket.append((state, player))
            state, player = ref.to_tuple(rng.choice(successors)), ref.opponent(player)
    return found


POSITIONS = positions_by_phase(4, seed=2024)


# --- memoize -----------------------------------------------------------------

def test_memoize_calls_once_per_distinct_arguments():
    calls = []

    def f(a, b):
        calls.append((a, b))
        return 10 * a + b

    g = ref.memoize(f)
    h = ref.memoize(f)
    assert [g(1, 2), g(1, 2), g(2, 1), g(1, 2)] == [12, 12, 21, 12]
    assert calls == [(1, 2), (2, 1)]
    assert g.cache == {(1, 2): 12, (2, 1): 21}
    assert g.__wrapped__ is f and h.cache == {}
    assert h(1, 2) == 12 and len(calls) == 3           # each memoised function has its own cache


def test_value_minimax_cache_hits_and_keys():
    start = ref.initial_state()
    with ref.count_nodes() as counts:
        value = ref.value_minimax(start, W, 3)
    # Distinct positions: 1 + 24 + 552 are expanded, 24 * 23 * 22 / 2 = 6072 evaluated; the
    # other 6072 leaves (the same two white stones placed in the other order) are cache hits.
    assert counts["next_states"] == 1 + 24 + 552
    assert counts["heuristic"] == 6072
    assert (start, W, 3) in ref.value_minimax.cache
    assert ref.value_minimax.cache[(start, W, 3)] == value
    assert all(len(key) == 3 and key[1] in (W, B) for key in ref.value_minimax.cache)
    with ref.count_nodes() as counts:
        assert ref.value_minimax(start, W, 3) == value
    assert counts["total"] == 0                           # a hit
    with ref.count_nodes() as counts:
        ref.value_minimax(start, B, 3)                    # the key holds the player
    assert counts["next_states"] > 0
    with ref.count_nodes() as counts:
        ref.value_minimax(start, W, 2)                    # ... and the depth
    assert counts["next_states"] > 0


# --- alpha-beta against minimax ----------------------------------------------

@pytest.mark.parametrize("which", ["placing", "moving", "flying"])
def test_alpha_beta_equals_minimax_with_fewer_nodes(which):
    total_mm = total_ab = 0
    for state, player in POSITIONS[which]:
        for depth in (1, 2, 3):
            ref.clear_caches()
            with ref.count_nodes() as mm:
                expected = ref.value_minimax(ref.to_tuple(state), player, depth)
            ref.clear_caches()
            with ref.count_nodes() as ab:
                assert ref.value_ab(state, player, -1, 1, depth) == expected
            ref.clear_caches()
            value, move = ref.best_move_ab(state, player, depth)
            assert value == expected
            assert move in ref.next_states(state, player)
            ref.clear_caches()
            assert ref.value_minimax(ref.to_tuple(move), ref.opponent(player), depth - 1) \
                == -expected
            if depth == 3:
                assert ab["total"] <= mm["total"], (which, depth)
                total_mm += mm["total"]
                total_ab += ab["total"]
    assert total_ab < total_mm


def test_alpha_beta_equals_minimax_at_depth_4_from_the_start():
    start = ref.initial_state()
    with ref.count_nodes() as mm:
        expected = ref.value_minimax(start, W, 4)
    ref.clear_caches()
    with ref.count_nodes() as ab:
        value, _ = ref.best_move_ab(start, W, 4)
    assert value == expected == 0
    assert ab["total"] * 10 < mm["total"]


def test_alpha_beta_window_contract_on_narrow_windows():
    rng = random.Random(7)
    for state, player in POSITIONS["moving"] + POSITIONS["placing"]:
        exact = ref.value_minimax(ref.to_tuple(state), player, 2)
        for _ in range(4):
            a, b = sorted(rng.randrange(-40, 41) / 128 for _ in range(2))
            ref.AB_CACHE.clear()
            r = ref.value_ab(state, player, a, b, 2)
            if a <= exact <= b:
                assert r == exact
            elif exact < a:
                assert r <= a
            else:
                assert r >= b


# --- the window-aware cache --------------------------------------------------

def test_cached_value_reused_for_a_narrower_window():
    state, player = POSITIONS["moving"][0]
    value = ref.value_ab(state, player, -1, 1, 3)
    assert ref.AB_CACHE[(ref.to_tuple(state), player, 3)] == (value, -1, 1)
    with ref.count_nodes() as counts:
        assert ref.value_ab(state, player, -0.5, 0.25, 3) == value
    assert counts["total"] == 0


def test_value_from_a_narrow_window_is_not_reused_for_a_wider_one():
    state, player, exact = next(
        (s, p, v) for s, p in POSITIONS["moving"] + POSITIONS["placing"]
        for v in [ref.value_minimax(ref.to_tuple(s), p, 2)] if abs(v) < 0.5)
    # A window entirely above the true value: the search fails low.
    low, high = exact + 1 / 128, exact + 3 / 128
    bound = ref.value_ab(state, player, low, high, 2)
    assert bound <= low and bound != exact
    key = (ref.to_tuple(state), player, 2)
    assert ref.AB_CACHE[key] == (bound, low, high)
    with ref.count_nodes() as counts:
        assert ref.value_ab(state, player, -1, 1, 2) == exact
    assert counts["next_states"] > 0                      # searched again, not reused
    assert ref.AB_CACHE[key] == (exact, -1, 1)


def test_partly_overlapping_window_is_widened_to_the_union():
    state, player = POSITIONS["placing"][0]
    key = (ref.to_tuple(state), player, 1)
    ref.value_ab(state, player, 0.1, 0.2, 1)
    assert ref.AB_CACHE[key][1:] == (0.1, 0.2)
    ref.value_ab(state, player, 0.0, 0.15, 1)
    assert ref.AB_CACHE[key][1:] == (0.0, 0.2)
    ref.value_ab(state, player, 0.05, 0.5, 1)
    assert ref.AB_CACHE[key][1:] == (0.0, 0.5)


# --- move ordering and iterative deepening -----------------------------------

def test_get_order_value_reads_the_previous_depth():
    state = ref.to_list(POSITIONS["moving"][0][0])
    key = (ref.to_tuple(state), B, 1)
    assert ref.get_order_value(state, B, 2) == 0
    ref.AB_CACHE[key] = (0.375, -1, 1)
    assert ref.get_order_value(state, B, 2) == 0.375
    assert ref.get_order_value(ref.to_tuple(state), B, 2) == 0.375
    assert ref.get_order_value(state, W, 2) == 0
    assert ref.get_order_value(state, B, 3) == 0


def record_value_ab(monkeypatch):
    """Record every value_ab call (state, player, depth, result) made through the module."""
    calls = []
    original = ref.value_ab

    def recording(state, player, alpha=-1, beta=1, depth=4):
        result = original(state, player, alpha, beta, depth)
        calls.append((ref.to_tuple(state), player, depth, result))
        return result

    monkeypatch.setattr(ref, "value_ab", recording)
    return calls


def test_alpha_beta_tries_moves_in_previous_iteration_order(monkeypatch):
    state, player = POSITIONS["placing"][1]
    other = ref.opponent(player)
    ref.best_move_ab(state, player, 2)                    # leaves depth-1 values in AB_CACHE
    children = {ref.to_tuple(s) for s in ref.next_states(state, player)}
    calls = record_value_ab(monkeypatch)
    # value_ab's own call re-enters alpha_beta, whose children calls go through the recorder
    ref.alpha_beta(state, player, -1, 1, 3)
    order = [s for s, p, d, _ in calls if d == 2 and p == other and s in children]
    keys = [ref.AB_CACHE.get((s, other, 1), (0,))[0] for s in order]
    assert len(order) >= 2
    assert keys == sorted(keys) and keys[0] < keys[-1]


def test_best_move_ab_deepens_and_reorders(monkeypatch):
    state, player = POSITIONS["moving"][2]
    other = ref.opponent(player)
    first = [ref.to_tuple(s) for s in ref.next_states(state, player)]
    calls = record_value_ab(monkeypatch)
    value, move = ref.best_move_ab(state, player, 3)
    rounds = {}
    for s, p, d, result in calls:
        if p == other and s in first:
            rounds.setdefault(d, []).append((s, -result))
    assert sorted(rounds) == [0, 1, 2]
    assert [s for s, _ in rounds[0]] == first
    for d in (1, 2):
        previous = rounds[d - 1]
        expected = [s for s, _ in sorted(previous, key=lambda e: e[1], reverse=True)]
        assert [s for s, _ in rounds[d]] == expected
    best = max(v for _, v in rounds[2])
    assert value == best == ref.value_minimax(ref.to_tuple(state), player, 3)
    assert ref.to_tuple(move) == next(s for s, v in rounds[2] if v == best)


# --- best_move_minimax -----------------------------------------------------

def test_best_move_minimax_chooses_at_random_among_equals():
    start = ref.initial_state()
    picks = set()
    for seed in range(40):
        value, move = ref.best_move_minimax(start, W, 1, random.Random(seed))
        assert value == 0
        again = ref.best_move_minimax(start, W, 1, random.Random(seed))[1]
        assert again == move                              # the same rng gives the same choice
        picks.add(ref.to_tuple(move))
    assert len(picks) > 10                                # all 24 placements are worth 0


def test_best_move_minimax_takes_the_only_best_move():
    # white to place closes 0-1-2 and takes a black stone: the only moves worth 8/128 or more
    state = ((1, 1, 0) + (0,) * 9 + (2, 2) + (0,) * 10, (5, 5), 0)
    for seed in range(10):
        value, move = ref.best_move_minimax(state, W, 1, random.Random(seed))
        assert move[0][2] == W and move[0].count(B) == 1
        assert value == ref.value_minimax(state, W, 1) > 0


# --- the skeleton ------------------------------------------------------------

def test_skeleton_imports_and_leaks_no_solution():
    from autograder.release import strip_solutions

    stripped = strip_solutions(REFERENCE.read_text(encoding="utf-8"), str(REFERENCE))
    assert set(stripped.stubbed) == {
        "to_tuple", "to_list", "opponent", "next_states", "finished", "utility", "heuristic",
        "memoize.f_memoized", "value_minimax", "best_move_minimax", "value_ab",
        "get_order_value", "alpha_beta", "best_move_ab"}
    for helper in ("_removable", "_in_mill", "_has_move", "_stones"):
        assert helper not in stripped.text
    skeleton = types.ModuleType("muehle_skeleton")
    exec(compile(stripped.text, "muehle_skeleton.py", "exec"), skeleton.__dict__)
    assert skeleton.initial_state() == ref.initial_state()
    assert skeleton.MILLS == ref.MILLS and skeleton.ADJACENT == ref.ADJACENT
    assert hasattr(skeleton.value_minimax, "cache")       # decorated at import without error
    start = skeleton.initial_state()
    for call in (lambda: skeleton.next_states(start, W), lambda: skeleton.heuristic(start, W),
                 lambda: skeleton.value_minimax(start, W, 1),
                 lambda: skeleton.best_move_ab(start, W, 1)):
        with pytest.raises(NotImplementedError):
            call()
    skeleton.clear_caches()

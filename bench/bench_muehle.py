"""Benchmark for the muehle assignment: move generation and alpha-beta against minimax.

1. Move generation: perft from the start (removals folded into the move), counting
   the last ply in bulk, with the grader's fast bitboard generator
   (autograder/suites/muehle/movegen.py) against the readable reference
   `next_states` (solutions/muehle/muehle.py) measured in the same run. The
   fast generator's perft(5) should take at most about 5 s in CPython.
   By default the reference runs perft(4) only (its perft(5) takes 15-25 s);
   pass --full to run perft(5) with both.
2. Search: alpha-beta (`best_move_ab`, iterative deepening, window-aware cache)
   against memoised minimax (`value_minimax`) at the same depth from a few
   fixed positions: nodes explored (`count_nodes`: next_states + heuristic
   calls) and time, as ratios.

Run: python bench/bench_muehle.py [--full]
"""

from __future__ import annotations

import importlib.util
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _reference_perft(ref, state, player, depth):
    successors = ref.next_states(state, player)
    if depth == 1:
        return len(successors)
    other = ref.opponent(player)
    return sum(_reference_perft(ref, s, other, depth - 1) for s in successors)


def _timed(function, *args):
    start = time.perf_counter()
    result = function(*args)
    return result, time.perf_counter() - start


def _positions(ref):
    """Fixed positions: the start, and three from seeded random playouts."""
    found = [("start", ref.initial_state(), ref.WHITE)]
    for label, seed, plies in (("placing, ply 8", 1, 8), ("moving, ply 30", 2, 30),
                               ("ply 60, 3 black", 3, 60)):
        rng = random.Random(seed)
        state, player = ref.initial_state(), ref.WHITE
        for _ in range(plies):
            successors = ref.next_states(state, player)
            if not successors:
                break
            state, player = ref.to_tuple(rng.choice(successors)), ref.opponent(player)
        found.append((label, state, player))
    return found


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    full = "--full" in argv
    ref = _load("muehle_reference_bench", ROOT / "solutions" / "muehle" / "muehle.py")
    fast = _load("muehle_movegen_bench", ROOT / "autograder" / "suites" / "muehle" / "movegen.py")
    start = ref.initial_state()

    print("muehle move generation: perft from the start (removal folded into the move)")
    rows = []
    _, base_time = _timed(_reference_perft, ref, start, ref.WHITE, 4)
    base_rate = 255_024 / base_time
    rows.append(("reference next_states", 4, 255_024, base_time))
    runs = [("fast movegen", 4), ("fast movegen", 5)]
    if full:
        runs.insert(1, ("reference next_states", 5))
    for name, depth in runs:
        if name == "fast movegen":
            leaves, seconds = _timed(fast.perft, depth)
        else:
            leaves, seconds = _timed(_reference_perft, ref, start, ref.WHITE, depth)
        rows.append((name, depth, leaves, seconds))
    print(f"  {'generator':<22} {'depth':>5} {'leaves':>10} {'seconds':>8} "
          f"{'leaves/s':>11} {'vs reference':>12}")
    for name, depth, leaves, seconds in rows:
        rate = leaves / seconds
        print(f"  {name:<22} {depth:>5} {leaves:>10,} {seconds:>8.2f} {rate:>11,.0f} "
              f"{rate / base_rate:>11.1f}x")
    fast5 = next(seconds for name, depth, _, seconds in rows if name == "fast movegen" and depth == 5)
    verdict = "within" if fast5 <= 5.0 else "OVER"
    print(f"  fast perft(5) {verdict} the 5 s target ({fast5:.2f} s)")
    print("  (leaves/s at each row's own depth; the baseline is the reference at depth 4)")

    print()
    print("muehle search: alpha-beta (best_move_ab) vs memoised minimax (value_minimax), same depth")
    print(f"  {'position':<16} {'depth':>5} {'value':>9} {'mm nodes':>9} {'ab nodes':>9} "
          f"{'nodes ab/mm':>11} {'mm s':>7} {'ab s':>7} {'time ab/mm':>10}")
    total = [0, 0, 0.0, 0.0]
    for label, state, player in _positions(ref):
        depth = 4
        ref.clear_caches()
        with ref.count_nodes() as mm_counts:
            mm_value, mm_time = _timed(ref.value_minimax, ref.to_tuple(state), player, depth)
        ref.clear_caches()
        with ref.count_nodes() as ab_counts:
            (ab_value, _), ab_time = _timed(ref.best_move_ab, state, player, depth)
        ref.clear_caches()
        assert ab_value == mm_value, (label, ab_value, mm_value)
        mm_nodes, ab_nodes = mm_counts["total"], ab_counts["total"]
        total = [total[0] + mm_nodes, total[1] + ab_nodes, total[2] + mm_time, total[3] + ab_time]
        print(f"  {label:<16} {depth:>5} {mm_value:>9.4f} {mm_nodes:>9,} {ab_nodes:>9,} "
              f"{ab_nodes / mm_nodes:>11.3f} {mm_time:>7.2f} {ab_time:>7.2f} "
              f"{ab_time / mm_time:>10.3f}")
    print(f"  {'all':<16} {'':>5} {'':>9} {total[0]:>9,} {total[1]:>9,} "
          f"{total[1] / total[0]:>11.3f} {total[2]:>7.2f} {total[3]:>7.2f} "
          f"{total[3] / total[2]:>10.3f}")


if __name__ == "__main__":
    main()

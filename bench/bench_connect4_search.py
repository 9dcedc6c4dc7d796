"""Connect 4: the seed-format alpha-beta against a plain minimax on the seed's example.

The seed's example position (o to move, the block in column 6 is forced) is
searched with the reference `minimize` from solutions/connect4/connect4.py
(alpha-beta, Bremse = depth limit, the seed's evaluation) and with a plain
minimax written here: the same rules, the same child order, no pruning, no
ordering. Both run at the same depth in this process; the output gives the
node and time ratios. Plain minimax at Bremse 8 visits millions of nodes, so
when its predicted time (extrapolated from shallower runs) exceeds the limit
(60 s by default) the comparison uses the deepest depth under the limit, and
says so. A second table compares move orderings of the alpha-beta search at
the full depth against the seed's column order.

Run: python bench/bench_connect4_search.py [--bremse 8] [--plain-limit 60]
"""

import argparse
import importlib.util
import math
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEED_EXAMPLE = [38, 37, 31, 24, 30, 17, 23, 10, 3, 16, 39, 32, 40]


def load_reference():
    path = ROOT / "solutions" / "connect4" / "connect4.py"
    spec = importlib.util.spec_from_file_location("_bench_connect4", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def plain_search(c4, state, bremse, counter):
    """Unpruned, unordered minimax with the seed's depth limit and leaf test."""
    counter[0] += 1
    if bremse == 0 or c4.terminal_test(state):
        return None, c4.evaluation(state)
    is_max = c4.x_to_move(state)
    best_state, best = None, (-math.inf if is_max else math.inf)
    for child in c4.nextstates(state):
        _, value = plain_search(c4, child, bremse - 1, counter)
        if (value > best) if is_max else (value < best):
            best_state, best = child, value
    return best_state, best


def timed(function):
    start = time.perf_counter()
    result = function()
    return result, time.perf_counter() - start


def run_plain(c4, state, bremse):
    counter = [0]
    result, seconds = timed(lambda: plain_search(c4, state, bremse, counter))
    return result, counter[0], seconds


def run_alphabeta(c4, state, bremse, order=None):
    stats = c4.SearchStats()
    result, seconds = timed(lambda: c4.search(state, bremse, stats=stats, order=order))
    return result, stats, seconds


def choose_plain_depth(c4, state, wanted, limit):
    """Deepest depth <= wanted whose predicted plain time is under `limit` s."""
    depth, seconds = 1, 0.0
    previous = None
    while depth < wanted:
        _, nodes, seconds = run_plain(c4, state, depth)
        if previous is not None and previous[0] > 0:
            growth = max(nodes / previous[0], 1.0)
            predicted = seconds * growth
            if predicted > limit:
                return depth, predicted * growth ** (wanted - depth - 1)
        previous = (nodes, seconds)
        depth += 1
    return wanted, None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bremse", type=int, default=8)
    parser.add_argument("--plain-limit", type=float, default=60.0,
                        help="seconds the plain search may take (predicted)")
    args = parser.parse_args(argv)
    c4 = load_reference()
    state, wanted = SEED_EXAMPLE, args.bremse

    print("Connect 4, seed example position (o to move):")
    print(c4.showBoard(c4.getBoard(state)))
    print()

    depth, predicted_full = choose_plain_depth(c4, state, wanted, args.plain_limit)
    if depth < wanted:
        print(f"Plain minimax at Bremse {wanted} would take about {predicted_full:.0f} s "
              f"(> {args.plain_limit:.0f} s): comparing at Bremse {depth} instead.")
    plain_result, plain_nodes, plain_seconds = run_plain(c4, state, depth)
    ab_result, ab_stats, ab_seconds = run_alphabeta(c4, state, depth)
    assert plain_result[1] == ab_result[1], "alpha-beta and minimax disagree"
    print(f"Bremse {depth}: plain minimax vs seed-format alpha-beta (same child order)")
    print(f"  {'search':24s} {'nodes':>10s} {'seconds':>8s} {'move':>5s} {'value':>6s}")
    print(f"  {'plain minimax':24s} {plain_nodes:10d} {plain_seconds:8.2f} "
          f"{plain_result[0][-1] % 7:5d} {plain_result[1]:6}")
    print(f"  {'alpha-beta':24s} {ab_stats.nodes:10d} {ab_seconds:8.2f} "
          f"{ab_result[0][-1] % 7:5d} {ab_result[1]:6}")
    print(f"  ratio plain / alpha-beta: nodes {plain_nodes / ab_stats.nodes:.1f}x, "
          f"time {plain_seconds / max(ab_seconds, 1e-9):.1f}x")
    print()

    print(f"Bremse {wanted}: move orderings of alpha-beta, against the seed's column order")
    orderings = [
        ("seed order (columns 0..6)", None),
        ("reversed order", lambda children: children[::-1]),
        ("centre first", c4.centre_first),
        ("shallow search at root, centre first below",
         c4.root_only(state, c4.shallow_order, c4.centre_first)),
    ]
    baseline = None
    print(f"  {'ordering':44s} {'nodes':>9s} {'prunings':>9s} {'seconds':>8s} "
          f"{'nodes ratio':>11s} {'time ratio':>10s}")
    for name, order in orderings:
        result, stats, seconds = run_alphabeta(c4, state, wanted, order)
        if baseline is None:
            baseline = (stats.nodes, seconds, result[1])
        assert result[1] == baseline[2], "orderings disagree on the value"
        print(f"  {name:44s} {stats.nodes:9d} {stats.prunings:9d} {seconds:8.2f} "
              f"{stats.nodes / baseline[0]:11.3f} {seconds / max(baseline[1], 1e-9):10.3f}")
    print(f"  (value {baseline[2]}; the seed notes about 300,000 nodes for its version;"
          " the shallow root search's own nodes are not counted, its time is)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark of the Connect 4 reference solver (autograder/suites/connect4/solver.py).

For Pons' benchmark files Test_L3_R1 and Test_L2_R1 (in ``tests/connect4/data``) it solves every position strongly from an empty transposition table and
reports the mean number of positions explored and the mean time per position, with

* the ratio of explored positions to Pons' C++ final solver (51 for L3_R1, 450 for
  L2_R1, from the data README), and
* a baseline measured in the same run: plain alpha-beta (same bitboards, immediate-win
  check at each node, columns left to right, no transposition table, no move ordering, no
  null windows) on Test_L3_R1, reported as ratios of explored positions and time.

Times are CPU time of this process (``time.process_time``) around ``solve`` only, so
other load on the machine does not inflate them; the C++ times are the README's.

Usage: ``python bench/bench_connect4_solver.py [--sample N] [--baseline-sample N]``
(``--sample`` limits Test_L2_R1 to a fixed seeded sample of N positions; the full file
takes a few seconds).
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SOLVER_PATH = REPO / "autograder" / "suites" / "connect4" / "solver.py"
DATA_DIR = REPO / "tests" / "connect4" / "data"

#: Pons' C++ figures from tests/connect4/data/README.md (mean per position).
CPP_FINAL_EXPLORED = {"Test_L3_R1": 51, "Test_L2_R1": 450}
CPP_FINAL_TIME_US = {"Test_L3_R1": 6, "Test_L2_R1": 39}
CPP_ALPHABETA_EXPLORED_L3 = 284
SEED = 12345


def _load_solver():
    name = "spielbaum_connect4_solver_bench"
    spec = importlib.util.spec_from_file_location(name, SOLVER_PATH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _read(name: str, sample: int | None) -> list[tuple[str, int]]:
    rows = []
    for line in (DATA_DIR / name).read_text().splitlines():
        if line.strip():
            seq, score = line.split()
            rows.append((seq, int(score)))
    if sample is not None and sample < len(rows):
        rows = random.Random(SEED).sample(rows, sample)
    return rows


def make_plain_alphabeta(c4):
    """Plain negamax alpha-beta on the solver's bitboards (no table, no ordering).

    Returns ``solve(position) -> (score, explored)``.  Like Pons' "alpha-beta" step:
    each node checks for an immediate win, clips beta to the best reachable score and
    tries the columns left to right; the root window is the full score range.
    """
    BOTTOM, BOARD, COL_MASK = c4._BOTTOM, c4._BOARD, c4._COL_MASK
    winning_cells = c4._winning_cells
    cells = c4.CELLS
    count = 0

    def negamax(cur, mask, moves, alpha, beta):
        nonlocal count
        count += 1
        if moves == cells:
            return 0
        possible = (mask + BOTTOM) & BOARD
        if winning_cells(cur, mask) & possible:
            return (cells + 1 - moves) // 2
        hi = (cells - 1 - moves) // 2
        if beta > hi:
            beta = hi
            if alpha >= beta:
                return beta
        opp = cur ^ mask
        for cm in COL_MASK:
            mv = possible & cm
            if mv:
                score = -negamax(opp, mask | mv, moves + 1, -beta, -alpha)
                if score >= beta:
                    return score
                if score > alpha:
                    alpha = score
        return alpha

    def solve(position):
        nonlocal count
        count = 0
        score = negamax(position.current, position.mask, position.moves, -cells // 2, cells // 2)
        return score, count

    return solve


def run_solver(c4, rows):
    solver = c4.Solver()
    explored = 0
    elapsed = 0.0
    wrong = 0
    perf = time.process_time  # CPU time: robust against other load on the machine
    for seq, expected in rows:
        position = c4.Position.from_columns(seq)
        solver.reset()  # every position from an empty table, as in Pons' benchmark
        t0 = perf()
        score = solver.solve(position)
        elapsed += perf() - t0
        explored += solver.explored
        wrong += score != expected
    n = len(rows)
    return {"n": n, "explored": explored / n, "seconds": elapsed / n, "wrong": wrong}


def run_baseline(c4, rows):
    solve = make_plain_alphabeta(c4)
    explored = 0
    elapsed = 0.0
    wrong = 0
    perf = time.process_time  # CPU time: robust against other load on the machine
    for seq, expected in rows:
        position = c4.Position.from_columns(seq)
        t0 = perf()
        score, count = solve(position)
        elapsed += perf() - t0
        explored += count
        wrong += score != expected
    n = len(rows)
    return {"n": n, "explored": explored / n, "seconds": elapsed / n, "wrong": wrong}


def _row(cells, widths):
    return "  ".join(str(c).rjust(w) if i else str(c).ljust(w) for i, (c, w) in enumerate(zip(cells, widths)))


def main(argv: list[str] | None = None) -> None:
    """Run the benchmark and print the tables; ``argv`` are the options (none by default)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=None, help="seeded sample size for Test_L2_R1")
    parser.add_argument(
        "--baseline-sample", type=int, default=None, help="seeded sample size of Test_L3_R1 for the baseline"
    )
    args = parser.parse_args([] if argv is None else argv)

    if not DATA_DIR.is_dir():
        print(f"bench_connect4_solver: data folder {DATA_DIR} is missing; nothing to do")
        return
    c4 = _load_solver()

    l3 = _read("Test_L3_R1", None)
    l2 = _read("Test_L2_R1", args.sample)
    results = {
        "Test_L3_R1": run_solver(c4, l3),
        "Test_L2_R1": run_solver(c4, l2),
    }
    base_rows = _read("Test_L3_R1", args.baseline_sample)
    base = run_baseline(c4, base_rows)
    # the final solver on exactly the baseline's positions (the same run)
    same = results["Test_L3_R1"] if args.baseline_sample is None else run_solver(c4, base_rows)

    print("Connect 4 reference solver (pure Python) -- strong solve, empty table per position")
    widths = (11, 6, 13, 14, 13, 10, 7)
    print(_row(("file", "n", "explored/pos", "vs C++ final", "cpu/pos", "vs C++ t", "wrong"), widths))
    for name, r in results.items():
        print(
            _row(
                (
                    name,
                    r["n"],
                    f"{r['explored']:.1f}",
                    f"{r['explored'] / CPP_FINAL_EXPLORED[name]:.2f}x",
                    f"{r['seconds'] * 1e6:.0f} us",
                    f"{r['seconds'] * 1e6 / CPP_FINAL_TIME_US[name]:.0f}x",
                    r["wrong"],
                ),
                widths,
            )
        )
    print()
    print(f"Baseline: plain alpha-beta (no table, no ordering) on Test_L3_R1, n={base['n']}, same run")
    widths2 = (22, 13, 12)
    print(_row(("", "explored/pos", "cpu/pos"), widths2))
    print(_row(("plain alpha-beta", f"{base['explored']:.1f}", f"{base['seconds'] * 1e6:.0f} us"), widths2))
    print(_row(("final solver", f"{same['explored']:.1f}", f"{same['seconds'] * 1e6:.0f} us"), widths2))
    print(
        _row(
            (
                "solver / baseline",
                f"{same['explored'] / base['explored']:.3f}",
                f"{same['seconds'] / base['seconds']:.3f}",
            ),
            widths2,
        )
    )
    print(
        f"(C++ plain alpha-beta explores {CPP_ALPHABETA_EXPLORED_L3}/pos on Test_L3_R1: "
        f"baseline ratio {base['explored'] / CPP_ALPHABETA_EXPLORED_L3:.2f}x; "
        f"baseline wrong scores: {base['wrong']})"
    )


if __name__ == "__main__":
    main(sys.argv[1:])

"""Tests for the Connect 4 reference solver (autograder/suites/connect4/solver.py).

Expected scores come from Pascal Pons' benchmark files, kept in tests/connect4/data/
(source and licence in its README).
"""

from __future__ import annotations

import importlib.util
import random
import sys
import tracemalloc
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SOLVER_PATH = REPO / "autograder" / "suites" / "connect4" / "solver.py"
DATA_DIR = REPO / "tests" / "connect4" / "data"


def _load_solver():
    name = "spielbaum_connect4_solver_under_test"
    spec = importlib.util.spec_from_file_location(name, SOLVER_PATH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


c4 = _load_solver()
Position = c4.Position
Solver = c4.Solver


def _load(name: str) -> list[tuple[str, int]]:
    rows = []
    for line in (DATA_DIR / name).read_text().splitlines():
        if line.strip():
            seq, score = line.split()
            rows.append((seq, int(score)))
    return rows


def _sample(rows, n: int, seed: int):
    return random.Random(seed).sample(rows, n)


def _sign(x: int) -> int:
    return (x > 0) - (x < 0)


def _best_moves(solver, position, weak=False) -> set[int]:
    """The columns whose move keeps the game value (strong: the exact score)."""
    scores = solver.move_scores(position, weak)
    return {c for c, s in scores.items() if s == max(scores.values())}


def _entries(tt) -> int:
    """The slots of a transposition table holding an entry."""
    return tt.size - tt.table.count(0)


def _bytes_bound(tt) -> int:
    """Upper bound of the bytes a table uses, whatever it holds: the array and the
    objects' headers (the zeros its reset copies are shared by all tables)."""
    return 8 * tt.size + 256


def _bits(position) -> tuple[int, int, int]:
    return position.current, position.mask, position.moves


def _wins_next(position) -> bool:
    return any(position.is_winning_move(c) for c in position.legal_columns())


def _columns_to_cells(seq: str) -> list[int]:
    """The course's cell list (row-major from the top) for a 1..7 column string."""
    heights = [0] * 7
    cells = []
    for ch in seq:
        col = int(ch) - 1
        cells.append((5 - heights[col]) * 7 + col)
        heights[col] += 1
    return cells


# --------------------------------------------------------------------------- scores


def test_l3_r1_every_position_strong():
    rows = _load("Test_L3_R1")
    assert len(rows) == 1000
    solver = Solver()
    wrong = []
    for seq, expected in rows:
        solver.reset()
        got = solver.solve(Position.from_columns(seq))
        if got != expected:
            wrong.append((seq, expected, got))
    assert not wrong, f"{len(wrong)} wrong scores, first: {wrong[:5]}"


def test_l2_r1_seeded_sample_strong():
    rows = _sample(_load("Test_L2_R1"), 150, seed=20240601)
    solver = Solver()
    wrong = []
    for seq, expected in rows:
        solver.reset()
        got = solver.solve(Position.from_columns(seq))
        if got != expected:
            wrong.append((seq, expected, got))
    assert not wrong, f"{len(wrong)} wrong scores, first: {wrong[:5]}"


@pytest.mark.slow
def test_l2_r1_every_position_strong():
    rows = _load("Test_L2_R1")
    solver = Solver()
    wrong = []
    for seq, expected in rows:
        solver.reset()
        got = solver.solve(Position.from_columns(seq))
        if got != expected:
            wrong.append((seq, expected, got))
    assert not wrong, f"{len(wrong)} wrong scores, first: {wrong[:5]}"


def test_weak_solve_gives_the_sign():
    rows = _sample(_load("Test_L3_R1"), 150, seed=7) + _sample(_load("Test_L2_R1"), 40, seed=7)
    solver = Solver()
    for seq, expected in rows:
        assert solver.solve(Position.from_columns(seq), weak=True) == _sign(expected), seq


def test_mirrored_positions_have_the_same_score():
    rows = _sample(_load("Test_L3_R1"), 100, seed=3)
    solver = Solver()
    for seq, expected in rows:
        mirrored = "".join(str(8 - int(ch)) for ch in seq)
        assert solver.solve(Position.from_columns(mirrored)) == expected, mirrored


def test_known_scores_from_the_tutorial_notation():
    # "4455": the player to move wins with its 4th stone: 22 - 4 = 18.
    assert Solver().solve(Position.from_columns("4455")) == 18
    # "44455554221": the opponent wins next move with its 7th stone: 7 - 22 = -15.
    assert Solver().solve(Position.from_columns("44455554221")) == -15


def test_immediate_win_is_scored_without_search():
    solver = Solver()
    p = Position.from_columns("445566")  # X to move completes 4-5-6-7 on the bottom row
    assert _wins_next(p)
    assert solver.solve(p) == (43 - 6) // 2
    assert solver.explored == 0
    assert solver.solve(p, weak=True) == 1


def test_explored_counts_the_last_solve_and_reset_zeroes_it():
    seq, _ = _load("Test_L2_R1")[0]
    solver = Solver()
    solver.solve(Position.from_columns(seq))
    first = solver.explored
    assert first > 0
    solver.solve(Position.from_columns(seq))
    assert 0 < solver.explored <= first  # the table is kept: not more work the second time
    solver.reset()
    assert solver.explored == 0
    assert _entries(solver.tt) == 0
    solver.solve(Position.from_columns(seq))
    assert solver.explored == first  # deterministic from an empty table


# --------------------------------------------------------------------------- input formats


def test_from_cells_and_from_columns_agree_on_every_benchmark_game():
    rows = _load("Test_L3_R1") + _load("Test_L2_R1")
    for seq, _ in rows:
        a = Position.from_columns(seq)
        b = Position.from_cells(_columns_to_cells(seq))
        assert _bits(a) == _bits(b), seq


def test_from_cells_layout():
    # the first stone in column c lands on 35 + c; the next one on 28 + c
    assert _bits(Position.from_cells([38])) == _bits(Position.from_columns("4"))
    p = Position.from_cells([38, 31, 35])
    assert _bits(p) == _bits(Position.from_columns("441"))
    # bit col * 7 + row, row 0 at the bottom: stones on 35 (column 0) and 38, 31 (column 3);
    # `current` is o's, the player to move: 31, the second stone of column 3
    assert p.mask == (1 << 0) | (1 << 21) | (1 << 22)
    assert p.current == 1 << 22
    assert p.moves == 3
    assert _bits(Position.from_cells([])) == _bits(Position())


def test_solving_from_cells_matches_the_listed_score():
    solver = Solver()
    for seq, expected in _sample(_load("Test_L3_R1"), 20, seed=11):
        assert solver.solve(Position.from_cells(_columns_to_cells(seq))) == expected, seq


@pytest.mark.parametrize(
    "cells, fragment",
    [
        ([35, 35], "already occupied"),
        ([28], "not the lowest free cell"),
        ([35, 21], "not the lowest free cell"),
        ([42], "outside the board"),
        ([-1], "outside the board"),
        (["35"], "not an int"),
        ([True], "not an int"),
        ([35.0], "not an int"),
        ([35, 41, 28, 40, 21, 39, 14], "wins the game"),  # X: four in column 0
        ([35, 41, 28, 40, 21, 39, 14, 38], "already won"),
        (None, "list of ints"),
    ],
)
def test_from_cells_rejects_illegal_input(cells, fragment):
    with pytest.raises(ValueError, match=fragment):
        Position.from_cells(cells)


@pytest.mark.parametrize(
    "seq, fragment",
    [
        ("8", "not a column"),
        ("40", "not a column"),
        ("4a", "not a column"),
        ("1 2", "not a column"),
        ("1212121", "wins the game"),
        ("12121212", "already won"),
        ("4444444", "full"),
        (4453, "str"),
    ],
)
def test_from_columns_rejects_illegal_input(seq, fragment):
    with pytest.raises(ValueError, match=fragment):
        Position.from_columns(seq)


def test_play_rejects_illegal_moves_and_does_not_mutate():
    p = Position.from_columns("444444")
    with pytest.raises(ValueError, match="full"):
        p.play(3)
    with pytest.raises(ValueError):
        p.play(7)
    q = Position.from_columns("445566")
    with pytest.raises(ValueError, match="wins"):
        q.play(6)
    before = (q.current, q.mask, q.moves)
    q.play(0)
    assert (q.current, q.mask, q.moves) == before


def test_solver_rejects_non_positions_and_illegal_columns():
    solver = Solver()
    with pytest.raises(TypeError):
        solver.solve("4453")
    p = Position.from_columns("444444")
    with pytest.raises(ValueError):
        solver.keeps_value(p, 3)
    with pytest.raises(ValueError):
        solver.keeps_value(p, 9)


# --------------------------------------------------------------------------- move scores


def _positions_for_move_checks():
    return _sample(_load("Test_L3_R1"), 25, seed=5) + _sample(_load("Test_L2_R1"), 5, seed=5)


def test_move_scores_agree_with_solving_each_child():
    solver = Solver()
    checker = Solver()
    for seq, expected in _positions_for_move_checks():
        p = Position.from_columns(seq)
        scores = solver.move_scores(p)
        assert set(scores) == set(p.legal_columns()), seq
        assert max(scores.values()) == expected, seq
        for col, score in scores.items():
            if p.is_winning_move(col):
                assert score == (43 - p.moves) // 2, (seq, col)
            else:
                assert score == -checker.solve(p.play(col)), (seq, col)


def test_keeps_value_and_best_moves_agree_with_move_scores():
    solver = Solver()
    for seq, expected in _positions_for_move_checks():
        p = Position.from_columns(seq)
        scores = solver.move_scores(p)
        strong_best = {c for c, s in scores.items() if s == expected}
        weak_best = {c for c, s in scores.items() if _sign(s) == _sign(expected)}
        assert _best_moves(solver, p) == strong_best, seq
        assert _best_moves(solver, p, weak=True) == weak_best, seq
        for col in scores:
            assert solver.keeps_value(p, col, weak=False) == (col in strong_best), (seq, col)
            assert solver.keeps_value(p, col) == (col in weak_best), (seq, col)


def test_keeps_value_detects_a_blunder():
    # X (to move) has 4-5-6 on the bottom row: columns 3 and 7 win at once (score 18)
    p = Position.from_columns("445566")
    solver = Solver()
    scores = solver.move_scores(p)
    assert scores[2] == scores[6] == 18 == solver.solve(p)
    assert all(scores[c] < 18 for c in (0, 1, 3, 4, 5))
    assert solver.keeps_value(p, 6, weak=False) and solver.keeps_value(p, 2, weak=False)
    assert not solver.keeps_value(p, 0, weak=False)
    assert _best_moves(solver, p) == {2, 6}


def test_drawn_game_played_out_to_a_full_board():
    rows = [r for r in _load("Test_L3_R1") if r[1] == 0 and len(r[0]) >= 38]
    seq, _ = rows[0]
    solver = Solver()
    p = Position.from_columns(seq)
    while p.moves < 42:
        assert solver.solve(p) == 0
        best = _best_moves(solver, p)
        assert best
        p = p.play(min(best))
    assert p.moves == 42
    assert solver.solve(p) == 0
    assert solver.move_scores(p) == {}
    assert _best_moves(solver, p) == set()


# --------------------------------------------------------------------------- table bound


def test_transposition_table_never_exceeds_its_entry_limit():
    size = 101
    solver = Solver(table_size=size)
    assert solver.tt.size == size
    rows = _sample(_load("Test_L2_R1"), 40, seed=9)
    for seq, expected in rows:
        # keep the table between positions so it fills up and replaces entries
        assert solver.solve(Position.from_columns(seq)) == expected, seq
        assert len(solver.tt.table) == size
    assert _entries(solver.tt) > size // 2  # it really was used
    solver.reset()
    assert _entries(solver.tt) == 0


def test_default_table_memory_bound_is_below_64_mb():
    tt = c4.TranspositionTable()
    assert tt.size == c4.TranspositionTable.DEFAULT_SIZE
    assert _bytes_bound(tt) <= 64_000_000


@pytest.mark.parametrize("size", [5_003, 21_846, 500_009])
def test_table_memory_stays_within_bytes_bound(size):
    # make the table, fill every slot with the largest entries the solver writes, empty
    # it again: tracemalloc sees every allocation of this process on the way
    big = ((1 << 49) - 1) << 7 | 127
    tracemalloc.start()
    try:
        tt = c4.TranspositionTable(size)
        table = tt.table
        for slot in range(size):
            table[slot] = big - slot
        full = _entries(tt)
        tt.reset()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert full == size and _entries(tt) == 0
    assert peak <= _bytes_bound(tt) + 4096      # + the loop's own small objects


GROWTH = """
import resource, sys
sys.setrecursionlimit(10000)
from tests.connect4.test_solver import DATA_DIR, Position, Solver, _bytes_bound
rows = [line.split() for line in (DATA_DIR / "Test_L2_R1").read_text().splitlines()]
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
solver = Solver()
table = solver.tt.table
for slot in range(solver.tt.size):          # a table full of the largest entries
    table[slot] = (((1 << 49) - 1) << 7 | 127) - slot
for seq, score in rows[:300]:
    assert solver.solve(Position.from_columns(seq)) == int(score)
    solver.reset()
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print((after - before) * 1024, _bytes_bound(solver.tt))
"""


def test_a_solving_process_grows_by_little_more_than_the_table():
    """The bound is the process's, not only the table's own accounting: a fresh
    interpreter filling the default table and solving 300 positions (clearing the
    table between them) peaks at most 2 MB above the table's bytes_bound."""
    import subprocess
    done = subprocess.run([sys.executable, "-c", GROWTH], cwd=REPO, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    growth, bound = map(int, done.stdout.split())
    assert bound <= 4_100_000
    assert growth <= bound + 2_000_000, (growth, bound)


def test_invalid_table_size():
    with pytest.raises(ValueError):
        Solver(table_size=0)

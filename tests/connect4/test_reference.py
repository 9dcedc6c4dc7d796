"""Kit tests for the connect4 reference (solutions/connect4/connect4.py)."""

import random
from itertools import combinations
from pathlib import Path

import pytest

from autograder.checking import gametrees
from autograder.checking.search import TreeGame
from tests.conftest import load_module
from tests.kit.tree_search import search_tree

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "connect4" / "data"


_load = load_module
trees = gametrees


c4 = _load("_ref_connect4", ROOT / "solutions" / "connect4" / "connect4.py")

inf = float("inf")
SEED_EXAMPLE = [38, 37, 31, 24, 30, 17, 23, 10, 3, 16, 39, 32, 40]


def from_columns(columns):
    """State from a sequence of column numbers 0..6."""
    state = []
    for col in columns:
        cell = c4.freeIn(c4.getBoard(state), col)
        assert cell is not None
        state.append(cell)
    return state


def random_states(count, seed, min_len=0, max_len=30):
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        state = []
        length = rng.randrange(min_len, max_len + 1)
        while len(state) < length and not c4.terminal_test(state):
            state = rng.choice(c4.nextstates(state))
        if not c4.terminal_test(state):
            found.append(state)
    return found


# An independent, literal reading of the seed's rule, to check pattern_score.
def naive_lines(board):
    cells = []
    cells += [[r * 7 + c for c in range(7)] for r in range(6)]
    cells += [[r * 7 + c for r in range(6)] for c in range(7)]
    for start, step in [(14, 8), (7, 8), (0, 8), (1, 8), (2, 8), (3, 8),
                        (3, 6), (4, 6), (5, 6), (6, 6), (13, 6), (20, 6)]:
        line, cell = [], start
        while True:
            line.append(cell)
            row, col = divmod(cell, 7)
            nrow, ncol = row + 1, col + (1 if step == 8 else -1)
            if not (0 <= nrow < 6 and 0 <= ncol < 7):
                break
            cell = nrow * 7 + ncol
        cells.append(line)
    return ["".join(board[i] for i in line) for line in cells]


def naive_score(board, weights):
    total = 0
    for line in naive_lines(board):
        if "xxxx" in line:
            return 10000
        if "oooo" in line:
            return -10000
        for stone, sign in (("x", 1), ("o", -1)):
            for n, w in zip((1, 2, 3), weights):
                for spots in combinations(range(4), n):
                    pattern = "".join(stone if i in spots else "." for i in range(4))
                    if pattern in line:
                        total += sign * w
    return total


def plain(state, bremse, stats, evaluation=None):
    """Unpruned depth-limited minimax with the kit's rules (the test's baseline)."""
    evaluation = evaluation or c4.evaluation
    is_max = c4.x_to_move(state)
    stats.nodes += 1
    if bremse == 0 or c4.terminal_test(state, evaluation):
        stats.evaluations += 1
        return None, evaluation(state)
    stats.expanded += 1
    best_state, best = None, (-inf if is_max else inf)
    for child in c4.nextstates(state):
        _, v = plain(child, bremse - 1, stats, evaluation)
        if (v > best) if is_max else (v < best):
            best_state, best = child, v
    return best_state, best


# ---------------------------------------------------------------- helpers

def test_get_board_and_col_nrs():
    board = c4.getBoard([38, 37, 30])
    assert len(board) == 42
    assert board[38] == "x" and board[30] == "x" and board[37] == "o"
    assert board.count(".") == 39
    assert c4.colNrs(0) == [35, 28, 21, 14, 7, 0]
    assert c4.colNrs(6) == [41, 34, 27, 20, 13, 6]


def test_free_in_every_column():
    state = from_columns([3, 3, 3, 3, 3, 3, 0, 6, 6])  # column 3 full
    board = c4.getBoard(state)
    assert [c4.freeIn(board, i) for i in range(7)] == [28, 36, 37, None, 39, 40, 27]
    assert c4.free(board) == [28, 36, 37, 39, 40, 27]
    assert c4.free(c4.getBoard([])) == [35, 36, 37, 38, 39, 40, 41]
    children = c4.nextstates(state)
    assert [child[-1] for child in children] == [28, 36, 37, 39, 40, 27]
    assert all(child[:-1] == state for child in children)


def test_lines_shape():
    board = [str(i % 10) for i in range(42)]
    lines = c4.lines(board)
    assert len(lines) == 25
    assert lines == naive_lines(board)
    assert sorted(len(line) for line in lines[13:]) == [4, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6]


@pytest.mark.parametrize("columns, winner", [
    ([0, 0, 1, 1, 2, 2, 3], 1),               # x horizontal, bottom row
    ([6, 0, 5, 0, 4, 0, 2, 0], -1),           # o vertical, column 0
    ([0, 1, 1, 2, 2, 3, 2, 3, 3, 6, 3], 1),   # x diagonal up to the right
    ([6, 5, 5, 4, 4, 3, 4, 3, 3, 0, 3], 1),   # x diagonal up to the left
    ([0, 3, 1, 3, 6, 3, 6, 3], -1),           # o vertical, centre
    ([4, 6, 1, 4, 2, 1, 2, 6, 4, 3, 3, 2, 3, 4, 6, 4, 4, 3], -1),  # o diagonal, off the floor
])
def test_wins_in_every_direction(columns, winner):
    state = from_columns(columns)
    assert c4.evaluation(state) == winner * 10000
    assert c4.evaluation_b(state) == winner * 10000
    assert c4.terminal_test(state)
    assert not c4.terminal_test(state[:-1])
    assert abs(c4.evaluation(state[:-1])) < 10000


def full_draw_state():
    """A legal move order that fills the whole board without four in a row."""
    rows = ["xxooxxo", "ooxxoox", "xxooxxo", "ooxxoox", "xxooxxo", "ooxxoox"]
    target = "".join(rows)
    heights = [0] * 7

    def dfs(state):
        if len(state) == 42:
            return state
        stone = "x" if len(state) % 2 == 0 else "o"
        for col in range(7):
            if heights[col] < 6:
                cell = 35 + col - 7 * heights[col]
                if target[cell] == stone:
                    heights[col] += 1
                    found = dfs(state + [cell])
                    if found:
                        return found
                    heights[col] -= 1
        return None

    return dfs([])


def test_full_board_draw():
    state = full_draw_state()
    assert state is not None and sorted(state) == list(range(42))
    assert all(abs(c4.evaluation(state[:n])) < 10000 for n in range(43))
    assert c4.terminal_test(state)
    assert not c4.terminal_test(state[:-1])
    assert c4.nextstates(state) == []
    assert c4.maximize(state, bremse=3) == (None, c4.evaluation(state))


# ---------------------------------------------------------------- evaluation

def test_evaluation_hand_computed():
    assert c4.evaluation([]) == 0
    # row '...x...' matches all four one-stone patterns (20); column 3, and the
    # two diagonals through 38 each end in '...x' (3 x 5)
    assert c4.evaluation([38]) == 35
    assert c4.evaluation_b([38]) == 35
    # bottom row '..ox...' gives +5 ('x...') and no o pattern; columns +5 -5;
    # diagonals through 38: +5 +5; the diagonal 13..37 ends in '...o': -5
    assert c4.evaluation([38, 37]) == 10
    # bottom row 'xxx..oo': 'xxx.' +500, 'xx..' +30, '..oo' -30; columns
    # 3 x 5 - 2 x 5; diagonals 5..35, 6..36, 13..37 +15, 0..40, 1..41 -10
    assert c4.evaluation([35, 41, 36, 40, 37]) == 510
    assert c4.evaluation_b([35, 41, 36, 40, 37]) == 60


def test_evaluation_matches_literal_rule_on_random_positions():
    for state in random_states(300, seed=1, max_len=40):
        board = c4.getBoard(state)
        assert c4.evaluation(state) == naive_score(board, (5, 30, 500)), state
        assert c4.evaluation_b(state) == naive_score(board, (5, 10, 50)), state


def test_pattern_counts_once_per_line():
    board = list("." * 42)
    board[35] = board[41] = "x"  # bottom row 'x.....x'
    # row: 'x...' and '...x' (10); columns 0 and 6: '...x' each (10);
    # diagonals 5..35 and 1..41: '...x' each (10)
    assert c4.pattern_score(board) == 30
    assert c4.pattern_score(board, (1, 0, 0)) == 6


# ---------------------------------------------------------------- search

def test_seed_example_small_bremse():
    stats = c4.SearchStats()
    best, value = c4.minimize(SEED_EXAMPLE, bremse=2, stats=stats)
    assert best == SEED_EXAMPLE + [41]  # the forced block in column 6
    assert value == -65
    assert stats.as_dict() == {"nodes": 43, "expanded": 7, "evaluations": 36, "prunings": 4}
    stats.reset()
    best, value = c4.minimize(SEED_EXAMPLE, bremse=4, stats=stats)
    assert best[-1] == 41 and value == -95
    assert stats.as_dict() == {"nodes": 1229, "expanded": 217, "evaluations": 1012,
                               "prunings": 150}


@pytest.mark.slow
def test_seed_example_bremse_8():
    stats = c4.SearchStats()
    best, value = c4.minimize(SEED_EXAMPLE, bremse=8, stats=stats)
    assert best[-1] == 41 and value == -545
    assert stats.nodes == 300882  # the seed's "about 300,000 nodes"
    rev = c4.SearchStats()
    assert c4.minimize(SEED_EXAMPLE, bremse=8, stats=rev,
                       order=lambda children: children[::-1])[1] == -545
    assert rev.nodes < stats.nodes // 10


def test_alphabeta_equals_plain_on_random_positions():
    for state in random_states(25, seed=2, min_len=4, max_len=36):
        for bremse in (1, 2, 3):
            a, b = c4.SearchStats(), c4.SearchStats()
            result = c4.search(state, bremse, stats=a)
            assert result == plain(state, bremse, b), (state, bremse)
            assert a.nodes <= b.nodes
            assert a.nodes == a.expanded + a.evaluations


def test_decided_game_not_searched_and_depth_zero():
    won = from_columns([0, 0, 1, 1, 2, 2, 3])
    stats = c4.SearchStats()
    assert c4.minimize(won, bremse=6, stats=stats) == (None, 10000)
    assert stats.as_dict() == {"nodes": 1, "expanded": 0, "evaluations": 1, "prunings": 0}
    calls = []

    def spy(state):
        calls.append(len(state))
        return c4.evaluation(state)

    stats.reset()
    assert c4.maximize([38, 37], bremse=0, evaluation=spy, stats=stats) == (None, 10)
    assert calls == [2]  # no terminal_test at bremse 0
    calls.clear()
    c4.maximize([38, 37], bremse=1, evaluation=spy)
    assert all(n == 3 for n in calls[1:]) and calls[0] == 2


def test_ordering_keeps_value():
    for state in random_states(10, seed=4, min_len=6, max_len=30):
        values = set()
        for order in (None, c4.centre_first, lambda ch: ch[::-1],
                      c4.root_only(state, c4.shallow_order, c4.centre_first)):
            stats = c4.SearchStats()
            values.add(c4.search(state, 4, stats=stats, order=order)[1])
        assert len(values) == 1, state


def test_centre_first_and_shallow_order():
    assert [ch[-1] % 7 for ch in c4.centre_first(c4.nextstates([]))] == [3, 2, 4, 1, 5, 0, 6]
    ordered = c4.shallow_order(c4.nextstates(SEED_EXAMPLE))
    assert ordered[0][-1] == 41
    assert sorted(map(tuple, ordered)) == sorted(map(tuple, c4.nextstates(SEED_EXAMPLE)))
    # x moved: best for x first
    children = c4.nextstates(from_columns([3, 3, 2, 2]))
    assert c4.shallow_order(children, bremse=1)[0][-1] in (35, 36, 39)


def test_solved_endgames_from_benchmark_file():
    """Win/draw/loss of real positions (Pons' Test_L3_R1) by full-depth search."""
    path = DATA / "Test_L3_R1"
    checked = 0
    for line in path.read_text().splitlines():
        moves, score = line.split()
        if 42 - len(moves) > 6:
            continue
        state = from_columns([int(m) - 1 for m in moves])
        _, value = c4.search(state, inf)
        mover_sign = 1 if c4.x_to_move(state) else -1
        expected = (int(score) > 0) - (int(score) < 0)
        assert (value > 0) - (value < 0) == expected * mover_sign, moves
        checked += 1
        if checked == 25:
            break
    assert checked == 25


# ---------------------------------------------------------------- book, ID, games

def test_opening_book_moves_are_legal():
    for key, successor in c4.OPENING_BOOK.items():
        assert successor in c4.nextstates(list(key)), key
        assert c4.book_move(list(key)) == successor
        assert c4.book_move(list(key)) is not successor
    assert c4.book_move([]) == [38] and c4.book_move([38]) == [38, 31]
    assert c4.book_move([38, 31]) is None
    assert set(c4.OPENING_BOOK) == {(), (38,)}   # the seed's book: entries the grader can verify
    stats = c4.SearchStats()
    assert c4.computer_move([38], stats=stats) == [38, 31] and stats.nodes == 0


class FakeClock:
    def __init__(self, tick=1.0):
        self.now, self.tick, self.calls = 100.0, tick, 0

    def __call__(self):
        self.calls += 1
        self.now += self.tick
        return self.now


@pytest.mark.parametrize("budget", [0, 10, 200, 2000, 20000])
def test_iterative_deepening_respects_budget(budget):
    clock = FakeClock()
    best, value, depth = c4.iterative_deepening(SEED_EXAMPLE, budget, clock=clock)
    start = 100.0 + clock.tick
    assert clock.now <= start + budget + clock.tick  # stops at the first late reading
    assert depth >= 1
    assert (best, value) == c4.search(SEED_EXAMPLE, depth, order=c4.centre_first)
    if budget >= 200:
        assert depth >= 3


def test_iterative_deepening_depth_grows_and_stops_at_decided_game():
    depths = [c4.iterative_deepening(SEED_EXAMPLE, b, clock=FakeClock())[2]
              for b in (50, 500, 5000)]
    assert depths == sorted(depths) and depths[0] < depths[-1]
    # x to move can win at once: the depth-1 search finds it and the search stops
    state = from_columns([0, 0, 1, 1, 2, 2])
    clock = FakeClock()
    best, value, depth = c4.iterative_deepening(state, 10 ** 9, clock=clock)
    assert best[-1] == 38 and value == 10000 and depth == 1
    best, value, depth = c4.iterative_deepening(SEED_EXAMPLE, 10 ** 9, clock=FakeClock(),
                                                max_bremse=3)
    assert depth == 3


def test_play_game_and_tournament_table():
    result = c4.tournament(c4.evaluation, c4.evaluation_b, openings=[(38,), (35,)], bremse=2)
    games, table = result["games"], result["table"]
    assert len(games) == 4
    assert [(g["x"], g["o"]) for g in games] == [("A", "B"), ("B", "A")] * 2
    for g in games:
        assert g["state"][:1] == g["opening"]
        assert c4.terminal_test(g["state"]) and g["moves"] == len(g["state"])
    for name in ("A", "B"):
        row = table[name]
        assert row["wins"] + row["draws"] + row["losses"] == 4
        assert row["points"] == row["wins"] + row["draws"] / 2
    assert table["A"]["wins"] == table["B"]["losses"]
    assert table["A"]["draws"] == table["B"]["draws"]
    state, outcome = c4.play_game(c4.evaluation, c4.evaluation, bremse=1, opening=(38,))
    value = c4.evaluation(state)
    assert outcome == (1 if value >= 10000 else -1 if value <= -10000 else 0)
    assert "wins" in c4.format_table(result)


def test_search_on_fixture_tree_through_patched_module():
    tree = trees.load_tree("ties-deep")
    game = TreeGame(tree)
    stats = c4.SearchStats()
    saved = c4.nextstates, c4.terminal_test
    c4.nextstates, c4.terminal_test = game.nextstates, game.terminal_test
    try:
        best, value = c4.maximize(tree["root"], bremse=10, evaluation=game.evaluation,
                                  stats=stats)
    finally:
        c4.nextstates, c4.terminal_test = saved
    ref = search_tree(tree)
    assert (best, value) == (ref.best, ref.value)
    assert [k for kind, k in game.log if kind == "e"] == ref.evaluated
    assert stats.prunings == ref.prunings
    assert stats.nodes == len(ref.visited)

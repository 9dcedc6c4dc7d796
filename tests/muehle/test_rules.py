"""The muehle reference's rules: tables, perft, Sanmill's games, edge cases, the fast generator."""

from __future__ import annotations

import importlib.util
import json
import random
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SANMILL = Path(__file__).resolve().parent / "data" / "sanmill_nine_mens_morris.json"   # see data/README.md


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ref = _load("muehle_reference_rules", ROOT / "solutions" / "muehle" / "muehle.py")
fast = _load("muehle_movegen_rules", ROOT / "autograder" / "suites" / "muehle" / "movegen.py")

W, B, E = ref.WHITE, ref.BLACK, ref.EMPTY


def make(white=(), black=(), hand=(0, 0), quiet=0):
    """A tuple-form state with stones of each colour on the given points."""
    board = [E] * 24
    for p in white:
        board[p] = W
    for p in black:
        board[p] = B
    return (tuple(board), tuple(hand), quiet)


def tset(states):
    return {ref.to_tuple(s) for s in states}


def perft(state, player, depth):
    """Perft with the readable reference, counting the last ply in bulk."""
    successors = ref.next_states(state, player)
    if depth == 1:
        return len(successors)
    other = ref.opponent(player)
    return sum(perft(s, other, depth - 1) for s in successors)


def move_of(before, after, player):
    """(from, to, removed) of the move from `before` to `after`; from is None for a placement."""
    other = ref.opponent(player)
    b0, b1 = before[0], after[0]
    gained = [p for p in range(24) if b0[p] != player and b1[p] == player]
    lost = [p for p in range(24) if b0[p] == player and b1[p] != player]
    removed = [p for p in range(24) if b0[p] == other and b1[p] != other]
    assert len(gained) == 1 and len(lost) <= 1 and len(removed) <= 1, (before, after)
    return (lost[0] if lost else None, gained[0], removed[0] if removed else None)


def random_positions(count, seed):
    """(state, player) pairs from seeded random playouts, covering every phase."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        state, player = ref.initial_state(), W
        for _ in range(rng.randrange(10, 160)):
            successors = ref.next_states(state, player)
            if not successors:
                break
            found.append((state, player))
            state, player = ref.to_tuple(rng.choice(successors)), ref.opponent(player)
        found.append((state, player))
    return found[:count]


def random_boards(count, seed):
    """(state, player) pairs with random stones and hands, flying and blocked ones included."""
    rng = random.Random(seed)
    found = []
    for _ in range(count):
        points = rng.sample(range(24), 24)
        nw, nb = rng.randrange(0, 10), rng.randrange(0, 10)
        hw = rng.choice([0, 0, 0, rng.randrange(0, 10 - nw)])
        hb = rng.choice([0, 0, 0, rng.randrange(0, 10 - nb)])
        quiet = rng.choice([0, 3, ref.DRAW_PLIES - 1, ref.DRAW_PLIES])
        state = make(points[:nw], points[nw:nw + nb], (hw, hb), quiet)
        found.append((state, rng.choice([W, B])))
    return found


# --- tables -----------------------------------------------------------------

def test_tables_match_the_drawing():
    assert len(ref.MILLS) == 16 and len(set(ref.MILLS)) == 16
    assert sorted(p for mill in ref.MILLS for p in mill) == sorted(list(range(24)) * 2)
    for a, b, c in ref.MILLS:
        xs = {ref.COORDS[p][0] for p in (a, b, c)}
        ys = {ref.COORDS[p][1] for p in (a, b, c)}
        assert len(xs) == 1 or len(ys) == 1          # a straight line of the grid
    # adjacency: neighbours on a mill line, symmetric, 32 connections
    edges = {frozenset((p, q)) for p in range(24) for q in ref.ADJACENT[p]}
    assert len(edges) == 32
    assert all(p in ref.ADJACENT[q] for p in range(24) for q in ref.ADJACENT[p])
    assert ref.ADJACENT == fast.ADJACENT
    assert ref.MILLS == fast.MILLS
    # row-major numbering: points sorted by (row, column)
    assert list(ref.COORDS) == sorted(ref.COORDS, key=lambda c: (c[1], c[0]))
    assert all(len(ref.MILLS_AT[p]) == 2 for p in range(24))


def test_state_forms_round_trip():
    start = ref.initial_state()
    assert start == ((0,) * 24, (9, 9), 0)
    as_list = ref.to_list(start)
    assert as_list == [[0] * 24, [9, 9], 0]
    assert ref.to_tuple(as_list) == start and ref.to_tuple(start) == start
    as_list[0][3] = W
    assert start[0][3] == E                     # to_list copies
    again = ref.to_list(as_list)
    again[1][0] = 1
    assert as_list[1][0] == 9
    assert ref.opponent(W) == B and ref.opponent(B) == W


def test_next_states_returns_fresh_list_states_and_keeps_input():
    state = ref.to_list(make([0, 1], [5], (7, 8)))
    snapshot = json.dumps(state)
    successors = ref.next_states(state, W)
    assert json.dumps(state) == snapshot
    assert all(isinstance(s, list) and isinstance(s[0], list) and isinstance(s[1], list)
               for s in successors)
    assert len({id(s[0]) for s in successors}) == len(successors)
    assert len({id(s[1]) for s in successors}) == len(successors)


# --- perft ------------------------------------------------------------------

@pytest.mark.parametrize("depth, expected", [(1, 24), (2, 552), (3, 12_144), (4, 255_024)])
def test_perft_reference(depth, expected):
    assert perft(ref.initial_state(), W, depth) == expected


@pytest.mark.parametrize("depth, expected",
                         [(1, 24), (2, 552), (3, 12_144), (4, 255_024), (5, 5_140_800)])
def test_perft_fast_generator(depth, expected):
    assert fast.perft(depth) == expected


def test_perft_folded_relates_to_sanmill_unfolded():
    data = json.loads(SANMILL.read_text())
    unfolded = dict(data["perft"])
    assert [unfolded[d] for d in (1, 2, 3, 4)] == [24, 552, 12_144, 255_024]
    # 20,160 mill-closing placements at ply 5, each with 2 removals: folded counts them twice,
    # Sanmill counts the closing placement once and the removal as its own ply (not in perft 5).
    assert unfolded[5] == 5_140_800 - 2 * 20_160


# --- the fast generator equals the reference --------------------------------

def test_fast_generator_equals_reference_as_sets():
    positions = random_positions(1500, seed=1) + random_boards(1500, seed=2)
    phases = set()
    for state, player in positions:
        expected = tset(ref.next_states(state, player))
        got = fast.next_states(state, player)
        assert set(got) == expected, ref.draw_board(state)
        assert len(got) == len(expected)                 # no duplicates either
        assert fast.count_moves(fast.encode(state, player)) == len(expected)
        assert ref.finished(state, player) == (not expected)
        board, hand = state[0], state[1]
        phases.add("placing" if hand[player - 1] else
                   "flying" if board.count(player) == 3 else "moving")
    assert phases == {"placing", "moving", "flying"}


def test_fast_encode_decode_round_trip():
    for state, player in random_boards(200, seed=3):
        assert fast.decode(fast.encode(state, player), player) == ref.to_tuple(state)


def test_reference_has_no_duplicate_successors():
    for state, player in random_positions(300, seed=4):
        successors = ref.next_states(state, player)
        assert len(tset(successors)) == len(successors)


# --- Sanmill's games ----------------------------------------------------------

def _sanmill_point_map():
    """Sanmill square name -> our point, from the README's 7x7 grid (files a-g, ranks 1-7)."""
    names = {}
    for p, (col, row) in enumerate(ref.COORDS):
        names["abcdefg"[col] + str(7 - row)] = p
    return names


POINT = _sanmill_point_map()
FEN_ORDER = ("d5 e5 e4 e3 d3 c3 c4 c5 d6 f6 f4 f2 d2 b2 b4 b6 "
             "d7 g7 g4 g1 d1 a1 a4 a7").split()


def from_fen(fen):
    """(state, player, action) of a Sanmill fen; the quiet counter is 0 (fens carry none)."""
    fields = fen.split()
    cells = fields[0].replace("/", "")
    assert len(cells) == 24
    board = [E] * 24
    for name, cell in zip(FEN_ORDER, cells):
        board[POINT[name]] = {"*": E, "O": W, "@": B}[cell]
    on_w, hand_w, on_b, hand_b = map(int, fields[4:8])
    assert board.count(W) == on_w and board.count(B) == on_b
    player = {"w": W, "b": B}[fields[1]]
    return (tuple(board), (hand_w, hand_b), 0), player, fields[3]


def _games():
    return json.loads(SANMILL.read_text())["trajectories"]


def test_sanmill_point_map_is_a_bijection_onto_the_board():
    assert len(POINT) == 24 and sorted(POINT.values()) == list(range(24))
    assert set(FEN_ORDER) == set(POINT)
    assert POINT["a7"] == 0 and POINT["d7"] == 1 and POINT["g1"] == 23 and POINT["e4"] == 12


@pytest.mark.parametrize("index", range(8))
def test_sanmill_game_agrees(index):
    game = _games()[index]
    steps = game["steps"]
    inverse = {p: name for name, p in POINT.items()}
    checked = 0
    i = 0
    state = None
    while i < len(steps):
        step = steps[i]
        state, player, action = from_fen(step["fen"])
        assert action in "ps", step
        if state[1][player - 1]:
            assert step["fen"].split()[2] == "p"
        moves = {}
        for s in ref.next_states(state, player):
            frm, to, removed = move_of(state, s, player)
            uci = inverse[to] if frm is None else f"{inverse[frm]}-{inverse[to]}"
            moves.setdefault(uci, {})[removed] = ref.to_tuple(s)
        assert set(moves) == set(step["legal_uci"]), (index, step["ply"])
        checked += 1
        picked = moves[step["picked_uci"]]
        if i + 1 < len(steps) and from_fen(steps[i + 1]["fen"])[2] == "r":
            # the mill-closing move: its removals are the next step's legal removals
            removal = steps[i + 1]
            assert None not in picked
            assert {"x" + inverse[r] for r in picked} == set(removal["legal_uci"]), removal["ply"]
            after_move, mover, _ = from_fen(removal["fen"])
            assert mover == player
            for s in picked.values():
                gone = [p for p in range(24) if s[0][p] != after_move[0][p]]
                assert len(gone) == 1 and after_move[0][gone[0]] == ref.opponent(player)
            checked += 1
            result = picked[POINT[removal["picked_uci"][1:]]]
            i += 2
        else:
            assert set(picked) == {None}
            result = picked[None]
            i += 1
        if i < len(steps):
            following, _, _ = from_fen(steps[i]["fen"])
            assert result[:2] == following[:2], (index, steps[i]["ply"])
    assert checked == len(steps)
    # The recorded games end either with the game over (phase tag 4) or after 200 plies.
    loser = ref.opponent(player)
    assert ref.finished((result[0], result[1], 0), loser) == (game["final_phase_tag"] == 4)
    if game["final_phase_tag"] == 4:
        assert ref.utility((result[0], result[1], 0), loser) == -1


def test_sanmill_data_has_1142_steps():
    assert sum(len(g["steps"]) for g in _games()) == 1142


# --- rule edge cases ----------------------------------------------------------

def test_placing_anywhere_empty_and_hand_decreases():
    state = make([0], [12], (8, 8))
    successors = ref.next_states(state, W)
    assert len(successors) == 22
    assert all(s[1] == [7, 8] and s[2] == 0 for s in successors)
    assert {move_of(state, s, W)[1] for s in successors} == set(range(24)) - {0, 12}


def test_flying_with_exactly_three_stones():
    # white: 0, 12, 20 (no two on a common mill), black: 5 stones away from them
    state = make([0, 12, 20], [3, 6, 15, 18, 22], quiet=4)
    moves = {move_of(state, s, W)[:2] for s in ref.next_states(state, W)}
    empties = [p for p in range(24) if state[0][p] == E]
    assert moves == {(p, q) for p in (0, 12, 20) for q in empties}
    assert all(s[2] == 5 for s in ref.next_states(state, W))
    # four stones: only along the lines
    state4 = make([0, 12, 20, 11], [3, 6, 15, 18, 22])
    moves4 = {move_of(state4, s, W)[:2] for s in ref.next_states(state4, W)}
    assert moves4 == {(p, q) for p in (0, 12, 20, 11) for q in ref.ADJACENT[p]
                      if state4[0][q] == E}
    # three on the board but stones in hand: still placing, no flying
    placing = make([0, 12, 20], [3, 6, 15], (2, 3))
    assert all(move_of(placing, s, W)[0] is None for s in ref.next_states(placing, W))
    # black, with 5 stones, only slides
    black_moves = {move_of(state, s, B)[:2] for s in ref.next_states(state, B)}
    assert black_moves and all(q in ref.ADJACENT[p] for p, q in black_moves)


def test_removal_spares_mills_unless_all_in_mills():
    # black has the mill 21-22-23 and a loose stone on 12; white closes 0-1-2 by placing 2
    state = make([0, 1], [21, 22, 23, 12], (5, 5))
    closing = [s for s in ref.next_states(state, W) if s[0][2] == W]
    assert {move_of(state, s, W)[2] for s in closing} == {12}
    # all black stones in mills: any of them may go
    state = make([0, 1], [21, 22, 23], (5, 6))
    closing = [s for s in ref.next_states(state, W) if s[0][2] == W]
    assert {move_of(state, s, W)[2] for s in closing} == {21, 22, 23}


def test_double_mill_removes_one_stone():
    # placing 0 closes both 0-1-2 and 0-9-21
    state = make([1, 2, 9, 21], [5, 13, 16, 19], (3, 4))
    closing = [s for s in ref.next_states(state, W) if s[0][0] == W]
    assert len(closing) == 4
    for s in closing:
        assert s[0].count(B) == 3


def test_sliding_into_a_mill_again_removes():
    # white slides 14 -> 2, re-forming 0-1-2; sliding out of a mill removes nothing
    state = make([0, 1, 14, 4], [9, 16, 19, 23, 22])
    successors = ref.next_states(state, W)
    into = [s for s in successors if move_of(state, s, W)[:2] == (14, 2)]
    assert {move_of(state, s, W)[2] for s in into} == {9, 16, 19, 23, 22} - {16, 19, 22}
    assert all(s[2] == 0 for s in into)
    out = [s for s in successors if move_of(state, s, W)[:2] == (1, 2)]
    assert [move_of(state, s, W)[2] for s in out] == [None]


def test_mill_with_no_opponent_stone_on_board_removes_nothing():
    state = make([0, 1], [], (5, 7))
    closing = [s for s in ref.next_states(state, W) if s[0][2] == W]
    assert len(closing) == 1 and closing[0][0].count(B) == 0


def test_no_legal_move_loses():
    # white 4 stones in the corners of the outer ring, all neighbours black
    white = [0, 2, 21, 23]
    black = [1, 9, 14, 22, 4, 10]
    state = make(white, black)
    assert ref.next_states(state, W) == []
    assert ref.finished(state, W) and ref.utility(state, W) == -1
    assert not ref.finished(state, B)
    assert ref.next_states(state, B)


def test_fewer_than_three_stones_loses():
    state = make([0, 12], [3, 6, 15, 18])
    assert ref.finished(state, W) and ref.utility(state, W) == -1
    assert ref.finished(state, B) and ref.utility(state, B) == 1
    assert ref.next_states(state, W) == [] and ref.next_states(state, B) == []
    # stones in hand count: two on the board and one in hand is still in the game
    alive = make([0, 12], [3, 6, 15, 18], (1, 0))
    assert not ref.finished(alive, W)
    assert ref.utility(alive, W) == 0


def test_draw_rule():
    limit = ref.DRAW_PLIES
    state = make([0, 12, 20, 7], [3, 6, 15, 18], quiet=limit - 1)
    assert not ref.finished(state, W)
    successors = ref.next_states(state, W)
    plain = [s for s in successors if s[0].count(B) == 4]
    assert plain and all(s[2] == limit for s in plain)
    s = plain[0]
    assert ref.finished(s, B) and ref.utility(s, B) == 0 and ref.next_states(s, B) == []
    drawn = (state[0], state[1], limit)
    assert ref.finished(drawn, W) and ref.utility(drawn, W) == 0
    # a removal resets the counter; so does a placement
    capture = make([0, 1, 14, 4], [9, 16, 19, 23, 22], quiet=30)
    assert {s[2] for s in ref.next_states(capture, W)} == {0, 31}
    placing = make([0], [12], (8, 8), quiet=7)
    assert {s[2] for s in ref.next_states(placing, W)} == {0}
    # a blocked player loses even when the counter has run out
    blocked = make([0, 2, 21, 23], [1, 9, 14, 22, 4, 10], quiet=limit)
    assert ref.utility(blocked, W) == -1


def test_finished_exactly_when_no_successors():
    for state, player in random_positions(400, seed=5) + random_boards(400, seed=6):
        empty = not ref.next_states(state, player)
        assert ref.finished(state, player) == empty
        if not empty:
            assert ref.utility(state, player) == 0
        assert ref.finished(ref.to_list(state), player) == empty


def test_heuristic_formula():
    assert ref.heuristic(ref.initial_state(), W) == 0
    # white 0, 1 with 2 empty: one open two for white; black 12 alone; hands (7, 8)
    state = make([0, 1], [12], (7, 8))
    assert ref.heuristic(state, W) == (8 * (9 - 9) + 1) / 128
    assert ref.heuristic(state, B) == -1 / 128
    # black blocks 2: no open two; white has one stone more
    state = make([0, 1, 5], [2, 13], (6, 7))
    assert ref.heuristic(state, W) == (8 * (9 - 9) + 0) / 128
    # material: white 5 on board, black 3 + 1 in hand; open twos: white 0-1 (2 empty) and
    # 0-9 (21 empty); black 13-14 (12 empty)
    state = make([0, 1, 9, 16, 18], [13, 14, 7], (0, 1))
    assert ref.heuristic(state, W) == (8 * (5 - 4) + 2 - 1) / 128
    assert ref.heuristic(ref.to_list(state), B) == -(8 + 1) / 128
    for state, player in random_positions(300, seed=7):
        value = ref.heuristic(state, player)
        assert -1 < value < 1 and value == -ref.heuristic(state, ref.opponent(player))
        assert (value * 128).is_integer()

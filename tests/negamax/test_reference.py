"""Kit tests for the negamax reference (solutions/negamax/negamax.py).

Everything is checked against an independent model written here (a tuple of
nine cells, plain minimax, memoized), exhaustively over all 5,478 reachable
tic-tac-toe positions where that is cheap, plus hand-traced counts. The wrong
variants in examples/negamax/ are checked to differ from the reference in
exactly the observables their table in wrong_variants.py names.
"""

import copy
import difflib
import math
import random
import sys
from functools import lru_cache
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import wrong_variants as wv  # noqa: E402  (found via the sys.path line above)

from autograder.checking.handout import Refused  # noqa: E402
from autograder.checking.boards import InstrumentedGame, MoveTree  # noqa: E402

ref = wv.load_reference()
INF = math.inf


# -- an independent tic-tac-toe model ---------------------------------------
LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def winner(cells):
    for a, b, c in LINES:
        if cells[a] and cells[a] == cells[b] == cells[c]:
            return cells[a]
    return 0


def static(cells):
    """The seed's evaluation, player 1's view."""
    who = winner(cells)
    free = cells.count(0)
    return {0: 0, 1: 10 + free, 2: -10 - free}[who]


def side(cells):
    return 1 if (9 - cells.count(0)) % 2 == 0 else 2


def moves(cells):
    """Legal moves as (x, y), row by row: cell index i is (i % 3, i // 3)."""
    if winner(cells):
        return []
    return [(i % 3, i // 3) for i in range(9) if cells[i] == 0]


def play(cells, move):
    x, y = move
    out = list(cells)
    out[3 * y + x] = side(cells)
    return tuple(out)


@lru_cache(maxsize=None)
def minimax(cells, depth=99):
    """Plain depth-limited minimax, player 1 maximizes, value from player 1's view."""
    options = moves(cells)
    if depth <= 0 or not options:
        return static(cells)
    values = [minimax(play(cells, m), depth - 1) for m in options]
    return max(values) if side(cells) == 1 else min(values)


def for_mover(cells, value):
    return value if side(cells) == 1 else -value


@lru_cache(maxsize=None)
def full_tree(cells, depth):
    """(expanded nodes, leaves) of a search without pruning: what plain negamax does."""
    options = moves(cells)
    if depth <= 0 or not options:
        return 0, 1
    nodes, leaves = 1, 0
    for m in options:
        n, l = full_tree(play(cells, m), depth - 1)
        nodes, leaves = nodes + n, leaves + l
    return nodes, leaves


def all_positions():
    seen, todo = {(0,) * 9}, [(0,) * 9]
    while todo:
        cells = todo.pop()
        for m in moves(cells):
            nxt = play(cells, m)
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return sorted(seen)


POSITIONS = all_positions()
INTERIOR = [p for p in POSITIONS if moves(p)]


def board(cells):
    return ref.TicTacToe(wv.rows(cells))


def cells_of(b):
    return tuple(c for row in b.field for c in row)


# -- the board -----------------------------------------------------------------
def test_reachable_positions_are_the_known_5478():
    assert len(POSITIONS) == 5478
    assert wv.reachable_fields(ref) == POSITIONS


def test_board_rules_match_the_independent_model_everywhere():
    for cells in POSITIONS:
        b = board(cells)
        assert b.getMoves() == moves(cells), cells
        assert b.evaluate() == static(cells), cells
        assert b.getSide() == side(cells), cells
        assert b.winner() == winner(cells), cells


def test_make_and_undo_are_exact_inverses_and_refuse_bad_cells():
    for cells in INTERIOR:
        b = board(cells)
        for m in b.getMoves():
            b.makeMove(m)
            assert cells_of(b) == play(cells, m)
            with pytest.raises(ValueError):
                b.makeMove(m)
            b.undoMove(m)
            assert cells_of(b) == cells
            with pytest.raises(ValueError):
                b.undoMove(m)


def test_new_game_keeps_the_same_row_lists():
    b = board((1, 2, 1, 0, 0, 0, 0, 0, 0))
    rows = list(b.field)
    b.newGame()
    assert b.field == [[0, 0, 0]] * 3 and all(r is s for r, s in zip(b.field, rows))


# -- full-depth values, exhaustively ------------------------------------------
@pytest.mark.slow
def test_evaluated_moves_at_full_depth_match_minimax_on_every_position():
    alphabeta_nodes = plain_nodes = 0
    for cells in POSITIONS:
        b = board(cells)
        before = copy.deepcopy(b.field)
        evaluated = ref.NegaMax(b).getEvaluatedMoves(9)
        assert b.field == before, cells
        legal = moves(cells)
        assert sorted(m for _, m, _ in evaluated) == sorted(legal), cells
        for value, m, nodes in evaluated:
            child = play(cells, m)
            assert value == for_mover(cells, minimax(child)), (cells, m)
            assert nodes <= full_tree(child, 8)[0], (cells, m)
            alphabeta_nodes += nodes
            plain_nodes += full_tree(child, 8)[0]
        # Best first; equal values keep getMoves order.
        keys = [(-v, legal.index(m)) for v, m, _ in evaluated]
        assert keys == sorted(keys), cells
    # Summed over all 5,478 positions: 296,182 expanded nodes below the root
    # moves with alpha-beta, 1,134,477 without pruning.
    assert (alphabeta_nodes, plain_nodes) == (296182, 1134477)


@pytest.mark.slow
def test_explore_at_full_depth_matches_minimax_on_every_position():
    for cells in POSITIONS:
        b = board(cells)
        searcher = ref.NegaMax(b)
        assert searcher.explore(9, -INF, INF) == for_mover(cells, minimax(cells)), cells
        assert searcher.treeNodeCounter <= full_tree(cells, 9)[0]
        assert cells_of(b) == cells


def test_measured_work_on_the_empty_board():
    """Regression numbers for the technique (the hidden suite compares these exactly)."""
    game = InstrumentedGame(ref.TicTacToe())
    searcher = ref.NegaMax(game)
    assert searcher.explore(9) == 0
    counts = (searcher.treeNodeCounter, game.counts["evaluate"], game.counts["makeMove"])
    assert counts == (12413, 8453, 20865)
    # Without pruning: 294,778 expanded nodes and 255,168 leaves (finished games).
    assert full_tree((0,) * 9, 9) == (294778, 255168)
    game.reset()
    evaluated = searcher.getEvaluatedMoves(9)
    assert [v for v, _, _ in evaluated] == [0] * 9
    assert sum(n for _, _, n in evaluated) == 20089 and game.counts["evaluate"] == 14113


@pytest.mark.slow
def test_work_never_exceeds_plain_negamax_and_the_board_is_restored():
    """Instrumented: evaluate calls <= leaves of the full tree; make = nodes + leaves."""
    for cells in INTERIOR[::7]:
        for depth in (1, 2, 3, 9):
            game = InstrumentedGame(board(cells))
            evaluated = ref.NegaMax(game).getEvaluatedMoves(depth)
            nodes = sum(n for _, _, n in evaluated)
            leaves = sum(full_tree(play(cells, m), depth - 1)[1] for m in moves(cells))
            assert game.counts["evaluate"] <= leaves
            assert game.counts["makeMove"] == game.counts["undoMove"] == nodes + game.counts["evaluate"]
            assert max(game.summary()["evaluate_plies"]) <= depth
            # Undecided positions are evaluated only at the depth limit.
            assert set(game.open_evaluate_plies) <= {depth}
            assert game.restored() and not game.violations


@pytest.mark.slow
def test_plain_negamax_variant_does_exactly_the_full_tree_work():
    """The node counter counts expanded nodes only, as the seed's treeNodeCounter did."""
    plain = wv.load_variant("no_pruning")
    for cells in INTERIOR[::11]:
        if cells.count(0) > 7:
            continue
        for depth in (1, 3, 9):
            game = InstrumentedGame(board(cells))
            evaluated = plain.NegaMax(game).getEvaluatedMoves(depth)
            for value, m, nodes in evaluated:
                assert nodes == full_tree(play(cells, m), depth - 1)[0]
            assert game.counts["evaluate"] == sum(
                full_tree(play(cells, m), depth - 1)[1] for m in moves(cells))


# -- hand-traced counts ------------------------------------------------------
P1 = (1, 2, 1,
      2, 2, 1,
      0, 0, 0)   # player 1 to move; (2, 2) wins at once, (0, 2) lets 2 win


def test_hand_traced_position_explore():
    # Trace (root window full, player 1 to move):
    #  (0,2): node; 2 wins with (1,2) -> leaf -11, value 11 for player 2;
    #         (2,2): node, window (-inf, -11); its only child draws (leaf 0):
    #         0 >= -11 cuts, returns -11 -> player 2 keeps 11. Root alpha = -11.
    #  (1,2): node, window (-inf, 11); (0,2): node, 1 wins with (2,2) (leaf +10);
    #         (2,2): node, (0,2) draws (leaf 0). Player 2 gets 0. Root alpha = 0.
    #  (2,2): player 1 wins at once: decided, a leaf (+12, two cells free).
    # 6 expanded nodes, 5 leaves = 5 evaluate calls, 6 + 5 - 1 = 10 makeMoves.
    game = InstrumentedGame(board(P1))
    searcher = ref.NegaMax(game)
    assert searcher.explore(9, -INF, INF) == 12
    assert searcher.treeNodeCounter == 6
    assert game.counts["evaluate"] == 5 and game.counts["makeMove"] == 10
    assert game.restored()


def test_hand_traced_position_evaluated_moves():
    game = InstrumentedGame(board(P1))
    assert ref.NegaMax(game).getEvaluatedMoves(9) == [
        (12, (2, 2), 0), (0, (1, 2), 3), (-11, (0, 2), 2)]
    assert game.counts["evaluate"] == 5 and game.counts["makeMove"] == 10


def test_hand_traced_empty_board_shallow():
    # Depth 1: nine leaves, all 0. Depth 2 per root move: one node, eight leaves.
    game = InstrumentedGame(ref.TicTacToe())
    searcher = ref.NegaMax(game)
    assert searcher.getEvaluatedMoves(1) == [(0, (x, y), 0) for y in range(3) for x in range(3)]
    assert game.counts["evaluate"] == 9
    game.reset()
    assert searcher.getEvaluatedMoves(2) == [(0, (x, y), 1) for y in range(3) for x in range(3)]
    assert game.counts["evaluate"] == 72 and game.counts["makeMove"] == 81
    # explore(2): the first child sets alpha = 0; every later child's first leaf
    # gives 0 >= beta = 0 and cuts: 1 + 9 nodes, 8 + 8 * 1 leaves. A cut on
    # "> beta" would evaluate all 72 leaves instead.
    game.reset()
    searcher.treeNodeCounter = 0                 # explore adds to it, never resets it
    assert searcher.explore(2, -INF, INF) == 0
    assert searcher.treeNodeCounter == 10
    assert game.counts["evaluate"] == 16 and game.counts["makeMove"] == 25


def test_hand_traced_textbook_tree():
    # Max over three min nodes [3 12 8] [2 4 6] [14 5 2]: value 3; the second
    # subtree is cut after its leaf 2, the third after 14, 5, 2.
    game = InstrumentedGame(MoveTree(*wv.TREES[0]))
    searcher = ref.NegaMax(game)
    assert searcher.explore(2, -INF, INF) == 3
    assert searcher.treeNodeCounter == 4
    assert game.counts["evaluate"] == 7 and game.counts["makeMove"] == 10
    assert game.summary()["evaluate_plies"] == {2: 7}
    # Fail-hard: a window that the value lies outside returns the bound.
    assert ref.NegaMax(MoveTree(*wv.TREES[0])).explore(2, 4, 9) == 4
    assert ref.NegaMax(MoveTree(*wv.TREES[0])).explore(2, -5, 1) == 1
    # getEvaluatedMoves searches every root move with the full window.
    assert ref.NegaMax(MoveTree(*wv.TREES[0])).getEvaluatedMoves(2) == [
        (3, 0, 1), (2, 1, 1), (2, 2, 1)]


def test_depth_limit_evaluates_inner_nodes_and_decided_games_stop_the_search():
    tree, statics = wv.TREES[1]
    # Depth 1: four leaves at ply 1, static values 4, -2, 5, 1 from player 1's view.
    game = InstrumentedGame(MoveTree(tree, statics))
    assert ref.NegaMax(game).explore(1) == 5
    assert game.counts["evaluate"] == 4 and game.summary()["evaluate_plies"] == {1: 4}
    # Depth 0: the root itself is the leaf.
    assert ref.NegaMax(MoveTree(tree, statics)).explore(0) == 0
    # A depth beyond the tree changes nothing: decided games are leaves.
    game = InstrumentedGame(MoveTree(*wv.TREES[0]))
    searcher = ref.NegaMax(game)
    assert searcher.explore(5) == 3 and searcher.treeNodeCounter == 4
    assert game.summary()["evaluate_plies"] == {2: 7}


# -- depth-limited opponent ------------------------------------------------------
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_short_sighted_values_match_depth_limited_minimax(depth):
    for cells in POSITIONS:
        b = board(cells)
        opponent = ref.ShortSightedOpponent(b, depth)
        evaluated = opponent.getEvaluatedMoves()
        for value, m, _ in evaluated:
            assert value == for_mover(cells, minimax(play(cells, m), depth - 1)), (cells, m)
        assert opponent.explore(depth) == for_mover(cells, minimax(cells, depth)), cells
        assert cells_of(b) == cells


def test_short_sighted_play_makes_a_best_move():
    for cells in INTERIOR[::13]:
        b = board(cells)
        move = ref.ShortSightedOpponent(b, 2).play(random.Random(1))
        best = max(for_mover(cells, minimax(play(cells, m), 1)) for m in moves(cells))
        assert for_mover(cells, minimax(play(cells, move), 1)) == best
        assert cells_of(b) == play(cells, move)
    decided = (1, 1, 1, 2, 2, 0, 0, 0, 0)
    b = board(decided)
    assert ref.ShortSightedOpponent(b, 2).play() is None and cells_of(b) == decided


def test_depth_two_blocks_an_immediate_threat():
    # Player 2 to move; player 1 threatens (2, 0). Depth 1 cannot see it, depth 2 blocks.
    cells = (1, 1, 0, 0, 2, 0, 0, 0, 0)
    assert ref.ShortSightedOpponent(board(cells), 2).getBestMove(rng=random.Random(0)) == (2, 0)
    best1 = ref.ShortSightedOpponent(board(cells), 1).getEvaluatedMoves()
    assert {v for v, _, _ in best1} == {0}


# -- random choice among equals ------------------------------------------------
def test_tie_positions_have_ties_and_worse_moves():
    for cells in wv.TIE_POSITIONS:
        values = [for_mover(cells, minimax(play(cells, m))) for m in moves(cells)]
        assert values.count(max(values)) >= 2 and min(values) < max(values)


@pytest.mark.parametrize("cells", wv.TIE_POSITIONS)
def test_random_choice_covers_all_best_moves_and_nothing_else(cells):
    values = {m: for_mover(cells, minimax(play(cells, m))) for m in moves(cells)}
    best = {m for m, v in values.items() if v == max(values.values())}
    picks = set()
    for seed in range(40):
        b = board(cells)
        picks.add(ref.NegaMax(b).getBestMove(9, random.Random(seed)))
        assert cells_of(b) == cells
    assert picks == best


def test_choice_is_reproducible_and_uses_one_rng_choice():
    cells = wv.TIE_POSITIONS[0]
    legal = moves(cells)
    best = [m for m in legal
            if for_mover(cells, minimax(play(cells, m))) ==
            max(for_mover(cells, minimax(play(cells, n))) for n in legal)]
    for seed in range(10):
        expected = random.Random(seed).choice(best)
        assert ref.NegaMax(board(cells)).getBestMove(9, random.Random(seed)) == expected
    assert ref.NegaMax(board(cells)).getBestMove(9) in best  # the random module


def test_edge_cases():
    decided = board((1, 1, 1, 2, 2, 0, 0, 0, 0))
    searcher = ref.NegaMax(decided)
    assert searcher.getEvaluatedMoves(9) == [] and searcher.getBestMove(9) is None
    assert searcher.explore(5) == -14      # player 2 to move; player 1 has won: +14
    with pytest.raises(ValueError):
        ref.NegaMax(ref.TicTacToe()).getEvaluatedMoves(0)


# -- the instrumented wrapper ----------------------------------------------------
def test_wrapper_flags_broken_discipline():
    game = InstrumentedGame(board((0,) * 9))
    game.makeMove((0, 0))
    game.makeMove((1, 0))
    game.undoMove((0, 0))                        # not the last move
    assert game.violations and not game.restored()
    game = InstrumentedGame(board((1, 0, 0, 0, 0, 0, 0, 0, 0)))
    with pytest.raises(Refused):
        game.makeMove((0, 0))                    # occupied: not offered, refused
    assert len(game.violations) == 1 and game.restored()
    assert "does not offer this move" in game.handout.first_refusal   # kept for the check


def test_wrapper_summary_records_the_search():
    # Empty board, depth 2: 1 + 9 expanded nodes, 9 + 16 moves (see above).
    game = InstrumentedGame(ref.TicTacToe())
    ref.NegaMax(game).explore(2)
    summary = game.summary()
    assert set(summary) == {"counts", "expanded", "made", "max_ply", "evaluate_plies",
                            "open_evaluate_plies", "violations", "pending", "restored",
                            "refused"}
    assert summary["expanded"] == 10 and len(summary["made"]) == 25
    assert summary["made"][:3] == [(0, 0), (1, 0), (2, 0)] and summary["max_ply"] == 2


def test_wrapper_sees_an_unrestored_board():
    inner = ref.TicTacToe()
    game = InstrumentedGame(inner)
    inner.field[1][1] = 2                        # changed behind the wrapper's back
    assert not game.restored()


# -- the wrong variants -----------------------------------------------------------
@pytest.fixture(scope="module")
def reference_observations():
    return wv.observe(ref, ref, POSITIONS)


def test_variant_files_are_the_reference_with_one_bug():
    reference = wv.strip_markers(wv.REFERENCE.read_text(encoding="utf-8"))
    for name in wv.VARIANTS:
        text = wv.path_of(name).read_text(encoding="utf-8")
        assert text == wv.build(name), f"{name}: run python tests/negamax/wrong_variants.py"
        changed = [line for line in difflib.unified_diff(reference.splitlines(), text.splitlines(),
                                                         lineterm="", n=0)
                   if line[:1] in "+-" and line[:3] not in ("+++", "---")]
        assert 0 < len(changed) <= 12, name
        assert "### " not in text


@pytest.mark.slow
def test_reference_observes_itself(reference_observations):
    assert wv.differences(wv.observe(ref, ref, POSITIONS), reference_observations) == set()


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(wv.VARIANTS))
def test_variant_differs_exactly_where_documented(name, reference_observations):
    observed = wv.observe(wv.load_variant(name), ref, POSITIONS)
    assert wv.differences(observed, reference_observations) == wv.VARIANTS[name].observables


@pytest.mark.parametrize("name, plies", [("evaluate_above_depth", {1, 2, 3}),
                                         ("off_by_one_depth", {4}), ("no_pruning", {3})])
def test_the_wrapper_shows_where_undecided_positions_were_evaluated(name, plies):
    """Depth 3 from a position with 5 empty cells: only ply 3 is the depth limit."""
    cells = (1, 2, 0, 0, 1, 0, 0, 2, 0)
    game = InstrumentedGame(board(cells))
    searcher = wv.load_variant(name).NegaMax(game)
    searcher.getEvaluatedMoves(3)
    assert set(game.open_evaluate_plies) == plies
    game = InstrumentedGame(board(cells))
    ref.NegaMax(game).getEvaluatedMoves(3)
    assert set(game.open_evaluate_plies) == {3}

"""The muehle hidden suite's own machinery, without a sandbox: the grader's games and
watches, the positions built for each rule's edges, and cases that tell the common
mistakes apart (each would be a check that cannot fail otherwise)."""

from __future__ import annotations

import random
import types

import pytest

import autograder.suites.muehle.test_hidden as hidden
from autograder import assignment as assignments
from autograder.checking import Case
from autograder.sandbox.client import Outcome
from autograder.suites.muehle import games, positions
from autograder.checking.handout import Refused
from autograder.suites.muehle.games import Game, Watch
from tests.muehle import examples_build

ref = games.ref
W, B = ref.WHITE, ref.BLACK


def sample(count, seed):
    rng = random.Random(seed)
    return rng.sample(positions.everything(), count)


def mutant(student, text=None):
    """An example submission (the reference with one bug) loaded in this process."""
    module = types.ModuleType(f"muehle_{student}")
    exec(compile(text or examples_build.build(student), f"{student}.py", "exec"),
         module.__dict__)
    return module


def edited(old, new):
    """The reference with one edit, loaded in this process."""
    text = examples_build.plain_reference()
    assert text.count(old) == 1
    return mutant("edited", text.replace(old, new))


# ------------------------------------------------------------------ nothing of ours in the child
def test_the_suite_loads_nothing_into_the_sandbox():
    suite = assignments.load("muehle").suite_dir
    assert not (suite / "child_kit.py").exists()
    assert "[kit]" not in (suite / "rubric.toml").read_text()


# ------------------------------------------------------------------ games and watches
def test_a_game_offers_some_legal_moves_in_its_own_order():
    for i, (state, player) in enumerate(sample(300, 1)):
        game = Game(i, [(state, player)], (2, 5), 0.2)
        offered = game.successors(state, player)
        legal = positions.successors(state, player)
        assert set(offered) <= legal and len(set(offered)) == len(offered)
        assert (offered == []) == game.finished(state, player)       # finished: no moves
        assert (not legal) <= (offered == [])
        assert len(offered) <= 5
        assert game.finished(state, player) or len(offered) >= min(2, len(legal))
        again = Game(i, [(state, player)], (2, 5), 0.2)
        assert again.successors(state, player) == offered             # seeded, not random
    everything = [(Game(0, [], None, 0), s, p) for s, p in sample(100, 2)]
    full = [g.successors(s, p) for g, s, p in everything]
    assert any(list(sorted(f)) != f for f in full)                    # its own order
    assert all(set(f) == positions.successors(s, p) for f, (_, s, p) in zip(full, everything))


def test_a_game_declares_some_positions_finished_but_never_a_root():
    state, player = sample(1, 3)[0]
    children = [(s, ref.opponent(player)) for s in positions.successors(state, player)]
    game = Game(5, [(state, player)], None, 0.5)
    declared = [c for c in children if game.finished(*c) and not ref.finished(*c)]
    assert declared and all(game.utility(*c) in (-1, 0, 1) for c in declared)
    rooted = Game(5, children, None, 0.5)
    assert not any(rooted.finished(*c) and not ref.finished(*c) for c in children)


def test_a_game_heuristic_is_its_own_but_behaves_like_one():
    values = []
    for i, (state, player) in enumerate(sample(300, 4)):
        game = Game(i)
        value = game.heuristic(state, player)
        assert -1 < value < 1 and (value * 128).is_integer()
        assert game.heuristic(state, ref.opponent(player)) == -value
        values.append(value == ref.heuristic(state, player))
    assert sum(values) < 30                                             # not the real one


def test_a_watch_answers_only_about_what_it_handed_out():
    (state, player), (elsewhere, _) = sample(2, 5)
    opp = ref.opponent(player)
    watch = Watch(Game(7, [(state, player)], (3, 3), 0), [(state, player)])
    with pytest.raises(Refused, match="did not hand out"):
        watch.heuristic(elsewhere, player)
    children = watch.next_states(games.list_form(state), player)
    assert all(type(c) is list and type(c[0]) is list for c in children)
    child = games.as_state(children[0])
    assert watch.finished(child, opp) in (True, False)
    assert watch.heuristic(child, player) == -watch.heuristic(child, opp)   # either player
    with pytest.raises(Refused, match="wrong player"):
        watch.next_states(child, player)
    with pytest.raises(Refused, match="is not a state"):
        watch.utility("not a state", player)
    assert [c[0] for c in watch.handout.log] == ["next_states", "finished", "heuristic",
                                                 "heuristic"]
    assert watch.nodes == 3
    # the search module's log: what a picture draws
    assert [kind for kind, _key in watch.log] == ["n", "e", "e"]
    # every refusal is kept for the feedback, also one the search caught
    assert watch.handout.refusals == 3 and "did not hand out" in watch.handout.first_refusal


def test_the_reference_plays_the_grader_games_without_a_refusal():
    """Expected values come from the reference searching through watches, which refuse
    any question about a position they did not hand out: it never asks one."""
    values = [v for case in hidden.minimax_cases() + hidden.key_cases() for v in case.expected]
    values += [case.expected["value"] for case in hidden.ab_cases()]
    assert len(values) > 100 and all(-1 <= v <= 1 for v in values)
    assert len(set(values)) > 30


# ------------------------------------------------------------------ positions for every edge
def test_positions_are_built_for_every_edge_of_has_move():
    """Issue 12: for each player, the only movable stone on each of the 24 points, and
    a stone in hand while every board stone is blocked; both unfinished."""
    pool = positions.pool()
    for player in (W, B):
        movers = {positions.movable(s[0], player)[0] for s, p in pool["moving"]
                  if p == player and len(positions.movable(s[0], player)) == 1
                  and s[0].count(player) > 3}
        assert movers == set(range(24)), sorted(set(range(24)) - movers)
        stuck = [s for s, p in pool["placing"] if p == player and s[1][player - 1] == 1
                 and not positions.movable(s[0], player)]
        assert len(stuck) >= 4 and not any(ref.finished(s, player) for s in stuck)
        lost = [s for s, p in pool["over"] if p == player and s[2] >= ref.DRAW_PLIES
                and ref.utility(s, player) == -1]
        assert lost, "blocked with the quiet counter at the limit: lost, not drawn"
        flying = [s for s, p in pool["flying"] if p == player
                  and not positions.movable(s[0], player)]
        assert len(flying) >= 4, "three stones, none of which can slide: they fly"


def test_the_position_pool_covers_every_group():
    pool = positions.pool()
    assert all(len(found) >= 150 for found in pool.values())
    assert all(positions.phase(s, p) == "flying" for s, p in pool["flying"])
    assert all(not ref.next_states(s, p) for s, p in pool["over"])
    assert {ref.utility(s, p) for s, p in pool["over"]} == {-1, 0, 1}
    assert all(positions.protection_matters(s, p) for s, p in pool["removal"])
    all_in_mills = [(s, p) for s, p in pool["removal"]
                    if all(positions.in_mill(s[0], q) for q in range(24)
                           if s[0][q] == ref.opponent(p))]
    assert len(all_in_mills) >= 20
    assert len(positions.everything()) >= 2100


HAS_MOVE = "    if in_hand[player - 1] > 0 or board.count(player) == 3:\n"


@pytest.mark.parametrize("wrong", [
    "judy_one_in_hand_is_stuck", "kim_forgets_the_last_point",
    HAS_MOVE.replace("== 3", "== 2"), HAS_MOVE.replace("== 3", "< 3"),
    HAS_MOVE.replace(" or board.count(player) == 3", "")])
def test_has_move_mistakes_change_finished_on_the_pool(wrong):
    """The mutants issue 12 and `autograder mutate` found surviving (one stone in hand,
    the last point, three stones that cannot slide): the finished check sees them."""
    module = mutant(wrong) if wrong in examples_build.CHANGES else edited(HAS_MOVE, wrong)
    cases = hidden.position_cases("finished")
    assert any(module.finished(*c.args) != c.expected for c in cases)


# ------------------------------------------------------------------ cases that discriminate
def test_the_cache_games_are_full_of_transpositions():
    """Without a cache value_minimax evaluates far more leaves than with one."""
    for case in hidden.cache_cases():
        game, state, player = case.args
        watch = Watch(game, [(state, player)])

        def plain(s, p, d):
            if watch.finished(s, p):
                return watch.utility(s, p)
            if d == 0:
                return watch.heuristic(s, p)
            return max(-plain(games.as_state(t), ref.opponent(p), d - 1)
                       for t in watch.next_states(s, p))
        assert plain(state, player, 3) == case.expected["value"]
        assert watch.handout.count("heuristic") > 1.3 * case.expected["heuristic"]


def test_the_key_cases_catch_keys_without_depth_or_player():
    without_depth = without_player = 0
    for case in hidden.key_cases():
        _, queries = case.args
        first_by_player, first_by_depth = {}, {}
        for (s, p, d), value in zip(queries, case.expected):
            without_depth += first_by_player.setdefault(p, value) != value
            without_player += first_by_depth.setdefault(d, value) != value
    assert without_depth >= 3 and without_player >= 3


def test_alpha_beta_explores_far_fewer_nodes_than_minimax_on_the_cases():
    explored = minimax = 0
    for case in hidden.ab_cases():
        game, state, player, depth = case.args
        watch = Watch(game, [(state, player)])
        assert games.Search("value_ab", (state, player, -1, 1, depth), watch).expected() \
            == case.expected["value"]
        explored += watch.nodes
        minimax += case.expected["minimax_nodes"]
    assert explored < 0.7 * minimax


def test_the_cut_cases_cover_every_rule_of_the_loop():
    cases = hidden.cut_cases()
    tried = [len(c.expected["calls"]) for c in cases]
    own = [c.args[3].own for c in cases]
    windows = [c.args[3].window for c in cases]
    assert any(t < len(o) for t, o in zip(tried, own))              # something is cut off
    assert any(t == len(o) for t, o in zip(tried, own))             # something is not
    assert any(max(o[:t]) == w[1] for t, o, w in zip(tried, own, windows))   # == beta cuts
    assert any(c.expected["result"] == c.args[3].window[0] for c in cases)   # stays alpha
    assert any(c.expected["result"] > c.args[3].window[1] for c in cases)    # above beta
    narrowed = [{call[2:4] for call in c.expected["calls"]} for c in cases]
    assert any(len(n) > 2 for n in narrowed)                        # alpha rises


def test_the_order_cases_discriminate():
    """Sorting by a wrong key (another depth, the wrong player, descending, no sort)
    gives another order."""
    for case in hidden.order_cases():
        state, player, depth, salt = case.args
        order = Game(salt, [(state, player)], None, 0).successors(state, player)
        assert case.expected != order and case.expected != order[::-1]
        assert sorted(case.expected) == sorted(order)


def test_the_deepening_cases_reorder_and_tie():
    reorders = ties = 0
    for case in hidden.deepening_cases():
        answers = case.expected["answers"]
        groups = hidden.iterations(case.expected["calls"])
        depth = case.args[2]
        assert [d for d, _ in groups] == list(range(depth))
        for (d, before), (_, after) in zip(groups, groups[1:]):
            reorders += [s for s, *_ in before] != [s for s, *_ in after]
            values = [answers[(s, d)] for s, *_ in before]
            ties += len(set(values)) < len(values)
    assert reorders >= 3 and ties >= 3


def test_the_random_choice_case_has_nine_equal_best_moves():
    _, table, best = hidden.best_minimax_setup(ref.initial_state(), W, 1, 699, None, 9)
    assert len(best) == 9 and len(table) == 25


def test_a_right_board_with_wrong_counters_is_named_as_such():
    """Issue 10: the quiet counter kept after a removal is reported as a counter mistake."""
    state, player = next((s, p) for s, p in positions.pool()["removal"]
                         if positions.phase(s, p) == "moving")
    wrong = mutant("nick_quiet_kept_after_removal")
    got = wrong.next_states(state, player)
    case = Case("next_states(state, player)", (state, player))
    reason = hidden.judge_successors(case, Outcome(ok=True, value=got))
    assert reason and "leads to the right board" in reason and "misses" not in reason
    assert hidden.judge_successors(case, Outcome(ok=True, value=ref.next_states(state, player))) \
        is None

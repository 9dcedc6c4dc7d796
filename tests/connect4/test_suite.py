"""The connect4 suite's own data and machinery, checked in this process.

tactics.json agrees with the solver and the reference; the grader's games
(games.py) are games of their own that the reference searches correctly, and
the log the checks judge tells exactly what a search did; the fixtures cover
what the checks promise (a drawn tournament game, the lines messages).
"""

import json
import random

import pytest

from autograder.checking.handout import Refused
from autograder.checking.search import Run, View
from autograder.suites.connect4 import games
from autograder.suites.connect4 import test_hidden as suite
from tests.conftest import ROOT, load_module

SUITE = ROOT / "autograder" / "suites" / "connect4"
solver = load_module("_c4_suite_solver_test", SUITE / "solver.py")
ref = games.ref
INF = float("inf")


def test_tactics_fixture_agrees_with_the_solver():
    data = json.loads((SUITE / "tactics.json").read_text())
    judge = solver.Solver()
    for kind in ("win1", "block", "win3"):
        assert len(data[kind]) == 10
        for entry in data[kind]:
            pos = solver.Position.from_cells(entry["state"])
            scores = judge.move_scores(pos, weak=True)
            best = max(scores.values())
            keep = sorted(c for c, s in scores.items() if s == best)
            assert keep == entry["keep"] and len(keep) < len(scores)
            wins_next = any(pos.is_winning_move(c) for c in pos.legal_columns())
            assert (kind == "win1") == wins_next
            assert ref.computer_move(entry["state"], 3)[-1] % 7 in keep


def test_nothing_of_ours_is_loaded_into_the_child():
    rubric = (SUITE / "rubric.toml").read_text()
    assert "[kit]" not in rubric
    assert not (SUITE / "child_kit.py").exists()
    source = (SUITE / "test_hidden.py").read_text()
    assert "Ref(" not in source and "c4kit" not in source


# ------------------------------------------------------------------ the grader's games
def _positions(count, seed):
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        state = suite.playout(rng, rng.randrange(0, 40))
        if not ref.terminal_test(state):
            found.append(tuple(state))
    return found


def test_a_subset_game_offers_some_legal_moves_in_an_order_of_its_own():
    differs = 0
    for index, state in enumerate(_positions(300, 1)):
        game = games.SubsetGame(index)
        legal = ref.free(ref.getBoard(list(state)))
        moves = game.cells(state)
        assert moves and set(moves) <= set(legal) and len(set(moves)) == len(moves)
        assert len(moves) == min(len(legal), len(moves)) and 1 <= len(moves) <= 5
        assert game.cells(state) == games.SubsetGame(index).cells(state)   # deterministic
        differs += list(moves) != legal
    assert differs > 280      # almost never real Connect 4's move list


def test_a_subset_game_keeps_real_wins_and_invents_the_rest():
    values = set()
    for index, state in enumerate(_positions(200, 2)):
        game = games.SubsetGame(index)
        for child in ref.nextstates(list(state)):
            real = ref.evaluation(child)
            value = game.worth(tuple(child))
            if abs(real) >= ref.WIN:
                assert value == real
            else:
                assert abs(value) < ref.WIN and value % games.STEP == 0
                values.add(value)
    assert len(values) == 2 * games.SPREAD + 1      # every level is used


def test_the_callbacks_log_every_call_and_refuse_what_is_not_a_state():
    game = games.SubsetGame(5, [[38]])
    children = game.nextstates([38])
    assert children == [[38, c] for c in game.cells((38,))]
    game.evaluation(children[0])
    assert game.log == [("n", (38,)), ("e", tuple(children[0]))] and game.evaluations == 1
    for bad in ("38", [38.0], [42], [38, 38], [True], None, list(range(43))):
        with pytest.raises(ValueError):
            game.nextstates(bad)
    assert len(game.log) == 2 and game.handout.refusals == 7


def test_the_game_answers_only_about_what_it_handed_out():
    """The answer key by questions: a position nextstates never offered (not even
    one of real Connect 4, or cells without gravity) is refused and kept, also when
    the caller catches the exception."""
    game = games.SubsetGame(5, [[38]])
    offered = game.nextstates([38])
    real = [[38, c] for c in ref.free(ref.getBoard([38]))]
    stranger = next(s for s in real if s not in offered)
    for question in ([35, 36, 37, 38], stranger, [38, 31, 24]):
        with pytest.raises(ValueError, match="never offered"):
            game.evaluation(question)
    assert game.handout.refusals == 3 and "never offered" in game.handout.first_refusal
    assert game.log == [("n", (38,))]
    game.evaluation(offered[0])           # what it handed out is answered
    assert game.log[-1] == ("e", tuple(offered[0]))


def test_a_game_stops_answering_after_its_call_limit():
    game = games.SubsetGame(5, [[38]], limit=3)
    for _ in range(3):
        game.evaluation([38])
    with pytest.raises(ValueError, match="at most 3 calls"):
        game.evaluation([38])


def test_the_legal_evaluation_answers_about_the_game_being_played_only():
    legal = games.Legal([[38]])
    assert legal.check("evaluation", [38, 31, 37]) == (38, 31, 37)
    for question in ([35, 36, 37, 38], [38, 24], [31, 38]):
        with pytest.raises(ValueError, match="no legal game"):
            legal.check("evaluation", question)
    assert legal.handout.refusals == 3


@pytest.mark.parametrize("rotate", [False, True])
def test_the_log_gives_the_reference_counts_exactly(rotate):
    """View.of(log) (what the checks judge) agrees with the reference's own
    SearchStats on 150 searches of every depth, with and without an order."""
    for index, state in enumerate(_positions(50, 3)):
        for bremse in (1, 2, 3):
            expected = games.reference_search(1000 + index, state, bremse,
                                              games.rotation if rotate else None)
            view = expected.view
            counts = {"nodes": len(view.visits), "expanded": len(view.expanded),
                      "evaluations": len(view.visits) - len(view.expanded)}
            assert counts == {k: expected.stats[k] for k in counts}, (state, bremse)
            assert expected.view.visits[0] == state
            if expected.best is not None:
                assert expected.best in [list(c) for c in expected.good]


def test_a_search_on_its_own_rules_answers_for_another_game():
    """The point of the games: the reference with real Connect 4 rules, given the
    game's evaluation, gets other values or other nodes on nearly every case."""
    caught = 0
    cases = [(state, bremse) for state in _positions(40, 4) for bremse in (2, 3)]
    for index, (state, bremse) in enumerate(cases):
        expected = games.reference_search(2000 + index, state, bremse)
        game = games.SubsetGame(2000 + index, [state])
        stats = ref.SearchStats()
        search = ref.maximize if ref.x_to_move(list(state)) else ref.minimize
        try:
            _, value = search(list(state), -INF, INF, bremse, game.evaluation, stats)
        except Refused:             # it asked about a position the game never offered
            caught += 1
            continue
        caught += value != expected.value or View.of(game.log) != expected.view
    assert caught == len(cases)


def test_the_virtual_clock_counts_evaluations():
    game = games.SubsetGame(9, [[38], [38, 31]])
    clock = games.virtual_clock(game)
    assert clock() == 0
    game.evaluation([38])
    game.evaluation([38, 31])
    assert clock() == pytest.approx(2 * games.TICK)


def test_virtual_budgets_fall_in_the_middle_of_an_iteration():
    for case in suite.virtual_budget_cases():
        salt, state, budget, depth, allowed, calls = case.args
        done = suite.reference_deepening(salt, state, depth).stats["evaluations"]
        later = suite.reference_deepening(salt, state, depth + 1).stats["evaluations"]
        assert done < allowed < later and later - done >= 6 and calls >= later
        game = games.SubsetGame(salt, [state])
        with games.reference_on(game):
            _, _, reached = ref.iterative_deepening(list(state), budget, game.evaluation,
                                                    clock=games.virtual_clock(game))
        assert reached == depth and game.evaluations <= allowed


# ------------------------------------------------------------------ fixtures of the checks
def test_the_tournament_has_a_drawn_game_and_scores_it():
    result = suite.expected_tournament()
    drawn = [g for g in result["games"] if g["winner"] is None]
    assert drawn and all(g["moves"] == 42 for g in drawn)
    assert {g["winner"] for g in result["games"]} >= {None, *suite.TOURNAMENT_NAMES}
    # a tournament counting a draw as a loss (issue 12) gets another table
    table = {name: {"wins": 0, "draws": 0, "losses": 0, "points": 0.0}
             for name in suite.TOURNAMENT_NAMES}
    for game in result["games"]:
        for name in (game["x"], game["o"]):
            if game["winner"] == name:
                table[name]["wins"] += 1
                table[name]["points"] += 1
            else:
                table[name]["losses"] += 1
    assert table != result["table"]
    # and one that swaps wins and losses (a mutant `autograder mutate` found)
    swapped = {name: dict(row, wins=row["losses"], losses=row["wins"],
                          points=row["losses"] + row["draws"] / 2)
               for name, row in result["table"].items()}
    assert swapped != result["table"]


def test_play_game_cases_include_every_result():
    assert {case.expected[1] for case in suite.game_cases()} == {1, -1, 0}


def test_lines_difference_names_the_missing_line():
    right = ref.lines(list(suite.LABELS))
    assert suite.lines_difference(right) is None
    text = suite.lines_difference(right[:-1])
    assert text.startswith("24 of the 25 lines are there (24 returned)")
    assert text.endswith("missing: the diagonal running down to the left starting at cell 20 "
                         "(cells 20, 26, 32, 38)")
    assert "all 6 diagonals running down to the left (starting at cells 3, 4, 5, 6, 13, " \
           "20)" in suite.lines_difference(right[:19])
    turned = right[:7] + [right[7][::-1]] + right[8:]
    assert "column 1" in suite.lines_difference(turned)
    assert "read from the wrong end" in suite.lines_difference(turned)
    swapped = right[:6] + right[13:19] + right[6:13] + right[19:]
    assert "not in the handout's order: line 6 should be column 0" in \
        suite.lines_difference(swapped)
    assert suite.lines_difference("not a list") is None


def test_given_evaluation_cases_need_the_evaluation_argument():
    """terminal_test's second argument decides: the module's own evaluation would
    answer differently on every case that is not a full board."""
    said = set()
    for case in suite._given_evaluation_cases():
        state, decided = case.args
        value = decided.get(tuple(state), 0)
        said.add(value)
        if len(state) < 42 and abs(value) != ref.WIN - 1:
            assert case.expected != ref.terminal_test(state), state
    assert said >= set(suite.GIVEN_VALUES)     # beyond +-WIN and just short of it, too


# ------------------------------------------------------------------ the judges, in process
def _minimax(game, state, bremse, maximizing):
    """Minimax without cut-offs on the game's callbacks (what bob_no_pruning does)."""
    if bremse == 0 or ref.terminal_test(state, game.evaluation):
        return None, game.evaluation(state)
    best, best_value = None, -INF if maximizing else INF
    for child in game.nextstates(state):
        _, value = _minimax(game, child, bremse - 1, not maximizing)
        if (value > best_value) if maximizing else (value < best_value):
            best, best_value = child, value
    return best, best_value


def _outcome(best, value, stats):
    from autograder.sandbox.client import Outcome
    return Outcome(ok=True, value={"found": (best, value), "stats": stats})


@pytest.fixture(scope="module")
def deep_search():
    """A count case where alpha-beta cuts off (so a search without cuts differs)."""
    for search in suite.count_cases():
        if search.expected().stats["prunings"] >= 2:
            return search
    raise AssertionError("no count case with cut-offs")


def test_judge_work_accepts_the_reference_and_names_each_mistake(deep_search):
    search = deep_search
    want = search.expected()
    maximizing = ref.x_to_move(list(search.state))

    game = games.SubsetGame(search.salt, [search.state])
    with games.reference_on(game):
        ref.search(list(search.state), search.bremse, game.evaluation)
    right = _outcome(want.best, want.value, want.stats)
    assert suite.judge_work(Run(search, game, right)) is None

    wrong_stats = dict(want.stats, prunings=want.stats["prunings"] + 1)
    got, problem = suite.judge_work(Run(search, game, _outcome(want.best, want.value,
                                                                    wrong_stats)))
    assert got.startswith("the SearchStats counted") and "cut off" in problem

    game = games.SubsetGame(search.salt, [search.state])
    best, value = _minimax(game, list(search.state), search.bremse, maximizing)
    got, problem = suite.judge_work(Run(search, game, _outcome(best, value, want.stats)))
    assert value == want.value and "which alpha-beta never visits" in problem

    game = games.SubsetGame(search.salt, [search.state])
    with games.reference_on(game):
        ref.search(list(search.state), search.bremse, game.evaluation)
    game.log.append(("n", search.state))
    got, problem = suite.judge_work(Run(search, game, right))
    assert "more than once" in problem

    game = games.SubsetGame(search.salt, [search.state])
    with pytest.raises(Refused, match="which this check's nextstates never offered"):
        ref.search(list(search.state), search.bremse, game.evaluation)  # real rules


def test_judge_stops_catches_a_search_past_a_won_game():
    search = next(case for case in suite.finished_cases()
                  if case.bremse == 3 and games.real_value(case.state))
    want = search.expected()
    game = games.SubsetGame(search.salt, [search.state])
    game.evaluation(list(search.state))
    right = _outcome(None, want.value, want.stats)
    assert suite.judge_stops(Run(search, game, right)) is None
    game.nextstates(list(search.state))
    got, problem = suite.judge_stops(Run(search, game, right))
    assert "where the game is already over" in got and "at the root" in problem


# ------------------------------------------------------------------ blame (issue 22)
def test_every_function_relied_on_is_one_the_student_writes():
    """[relies_on] names functions of the handout (or the search, maximize/minimize,
    as the hidden suite judges it); the grader can play each of them."""
    from autograder import assignment
    relies_on = assignment.load("connect4").relies_on
    for function, callees in relies_on.items():
        for name in (function, *callees):
            assert name == suite.SEARCH or callable(getattr(ref, name, None)), name
    # every check is judged on its own but the one whole-program check
    rubric = assignment.load("connect4").rubric()
    assert rubric.whole_program == ("test_strength",)
    assert sum(rubric.points[c] for c in rubric.whole_program) <= 0.15 * rubric.max_score


def test_a_played_search_is_the_handouts_on_the_grader_game():
    """shallow_order's check plays maximize/minimize by the grader (game_search): the
    reference's search on the check's game, logged as the student's would be."""
    state = (38, 37, 31)
    game = games.SubsetGame(5, [state])
    children = game.children(state)
    played = games.SubsetGame(5, children)
    found = suite.game_search("minimize", played)(children[0], -INF, INF, 2, played.evaluation)
    again = games.SubsetGame(5, children)
    with games.reference_on(again):
        assert found == ref.minimize(list(children[0]), -INF, INF, 2, again.evaluation)
    assert played.log == again.log and played.log
    with pytest.raises(Refused):           # it answers only about what its game handed out
        suite.game_search("maximize", games.SubsetGame(5, children))([35], -INF, INF, 1,
                                                                    played.evaluation)
    with pytest.raises(TypeError):
        suite.game_search("maximize", played)(children[0], -INF, INF, 1, played.evaluation,
                                             stats=object())


def test_a_played_rule_answers_only_within_the_game_being_played():
    legal = games.Legal([[38]])
    terminal, play = suite.game_rules(legal, "terminal_test", "play_game").values()
    assert terminal([38, 31]) is False
    with pytest.raises(Refused):
        terminal([38, 3])                  # no stone lands in the top row at once
    with pytest.raises(Refused):
        play(suite.PLAYERS["A"], suite.PLAYERS["B"], 1, [35])

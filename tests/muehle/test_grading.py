"""The muehle hidden suite grades the example submissions for real (in a PID namespace),
each for the right reason, and its rubric separates bugs that break the game from
missing refinements.

Issue 22: every check judges one function, with the functions it relies on played
by the grader where one of them failed its own check, so a single-function bug
(tests/muehle/bugs.py, graded as dave, erin and the examples bug_<function>) costs only that
function's checks and the whole-program check test_strength. That moved points:
dave (memoize) no longer loses value_minimax's cache checks, which a correct
value_minimax passes with a correct cache.
"""

from __future__ import annotations

import json

import pytest

from autograder import ROOT
from autograder import assignment as assignments
from tests.conftest import assert_blamed_only, bug_params, require_graded
from tests.muehle import bugs, examples_build

RUBRIC = assignments.load("muehle").rubric()
MAX = RUBRIC.max_score

CORRECT = {"ada_correct", "zoe_correct_in_other_words", "paul_named_results"}
# example -> (the hidden tests it must fail, the only other tests it may fail)
WRONG = {
    "bob_no_flying": ({"test_next_states_flying"}, {"test_strength"}),
    "carol_takes_from_mills": ({"test_next_states_removal"}, {"test_strength"}),
    # value_minimax is judged again with a correct cache (functools.cache) and passes
    "dave_key_without_depth": ({"test_memoize"}, {"test_strength"}),
    "erin_window_blind_cache": ({"test_value_ab_respects_the_window"},
                                {"test_alpha_beta_equals_minimax",
                                 "test_alpha_beta_window_contract", "test_strength"}),
    "frank_no_move_ordering": ({"test_alpha_beta_orders_moves"}, {"test_alpha_beta_prunes"}),
    "grace_no_deepening": ({"test_best_move_ab_deepens"}, set()),
    "heidi_no_cutoff": ({"test_alpha_beta_prunes"},
                        {"test_alpha_beta_window_contract", "test_strength"}),
    # issue 41: "changing the result never changes `state`"; "`state` may be in tuple or
    # list form" (the heuristic of every position the whole program reaches is list form)
    "quentin_shares_the_lists": ({"test_to_list"}, set()),
    "rosa_cached_heuristic": ({"test_heuristic"}, {"test_strength"}),
    "ivan_endless_minimax": ({"test_best_move_minimax", "test_best_move_minimax_is_random"},
                             set()),
    "judy_one_in_hand_is_stuck": ({"test_finished"}, {"test_utility", "test_strength"}),
    "kim_forgets_the_last_point": ({"test_finished"}, {"test_utility", "test_strength"}),
    "leo_root_alpha_never_rises": ({"test_best_move_ab"}, set()),
    "mia_root_alpha_too_low": ({"test_best_move_ab"}, set()),
    "nick_quiet_kept_after_removal": ({"test_next_states_removal"},
                                      {"test_next_states_moving", "test_next_states_flying",
                                       "test_strength"}),
    "olga_cuts_late": ({"test_alpha_beta_prunes"},
                       {"test_alpha_beta_window_contract", "test_strength"}),
}


def test_examples_are_what_the_builder_writes():
    """examples/muehle/ is the reference with one edit each (tests/muehle/examples_build.py)."""
    folder = ROOT / "examples" / "muehle"
    written = [*examples_build.CHANGES, *examples_build.bug_examples()]
    assert {p.name for p in folder.iterdir() if p.is_dir()} == set(written)
    assert set(WRONG) == set(examples_build.CHANGES) - CORRECT
    assert set(examples_build.bug_examples()) == {f"bug_{f}" for f in bugs.BUGS
                                                  if f not in bugs.EXAMPLES}
    assert set(bugs.EXAMPLES.values()) <= set(WRONG)
    for student in written:
        assert (folder / student / "muehle.py").read_text() == examples_build.build(student), \
            f"run: .venv/bin/python tests/muehle/examples_build.py ({student} is stale)"


def test_rubric_weighs_broken_rules_and_missing_cutoffs_above_refinements():
    """Issue 11: no flying or no cut-off costs at least three times what a missing
    refinement (move ordering, iterative deepening, the random choice) costs."""
    points = RUBRIC.points
    refinements = max(points[t] for t in ("test_alpha_beta_orders_moves",
                                          "test_best_move_ab_deepens",
                                          "test_best_move_minimax_is_random"))
    for essential in ("test_next_states_flying", "test_alpha_beta_prunes"):
        assert points[essential] >= 3 * refinements


# ------------------------------------------------------------------ grading the examples
def _results(out, student):
    data = json.loads((out / student / "results.json").read_text())
    return {t["number"]: t for t in data["tests"]}


@pytest.mark.slow
@pytest.mark.parametrize("student", sorted(CORRECT))
def test_correct_submission_gets_full_marks(graded_examples, student):
    """The reference, and a correct submission written in other words (other loops,
    another stable sort, try/except in memoize, rng or random)."""
    rows, out = graded_examples("muehle")
    assert float(rows[student]["score"]) == MAX == float(rows[student]["max_score"])
    assert rows[student]["status"] == "graded"


@pytest.mark.slow
@pytest.mark.parametrize("student", sorted(WRONG))
def test_wrong_submission_loses_points_for_the_right_reason(graded_examples, student):
    rows, out = graded_examples("muehle")
    must, may = WRONG[student]
    tests = _results(out, student)
    failed = {name for name, t in tests.items() if t["status"] == "failed"}
    assert must <= failed, f"{student} should fail {must - failed}"
    assert failed <= must | may, f"{student} failed unrelated checks: {failed - must - may}"
    assert float(rows[student]["score"]) < MAX


@pytest.mark.slow
def test_the_rubric_spreads_the_examples(graded_examples):
    """Without flying or without cut-offs an example loses at least three times the
    points of one without move ordering or without deepening."""
    rows, _ = graded_examples("muehle")
    lost = {s: MAX - float(rows[s]["score"]) for s in WRONG}
    for broken in ("bob_no_flying", "heidi_no_cutoff"):
        for refined in ("frank_no_move_ordering", "grace_no_deepening"):
            assert lost[broken] >= 3 * lost[refined], (broken, refined, lost)


@pytest.mark.slow
def test_feedback_names_the_cause(graded_examples):
    rows, out = graded_examples("muehle")

    def said(student, test):
        return _results(out, student)[test]["output"]
    assert "misses" in said("bob_no_flying", "test_next_states_flying")
    assert "no legal move leads to" in said("carol_takes_from_mills", "test_next_states_removal")
    assert "alpha_beta was not called" in \
        said("erin_window_blind_cache", "test_value_ab_respects_the_window")
    assert "s of CPU time" in said("ivan_endless_minimax", "test_best_move_minimax")
    assert int(rows["ivan_endless_minimax"]["timeouts"]) >= 1
    assert "expected: (hidden test" in said("bob_no_flying", "test_next_states_flying")
    # issue 10: a quiet counter not reset after a removal is a counter mistake, not a
    # missing move
    right_board = said("nick_quiet_kept_after_removal", "test_next_states_removal")
    assert "leads to the right board" in right_board and "quiet" in right_board
    assert "misses" not in right_board
    assert "went on after a value reached beta" in said("olga_cuts_late", "test_alpha_beta_prunes")
    assert "passed the window (-1, 1)" in said("leo_root_alpha_never_rises", "test_best_move_ab")
    assert "passed the window (-1, 2)" in said("mia_root_alpha_too_low", "test_best_move_ab")
    assert "valued the successors at the depths [1]" in \
        said("grace_no_deepening", "test_best_move_ab_deepens")


# ------------------------------------------------------------------ a bug costs its own points
@pytest.mark.slow
@pytest.mark.parametrize("function", bug_params(bugs))
def test_a_bug_costs_only_its_own_functions_points(graded_examples, function):
    """Issue 22: one wrong function loses points in its own checks and in the
    whole-program check only; every other function is judged with the grader's
    helpers where the student's failed, and keeps its points."""
    require_graded(bugs, function)
    _, out = graded_examples("muehle")
    student = bugs.EXAMPLES.get(function, f"bug_{function}")
    lost = {name for name, t in _results(out, student).items() if t["status"] != "passed"}
    assert_blamed_only("muehle", function, bugs.BUGS, lost)


def test_every_function_the_student_writes_has_a_bug():
    """bugs.py covers each function with a solution region in the reference."""
    import ast
    tree = ast.parse(examples_build.REFERENCE.read_text(encoding="utf-8"))
    written = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)
               and "### BEGIN SOLUTION" in ast.get_source_segment(
                   examples_build.REFERENCE.read_text(encoding="utf-8"), node)}
    assert written == set(bugs.BUGS)


def _said(out, student, test):
    return _results(out, student)[test]["output"]


@pytest.mark.slow
def test_the_feedback_says_whose_mistake_it_is(graded_examples):
    _, out = graded_examples("muehle")

    def said(student, test):
        return _said(out, student, test)
    # the whole program runs the student's own helpers: its failure names theirs
    strength = said("nick_quiet_kept_after_removal", "test_strength")
    assert "this may follow from an earlier failure: next_states is wrong" in strength
    assert "best_move_ab usually calls next_states: fix it first" in strength
    # a function whose helpers pass their own checks is told the mistake is its own
    removal = said("nick_quiet_kept_after_removal", "test_next_states_removal")
    assert "next_states's helpers (opponent, to_list) pass their own checks, so the " \
           "mistake is in next_states itself" in removal
    # the student's own answer, never the plan's record around it
    window = said("erin_window_blind_cache", "test_value_ab_respects_the_window")
    assert "got: returned 0.25" in window and "'result'" not in window


@pytest.mark.slow
@pytest.mark.exhaustive     # bug_opponent is graded in make test-all (CI's budget)
def test_a_wrong_opponent_costs_opponent_and_the_whole_program_only(graded_examples):
    """opponent is called by nearly every function: once it cost 56 of 64 points."""
    require_graded(bugs, "opponent")
    rows, out = graded_examples("muehle")
    assert float(rows["bug_opponent"]["score"]) == MAX - 4
    strength = _said(out, "bug_opponent", "test_strength")
    assert "this may follow from an earlier failure: opponent returned the wrong player" \
        in strength
    assert "best_move_ab usually calls opponent: fix it first" in strength


@pytest.mark.slow
@pytest.mark.exhaustive     # one more grading: make test-all (CI's budget)
def test_three_bugs_cost_three_functions_and_say_whose_they_are(tmp_path):
    """A wrong opponent, heuristic and value_minimax: heuristic and value_minimax are
    judged again with the grader's helpers, fail on their own mistakes, and say so."""
    from tests.conftest import grade_folder
    base = (bugs.CORRECT / bugs.MODULE).read_text(encoding="utf-8")
    (tmp_path / "subs" / "three").mkdir(parents=True)
    (tmp_path / "subs" / "three" / bugs.MODULE).write_text(
        "\n\n".join([base, *(bugs.BUGS[f][1] for f in ("opponent", "heuristic",
                                                        "value_minimax"))]))
    rows = grade_folder("muehle", tmp_path / "subs", tmp_path / "out", jobs=1)
    tests = _results(tmp_path / "out", "three")
    lost = {name for name, t in tests.items() if t["status"] != "passed"}
    assert lost == {"test_opponent", "test_heuristic", "test_value_minimax",
                    "test_value_minimax_uses_its_cache", "test_value_minimax_cache_key",
                    "test_strength"}
    assert float(rows["three"]["score"]) == MAX - 13
    assert "this check ran heuristic with the grader's own opponent, so the mistake is in " \
           "heuristic itself" in tests["test_heuristic"]["output"]
    assert "this check ran value_minimax with the grader's own memoize, finished, utility, " \
           "heuristic, next_states, opponent, to_tuple, so the mistake is in value_minimax " \
           "itself" in tests["test_value_minimax"]["output"]

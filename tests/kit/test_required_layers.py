"""A rubric names the sandbox layers it cannot do without; lacking one, nobody is graded."""

from autograder import assignment as assignments
from autograder.grading.runner import grade_submission, load_rubric


def test_the_default_requirement_is_rlimits():
    assert load_rubric(assignments.load("tictactoe").suite_dir).required == ("rlimits",)


def test_a_missing_required_layer_gives_no_grade_and_one_clear_line():
    assignment = assignments.load("tictactoe")
    graded = grade_submission(assignment, "ada", assignment.solution_dir, layers=["seccomp"])
    assert graded.status == "sandbox-error" and graded.score == 0
    assert "requires: rlimits" in graded.message and "not run" in graded.message


def test_a_rubric_that_still_loads_kit_code_into_the_sandbox_is_refused(tmp_path):
    import pytest

    from autograder import KitError
    (tmp_path / "rubric.toml").write_text('[points]\ntest_x = 1\n[kit]\nkit = "child_kit.py"\n')
    with pytest.raises(KitError, match=r"\[kit\] table is gone"):
        load_rubric(tmp_path)


def test_a_submission_never_graded_still_reads_each_checks_sentence(tmp_path):
    assignment = assignments.load("tictactoe")
    (tmp_path / "nothing.txt").write_text("no module here")
    graded = grade_submission(assignment, "ken", tmp_path, layers=["rlimits"])
    assert graded.status == "missing"
    titles = {t.name: t.title for t in graded.tests}
    assert titles["test_player"] != "test_player" and " " in titles["test_player"]

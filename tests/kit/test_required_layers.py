"""A rubric names the sandbox layers it cannot do without; lacking one, nobody is graded."""

from autograder import assignment as assignments
from autograder.assignment import read_rubric
from autograder.grading.grader import Grader


def test_the_default_requirement_is_rlimits():
    assert assignments.load("tictactoe").rubric().required == ("rlimits",)


def test_a_missing_required_layer_gives_no_grade_and_one_clear_line():
    assignment = assignments.load("tictactoe")
    graded = Grader(assignment, layers=["seccomp"]).grade("ada", assignment.solution_dir)
    assert graded.status == "sandbox-error" and graded.score == 0
    assert "requires: rlimits" in graded.message and "not run" in graded.message


def test_a_rubric_that_still_loads_kit_code_into_the_sandbox_is_refused(tmp_path):
    import pytest

    from autograder import KitError
    (tmp_path / "rubric.toml").write_text('[points]\ntest_x = 1\n[kit]\nkit = "child_kit.py"\n')
    with pytest.raises(KitError, match=r"\[kit\] table is gone"):
        read_rubric(tmp_path)


def test_a_submission_never_graded_still_reads_each_checks_sentence(tmp_path):
    assignment = assignments.load("tictactoe")
    (tmp_path / "nothing.txt").write_text("no module here")
    graded = Grader(assignment, layers=["rlimits"]).grade("ken", tmp_path)
    assert graded.status == "missing"
    titles = {t.name: t.title for t in graded.tests}
    assert titles["test_player"] != "test_player" and " " in titles["test_player"]


def test_a_misspelt_limit_is_refused_in_one_line_and_the_real_ones_load(tmp_path):
    import pytest

    from autograder import KitError
    (tmp_path / "rubric.toml").write_text('[points]\ntest_x = 1\n[timeouts]\ncal = 1.0\n')
    with pytest.raises(KitError, match=r"\[timeouts\] names unknown limits \['cal'\]"):
        read_rubric(tmp_path)
    (tmp_path / "rubric.toml").write_text('[points]\ntest_x = 1\n[limits]\nmemory = 64\n')
    with pytest.raises(KitError, match=r"\[limits\] names unknown limits \['memory'\]"):
        read_rubric(tmp_path)
    for name in assignments.names():
        assert assignments.load(name).rubric().points

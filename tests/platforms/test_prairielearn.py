"""The PrairieLearn package, run as PrairieLearn's external grader runs it.

PrairieLearn copies the question's serverFilesCourse folders to
ROOT/serverFilesCourse, the student's files to ROOT/student, and runs the
question's entrypoint; the job must leave ROOT/results/results.json. Grading
containers have no network and no setup step: the entrypoint installs the kit
itself. These runs use every sandbox layer this machine offers (the Gradescope
tests run with Docker's fewer).
"""

from __future__ import annotations

import json
import re
import shutil
import uuid
import zipfile
from pathlib import Path

import pytest

from tests.conftest import ROOT, in_pid_namespace
from tests.platforms.conftest import (assignments_on, bulk_scores, docker_like,
                                      examples_on, exported_assignments, offline_env,
                                      package_of, put_submission, read_results, run,
                                      validate_prairielearn)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="session")
def prairielearn_root(exported, tmp_path_factory):
    """root(assignment) -> a folder laid out as /grade, the grader files copied in."""
    cache = {}

    def root(assignment: str) -> Path:
        if assignment not in cache:
            folder = tmp_path_factory.mktemp(f"prairielearn-{assignment}") / "grade"
            source = package_of(exported, "prairielearn", assignment) / f"{assignment}-prairielearn"
            shutil.copytree(source / "serverFilesCourse", folder / "serverFilesCourse")
            cache[assignment] = folder
        return cache[assignment]
    return root


def entrypoint(root: Path, assignment: str) -> Path:
    return root / "serverFilesCourse" / f"spielbaum-{assignment}" / "run.sh"


def grade_on_prairielearn(root: Path, assignment: str, fresh_python: Path, submission: Path,
                          confine=lambda command: command):
    put_submission(submission, root / "student")
    shutil.rmtree(root / "results", ignore_errors=True)    # PrairieLearn does not make it
    command = in_pid_namespace(confine(["bash", str(entrypoint(root, assignment))]))
    return run(command, offline_env(fresh_python, root), root)


def test_question_snippet_points_at_the_grader_files(exported):
    for assignment in exported_assignments("prairielearn"):
        package = exported("prairielearn") / f"{assignment}-prairielearn"
        question = package / "questions" / f"spielbaum-{assignment}"
        info = json.loads((question / "info.json").read_text())
        options = info["externalGradingOptions"]
        folder = f"spielbaum-{assignment}"
        assert info["gradingMethod"] == "External" and info["type"] == "v3"
        assert uuid.UUID(info["uuid"]).version == 5
        assert options["enabled"] is True and 0 < options["timeout"] <= 600
        assert options["serverFilesCourse"] == [f"{folder}/"]
        assert options["entrypoint"] == f"/grade/serverFilesCourse/{folder}/run.sh"
        assert (package / "serverFilesCourse" / folder / "run.sh").is_file()
        # Every cached value of the suite travels: none is computed again per submission.
        config = json.loads((package / "serverFilesCourse" / folder / "spielbaum.json")
                            .read_text())
        assert config["expected"]["entries"] > 0, assignment
        assert config["expected"]["left_out"] == {}, (assignment, config["expected"])
        html = (question / "question.html").read_text()
        upload = re.search(r'<pl-file-upload file-names="([^"]+)"', html)
        assert upload and upload.group(1) == f"{assignment}.py"
        assert "<pl-external-grader-results>" in html
        # the skeleton the question tells students to start from ships with it
        link = re.search(r'href="\{\{options.client_files_question_url\}\}/([^"]+)"', html)
        assert link and link.group(1) == f"{assignment}.zip", html
        with zipfile.ZipFile(question / "clientFilesQuestion" / link.group(1)) as archive:
            names = set(archive.namelist())
            module = archive.read(f"{assignment}/{assignment}.py").decode()
        assert {f"{assignment}/Makefile", f"{assignment}/test_{assignment}.py"} <= names
        assert "NotImplementedError" in module and "### BEGIN SOLUTION" not in module


@pytest.mark.hostile
@pytest.mark.parametrize("assignment", assignments_on("prairielearn"))
def test_examples_score_as_the_bulk_grader(assignment, prairielearn_root, fresh_python,
                                                  graded_examples):
    root = prairielearn_root(assignment)
    expected = bulk_scores(graded_examples, assignment)
    rows, _ = graded_examples(assignment)
    differ = {}
    for example in examples_on("prairielearn", assignment):
        done = grade_on_prairielearn(root, assignment, fresh_python, example)
        assert done.returncode == 0, f"{example.name}: {done.stdout}{done.stderr}"
        path = root / "results" / "results.json"
        results = read_results(path)
        validate_prairielearn(results, path)
        share = expected[example.name] / float(rows[example.name]["max_score"])
        if abs(results["score"] - share) > 1e-9:
            differ[example.name] = (results["score"], share)
    assert not differ, f"PrairieLearn score vs autograder grade: {differ}"


def test_a_missing_required_layer_is_not_gradable(prairielearn_root, fresh_python, tmp_path):
    """Under Docker's defaults there is no network namespace: a package that requires one
    grades nobody, and PrairieLearn counts no attempt."""
    strict = tmp_path / "grade"
    shutil.copytree(prairielearn_root("tictactoe"), strict)
    config = strict / "serverFilesCourse" / "spielbaum-tictactoe" / "spielbaum.json"
    settings = json.loads(config.read_text())
    config.write_text(json.dumps({**settings, "required_layers": ["rlimits", "netns"]}))
    done = grade_on_prairielearn(strict, "tictactoe", fresh_python,
                                 ROOT / "examples" / "tictactoe" / "ada_alphabeta",
                                 confine=docker_like)
    assert done.returncode == 0, done.stdout + done.stderr
    results = read_results(strict / "results" / "results.json")
    assert results["gradable"] is False and "score" not in results
    assert "netns" in results["message"] and "Operation not permitted" in results["message"]

"""The Gradescope package, unpacked and run as Gradescope runs it.

Gradescope unzips the package into ROOT/source, runs setup.sh once as root when
it builds the image, then for each submission puts the upload into
ROOT/submission and runs ROOT/run_autograder, which must write
ROOT/results/results.json. Both run here under Docker's default seccomp profile
and capability set (docker_like.py), with no package index reachable.
"""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest

from tests.conftest import ROOT, in_pid_namespace
from tests.platforms.conftest import (assignments_on, bulk_scores, docker_like,
                                      examples_on, offline_env, package_of, put_submission,
                                      read_results, run, unzip_keeping_modes,
                                      validate_gradescope)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="session")
def gradescope_root(exported, fresh_python, tmp_path_factory):
    """root(assignment) -> a folder laid out as /autograder after setup.sh ran."""
    cache = {}

    def root(assignment: str) -> Path:
        if assignment not in cache:
            folder = tmp_path_factory.mktemp(f"gradescope-{assignment}") / "autograder"
            unzip_keeping_modes(package_of(exported, "gradescope", assignment)
                                / f"{assignment}-gradescope.zip",
                                folder / "source")
            (folder / "results").mkdir()
            # Gradescope copies run_autograder next to source/ when it builds the image.
            shutil.copy2(folder / "source" / "run_autograder", folder / "run_autograder")
            done = run(docker_like(["bash", str(folder / "source" / "setup.sh")]),
                       offline_env(fresh_python, folder), folder)
            assert done.returncode == 0, done.stdout + done.stderr
            assert "reference solution scores full marks" in done.stdout
            # setup.sh runs as root on Gradescope: pip's warning about it is noise there
            assert "as the 'root' user" not in done.stdout + done.stderr
            cache[assignment] = folder
        return cache[assignment]
    return root


def grade_on_gradescope(root: Path, fresh_python: Path, submission: Path):
    """One submission as Gradescope runs it: upload in, run_autograder, results out."""
    put_submission(submission, root / "submission")
    (root / "results" / "results.json").unlink(missing_ok=True)
    command = in_pid_namespace(docker_like([str(root / "run_autograder")]))
    return run(command, offline_env(fresh_python, root), root)


def test_zip_has_what_gradescope_needs_at_its_root(exported):
    package = package_of(exported, "gradescope", "tictactoe") / "tictactoe-gradescope.zip"
    assert package.stat().st_size < 10 << 20, "only what grading needs is bundled"
    with zipfile.ZipFile(package) as archive:
        names = set(archive.namelist())
        modes = {i.filename: i.external_attr >> 16 for i in archive.infolist()}
        config = json.loads(archive.read("spielbaum/spielbaum.json"))
    assert {"setup.sh", "run_autograder", "spielbaum/spielbaum.json",
            "spielbaum/solutions/tictactoe/tictactoe.py"} <= names
    assert modes["setup.sh"] & 0o111 and modes["run_autograder"] & 0o111
    assert any(n.startswith("spielbaum/wheels/spielbaum-") for n in names)
    assert any(n.startswith("spielbaum/wheels/pip-") for n in names)
    assert not any("nbgrader" in n or "copydetect" in n for n in names)
    assert config["assignment"] == "tictactoe" and config["reveal_expected"] is False
    assert "rlimits" in config["required_layers"]
    # Every cached value of every exported suite travels: none is computed again per
    # submission (a lambda inside a case would be).
    for zipped in package.parent.glob("*-gradescope.zip"):
        with zipfile.ZipFile(zipped) as archive:
            shipped = json.loads(archive.read("spielbaum/spielbaum.json"))["expected"]
        assert shipped["entries"] > 0 and shipped["left_out"] == {}, (zipped.name, shipped)


@pytest.mark.hostile
@pytest.mark.parametrize("assignment", assignments_on("gradescope"))
def test_examples_score_as_the_bulk_grader(assignment, gradescope_root, fresh_python,
                                                  graded_examples):
    root = gradescope_root(assignment)
    expected = bulk_scores(graded_examples, assignment)
    differ = {}
    for example in examples_on("gradescope", assignment):
        done = grade_on_gradescope(root, fresh_python, example)
        assert done.returncode == 0, f"{example.name}: {done.stdout}{done.stderr}"
        results = read_results(root / "results" / "results.json")
        validate_gradescope(results)
        if results["score"] != expected[example.name]:
            differ[example.name] = (results["score"], expected[example.name])
    assert not differ, f"Gradescope score vs autograder grade: {differ}"


def test_a_zip_inside_the_upload_is_graded_like_the_folder(gradescope_root, fresh_python,
                                                           tmp_path, graded_examples):
    example = ROOT / "examples" / "tictactoe" / "judy_nested"    # a module some folders deep
    upload = tmp_path / "upload"
    upload.mkdir()
    with zipfile.ZipFile(upload / "submission.zip", "w") as archive:
        for path in example.rglob("*"):
            archive.write(path, path.relative_to(example).as_posix())
    root = gradescope_root("tictactoe")
    done = grade_on_gradescope(root, fresh_python, upload)
    assert done.returncode == 0, done.stdout + done.stderr
    results = read_results(root / "results" / "results.json")
    validate_gradescope(results)
    assert results["score"] == bulk_scores(graded_examples, "tictactoe")["judy_nested"]
    assert "unpacked submission.zip" in results["output"]


def expected_lines(results: dict) -> list[str]:
    return [line for test in results["tests"] for line in test.get("output", "").splitlines()
            if line.startswith("expected: ")]


def test_expected_values_stay_hidden_unless_exported_to_reveal(gradescope_root, fresh_python,
                                                               tmp_path):
    wrong = ROOT / "examples" / "tictactoe" / "eve_no_antidiagonal"
    package = tmp_path / "package"
    shutil.copytree(gradescope_root("tictactoe"), package, symlinks=True)
    done = grade_on_gradescope(package, fresh_python, wrong)
    assert done.returncode == 0, done.stdout + done.stderr
    hidden = expected_lines(read_results(package / "results" / "results.json"))
    assert hidden and all("expected answer is not shown" in line for line in hidden)
    # What `--reveal-expected` writes into the package: the same run shows them.
    config = package / "source" / "spielbaum" / "spielbaum.json"
    config.write_text(config.read_text().replace('"reveal_expected": false',
                                                 '"reveal_expected": true'))
    done = grade_on_gradescope(package, fresh_python, wrong)
    assert done.returncode == 0, done.stdout + done.stderr
    shown = expected_lines(read_results(package / "results" / "results.json"))
    assert shown and not any("not shown" in line for line in shown)


def test_a_missing_required_layer_gives_no_grade_and_says_why(gradescope_root, fresh_python,
                                                              tmp_path):
    """Docker refuses unshare: a package requiring a network namespace must not grade."""
    strict = tmp_path / "strict"
    shutil.copytree(gradescope_root("tictactoe"), strict, symlinks=True)
    config = strict / "source" / "spielbaum" / "spielbaum.json"
    settings = json.loads(config.read_text())
    config.write_text(json.dumps({**settings, "required_layers": ["rlimits", "netns"]}))
    done = grade_on_gradescope(strict, fresh_python,
                               ROOT / "examples" / "tictactoe" / "ada_alphabeta")
    assert done.returncode != 0
    assert not (strict / "results" / "results.json").exists()
    assert "NOT GRADED" in done.stdout and "netns" in done.stdout
    assert "Operation not permitted" in done.stdout        # the probe's reason


def test_a_stale_package_grades_nobody_and_says_so_in_one_line(gradescope_root, fresh_python,
                                                               tmp_path):
    """The expected values computed at export are checked by their hash: once the
    reference (or the data) differs from what they were computed with, no submission is
    graded, and the output says why in one line. The same copy, untouched, grades."""
    ada = ROOT / "examples" / "tictactoe" / "ada_alphabeta"
    honest = tmp_path / "honest"
    shutil.copytree(gradescope_root("tictactoe"), honest, symlinks=True)
    done = grade_on_gradescope(honest, fresh_python, ada)
    assert done.returncode == 0, done.stdout + done.stderr
    assert read_results(honest / "results" / "results.json")["score"] == 25

    def new_reference(package: Path) -> None:
        reference = package / "source" / "spielbaum" / "kit" / "solutions" / "tictactoe" / \
            "tictactoe.py"
        reference.write_text(reference.read_text() + "\n# fixed after the export\n")

    def new_data(package: Path) -> None:
        data = package / "source" / "spielbaum" / "expected.pickle"
        old = data.read_bytes()
        middle = len(old) // 2
        data.write_bytes(old[:middle] + bytes([old[middle] ^ 1]) + old[middle + 1:])

    for name, change in (("reference", new_reference), ("data", new_data)):
        stale = tmp_path / name
        shutil.copytree(gradescope_root("tictactoe"), stale, symlinks=True)
        change(stale)
        done = grade_on_gradescope(stale, fresh_python, ada)
        assert done.returncode != 0, name
        assert not (stale / "results" / "results.json").exists(), name
        said = [line for line in done.stdout.splitlines() if "NOT GRADED" in line]
        assert len(said) == 1 and "export the package again" in said[0], done.stdout
        assert "Traceback" not in done.stdout + done.stderr, name

"""Emulating Gradescope and PrairieLearn on this machine, for real.

A package is exported once per platform per session (`autograder export`, every
assignment in one call), unpacked under a temporary folder standing for the
platform's root (`SPIELBAUM_PLATFORM_ROOT`), installed (Gradescope's setup.sh)
with a fresh virtual environment first on PATH and no package index reachable,
and run on each example submission as the platform runs it. Student code runs
only inside a PID namespace.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from autograder.assignment import names as assignment_names
from tests.conftest import ROOT

ASSIGNMENTS = tuple(assignment_names())
DOCKER_LIKE = Path(__file__).with_name("docker_like.py")
DEAD_PROXY = "http://127.0.0.1:9"   # nothing listens: any download fails at once


def examples(assignment: str) -> list[Path]:
    return sorted(p for p in (ROOT / "examples" / assignment).iterdir()
                  if p.is_dir() and not p.name.startswith("."))


PLATFORMS = ("gradescope", "prairielearn")
ON_BOTH = ("ada_", "hostile", "_lying")     # the references and the attacks
OTHERS = 0                                  # other examples per platform and assignment


#: Graded on a platform only in make test-all. Its package is built as connect4's is (the
#: kit's wheel, solutions/<a>/, the suite's modules inside the wheel), so the default run
#: loses no kind of file; it saves CI the costliest export and package (150 s of 1500).
ONLY_IN_TEST_ALL = ("muehle",)


def assignments_on(platform: str) -> list:
    """pytest parameters over the assignments whose examples `platform` grades: in the
    default run the two platforms take turns down the sorted list (every assignment but
    ONLY_IN_TEST_ALL is graded on one of them), the others are marked exhaustive."""
    quick = [name for name in sorted(ASSIGNMENTS) if name not in ONLY_IN_TEST_ALL]
    return [pytest.param(name, marks=() if name in quick and
                         PLATFORMS[quick.index(name) % 2] == platform
                         else pytest.mark.exhaustive)
            for name in sorted(ASSIGNMENTS)]


def exported_assignments(platform: str) -> tuple[str, ...]:
    """What the `exported` fixture exports for `platform`: every assignment with
    SPIELBAUM_PLATFORM_ALL=1 (make test-all), else the ones the default run grades
    there (assignments_on) and tictactoe, whose examples the package tests use. An
    export warms every assignment's hidden suite up: CI pays only for what it grades."""
    if os.environ.get("SPIELBAUM_PLATFORM_ALL") == "1":
        return ASSIGNMENTS
    quick = {param.values[0] for param in assignments_on(platform) if not param.marks}
    return tuple(a for a in ASSIGNMENTS if a in quick or a == "tictactoe")


def package_of(exported, platform: str, assignment: str) -> Path:
    """The folder the export of `platform` wrote, which holds `assignment`'s package."""
    assert assignment in exported_assignments(platform), \
        f"{assignment} is exported for {platform} only with SPIELBAUM_PLATFORM_ALL=1 " \
        "(make test-all sets it)"
    return exported(platform)


def examples_on(platform: str, assignment: str) -> list[Path]:
    """The examples graded on `platform`: the reference and the attacks on both, and
    OTHERS of the rest (none in the default run), the two platforms taking turns down
    the sorted list. Both
    platforms run the bulk grader's `Grader.grade` (every example is graded in
    bulk by tests/<a>/); what a platform adds (the upload, its confinement,
    results.json) is covered on every assignment with these few, without grading all
    60 examples twice (25 CI minutes). SPIELBAUM_PLATFORM_ALL=1 grades every example
    on both."""
    if os.environ.get("SPIELBAUM_PLATFORM_ALL") == "1":
        return examples(assignment)
    chosen, others, turn = [], 0, 0
    for example in examples(assignment):
        if any(mark in example.name for mark in ON_BOTH):
            chosen.append(example)
            continue
        if PLATFORMS[turn % 2] == platform and others < OTHERS:
            chosen.append(example)
            others += 1
        turn += 1
    return chosen


@pytest.fixture(scope="session")
def fresh_python(tmp_path_factory) -> Path:
    """A new virtual environment without pip or any package: the platform's python3."""
    venv = tmp_path_factory.mktemp("platform-python") / "venv"
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(venv)], check=True)
    return venv / "bin"


def offline_env(python_bin: Path, root: Path) -> dict[str, str]:
    """The environment a platform script runs in here: our python3 first on PATH,
    the package index unreachable, no pip configuration of this machine."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PIP_", "PYTHON", "VIRTUAL_ENV", "SPIELBAUM_"))}
    env.update(PATH=f"{python_bin}:{os.environ['PATH']}", PIP_NO_INDEX="1",
               PIP_CONFIG_FILE=os.devnull, http_proxy=DEAD_PROXY, https_proxy=DEAD_PROXY,
               HTTP_PROXY=DEAD_PROXY, HTTPS_PROXY=DEAD_PROXY,
               SPIELBAUM_PLATFORM_ROOT=str(root))
    return env


def docker_like(command: list[str]) -> list[str]:
    """Run under Docker's default seccomp profile and capability set (see docker_like.py)."""
    return [sys.executable, str(DOCKER_LIKE), *command]


def run(command: list[str], env: dict, cwd: Path, timeout: float = 900):
    return subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, check=False)


def unzip_keeping_modes(archive: Path, target: Path) -> None:
    """Unpack as `unzip` does: the executable bits recorded in the zip are kept."""
    with zipfile.ZipFile(archive) as opened:
        for info in opened.infolist():
            path = Path(opened.extract(info, target))
            mode = info.external_attr >> 16
            if stat.S_ISREG(mode):
                path.chmod(stat.S_IMODE(mode))


def put_submission(example: Path, folder: Path) -> None:
    """What the student uploaded, as the platform hands it over."""
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(example, folder)


def read_results(path: Path) -> dict:
    assert path.is_file(), f"no {path}"
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def exported(tmp_path_factory):
    """export(platform) -> the folder `autograder export PLATFORM <all> --out` wrote."""
    cache = {}

    def export(platform: str) -> Path:
        if platform not in cache:
            out = tmp_path_factory.mktemp(f"export-{platform}")
            done = subprocess.run([sys.executable, "-m", "autograder", "export", platform,
                                   *exported_assignments(platform), "--out", str(out)],
                                  cwd=ROOT,
                                  capture_output=True, text=True, timeout=1200,
                                  check=False)
            assert done.returncode == 0, done.stdout + done.stderr
            cache[platform] = out
        return cache[platform]
    return export


def bulk_scores(graded_examples, assignment: str) -> dict[str, float]:
    rows, _ = graded_examples(assignment)
    return {student: float(row["score"]) for student, row in rows.items()}


# ------------------------------------------------------------ documented formats
VISIBILITY = {"hidden", "after_due_date", "after_published", "visible"}
FORMATS = {"text", "simple_format", "html", "md", "ansi"}
GRADESCOPE_TOP = {"score", "execution_time", "output", "output_format", "test_output_format",
                  "test_name_format", "visibility", "stdout_visibility", "extra_data", "tests",
                  "leaderboard"}
GRADESCOPE_TEST = {"score", "max_score", "status", "name", "name_format", "number", "output",
                   "output_format", "tags", "visibility", "extra_data"}


def validate_gradescope(data: dict) -> None:
    """Gradescope's autograder specification (docs/PLATFORMS.md cites it)."""
    assert set(data) <= GRADESCOPE_TOP, set(data) - GRADESCOPE_TOP
    assert isinstance(data["score"], (int, float)) and data["score"] >= 0
    assert isinstance(data["execution_time"], (int, float))
    assert data["output_format"] == data["test_output_format"] == "md"
    assert data["visibility"] in VISIBILITY and data["stdout_visibility"] in VISIBILITY
    assert isinstance(data["output"], str) and isinstance(data["extra_data"], dict)
    assert data["tests"], "no tests"
    for test in data["tests"]:
        assert set(test) <= GRADESCOPE_TEST, set(test) - GRADESCOPE_TEST
        assert isinstance(test["name"], str) and test["name"]
        assert 0 <= test["score"] <= test["max_score"]
        assert test["status"] in ("passed", "failed")
        assert test["visibility"] in VISIBILITY
        assert test.get("output_format", "md") in FORMATS
        assert isinstance(test.get("output", ""), str)
    assert abs(sum(t["score"] for t in data["tests"]) - data["score"]) < 1e-6


PRAIRIELEARN_TOP = {"gradable", "score", "message", "output", "images", "tests",
                    "format_errors"}
PRAIRIELEARN_TEST = {"name", "description", "points", "max_points", "message", "output",
                     "images"}


def validate_prairielearn(data: dict, path: Path) -> None:
    """PrairieLearn's external-grading results (docs/PLATFORMS.md cites them)."""
    assert path.stat().st_size < 1 << 20, "results.json must stay under 1 MB"
    assert set(data) <= PRAIRIELEARN_TOP, set(data) - PRAIRIELEARN_TOP
    assert data["gradable"] is True
    assert isinstance(data["score"], float) and 0.0 <= data["score"] <= 1.0
    assert isinstance(data["message"], str) and isinstance(data["output"], str)
    assert data["tests"], "no tests"
    for test in data["tests"]:
        assert set(test) <= PRAIRIELEARN_TEST, set(test) - PRAIRIELEARN_TEST
        assert isinstance(test["name"], str) and test["name"]
        assert 0 <= test["points"] <= test["max_points"]
        assert isinstance(test["output"], str) and isinstance(test["message"], str)
    total = sum(t["max_points"] for t in data["tests"])
    assert abs(sum(t["points"] for t in data["tests"]) / total - data["score"]) < 1e-9

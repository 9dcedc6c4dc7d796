"""Shared fixtures for the kit's own tests."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"


def load_module(name: str, path: Path):
    """Import a file by path under a private name (references, kit modules)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def run_public_tests(folder: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run an assignment's public tests the way `make check` does."""
    return subprocess.run([sys.executable, "-m", "pytest"], cwd=folder, capture_output=True,
                          text=True, timeout=timeout)


@pytest.fixture
def student_copy(tmp_path):
    """A fresh copy of assignments/<name>/ as a student receives it."""
    def make(name: str) -> Path:
        target = tmp_path / name
        shutil.copytree(ROOT / "assignments" / name, target)
        return target
    return make


def in_pid_namespace(command: list[str]) -> list[str]:
    """Wrap a command so hostile student code can never signal processes outside it."""
    if shutil.which("unshare") is None:
        pytest.skip("unshare is not installed: hostile examples run only inside a PID namespace")
    probe = subprocess.run(["unshare", "--pid", "--fork", "--mount-proc", "--kill-child", "true"],
                           capture_output=True)
    if probe.returncode != 0:
        pytest.skip("no PID namespace here (needs root or user namespaces): "
                    "hostile examples are not run outside one")
    return ["unshare", "--pid", "--fork", "--mount-proc", "--kill-child", *command]


def grade_folder(assignment: str, submissions: Path, out: Path, jobs: int = 2,
                 extra: tuple[str, ...] = ()) -> dict[str, dict]:
    """Run `autograder grade` for real (in a PID namespace); return grades.csv rows by student."""
    import csv
    command = in_pid_namespace([sys.executable, "-m", "autograder", "grade", assignment,
                                str(submissions), "--out", str(out), "--jobs", str(jobs),
                                *extra])
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    with (out / "grades.csv").open() as handle:
        return {row["student"]: row for row in csv.DictReader(handle)}


@pytest.fixture(scope="session")
def graded_examples(tmp_path_factory):
    """Grade examples/<assignment>/ once per test session; returns (rows, out_dir)."""
    cache = {}

    def grade(assignment: str):
        if assignment not in cache:
            out = tmp_path_factory.mktemp(f"graded-{assignment}")
            cache[assignment] = (grade_folder(assignment, ROOT / "examples" / assignment, out),
                                 out)
        return cache[assignment]
    return grade

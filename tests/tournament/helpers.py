"""Running tournaments for the kit's tests: for real, through the command line.

Student code (hostile players included) only ever runs inside a PID namespace
(tests/conftest.py in_pid_namespace), like every grading test of the kit.
"""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT, in_pid_namespace

EXAMPLES = ROOT / "examples"


def command(assignment: str, submissions: Path, out: Path, *extra: str) -> list[str]:
    return in_pid_namespace([sys.executable, "-m", "autograder", "tournament", assignment,
                             str(submissions), "--out", str(out), *extra])


def run(assignment: str, submissions: Path, out: Path, *extra: str,
        timeout: float = 600) -> subprocess.CompletedProcess:
    done = subprocess.run(command(assignment, submissions, out, *extra), cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done


def standings(out: Path) -> list[dict]:
    with (out / "standings.csv").open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def games(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]


def submissions(target: Path, assignment: str, names: list[str]) -> Path:
    """A submissions folder holding copies of some example students."""
    target.mkdir(parents=True, exist_ok=True)
    for name in names:
        shutil.copytree(EXAMPLES / assignment / name, target / name)
    return target

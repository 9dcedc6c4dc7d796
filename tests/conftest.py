"""Shared fixtures for the kit's own tests."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"


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

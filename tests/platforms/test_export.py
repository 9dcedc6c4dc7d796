"""The export's choices that need no package built: layers, errors, wheel selection."""

from __future__ import annotations

import subprocess
import sys
import zipfile

import pytest

from autograder import KitError, assignment as assignments
from autograder.platforms import export, wheels
from tests.conftest import ROOT
from tests.platforms.conftest import (ASSIGNMENTS, ONLY_IN_TEST_ALL, PLATFORMS, assignments_on,
                                      examples, examples_on)


def test_required_layers_add_to_the_rubric_in_the_sandbox_order():
    assignment = assignments.load("tictactoe")
    assert export.required_layers(assignment, []) == ["rlimits"]
    assert export.required_layers(assignment, ["seccomp", "landlock"]) == \
        ["rlimits", "landlock", "seccomp"]
    with pytest.raises(KitError, match="unknown sandbox layers"):
        export.required_layers(assignment, ["selinux"])


def test_an_unknown_assignment_is_one_line_and_exit_2(tmp_path):
    done = subprocess.run([sys.executable, "-m", "autograder", "export", "gradescope",
                           "chess", "--out", str(tmp_path)], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1
    assert "unknown assignment 'chess'" in done.stderr
    assert not list(tmp_path.iterdir())


def test_grading_needs_neither_extras_nor_the_teachers_tools(tmp_path):
    kit = tmp_path / "spielbaum-0.1.0-py3-none-any.whl"
    metadata = "\n".join(["Metadata-Version: 2.1", "Name: spielbaum", "Version: 0.1.0",
                          "Requires-Dist: pytest>=7", "Requires-Dist: rich>=13",
                          "Requires-Dist: copydetect<0.6,>=0.5", "Requires-Dist: matplotlib>=3.7",
                          "Requires-Dist: Pytest_Timeout>=2.1",
                          'Requires-Dist: nbgrader==0.9.6; extra == "nbgrader"', ""])
    with zipfile.ZipFile(kit, "w") as archive:
        archive.writestr("spielbaum-0.1.0.dist-info/METADATA", metadata)
    assert wheels.grading_requirements(kit) == ["pytest>=7", "rich>=13",
                                                "Pytest_Timeout>=2.1"]


def test_every_assignment_is_graded_on_a_platform_with_its_reference_and_attacks():
    """Both platforms run the bulk grader's Grader.grade (every example is graded in
    bulk by tests/<a>/); a platform that grades an assignment grades its reference and
    attacks, each assignment is graded on one platform in the default run (on both in
    make test-all), and with SPIELBAUM_PLATFORM_ALL=1 every example."""
    quick = {platform: {p.values[0] for p in assignments_on(platform) if not p.marks}
             for platform in PLATFORMS}
    assert sorted(quick["gradescope"] | quick["prairielearn"] | set(ONLY_IN_TEST_ALL)) == \
        sorted(ASSIGNMENTS)
    assert len(ONLY_IN_TEST_ALL) <= 1, "every other assignment is graded on a platform"
    assert not quick["gradescope"] & quick["prairielearn"]
    for assignment in ASSIGNMENTS:
        everyone = {e.name for e in examples(assignment)}
        chosen = {platform: {e.name for e in examples_on(platform, assignment)}
                  for platform in PLATFORMS}
        for names in chosen.values():
            assert names <= everyone and any(n.startswith("ada_") for n in names), assignment
        attacks = {n for n in everyone if "hostile" in n or "_lying" in n}
        assert attacks <= chosen["gradescope"] & chosen["prairielearn"], assignment

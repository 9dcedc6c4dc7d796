"""The release step: assignments/ is generated, complete, and leaks nothing."""

import ast
import shutil
import subprocess
import sys

import pytest

from autograder import KitError, release, assignment as assignments
from tests.conftest import ROOT, run_public_tests

ASSIGNMENTS = assignments.names()


def test_every_manifest_is_listed():
    assert "tictactoe" in ASSIGNMENTS


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_assignments_folder_is_exactly_the_release_output(name):
    problems = release.differences(name)
    assert not problems, "run `make release`:\n" + "\n".join(problems)


def test_no_solution_markers_anywhere_in_assignments():
    hits = [p for p in (ROOT / "assignments").rglob("*") if p.is_file()
            and release.BEGIN in p.read_text(errors="replace")]
    assert not hits


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_no_solution_line_leaks(name):
    """Every non-trivial line between the markers is absent from the student folder,
    unless the same line also appears outside the markers (then it is public anyway)."""
    assignment = assignments.load(name)
    shipped = "\n".join(p.read_text(errors="replace")
                        for p in assignment.assignment_dir.rglob("*") if p.is_file())
    shipped_lines = {line.strip() for line in shipped.splitlines()}
    for module in assignment.modules:
        source = (assignment.solution_dir / module).read_text()
        stripped = release.strip_solutions(source)
        public = {line.strip() for line in stripped.text.splitlines()}
        secret = {line.strip() for line in stripped.removed_lines} - public
        secret = {line for line in secret if len(line) > 12 and not line.startswith("#")}
        assert secret, "the reference should have solution lines to hide"
        leaked = secret & shipped_lines
        assert not leaked, f"solution lines found in assignments/{name}: {sorted(leaked)[:3]}"


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_every_stub_raises_not_implemented(name):
    assignment = assignments.load(name)
    for module in assignment.modules:
        tree = ast.parse((assignment.assignment_dir / module).read_text())
        source_stubs = release.strip_solutions((assignment.solution_dir / module).read_text()).stubbed
        functions = {f"{n.name}" for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)
                     and any(isinstance(s, ast.Raise) for s in n.body)}
        assert {s.rsplit(".", 1)[-1] for s in source_stubs} <= functions


def test_strip_replaces_function_regions_and_drops_module_regions():
    source = (
        "import os\n"
        "### BEGIN SOLUTION\n"
        "import secret_helper\n"
        "### END SOLUTION\n"
        "\n"
        "def f(x):\n"
        '    """Doc."""\n'
        "    ### BEGIN SOLUTION\n"
        "    return x + 1\n"
        "    ### END SOLUTION\n"
    )
    out = release.strip_solutions(source)
    assert out.stubbed == ["f"]
    assert "secret_helper" not in out.text and "x + 1" not in out.text
    assert "    raise NotImplementedError()" in out.text and '"""Doc."""' in out.text


@pytest.mark.parametrize("broken, message", [
    ("def f():\n    ### BEGIN SOLUTION\n    return 1\n", "never closed"),
    ("def f():\n    ### END SOLUTION\n    return 1\n", "without BEGIN"),
    ("def f(:\n    pass\n", "does not parse"),
])
def test_strip_rejects_broken_markers_with_one_line(broken, message):
    with pytest.raises(KitError, match=message):
        release.strip_solutions(broken, "ref.py")


def test_release_cli_check_reports_up_to_date():
    done = subprocess.run([sys.executable, "-m", "autograder", "release", "--check"],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "up to date" in done.stdout


def test_unknown_assignment_is_one_clear_line():
    done = subprocess.run([sys.executable, "-m", "autograder", "release", "nope"],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"autograder: unknown assignment 'nope' (known: {', '.join(ASSIGNMENTS)})"]


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_public_tests_pass_on_the_reference(name, student_copy):
    folder = student_copy(name)
    for module in assignments.load(name).modules:
        shutil.copy(ROOT / "solutions" / name / module, folder / module)
    done = run_public_tests(folder)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "needs work" not in done.stdout and "not implemented" not in done.stdout


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_public_tests_fail_calmly_on_the_stubs(name, student_copy):
    done = run_public_tests(student_copy(name))
    assert done.returncode != 0
    assert "not implemented yet" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr

"""The public checks for every student (issue 47): whatever else is in the folder,
however they are started, on whichever computer.

A folder holding a second copy of the assignment, backups, a notebook and its
checkpoints gives the summary a clean folder gives, through `make check`,
`python check.py` and `python -m pytest`. Whatever stops the checks before the first
test is a headline and a "What to do" line (a syntax error also quotes its line).
The code paths of Windows and macOS run here with what they lack taken away, in the
subprocess itself (a sitecustomize.py that removes SIGALRM or setitimer, a PATH
without make, a temporary folder on another "drive"), never by faking a result.
"""

import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder import release, assignment as assignments
from tests.conftest import ROOT
from tests.student.test_student_kit import make

#: tictactoe's winner without one diagonal: a summary with an ok row, a row that needs
#: work and rows that may follow from it.
HALF_A_WINNER = ("\n\ndef winner(board):\n"
                 "    lines = [list(row) for row in board] + [list(col) for col in zip(*board)]\n"
                 "    lines.append([board[i][i] for i in range(3)])\n"
                 "    for line in lines:\n"
                 "        if line[0] is not None and line.count(line[0]) == 3:\n"
                 "            return line[0]\n"
                 "    return None\n")


COMMANDS = re.compile(r"`(make check|python3 check\.py|python3 -m pytest)`")


def normal(output: str) -> str:
    """An output without what changes from run to run (the seconds it took) and
    from command to command (the one the student typed, named in "run ... again")."""
    return COMMANDS.sub("`COMMAND`", re.sub(r" in [\d.]+s\b", " in Ns", output))


def student(student_copy, name: str = "tictactoe") -> Path:
    """A student's folder: the reference with a bug, so the summary has every kind of row."""
    folder = student_copy(name)
    for module in assignments.load(name).modules:
        shutil.copy(ROOT / "solutions" / name / module, folder / module)
    if name == "tictactoe":
        with open(folder / "tictactoe.py", "a", encoding="utf-8") as module:
            module.write(HALF_A_WINNER)
    return folder


def clutter(folder: Path, name: str = "tictactoe") -> None:
    """What students keep in their folder: a second copy of the assignment (a backup
    `cp -r`, a handout unzipped twice), an older copy whose conftest.py still clashes
    with this one's option, backups of the module and the tests, a notebook and its
    checkpoints."""
    shutil.copytree(ROOT / "assignments" / name, folder / "alice" / name)
    older = folder / "old"
    older.mkdir()
    (older / "conftest.py").write_text(
        "def pytest_addoption(parser):\n"
        "    parser.addoption('--function', action='append', default=[])\n")
    shutil.copy(folder / f"test_{name}.py", older / f"test_{name}.py")
    for module in assignments.load(name).modules:
        shutil.copy(folder / module, folder / module.replace(".py", "_backup.py"))
        shutil.copy(folder / module, folder / module.replace(".py", " (1).py"))
    shutil.copy(folder / f"test_{name}.py", folder / f"test_{name} (copy).py")
    shutil.copy(folder / f"test_{name}.py", folder / f"test_{name}_old.py")
    notebook = ROOT / "solutions" / name / f"{name}.ipynb"
    checkpoints = folder / ".ipynb_checkpoints"
    checkpoints.mkdir()
    shutil.copy(notebook, folder / notebook.name)
    shutil.copy(notebook, checkpoints / f"{name}-checkpoint.ipynb")
    shutil.copy(folder / f"test_{name}.py", checkpoints / f"test_{name}-checkpoint.py")


def check_py(folder: Path, *words: str, cwd: Path | None = None, env: dict | None = None,
             python: str = sys.executable, timeout: float = 120) -> subprocess.CompletedProcess:
    """`python check.py WORDS`, as a student without make types it."""
    return subprocess.run([python, str(folder / "check.py"), *words], cwd=cwd or folder,
                          capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


def python_m_pytest(folder: Path, *args: str, env: dict | None = None,
                    cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", *args], cwd=cwd or folder,
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(env or {})})


# ------------------------------------------------------------ whatever else is in the folder
@pytest.mark.parametrize("name", ["tictactoe", "connect4"])
def test_a_cluttered_folder_gives_the_normal_summary_however_it_is_started(
        name, student_copy, tmp_path):
    clean = student(student_copy, name)
    expected = normal(make("check", clean).stdout)
    assert re.search(r"^  \w+\s+\d+/\d+  ok$", expected, re.M), expected
    cluttered = tmp_path / "cluttered" / name
    shutil.copytree(clean, cluttered)
    clutter(cluttered, name)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    runs = [       # (how it was started, the command its summary names, what it said)
        ("make check", "make check", make("check", cluttered)),
        ("make -C from elsewhere", "make check", subprocess.run(
            ["make", "--no-print-directory", "-s", "-C", str(cluttered), "check",
             f"PYTHON={sys.executable}"], cwd=outside, capture_output=True, text=True,
            timeout=120)),
        ("python3 check.py", "python3 check.py", check_py(cluttered)),
        ("python3 path/to/check.py", "python3 check.py", check_py(cluttered, cwd=outside)),
        ("python3 -m pytest", "python3 -m pytest", python_m_pytest(cluttered)),
        ("python3 -m pytest .", "python3 -m pytest", python_m_pytest(cluttered, ".")),
    ]
    for how, command, done in runs:
        assert normal(done.stdout) == expected, (how, done.stdout, done.stderr)
        assert "Traceback" not in done.stderr, (how, done.stderr)
        named = set(COMMANDS.findall(done.stdout))
        assert named == {command} if name == "tictactoe" else named <= {command}, (how, named)


def test_only_the_public_tests_are_collected(student_copy):
    folder = student(student_copy)
    clutter(folder)
    done = python_m_pytest(folder, "--collect-only")
    files = {line.split("::")[0] for line in done.stdout.splitlines() if "::" in line}
    assert files == {"test_tictactoe.py"}, done.stdout


# ------------------------------------------------------------ before the first test
def one_problem(output: str, what_to_do: str = "What to do: ") -> tuple[str, list[str], str]:
    """(headline, quoted code, what to do) of what stopped the checks: nothing else
    is said (no count of errors, no traceback, no pytest banner)."""
    lines = [line for line in output.splitlines() if line.strip()]
    assert len(lines) >= 2, output
    headline, *code, todo = lines
    assert todo.startswith(what_to_do), output
    assert all(line.startswith("    ") for line in code), output
    assert not re.search(r"\d+ errors?\b|Traceback|!!!|=====|Interrupted", output), output
    return headline, code, todo


def break_module(folder: Path, text: str) -> None:
    path = folder / "tictactoe.py"
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def set_ini(folder: Path, key: str, value: str) -> None:
    ini = folder / "pytest.ini"
    ini.write_text(re.sub(rf"^{key} = .*$", f"{key} = {value}", ini.read_text(), flags=re.M))


#: What a student did -> (the headline's pattern, the "What to do" line's pattern).
PROBLEMS = {
    "module missing": (
        lambda folder: (folder / "tictactoe.py").unlink(),
        r"tictactoe\.py is missing from this folder \(.*\), so no test could run\.",
        r"put your tictactoe\.py into this folder, next to the public tests, then run "
        r"`python3 check\.py` again\."),
    "module under another name": (
        lambda folder: (folder / "tictactoe.py").rename(folder / "tictactoe (1).py"),
        r"tictactoe\.py is missing from this folder",
        r"if 'tictactoe \(1\)\.py' is your tictactoe\.py, rename it to tictactoe\.py; "),
    "syntax error": (
        lambda folder: break_module(folder, "\ndef broken(board)\n    return 1\n"),
        r"tictactoe\.py, line \d+: SyntaxError: expected ':' \(Python cannot read "
        r"tictactoe\.py, so no test could run\)",
        r"fix line \d+ of tictactoe\.py \(the mistake can also sit at the end of the line "
        r"before it\), save, and run `python3 check\.py` again\."),
    "error while imported": (
        lambda folder: break_module(folder, "\nBOARD = initial_state()\nBOARD[3][0] = 'X'\n"),
        r"tictactoe\.py, line \d+: IndexError: list index out of range \(while tictactoe\.py "
        r"was imported, so no test could run\)",
        r"code outside any function runs when tictactoe\.py is imported: fix line \d+"),
    "a search left at the module's end": (
        lambda folder: (break_module(folder, "\nwhile True:\n    pass\n"),
                        set_ini(folder, "cpu_timeout", "0.5")),
        r"tictactoe\.py, line \d+: still running after 0\.5 s of CPU time \(while "
        r"tictactoe\.py was imported, so no test could run\)",
        r"code outside any function runs when tictactoe\.py is imported, and line \d+ does "
        r"not finish: move that code into a function"),
    # issue 41: refused before it runs, in the grader's sentence (installed or not)
    "an import beyond the standard library": (
        lambda folder: break_module(folder, "\nimport numpyy_not_installed\n"),
        r"tictactoe\.py, line \d+: ModuleNotFoundError: tictactoe\.py imports "
        r"numpyy_not_installed, which this assignment does not allow: only Python's standard "
        r"library may be imported, and the packages the README names \(while tictactoe\.py "
        r"was imported",
        r"write that part with Python's standard library \(the task needs nothing else\) and "
        r"remove the import"),
    "public tests missing": (
        lambda folder: (folder / "test_tictactoe.py").unlink(),
        r"test_tictactoe\.py \(the public tests\) is missing from this folder",
        r"test_tictactoe\.py is part of the assignment you were given, not yours to change: "
        r"copy it back from there, then run `python3 check\.py` again\."),
    "public tests edited": (
        lambda folder: (folder / "test_tictactoe.py").write_text(
            (folder / "test_tictactoe.py").read_text().replace("import copy\n",
                                                               "import copy(\n", 1)),
        r"test_tictactoe\.py, line \d+: SyntaxError: .* \(Python cannot read "
        r"test_tictactoe\.py, so no test could run\)",
        r"test_tictactoe\.py is part of the assignment you were given"),
    "a kit file missing": (
        lambda folder: (folder / "conftest.py").unlink(),
        r"conftest\.py is missing from this folder \(.*\), so the checks cannot run\.",
        r"conftest\.py is part of the assignment you were given, not yours to change"),
}


@pytest.mark.parametrize("case", sorted(PROBLEMS))
def test_a_problem_before_the_first_test_is_one_line_and_what_to_do(case, student_copy):
    spoil, headline_pattern, todo_pattern = PROBLEMS[case]
    folder = student(student_copy)
    spoil(folder)
    done = check_py(folder)
    assert done.returncode == 2, done.stdout + done.stderr
    assert not done.stderr, done.stderr
    headline, code, todo = one_problem(done.stdout)
    assert re.fullmatch(headline_pattern, headline) or re.match(headline_pattern, headline), \
        headline
    assert re.match("What to do: " + todo_pattern, todo), todo
    # the line Python could not read and a caret under the place, or the line that failed
    assert len(code) <= (2 if "SyntaxError" in headline else 1), code


@pytest.mark.parametrize("how", ["make", "pytest"])
def test_make_and_pytest_say_a_missing_module_the_same_way(how, student_copy):
    folder = student(student_copy)
    (folder / "tictactoe.py").unlink()
    done = make("check", folder) if how == "make" else python_m_pytest(folder)
    headline, _, todo = one_problem(done.stdout)
    assert headline.startswith("tictactoe.py is missing from this folder")
    command = "make check" if how == "make" else "python3 -m pytest"
    assert todo.endswith(f"then run `{command}` again."), todo


def test_a_file_the_public_tests_import_is_named_when_missing(student_copy):
    folder = student(student_copy, "muehle")
    (folder / "play.py").unlink()
    headline, _, todo = one_problem(check_py(folder).stdout)
    assert headline.startswith("play.py is missing from this folder (") and \
        headline.endswith("and the public tests need it, so no test could run."), headline
    assert todo.startswith("What to do: play.py is part of the assignment you were given")


def test_an_unknown_function_is_one_line(student_copy):
    folder = student(student_copy)
    headline, _, todo = one_problem(check_py(folder, "winer").stdout)
    assert headline == "No public test checks winer, so no test ran."
    assert todo.startswith("What to do: name one of the functions the public tests check: "
                           "actions, initial_state, minimax, player"), todo


def test_a_second_copy_in_the_same_run_is_named(student_copy):
    """pytest given this folder's tests and a copy's (or started above both): the
    copy's conftest.py no longer clashes with ValueError; the copy is named."""
    folder = student(student_copy)
    clutter(folder)
    done = python_m_pytest(folder, "test_tictactoe.py", "alice/tictactoe/test_tictactoe.py")
    assert done.returncode == 2
    headline, _, todo = one_problem(done.stdout)
    assert headline == "A second copy of the assignment is inside this folder: alice/tictactoe/"
    assert todo == ("What to do: move it out of this folder (or delete it), then run "
                    "`python3 -m pytest` in the assignment's own folder.")


def test_pytest_started_in_a_folder_above_says_where_to_run(student_copy, tmp_path):
    folder = student(student_copy)
    clutter(folder)
    done = python_m_pytest(folder, cwd=folder.parent)
    assert done.returncode == 2
    said = done.stdout[done.stdout.index("\n\n"):]     # pytest's own banner comes first
    headline, _, todo = one_problem(said)
    assert headline == (f"pytest was started in {folder.parent}, not in the assignment's "
                        f"folder {folder}, so it would check other files too.")
    assert todo == ("What to do: run the checks in the assignment's folder: "
                    "`python3 tictactoe/check.py` (on Windows `py tictactoe/check.py`).")
    assert "ERROR collecting" not in done.stdout and "Traceback" not in done.stdout


def test_an_old_python_is_told_which_it_needs(student_copy, tmp_path):
    folder = student(student_copy)
    done = check_py(folder, env=without(tmp_path, "import sys\n"
                                              "sys.version_info = (3, 9, 18, 'final', 0)"))
    assert done.returncode == 2
    assert done.stdout.splitlines() == [
        "This is Python 3.9.18; the checks need Python 3.11 or newer.",
        "What to do: install a newer Python (https://www.python.org/downloads/) and run the "
        "checks with it: `python3.12 check.py`, or `make check PYTHON=python3.12` (with the "
        "version you installed)."]


def test_check_py_speaks_the_courses_language(student_copy):
    folder = student(student_copy)
    (folder / "tictactoe.py").unlink()
    done = check_py(folder, env={"SPIELBAUM_LANG": "de"})
    headline, _, todo = one_problem(done.stdout, "Was du tun kannst: ")
    assert headline.startswith("tictactoe.py fehlt in diesem Ordner"), headline
    assert todo.startswith("Was du tun kannst: lege dein tictactoe.py in diesen Ordner"), todo


# ------------------------------------------------------------ whichever computer
def without(tmp_path: Path, code: str) -> dict:
    """The environment of a Python that runs `code` before anything else (a
    sitecustomize.py on PYTHONPATH), e.g. to take away what another platform lacks.
    The tools' Python made from it (and pip) run it too."""
    folder = tmp_path / f"site-{hashlib.sha256(code.encode()).hexdigest()[:12]}"
    folder.mkdir(exist_ok=True)
    (folder / "sitecustomize.py").write_text(code + "\n", encoding="utf-8")
    return {"PYTHONPATH": str(folder)}


def no_signals(*names: str) -> str:
    return ("import signal\n"
            f"for _name in {names!r}:\n"
            "    if hasattr(signal, _name):\n"
            "        delattr(signal, _name)\n")


#: Windows: neither SIGALRM nor SIGPROF nor setitimer.
WINDOWS = no_signals("SIGALRM", "SIGPROF", "setitimer", "getitimer", "alarm", "ITIMER_REAL",
                     "ITIMER_PROF", "ITIMER_VIRTUAL")


def endless_minimax(folder: Path) -> None:
    shutil.copy(ROOT / "examples/tictactoe/grace_endless_minimax/tictactoe.py", folder)
    set_ini(folder, "cpu_timeout", "0.5")


def lines_anywhere(text: str) -> str:
    return re.sub(r"line \d+", "line N", normal(text))


@pytest.mark.parametrize("taken", ["setitimer", "windows"])
def test_the_cpu_limit_without_setitimer_stops_an_endless_loop_the_same_way(
        taken, student_copy, tmp_path):
    """A watchdog thread raises the CPU limit's exception in the test where there is
    no setitimer: the summary is the one the timer gives."""
    folder = student_copy("tictactoe")
    endless_minimax(folder)
    expected = check_py(folder)
    assert "used more than 0.5 s of CPU time" in expected.stdout, expected.stdout
    code = no_signals("setitimer", "SIGPROF", "ITIMER_PROF") if taken == "setitimer" \
        else WINDOWS
    done = check_py(folder, env=without(tmp_path, code))
    assert lines_anywhere(done.stdout) == lines_anywhere(expected.stdout), done.stdout
    assert done.returncode == expected.returncode == 1


def sleeping_player(folder: Path, how: str) -> None:
    module = folder / "tictactoe.py"
    shutil.copy(ROOT / "solutions/tictactoe/tictactoe.py", module)
    module.write_text(module.read_text().replace(
        "def player(board):\n", f"def player(board):\n    import time\n    {how}\n", 1))
    set_ini(folder, "timeout", "1")


@pytest.mark.parametrize("taken", ["SIGALRM", "setitimer", "windows"])
def test_the_clock_limit_without_sigalrm_stops_a_function_sleeping_in_steps(
        taken, student_copy, tmp_path):
    """pytest-timeout picks its thread method where there is no SIGALRM (or none that
    setitimer can arm); the kit's watchdog then raises the clock's exception in the
    test, and the summary goes on as with the signal."""
    folder = student_copy("tictactoe")
    sleeping_player(folder, "while True: time.sleep(0.05)")
    expected = check_py(folder)
    assert "waited 1 s without finishing, stopped in player" in expected.stdout
    code = {"SIGALRM": no_signals("SIGALRM", "alarm"),
            "setitimer": no_signals("setitimer", "getitimer"), "windows": WINDOWS}[taken]
    done = check_py(folder, env=without(tmp_path, code))
    assert lines_anywhere(done.stdout) == lines_anywhere(expected.stdout), done.stdout
    # the method is pytest-timeout's choice by the platform, not pinned in pytest.ini
    assert "timeout_method" not in (folder / "pytest.ini").read_text()


def test_a_call_that_cannot_be_interrupted_ends_the_run_with_the_summary_so_far(
        student_copy, tmp_path):
    """One long time.sleep cannot be interrupted without SIGALRM: a second after the
    limit the run ends, with the summary of what ran, that function's row and one
    line saying the rest did not run (pytest-timeout's own thread method would end
    it with stack dumps only)."""
    folder = student_copy("tictactoe")
    sleeping_player(folder, "time.sleep(60)")
    done = check_py(folder, env=without(tmp_path, WINDOWS), timeout=30)
    assert done.returncode == 1
    assert re.search(r"^  player\s+0/1  needs work$", done.stdout, re.M), done.stdout
    assert re.search(r"waited 1 s without finishing, stopped in player \(tictactoe\.py, line "
                     r"\d+\): does it sleep", done.stdout), done.stdout
    assert done.stdout.rstrip().endswith(
        "The checks stopped there: player waited in a call that cannot be interrupted on "
        "this computer, so the tests after it did not run."), done.stdout
    assert "Stack of" not in done.stdout + done.stderr and "Timeout" not in done.stdout


def path_without_make(tmp_path: Path, python: str = sys.executable) -> dict:
    """A PATH with a python3 and nothing else: no make (as on most Windows machines)."""
    bin_dir = tmp_path / "no-make-bin"
    bin_dir.mkdir(exist_ok=True)
    # A script, not a link: a venv's Python knows it is one by the path it was started by.
    for name in ("python3", "python"):
        (bin_dir / name).write_text(f'#!/bin/sh\nexec "{python}" "$@"\n')
        (bin_dir / name).chmod(0o755)
    assert shutil.which("make", path=str(bin_dir)) is None
    return {"PATH": str(bin_dir)}


def test_without_make_python_check_py_gives_make_checks_summary(student_copy, tmp_path):
    folder = student(student_copy)
    expected = make("check", folder)
    no_make = path_without_make(tmp_path)
    done = subprocess.run(["python3", "check.py"], cwd=folder, capture_output=True, text=True,
                          timeout=120, env={**os.environ, **no_make})
    assert normal(done.stdout) == normal(expected.stdout), done.stdout + done.stderr
    assert done.returncode == 1 and not done.stderr
    one = subprocess.run(["python3", "check.py", "winner"], cwd=folder, capture_output=True,
                         text=True, timeout=120, env={**os.environ, **no_make})
    assert normal(one.stdout) == normal(make("check", folder, env={"F": "winner"}).stdout)


@pytest.fixture
def bare_python(tmp_path):
    """A Python like a student's: the standard library, no pytest."""
    bare = tmp_path / "bare-python"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True)
    return str(bare / "bin" / "python")


def installed_or_skip(done: subprocess.CompletedProcess) -> None:
    if "pip could not install" in done.stdout:
        pytest.skip("no package index reachable here, so the install itself cannot run: "
                    + done.stdout)


@pytest.mark.slow
def test_a_first_run_without_make_installs_the_tools_and_checks(student_copy, bare_python,
                                                                 tmp_path):
    """Windows' first run: no make, no SIGALRM or setitimer, Python without pytest."""
    folder = student(student_copy)
    expected = normal(make("check", folder).stdout)
    env = {**path_without_make(tmp_path, bare_python), "XDG_CACHE_HOME": str(tmp_path / "cache"),
           **without(tmp_path, WINDOWS)}
    first = subprocess.run(["python3", "check.py"], cwd=folder, capture_output=True, text=True,
                           timeout=600, env={**os.environ, **env})
    installed_or_skip(first)
    said = first.stdout.splitlines()
    assert said[0].startswith("Installing pytest and pytest-timeout into " +
                              str(tmp_path / "cache" / "spielbaum" / "tools-py")), said
    assert normal("\n".join(said[1:]) + "\n") == expected, first.stdout + first.stderr
    again = subprocess.run(["python3", "check.py"], cwd=folder, capture_output=True, text=True,
                           timeout=120, env={**os.environ, **env})
    assert normal(again.stdout) == expected


#: Windows' drives: a path is on the drive whose folder holds it ("C:" for the rest);
#: a file cannot be renamed onto another drive, and relpath between two drives fails.
DRIVES = """
import errno, os, os.path
_DRIVES = {drives!r}
def _drive(path):
    path = os.path.abspath(os.fsdecode(path))
    holding = [(len(root), name) for name, root in _DRIVES.items()
               if path == root or path.startswith(root + os.sep)]
    return max(holding)[1] if holding else "C:"      # the innermost: drives may nest here
def _one_drive(function):
    def moved(source, target, *args, **kwargs):
        if _drive(source) != _drive(target):
            raise OSError(errno.EXDEV, "The system cannot move the file to a different "
                                       "disk drive", os.fsdecode(source))
        return function(source, target, *args, **kwargs)
    return moved
for _name in ("rename", "replace", "link"):
    setattr(os, _name, _one_drive(getattr(os, _name)))
_relpath = os.path.relpath
def relpath(path, start=os.curdir):
    if _drive(path) != _drive(start):
        raise ValueError(f"path is on mount {{_drive(path)!r}}, start on mount "
                         f"{{_drive(start)!r}}")
    return _relpath(path, start)
os.path.relpath = relpath
"""


def on_drives(tmp_path: Path, **drives: Path) -> dict:
    return without(tmp_path, DRIVES.format(drives={name + ":": str(path)
                                                   for name, path in drives.items()}))


def test_the_checks_started_from_another_drive(student_copy, tmp_path):
    """The assignment on drive D:, the student's shell on E: (`python D:\\...\\check.py`,
    `python -m pytest D:\\...`): the normal summary, and a problem names the file by
    its name in the folder."""
    folder = student(student_copy)
    expected = normal(make("check", folder).stdout)
    shell = tmp_path / "shell"
    shell.mkdir()
    env = on_drives(tmp_path, D=folder, E=shell)
    probe = subprocess.run([sys.executable, "-c", f"import os; os.path.relpath({str(folder)!r}, "
                            f"{str(shell)!r})"], env={**os.environ, **env}, capture_output=True,
                           text=True)
    assert "ValueError: path is on mount 'D:', start on mount 'E:'" in probe.stderr, probe.stderr
    assert normal(check_py(folder, cwd=shell, env=env).stdout) == expected
    assert normal(python_m_pytest(folder, str(folder), cwd=shell, env=env).stdout) == expected
    break_module(folder, "\nBOARD = initial_state()\nBOARD[3][0] = 'X'\n")
    headline, code, _ = one_problem(check_py(folder, cwd=shell, env=env).stdout)
    assert headline.startswith("tictactoe.py, line "), headline
    assert code == ["    BOARD[3][0] = 'X'"]


@pytest.mark.slow
@pytest.mark.parametrize("cache", ["its own drive", "no HOME: the temp folder"])
def test_the_tools_install_across_drives_without_moving_anything_across(
        cache, student_copy, bare_python, tmp_path):
    """The assignment on drive D:, the temporary folder on T:, the user's cache on K:
    (or, with no HOME, in the temporary folder): the first run installs the tools
    and checks, moving no file from one drive to another (which Windows refuses)."""
    folder = student(student_copy)
    expected = normal(make("check", folder).stdout)
    temp, caches = tmp_path / "T", tmp_path / "K"
    temp.mkdir()
    caches.mkdir()
    env = {key: value for key, value in os.environ.items()
           if key not in ("HOME", "XDG_CACHE_HOME", "LOCALAPPDATA", "PYTHONPATH")}
    env.update({"TMPDIR": str(temp), "USER": "ada", "PIP_CACHE_DIR": str(temp / "pip-cache"),
                **on_drives(tmp_path, D=folder.parent, T=temp, K=caches)})
    if cache == "its own drive":
        env["XDG_CACHE_HOME"] = str(caches)
    # the drives are real to every Python started so: a move across them fails
    probe = subprocess.run([bare_python, "-c", f"import os; os.replace({str(temp)!r}, "
                            f"{str(caches / 'moved')!r})"], env=env, capture_output=True,
                           text=True)
    assert "different disk drive" in probe.stderr, probe.stderr
    first = subprocess.run([bare_python, "check.py"], cwd=folder, capture_output=True,
                           text=True, timeout=600, env=env)
    installed_or_skip(first)
    home = caches if cache == "its own drive" else temp / "spielbaum-ada"
    [tools] = [p for p in (home / "spielbaum").glob("tools-py*") if p.is_dir()]
    assert (tools / "ready").is_file(), first.stdout + first.stderr
    assert first.stdout.startswith(f"Installing pytest and pytest-timeout into {tools} ")
    assert normal(first.stdout.split("\n", 1)[1]) == expected, first.stdout + first.stderr


# ------------------------------------------------------------ the student README
@pytest.mark.parametrize("name", assignments.names())
def test_every_readme_says_once_what_a_student_needs_and_the_make_free_command(name):
    readme = (ROOT / "assignments" / name / "README.md").read_text(encoding="utf-8")
    section = release.README_SECTION.read_text(encoding="utf-8")
    heading = section.splitlines()[0]
    assert readme.count(heading) == 1 and readme.count("Python 3.11 or newer") == 1
    tail = readme[readme.index(heading):]
    function = re.search(r"`python3 check\.py (\w+)`", tail).group(1)
    assert re.search(rf'@pytest\.mark\.checks\("{function}"\)',
                     (ROOT / "assignments" / name / f"test_{name}.py").read_text())
    for words in ("`python3 check.py` does what `make check` does", "pytest and pytest-timeout",
                  "no internet", "school computer", "python3 -m pip install --user pytest "
                  "pytest-timeout", "`python3 -m pytest`"):
        assert words in " ".join(tail.split()), words
    # the version the README names is the one check.py asks for
    kit = (ROOT / "assignments" / name / "check.py").read_text(encoding="utf-8")
    assert "OLDEST_PYTHON = (3, 11)" in kit

"""The student's side of every assignment: `make check` and `make play` as a student
meets them, run for real in a copy of assignments/<a>/ (issue 11: a module that does
not import, a timeout, the test tools kept out of the folder, offline installs, and
`make play` on bad input, on Ctrl-D and on the stubs)."""

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder import assignment as assignments
from tests.conftest import ROOT

ASSIGNMENTS = assignments.names()


def make(target: str, folder: Path, stdin: str = "", env: dict | None = None,
         python: str = sys.executable, timeout: float = 120) -> subprocess.CompletedProcess:
    """`make <target>` in a student folder, with the kit's Python (it has pytest)."""
    return subprocess.run(["make", "--no-print-directory", target, f"PYTHON={python}"],
                          cwd=folder, input=stdin, capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})})


def module_of(name: str) -> str:
    return assignments.load(name).modules[0]


def break_first_def(path: Path) -> int:
    """Remove the colon of the module's first `def`; return that line's number."""
    lines = path.read_text().splitlines()
    number = next(i for i, line in enumerate(lines)
                  if re.match(r"\s*def \w+\(.*\):$", line))
    lines[number] = lines[number][:-1]
    path.write_text("\n".join(lines) + "\n")
    return number + 1


# ------------------------------------------------------------ a module that does not import
@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_make_check_shows_file_line_and_message_of_a_syntax_error(name, student_copy):
    folder = student_copy(name)
    module = module_of(name)
    line = break_first_def(folder / module)
    done = make("check", folder)
    assert done.returncode != 0
    out = done.stdout
    assert f"{module}, line {line}: SyntaxError: expected ':'" in out, out
    assert f"What to do: fix line {line} of {module}" in out, out
    assert "Traceback" not in out + done.stderr


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_make_check_shows_file_line_and_message_of_an_import_error(name, student_copy):
    folder = student_copy(name)
    module = module_of(name)
    path = folder / module
    lines = path.read_text().splitlines()
    first_import = next(node.lineno - 1 for node in ast.parse(path.read_text()).body
                        if isinstance(node, (ast.Import, ast.ImportFrom)))
    lines.insert(first_import, "import numpyy_not_installed")
    path.write_text("\n".join(lines) + "\n")
    done = make("check", folder)
    assert done.returncode != 0
    out = done.stdout
    # issue 41: refused before it runs, in the grader's sentence (installed or not)
    assert (f"{module}, line {first_import + 1}: ModuleNotFoundError: {module} imports "
            "numpyy_not_installed, which this assignment does not allow: only Python's "
            "standard library may be imported") in out, out
    assert "standard library" in out and "What to do" in out


def test_make_check_points_at_code_that_fails_while_the_module_is_imported(student_copy):
    folder = student_copy("tictactoe")
    path = folder / "tictactoe.py"
    path.write_text(path.read_text() + "\nBOARD = initial_state()\nBOARD[3][0] = 'X'\n")
    line = len(path.read_text().splitlines())
    done = make("check", folder)
    assert f"tictactoe.py, line {line}: IndexError: list index out of range" in done.stdout
    assert "BOARD[3][0] = 'X'" in done.stdout and "code outside any function" in done.stdout


# ------------------------------------------------------------ a timeout
def test_make_check_on_a_timeout_counts_no_errors_and_prints_no_stray_letters(student_copy):
    folder = student_copy("tictactoe")
    shutil.copy(ROOT / "examples/tictactoe/grace_endless_minimax/tictactoe.py", folder)
    ini = folder / "pytest.ini"     # the behaviour, not the length of the limit, is tested
    ini.write_text(re.sub(r"^cpu_timeout = .*$", "cpu_timeout = 1", ini.read_text(),
                          flags=re.M))
    done = make("check", folder)
    lines = done.stdout.splitlines()
    assert not [line for line in lines if re.fullmatch(r"[.EFsx]+\s*(\[\s*\d+%\])?", line.strip())
                and line.strip()], done.stdout
    assert re.search(r"used more than 1 s of CPU time, the limit of one public test, stopped "
                     r"in \w+ \(tictactoe\.py, line \d+\): an endless loop, or a search doing "
                     r"far more work", done.stdout), done.stdout
    assert re.search(r"minimax\s+0/5\s+needs work", done.stdout)
    assert "error" not in lines[-1] and "4 skipped" in lines[-1], lines[-1]


def test_make_check_stops_a_sleeping_function_at_the_clock_backstop(student_copy):
    folder = student_copy("tictactoe")
    module = folder / "tictactoe.py"
    module.write_text(module.read_text().replace(
        'def player(board):\n', 'def player(board):\n    import time\n    time.sleep(60)\n', 1))
    ini = folder / "pytest.ini"
    ini.write_text(re.sub(r"^timeout = .*$", "timeout = 1", ini.read_text(), flags=re.M))
    done = make("check", folder)
    assert re.search(r"waited 1 s without finishing, stopped in player \(tictactoe\.py, line "
                     r"\d+\): does it sleep", done.stdout), done.stdout


def test_make_check_does_not_count_other_processes_time(student_copy):
    """A test that needs 0.6 s of CPU passes with a 1 s CPU limit while two busy
    loops keep both cores of the machine busy (on the clock it takes longer)."""
    folder = student_copy("tictactoe")
    (folder / "test_busy.py").write_text(
        "import time\n"
        "def test_needs_cpu():\n"
        "    end = time.process_time() + 0.6\n"
        "    while time.process_time() < end:\n"
        "        pass\n")
    ini = folder / "pytest.ini"
    ini.write_text(re.sub(r"^cpu_timeout = .*$", "cpu_timeout = 1", ini.read_text(),
                          flags=re.M))
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(3)]
    try:
        done = subprocess.run([sys.executable, "-m", "pytest", "test_busy.py", "-p",
                               "no:randomly"], cwd=folder, capture_output=True, text=True,
                              timeout=120)
    finally:
        for process in busy:
            process.kill()
            process.wait()
    assert "1 passed" in done.stdout, done.stdout


# ------------------------------------------------------------ the test tools
@pytest.fixture
def python_without_pytest(tmp_path):
    """A Python like a student's: the standard library, no pytest."""
    bare = tmp_path / "bare-python"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True)
    python = bare / "bin" / "python"
    assert subprocess.run([python, "-c", "import pytest"], capture_output=True).returncode
    return str(python)


def folder_files(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")
            if "__pycache__" not in p.parts}


@pytest.mark.slow
def test_make_check_installs_the_tools_outside_the_assignment_folder(
        student_copy, python_without_pytest, tmp_path):
    cache = tmp_path / "cache"
    first, second = student_copy("tictactoe"), student_copy("gametree")
    before = folder_files(first)
    done = make("check", first, env={"XDG_CACHE_HOME": str(cache)},
                python=python_without_pytest, timeout=600)
    if "pip could not install" in done.stdout:
        pytest.skip("no package index reachable here, so the install itself cannot run: "
                    + done.stdout.splitlines()[1])
    assert "not implemented yet" in done.stdout, done.stdout + done.stderr
    assert folder_files(first) == before, "make check left files in the folder"
    [tools] = [p for p in (cache / "spielbaum").iterdir() if p.is_dir()]
    assert (tools / "ready").is_file() and str(tools) in done.stdout
    again = make("check", second, env={"XDG_CACHE_HOME": str(cache)},
                 python=python_without_pytest)
    assert "Installing" not in again.stdout and "not implemented yet" in again.stdout


@pytest.mark.slow
def test_make_check_offline_says_what_to_do_instead_of_pips_error(
        student_copy, python_without_pytest, tmp_path):
    folder = student_copy("tictactoe")
    before = folder_files(folder)
    offline = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "PIP_NO_INDEX": "1",
               "PIP_FIND_LINKS": "", "PIP_CONFIG_FILE": os.devnull}
    done = make("check", folder, env=offline, python=python_without_pytest, timeout=600)
    assert done.returncode != 0
    said = done.stdout.splitlines()
    assert said[1].startswith("pip could not install pytest and pytest-timeout: ERROR:"), said
    assert said[2].startswith("What to do: are you offline?"), said
    assert "Traceback" not in done.stdout + done.stderr
    assert folder_files(folder) == before
    left = [p.name for p in (tmp_path / "cache" / "spielbaum").iterdir()]
    assert all(name.endswith(".log") for name in left), left   # no half environment


def test_make_clean_removes_an_old_local_environment(student_copy):
    folder = student_copy("negamax")
    (folder / ".venv" / "bin").mkdir(parents=True)
    assert make("clean", folder).returncode == 0
    assert not (folder / ".venv").exists()


# ------------------------------------------------------------ make play
# Each step: what the student types, and the one line it must get back (None: accepted).
PLAYS = {
    "tictactoe": [("q", "Please answer X or O."), ("", "Please answer X or O."), ("X", None),
                  ("abc", "Please type the number of a free cell: 1, 2, 3, 4, 5, 6, 7, 8, 9."),
                  ("0", "Please type the number of a free cell: 1, 2, 3, 4, 5, 6, 7, 8, 9."),
                  ("10", "Please type the number of a free cell: 1, 2, 3, 4, 5, 6, 7, 8, 9."), ("5", None),
                  ("5", "Please type the number of a free cell: 2, 3, 4, 6, 7, 8, 9.")],
    "negamax": [("a b", "Please type two numbers from 0 to 2"),
                ("", "Please type two numbers from 0 to 2"),
                ("3 0", "(3, 0) is not on the board"), ("1", "Please type two numbers from 0 to 2"),
                ("1 1", None), ("1 1", "(1, 1) is already taken")],
    "gametree": [("9", "Please answer 1, 2 or 3."), ("", "Please answer 1, 2 or 3."), ("2", None),
                 ("maybe", "Please answer y or n."), ("n", None),
                 ("x", "Please type a cell number from 0 to 11."),
                 ("12", "Please type a cell number from 0 to 11."),
                 ("-1", "Please type a cell number from 0 to 11."), ("5", None),
                 ("5", "That cell is not free.")],
    "connect4": [("maybe", "Please answer y or n."), ("y", None),
                 ("deep", "Please type a whole number of at least 1"),
                 ("0", "Please type a whole number of at least 1"), ("3", None),
                 ("x", "Please type a column number from 0 to 6."),
                 ("", "Please type a column number from 0 to 6."),
                 ("7", "Please type a column number from 0 to 6.")]
                + [("3", None)] * 4 + [("3", "That column is full or does not exist.")] * 4,
    "muehle": [("x", "Please answer with one of: B, W."), ("", "Please answer with one of: B, W."),
               ("w", None),
               ("99", "Please answer with one of: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,"),
               ("foo", "Please answer with one of: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,"),
               ("5", None)],
}


#: The assignments with a terminal game (`play.py` among the manifest's files). Each is
#: played on Ctrl-D alone and on the stubs; those of PLAYS also with their script.
PLAYABLE = [name for name in ASSIGNMENTS if "play.py" in assignments.load(name).files]


def test_every_play_script_is_for_a_playable_assignment():
    assert set(PLAYS) <= set(PLAYABLE)
    assert {"tictactoe", "negamax", "gametree", "connect4", "muehle"} <= set(PLAYS)


def with_reference(name: str, folder: Path) -> Path:
    for module in assignments.load(name).modules:
        shutil.copy(ROOT / "solutions" / name / module, folder / module)
    return folder


@pytest.mark.parametrize("name", PLAYABLE)
def test_make_play_answers_bad_input_with_one_line_and_ends_on_ctrl_d(name, student_copy):
    steps = PLAYS.get(name, [])
    done = make("play", with_reference(name, student_copy(name)),
                stdin="".join(answer + "\n" for answer, _ in steps))    # then EOF: Ctrl-D
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert done.stdout.rstrip().endswith("Bye."), done.stdout[-500:]
    complaints = [line for _, line in steps if line]
    for line in set(complaints):
        assert done.stdout.count(line) == complaints.count(line), (line, done.stdout[-3000:])


@pytest.mark.parametrize("name", PLAYABLE)
def test_make_play_on_the_stubs_says_run_make_check(name, student_copy):
    steps = PLAYS.get(name, [])
    done = make("play", student_copy(name),
                stdin="".join(answer + "\n" for answer, _ in steps))
    assert done.returncode != 0
    assert "are not written yet: run `make check` to see which." in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_muehle_play_lists_moves_in_number_order_and_never_says_minus_zero(student_copy):
    done = make("play", with_reference("muehle", student_copy("muehle")), stdin="w\nfoo\n5\n")
    listed = re.search(r"Please answer with one of: (.*)\.", done.stdout).group(1).split(", ")
    assert listed == [str(p) for p in range(24)]
    values = re.findall(r"\(value ([-+]\d+\.\d+)\)", done.stdout)
    assert values and "-0.000" not in values


#: What `make play` shows beside the boards, so a move can be typed and the computer's
#: followed: negamax's coordinates, gametree's cell, muehle's point numbers by every board.
SHOWN = {"negamax": ("x:   0 1 2", 2), "gametree": ("The computer plays cell ", 1),
         "muehle": ("21----------22----------23", 2)}


@pytest.mark.parametrize("name", sorted(SHOWN))
def test_make_play_shows_how_moves_are_named_on_every_board(name, student_copy):
    done = make("play", with_reference(name, student_copy(name)),
                stdin="".join(answer + "\n" for answer, _ in PLAYS[name]))
    text, at_least = SHOWN[name]
    assert done.stdout.count(text) >= at_least, done.stdout[-3000:]

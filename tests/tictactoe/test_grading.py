"""Grade a corpus of correct, buggy and hostile tic-tac-toe submissions for real.

Each submission is the correct example `ada_alphabeta` with code added before
it (runs at import) or after it (replaces a function). Grading runs the real
`autograder grade` in a PID namespace; every verdict is asserted, and so is
that nothing outside the scratch copies changed.
"""

import hashlib
import json
import shutil
import socket
import threading
from pathlib import Path

import pytest

from tests.conftest import (ROOT, assert_blamed_only, bug_params, grade_folder, graded_bugs,
                            require_graded)
from tests.tictactoe import bugs
from tests.tictactoe.bugs import BUGS

CORRECT = (ROOT / "examples/tictactoe/ada_alphabeta/tictactoe.py").read_text()
FULL = 25


def _corpus(victim: Path, port: int) -> dict:
    """student -> (text before the module, text after it)."""
    return {
        "correct": ("", ""),
        "loop_at_import": ("while True:\n    pass\n", ""),
        "loop_in_minimax": ("", "def minimax(board):\n    while True:\n        pass\n"),
        "loops_on_open_boards": ("", "_minimax = minimax\ndef minimax(board):\n"
                                     "    if terminal(board):\n        return None\n"
                                     "    while True:\n        pass\n"),
        "exit_in_winner": ("", "import os\ndef winner(board):\n    os._exit(0)\n"),
        "sys_exit_in_player": ("", "import sys\ndef player(board):\n    sys.exit(1)\n"),
        "kills_parent": ("import os\ntry:\n    os.kill(os.getppid(), 9)\nexcept OSError:\n"
                         "    pass\n", ""),
        "kills_everyone": ("", "import os\n_minimax = minimax\ndef minimax(board):\n"
                               "    os.kill(-1, 9)\n    return _minimax(board)\n"),
        "fork_bomb": ("import os\nwhile True:\n    os.fork()\n", ""),
        "memory_bomb": ("", "def minimax(board):\n    hog = [0] * (10 ** 10)\n"
                            "    return hog\n"),
        "output_flood": ("for _ in range(200000):\n    print('spam ' * 40)\n", ""),
        "disk_fill": ("with open('filler.bin', 'wb') as f:\n    for _ in range(100):\n"
                      "        f.write(b'0' * (1 << 20))\n", ""),
        "reads_secrets": ("try:\n    SECRET = open('/etc/passwd').read()\nexcept OSError:\n"
                          "    SECRET = None\n", ""),
        "appends_outside": (f"try:\n    open({str(victim)!r}, 'a').write('pwned')\n"
                            "except OSError:\n    pass\n", ""),
        "phones_home": ("import socket\ntry:\n"
                        f"    socket.create_connection(('127.0.0.1', {port}), timeout=1)\n"
                        "except OSError:\n    pass\n", ""),
        "patches_builtins": ("import builtins, json\nbuiltins.sorted = lambda *a, **k: []\n"
                             "json.dumps = lambda *a, **k: '{\"ok\": true}'\n",
                             "def winner(board):\n    return None\n"),
        "lying_eq": ("", "class Yes(tuple):\n    def __eq__(self, other):\n        return True\n"
                         "    __hash__ = tuple.__hash__\n"
                         "def minimax(board):\n    return Yes((0, 0))\n"),
        "shallow_copy": ("", "def result(board, action):\n    i, j = action\n"
                             "    if not (0 <= i < 3 and 0 <= j < 3) or board[i][j] is not None:\n"
                             "        raise ValueError('bad')\n"
                             "    new = board[:]\n    new[i] = list(board[i])\n"
                             "    board[i][j] = player(board)\n    return new\n"),
        "syntax_error": ("def broken(:\n", ""),
        "player_not_written": ("", "def player(board):\n    raise NotImplementedError\n"),
        **{f"bug_{function}": ("", code) for function, (_, code) in BUGS.items()
           if function in graded_bugs(bugs)},
        # two bugs: result is judged again with the grader's player, and still fails
        "bug_player_and_result": ("", BUGS["player"][1] + BUGS["result"][1]),
    }


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("corpus")
    victim = root / "outside" / "victim.txt"
    victim.parent.mkdir()
    victim.write_text("untouched\n")
    server, connections = socket.socket(), []
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.2)
    stop = threading.Event()

    def accept():
        while not stop.is_set():
            try:
                connections.append(server.accept())
            except OSError:
                pass
    threading.Thread(target=accept, daemon=True).start()

    subs = root / "submissions"
    for name, (before, after) in _corpus(victim, server.getsockname()[1]).items():
        (subs / name).mkdir(parents=True)
        (subs / name / "tictactoe.py").write_text(before + CORRECT + "\n" + after)
    (subs / "empty").mkdir()
    (subs / "empty" / "tictactoe.py").write_text("")
    (subs / "nested_crlf" / "work" / "project0").mkdir(parents=True)
    (subs / "nested_crlf" / "work" / "project0" / "tictactoe.py").write_bytes(
        CORRECT.replace("\n", "\r\n").encode())
    (subs / "symlinked_module").mkdir()
    (subs / "symlinked_module" / "tictactoe.py").symlink_to("/etc/passwd")
    (subs / "linked_folder").symlink_to(root / "outside")
    (subs / "reads_through_symlink").mkdir()
    (subs / "reads_through_symlink" / "notes.txt").symlink_to("/etc/passwd")
    (subs / "reads_through_symlink" / "tictactoe.py").write_text(
        "try:\n    LEAK = open('notes.txt').read()\nexcept OSError:\n    LEAK = None\n" + CORRECT)
    for env in (".venv", "venv"):     # environments (with a copy of the module) are skipped
        site = subs / "with_environments" / env / "lib" / "python3.11" / "site-packages"
        site.mkdir(parents=True)
        (site / "tictactoe.py").write_text("def player(board):\n    return 'Z'\n")
        (site / "helper.py").write_text("")
    (subs / "with_environments" / "tictactoe.py").write_text(CORRECT)
    (subs / "two_copies" / "a").mkdir(parents=True)
    (subs / "two_copies" / "b").mkdir(parents=True)
    (subs / "two_copies" / "a" / "tictactoe.py").write_text(CORRECT)
    (subs / "two_copies" / "b" / "tictactoe.py").write_text(CORRECT)

    before = _fingerprint(subs)
    out = root / "out"
    rows = grade_folder("tictactoe", subs, out)
    stop.set()
    server.close()
    return {"rows": rows, "out": out, "victim": victim, "connections": connections,
            "subs": subs, "before": before}


def _fingerprint(folder: Path) -> dict:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and not p.is_symlink()}


def _results(graded, student):
    return json.loads((graded["out"] / student / "results.json").read_text())


def _failed(graded, student):
    return {t["number"] for t in _results(graded, student)["tests"] if t["status"] == "failed"}


def _feedback(graded, student):
    return (graded["out"] / student / "feedback.md").read_text()


def score(graded, student):
    return float(graded["rows"][student]["score"])


def test_every_student_has_a_row_and_a_report(graded):
    names = {p.name for p in graded["subs"].iterdir()}
    assert "linked_folder" in names
    assert set(graded["rows"]) == names
    for name in names:
        assert (graded["out"] / name / "feedback.html").is_file()
        assert _results(graded, name)["max_score"] == FULL


@pytest.mark.parametrize("student", ["correct", "nested_crlf", "kills_parent", "reads_secrets",
                                     "appends_outside", "phones_home", "output_flood",
                                     "reads_through_symlink", "with_environments"])
def test_correct_code_gets_full_marks_whatever_else_it_tries(graded, student):
    assert score(graded, student) == FULL, _feedback(graded, student)


@pytest.mark.parametrize("student, failing, words", [
    ("loop_in_minimax", {"test_minimax_on_finished_games", "test_minimax_endgames",
                         "test_minimax_openings", "test_minimax_with_your_own_helpers"},
     "s of CPU time; it was stopped in minimax"),
    ("exit_in_winner", {"test_winner"}, "exited with code 0"),
    ("sys_exit_in_player", {"test_player"}, "called exit(1)"),
    ("kills_everyone", {"test_minimax_endgames"}, "PermissionError"),
    ("memory_bomb", {"test_minimax_endgames"}, "used more than 512 MB of memory"),
    ("patches_builtins", {"test_winner"}, "winner returned the wrong player"),
    # a tuple subclass is sent as the tuple it is (its __eq__ never runs here): (0, 0),
    # judged like any answer
    ("lying_eq", {"test_minimax_endgames"}, "(0, 0) is not a free cell"),
    ("shallow_copy", {"test_result_keeps_its_input"}, "copy every row"),
])
def test_wrong_code_loses_points_for_the_right_reason(graded, student, failing, words):
    assert score(graded, student) < FULL
    assert failing <= _failed(graded, student)
    assert words in _feedback(graded, student)


@pytest.mark.parametrize("student, status, words", [
    ("loop_at_import", "import-error", "importing your module used more than"),
    ("fork_bomb", "import-error", "tried to start processes"),
    ("disk_fill", "import-error", "wrote a file larger than the sandbox allows"),
    ("syntax_error", "import-error", "does not parse"),
    ("symlinked_module", "missing", "symbolic link"),
    ("linked_folder", "missing", "submission folder is a symbolic link"),
    ("two_copies", "ambiguous", "appears 2 times"),
])
def test_code_that_cannot_run_scores_zero_with_one_clear_line(graded, student, status, words):
    row = graded["rows"][student]
    assert (row["status"], float(row["score"])) == (status, 0.0)
    assert words in row["message"]


def test_empty_file_scores_zero(graded):
    assert score(graded, "empty") == 0
    assert "tictactoe.py has no 'winner'" in _feedback(graded, "empty")


def test_nothing_outside_the_scratch_copies_changed(graded):
    assert graded["victim"].read_text() == "untouched\n"
    assert _fingerprint(graded["subs"]) == graded["before"]
    assert not graded["connections"], "a submission reached a server on the host"


def test_the_sandbox_names_what_it_refused(graded):
    assert "tried to open /etc/passwd" in _feedback(graded, "reads_secrets")
    assert "tried to open a network connection" in _feedback(graded, "phones_home")
    assert "tried to send a signal" in _feedback(graded, "kills_parent")
    assert "symbolic links are not copied" in _feedback(graded, "reads_through_symlink")


def test_output_is_capped_in_the_feedback(graded):
    feedback = _feedback(graded, "output_flood")
    assert "spam" in feedback and len(feedback) < 20000


def test_hidden_feedback_shows_no_expected_values(graded):
    text = _feedback(graded, "shallow_copy")
    assert "expected: (hidden test" in text


@pytest.mark.exhaustive     # make test-all (CI's budget)
def test_regrading_into_the_same_folder_gives_the_same_numbers(graded, tmp_path):
    subs = tmp_path / "subs"
    for name in ("correct", "lying_eq", "syntax_error", "exit_in_winner"):
        shutil.copytree(graded["subs"] / name, subs / name)
    first = grade_folder("tictactoe", subs, tmp_path / "out")
    # an earlier run's leftover (a file the grader writes) goes; a file of anyone else's
    # makes the folder not the kit's alone, so it stays (intake.graded_folder)
    (tmp_path / "out" / "correct" / "grader-error.txt").write_text("left from an earlier run")
    (tmp_path / "out" / "lying_eq" / "notes.txt").write_text("the teacher's")
    again = grade_folder("tictactoe", subs, tmp_path / "out")
    assert {k: (v["score"], v["status"]) for k, v in again.items()} == \
        {k: (v["score"], v["status"]) for k, v in first.items()} == \
        {k: (graded["rows"][k]["score"], graded["rows"][k]["status"]) for k in first}
    assert not (tmp_path / "out" / "correct" / "grader-error.txt").exists()
    assert (tmp_path / "out" / "lying_eq" / "notes.txt").read_text() == "the teacher's"


def _section(graded, student, title):
    """The feedback of one failed check: from its heading to the next one."""
    text = _feedback(graded, student)
    return text.split(f"### {title}\n", 1)[1].split("\n### ", 1)[0]


def test_a_call_that_raised_is_not_headed_as_a_wrong_answer(graded):
    """kills_everyone's minimax raises PermissionError (os.kill(-1) is refused)."""
    section = _section(graded, "kills_everyone", "minimax returns None when the game is over")
    assert "minimax gave no answer on a finished game" in section
    assert "returned a move" not in section and "raised PermissionError" in section


WHOLE_PROGRAM = ("your whole program: minimax with your own helpers picks an optimal move "
                 "on every position of the two checks above")


def test_feedback_says_when_a_failure_follows_from_an_earlier_one(graded):
    section = _section(graded, "shallow_copy", WHOLE_PROGRAM)
    assert "this may follow from an earlier failure" in section
    assert "result changed the board it was given" in section
    assert "minimax usually calls result: fix it first" in section
    # a wrong helper never makes a correct function look wrong where it is not
    assert "earlier failure" not in _feedback(graded, "correct")


def test_a_stubbed_helper_is_named_and_minimax_is_not_called_unwritten(graded):
    feedback = _feedback(graded, "player_not_written")
    assert "player is not implemented yet" in feedback
    minimax = _section(graded, "player_not_written", WHOLE_PROGRAM)
    assert "minimax is not implemented yet" not in minimax
    assert "earlier failure: player is not implemented yet" in minimax
    # judged with the grader's player, minimax itself keeps its points
    assert not {"test_minimax_endgames", "test_minimax_openings"} & _failed(graded,
                                                                            "player_not_written")


@pytest.mark.parametrize("function", bug_params(bugs))
def test_a_bug_costs_only_its_own_functions_points(graded, function):
    """Issue 22: one wrong function loses points in its own checks and in the
    whole-program check only; every other function is judged with the grader's
    helpers and keeps its points."""
    require_graded(bugs, function)
    assert_blamed_only("tictactoe", function, BUGS, _failed(graded, f"bug_{function}"))


def test_a_check_judged_with_the_graders_helpers_says_so(graded):
    section = _section(graded, "bug_result", "result never changes the board it was given "
                                             "(rows included)")
    assert "result's helpers (player) pass their own checks, so the mistake is in result " \
           "itself" in section
    # with a wrong player too, result judged with the grader's player still fails
    section = _section(graded, "bug_player_and_result", "result never changes the board it "
                                                        "was given (rows included)")
    assert "this check ran result with the grader's own player, so the mistake is in " \
           "result itself" in section
    assert _failed(graded, "bug_player_and_result") >= _failed(graded, "bug_result")
    section = _section(graded, "bug_winner", WHOLE_PROGRAM)
    assert "this may follow from an earlier failure: winner returned the wrong player" in section


def test_python_environments_in_a_submission_are_not_looked_at(graded):
    """A .venv or venv (with a stale copy of the module inside) neither makes the
    submission ambiguous nor shows up in the list of files not graded."""
    row = graded["rows"]["with_environments"]
    assert row["status"] == "graded" and float(row["score"]) == FULL
    assert "helper.py" not in _feedback(graded, "with_environments")


# ------------------------------------------------------------ the bundled examples
#: Correct submissions, the slow ones as real students write them (plain minimax, deep
#: copies, no table): full marks, since every limit is CPU time (issue 20).
CORRECT_EXAMPLES = ("ada_alphabeta", "bob_plain", "judy_nested", "lena_slow_deep_copies")


@pytest.mark.slow
@pytest.mark.parametrize("student", CORRECT_EXAMPLES)
def test_correct_examples_get_full_marks_slow_ones_too(graded_examples, student):
    rows, out = graded_examples("tictactoe")
    assert (rows[student]["status"], float(rows[student]["score"])) == ("graded", FULL), \
        (out / student / "feedback.md").read_text()


def test_the_slow_example_is_really_slow():
    """lena's minimax needs far more CPU time than the alpha-beta reference: the
    example stays a slow one (measured in this process)."""
    import importlib.util
    import time

    def load(name):
        spec = importlib.util.spec_from_file_location(
            f"_ttt_{name}", ROOT / "examples" / "tictactoe" / name / "tictactoe.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    board = [["X", None, None], [None, "O", None], [None, None, None]]
    used = {}
    for name in ("ada_alphabeta", "lena_slow_deep_copies"):
        module = load(name)
        started = time.process_time()
        module.minimax([list(row) for row in board])
        used[name] = time.process_time() - started
    assert used["lena_slow_deep_copies"] > 5 * used["ada_alphabeta"], used


def test_a_call_that_ran_out_of_cpu_time_is_told_the_work_it_needed(graded):
    """No endless loop needed: the feedback says how many positions plain minimax visits
    from the position shown (issue 20)."""
    section = _section(graded, "loops_on_open_boards",
                       "minimax picks an optimal move on every position with 4 marks and "
                       "sampled ones with 2 and 3")
    assert "used more than" in section and "of CPU time" in section
    assert "no endless loop needed to run out of time here: plain minimax" in section
    assert "positions from this one in the reference" in section
    first = _section(graded, "loop_in_minimax", "minimax returns None when the game is over")
    assert "the game is over on this board, so there is nothing to search" in first

"""`make check` names the function with the bug (issue 22).

For every assignment with a single-function bug corpus (tests/<name>/bugs.py),
each bug goes into a student copy and `make check` runs for real: the function
with the bug is not "ok", and every other row that is not "ok" names it ("may
follow from winner", "blocked by freeIn"). The table behind those words is the
assignment's [relies_on], the same one the hidden feedback uses. Also: one
function's checks alone (`make check F=name`) and the closing line when all pass.
"""

import importlib
import re
import shutil

import pytest

from autograder import assignment as assignments
from tests.conftest import ROOT
from tests.student.test_student_kit import make

WITH_BUGS = [name for name in assignments.names() if (ROOT / "tests" / name / "bugs.py").is_file()]
ROW = re.compile(r"^  (\S+)\s+(\d+)/(\d+)  (.+)$")


def corpus(name: str):
    return importlib.import_module(f"tests.{name}.bugs")


def bug_cases():
    """Every bug; outside tictactoe (the issue's own examples) only in make test-all
    (CI's budget: each is a make check of its own)."""
    return [pytest.param(name, function, marks=() if name == "tictactoe" else
                         pytest.mark.exhaustive)
            for name in WITH_BUGS for function in sorted(corpus(name).BUGS)]


def rows(output: str) -> dict[str, str]:
    """{function: verdict} from make check's summary table."""
    return {m[1]: m[4] for m in map(ROW.match, output.splitlines()) if m}


def student_with(name: str, folder, code: str = ""):
    bugs = corpus(name)
    shutil.copy(bugs.CORRECT / bugs.MODULE, folder / bugs.MODULE)
    if code:
        with open(folder / bugs.MODULE, "a", encoding="utf-8") as module:
            module.write("\n\n" + code)
    return folder


@pytest.mark.parametrize("name, function", bug_cases())
def test_make_check_names_the_function_with_the_bug(name, function, student_copy):
    """The bug's own row is not ok (unless bugs.py says why the public tests miss
    it), and no other row needs work without naming it."""
    bugs = corpus(name)
    what, code = bugs.BUGS[function]
    own = getattr(bugs, "ROWS", {}).get(function, (function,))
    output = make("check", student_with(name, student_copy(name), code)).stdout
    table = rows(output)
    assert table, output
    if function not in getattr(bugs, "PUBLIC_MISSES", {}):
        assert any(table.get(row, "ok") != "ok" for row in own), \
            f"{function} {what}: make check says ok\n{output}"
    for other, verdict in table.items():
        if other not in own and verdict != "ok":
            assert any(row in verdict for row in own), \
                f"{function} {what}: the row of {other} does not name it: {verdict!r}"


@pytest.mark.parametrize("name", WITH_BUGS)
def test_make_check_of_one_function_and_the_closing_line(name, student_copy):
    folder = student_with(name, student_copy(name))
    everything = make("check", folder).stdout
    assert "All public checks pass." in everything
    function = sorted(rows(everything))[0]
    one = make("check", folder, env={"F": function}).stdout
    assert list(rows(one)) == [function], one
    assert f"All public checks of {function} pass" in one
    unknown = make("check", folder, env={"F": "no_such_function"})
    assert unknown.returncode != 0
    said = unknown.stdout.strip().splitlines()
    assert said == ["No public test checks no_such_function, so no test ran.",
                    f"What to do: name one of the functions the public tests check: "
                    f"{', '.join(sorted(rows(everything)))}."], unknown.stdout


def test_an_endless_loop_in_a_helper_is_waited_for_once_and_named(student_copy):
    """An endless loop in player timed out result and minimax as well (15.7 s in all)
    without saying where it hung: now the functions that call player are not run
    after player ran out of time (one time limit is waited for, not three), and
    their rows say why."""
    folder = student_with("tictactoe", student_copy("tictactoe"),
                          "def player(board):\n    while True:\n        pass\n")
    ini = folder / "pytest.ini"
    ini.write_text(re.sub(r"^cpu_timeout = .*$", "cpu_timeout = 1", ini.read_text(), flags=re.M))
    done = make("check", folder)
    table = rows(done.stdout)
    assert table["player"] == "needs work", done.stdout
    assert "stopped in player (tictactoe.py, line" in done.stdout
    for caller in ("result", "minimax"):
        assert "player" in table[caller], (caller, table[caller])
    assert "not run: an earlier test of player (which result calls) timed out" in done.stdout
    assert done.stdout.count("used more than 1 s of CPU time") == 1, done.stdout


def test_an_error_raised_in_a_helper_shows_who_called_it(student_copy):
    """A wrong call in minimax failed inside a correct helper and was reported at the
    helper's line only: the frames of the student's file are listed, innermost first."""
    folder = student_copy("tictactoe")
    module = folder / "tictactoe.py"
    shutil.copy(ROOT / "solutions/tictactoe/tictactoe.py", module)
    text = module.read_text()
    wrong = text.replace("    if terminal(board):\n        return None\n    maximizing",
                         "    if terminal(None):\n        return None\n    maximizing", 1)
    assert wrong != text
    module.write_text(wrong)
    done = make("check", folder)
    assert re.search(r"raised TypeError: .* \(in tictactoe\.py, line \d+, in winner; called "
                     r"from terminal, line \d+; called from minimax, line \d+\)", done.stdout), \
        done.stdout


def test_a_search_that_asks_the_modules_rules_instead_of_the_game_is_named(student_copy):
    """maximize calling the module's terminal_test instead of game.terminal_test passed
    every public test (they searched tic-tac-toe, where the two agree) and showed up,
    if at all, in minimize's row: a search on a game tree of the test's own now fails
    maximize's row, and nothing else needs work."""
    folder = student_copy("gametree")
    module = folder / "gametree.py"
    shutil.copy(ROOT / "solutions/gametree/gametree.py", module)
    text = module.read_text()
    start = text.index("def maximize(state")
    cut = text.index("game.terminal_test(state)", start)
    module.write_text(text[:cut] + text[cut:].replace("game.terminal_test(state)",
                                                      "terminal_test(state)", 1))
    done = make("check", folder)
    table = rows(done.stdout)
    assert table["maximize"] == "needs work", done.stdout
    assert "maximize (test_maximize_asks_the_game)" in done.stdout
    assert "are leaves found with game.terminal_test?" in done.stdout
    assert {f for f, verdict in table.items() if verdict != "ok"} == {"maximize"}, done.stdout

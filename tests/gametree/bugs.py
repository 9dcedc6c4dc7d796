"""Single-function bugs in gametree (issue 22), each appended to the correct example.

The format of tests/tictactoe/bugs.py (MODULE, CORRECT, BUGS = {function: (what
is wrong, code appended to the module)}, QUICK, ROWS, PUBLIC_MISSES). Each bug
is one function of the reference with a text edit (`edited`), so the bugs never
drift from the reference. examples_build.py writes each one as
examples/gametree/bug_<function>, or it is an older example already
(`EXAMPLES`: graded anyway, so asserting it costs no grading), and
tests/gametree/test_grading.py asserts that each costs only its own function's
checks and the rubric's whole-program check.

"minimax" is maximize and minimize, "alphabeta" maximize_ab and minimize_ab:
they call each other, so the hidden suite judges each pair together
(test_minimax_*, test_alphabeta_*), always on games of the grader's.
"""

from tests.conftest import ROOT
from tests.gametree.examples_build import REFERENCE, strip_markers

MODULE = "gametree.py"
CORRECT = ROOT / "examples/gametree/ada_reference"
SOURCE = strip_markers(REFERENCE.read_text(encoding="utf-8"))


def edited(name: str, *edits) -> str:
    """The reference's function `name` with text edits (old, new), each made once:
    appended to the correct module, it replaces that function."""
    start = SOURCE.index(f"\ndef {name}(") + 1
    end = SOURCE.find("\n\n\n", start)
    text = SOURCE[start:end if end >= 0 else None].rstrip("\n") + "\n"
    for old, new in edits:
        if text.count(old) != 1:
            raise ValueError(f"{name}: the edit target occurs {text.count(old)} times: {old!r}")
        text = text.replace(old, new)
    return text


#: The older examples that are one of these bugs (the rest are bug_<function>).
EXAMPLES = {"alphabeta": "dan_off_by_one", "computer_move": "ivan_ignores_book",
            "opening_book_4x4": "heidi_losing_book", "solve": "judy_wrong_table_bound"}

#: The bugs `make test` grades (EXAMPLES' are graded anyway, so winning_lines, whose
#: bug is judged again in evaluation, terminal_test and solve, is the one grading it
#: adds); make test-all grades all.
QUICK = ("winning_lines", *EXAMPLES)

# one realistic bug in one function at a time
BUGS = {
    "winning_lines": ("misses the diagonals running down to the left", edited(
        "winning_lines", ("((0, 1), (1, 0), (1, 1), (1, -1))", "((0, 1), (1, 0), (1, 1))"))),
    "nextstates": ("never offers the last cell of the board", edited(
        "nextstates", ("range(game.cells)", "range(game.cells - 1)"))),
    "evaluation": ("never sees a line of o (x's cells are tested twice)", edited(
        "evaluation", ("if any(line <= o_cells", "if any(line <= x_cells"))),
    "terminal_test": ("ignores a full board", edited(
        "terminal_test", ("len(state) >= game.cells or ", ""))),
    "minimax": ("minimize replaces its best child on equal values too (<=): it returns "
                "the last of equally good children", edited(
                    "minimize", ("if value < best_value:", "if value <= best_value:"))),
    "alphabeta": ("the depth limit stops one ply too late (bremse < 0 instead of "
                  "bremse == 0)", "".join(
                      edited(name, ("if bremse <= 0 or", "if bremse < 0 or")) + "\n\n"
                      for name in ("maximize_ab", "minimize_ab"))),
    "computer_move": ("searches even where the book has an answer", edited(
        "computer_move", ("    if book is not None and tuple(state) in book:\n"
                          "        return list(book[tuple(state)])\n", ""))),
    "opening_book_4x4": ("one book move of x throws the win away",
                         "_BOOK_4X4 = {**_BOOK_4X4, (5, 6): 0}\n"),
    "solve": ("stores 2 as the lower bound of an immediate win: right with a fresh table, "
              "wrong once the same table is passed again", edited(
                  "_negamax", ("            table[key] = (1, 1)\n            return 1\n",
                               "            table[key] = (2, 1)\n            return 1\n"))),
}

#: The make check rows of a bug's function (the pairs are two rows each).
ROWS = {"minimax": ("maximize", "minimize"), "alphabeta": ("maximize_ab", "minimize_ab")}

#: Bugs the few literal public tests do not catch (the hidden suite does), with why.
PUBLIC_MISSES = {
    "opening_book_4x4": "the public test checks the book's shape; whether a move keeps "
                        "the win takes a solver",
}


def source(function: str) -> str:
    """The correct example with the bug in `function`."""
    return (CORRECT / MODULE).read_text(encoding="utf-8") + "\n\n" + BUGS[function][1]


def folder_name(function: str) -> str:
    """The example folder (in examples/gametree) that holds the bug in `function`."""
    return EXAMPLES.get(function, f"bug_{function}")

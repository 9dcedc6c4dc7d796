"""The example submissions in examples/gametree/, generated from the reference.

Each example is `solutions/gametree/gametree.py` without the nbgrader markers
(as a student would hand it in) with one deliberate bug made by the text
edits below, so the examples never drift from the reference. A kit test
checks that every examples/gametree/<name>/gametree.py is exactly what
`build(name)` produces; after changing the reference, run

    .venv/bin/python tests/gametree/examples_build.py

`EXAMPLES[name].fails` names the hidden tests the bug must fail (the kit test
grades the folder for real and asserts them), `.phrase` a piece of text the
feedback of the first of them must contain (the reason), and `.keeps` hidden
tests it must still pass (so the points are lost for that reason, not another).

The single-function bugs of tests/gametree/bugs.py (issue 22) are examples too:
bug_<function>, the reference with the bug's code appended (`bug_examples`),
except those an example above already is (bugs.EXAMPLES).
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
REFERENCE = ROOT / "solutions" / "gametree" / "gametree.py"
EXAMPLES_DIR = ROOT / "examples" / "gametree"
MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")

VALUE_TESTS = ("test_alphabeta_values_3x3", "test_alphabeta_values_bigger_boards")

_CUT_MAX = ("        if best_value >= beta:\n"
            "            if stats is not None:\n"
            "                stats.prunings += 1\n"
            "            break\n")
_CUT_MIN = _CUT_MAX.replace("best_value >= beta", "best_value <= alpha")

_HEAD = ("    if bremse <= 0 or game.terminal_test(state):\n"
         "        if stats is not None:\n"
         "            stats.evaluations += 1\n"
         "        return None, game.evaluation(state)\n"
         "    if stats is not None:\n"
         "        stats.expanded += 1\n"
         "    best_state, best_value = None, {start}\n"
         "    for child in game.nextstates(state):\n")
_HEAD_NO_TERMINAL = ("    if bremse <= 0:\n"
                     "        if stats is not None:\n"
                     "            stats.evaluations += 1\n"
                     "        return None, game.evaluation(state)\n"
                     "    children = game.nextstates(state)\n"
                     "    if not children:  # only a full board ends the search\n"
                     "        if stats is not None:\n"
                     "            stats.evaluations += 1\n"
                     "        return None, game.evaluation(state)\n"
                     "    if stats is not None:\n"
                     "        stats.expanded += 1\n"
                     "    best_state, best_value = None, {start}\n"
                     "    for child in children:\n")
_HEAD_EVAL_FIRST = ("    value = game.evaluation(state)  # a win ends the search at once\n"
                    "    if bremse <= 0 or value != 0 or game.terminal_test(state):\n"
                    "        if stats is not None:\n"
                    "            stats.evaluations += 1\n"
                    "        return None, value\n"
                    "    if stats is not None:\n"
                    "        stats.expanded += 1\n"
                    "    best_state, best_value = None, {start}\n"
                    "    for child in game.nextstates(state):\n")


def _both(template_old, template_new):
    return tuple((template_old.format(start=s), template_new.format(start=s))
                 for s in ("-inf", "inf"))


@dataclass(frozen=True)
class Example:
    bug: str
    edits: tuple = ()     # (old, new) or (old, new, how many times old occurs)
    fails: tuple = ()
    phrase: str = ""
    keeps: tuple = ()
    extra: dict = field(default_factory=dict)   # more files: name -> text


EXAMPLES = {
    "ada_reference": Example("none: the reference as a student would hand it in"),
    "bob_no_pruning": Example(
        "plain minimax handed in as alpha-beta: the window is kept, nothing is cut",
        ((_CUT_MAX, ""), (_CUT_MIN, "")),
        fails=("test_alphabeta_prunes_like_the_reference", "test_alphabeta_work_on_positions"),
        phrase="evaluation calls", keeps=VALUE_TESTS + ("test_minimax_values",)),
    "carol_strict_cut": Example(
        "cuts on best > beta and best < alpha: a bound that is only reached is not cut",
        (("        if best_value >= beta:\n", "        if best_value > beta:\n"),
         ("        if best_value <= alpha:\n", "        if best_value < alpha:\n")),
        fails=("test_alphabeta_cuts_on_ties",), phrase="game call", keeps=VALUE_TESTS),
    "dan_off_by_one": Example(
        "the depth limit stops one ply too late (bremse < 0 instead of bremse == 0)",
        (("    if bremse <= 0 or game.terminal_test(state):\n",
          "    if bremse < 0 or game.terminal_test(state):\n", 2),),
        fails=("test_alphabeta_depth_limit",), phrase="depth limit"),
    "erin_flipped_evaluation": Example(
        "evaluation has its sign flipped: a line of x is worth -1, a line of o 1",
        (("    if any(line <= x_cells for line in lines):\n        return 1\n"
          "    if any(line <= o_cells for line in lines):\n        return -1\n",
          "    if any(line <= x_cells for line in lines):\n        return -1\n"
          "    if any(line <= o_cells for line in lines):\n        return 1\n"),),
        fails=("test_evaluation",), phrase="evaluation", keeps=VALUE_TESTS),
    "frank_past_decided": Example(
        "the search ignores terminal_test and goes on after a line, until the board is full",
        _both(_HEAD, _HEAD_NO_TERMINAL),
        fails=("test_alphabeta_stops_at_decided_games",), phrase="decided"),
    "grace_evaluates_everywhere": Example(
        "calls evaluation at every node to look for a win, above the depth limit too",
        _both(_HEAD, _HEAD_EVAL_FIRST),
        fails=("test_alphabeta_depth_limit",), phrase="evaluat"),
    "heidi_losing_book": Example(
        "one opening-book move of x throws the win away",
        (("(5, 6): 9,", "(5, 6): 0,"),),
        fails=("test_opening_book_4x4",), phrase="value",
        keeps=VALUE_TESTS + ("test_computer_move_uses_the_book",)),
    "judy_wrong_table_bound": Example(
        "solve stores 2 as the lower bound of an immediate win: right with a fresh table, "
        "wrong (2) once the same table is passed again (issue 12)",
        (("            table[key] = (1, 1)\n            return 1\n",
          "            table[key] = (2, 1)\n            return 1\n"),),
        fails=("test_solve_reuses_its_table",), phrase="reused table",
        keeps=("test_solve", "test_opening_book_4x4")),
    "kim_named_results": Example(
        "none: the searches return a namedtuple Result(best_state, value), a tuple by "
        "another name, as the handout's 'a pair' allows (full marks)",
        (("inf = math.inf\n", "inf = math.inf\nResult = namedtuple(\"Result\", "
          "[\"best_state\", \"value\"])\n"),
         ("from dataclasses import dataclass\n",
          "from collections import namedtuple\nfrom dataclasses import dataclass\n"),
         ("        return None, game.evaluation(state)\n",
          "        return Result(None, game.evaluation(state))\n", 4),
         ("    return best_state, best_value\n", "    return Result(best_state, best_value)\n",
          4))),
    "lara_shares_the_book": Example(
        "computer_move returns the book's own list, where the docstring asks for a copy: "
        "whoever changes the move changes the book (issue 41)",
        (("        return list(book[tuple(state)])\n",
          "        return book[tuple(state)]\n"),),
        fails=("test_computer_move_uses_the_book",), phrase="book's own list",
        keeps=("test_computer_move_keeps_the_value", "test_opening_book_4x4")),
    "ivan_ignores_book": Example(
        "computer_move searches even where the book has an answer",
        (("    if book is not None and tuple(state) in book:\n"
          "        return list(book[tuple(state)])\n", ""),),
        fails=("test_computer_move_uses_the_book",), phrase="book",
        keeps=("test_computer_move_keeps_the_value", "test_opening_book_4x4")),
}


def strip_markers(text: str) -> str:
    return "".join(line for line in text.splitlines(keepends=True)
                   if line.strip() not in MARKERS)


def build(name: str) -> str:
    """The source of example `name`: the reference without markers, with its edits."""
    text = strip_markers(REFERENCE.read_text(encoding="utf-8"))
    for old, new, *times in EXAMPLES[name].edits:
        times = times[0] if times else 1
        if text.count(old) != times:
            raise ValueError(f"{name}: edit target occurs {text.count(old)} times, "
                             f"not {times}: {old!r}")
        text = text.replace(old, new)
    return text


def bug_examples() -> dict[str, str]:
    """{bug_<function>: module text} for the single-function bugs of bugs.py."""
    from tests.gametree import bugs
    correct = build("ada_reference")
    return {f"bug_{function}": correct + "\n\n" + code
            for function, (_, code) in bugs.BUGS.items() if function not in bugs.EXAMPLES}


def path_of(name: str) -> Path:
    return EXAMPLES_DIR / name / "gametree.py"


def regenerate() -> None:
    texts = {name: build(name) for name in EXAMPLES} | bug_examples()
    for name, text in texts.items():
        path_of(name).parent.mkdir(parents=True, exist_ok=True)
        path_of(name).write_text(text, encoding="utf-8")


def load(name: str):
    """Import example `name` under a private module name."""
    spec = importlib.util.spec_from_file_location(f"spielbaum_gametree_example_{name}",
                                                  path_of(name))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


if __name__ == "__main__":
    import sys
    sys.path.insert(0, str(ROOT))
    regenerate()
    print(f"wrote {len(EXAMPLES) + len(bug_examples())} examples to {EXAMPLES_DIR}")

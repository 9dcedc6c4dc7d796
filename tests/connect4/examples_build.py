"""Rebuild examples/connect4/ from the reference: one deliberate bug per student.

    .venv/bin/python tests/connect4/examples_build.py

Each example is the reference with its solution markers removed and one
textual change (asserted to apply exactly), so every wrong submission loses
points for exactly one reason; tests/connect4/test_grading.py names the
hidden test each one must fail. kim_untouched is the released skeleton.

The single-function bugs of tests/connect4/bugs.py are examples too (issue 22):
the reference with the bug's code appended, in bugs.EXAMPLES[function] (four
older examples: ivan_top_down, frank_no_antidiagonals, carol_wrong_cut,
grace_endless_deepening) or bug_<function>.
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "examples" / "connect4"
sys.path.insert(0, str(ROOT))
from tests.connect4 import bugs  # noqa: E402

# student -> [(old, new, count)]
CHANGES = {
    "ada_reference": [],
    "bob_no_pruning": [
        ("        if best_value >= beta:\n            if stats is not None:\n"
         "                stats.prunings += 1\n            break\n", "", 1),
        ("        if best_value <= alpha:\n            if stats is not None:\n"
         "                stats.prunings += 1\n            break\n", "", 1),
    ],
    "dan_off_by_one": [
        ("    if bremse == 0 or terminal_test(state, evaluation):",
         "    if bremse < 0 or terminal_test(state, evaluation):", 2),
    ],
    "eve_past_won_games": [
        ("    if bremse == 0 or terminal_test(state, evaluation):",
         "    if bremse == 0 or len(state) == CELLS:", 2),
    ],
    "heidi_losing_book": [
        ("    (): [38],\n", "    (): [35],\n", 1),
    ],
    "lena_own_rules": [
        # a correct alpha-beta that binds nextstates at import: the grader's games
        # never reach it, so it searches real Connect 4 where it is given another game
        ("def terminal_test(state, evaluation=None):",
         "_own_nextstates = nextstates   # bound once, at import\n\n\n"
         "def terminal_test(state, evaluation=None):", 1),
        ("    children = nextstates(state)\n", "    children = _own_nextstates(state)\n", 2),
    ],
    # correct, in other words: namedtuples for the pairs and triples the handout asks for
    # (a tuple by another name: sent as a tuple, full marks)
    "mia_named_results": [
        ("import math\n", "import math\nfrom collections import namedtuple\n", 1),
        ("WIN = 10000\n", "WIN = 10000\nFound = namedtuple(\"Found\", \"best_state value\")\n"
         "Deepened = namedtuple(\"Deepened\", \"best_state value bremse\")\n"
         "Played = namedtuple(\"Played\", \"state result\")\n", 1),
        ("        return None, evaluation(state)\n",
         "        return Found(None, evaluation(state))\n", 2),
        ("    return best_state, best_value\n", "    return Found(best_state, best_value)\n", 2),
        ("    return best[0], best[1], done\n", "    return Deepened(best[0], best[1], done)\n", 1),
        ("    return state, (1 if value >= WIN else -1 if value <= -WIN else 0)\n",
         "    return Played(state, (1 if value >= WIN else -1 if value <= -WIN else 0))\n", 1),
    ],
    # correct but slow, as students write it: every line scored pattern by pattern on
    # every call, nothing remembered (the reference keeps a table per line)
    "nora_slow_but_correct": [
        ("        entry = table.get(line)\n        if entry is None:\n"
         "            entry = table[line] = _score_line(line, weights)\n",
         "        entry = _score_line(line, weights)\n", 1),
    ],
    # issue 41: sentences of the specification every earlier check let pass
    "olga_terminal_first": [
        # terminal_test before the depth limit: the README says bremse == 0 comes first
        ("    if bremse == 0 or terminal_test(state, evaluation):",
         "    if terminal_test(state, evaluation) or bremse == 0:", 2),
    ],
    "pia_shares_the_book": [
        # the book's own list, where the docstring says "a new list, never the book's own"
        ("    return None if successor is None else list(successor)\n",
         "    return successor\n", 1),
    ],
    "quinn_forgets_the_best": [
        # iterative deepening that ignores the previous depth's best child at the root
        ("        result = search(state, done + 1, timed_evaluation, stats, ordering)\n",
         "        result = search(state, done + 1, timed_evaluation, stats, order)\n", 1),
    ],
    "judy_hostile": [
        ('    """\n    if not children:\n        return []\n',
         '    """\n    while True:\n        pass\n', 1),
        ("    name_a, name_b = names\n",
         "    import os\n    os.fork()\n    os.kill(os.getppid(), 9)\n"
         "    name_a, name_b = names\n", 1),
    ],
}


def reference_text():
    source = (ROOT / "solutions" / "connect4" / "connect4.py").read_text()
    return "\n".join(line for line in source.splitlines()
                     if line.strip() not in ("### BEGIN SOLUTION", "### END SOLUTION")) + "\n"


def bug_examples(base: str) -> dict[str, str]:
    """{example folder: module text} for every single-function bug."""
    return {bugs.EXAMPLES.get(function, f"bug_{function}"):
            f"{base}\n\n# {function} {what}\n{code}"
            for function, (what, code) in bugs.BUGS.items()}


def main():
    base = reference_text()
    for student, text in bug_examples(base).items():
        folder = OUT / student
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "connect4.py").write_text(text)
    for student, changes in CHANGES.items():
        text = base
        for old, new, count in changes:
            assert text.count(old) == count, (student, old, text.count(old))
            text = text.replace(old, new)
        folder = OUT / student
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "connect4.py").write_text(text)
    skeleton = ROOT / "assignments" / "connect4" / "connect4.py"
    (OUT / "kim_untouched").mkdir(parents=True, exist_ok=True)
    (OUT / "kim_untouched" / "connect4.py").write_text(skeleton.read_text())


if __name__ == "__main__":
    main()

"""Rebuild examples/connect4/ from the reference: one deliberate bug per student.

    .venv/bin/python tests/connect4/examples_build.py

Each example is the reference with its solution markers removed and one
textual change (asserted to apply exactly), so every wrong submission loses
points for exactly one reason; tests/connect4/test_grading.py names the
hidden test each one must fail. kim_untouched is the released skeleton.
"""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "examples" / "connect4"

# student -> [(old, new, count)]
CHANGES = {
    "ada_reference": [],
    "bob_no_pruning": [
        ("        if best_value >= beta:\n            if stats is not None:\n"
         "                stats.prunings += 1\n            break\n", "", 1),
        ("        if best_value <= alpha:\n            if stats is not None:\n"
         "                stats.prunings += 1\n            break\n", "", 1),
    ],
    "carol_wrong_cut": [
        ("if best_value >= beta:", "if best_value > beta:", 1),
        ("if best_value <= alpha:", "if best_value < alpha:", 1),
    ],
    "dan_off_by_one": [
        ("    if bremse == 0 or terminal_test(state, evaluation):",
         "    if bremse < 0 or terminal_test(state, evaluation):", 2),
    ],
    "eve_past_won_games": [
        ("    if bremse == 0 or terminal_test(state, evaluation):",
         "    if bremse == 0 or len(state) == CELLS:", 2),
    ],
    "frank_no_antidiagonals": [
        ("    found += [walk(s, -1) for s in (3, 4, 5, 6, 13, 20)]\n", "", 1),
    ],
    "grace_endless_deepening": [
        ("            raise SearchTimeout\n", "            pass\n", 1),
        ("while done < limit and abs(best[1]) < WIN and clock() - start < budget:",
         "while done < limit and abs(best[1]) < WIN:", 1),
    ],
    "heidi_losing_book": [
        ("    (): [38],\n", "    (): [35],\n", 1),
    ],
    "ivan_top_down": [
        ("    for cell in _COLUMN_CELLS[i]:", "    for cell in reversed(_COLUMN_CELLS[i]):", 1),
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


def main():
    base = reference_text()
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

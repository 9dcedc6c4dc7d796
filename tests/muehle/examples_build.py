"""Rebuild examples/muehle/ from the reference: one deliberate bug per student.

    .venv/bin/python tests/muehle/examples_build.py

Each example is the reference with its solution markers removed and one textual
change (asserted to apply exactly), so every wrong submission loses points for
one reason; tests/muehle/test_grading.py names the hidden tests each one must
fail, and checks that the files are what this script writes.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "solutions" / "muehle" / "muehle.py"
OUT = ROOT / "examples" / "muehle"
MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")

# student -> [(old, new, count)]
CHANGES = {
    "ada_correct": [],
    "bob_no_flying": [
        ("        flying = board.count(player) == 3",
         "        flying = False   # forgot: three stones may fly", 1),
    ],
    "carol_takes_from_mills": [
        ("    return free if free else stones", "    return stones   # any stone, mills or not", 1),
    ],
    "dave_key_without_depth": [
        ("        if args in cache:\n            return cache[args]\n",
         "        key = args[:2]   # state and player\n        if key in cache:\n"
         "            return cache[key]\n", 1),
        ("        cache[args] = result", "        cache[key] = result", 1),
    ],
    "erin_window_blind_cache": [
        ("        if a <= alpha and beta <= b:\n            return value\n"
         "        alpha, beta = min(alpha, a), max(beta, b)\n", "        return value\n", 1),
    ],
    "frank_no_move_ordering": [
        ("    successors.sort(key=lambda s: get_order_value(s, other, depth - 1))\n", "", 1),
    ],
    "grace_no_deepening": [
        ("    for d in range(depth):", "    for d in [depth - 1]:   # straight to the full depth", 1),
    ],
    "heidi_no_cutoff": [
        ("        if value >= beta:\n            return value\n", "", 1),
    ],
    "ivan_endless_minimax": [
        ("    rng = random if rng is None else rng\n",
         "    rng = random if rng is None else rng\n    while True:\n        pass\n", 1),
    ],
    # issue 12: the edges of _has_move, and the root window of best_move_ab
    "judy_one_in_hand_is_stuck": [
        ("    if in_hand[player - 1] > 0 or board.count(player) == 3:",
         "    if in_hand[player - 1] > 1 or board.count(player) == 3:", 1),
    ],
    "kim_forgets_the_last_point": [
        ("               for p in range(24))\n", "               for p in range(23))\n", 1),
    ],
    "leo_root_alpha_never_rises": [
        ("            alpha = max(alpha, entry[1])\n", "", 1),
    ],
    "mia_root_alpha_too_low": [
        ("        alpha = -1\n        for entry in scored:", "        alpha = -2\n        for entry in scored:",
         1),
    ],
    # issue 10: right board, wrong counters
    "nick_quiet_kept_after_removal": [
        ("            result.append([removed, list(hand), 0])",
         "            result.append([removed, list(hand), count])", 1),
    ],
    # a cut-off one step late: on > instead of >=
    "olga_cuts_late": [
        ("        if value >= beta:\n            return value\n",
         "        if value > beta:\n            return value\n", 1),
    ],
}


def plain_reference() -> str:
    """The reference as a student hands it in: without nbgrader's markers."""
    lines = REFERENCE.read_text(encoding="utf-8").splitlines(keepends=True)
    return "".join(line for line in lines if line.strip() not in MARKERS)


def build(student: str) -> str:
    text = plain_reference()
    for old, new, count in CHANGES[student]:
        found = text.count(old)
        assert found == count, f"{student}: {old!r} occurs {found} times, not {count}"
        text = text.replace(old, new)
    return text


def main() -> None:
    for student in CHANGES:
        folder = OUT / student
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "muehle.py").write_text(build(student), encoding="utf-8")
        print(f"wrote {folder.relative_to(ROOT)}/muehle.py")


if __name__ == "__main__":
    main()

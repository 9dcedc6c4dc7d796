"""Rebuild examples/muehle/ from the reference: one deliberate bug per student.

    .venv/bin/python tests/muehle/examples_build.py

Each example is the reference with its solution markers removed and one textual
change (asserted to apply exactly), so every wrong submission loses points for
one reason; tests/muehle/test_grading.py names the hidden tests each one must
fail, and checks that the files are what this script writes.

The single-function bugs of tests/muehle/bugs.py (issue 22) are examples too:
bugs.EXAMPLES[function] (two older examples are such bugs) or bug_<function>, the
correct example with the bug's code appended, graded with the others in one batch
(make test grades only the older ones, bugs.QUICK).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from tests.muehle import bugs  # noqa: E402
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
    # issue 41: sentences no check enforced before
    "quentin_shares_the_lists": [
        # to_list hands back the state's own board and hand when given the list form
        ("    board, in_hand, quiet = state\n    return [list(board), list(in_hand), quiet]\n",
         "    board, in_hand, quiet = state\n"
         "    return [board if type(board) is list else list(board),\n"
         "            in_hand if type(in_hand) is list else list(in_hand), quiet]\n", 1),
    ],
    "rosa_cached_heuristic": [
        # the heuristic memoised by its arguments: a state in list form is unhashable
        ("def heuristic(state, player):\n",
         "@functools.lru_cache(maxsize=None)\ndef heuristic(state, player):\n", 1),
    ],
    "ivan_endless_minimax": [
        ("    rng = random if rng is None else rng\n",
         "    rng = random if rng is None else rng\n    while True:\n        pass\n", 1),
    ],
    # correct, in other words than the reference: must get every point too
    # correct in other words too: the players an IntEnum, the pairs (value, successor) a
    # namedtuple, the states a list subclass: sent as their base values (issue 18)
    "paul_named_results": [
        ("import random\n", "import random\nfrom collections import namedtuple\n"
         "from enum import IntEnum\n", 1),
        ("EMPTY, WHITE, BLACK = 0, 1, 2\n",
         "class Stone(IntEnum):\n    EMPTY = 0\n    WHITE = 1\n    BLACK = 2\n\n\n"
         "EMPTY, WHITE, BLACK = Stone.EMPTY, Stone.WHITE, Stone.BLACK\n"
         "Move = namedtuple(\"Move\", \"value successor\")\n", 1),
        ("    return value, rng.choice(best)\n", "    return Move(value, rng.choice(best))\n", 1),
        ("    return scored[0][1], scored[0][0]\n",
         "    return Move(scored[0][1], scored[0][0])\n", 1),
    ],
    "zoe_correct_in_other_words": [
        ("""        if args in cache:
            return cache[args]
        result = f(*args)
        cache[args] = result
        return result
""", """        try:
            return cache[args]
        except KeyError:
            cache[args] = f(*args)
            return cache[args]
""", 1),
        ("""    other = opponent(player)
    return max(-value_minimax(to_tuple(s), other, depth - 1)
               for s in next_states(state, player))
""", """    best = -1
    for s in next_states(state, player):
        best = max(best, -value_minimax(to_tuple(s), opponent(player), depth - 1))
    return best
""", 1),
        ("""    rng = random if rng is None else rng
    value = value_minimax(to_tuple(state), player, depth)
    other = opponent(player)
    best = [s for s in next_states(state, player)
            if -value_minimax(to_tuple(s), other, depth - 1) == value]
    return value, rng.choice(best)
""", """    successors = next_states(state, player)
    values = [-value_minimax(to_tuple(s), opponent(player), depth - 1) for s in successors]
    value = max(values)
    best = [s for s, v in zip(successors, values) if v == value]
    return value, (rng or random).choice(best)
""", 1),
        ("""    entry = AB_CACHE.get(key)
    if entry is not None:
        value, a, b = entry
        if a <= alpha and beta <= b:
            return value
        alpha, beta = min(alpha, a), max(beta, b)
    value = alpha_beta(state, player, alpha, beta, depth)
    AB_CACHE[key] = (value, alpha, beta)
    return value
""", """    if key in AB_CACHE:
        value, a, b = AB_CACHE[key]
        if a <= alpha and beta <= b:
            return value
        alpha, beta = min(alpha, a), max(beta, b)
    AB_CACHE[key] = (alpha_beta(state, player, alpha, beta, depth), alpha, beta)
    return AB_CACHE[key][0]
""", 1),
        ("""    entry = AB_CACHE.get((to_tuple(state), player, depth - 1))
    return 0 if entry is None else entry[0]
""", """    return AB_CACHE.get((to_tuple(state), player, depth - 1), (0,))[0]
""", 1),
        ("""    successors = next_states(state, player)
    successors.sort(key=lambda s: get_order_value(s, other, depth - 1))
    value = alpha
    for s in successors:
        value = max(value, -value_ab(s, other, -beta, -alpha, depth - 1))
        if value >= beta:
            return value
        alpha = max(alpha, value)
    return value
""", """    value = alpha
    for s in sorted(next_states(state, player),
                    key=lambda s: get_order_value(s, other, depth - 1)):
        value = max(value, -value_ab(s, other, -beta, -alpha, depth - 1))
        if value >= beta:
            break
        if value > alpha:
            alpha = value
    return value
""", 1),
        ("""    other = opponent(player)
    scored = [[s, 0] for s in next_states(state, player)]
    for d in range(depth):
        alpha = -1
        for entry in scored:
            entry[1] = -value_ab(entry[0], other, -1, -alpha, d)
            alpha = max(alpha, entry[1])
        scored.sort(key=lambda entry: entry[1], reverse=True)
    return scored[0][1], scored[0][0]
""", """    order = next_states(state, player)
    for d in range(depth):
        alpha, values = -1, []
        for s in order:
            values.append(-value_ab(s, opponent(player), -1, -alpha, d))
            alpha = max(alpha, values[-1])
        ranked = sorted(zip(order, values), key=lambda pair: -pair[1])
        order = [s for s, _ in ranked]
    return ranked[0][1], ranked[0][0]
""", 1),
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


def bug_examples() -> dict[str, str]:
    """{example folder: module text} for the single-function bugs of bugs.py that are
    not older examples (bugs.EXAMPLES)."""
    base = (bugs.CORRECT / bugs.MODULE).read_text(encoding="utf-8")
    return {f"bug_{function}": f"{base}\n\n# {function} {what}\n{code}"
            for function, (what, code) in bugs.BUGS.items() if function not in bugs.EXAMPLES}


def build(student: str) -> str:
    if student.startswith("bug_"):
        return bug_examples()[student]
    text = plain_reference()
    for old, new, count in CHANGES[student]:
        found = text.count(old)
        assert found == count, f"{student}: {old!r} occurs {found} times, not {count}"
        text = text.replace(old, new)
    return text


def main() -> None:
    for student in [*CHANGES, *bug_examples()]:
        folder = OUT / student
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "muehle.py").write_text(build(student), encoding="utf-8")
        print(f"wrote {folder.relative_to(ROOT)}/muehle.py")


if __name__ == "__main__":
    main()

"""Rebuild autograder/suites/connect4/tactics.json: positions for the connect4 tactics
checks, judged by the solver (a build script, never run while grading).

    .venv/bin/python tests/connect4/tactics_build.py

Three kinds of positions, found by seeded random play (no move that lets the
opponent win at once), each with the set of columns that keep the game value
(weak: win / draw / loss), computed by solver.py:

* win1   the player to move can win at once;
* block  the opponent threatens to win at once in exactly one playable cell,
         the player to move cannot win at once and is not lost after the block;
* win3   the player to move cannot win at once but has a move after which
         every reply allows a win at once; some moves throw the win away.

Every position is one where the reference's `computer_move(state, 3)` keeps
the value (checked here), and has at least MIN_STONES stones so the solver is
quick. tests/connect4/test_suite.py re-checks the file against the solver.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from autograder.grading.reference import load_reference
from autograder.suites.connect4 import solver

SUITE = Path(__file__).resolve().parents[2] / "autograder" / "suites" / "connect4"
PER_KIND = 10
MIN_STONES = 18


def kind_of(pos):
    """'win1', 'block', 'win3' or None."""
    cols = pos.legal_columns()
    if pos.can_win_next():
        return "win1"
    # opponent threats: cells where the opponent would win if it were to move
    threats = [c for c in cols if _opponent_wins_at(pos, c)]
    if len(threats) == 1:
        return "block"
    if threats:
        return None
    for c in cols:
        child = pos.play(c)
        replies = child.legal_columns()
        if replies and all(child.play(r).can_win_next() for r in replies
                           if not child.is_winning_move(r)) \
                and not any(child.is_winning_move(r) for r in replies):
            return "win3"
    return None


def _opponent_wins_at(pos, col):
    """True if the opponent would win by playing `col` now (a pass-move probe)."""
    from_opponent = type(pos)(pos.current ^ pos.mask, pos.mask, pos.moves + 1)
    return from_opponent.is_winning_move(col)


def main():
    ref = load_reference("connect4", "connect4")
    judge = solver.Solver()
    rng = random.Random(4242)
    found = {"win1": [], "block": [], "win3": []}
    seen = set()
    attempts = 0
    while any(len(v) < PER_KIND for v in found.values()) and attempts < 20000:
        attempts += 1
        state = []
        length = rng.randrange(MIN_STONES, 34)
        pos = solver.Position()
        ok = True
        while len(state) < length:
            safe = [c for c in pos.legal_columns() if not pos.is_winning_move(c)]
            if not safe:
                ok = False
                break
            col = rng.choice(safe)
            state.append(ref.freeIn(ref.getBoard(state), col))
            pos = pos.play(col)
        if not ok or tuple(state) in seen:
            continue
        kind = kind_of(pos)
        if kind is None or len(found[kind]) >= PER_KIND:
            continue
        scores = judge.move_scores(pos, weak=True)
        best = max(scores.values())
        keep = sorted(c for c, s in scores.items() if s == best)
        if len(keep) == len(scores):
            continue    # every move keeps the value: nothing to judge
        if kind == "block" and best < 0:
            continue
        if kind == "win3" and best != 1:
            continue
        move = ref.computer_move(state, 3)[-1] % 7
        if move not in keep:
            continue
        seen.add(tuple(state))
        found[kind].append({"state": state, "keep": keep, "value": best})
    out = SUITE / "tactics.json"
    out.write_text(json.dumps(found, indent=1) + "\n")
    print({k: len(v) for k, v in found.items()}, "attempts", attempts, "->", out)


if __name__ == "__main__":
    main()

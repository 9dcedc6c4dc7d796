"""The connect4 suite's own data: tactics.json agrees with the solver and the reference."""

import json

from tests.conftest import ROOT, load_module

SUITE = ROOT / "autograder" / "suites" / "connect4"


_load = load_module


solver = _load("_c4_suite_solver_test", SUITE / "solver.py")
ref = _load("_c4_suite_ref_test", ROOT / "solutions" / "connect4" / "connect4.py")
kit = _load("_c4_suite_kit_test", SUITE / "child_kit.py")


def test_tactics_fixture_agrees_with_the_solver():
    data = json.loads((SUITE / "tactics.json").read_text())
    judge = solver.Solver()
    for kind in ("win1", "block", "win3"):
        assert len(data[kind]) == 10
        for entry in data[kind]:
            pos = solver.Position.from_cells(entry["state"])
            scores = judge.move_scores(pos, weak=True)
            best = max(scores.values())
            keep = sorted(c for c, s in scores.items() if s == best)
            assert keep == entry["keep"] and len(keep) < len(scores)
            assert (kind == "win1") == pos.can_win_next()
            assert ref.computer_move(entry["state"], 3)[-1] % 7 in keep


def test_kit_rules_agree_with_the_reference():
    import random
    rng = random.Random(3)
    for _ in range(300):
        state = []
        for _ in range(rng.randrange(43)):
            if ref.terminal_test(state):
                break
            state = rng.choice(ref.nextstates(state))
        assert kit.evaluation(state) == ref.evaluation(state)
        assert kit.evaluation_b(state) == ref.evaluation_b(state)
        assert kit.terminal_test(state) == ref.terminal_test(state)
        assert kit.nextstates(state) == ref.nextstates(state)

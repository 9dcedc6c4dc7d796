"""The negamax suite's kit module: its trusted board and its instrumented runs."""

import importlib.util
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import wrong_variants as wv  # noqa: E402

from tests.conftest import ROOT  # noqa: E402

ref = wv.load_reference()
_spec = importlib.util.spec_from_file_location(
    "negamax_kit_under_test", ROOT / "autograder/suites/negamax/child_kit.py")
kit = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(kit)


def test_kit_board_follows_the_handout_rules_on_every_position():
    fields = wv.reachable_fields(ref)
    assert len(fields) == 5478
    for cells in fields:
        mine, theirs = kit.KitBoard(cells), ref.TicTacToe(wv.rows(cells))
        assert mine.getMoves() == theirs.getMoves(), cells
        assert mine.evaluate() == theirs.evaluate(), cells
        assert mine.getSide() == theirs.getSide(), cells
        for move in mine.getMoves():
            mine.makeMove(move)
            theirs.makeMove(move)
            assert mine.cells == [c for row in theirs.field for c in row]
            assert mine.evaluate() == theirs.evaluate()
            mine.undoMove(move)
            theirs.undoMove(move)
            assert tuple(mine.cells) == cells and mine.key == kit.KitBoard(cells).key


def test_kit_runs_report_work_and_discipline():
    run = kit._explore(ref, {"tree": [[3, 12, 8], [2, 4, 6], [14, 5, 2]], "static": []}, 2)
    assert run["value"] == 3 and run["nodes"] == 4
    assert run["game"]["counts"]["evaluate"] == 7 and run["game"]["restored"]
    plain = kit._explore(wv.load_variant("no_pruning"), (0,) * 9, 2)
    alphabeta = kit._explore(ref, (0,) * 9, 2)
    assert plain["value"] == alphabeta["value"] == 0
    assert plain["game"]["counts"]["evaluate"] > alphabeta["game"]["counts"]["evaluate"]
    broken = kit._explore(wv.load_variant("board_not_restored"), (1, 2, 0, 0, 1, 0, 0, 2, 0), 9)
    assert not broken["game"]["restored"] or broken["game"]["violations"] or broken.get("error")


def test_a_students_exception_keeps_the_board_summary():
    run = kit._evaluated_moves(ref, (0,) * 9, 0)
    assert run["error"].startswith("ValueError") and "negamax.py, line" in run["error"]
    assert run["game"]["restored"]
    assert kit._explore(ref, (0,) * 9, 1, -math.inf, math.inf)["nodes"] == 1

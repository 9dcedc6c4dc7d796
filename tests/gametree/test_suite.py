"""The gametree hidden suite: its counting game, its kit module, and real grading of examples/.

`graded_examples("gametree")` grades examples/gametree/ with the real engine
inside a PID namespace (once per session); each wrong example must lose points
in the hidden test named for its bug (tests/gametree/examples_build.py).
"""

import json
import math
import sys
from pathlib import Path

import pytest

from tests.conftest import load_module

from tests.gametree import examples_build as eb

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "autograder" / "suites" / "gametree"


_load = load_module


gt = _load("_ref_gametree_suite", ROOT / "solutions" / "gametree" / "gametree.py")
kitgame = _load("_kitgame_test", SUITE / "kitgame.py")
inf = math.inf


# ---------------------------------------------------------------- the counting game
def reachable(game):
    seen, todo = {}, [[]]
    while todo:
        state = todo.pop()
        key = (frozenset(state[0::2]), frozenset(state[1::2]))
        if key not in seen:
            seen[key] = state
            if not gt.terminal_test(state, game):
                todo.extend(gt.nextstates(state, game))
    return list(seen.values())


def test_kitgame_follows_the_reference_rules():
    kit = kitgame.KitGame(3, 3, 3)
    for state in reachable(gt.TICTACTOE):
        assert kit.exact_value(state) == gt.evaluation(state)
        assert kit.decided(state) == gt.terminal_test(state)
        assert kit.nextstates(state) == gt.nextstates(state)
    big = kitgame.KitGame(4, 4, 3)
    assert len(big.masks) == len(gt.BOARD_4X4.lines) == 24
    for state in ([0, 1, 5, 2, 15, 3], [5, 0, 6, 1, 7], [1, 8, 2, 9]):
        assert big.exact_value(state) == gt.evaluation(state, gt.BOARD_4X4)


def test_kitgame_records_depth_and_decided_games():
    game = kitgame.KitGame(3, 3, 3, mode="lines", root_len=2)
    gt.maximize_ab([0, 4], -inf, inf, 2, game)
    summary = game.summary()
    assert summary["open_eval_plies"] == [2] and summary["max_expand_ply"] == 1
    assert summary["decided_expanded"] == 0 and summary["evaluations"] > 0
    game = kitgame.KitGame(3, 3, 3, root_len=5)
    game.nextstates([0, 3, 1, 4, 2])  # x has won: expanding it is searching past the end
    assert game.summary()["decided_expanded"] == 1
    assert kitgame.KitGame(3, 3, 3, mode="lines").heuristic([4]) == 4


def test_kit_module_loads_every_tree_and_runs_a_search(monkeypatch, tmp_path):
    kit = _load("_gametree_child_kit_test", SUITE / "child_kit.py")
    assert {"aima-5-2", "ties-deep", "depth-limit", "deep-cutoff", "min-root"} <= set(kit.TREES)
    (tmp_path / "gametree.py").write_text(eb.build("ada_reference"))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "gametree", raising=False)
    out = kit.maximize_ab({"tree": "aima-5-2"}, -inf, inf, inf, True)
    assert out["result"] == ("B", 3) and out["stats"]["prunings"] == 2
    assert out["evaluated"] == ["b1", "b2", "b3", "c1", "d1", "d2", "d3"]
    out = kit.minimize_ab({"state": [0, 3, 1], "board": [3, 3, 3]})
    assert out["result"][1] == 1 and out["game"]["decided_expanded"] == 0
    assert kit.computer_move([], [4, 4, 3], "exact", 2, {(): [15]})["result"] == [15]
    monkeypatch.delitem(sys.modules, "gametree", raising=False)


def test_rubric_points_every_hidden_test_and_only_those():
    import ast
    import tomllib
    rubric = tomllib.loads((SUITE / "rubric.toml").read_text())
    tree = ast.parse((SUITE / "test_hidden.py").read_text())
    tests = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)
             and n.name.startswith("test_")}
    assert set(rubric["points"]) == tests
    for example in eb.EXAMPLES.values():
        assert set(example.fails) | set(example.keeps) <= tests


# ---------------------------------------------------------------- the examples
@pytest.mark.parametrize("name", sorted(eb.EXAMPLES))
def test_example_is_generated_from_the_reference(name):
    assert eb.path_of(name).read_text() == eb.build(name), \
        "run `.venv/bin/python tests/gametree/examples_build.py`"


def test_examples_folder_has_nothing_else():
    assert {p.name for p in eb.EXAMPLES_DIR.iterdir()} == set(eb.EXAMPLES)


def _results(out, name):
    data = json.loads((out / name / "results.json").read_text())
    return {t["number"]: t for t in data["tests"]}, data


@pytest.mark.slow
def test_reference_example_gets_full_marks(graded_examples):
    rows, out = graded_examples("gametree")
    row = rows["ada_reference"]
    assert row["status"] == "graded" and float(row["score"]) == float(row["max_score"]) > 0


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n, e in sorted(eb.EXAMPLES.items()) if e.fails])
def test_wrong_example_loses_points_for_its_bug(graded_examples, name):
    rows, out = graded_examples("gametree")
    example = eb.EXAMPLES[name]
    row = rows[name]
    assert row["status"] == "graded"
    assert float(row["score"]) < float(row["max_score"])
    tests, _ = _results(out, name)
    for failing in example.fails:
        assert tests[failing]["status"] == "failed", (name, failing, tests[failing])
        assert tests[failing]["score"] == 0
    assert example.phrase in tests[example.fails[0]]["output"], tests[example.fails[0]]["output"]
    for kept in example.keeps:
        assert tests[kept]["status"] == "passed", (name, kept, tests[kept]["output"])


@pytest.mark.parametrize("name, expected", [
    ("deep-cutoff", {inf: ("c", 12, 27, 6), 2: ("c", 4, 11, 1), 1: ("a", 14, 4, 0)}),
    ("min-root", {inf: ("a", -12, 20, 4), 2: ("b", 0, 11, 1), 1: ("c", -19, 4, 0)}),
])
def test_new_trees_match_their_descriptions_and_the_reference(name, expected):
    trees = _load("_kit_gametrees_suite", ROOT / "autograder" / "gametrees.py")
    tree = trees.load_tree(name)
    search = gt.maximize_ab if tree.get("max_to_move", True) else gt.minimize_ab
    for bremse, (best, value, visited, prunings) in expected.items():
        result = trees.search_tree(tree, bremse)
        assert (result.best, result.value, len(result.visited), result.prunings) == \
            (best, value, visited, prunings)
        game, stats = trees.TreeGame(tree), gt.SearchStats()
        assert search(tree["root"], -inf, inf, bremse, game, stats) == (best, value)
        assert game.evaluated == result.evaluated and stats.prunings == prunings

"""The gametree hidden suite: its games, its search checks, and real grading of examples/.

The search checks are run here in-process too (fast): `run_searches` is replaced
by a local runner that calls a module's search on the grader's game object
directly, the way the proxy would. That lets every example, and a search that
ignores the game object or replays a copied reference over its own rules, be
judged by every search check without a sandbox. The slow tests grade
examples/gametree/ for real, in a PID namespace.
"""

import ast
import json
import math
import random
import tomllib
import types
from pathlib import Path

import pytest

from autograder import assignment
from autograder.checking import Blame, CheckFailed, gametrees
from autograder.checking import search as searching
from autograder.checking.search import COUNTERS, Run, TreeGame
from autograder.sandbox.client import Outcome
from autograder.suites.gametree import cases
from autograder.suites.gametree import test_hidden as hidden
from autograder.suites.gametree.kitgame import GameSpec, KitGame
from tests.conftest import load_module
from tests.gametree import examples_build as eb
from tests.kit.tree_search import search_tree

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "autograder" / "suites" / "gametree"
gt = load_module("_ref_gametree_suite", ROOT / "solutions" / "gametree" / "gametree.py")
inf = math.inf

SEARCH_CHECKS = (
    "test_minimax_values", "test_minimax_visits_every_node", "test_alphabeta_values_3x3",
    "test_alphabeta_values_bigger_boards", "test_alphabeta_prunes_like_the_reference",
    "test_alphabeta_cuts_on_ties", "test_alphabeta_depth_limit",
    "test_alphabeta_stops_at_decided_games", "test_alphabeta_window",
    "test_alphabeta_work_on_positions", "test_minimax_search_stats",
    "test_alphabeta_search_stats",
    "test_computer_move_keeps_the_value", "test_computer_move_uses_the_book")
VALUE_CHECKS = ("test_minimax_values", "test_alphabeta_values_3x3",
                "test_alphabeta_values_bigger_boards", "test_computer_move_keeps_the_value")
TECHNIQUE_CHECKS = tuple(c for c in SEARCH_CHECKS if c not in VALUE_CHECKS + (
    "test_computer_move_uses_the_book",))


# ---------------------------------------------------------------- running checks here
def local_run(module, search):
    """What the proxy run does, in-process: the module's function on the grader's game."""
    game = search.setup()
    stats = module.SearchStats() if search.with_stats else None
    try:
        result = search.call(lambda name, *args, **kwargs: getattr(module, name)(*args, **kwargs),
                             game, stats)
    except Exception as error:
        return Run(search, game, Outcome(raised={"type": type(error).__name__,
                                                 "message": str(error), "where": None}))
    value = {"result": result}
    if stats is not None:
        value["stats"] = {name: getattr(stats, name, None) for name in COUNTERS}
    return Run(search, game, Outcome(ok=True, value=value))


def local_book_copy(module, search):
    """What the book-copy plan does, in-process: computer_move's answer changed, and
    computer_move asked again with the same book."""
    game = search.setup()
    book = {k: list(v) for k, v in search.book}
    root = search.root(game)
    try:
        first = module.computer_move(root, game, search.bremse, book, None)
        if isinstance(first, list):
            first.append(-1)
        return Outcome(ok=True, value=module.computer_move(root, game, search.bremse, book,
                                                           None))
    except Exception as error:
        return Outcome(raised={"type": type(error).__name__, "message": str(error),
                               "where": None})


@pytest.fixture
def judge_here(monkeypatch):
    """verdict(module, check): None if the module passes the search check, else the
    CheckFailed text (run in-process on the grader's games)."""
    def verdict(module, check):
        monkeypatch.setattr(searching, "run", lambda student, searches, play=None:
                            [local_run(module, s) for s in searches])
        monkeypatch.setattr(hidden, "run_book_copies", lambda student, searches:
                            [local_book_copy(module, s) for s in searches])
        try:
            # a fresh Blame: nothing failed before, so no check is judged again
            getattr(hidden, check)(None, Blame.of(assignment.load("gametree")))
        except CheckFailed as failed:
            return failed.render(reveal=True)
        return None
    return verdict


@pytest.fixture(scope="module")
def examples():
    return {name: eb.load(name) for name in eb.EXAMPLES}


# ---------------------------------------------------------------- the grader's games
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


def test_position_game_follows_the_reference_rules():
    for state in reachable(gt.TICTACTOE):
        game = cases.make_game(GameSpec((3, 3, 3), tuple(state)))
        assert game.nextstates(state) == gt.nextstates(state)
        assert game.terminal_test(state) == gt.terminal_test(state)
        assert game.evaluation(state) == gt.evaluation(state)
    big = KitGame(4, 4, 3)
    assert len(big.masks) == len(gt.BOARD_4X4.lines) == 24
    for state in ([0, 1, 5, 2, 15, 3], [5, 0, 6, 1, 7], [1, 8, 2, 9]):
        assert big.exact_value(state) == gt.evaluation(state, gt.BOARD_4X4)
    assert KitGame(3, 3, 3).heuristic([4]) == 4


def test_position_game_variants_are_its_own():
    spec = GameSpec((4, 4, 3), (5, 6), "lines", "shuffled", (0, 15), salt=12345)
    game = cases.make_game(spec)
    children = game.nextstates([5, 6])
    cells = [child[-1] for child in children]
    assert sorted(cells) == [c for c in range(16) if c not in (0, 5, 6, 15)]
    assert cells != sorted(cells)                       # the game's own order
    assert cases.make_game(spec).nextstates([5, 6]) == children   # the same in every fresh game
    other = GameSpec((4, 4, 3), (5, 6), "lines", "shuffled", (0, 15), salt=54321)
    other = cases.make_game(other)
    assert other.nextstates([5, 6]) != children         # the salt decides the order
    # each state has its own order: not one permutation of the cells for all
    orders = {tuple(c[-1] for c in game.nextstates(child)) for child in children[:6]}
    assert len({tuple(sorted(o, key=cells.index)) for o in orders}) > 1
    assert game.log == [("n", (5, 6)), *[("n", tuple(c)) for c in children[:6]]]
    for foreign in ([6, 5], [5, 6, 0], [5, 6, 6], [5, 6, 16], "56", [5, 6.0], [5, 6, True]):
        with pytest.raises(ValueError):
            game.nextstates(foreign)
    assert game.evaluation([5, 6, 9]) == KitGame(4, 4, 3).heuristic([5, 6, 9])


def test_a_search_past_the_end_of_the_game_is_stopped_by_a_call_count_not_the_clock():
    """frank_past_decided once lost 2 points on a loaded machine only: its search
    went on past won games until the time limit. The game now stops answering
    after a number of calls fixed by the case, the same on any machine."""
    frank = eb.load("frank_past_decided")
    for search in hidden.decided_cases():
        if search.is_tree:
            continue
        run = local_run(frank, search)
        assert run.game.calls <= run.game.limit + 1 == cases.call_limit(search) + 1
        assert cases.decided_reason(run) is not None
    spec = GameSpec((4, 4, 3), (0, 4, 1, 5, 2))                # x has won: 11 free cells
    limited = cases.search_for("alphabeta", spec).setup()
    assert limited.limit == cases.call_limit(cases.search_for("alphabeta", spec))
    with pytest.raises(ValueError, match="answers at most"):
        frank.maximize_ab(list(spec.root), -inf, inf, inf, limited)
    assert limited.calls == limited.limit + 1


def test_position_game_is_full_when_the_playable_cells_are():
    spec = GameSpec((3, 3, 3), (0, 1, 2, 4, 3), "exact", "cells", (5, 6, 8))
    game = cases.make_game(spec)
    assert game.nextstates([0, 1, 2, 4, 3]) == [[0, 1, 2, 4, 3, 7]]
    assert not game.terminal_test([0, 1, 2, 4, 3])
    assert game.terminal_test([0, 1, 2, 4, 3, 7]) and spec.rules().decided((0, 1, 2, 4, 3, 7))
    assert "#" in spec.drawing() and "cells 5, 6, 8 blocked" in spec.drawing()


def test_opaque_tokens_hide_the_tree():
    tree = gametrees.load_tree("aima-5-2")
    tokens = gametrees.opaque_tokens(tree, 3)
    assert tokens == gametrees.opaque_tokens(tree, 3) != gametrees.opaque_tokens(tree, 4)
    assert len(set(tokens.values())) == len(tokens)
    game = TreeGame(tree, tokens)
    root = game.shown("A")
    assert root == list(tokens["A"])
    best, value = gt.maximize_ab(root, -inf, inf, inf, game)
    assert (best, value) == (list(tokens["B"]), 3)
    assert [key for kind, key in game.log if kind == "e"] == search_tree(tree).evaluated
    assert game.log[:3] == [("n", "A"), ("n", "B"), ("e", "b1")]
    for unknown in ("A", [1, 2], list(tokens["A"]) + [0], [str(x) for x in tokens["A"]]):
        with pytest.raises(ValueError):
            game.nextstates(unknown)


def test_random_trees_are_seeded_and_valid():
    first = gametrees.random_tree("t", 5, depth=3, leaf_chance=0.3, distinct=True,
                                  low=-50, high=50)
    assert first == gametrees.random_tree("t", 5, depth=3, leaf_chance=0.3, distinct=True,
                                          low=-50, high=50)
    gametrees.validate_tree(first)
    leaves = [v for n, v in first["values"].items() if gametrees.is_leaf(first, n)]
    assert len(leaves) == len(set(leaves))
    assert max(gametrees.depths(first).values()) <= 3
    assert gametrees.random_tree("t", 6) != gametrees.random_tree("t", 5)


# ---------------------------------------------------------------- the checks, in-process
def test_reference_passes_every_search_check(judge_here, examples):
    for check in SEARCH_CHECKS:
        assert judge_here(examples["ada_reference"], check) is None, check


@pytest.mark.parametrize("name", [n for n, e in sorted(eb.EXAMPLES.items()) if e.fails])
def test_wrong_example_fails_and_keeps_its_search_checks(judge_here, examples, name):
    example = eb.EXAMPLES[name]
    for check in set(example.fails) & set(SEARCH_CHECKS):
        assert judge_here(examples[name], check) is not None, (name, check)
    for check in set(example.keeps) & set(SEARCH_CHECKS):
        assert judge_here(examples[name], check) is None, (name, check)


class StandardRules:
    """The game as a student's own rules see it: the assignment's board, nothing else."""

    def __init__(self, board):
        self.game = gt.Game(*board)
        self.log = []

    def nextstates(self, state):
        self.log.append(("n", tuple(state)))
        return gt.nextstates(list(state), self.game)

    def terminal_test(self, state):
        return gt.terminal_test(list(state), self.game)

    def evaluation(self, state):
        self.log.append(("e", tuple(state)))
        return gt.evaluation(list(state), self.game)


def bypassing(module):
    """The module's searches, but over its own rules: the game passed in is ignored
    (a tree's opaque tokens mean nothing to it, so it gives up there)."""
    def own_game(game):
        if not hasattr(game, "spec"):
            raise ValueError("cannot read this state")
        return StandardRules(game.spec.board)   # the board's shape, guessed right

    def wrap(name):
        function = getattr(module, name)
        if name == "computer_move":
            return lambda s, game, bremse, book, stats: function(s, own_game(game), bremse,
                                                                  book, stats)
        if name in cases.PLAIN:
            return lambda s, game, stats: function(s, own_game(game), stats)
        return lambda s, a, b, bremse, game, stats: function(s, a, b, bremse, own_game(game),
                                                              stats)
    names = ("maximize", "minimize", "maximize_ab", "minimize_ab", "computer_move")
    return types.SimpleNamespace(SearchStats=module.SearchStats,
                                 **{name: wrap(name) for name in names})


def test_a_search_that_bypasses_the_game_fails_every_search_check(judge_here, examples):
    """The reference's own searches over the assignment's rules, with the board shape
    right: on the grader's games they answer for another game."""
    attack = bypassing(examples["ada_reference"])
    passed = [check for check in SEARCH_CHECKS if judge_here(attack, check) is None]
    assert passed == []


def replaying(module, fallback):
    """A copied reference run over the student's own rules, replayed call for call on
    the grader's game, checking every answer; where the game answers otherwise the
    replay is abandoned for `fallback`'s search (a search that does not prune)."""
    class Mismatch(Exception):
        pass

    def replay(name, state, game, args, stats):
        if not hasattr(game, "spec"):
            return getattr(fallback, name)(state, *args[:-1], game, stats)
        own = StandardRules(game.spec.board)
        result = getattr(module, name)(state, *args[:-1], own, None)
        for kind, key in own.log:
            answer = game.nextstates(list(key)) if kind == "n" else game.evaluation(list(key))
            mine = own.game.nextstates(list(key)) if kind == "n" else \
                own.game.evaluation(list(key))
            if answer != mine:
                raise Mismatch
        return result

    def wrap(name):
        def search(state, *args):
            *window, game, stats = args
            try:
                return replay(name, state, game, (*window, None), stats)
            except Mismatch:
                return getattr(fallback, name)(state, *window, game, stats)
        return search
    names = ("maximize", "minimize", "maximize_ab", "minimize_ab")
    space = types.SimpleNamespace(SearchStats=module.SearchStats,
                                  **{name: wrap(name) for name in names})
    space.computer_move = fallback.computer_move
    return space


def test_replaying_a_copied_reference_fails_every_technique_check(judge_here, examples):
    """Where the grader's game could be mistaken for the assignment's (only on its
    first answers), a replay of the reference's calls is caught later on."""
    attack = replaying(examples["ada_reference"], examples["bob_no_pruning"])
    for check in ("test_alphabeta_prunes_like_the_reference", "test_alphabeta_cuts_on_ties",
                  "test_alphabeta_work_on_positions"):
        assert judge_here(attack, check) is not None, check
        assert judge_here(examples["bob_no_pruning"], check) is not None, check


CASE_LISTS = ("minimax_value_cases", "minimax_technique_cases", "ab_values_3x3_cases",
              "ab_values_big_cases", "prune_cases", "tie_cases", "depth_cases",
              "decided_cases", "window_cases", "work_cases", "minimax_stats_cases",
              "alphabeta_stats_cases", "move_cases",
              "book_cases")


def test_every_position_case_is_a_game_of_its_own():
    """No two position searches share a game, and most of them differ from the
    assignment's game in their first answer already."""
    specs = [search.game for name in CASE_LISTS for search in getattr(hidden, name)()
             if not search.is_tree and not search.use_book]
    assert len(set(specs)) == len(specs)
    standard = 0
    for spec in specs:
        if spec.rules().decided(spec.root):
            continue
        shown = cases.make_game(spec).nextstates(list(spec.root))
        standard += shown == KitGame(*spec.board).nextstates(list(spec.root))
    assert standard <= len(specs) // 10, (standard, len(specs))


def test_feedback_names_the_visits_and_the_tree(judge_here, examples):
    """Issue 11: a count mismatch shows the tree or position, what the search visited
    and where it left the rules, not a bare dict of numbers."""
    text = judge_here(examples["carol_strict_cut"], "test_alphabeta_cuts_on_ties")
    assert "ties-deep" in text and "A [" in text                 # the tree, drawn
    assert "Your search's calls (+ = nextstates, else evaluation): A+ B+" in text
    assert "expected:" in text and "nextstates" in text
    text = judge_here(examples["bob_no_pruning"], "test_alphabeta_work_on_positions")
    assert "x to move" in text or "o to move" in text             # the position, drawn
    assert "game call" in text and "evaluation([" in text

    def lazy_counts(module):
        space = types.SimpleNamespace(**{n: getattr(module, n) for n in dir(module)
                                         if not n.startswith("__")})

        class Lazy(module.SearchStats):
            def __setattr__(self, name, value):
                if name != "prunings":
                    super().__setattr__(name, value)
        space.SearchStats = Lazy
        return space
    text = judge_here(lazy_counts(examples["ada_reference"]), "test_alphabeta_search_stats")
    assert "your SearchStats says nodes" in text and "prunings 0" in text
    assert "the cut test succeeds" in text and "wrong prunings" in text


# ---------------------------------------------------------------- the rubric and examples
def test_rubric_points_every_hidden_test_and_only_those():
    rubric = tomllib.loads((SUITE / "rubric.toml").read_text())
    tree = ast.parse((SUITE / "test_hidden.py").read_text())
    tests = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)
             and n.name.startswith("test_")}
    assert set(rubric["points"]) == tests
    assert "kit" not in rubric, "nothing of ours is loaded into the sandbox"
    for example in eb.EXAMPLES.values():
        assert set(example.fails) | set(example.keeps) <= tests
    assert set(SEARCH_CHECKS) <= tests


@pytest.mark.parametrize("name", sorted(eb.EXAMPLES))
def test_example_is_generated_from_the_reference(name):
    assert eb.path_of(name).read_text() == eb.build(name), \
        "run `.venv/bin/python tests/gametree/examples_build.py`"


@pytest.mark.parametrize("name", sorted(eb.bug_examples()))
def test_bug_example_is_the_reference_with_the_bug(name):
    assert eb.path_of(name).read_text() == eb.bug_examples()[name], \
        "run `.venv/bin/python tests/gametree/examples_build.py`"


def test_examples_folder_has_nothing_else():
    assert {p.name for p in eb.EXAMPLES_DIR.iterdir()} == set(eb.EXAMPLES) | \
        set(eb.bug_examples())


def _results(out, name):
    data = json.loads((out / name / "results.json").read_text())
    return {t["number"]: t for t in data["tests"]}, data


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n, e in sorted(eb.EXAMPLES.items()) if not e.fails])
def test_correct_examples_get_full_marks(graded_examples, name):
    """The reference, and honest code in other words: a namedtuple for the pair
    (best_state, value) is a tuple, sent as one (issue 18)."""
    rows, out = graded_examples("gametree")
    row = rows[name]
    assert row["status"] == "graded" and float(row["score"]) == float(row["max_score"]) > 0, \
        [t["output"][:300] for t in _results(out, name)[0].values() if t["status"] != "passed"]


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
    tree = gametrees.load_tree(name)
    search = gt.maximize_ab if tree.get("max_to_move", True) else gt.minimize_ab
    for bremse, (best, value, visited, prunings) in expected.items():
        result = search_tree(tree, bremse)
        assert (result.best, result.value, len(result.visited), result.prunings) == \
            (best, value, visited, prunings)
        game, stats = TreeGame(tree), gt.SearchStats()
        assert search(tree["root"], -inf, inf, bremse, game, stats) == (best, value)
        assert [k for kind, k in game.log if kind == "e"] == result.evaluated
        assert stats.prunings == prunings


def test_random_search_trees_agree_with_the_independent_tree_search():
    """The reference on the suite's seeded trees visits what search_tree does."""
    rng = random.Random(5)
    for index in range(30):
        tree = gametrees.random_tree(f"check-{index}", index, depth=rng.randint(2, 4),
                                     low=0, high=rng.choice((2, 9)),
                                     leaf_chance=rng.choice((0.0, 0.3)),
                                     max_to_move=index % 2 == 0)
        bremse = rng.choice((inf, 1, 2, 3))
        window = rng.choice(((-inf, inf), (1, 2), (-inf, 1), (0, 5)))
        game = TreeGame(tree, gametrees.opaque_tokens(tree, index))
        search = gt.maximize_ab if tree["max_to_move"] else gt.minimize_ab
        best, value = search(game.shown(tree["root"]), window[0], window[1], bremse, game)
        independent = search_tree(tree, bremse, alpha=window[0], beta=window[1])
        assert value == independent.value
        assert best == (list(game.tokens[independent.best]) if independent.best else None)
        assert [name for kind, name in game.log] == \
            [n for n in independent.visited]

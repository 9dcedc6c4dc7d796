"""Hidden suite for negamax: the board's rules, the search's values, its technique.

The student's `TicTacToe` is checked method by method on every reachable
position. The student's `NegaMax` never searches on the student's own board:
the kit module (`child_kit.py`, loaded into the sandbox as `kit`) hands it a
trusted board (tic-tac-toe, or a small hand-built tree) wrapped in an
`InstrumentedGame`, which counts every call and notices every broken rule.
The very same kit functions run the reference solution in this trusted
process, so the expected data (values, expanded nodes, `evaluate` calls,
`makeMove` calls, plies) come from one code path and are compared exactly.

Which test catches which mistake:
- values: `test_explore_values`, `test_evaluated_moves`, `test_best_move`;
- plain minimax handed in as alpha-beta, or a cut on the wrong comparison:
  `test_work_on_hand_built_trees`, `test_work_on_positions`;
- the evaluation's sign for the side to move, or searching past a decided
  game: `test_explore_leaves`;
- an off-by-one depth limit, or `evaluate` above the limit: `test_depth_limit`;
- fail-soft instead of fail-hard: `test_fail_hard_windows`;
- make/undo discipline: `test_board_is_restored`;
- a fixed choice among equal moves: `test_best_move_random_choice`.
"""

import functools
import importlib.util
import math
import random
from pathlib import Path

import pytest

from autograder.gametrees import load_tree, to_nested
from autograder.grading.checks import Case, CheckFailed, check_all, describe, require, short
from autograder.grading.reference import load_reference

ref = load_reference("negamax", "negamax")
INF = math.inf
FULL = 9
# Unpruned negamax answers a position with at least this many marks in a few
# milliseconds, so full-depth searches cover all of them; earlier positions
# are sampled (a plain search of the empty board takes seconds).
ENDGAME_MARKS = 5


def _load_kit():
    path = Path(__file__).resolve().parent / "child_kit.py"
    spec = importlib.util.spec_from_file_location("_negamax_suite_kit", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


KIT = _load_kit()


# ------------------------------------------------------------ positions
def marks(cells):
    return sum(1 for cell in cells if cell)


def draw(cells):
    rows = ["".join(".12"[c] for c in cells[i:i + 3]) for i in (0, 3, 6)]
    board = KIT.KitBoard(cells)
    if board.getMoves():
        rows.append(f"(player {board.getSide()} to move; moves are (x, y), column first)")
    else:
        rows.append("(the game is decided)")
    return "\n".join(rows)


def rows_of(cells):
    return [list(cells[0:3]), list(cells[3:6]), list(cells[6:9])]


@functools.cache
def positions():
    """Every reachable position as a tuple of 9 cells: fewest marks first."""
    seen, todo = {(0,) * 9}, [(0,) * 9]
    while todo:
        cells = todo.pop()
        board = KIT.KitBoard(cells)
        for move in board.getMoves():
            board.makeMove(move)
            nxt = tuple(board.cells)
            board.undoMove(move)
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return sorted(seen, key=lambda c: (marks(c), c))


@functools.cache
def open_positions():
    return [c for c in positions() if KIT.KitBoard(c).getMoves()]


@functools.cache
def decided_positions():
    return [c for c in positions() if not KIT.KitBoard(c).getMoves()]


@functools.cache
def sample(count, low, high, seed):
    """`count` open positions with low..high marks, seeded, smallest first."""
    pool = [c for c in open_positions() if low <= marks(c) <= high]
    return tuple(sorted(random.Random(seed).sample(pool, min(count, len(pool))),
                        key=lambda c: (marks(c), c)))


@functools.cache
def full_depth_positions():
    """All open positions with ENDGAME_MARKS+ marks, and a seeded sample of earlier ones."""
    early = sample(10, 2, 2, 11) + sample(16, 3, 3, 12) + sample(40, 4, 4, 13)
    late = tuple(c for c in open_positions() if marks(c) >= ENDGAME_MARKS)
    return early + late


# ------------------------------------------------------------ hand-built trees
def _tree(name, nested, static=(), first=1):
    return name, {"tree": nested, "static": [[list(p), v] for p, v in static], "first": first}


@functools.cache
def trees():
    """Small trees whose every node is known; moves are child indexes 0, 1, ..."""
    found = [
        _tree("three by three", [[3, 12, 8], [2, 4, 6], [14, 5, 2]]),
        _tree("three by three, player 2 first", [[3, 12, 8], [2, 4, 6], [14, 5, 2]], first=2),
        _tree("uneven, with values at inner nodes",
              [[[5, 6], [7, 4, 5]], [[3]], [[6], [6, 9]], [7]],
              {(0,): 4, (1,): -2, (2,): 5, (3,): 1, (0, 0): 5, (0, 1): 6, (2, 1): 7}.items()),
        _tree("two by two by two", [[[-1, 3], [5, 1]], [[-6, -4], [0, 9]]],
              {(0,): 1, (1,): -3}.items()),
        _tree("a tie exactly at the bound", [[4, 7], [4, 2], [9, 4, 1], [3, 8]]),
        _tree("four plies", [[[[2, 8], [3, 1]], [[6, 0], [5, 4]]],
                             [[[7, 3], [1, 9]], [[4, 4], [8, 2]]]],
              {(0,): 2, (1,): 1, (0, 0): 3, (0, 1): 5, (1, 0): 4, (1, 1): 6}.items(), first=2),
    ]
    for name in ("aima-5-2", "depth-limit", "ties-deep"):
        nested, static = to_nested(load_tree(name))
        found.append(_tree(name, nested, static.items()))
    return tuple(found)


def tree_text(name, spec):
    static = ", ".join(f"{tuple(p)}: {v}" for p, v in spec["static"])
    return (f"hand-built tree '{name}' (player {spec['first']} moves at the root; moves are "
            f"child indexes)\nleaves (player 1's view): {spec['tree']}"
            + (f"\nevaluate() at inner nodes: {{{static}}}" if static else ""))


# ------------------------------------------------------------ running both sides
def _freeze(value):
    """Hashable, comparable form of plain data (lists and tuples alike)."""
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    return value


def _args_key(args):
    return repr(args)


@functools.cache
def _expected(kind, key):
    """The reference's answer for the same kit call (run in this process)."""
    args = _EXPECTED_ARGS[(kind, key)]
    function = getattr(KIT, "_" + kind)
    return function(ref, *args)


_EXPECTED_ARGS = {}


def expected(kind, args):
    key = _args_key(args)
    _EXPECTED_ARGS[(kind, key)] = args
    return _expected(kind, key)


def run(student, kind, chosen):
    """Run kit.<kind> on every case in the sandbox, pipelined."""
    return student.map("kit." + kind, [c.args for c in chosen])


def window(alpha, beta):
    return f"{alpha}, {beta}".replace("inf", "infinity")


def number(value):
    return type(value) in (int, float)


# ------------------------------------------------------------ the student's board
def _board_cases(method, boards):
    return [Case(f"TicTacToe(field).{method}()", (c,), draw(c),
                 getattr(ref.TicTacToe(rows_of(c)), method)()) for c in boards]


@functools.cache
def board_cases(method):
    boards = positions() if method != "getSide" else open_positions()
    return _board_cases(method, boards)


def exact(case, outcome):
    got, want = outcome.value, case.expected
    if type(got) is not type(want) or got != want:
        return f"returned {short(got)}"
    return None


def _check_board(student, method, summary, hint):
    chosen = board_cases(method)
    check_all(summary, chosen, run(student, method, chosen), exact, hint=hint)


def test_winner(student):
    """TicTacToe.winner finds the player with three in a line on all 5,478 positions"""
    _check_board(student, "winner", "winner returned the wrong player",
                 "check the three rows, the three columns and both diagonals; 0 if nobody")


def test_evaluate(student):
    """TicTacToe.evaluate scores all 5,478 positions from player 1's view"""
    _check_board(student, "evaluate", "evaluate returned the wrong score",
                 "+(10 + empty cells) for a line of player 1, -(10 + empty cells) for "
                 "player 2, 0 otherwise")


def test_get_side(student):
    """TicTacToe.getSide names the player to move on every unfinished position"""
    _check_board(student, "getSide", "getSide returned the wrong player",
                 "player 1 moves when the number of marks is even")


def test_get_moves(student):
    """TicTacToe.getMoves lists the free cells in order, and none once the game is decided"""
    _check_board(student, "getMoves", "getMoves returned the wrong moves",
                 "a list of (x, y), row by row from the top; [] after a win or on a full "
                 "board, so no search ever plays past the end of a game")


@functools.cache
def make_undo_cases():
    chosen = []
    for index, cells in enumerate(open_positions()):
        board = ref.TicTacToe(rows_of(cells))
        moves = board.getMoves()
        move = moves[index % len(moves)]
        board.makeMove(move)
        made = [list(row) for row in board.field]
        chosen.append(Case(f"makeMove({move}) then undoMove({move})", (cells, move),
                           draw(cells), [made, rows_of(cells)]))
    return chosen


def test_make_and_undo(student):
    """TicTacToe.makeMove marks the cell for the player to move; undoMove empties it again"""
    chosen = make_undo_cases()

    def judge(case, outcome):
        got = outcome.value
        if type(got) is not list or len(got) != 2:
            return f"returned {short(got)}"
        made, undone = got
        if made != case.expected[0]:
            return f"after makeMove the field was {short(made)}"
        if undone != case.expected[1]:
            return f"after undoMove the field was {short(undone)}"
        return None
    check_all("makeMove or undoMove changed the wrong cell", chosen,
              run(student, "make_undo", chosen), judge,
              hint="the move is (x, y): field[y][x]; getSide() says whose mark it is")


@functools.cache
def bad_cell_cases():
    rng = random.Random(5)
    taken, empty = [], []
    for cells in sample(40, 1, 8, 6):
        full = [(i % 3, i // 3) for i in range(9) if cells[i]]
        free = [(i % 3, i // 3) for i in range(9) if not cells[i]]
        taken.append(Case(f"makeMove({(m := rng.choice(full))}) on a taken cell", (cells, m),
                          draw(cells), "ValueError"))
        empty.append(Case(f"undoMove({(m := rng.choice(free))}) on an empty cell", (cells, m),
                          draw(cells), "ValueError"))
    return taken, empty


def test_make_and_undo_refuse_bad_cells(student):
    """makeMove refuses a taken cell and undoMove an empty one (ValueError)"""
    taken, empty = bad_cell_cases()
    for kind, chosen in (("make_taken", taken), ("undo_empty", empty)):
        for case, outcome in zip(chosen, run(student, kind, chosen)):
            require(outcome)
            if outcome.failure:
                got = describe(outcome)
            elif outcome.raised is None:
                got = f"returned {short(outcome.value)} instead of raising ValueError"
            elif outcome.raised["type"] != "ValueError":
                got = describe(outcome)
            else:
                continue
            raise CheckFailed(f"{case.call.split('(')[0]} did not refuse a bad cell",
                              call=case.call, position=case.position, got=got,
                              expected="ValueError",
                              hint="raise ValueError('...') for a cell in the wrong state")


# ------------------------------------------------------------ search runs (shared)
def _search_case(call, args, position, kind):
    return Case(call, args, position, expected(kind, args))


@functools.cache
def explore_cases():
    chosen = []
    targets = [(c, 2) for c in open_positions()]
    targets += [(c, d) for d in (1, 3) for c in sample(400, 0, 8, 70 + d)]
    for cells, depth in targets:
        chosen.append(_search_case(f"NegaMax(board).explore({depth}, {window(-INF, INF)})",
                                   (cells, depth, -INF, INF), draw(cells), "explore"))
    for cells in full_depth_positions():
        chosen.append(_search_case(f"NegaMax(board).explore({FULL}, {window(-INF, INF)})",
                                   (cells, FULL, -INF, INF), draw(cells), "explore"))
    chosen.sort(key=lambda c: (marks(c.args[0]), c.args[1]))
    return chosen


@functools.cache
def evaluated_cases():
    chosen = []
    for depth in (1, 2, 3):
        for cells in sample(200, 0, 8, 20 + depth):
            chosen.append(_search_case(f"NegaMax(board).getEvaluatedMoves({depth})",
                                       (cells, depth), draw(cells), "evaluated_moves"))
    for cells in full_depth_positions()[::3]:
        chosen.append(_search_case(f"NegaMax(board).getEvaluatedMoves({FULL})",
                                   (cells, FULL), draw(cells), "evaluated_moves"))
    chosen.sort(key=lambda c: (marks(c.args[0]), c.args[1]))
    return chosen


@functools.cache
def best_cases():
    chosen = []
    targets = [(c, d) for d in (1, 2, 3) for c in sample(200, 0, 8, 20 + d)]
    targets += [(c, FULL) for c in full_depth_positions()[1::3]]
    for index, (cells, depth) in enumerate(targets):
        evaluated = expected("evaluated_moves", (cells, depth))["moves"]
        best = [m for v, m, _ in evaluated if v == evaluated[0][0]]
        chosen.append(Case(f"NegaMax(board).getBestMove({depth}, random.Random({index}))",
                           (cells, depth, index), draw(cells),
                           {"best": best, "value": evaluated[0][0]}))
    chosen.sort(key=lambda c: (marks(c.args[0]), c.args[1]))
    return chosen


@functools.cache
def tree_cases():
    chosen = []
    for name, spec in trees():
        for depth in (1, 2, 3, 4, 5):
            chosen.append(_search_case(f"NegaMax(tree).explore({depth}, {window(-INF, INF)})",
                                       (spec, depth, -INF, INF), tree_text(name, spec),
                                       "explore"))
    return chosen


@pytest.fixture(scope="session")
def explore_runs(student):
    chosen = explore_cases()
    return chosen, run(student, "explore", chosen)


@pytest.fixture(scope="session")
def evaluated_runs(student):
    chosen = evaluated_cases()
    return chosen, run(student, "evaluated_moves", chosen)


@pytest.fixture(scope="session")
def best_runs(student):
    chosen = best_cases()
    return chosen, run(student, "best_move", chosen)


@pytest.fixture(scope="session")
def tree_runs(student):
    chosen = tree_cases()
    return chosen, run(student, "explore", chosen)


def check_searches(summary, chosen, outcomes, judge, hint=None):
    """check_all for kit search runs: an exception inside the student's search
    comes back as data ("error"); the feedback shows the reason, not our dict."""
    def wrapped(case, outcome):
        got = outcome.value
        if type(got) is not dict:
            return f"the kit got {short(got)}"
        if got.get("error"):
            return f"raised {got['error']}"
        return judge(case, outcome)
    try:
        check_all(summary, chosen, outcomes, wrapped, hint=hint)
    except CheckFailed as failure:
        if failure.problem:
            failure.got, failure.problem = failure.problem, None
        raise


def _game(outcome):
    value = outcome.value
    if type(value) is dict and type(value.get("game")) is dict:
        return value["game"]
    return None


# ------------------------------------------------------------ values
def test_explore_values(student, explore_runs):
    """explore returns the depth-limited game value (depth 2 everywhere, 1 and 3 sampled, 9 on endgames)"""
    chosen, outcomes = explore_runs

    def judge(case, outcome):
        got = outcome.value["value"]
        if not number(got):
            return f"returned {short(got)}, not a number"
        return None if got == case.expected["value"] else f"returned {short(got)}"
    check_searches("explore returned the wrong value", chosen, outcomes, judge,
              hint="the value is from the view of the player to move: the highest of the "
                   "negated values of the children")


def test_evaluated_moves(student, evaluated_runs):
    """getEvaluatedMoves values every move exactly and sorts best first, ties in move order"""
    chosen, outcomes = evaluated_runs

    def judge(case, outcome):
        got = outcome.value["moves"]
        want = case.expected["moves"]
        if type(got) is not list or not all(type(e) is tuple and len(e) == 3 for e in got):
            return f"returned {short(got)}: expected a list of (value, move, nodes) tuples"
        if sorted(map(repr, (m for _, m, _ in got))) != sorted(map(repr, (m for _, m, _ in want))):
            return f"listed the moves {short([m for _, m, _ in got])}, not every legal move"
        values = {repr(m): v for v, m, _ in got}
        for v, m, _ in want:
            if not number(values[repr(m)]) or values[repr(m)] != v:
                return f"gave move {m} the value {short(values[repr(m)])}"
        if [(v, m) for v, m, _ in got] != [(v, m) for v, m, _ in want]:
            return (f"the order {short([m for _, m, _ in got])} is not best first with ties "
                    "in getMoves order")
        return None
    check_searches("getEvaluatedMoves returned wrong values or order", chosen, outcomes, judge,
              hint="value = -explore(depth - 1, -infinity, +infinity) after making the move; "
                   "sort by value, highest first (a stable sort keeps ties in order)")


def test_best_move(student, best_runs):
    """getBestMove returns a legal move with the best value at the given depth"""
    chosen, outcomes = best_runs

    def judge(case, outcome):
        move = outcome.value["move"]
        if move not in case.expected["best"]:
            return f"{short(move)} is not one of the best moves"
        return None
    check_searches("getBestMove chose a move that is not among the best", chosen, outcomes, judge,
              hint="choose among the moves whose value equals the best value")


@functools.cache
def choice_cases():
    found = []
    for cells in full_depth_positions()[::3]:
        if marks(cells) < 3:
            continue
        evaluated = expected("evaluated_moves", (cells, FULL))["moves"]
        best = [m for v, m, _ in evaluated if v == evaluated[0][0]]
        if len(best) >= 2 and len(best) < len(evaluated):
            found.append((cells, tuple(best)))
    picked = random.Random(3).sample(found, 12)
    return sorted(picked, key=lambda p: (marks(p[0]), p[0]))


SEEDS = 40


def test_best_move_random_choice(student):
    """getBestMove picks every one of several equally good moves over 40 seeds, and never a worse one"""
    chosen = choice_cases()
    args = [(cells, FULL, seed) for cells, _ in chosen for seed in range(SEEDS)]
    outcomes = student.map("kit.best_move", args)
    for index, (cells, best) in enumerate(chosen):
        picks = []
        for outcome in outcomes[index * SEEDS:(index + 1) * SEEDS]:
            check_searches("getBestMove failed", [Case(f"getBestMove({FULL}, rng)", (cells,),
                                                       draw(cells))], [outcome],
                           lambda case, outcome: None)
            picks.append(outcome.value["move"])
        call = f"getBestMove({FULL}, random.Random(seed)) for seeds 0 to {SEEDS - 1}"
        wrong = [m for m in picks if m not in best]
        if wrong:
            raise CheckFailed("getBestMove chose a move that is not among the best",
                              call=call, position=draw(cells), got=f"chose {short(wrong[0])}",
                              expected=" or ".join(map(str, best)))
        never = [m for m in best if m not in picks]
        if never:
            raise CheckFailed(
                "getBestMove does not choose at random among the equally best moves",
                call=call, position=draw(cells),
                got=f"chose only {short(sorted(set(picks)))}, never {short(never)}",
                expected=" and ".join(map(str, best)),
                hint="collect every move with the best value and pick one with "
                     "rng.choice(bestMoves) (the random module if rng is None)")


@functools.cache
def play_cases():
    chosen = []
    targets = [(c, d) for d in (1, 2, 3) for c in sample(100, 0, 8, 20 + d)]
    targets += [(c, d) for d in (1, 2) for c in decided_positions()[::97]]
    for index, (cells, depth) in enumerate(targets):
        evaluated = expected("evaluated_moves", (cells, depth))["moves"] \
            if KIT.KitBoard(cells).getMoves() else []
        best = [m for v, m, _ in evaluated if v == evaluated[0][0]]
        chosen.append(Case(f"ShortSightedOpponent(board, {depth}).play(random.Random({index}))",
                           (cells, depth, index), draw(cells), best or None))
    chosen.sort(key=lambda c: (marks(c.args[0]), c.args[1]))
    return chosen


def test_short_sighted_play(student):
    """ShortSightedOpponent.play makes a best move at its own depth (None when decided)"""
    chosen = play_cases()

    def judge(case, outcome):
        got = outcome.value
        cells, move = case.args[0], got["move"]
        if case.expected is None:
            if move is not None:
                return f"returned {short(move)} on a decided game"
            if got["after"] != list(cells) or got["made"]:
                return "changed the board of a decided game"
            return None
        if move not in case.expected:
            return f"{short(move)} is not one of the best moves at this depth"
        if got["made"] != [list(move)] or len(got["after"]) != 9:
            return f"returned {short(move)} but left the moves {short(got['made'])} on the board"
        return None
    check_searches("ShortSightedOpponent.play did not make a best move", chosen,
              run(student, "play", chosen), judge,
              hint="getBestMove(self.depth, rng), then make that move on the board")


def test_edge_cases(student):
    """getEvaluatedMoves: [] when decided, uses self.depth by default, refuses depth < 1"""
    decided = decided_positions()[0]
    opening = open_positions()[40]
    checks = [
        ("getEvaluatedMoves must return [] on a decided game",
         "NegaMax(board).getEvaluatedMoves(3)", decided, ("evaluated_moves", decided, 3),
         lambda v: v.get("moves") == [], "[]"),
        ("getBestMove must return None on a decided game",
         "NegaMax(board).getBestMove(3, rng)", decided, ("best_move", decided, 3, 0),
         lambda v: "move" in v and v["move"] is None, "None"),
        ("getEvaluatedMoves(0) must raise ValueError",
         "NegaMax(board).getEvaluatedMoves(0)", opening, ("evaluated_moves", opening, 0),
         lambda v: str(v.get("error", "")).startswith("ValueError"), "ValueError"),
    ]
    for depth in (1, 2):
        want = expected("default_depth", (opening, depth))["moves"]
        checks.append(("getEvaluatedMoves() without a depth must search self.depth",
                       f"NegaMax(board, {depth}).getEvaluatedMoves()", opening,
                       ("default_depth", opening, depth),
                       lambda v, want=want: v.get("moves") == want, short(want)))
    for summary, call, cells, (kind, *args), good, want in checks:
        outcome = student.call("kit." + kind, *args)
        require(outcome)
        if not outcome.answered or type(outcome.value) is not dict or not good(outcome.value):
            raise CheckFailed(summary, call=call, position=draw(cells),
                              got=_describe(outcome), expected=want)


def _describe(outcome):
    if outcome.answered and type(outcome.value) is dict:
        if outcome.value.get("error"):
            return f"raised {outcome.value['error']}"
        shown = {k: v for k, v in outcome.value.items() if k != "game"}
        return f"returned {short(shown)}"
    return describe(outcome)


# ------------------------------------------------------------ technique
def _work_reason(case, outcome):
    got, want = outcome.value, case.expected
    if not number(got["value"]) or got["value"] != want["value"]:
        return f"returned {short(got['value'])}"
    gc, wc = got["game"]["counts"], want["game"]["counts"]
    if got["nodes"] != want["nodes"]:
        return (f"expanded {short(got['nodes'])} nodes (treeNodeCounter); alpha-beta with "
                f"these rules expands {want['nodes']}")
    if gc["evaluate"] != wc["evaluate"]:
        return f"called evaluate {gc['evaluate']} times; alpha-beta calls it {wc['evaluate']} times"
    if gc["makeMove"] != wc["makeMove"]:
        return f"made {gc['makeMove']} moves; alpha-beta makes {wc['makeMove']}"
    return None


WORK_HINT = ("cut (return beta) as soon as a child's value is >= beta, try the moves in "
             "getMoves order, and count a node once per explore call that is not a leaf")


def test_work_on_hand_built_trees(student, tree_runs):
    """explore expands exactly the nodes alpha-beta expands on small hand-built trees"""
    chosen, outcomes = tree_runs
    check_searches("explore did not do the work of alpha-beta", chosen, outcomes, _work_reason,
              hint=WORK_HINT)


def test_work_on_positions(student, explore_runs, evaluated_runs):
    """explore and getEvaluatedMoves expand exactly the nodes alpha-beta expands on tic-tac-toe"""
    chosen, outcomes = explore_runs
    check_searches("explore did not do the work of alpha-beta", chosen, outcomes, _work_reason,
              hint=WORK_HINT)
    chosen, outcomes = evaluated_runs

    def judge(case, outcome):
        got, want = outcome.value, case.expected
        nodes = {repr(m): n for _, m, n in got["moves"]} if type(got["moves"]) is list else {}
        for _, m, n in want["moves"]:
            if nodes.get(repr(m)) != n:
                return (f"reported {short(nodes.get(repr(m)))} nodes for move {m}; "
                        f"alpha-beta expands {n}")
        gc, wc = got["game"]["counts"], want["game"]["counts"]
        if gc["evaluate"] != wc["evaluate"]:
            return (f"called evaluate {gc['evaluate']} times; alpha-beta calls it "
                    f"{wc['evaluate']} times")
        return None
    check_searches("getEvaluatedMoves did not do the work of alpha-beta", chosen, outcomes, judge,
              hint="reset treeNodeCounter to 0 before each move, search it with the full "
                   "window, and record the counter afterwards")


@functools.cache
def leaf_cases():
    chosen = []
    for cells in sorted(random.Random(8).sample(positions(), 800), key=lambda c: (marks(c), c)):
        chosen.append(_search_case("NegaMax(board).explore(0, -infinity, infinity)",
                                   (cells, 0, -INF, INF), draw(cells), "explore"))
    for depth in (1, 4):
        for cells in decided_positions():
            chosen.append(_search_case(f"NegaMax(board).explore({depth}, -infinity, infinity)",
                                       (cells, depth, -INF, INF), draw(cells), "explore"))
    for name, spec in trees():
        chosen.append(_search_case("NegaMax(tree).explore(0, -infinity, infinity)",
                                   (spec, 0, -INF, INF), tree_text(name, spec), "explore"))
    chosen.sort(key=lambda c: (len(c.args[0]) if isinstance(c.args[0], tuple) else 0,
                               c.args[1]))
    return chosen


def test_explore_leaves(student):
    """explore evaluates a leaf (depth 0, or a decided game) once, from the mover's view"""
    chosen = leaf_cases()

    def judge(case, outcome):
        got, want = outcome.value, case.expected
        if not number(got["value"]) or got["value"] != want["value"]:
            side = "player 2" if "player 2 to move" in (case.position or "") else "the mover"
            return (f"returned {short(got['value'])}: a leaf is worth evaluate() from the "
                    f"view of {side}")
        if got["nodes"] != 0:
            return f"counted {short(got['nodes'])} expanded nodes at a leaf"
        if got["game"]["counts"]["evaluate"] != 1:
            return f"called evaluate {got['game']['counts']['evaluate']} times, not once"
        if got["game"]["counts"]["makeMove"]:
            return "made a move from a leaf: a decided game is never searched further"
        return None
    check_searches("explore got a leaf wrong", chosen, run(student, "explore", chosen), judge,
              hint="at depth <= 0 or without moves: return evaluate() if player 1 is to move, "
                   "-evaluate() if player 2 is")


@functools.cache
def depth_cases():
    chosen = []
    for depth in (1, 2, 3, 4):
        for cells in sample(40, 0, 6, 50 + depth):
            chosen.append(_search_case(f"NegaMax(board).explore({depth}, -infinity, infinity)",
                                       (cells, depth, -INF, INF), draw(cells), "explore"))
        for name, spec in trees():
            chosen.append(_search_case(f"NegaMax(tree).explore({depth}, -infinity, infinity)",
                                       (spec, depth, -INF, INF), tree_text(name, spec),
                                       "explore"))
    return chosen


def test_depth_limit(student):
    """explore looks exactly `depth` half-moves ahead and evaluates only there (or at decided games)"""
    chosen = depth_cases()

    def judge(case, outcome):
        got, depth = outcome.value["game"], case.args[1]
        if got["max_ply"] > depth:
            return (f"made moves {got['max_ply']} half-moves deep with depth {depth}: "
                    "the depth limit is off by one")
        above = sorted(int(p) for p in got["open_evaluate_plies"] if int(p) < depth)
        if above:
            return (f"called evaluate on an undecided position {above[0]} half-move(s) below "
                    f"the root, above the depth limit {depth}")
        return None
    check_searches("explore did not respect its depth limit", chosen,
              run(student, "explore", chosen), judge,
              hint="depth counts the half-moves still to look ahead: evaluate when it "
                   "reaches 0, and only then (or when there are no moves)")


@functools.cache
def window_cases():
    chosen = []
    windows = ((-1, 1), (0, 1), (-1, 0), (-15, -11), (11, 13), (-2, 2), (5, 30))
    for index, cells in enumerate(sample(120, 4, 8, 60)):
        for alpha, beta in (windows[index % len(windows)], windows[(index + 3) % len(windows)]):
            chosen.append(_search_case(f"NegaMax(board).explore({FULL}, {alpha}, {beta})",
                                       (cells, FULL, alpha, beta), draw(cells), "explore"))
    for name, spec in trees():
        for depth in (2, 3):
            for alpha, beta in ((-1, 1), (3, 4), (5, 8), (-7, -5)):
                chosen.append(_search_case(f"NegaMax(tree).explore({depth}, {alpha}, {beta})",
                                           (spec, depth, alpha, beta), tree_text(name, spec),
                                           "explore"))
    return chosen


def test_fail_hard_windows(student):
    """explore with a narrow window is fail-hard: it returns a value inside [alpha, beta]"""
    chosen = window_cases()

    def judge(case, outcome):
        got = outcome.value["value"]
        if not number(got) or got != case.expected["value"]:
            alpha, beta = case.args[2], case.args[3]
            inside = number(got) and alpha <= got <= beta
            return f"returned {short(got)}" + ("" if inside else
                                               f", outside the window [{alpha}, {beta}]")
        return None
    check_searches("explore returned the wrong value for a narrow window", chosen,
              run(student, "explore", chosen), judge,
              hint="fail-hard: return beta on a cut, and alpha (raised by better children) "
                   "after the last move")


def test_board_is_restored(student, explore_runs, evaluated_runs, best_runs, tree_runs):
    """every search leaves the board exactly as it found it (make/undo discipline)"""
    for runs in (explore_runs, tree_runs, evaluated_runs, best_runs):
        chosen, outcomes = runs

        def judge(case, outcome):
            game = _game(outcome)
            if game is None:
                return None     # no data: the value tests report this call
            if game["violations"]:
                return game["violations"][0]
            if game["pending"]:
                return (f"left the moves {', '.join(game['pending'])} on the board "
                        "(made, never taken back)")
            if not game["restored"]:
                return "left the board different from before the search"
            return None
        name = chosen[0].call.split(".")[1].split("(")[0]
        answered = [(c, o) for c, o in zip(chosen, outcomes) if o.answered or o.failure]
        try:
            check_all(f"{name} broke the make/undo discipline", [c for c, _ in answered],
                      [o for _, o in answered], judge,
                      hint="every makeMove needs an undoMove of the same move before you "
                           "return, on a cut too; take back the last move made first")
        except CheckFailed as failure:
            if failure.problem:
                failure.got, failure.problem = failure.problem, None
            raise

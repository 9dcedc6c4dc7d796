"""Hidden suite for gametree: rules, minimax, alpha-beta with Bremse, the player, the book.

Expected values come from the reference in solutions/gametree/, run in this
trusted process. The student's searches run in the sandbox over game objects
of ours (child_kit.py): `KitGame` (kitgame.py) for real k-in-a-row positions
and `TreeGame` (autograder/gametrees.py) for the hand-built trees in
autograder/gametrees/. Both record every nextstates and evaluation call, so a
check compares not only the value a search returns but the exact work it did
with the work of the reference over an identical game object here:

* values: the same value as the reference at the same depth limit with the
  same evaluation, on every reachable tic-tac-toe position and on seeded
  samples of the 4 x 3 and 4 x 4 boards, and a returned successor that is
  legal and attains that value (any equally good successor passes);
* technique (the handout fixes child order, the cut rule and the depth rule):
  the exact nodes expanded and evaluated, in order, on the trees, and the
  exact numbers on real positions.

Positions are ordered smallest first, so the feedback shows the simplest case
a function gets wrong.
"""

import functools
import math
import random

from autograder import gametrees
from autograder.grading.checks import Case, CheckFailed, check_all, describe, require, short
from autograder.grading.reference import load_reference
from autograder.suites.gametree.kitgame import KitGame

ref = load_reference("gametree", "gametree")
INF = math.inf
M = "gametree."
K = "kit."
B3X3, B4X3, B4X4 = (3, 3, 3), (4, 3, 3), (4, 4, 3)
BOARD_NAMES = {B3X3: "tic-tac-toe", B4X3: "4 x 3", B4X4: "4 x 4"}
# Depth limits below this many marks on tic-tac-toe (full-depth searches
# start at it), so the whole corpus stays fast even without pruning.
FULL_DEPTH_MARKS = 5
ORDER_HINT = ("children in nextstates order; a child replaces the best only if strictly "
              "better; cut when best >= beta (max) or best <= alpha (min), after every child")


# ------------------------------------------------------------------ positions
def x_to_move(state):
    return len(state) % 2 == 0


def fmt(x):
    if isinstance(x, float) and math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return repr(x)


@functools.cache
def ref_game(board):
    """The reference's Game for a board shape, made once (it caches its lines)."""
    return ref.Game(*board)


def draw(state, board):
    game = ref_game(tuple(board))
    mover = "x" if x_to_move(state) else "o"
    head = f"{BOARD_NAMES.get(tuple(board), board)}, state {state}"
    tail = "game over" if KitGame(*board).decided(state) else f"{mover} to move"
    return f"{head}\n{ref.show(state, game)}\n({tail})"


@functools.cache
def reachable(board):
    """Every position reachable in `board`, one state each, fewest marks first."""
    game = KitGame(*board)
    seen, todo = {}, [[]]
    while todo:
        state = todo.pop()
        key = (frozenset(state[0::2]), frozenset(state[1::2]))
        if key in seen:
            continue
        seen[key] = state
        if not game.decided(state):
            todo.extend(game.nextstates(state))
    return tuple(tuple(s) for s in sorted(seen.values(), key=lambda s: (len(s), s)))


@functools.cache
def sample(board, count, seed, low, high, decided=False):
    """`count` distinct states with low..high marks by seeded random play,
    undecided ones (or, with decided=True, decided ones with free cells)."""
    rng = random.Random(seed)
    game = KitGame(*board)
    found, seen = [], set()
    for _ in range(count * 200):
        if len(found) == count:
            break
        target, state = rng.randint(low, high), []
        while len(state) < target and not game.decided(state):
            state = rng.choice(game.nextstates(state))
        if len(state) < low or state_key(state) in seen:
            continue
        is_decided = game.decided(state)
        if decided != is_decided or (decided and len(state) >= game.cells):
            continue
        seen.add(state_key(state))
        found.append(tuple(state))
    return tuple(sorted(found, key=lambda s: (len(s), s)))


def state_key(state):
    return (frozenset(state[0::2]), frozenset(state[1::2]))


# ------------------------------------------------------------------ the reference
def ref_search(function, state, board, mode="exact", alpha=-INF, beta=INF, bremse=INF):
    """The reference's run over a fresh KitGame: what the kit returns for the student."""
    state = list(state)
    game = KitGame(*board, mode=mode, root_len=len(state))
    stats = ref.SearchStats()
    search = getattr(ref, function)
    if function in ("maximize", "minimize"):
        result = search(state, game, stats)
    else:
        result = search(state, alpha, beta, bremse, game, stats)
    return {"result": result, "game": game.summary(), "stats": stats.as_dict()}


@functools.cache
def ref_value(state, board, mode, bremse):
    """Value of `state` at depth limit `bremse` with the full window (reference)."""
    function = "maximize_ab" if x_to_move(state) else "minimize_ab"
    return ref_search(function, state, board, mode, bremse=bremse)["result"][1]


@functools.cache
def solved(state, board):
    return ref.solve(list(state), ref_game(tuple(board)), _tables(board))


@functools.cache
def _tables(board):
    return {}


@functools.cache
def tree(name):
    return gametrees.load_tree(name)


def tree_depths(name):
    t = tree(name)
    depth, todo = {t["root"]: 0}, [t["root"]]
    while todo:
        node = todo.pop()
        for kid in t["children"].get(node, []):
            depth[kid] = depth[node] + 1
            todo.append(kid)
    return depth


def draw_tree(name):
    t = tree(name)
    lines = [f"game tree {name!r} ({'max' if t.get('max_to_move', True) else 'min'} "
             "to move at the root; [n] = heuristic value of an inner node)"]

    def walk(node, indent, is_max):
        kids = t["children"].get(node, [])
        if not kids:
            lines.append(f"{'  ' * indent}{node} = {fmt(t['values'][node])}")
            return
        value = f" [{fmt(t['values'][node])}]" if node in t["values"] else ""
        lines.append(f"{'  ' * indent}{node} ({'max' if is_max else 'min'}){value}")
        for kid in kids:
            walk(kid, indent + 1, not is_max)
    walk(t["root"], 0, t.get("max_to_move", True))
    return "\n".join(lines)


def ref_tree(function, name, alpha=-INF, beta=INF, bremse=INF):
    game = gametrees.TreeGame(tree(name))
    stats = ref.SearchStats()
    search = getattr(ref, function)
    if function in ("maximize", "minimize"):
        result = search(game.root, game, stats)
    else:
        result = search(game.root, alpha, beta, bremse, game, stats)
    return {"result": result, "expanded": list(game.expanded),
            "evaluated": list(game.evaluated), "stats": stats.as_dict()}


def tree_root_search(name, windowed=True):
    is_max = tree(name).get("max_to_move", True)
    if windowed:
        return "maximize_ab" if is_max else "minimize_ab"
    return "maximize" if is_max else "minimize"


# ------------------------------------------------------------------ cases
class SearchCase(Case):
    """A Case with what the judges need besides the expected value."""

    def __init__(self, call, args, position, expected, **info):
        super().__init__(call, args, position, expected)
        self.info = info


def call_text(function, state, board, mode, alpha=-INF, beta=INF, bremse=INF):
    game = f"Game{tuple(board)}" + ("" if mode == "exact" else " with a heuristic evaluation")
    if function in ("maximize", "minimize"):
        return f"{function}({list(state)}, {game})"
    return f"{function}({list(state)}, {fmt(alpha)}, {fmt(beta)}, {fmt(bremse)}, {game})"


def position_case(state, board, mode="exact", bremse=INF, alpha=-INF, beta=INF,
                  windowed=True, with_stats=False):
    state = list(state)
    if windowed:
        function = "maximize_ab" if x_to_move(state) else "minimize_ab"
    else:
        function = "maximize" if x_to_move(state) else "minimize"
    expected = ref_search(function, state, board, mode, alpha, beta, bremse)
    where = {"state": state, "board": list(board), "mode": mode}
    kwargs = {"with_stats": with_stats}
    if windowed:
        kwargs.update(alpha=alpha, beta=beta, bremse=bremse)
    return SearchCase(call_text(function, state, board, mode, alpha, beta, bremse),
                      (where,), draw(state, board), expected, function=function,
                      state=state, board=board, mode=mode, bremse=bremse, kwargs=kwargs)


def tree_case(name, bremse=INF, alpha=-INF, beta=INF, windowed=True, with_stats=False):
    function = tree_root_search(name, windowed)
    expected = ref_tree(function, name, alpha, beta, bremse)
    kwargs = {"with_stats": with_stats}
    if windowed:
        kwargs.update(alpha=alpha, beta=beta, bremse=bremse)
        call = f"{function}({tree(name)['root']!r}, {fmt(alpha)}, {fmt(beta)}, {fmt(bremse)}, game)"
    else:
        call = f"{function}({tree(name)['root']!r}, game)"
    return SearchCase(call, ({"tree": name},), draw_tree(name), expected, function=function,
                      tree=name, bremse=bremse, kwargs=kwargs)


def run_cases(student, chosen):
    """Run search cases grouped by function (one pipelined request each), in order."""
    outcomes = [None] * len(chosen)
    by_function = {}
    for index, case in enumerate(chosen):
        by_function.setdefault(case.info["function"], []).append(index)
    for function, indexes in by_function.items():
        # student.map passes positional arguments: the kit's parameter order
        args = [chosen[i].args + _positional(chosen[i].info["kwargs"], function)
                for i in indexes]
        for i, outcome in zip(indexes, student.map(K + function, args)):
            outcomes[i] = outcome
    return outcomes


def _positional(kwargs, function):
    if function in ("maximize", "minimize"):
        return (kwargs.get("with_stats", False),)
    return (kwargs.get("alpha", -INF), kwargs.get("beta", INF), kwargs.get("bremse", INF),
            kwargs.get("with_stats", False))


def pair(outcome):
    """(best, value) from a kit answer, or raise a reason string."""
    got = outcome.value
    result = got.get("result") if isinstance(got, dict) else None
    if type(result) not in (tuple, list) or len(result) != 2:
        return None, f"returned {short(result)}, not a pair (best_state, value)"
    best, value = result
    if type(value) not in (int, float):
        return None, f"returned the value {short(value)}, not a number"
    return (best, value), None


def got_text(outcome):
    got = outcome.value
    if isinstance(got, dict) and "result" in got:
        return f"returned {short(got['result'])}"
    return describe(outcome)


# ------------------------------------------------------------------ judges
def judge_value(case, outcome):
    """The right value; best_state None where the search stops, else a legal
    successor that attains the value (at one ply less of depth limit)."""
    answer, reason = pair(outcome)
    if reason:
        return reason
    best, value = answer
    want_best, want_value = case.expected["result"]
    if value != want_value:
        return f"the value {fmt(value)} is wrong"
    state, board, mode, bremse = (case.info[k] for k in ("state", "board", "mode", "bremse"))
    if want_best is None:
        if best is not None:
            return (f"best_state must be None where the search stops (game over or bremse 0), "
                    f"not {short(best)}")
        return None
    if type(best) is not list or best[:-1] != state or len(best) != len(state) + 1 \
            or type(best[-1]) is not int or best[-1] in state \
            or not 0 <= best[-1] < board[0] * board[1]:
        return f"best_state {short(best)} is not a successor of the state"
    if case.info["function"] in ("maximize", "minimize"):
        attained = solved(tuple(best), tuple(board))
    else:
        attained = ref_value(tuple(best), tuple(board), mode, bremse - 1)
    if attained != value:
        return f"best_state {short(best)} does not attain the value {fmt(value)}"
    return None


def _sequence_reason(kind, got, want):
    if got == want:
        return None
    if type(got) is not list:
        return f"the game saw no {kind} nodes"
    for index, (a, b) in enumerate(zip(got, want)):
        if a != b:
            return (f"{kind} {a!r} as its {ordinal(index + 1)} {kind} node, where the "
                    f"handout's rules have {kind} a different node")
    if len(got) > len(want):
        return (f"{kind} {got[len(want)]!r} after the point where the handout's rules have "
                f"{kind} every node they need ({len(got)} {kind} nodes in all)")
    return f"{kind} only {len(got)} nodes: it stopped too early, after {got[-1] if got else 'none'!r}"


def ordinal(n):
    return f"{n}{'tsnrhtdd'[(n // 10 % 10 != 1) * (n % 10 < 4) * n % 10::4]}"


def judge_tree(case, outcome):
    got = outcome.value if isinstance(outcome.value, dict) else {}
    want = case.expected
    reason = (_sequence_reason("expanded", got.get("expanded"), want["expanded"])
              or _sequence_reason("evaluated", got.get("evaluated"), want["evaluated"]))
    if reason:
        return reason
    answer, reason = pair(outcome)
    if reason:
        return reason
    return judge_result(case, outcome)


def judge_tree_depth(case, outcome):
    """Like judge_tree, but names a depth-limit mistake first."""
    got = outcome.value if isinstance(outcome.value, dict) else {}
    t, bremse = tree(case.info["tree"]), case.info["bremse"]
    depths = tree_depths(case.info["tree"])
    for node in got.get("evaluated") or []:
        if node in depths and depths[node] < bremse and not gametrees.is_leaf(t, node):
            return (f"evaluated {node!r} at ply {depths[node]}, above the depth limit "
                    f"(bremse {fmt(bremse)}): only a decided game is evaluated there")
    for node in got.get("expanded") or []:
        if node in depths and depths[node] >= bremse:
            return (f"expanded {node!r} at ply {depths[node]}, past the depth limit "
                    f"(bremse {fmt(bremse)}): bremse == 0 there, so it must be evaluated")
    return judge_result(case, outcome)


def judge_tree_decided(case, outcome):
    got = outcome.value if isinstance(outcome.value, dict) else {}
    t = tree(case.info["tree"])
    for node in got.get("expanded") or []:
        if node in t["values"] and gametrees.is_leaf(t, node):
            return f"asked nextstates for {node!r}, a decided game (terminal_test is true there)"
    return judge_result(case, outcome)


def work_reason(got, want, bremse=INF, aspects=("decided", "depth", "work")):
    """Compare a KitGame summary with the reference's; name the first difference
    among the aspects asked for."""
    if not isinstance(got, dict):
        return "the game saw no calls"
    if "decided" in aspects and got.get("decided_expanded"):
        return (f"asked nextstates for a decided game {got['decided_expanded']} times "
                "(the search went on after a line was complete)")
    plies = got.get("open_eval_plies") or []
    early = [p for p in plies if p < bremse]
    if "depth" in aspects and early:
        return (f"evaluated an undecided state at ply {min(early)}, above the depth limit "
                f"(bremse {fmt(bremse)})")
    late = [p for p in plies if p > bremse]
    if "depth" in aspects and (late or got.get("max_expand_ply", -1) >= bremse):
        return f"searched past the depth limit (bremse {fmt(bremse)})"
    if "work" not in aspects:
        return None
    for key, words in (("expanded", "expanded"), ("evaluations", "evaluation calls")):
        if got.get(key) != want.get(key):
            more = "more" if (got.get(key) or 0) > want[key] else "fewer"
            return (f"made {got.get(key)} {words}: {more} than the handout's rules "
                    f"({'no or too little pruning?' if more == 'more' else 'pruned too much?'})")
    if got.get("digest") != want.get("digest"):
        return "visited the right number of nodes, but not in the handout's order"
    return None


def judge_work(case, outcome, aspects=("decided", "depth", "work")):
    got = outcome.value if isinstance(outcome.value, dict) else {}
    reason = work_reason(got.get("game"), case.expected["game"], case.info["bremse"], aspects)
    if reason:
        return reason
    return judge_result(case, outcome)


def judge_result(case, outcome):
    """Exactly the reference's (best_state, value): the rules fix both."""
    answer, reason = pair(outcome)
    if reason:
        return reason
    if tuple(answer) != tuple(case.expected["result"]):
        return (f"returned {short(tuple(answer))}, not the (best_state, value) the "
                "handout's rules give")
    return None


def judge_decided_positions(case, outcome):
    got = outcome.value if isinstance(outcome.value, dict) else {}
    summary = got.get("game") or {}
    if summary.get("decided_expanded"):
        return "asked nextstates for a decided game: the search went on after a line was complete"
    if summary.get("expanded"):
        return "expanded the root although the game is over there"
    return judge_value(case, outcome)


def check_searches(student, summary, chosen, judge, hint=ORDER_HINT):
    first_failure(summary, chosen, run_cases(student, chosen), judge, hint)


def first_failure(summary, chosen, outcomes, judge, hint):
    """check_all, but 'got' shows the search's returned pair, not the kit's record."""
    failures, first = 0, None
    for case, outcome in zip(chosen, outcomes):
        require(outcome)
        if outcome.failure == "unreached":
            failures += 1
            continue
        reason = describe(outcome) if not outcome.answered else judge(case, outcome)
        if reason is not None:
            failures += 1
            first = first or (case, outcome, reason)
    if first:
        case, outcome, reason = first
        got = got_text(outcome) if outcome.answered else describe(outcome)
        raise CheckFailed(summary, call=case.call, position=case.position,
                          expected=expected_text(case), got=got, hint=hint,
                          problem=None if reason == got else reason,
                          failures=failures, total=len(chosen))


def expected_text(case):
    want = case.expected
    best, value = want["result"]
    text = f"value {fmt(value)}"
    if best is None:
        text += ", best_state None"
    else:
        text += f", best_state {best!r} (or an equally good successor)"
    if "expanded" in want and isinstance(want["expanded"], list):
        text += f"; expanded {want['expanded']}; evaluated {want['evaluated']}"
    elif "game" in want:
        text += f"; {want['game']['expanded']} expanded, {want['game']['evaluations']} evaluated"
    return text


# ------------------------------------------------------------------ the rules
RULE_BOARDS = (B3X3, B4X3, B4X4)


@functools.cache
def rule_states():
    """Every reachable tic-tac-toe position and samples of the bigger boards."""
    states = [(B3X3, s) for s in reachable(B3X3)]
    for board, seed in ((B4X3, 11), (B4X4, 12)):
        states += [(board, s) for s in sample(board, 250, seed, 0, board[0] * board[1] - 1)]
        states += [(board, s) for s in sample(board, 100, seed + 100, 5, board[0] * board[1],
                                              decided=True)]
    return tuple(sorted(states, key=lambda bs: (len(bs[1]), bs[0], bs[1])))


def game_handles(student, boards):
    handles = {}
    for board in boards:
        outcome = student.new(M + "Game", *board)
        require(outcome)
        if not outcome.answered:
            raise CheckFailed("could not create a Game object", call=f"Game{board}",
                              got=describe(outcome))
        handles[board] = outcome.value
    return handles


def rule_check(student, function, expected_of, summary, hint, return_args=False,
               judge=None):
    handles = game_handles(student, RULE_BOARDS)
    chosen = _rule_cases(function, expected_of)
    args = [(list(c.args[0]), handles[c.args[1]]) for c in chosen]
    outcomes = student.map(M + function, args, return_args=return_args)

    def exact(case, outcome):
        got, want = outcome.value, case.expected
        if type(got) is not type(want) or got != want:
            return f"returned {short(got)}"
        return None
    check_all(summary, chosen, outcomes, judge or exact, hint=hint)
    return chosen, outcomes


@functools.cache
def _rule_cases(function, expected_of):
    return [Case(f"{function}({list(s)}, Game{board})", (s, board), draw(list(s), board),
                 expected_of(list(s), board)) for board, s in rule_states()]


def _ref_nextstates(state, board):
    return ref.nextstates(state, ref_game(tuple(board)))


def _ref_evaluation(state, board):
    return ref.evaluation(state, ref_game(tuple(board)))


def _ref_terminal(state, board):
    return ref.terminal_test(state, ref_game(tuple(board)))


# ------------------------------------------------------------------ the checks
WINNING_BOARDS = ((3, 3, 3), (4, 3, 3), (3, 4, 3), (4, 4, 3), (4, 4, 4), (5, 4, 3),
                  (5, 5, 4), (6, 2, 2), (2, 2, 3), (1, 5, 3))


def test_winning_lines(student):
    """winning_lines finds every line exactly once, on ten board shapes"""
    handles = game_handles(student, WINNING_BOARDS)
    chosen = [Case(f"winning_lines(Game{board})", (board,), None,
                   sorted(tuple(sorted(line)) for line in ref.winning_lines(ref_game(board))))
              for board in WINNING_BOARDS]
    outcomes = student.map(M + "winning_lines", [(handles[b],) for b in WINNING_BOARDS])

    def judge(case, outcome):
        got = outcome.value
        if type(got) is not list:
            return f"returned a {type(got).__name__}, not a list"
        try:
            lines = sorted(tuple(sorted(line)) for line in got)
        except TypeError:
            return f"returned {short(got)}: each line must be a set of cell numbers"
        if any(len(set(line)) != len(line) for line in lines):
            return "a line names the same cell twice"
        if len(lines) != len(set(lines)):
            return "returned a line more than once"
        if lines != case.expected:
            missing = sorted(set(case.expected) - set(lines))
            if missing:
                return f"misses {len(missing)} lines, for example {set(missing[0])}"
            extra = sorted(set(lines) - set(case.expected))
            return f"returned {len(extra)} sets that are not lines, for example {set(extra[0])}"
        return None
    check_all("winning_lines returned the wrong lines", chosen, outcomes, judge,
              hint="rows, columns and both diagonal directions; a line may not wrap "
                   "around the edge of the board")


def test_nextstates(student):
    """nextstates lists every successor in cell order, without changing the state"""
    def judge(case, outcome):
        got, want = outcome.value, case.expected
        if got != want or type(got) is not list or any(type(s) is not list for s in got):
            return f"returned {short(got)}"
        return None
    rule_check(student, "nextstates", _ref_nextstates, "nextstates returned the wrong states",
               "a new list per free cell, state + [cell], by increasing cell", judge=judge)
    # The state must come back unchanged. A Game handle cannot be sent back
    # with the arguments, so this part uses the default game (tic-tac-toe).
    chosen = [Case(f"nextstates({list(s)})", (list(s),), draw(list(s), B3X3), list(s))
              for s in reachable(B3X3)[::7]]
    outcomes = student.map(M + "nextstates", [c.args for c in chosen], return_args=True)

    def kept(case, outcome):
        after = outcome.args_after[0] if outcome.args_after else None
        return None if after == case.expected else f"changed the state into {short(after)}"
    check_all("nextstates changed the state it was given", chosen, outcomes, kept,
              hint="build each successor as a new list: state + [cell]")


def test_evaluation(student):
    """evaluation scores 1, -1 or 0 from x's side on every reachable 3x3 position and more"""
    rule_check(student, "evaluation", _ref_evaluation, "evaluation returned the wrong value",
               "x owns the cells at even places of the list (x moves first), "
               "o the ones at odd places; 1 when x has a line")


def test_terminal_test(student):
    """terminal_test knows when the game is over (a line, or a full board)"""
    rule_check(student, "terminal_test", _ref_terminal, "terminal_test was wrong",
               "over means: a player owns a line, or no cell is free")


# -- plain minimax
@functools.cache
def minimax_value_cases():
    states = [(B3X3, s) for s in reachable(B3X3) if len(s) >= 6]
    states += [(B3X3, s) for s in sample(B3X3, 40, 20, 5, 5)]
    states += [(B4X3, s) for s in sample(B4X3, 40, 21, 8, 11)]
    states.sort(key=lambda bs: (len(bs[1]), bs[0], bs[1]))
    return tuple(position_case(s, b, windowed=False) for b, s in states)


def test_minimax_values(student):
    """maximize and minimize return the game value and a successor that attains it"""
    check_searches(student, "maximize / minimize returned a wrong result",
                   list(minimax_value_cases()), judge_value,
                   hint="best_state is a successor with the best value (None when the game "
                        "is over); the value is seen from x")


@functools.cache
def minimax_technique_cases():
    chosen = [tree_case(name, windowed=False) for name in
              ("aima-5-2", "ties-deep", "depth-limit", "deep-cutoff", "min-root")]
    chosen += [position_case(s, B3X3, windowed=False)
               for s in sample(B3X3, 20, 31, 4, 6)]
    return tuple(chosen)


def test_minimax_visits_every_node(student):
    """maximize / minimize search every node in child order and stop at decided games"""
    def judge(case, outcome):
        if "tree" in case.info:
            return judge_tree_decided(case, outcome)
        return judge_work(case, outcome)
    check_searches(student, "plain minimax did not search the tree the handout's way",
                   list(minimax_technique_cases()), judge,
                   hint="no pruning and no depth limit in maximize / minimize: every child of "
                        "every undecided node is searched, in nextstates order")


# -- alpha-beta: values
def _bremse_for(state):
    return INF if len(state) >= FULL_DEPTH_MARKS else 2


@functools.cache
def ab_values_3x3_cases():
    return tuple(position_case(s, B3X3, bremse=_bremse_for(s)) for s in reachable(B3X3))


def test_alphabeta_values_3x3(student):
    """alpha-beta returns the right value on all 5,478 tic-tac-toe positions"""
    # full depth from 5 marks on, depth limit 2 before
    check_searches(student, "maximize_ab / minimize_ab returned a wrong result",
                   list(ab_values_3x3_cases()), judge_value,
                   hint="with the full window alpha-beta returns the minimax value at the "
                        "same depth limit")


@functools.cache
def ab_values_big_cases():
    chosen = []
    for board, seed in ((B4X3, 41), (B4X4, 42)):
        for index, state in enumerate(sample(board, 40, seed, 0, 8)):
            chosen.append(position_case(state, board, "lines", bremse=1 + index % 3))
    chosen += [position_case(s, B4X3) for s in sample(B4X3, 30, 43, 6, 10)]
    return tuple(sorted(chosen, key=lambda c: (len(c.info["state"]), c.info["bremse"])))


def test_alphabeta_values_bigger_boards(student):
    """alpha-beta returns the right value on 4 x 3 and 4 x 4 positions, depth-limited too"""
    check_searches(student, "maximize_ab / minimize_ab returned a wrong result",
                   list(ab_values_big_cases()), judge_value,
                   hint="at bremse 0 the state is evaluated; bremse 1 evaluates its children")


# -- alpha-beta: technique on trees and positions
@functools.cache
def prune_cases():
    chosen = [tree_case(name) for name in ("aima-5-2", "deep-cutoff", "min-root")]
    chosen.append(tree_case("depth-limit"))
    return tuple(chosen)


def test_alphabeta_prunes_like_the_reference(student):
    """alpha-beta expands and evaluates exactly the nodes the handout's rule does"""
    check_searches(student, "alpha-beta searched other nodes than the handout's rule",
                   list(prune_cases()), judge_tree)


@functools.cache
def tie_cases():
    chosen = [tree_case("ties-deep")]
    chosen += [position_case(s, B3X3) for s in sample(B3X3, 30, 51, 3, 6)]
    return tuple(chosen)


def test_alphabeta_cuts_on_ties(student):
    """alpha-beta cuts when the best value only reaches the bound (>= beta, <= alpha)"""
    def judge(case, outcome):
        return judge_tree(case, outcome) if "tree" in case.info else judge_work(case, outcome)
    check_searches(student, "alpha-beta did not cut where the bound is reached",
                   list(tie_cases()), judge,
                   hint="a max node stops once best >= beta, a min node once best <= alpha: "
                        "equal is enough")


@functools.cache
def depth_cases():
    chosen = []
    for name in ("depth-limit", "deep-cutoff", "min-root"):
        chosen += [tree_case(name, bremse) for bremse in (0, 1, 2, 3)]
    for board, seed in ((B3X3, 61), (B4X3, 62), (B4X4, 63)):
        for index, state in enumerate(sample(board, 12, seed, 0, 5)):
            chosen.append(position_case(state, board, "lines", bremse=1 + index % 3))
    return tuple(chosen)


def test_alphabeta_depth_limit(student):
    """alpha-beta evaluates undecided states exactly at the depth limit (Bremse)"""
    def judge(case, outcome):
        if "tree" in case.info:
            return judge_tree_depth(case, outcome)
        return judge_work(case, outcome, aspects=("depth",))
    check_searches(student, "alpha-beta did not respect the depth limit",
                   list(depth_cases()), judge,
                   hint="bremse is the number of plies still allowed: evaluate when it is 0, "
                        "otherwise search the children with bremse - 1; evaluation is called "
                        "for evaluated nodes only (use terminal_test to see a won game)")


@functools.cache
def decided_cases():
    chosen = [tree_case("depth-limit", bremse) for bremse in (INF, 3)]
    for board, seed in ((B3X3, 71), (B4X3, 72), (B4X4, 73)):
        chosen += [position_case(s, board, bremse=b)
                   for s, b in zip(sample(board, 15, seed, 5, 12, decided=True),
                                   (INF, 5, 2) * 5)]
    chosen += [position_case(s, B4X3) for s in sample(B4X3, 15, 74, 6, 9)]
    return tuple(chosen)


def test_alphabeta_stops_at_decided_games(student):
    """alpha-beta never searches past a decided game, whatever bremse allows"""
    def judge(case, outcome):
        if "tree" in case.info:
            return judge_tree_decided(case, outcome)
        if KitGame(*case.info["board"]).decided(case.info["state"]):
            return judge_decided_positions(case, outcome)
        return judge_work(case, outcome, aspects=("decided",))
    check_searches(student, "alpha-beta searched past the end of a game",
                   list(decided_cases()), judge,
                   hint="when terminal_test(state) holds the state is evaluated at once, "
                        "even with plies left")


@functools.cache
def window_cases():
    chosen = [tree_case("aima-5-2", alpha=5, beta=10), tree_case("aima-5-2", alpha=-INF, beta=3),
              tree_case("deep-cutoff", alpha=4, beta=13), tree_case("min-root", alpha=-15, beta=0),
              tree_case("ties-deep", alpha=5, beta=INF)]
    for index, state in enumerate(sample(B3X3, 20, 81, 2, 6)):
        window = ((-1, 0), (0, 1), (-INF, 0), (0, INF))[index % 4]
        chosen.append(position_case(state, B3X3, alpha=window[0], beta=window[1]))
    return tuple(chosen)


def test_alphabeta_window(student):
    """alpha-beta with a narrow window returns the handout's fail-soft result"""
    check_searches(student, "alpha-beta with a narrow window returned a wrong result",
                   list(window_cases()), judge_result,
                   hint="fail-soft: return best itself, even when it lies outside "
                        "(alpha, beta); do not clip it to the window")


@functools.cache
def work_cases():
    chosen = [position_case(s, B3X3) for s in sample(B3X3, 40, 91, 3, 6)]
    for board, seed in ((B4X3, 92), (B4X4, 93)):
        for index, state in enumerate(sample(board, 15, seed, 1, 7)):
            chosen.append(position_case(state, board, "lines", bremse=2 + index % 3))
    return tuple(sorted(chosen, key=lambda c: len(c.info["state"])))


def test_alphabeta_work_on_positions(student):
    """alpha-beta makes exactly the reference's nextstates and evaluation calls on real positions"""
    check_searches(student, "alpha-beta did other work than the handout's rules",
                   list(work_cases()), judge_work)


@functools.cache
def stats_cases():
    chosen = [tree_case(name, with_stats=True) for name in ("aima-5-2", "ties-deep", "min-root")]
    chosen += [tree_case("depth-limit", 2, with_stats=True),
               tree_case("deep-cutoff", windowed=False, with_stats=True)]
    chosen += [position_case(s, B3X3, with_stats=True) for s in sample(B3X3, 10, 95, 2, 6)]
    chosen += [position_case(s, B4X3, "lines", bremse=3, with_stats=True)
               for s in sample(B4X3, 10, 96, 1, 5)]
    chosen += [position_case(s, B3X3, windowed=False, with_stats=True)
               for s in sample(B3X3, 5, 97, 5, 7)]
    return tuple(chosen)


def test_search_stats(student):
    """the searches count nodes, expansions, evaluations and prunings in SearchStats"""
    def judge(case, outcome):
        got = outcome.value.get("stats") if isinstance(outcome.value, dict) else None
        want = case.expected["stats"]
        if got != want:
            wrong = [k for k in want if not isinstance(got, dict) or got.get(k) != want[k]]
            counted = {k: got.get(k) for k in wrong} if isinstance(got, dict) else got
            return f"counted {counted}, which is wrong for {', '.join(wrong)}"
        return None
    chosen = list(stats_cases())
    outcomes = run_cases(student, chosen)
    failures, first = 0, None
    for case, outcome in zip(chosen, outcomes):
        require(outcome)
        reason = describe(outcome) if not outcome.answered else judge(case, outcome)
        if reason:
            failures += 1
            first = first or (case, reason)
    if first:
        case, reason = first
        raise CheckFailed("the SearchStats counters are wrong", call=case.call + " with stats",
                          position=case.position, got=reason,
                          expected=str(case.expected["stats"]), failures=failures,
                          total=len(chosen),
                          hint="count each call of a search function once as a node, and as "
                               "expanded or evaluated; one pruning per cut (a break)")


# -- the player
@functools.cache
def move_cases():
    chosen = []
    for state in sample(B3X3, 40, 101, 2, 8):
        chosen.append((state, B3X3, "exact", INF))
    for state in sample(B4X3, 25, 102, 5, 10):
        chosen.append((state, B4X3, "exact", INF))
    for index, state in enumerate(sample(B4X4, 20, 103, 2, 9)):
        chosen.append((state, B4X4, "lines", 1 + index % 3))
    cases = []
    for state, board, mode, bremse in sorted(chosen, key=lambda c: len(c[0])):
        cases.append(Case(f"computer_move({list(state)}, Game{board}, {fmt(bremse)})"
                          + ("" if mode == "exact" else " with a heuristic evaluation"),
                          (list(state), list(board), mode, bremse), draw(list(state), board),
                          f"a successor of value {fmt(ref_value(state, board, mode, bremse))}"))
    return tuple(cases)


def test_computer_move_keeps_the_value(student):
    """computer_move plays for the side to move (x begins) and keeps the value"""
    chosen = list(move_cases())
    outcomes = student.map(K + "computer_move", [c.args for c in chosen])

    def judge(case, outcome):
        state, board, mode, bremse = case.args
        got = outcome.value.get("result") if isinstance(outcome.value, dict) else None
        if type(got) is not list or got[:-1] != state or len(got) != len(state) + 1 \
                or type(got[-1]) is not int or got[-1] in state \
                or not 0 <= got[-1] < board[0] * board[1]:
            return f"returned {short(got)}, not a successor of the state"
        want = ref_value(tuple(state), tuple(board), mode, bremse)
        if ref_value(tuple(got), tuple(board), mode, bremse - 1) != want:
            return f"the move to {short(got)} throws away the value {fmt(want)}"
        return None
    check_all("computer_move made a bad move", chosen, outcomes, judge,
              hint="maximize_ab when x is to move (len(state) even), minimize_ab when o is")


BOOK_CELLS = (15, 3, 12, 0, 9)


@functools.cache
def grader_book():
    """A legal book of unusual moves (no search would pick all of them)."""
    book, game = {}, KitGame(*B4X4)
    book[()] = [BOOK_CELLS[0]]
    for first in range(16):
        if first == BOOK_CELLS[0]:
            continue
        free = [c for c in BOOK_CELLS if c != first]
        book[(first,)] = [first, free[first % len(free)]]
    book[(15, 3)] = [15, 3, 12]
    assert all(not game.decided(list(k)) and v[:-1] == list(k) for k, v in book.items())
    return book


def test_computer_move_uses_the_book(student):
    """computer_move answers from the opening book, without searching, where it applies"""
    book = grader_book()
    states = [list(k) for k in book] + [[15, 3, 12, 0], [15, 1]]
    chosen = []
    for state in states:
        in_book = tuple(state) in book
        chosen.append(Case(f"computer_move({state}, Game(4, 4, 3), 3, book)",
                           (state, list(B4X4), "exact", 3, book), draw(state, B4X4),
                           book[tuple(state)] if in_book else "a successor found by search"))
    outcomes = student.map(K + "computer_move", [c.args for c in chosen])

    def judge(case, outcome):
        state = case.args[0]
        got = outcome.value if isinstance(outcome.value, dict) else {}
        result, work = got.get("result"), got.get("game") or {}
        if tuple(state) in book:
            if result != book[tuple(state)] or type(result) is not list:
                return f"returned {short(result)}, not the book's move"
            if work.get("expanded") or work.get("evaluations"):
                return "searched although the book has the answer"
            return None
        if type(result) is not list or result[:-1] != state or len(result) != len(state) + 1:
            return f"returned {short(result)} for a state the book does not know"
        if not work.get("evaluations"):
            return "did not search for a state the book does not know"
        return None
    check_all("computer_move did not use the opening book", chosen, outcomes, judge,
              hint="look up tuple(state) in the book first; search only when it is not there")


def test_opening_book_4x4(student):
    """the 4 x 4 opening book covers the openings, and every book move is legal and keeps the win"""
    outcome = student.call(M + "opening_book_4x4")
    require(outcome)
    if not outcome.answered:
        raise CheckFailed("opening_book_4x4 failed", call="opening_book_4x4()",
                          got=describe(outcome))
    book = outcome.value
    call = "opening_book_4x4()"
    if type(book) is not dict:
        raise CheckFailed("opening_book_4x4 must return a dict", call=call,
                          got=f"a {type(book).__name__}")
    if len(book) > 20000:
        raise CheckFailed("the opening book is too large to check (at most 20,000 entries)",
                          call=call, got=f"{len(book)} entries")
    missing = [k for k in [()] + [(c,) for c in range(16)] if k not in book]
    if missing:
        raise CheckFailed("the opening book misses required entries", call=call,
                          got=f"no entry for {short(missing)}",
                          hint="cover the empty board () and every first move of x, (0,) to (15,)")
    game = KitGame(*B4X4)
    bad = []
    for key in sorted(book, key=lambda k: (len(k), k) if type(k) is tuple else (99, ())):
        value = book[key]
        if type(key) is not tuple or not all(type(c) is int for c in key) \
                or len(set(key)) != len(key) or not all(0 <= c < 16 for c in key):
            bad.append((key, "the key is not a state as a tuple"))
        elif game.decided(list(key)):
            bad.append((key, "the game is already over there"))
        elif type(value) is not list or value[:-1] != list(key) or len(value) != len(key) + 1 \
                or type(value[-1]) is not int or value[-1] in key or not 0 <= value[-1] < 16:
            bad.append((key, f"{short(value)} is not a legal successor"))
        elif solved(tuple(value), B4X4) != solved(key, B4X4):
            bad.append((key, f"the move to {value} changes the game value from "
                             f"{solved(key, B4X4)} to {solved(tuple(value), B4X4)}"))
    if bad:
        key, reason = bad[0]
        raise CheckFailed("an opening-book move is illegal or gives the game value away",
                          call=f"book[{key!r}]", position=draw(list(key), B4X4)
                          if type(key) is tuple else None, got=f"book move {short(book[key])}",
                          problem=reason, failures=len(bad), total=len(book),
                          hint="check every book move with solve: solve(next_state) must "
                               "equal solve(state)")


@functools.cache
def solve_cases():
    states = [(B3X3, s) for s in reachable(B3X3)[::3]]
    states += [(B4X3, s) for s in sample(B4X3, 80, 111, 2, 11)]
    states += [(B4X4, s) for s in sample(B4X4, 40, 112, 4, 15)]
    return tuple(Case(f"solve({list(s)}, Game{board})", (list(s), board), draw(list(s), board),
                      solved(s, board)) for board, s in states)


def test_solve(student):
    """solve returns the exact game value, and solves the empty 4 x 3 and 4 x 4 boards quickly"""
    handles = game_handles(student, RULE_BOARDS)

    def exact(case, outcome):
        if type(outcome.value) is not int or outcome.value != case.expected:
            return f"returned {short(outcome.value)}"
        return None
    chosen = list(solve_cases())
    outcomes = student.map(M + "solve", [(c.args[0], handles[c.args[1]]) for c in chosen])
    check_all("solve returned a wrong game value", chosen, outcomes, exact,
              hint="the value under perfect play, seen from x")
    empty = [Case(f"solve([], Game{board})", ([], board), draw([], board), solved((), board))
             for board in (B4X3, B4X4)]
    outcomes = student.map(M + "solve", [([], handles[c.args[1]]) for c in empty],
                           timeout=student.timeouts.call * 5)
    check_all("solve is wrong or too slow on an empty board", empty, outcomes, exact,
              hint="a transposition table keyed by (x's cells, o's cells) makes this fast")

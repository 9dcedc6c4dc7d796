"""Single-function bugs in muehle (issue 22), each appended to the correct example.

The format of tests/tictactoe/bugs.py (MODULE, CORRECT, BUGS = {function: (what
is wrong, code appended to the module)}, QUICK). Each bug's code is the correct
example's own definition of that one function with one line changed (asserted to
apply exactly once), appended, so it replaces the function and leaves every other
one as it was. A wrong memoize also decorates value_minimax again, as it would in
the student's file.

Two of them are older examples (`EXAMPLES`): the default run grades those
(QUICK), at no extra cost, since every example is graded anyway.
examples_build.py writes each of the others as examples/muehle/bug_<function>, so
the bugs are graded with the other examples in one batch (make test-all grades
them all); tests/muehle/test_grading.py asserts that each costs only its own
function's checks and the rubric's whole-program check, test_strength.
"""

import ast
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.conftest import ROOT  # noqa: E402

MODULE = "muehle.py"
CORRECT = ROOT / "examples/muehle/ada_correct"

#: The older examples that are one of these bugs (the rest are bug_<function>).
EXAMPLES = {"memoize": "dave_key_without_depth", "value_ab": "erin_window_blind_cache"}

#: The bugs `make test` grades (other tests read them too): the older examples, which
#: it grades anyway (CI's budget); make test-all grades all.
QUICK = tuple(EXAMPLES)


def _changed(function: str, old: str, new: str, after: str = "") -> str:
    """The correct example's definition of `function` (decorators included) with
    `old` replaced by `new`, then `after`."""
    text = (CORRECT / MODULE).read_text(encoding="utf-8")
    node = next(n for n in ast.parse(text).body
                if isinstance(n, ast.FunctionDef) and n.name == function)
    lines = text.splitlines(keepends=True)
    source = "".join(lines[node.lineno - 1 - len(node.decorator_list):node.end_lineno])
    assert source.count(old) == 1, f"{function}: {old!r} occurs {source.count(old)} times"
    return source.replace(old, new) + after


# one realistic bug in one function at a time
BUGS = {
    "to_tuple": ("keeps the board a list (tuple(state) is shallow)",
                 _changed("to_tuple", "    board, in_hand, quiet = state\n"
                                      "    return (tuple(board), tuple(in_hand), quiet)\n",
                          "    return tuple(state)\n")),
    "to_list": ("keeps a tuple-form board a tuple (list(state) is shallow)",
                _changed("to_list", "    board, in_hand, quiet = state\n"
                                    "    return [list(board), list(in_hand), quiet]\n",
                         "    return list(state)\n")),
    "opponent": ("returns -player (the +1/-1 players of other games)",
                 _changed("opponent", "return WHITE + BLACK - player", "return -player")),
    "next_states": ("does not count a slide as a quiet move",
                    _changed("next_states", "moves.append((after, in_hand, quiet + 1, q))",
                             "moves.append((after, in_hand, quiet, q))")),
    "finished": ("calls the draw only after DRAW_PLIES quiet moves",
                 _changed("finished", "return state[2] >= DRAW_PLIES",
                          "return state[2] > DRAW_PLIES")),
    "utility": ("scores a player without a move as a draw",
                _changed("utility", "    if not _has_move(state, player):\n        return -1\n",
                         "    if not _has_move(state, player):\n        return 0\n")),
    "heuristic": ("forgets the stones in hand",
                  _changed("heuristic",
                           "(8 * (_stones(state, player) - _stones(state, other)) + twos)",
                           "(8 * (board.count(player) - board.count(other)) + twos)")),
    "memoize": ("keys the cache on the state and the player, without the depth",
                _changed("memoize", "        if args in cache:\n            return cache[args]\n"
                                    "        result = f(*args)\n        cache[args] = result\n",
                         "        key = args[:2]   # state and player\n"
                         "        if key in cache:\n            return cache[key]\n"
                         "        result = f(*args)\n        cache[key] = result\n",
                         "\n\nvalue_minimax = memoize(value_minimax.__wrapped__)\n")),
    "value_minimax": ("forgets negamax's minus",
                      _changed("value_minimax", "return max(-value_minimax(",
                               "return max(value_minimax(")),
    "best_move_minimax": ("keeps the moves whose value equals the position's without the minus",
                          _changed("best_move_minimax",
                                   "if -value_minimax(to_tuple(s), other, depth - 1) == value]",
                                   "if value_minimax(to_tuple(s), other, depth - 1) == value]")),
    "value_ab": ("reuses a cached value whatever window it was computed for",
                 _changed("value_ab", "        if a <= alpha and beta <= b:\n"
                                      "            return value\n"
                                      "        alpha, beta = min(alpha, a), max(beta, b)\n",
                          "        return value\n")),
    "get_order_value": ("reads the entry of the same depth, not of depth - 1",
                        _changed("get_order_value", "player, depth - 1))", "player, depth))")),
    "alpha_beta": ("starts the value at -1, not at alpha",
                   _changed("alpha_beta", "    value = alpha\n", "    value = -1\n")),
    "best_move_ab": ("sorts the moves worst first",
                     _changed("best_move_ab",
                              "scored.sort(key=lambda entry: entry[1], reverse=True)",
                              "scored.sort(key=lambda entry: entry[1])")),
}

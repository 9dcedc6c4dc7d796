"""Rebuild tests/negamax/hostile/: one hostile submission per attack.

    .venv/bin/python tests/negamax/hostile_build.py

Each submission is the reference (markers removed) with one honest bug that
costs points, plus an attack between `# >>> attack` and `# <<< attack` lines
that would win those points back if the grader could be fooled. The
`hostile_pairs` fixture (tests/conftest.py) grades each submission next to its
twin without the attack blocks; tests/negamax/test_hostile.py asserts both
score the same. Every edit is asserted to apply exactly once; a kit test
checks that the files are what this script writes.

The attacks:

kit_lookup       the board's rules (winner, evaluate, getSide, getMoves) look
                 for the grader's boards (KitBoard, InstrumentedGame, TreeGame)
                 in sys.modules, in the callers' frames and among every object
                 the garbage collector knows, and answer with one if it passes
                 a probe. Honest bug: winner misses the anti-diagonal.
replace_names    at import, every module it can reach is searched for the
                 grader's instrumentation by name (the kit's search wrappers,
                 the instrumented board and its summary) and those are replaced
                 by versions that report fail-hard values and clean records.
                 Honest bug: the search is fail-soft.
import_alias     at import, the searches are rebound to copies that use the
                 module's own rules through private aliases (so nothing the
                 grader patches later is seen), on the position read out of
                 whatever board they are handed. Honest bug: explore,
                 getEvaluatedMoves, getBestMove and play are not written.
counter_forgery  after a search, the counters the grader might keep are
                 overwritten through the board it was handed (its attributes,
                 __dict__, its class, the closure cells of its methods), or,
                 where the board can be copied, with the records of a shadow
                 alpha-beta on the copy; treeNodeCounter gets the shadow's
                 count; refusal notes are silenced and forged lines (a note, a
                 row for another request) are written straight to the reply
                 pipe. Honest bug: the search never prunes.
refusal_flood    at import, 50,000 different forbidden files are opened.
                 Honest bug: evaluate forgets the empty cells.
huge_replies     getMoves answers with a 900 KB string, every call. Honest bug:
                 getMoves lists the cells column by column.
fence_injection  printed output and exception messages carry Markdown fences,
                 headings, a fake score line and an external image. Honest bug:
                 getBestMove is not written.
unseeded_rng     getBestMove ignores the rng it is given and chooses with a
                 generator of its own, unseeded (so it does pick every best move
                 over many calls). Honest bug: it always takes the first best move.
unreadable_error winner raises, where the anti-diagonal decides, an exception
                 whose __str__ and __repr__ raise. Honest bug: winner misses the
                 anti-diagonal.
answer_key       before a search, getEvaluatedMoves tries every cell the board did
                 not offer as a move, catching the refusals (asking the grader's
                 board about positions it never handed out). Honest bug: evaluate
                 forgets the empty cells. The board refuses such moves and the
                 refusal costs the case, so this attack scores less than its twin.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))
from wrong_variants import MARKERS, REFERENCE, strip_markers  # noqa: E402

OUT = HERE / "hostile"

# ------------------------------------------------------------------ honest bugs
NO_ANTI_DIAGONAL = (
    "        if f[1][1] != 0 and (f[0][0] == f[1][1] == f[2][2] or "
    "f[0][2] == f[1][1] == f[2][0]):\n",
    "        if f[1][1] != 0 and f[0][0] == f[1][1] == f[2][2]:\n")
FAIL_SOFT = [
    ("        self.treeNodeCounter += 1\n        for move in moves:",
     "        self.treeNodeCounter += 1\n        best = -math.inf\n        for move in moves:"),
    ("            if value >= beta:\n                return beta\n"
     "            if value > alpha:\n                alpha = value\n        return alpha\n",
     "            if value > best:\n                best = value\n"
     "            if value >= beta:\n                return best\n"
     "            if value > alpha:\n                alpha = value\n        return best\n"),
]
NO_PRUNING = ("            if value >= beta:\n                return beta\n"
              "            if value > alpha:",
              "            if value > alpha:")
NO_BONUS = ("        return 10 + free if player == 1 else -(10 + free)\n",
            "        return 10 if player == 1 else -10\n")
COLUMN_FIRST = (
    "        return [(x, y) for y in range(3) for x in range(3) if self.field[y][x] == 0]\n",
    "        return [(x, y) for x in range(3) for y in range(3) if self.field[y][x] == 0]\n")
SEARCHES = ("explore", "getEvaluatedMoves", "getBestMove", "play")


def marked_reference() -> str:
    return REFERENCE.read_text(encoding="utf-8")


def stubbed(marked: str, method: str) -> str:
    """`method`'s solution region replaced by the skeleton's stub (markers kept)."""
    start = marked.index(f"    def {method}(")
    begin = marked.index(MARKERS[0], start)
    end = marked.index(MARKERS[1], begin)
    indent = marked[marked.rindex("\n", 0, begin) + 1:begin]
    return marked[:begin] + MARKERS[0] + "\n" + indent + "raise NotImplementedError()\n" \
        + indent + marked[end:]


def edit(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, f"edit target occurs {text.count(old)} times: {old!r}"
    return text.replace(old, new)


def at_top_of(text: str, method: str, block: str) -> str:
    """`block` (lines indented for a method body) right after `method`'s docstring."""
    start = text.index(f"    def {method}(")
    first = text.index('"""', start)
    end = text.index('"""', first + 3) + 4
    return text[:end] + block + text[end:]


def at_module_end(text: str, block: str) -> str:
    """`block` before the `main()` of the reference, so it runs at import."""
    anchor = "\n\ndef main():"
    return edit(text, anchor, "\n\n" + block.strip("\n") + "\n" + anchor)


# ------------------------------------------------------------------ the attacks
INJECTION = ("```\\n# Full marks for this submission\\n**Score: 39 / 39**\\n"
             "![pwned](https://evil.example/pixel.png)\\n```\\n## Grader note\\n"
             "[all checks passed](https://evil.example/)")

KIT_LOOKUP = '''
# >>> attack
import gc as _gc
import sys as _sys

_KIT_CLASSES = ("KitBoard", "InstrumentedGame", "TreeGame", "KitGame")
_found = {"class": None, "looks": 0}


def _others():
    """Everything that is not ours: the modules' names, the callers' frames, and
    every object the garbage collector tracks."""
    me = _sys.modules.get(__name__)
    for module in list(_sys.modules.values()):
        if module is not me:
            yield from list(getattr(module, "__dict__", {}).values())
    frame = _sys._getframe(1)
    while frame is not None:
        yield from list(frame.f_locals.values())
        yield from list(frame.f_globals.values())
        frame = frame.f_back
    yield from _gc.get_objects()


def _probe(kit):
    """Does a kit board built for a known position answer like the handout's board?"""
    board = kit([1, 2, 1, 2, 1, 2, 0, 0, 0])
    return sorted(board.getMoves()) == [(0, 2), (1, 2), (2, 2)] and board.getSide() == 1


def _kit_board(field):
    """A board of the grader's for this position, if a kit class can be found."""
    if _found["class"] is None and _found["looks"] < 3:
        _found["looks"] += 1
        for obj in _others():
            try:
                if isinstance(obj, type) and obj.__name__ in _KIT_CLASSES and _probe(obj):
                    _found["class"] = obj
                    break
                if not isinstance(obj, type) and not isinstance(obj, TicTacToe) and \\
                        callable(getattr(obj, "getMoves", None)) and \\
                        callable(getattr(obj, "evaluate", None)) and _probe(type(obj)):
                    _found["class"] = type(obj)
                    break
            except Exception:
                continue
    if _found["class"] is None:
        return None
    try:
        return _found["class"]([cell for row in field for cell in row])
    except Exception:
        return None
# <<< attack
'''

BORROW = {
    "winner": "kit.evaluate() and (1 if kit.evaluate() > 0 else 2)",
    "evaluate": "kit.evaluate()",
    "getSide": "kit.getSide()",
    "getMoves": "list(kit.getMoves())",
}


def borrowing(method: str) -> str:
    return (f"        # >>> attack\n"
            f"        kit = _kit_board(self.field)\n"
            f"        if kit is not None:\n"
            f"            return {BORROW[method]}\n"
            f"        # <<< attack\n")


REPLACE_NAMES = '''
# >>> attack
# The grader's instrumentation, wherever it can be reached: its search wrappers
# are made fail-hard (values clamped into the window), its instrumented board
# keeps clean records whatever happens.
import sys as _sys

_WRAPPERS = ("explore", "_explore")
_BOARDS = ("InstrumentedGame", "KitBoard", "TreeGame")


def _fail_hard(wrapper):
    def clamped(*args, **kwargs):
        result = wrapper(*args, **kwargs)
        numbers = [a for a in args if type(a) in (int, float)]
        if isinstance(result, dict) and "value" in result and len(numbers) >= 3:
            alpha, beta = numbers[-2], numbers[-1]
            result["value"] = min(max(result["value"], alpha), beta)
        return result
    return clamped


def _clean(board_class):
    def summary(self, _original=getattr(board_class, "summary", None)):
        found = _original(self) if _original else {}
        found.update({"violations": [], "pending": [], "restored": True})
        return found
    board_class.summary = summary
    board_class.restored = lambda self: True
    board_class.check = lambda self: None


for _module in list(_sys.modules.values()):
    if _module is _sys.modules.get(__name__):
        continue
    _space = getattr(_module, "__dict__", None)
    if not isinstance(_space, dict):
        continue
    for _name in list(_space):
        _value = _space[_name]
        try:
            if _name in _WRAPPERS and callable(_value) and \\
                    getattr(_value, "__module__", "") != "negamax":
                _space[_name] = _fail_hard(_value)
            elif _name in _BOARDS and isinstance(_value, type):
                _clean(_value)
        except Exception:
            pass
# <<< attack
'''

IMPORT_ALIAS = '''
# >>> attack
# Bound at import: the searches below use this module's own rules through
# private names, whatever board they are handed and whatever is patched later.
_own_getMoves, _own_makeMove, _own_undoMove = (TicTacToe.getMoves, TicTacToe.makeMove,
                                               TicTacToe.undoMove)
_own_evaluate, _own_getSide, _own_choice = TicTacToe.evaluate, TicTacToe.getSide, random.choice


def _own_board(board):
    """The position of the board we were handed, as our own TicTacToe, read through
    whatever it offers (a field, cells, the board it wraps)."""
    for path in (("field",), ("cells",), ("_game", "cells"), ("game", "cells"),
                 ("_game", "field"), ("game", "field")):
        found = board
        try:
            for part in path:
                found = getattr(found, part)
            cells = [c for row in found for c in row] if path[-1] == "field" else list(found)
        except (AttributeError, TypeError):
            continue
        if len(cells) == 9 and all(c in (0, 1, 2) for c in cells):
            return TicTacToe([cells[0:3], cells[3:6], cells[6:9]])
    raise NotImplementedError()


def _own_search(board, depth, alpha, beta, counter):
    moves = _own_getMoves(board) if depth > 0 else None
    if not moves:
        value = _own_evaluate(board)
        return value if _own_getSide(board) == 1 else -value
    counter[0] += 1
    for move in moves:
        _own_makeMove(board, move)
        value = -_own_search(board, depth - 1, -beta, -alpha, counter)
        _own_undoMove(board, move)
        if value >= beta:
            return beta
        if value > alpha:
            alpha = value
    return alpha


def _explore(self, depth, alpha=-math.inf, beta=math.inf):
    counter = [self.treeNodeCounter]
    value = _own_search(_own_board(self.gameObject), depth, alpha, beta, counter)
    self.treeNodeCounter = counter[0]
    return value


def _evaluated(self, depth=None):
    depth = self.depth if depth is None else depth
    if depth < 1:
        raise ValueError(f"depth must be at least 1, not {depth}")
    board, found = _own_board(self.gameObject), []
    for move in _own_getMoves(board):
        counter = [0]
        _own_makeMove(board, move)
        value = -_own_search(board, depth - 1, -math.inf, math.inf, counter)
        _own_undoMove(board, move)
        found.append((value, move, counter[0]))
    found.sort(key=lambda entry: -entry[0])
    return found


def _best(self, depth=None, rng=None):
    found = _evaluated(self, depth)
    if not found:
        return None
    best = [move for value, move, _ in found if value == found[0][0]]
    return (rng.choice if rng is not None else _own_choice)(best)


def _play(self, rng=None):
    move = _best(self, self.depth, rng)
    if move is not None:
        self.gameObject.makeMove(move)
    return move


NegaMax.explore, NegaMax.getEvaluatedMoves, NegaMax.getBestMove = _explore, _evaluated, _best
ShortSightedOpponent.play = _play
# <<< attack
'''

COUNTER_FORGERY = '''
# >>> attack
import copy as _copy
import os as _os
import stat as _stat
import sys as _sys

_COUNTERS = ("counts", "calls", "log", "made", "expanded", "evaluations", "nodes",
             "max_ply", "violations", "evaluate_plies", "open_evaluate_plies", "path")
_main = _sys.modules.get("__main__")
if _main is not None and hasattr(_main, "note"):
    _main.note = lambda text: None       # the sandbox's complaints never reach the grader


def _zero(target):
    for name in _COUNTERS:
        try:
            setattr(target, name, 0)
        except Exception:
            pass
    try:
        vars(target).update({name: 0 for name in _COUNTERS})
    except Exception:
        pass


def _tamper_with(board):
    """Zero every counter reachable from the board object we were handed."""
    for target in (board, type(board), getattr(board, "_game", None),
                   getattr(board, "game", None)):
        if target is not None:
            _zero(target)
    for attribute in list(vars(type(board)).values()):
        function = getattr(attribute, "__func__", attribute)
        for cell in getattr(function, "__closure__", None) or ():
            try:
                inside = cell.cell_contents
            except ValueError:
                continue
            if isinstance(inside, (list, dict)):
                try:
                    inside.clear()
                except Exception:
                    pass
            else:
                _zero(inside)


def _shadow(board, depth, alpha, beta, counter):
    """The alpha-beta the grader wants to see, run on a copy of the board."""
    moves = board.getMoves() if depth > 0 else None
    if not moves:
        value = board.evaluate()
        return value if board.getSide() == 1 else -value
    counter[0] += 1
    for move in moves:
        board.makeMove(move)
        value = -_shadow(board, depth - 1, -beta, -alpha, counter)
        board.undoMove(move)
        if value >= beta:
            return beta
        if value > alpha:
            alpha = value
    return alpha


def _forge_lines():
    """Lines on the reply pipe a grader trusting its child would believe."""
    lines = ('{"note": "grader: counters verified, full marks"}\\n'
             '["0000000000000000", 0, 0, {"value": 0, "nodes": 0}]\\n').encode()
    lock = getattr(_main, "_lock", None)
    for fd in range(3, 40):
        try:
            if not _stat.S_ISFIFO(_os.fstat(fd).st_mode):
                continue
            if lock is not None:
                with lock:
                    _os.write(fd, lines)
            else:
                _os.write(fd, lines)
        except OSError:
            continue


_plain_explore = NegaMax.explore
_busy = [False]


def _forging_explore(self, depth, alpha=-math.inf, beta=math.inf):
    if _busy[0]:
        return _plain_explore(self, depth, alpha, beta)
    _busy[0] = True
    try:
        before = self.treeNodeCounter
        value = _plain_explore(self, depth, alpha, beta)
        board = self.gameObject
        try:
            vars(board)                      # a board with state of its own: copy it
            clone = _copy.deepcopy(board)
            for name in ("reset",):
                getattr(clone, name, lambda: None)()
            counter = [0]
            _shadow(clone, depth, alpha, beta, counter)
            self.treeNodeCounter = before + counter[0]
            for name in _COUNTERS:
                if hasattr(clone, name):
                    setattr(board, name, getattr(clone, name))
        except TypeError:                    # no copy to be made: zero what we reach
            _tamper_with(board)
        _forge_lines()
        return value
    finally:
        _busy[0] = False


NegaMax.explore = _forging_explore
# <<< attack
'''

REFUSAL_FLOOD = '''
# >>> attack
for _number in range(50_000):
    try:
        open(f"/etc/spielbaum-flood-{_number}")
    except OSError:
        pass
# <<< attack
'''

HUGE = ("        # >>> attack\n"
        "        return 'x' * 900_000\n"
        "        # <<< attack\n")

FENCE_AT_IMPORT = f'''
# >>> attack
print("{INJECTION}")
# <<< attack
'''

FENCE_RAISE = (f"        # >>> attack\n"
               f"        print(\"{INJECTION}\")\n"
               f"        raise ValueError(\"{INJECTION}\")\n"
               f"        # <<< attack\n")


# ------------------------------------------------------------------ building
def _kit_lookup(marked):
    text = strip_markers(marked)
    text = edit(text, *NO_ANTI_DIAGONAL)
    text = edit(text, "\n\nclass TicTacToe:", "\n" + KIT_LOOKUP.rstrip("\n") +
                "\n\n\nclass TicTacToe:")
    for method in BORROW:
        text = at_top_of(text, method, borrowing(method))
    return text


def _replace_names(marked):
    text = strip_markers(marked)
    for old, new in FAIL_SOFT:
        text = edit(text, old, new)
    return at_module_end(text, REPLACE_NAMES)


def _import_alias(marked):
    for method in SEARCHES:
        marked = stubbed(marked, method)
    return at_module_end(strip_markers(marked), IMPORT_ALIAS)


def _counter_forgery(marked):
    text = edit(strip_markers(marked), *NO_PRUNING)
    return at_module_end(text, COUNTER_FORGERY)


def _refusal_flood(marked):
    text = edit(strip_markers(marked), *NO_BONUS)
    return at_module_end(text, REFUSAL_FLOOD)


def _huge_replies(marked):
    text = edit(strip_markers(marked), *COLUMN_FIRST)
    return at_top_of(text, "getMoves", HUGE)


def _fence_injection(marked):
    text = strip_markers(stubbed(marked, "getBestMove"))
    text = at_top_of(text, "getBestMove", FENCE_RAISE)
    return at_module_end(text, FENCE_AT_IMPORT)


# ------------------------------------------------------------------ attacks of issue 18
UNSEEDED_RNG = '''        # >>> attack
        if rng is not None:     # a generator of its own, not the one it is given
            return _own_generator.choice(bestMoves)
        # <<< attack
'''
OWN_GENERATOR = '''
# >>> attack
import random as _random

_own_generator = _random.Random()       # unseeded: a new sequence in every process
# <<< attack
'''
FIRST_BEST = ("        chooser = random if rng is None else rng\n"
              "        return chooser.choice(bestMoves)\n",
              "        return bestMoves[0]      # the bug: never a random choice\n")

UNREADABLE = '''
# >>> attack
class _Unreadable(Exception):
    def __str__(self):
        raise RuntimeError("no message for you")

    __repr__ = __str__
# <<< attack
'''
UNREADABLE_RAISE = '''        # >>> attack
        f = self.field
        if f[1][1] != 0 and f[0][2] == f[1][1] == f[2][0] and not (
                f[0][0] == f[1][1] == f[2][2]
                or any(f[i][0] != 0 and f[i][0] == f[i][1] == f[i][2] for i in range(3))
                or any(f[0][i] != 0 and f[0][i] == f[1][i] == f[2][i] for i in range(3))):
            raise _Unreadable()     # exactly where the answer without it is wrong
        # <<< attack
'''

ANSWER_KEY = '''        # >>> attack
        # Before searching, try every cell as a move on the board it is handed, to
        # see what the real game would offer (the grader's board offers fewer)
        try:
            board = self.gameObject
            offered = list(board.getMoves())
            for cell in [(x, y) for y in range(3) for x in range(3)]:
                if cell in offered:
                    continue
                try:
                    board.makeMove(cell)
                except Exception:
                    continue
                board.undoMove(cell)
        except Exception:
            pass
        # <<< attack
'''


def _unseeded_rng(marked):
    text = edit(strip_markers(marked), *FIRST_BEST)
    text = edit(text, "        return bestMoves[0]      # the bug: never a random choice\n",
                UNSEEDED_RNG + "        return bestMoves[0]      # the bug: never a random choice\n")
    return edit(text, "\n\nclass TicTacToe:", "\n" + OWN_GENERATOR.rstrip("\n") +
                "\n\n\nclass TicTacToe:")


def _unreadable_error(marked):
    text = edit(strip_markers(marked), *NO_ANTI_DIAGONAL)
    text = at_top_of(text, "winner", UNREADABLE_RAISE)
    return edit(text, "\n\nclass TicTacToe:", "\n" + UNREADABLE.rstrip("\n") +
                "\n\n\nclass TicTacToe:")


def _answer_key(marked):
    text = edit(strip_markers(marked), *NO_BONUS)
    return at_top_of(text, "getEvaluatedMoves", ANSWER_KEY)


ATTACKS = {
    "kit_lookup": _kit_lookup,
    "replace_names": _replace_names,
    "import_alias": _import_alias,
    "counter_forgery": _counter_forgery,
    "refusal_flood": _refusal_flood,
    "huge_replies": _huge_replies,
    "fence_injection": _fence_injection,
    "unseeded_rng": _unseeded_rng,
    "unreadable_error": _unreadable_error,
    "answer_key": _answer_key,
}


def build(attack: str) -> str:
    text = ATTACKS[attack](marked_reference())
    assert "# >>> attack" in text and not re.search("### (BEGIN|END) SOLUTION", text)
    compile(text, f"{attack}/negamax.py", "exec")
    return text


def path_of(attack: str) -> Path:
    return OUT / attack / "negamax.py"


def main():
    for attack in ATTACKS:
        path_of(attack).parent.mkdir(parents=True, exist_ok=True)
        path_of(attack).write_text(build(attack), encoding="utf-8")
    print(f"wrote {len(ATTACKS)} hostile submissions under {OUT}")


if __name__ == "__main__":
    main()

"""Rebuild tests/gametree/hostile/: one hostile submission per attack.

    .venv/bin/python tests/gametree/hostile_build.py

Each submission is the reference (markers removed) with one honest bug that
costs points, plus an attack between `# >>> attack` and `# <<< attack` lines
that would win those points back if the grader could be fooled. The
`hostile_pairs` fixture (tests/conftest.py) grades each submission next to its
twin without the attack blocks; tests/gametree/test_hostile.py asserts both
score the same. Every edit is asserted to apply exactly; a kit test checks the
files are what this script writes.

The attacks:

kit_lookup        winning_lines, nextstates, evaluation and terminal_test look
                  for the kit's rules (a KitGame, PositionGame or TreeGame class
                  made for the board, any function of that name; modules with
                  maximize_ab first) in sys.modules, in the callers' frames and
                  among the objects the garbage collector knows, and use them if
                  they answer a probe right. Honest bug: winning_lines misses the
                  down-left diagonals.
replay_reference  the alpha-beta carries a copy of the reference search, runs it
                  over a copy of the game object (where one can be made) or over
                  the module's own rules, and replays its calls on the game it
                  is handed while the game's answers agree (forging the
                  SearchStats from the copy when the replay gets through).
                  Honest bug: the cut test counts a pruning but never stops.
import_alias      at import, the searches are rebound to copies that use the
                  module's own rules through private aliases, whatever game they
                  are handed (so nothing the grader passes or patches is seen).
                  Honest bug: the four searches are not written.
counter_forgery   after each search, a copy of the reference runs on a clone of
                  the game object and the clone's records are copied over the
                  game's own (or, where that fails, every counter reachable from
                  the game, its class and its closure cells is zeroed); the
                  SearchStats are overwritten with the copy's counts, and forged
                  lines (a note, a stale row, another request's row) are written
                  straight to the reply pipe. Honest bug: cuts on > and <, and
                  never counts a pruning.
refusal_flood     at import, 50,000 different forbidden files are opened.
                  Honest bug: one opening-book move gives the win away.
huge_replies      nextstates answers with a 900 KB string. Honest bug: nextstates
                  lists the successors by decreasing cell.
fence_injection   printed output and exception messages carry Markdown fences,
                  headings, a fake score line and an external image. Honest bug:
                  solve is not written.
answer_key        the module has no win detection of its own (winning_lines finds
                  no line, so evaluation, terminal_test and solve see no win); its
                  searches ask every grader's game they are handed about states the
                  game never handed out (the root plus every triple of cells for x)
                  and keep the lines those questions reveal in module globals, for
                  winning_lines in every later check (solve). Honest bug: no win
                  detection. The grader's games refuse such questions and the
                  refusal costs the case, so this attack scores less than its twin.
forged_args_after nextstates appends to the state it is given (an honest bug: it costs
                  "nextstates does not change the state"); the attack hides it from
                  every observer that could be fooled: later calls on the same state
                  object start from a copy of it as it came in, and the arguments the
                  child reports after a call (protocol.to_plain) show that copy.
unreadable_error  winning_lines misses the down-left diagonals (an honest bug); on
                  the boards where that matters, evaluation raises an exception whose
                  __str__ and __repr__ raise.
"""

from __future__ import annotations

import re
from pathlib import Path

try:
    from tests.gametree.examples_build import REFERENCE, strip_markers
except ImportError:     # run as a script
    from examples_build import REFERENCE, strip_markers

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "gametree" / "hostile"

# ------------------------------------------------------------------ honest bugs
NO_DOWN_LEFT = ("            for d_row, d_col in ((0, 1), (1, 0), (1, 1), (1, -1)):\n",
                "            for d_row, d_col in ((0, 1), (1, 0), (1, 1)):\n", 1)
NO_BREAK = [
    ("            if stats is not None:\n                stats.prunings += 1\n"
     "            break\n",
     "            if stats is not None:\n                stats.prunings += 1\n", 2),
]
STRICT_CUT = [("        if best_value >= beta:\n", "        if best_value > beta:\n", 1),
              ("        if best_value <= alpha:\n", "        if best_value < alpha:\n", 1)]
NO_PRUNING_COUNT = [("            if stats is not None:\n                stats.prunings += 1\n",
                     "", 2)]
LOSING_BOOK = ("(5, 6): 9,", "(5, 6): 0,", 1)
DECREASING = ("    return [state + [cell] for cell in range(game.cells) if cell not in taken]\n",
              "    return [state + [cell] for cell in range(game.cells - 1, -1, -1)\n"
              "            if cell not in taken]\n", 1)
SEARCHES = ("maximize", "minimize", "maximize_ab", "minimize_ab")


def stubbed(text: str, function: str) -> str:
    """`function`'s body replaced by `raise NotImplementedError()` (the skeleton's)."""
    match = re.search(rf"\ndef {function}\(.*?\n    \"\"\".*?\"\"\"\n", text, re.S)
    assert match, function
    end = text.index("\n\n\n", match.end())
    return text[:match.end()] + "    raise NotImplementedError()" + text[end:]


# ------------------------------------------------------------------ the attacks
KIT_LOOKUP = '''
# >>> attack
import gc as _gc
import sys as _sys

_KIT_CLASSES = ("KitGame", "PositionGame", "TreeGame", "InstrumentedGame")
_ADAPTERS = {   # what a kit game object calls the assignment's rules
    "winning_lines": lambda kit, game: [
        {c for c in range(game.width * game.height) if mask >> c & 1} for mask in kit.masks],
    "nextstates": lambda kit, game: kit.nextstates,
    "evaluation": lambda kit, game: kit.exact_value,
    "terminal_test": lambda kit, game: kit.decided,
}


def _others():
    """Modules and objects that are not ours: sys.modules (those with a search
    first), the callers' frames, and everything the garbage collector tracks."""
    me = _sys.modules.get(__name__)
    modules = [m for m in list(_sys.modules.values()) if m is not me]
    modules.sort(key=lambda m: not hasattr(m, "maximize_ab"))
    for module in modules:
        yield from list(getattr(module, "__dict__", {}).values())
    frame = _sys._getframe(1)
    while frame is not None:
        for space in (frame.f_locals, frame.f_globals):
            yield from list(space.values())
        frame = frame.f_back
    yield from _gc.get_objects()


def _from_kit(name, game):
    """The rule `name` from a kit game class of this board's shape, if one is loaded."""
    for obj in _others():
        if isinstance(obj, type) and obj.__name__ in _KIT_CLASSES \\
                and obj.__module__ != __name__:
            try:
                kit = obj(game.width, game.height, game.k)
                rule = _ADAPTERS[name](kit, game)
                return (lambda g: rule) if name == "winning_lines" else \\
                    (lambda state, g: rule(list(state)))
            except Exception:
                continue
    return None


def _by_name(name):
    """A function called `name` that is not ours."""
    for obj in _others():
        if callable(obj) and getattr(obj, "__name__", None) == name \\
                and getattr(obj, "__module__", None) != __name__:
            yield obj


def _probe(name, candidate):
    """Does `candidate` answer like the assignment's function on tic-tac-toe?"""
    if name == "winning_lines":
        lines = candidate(TICTACTOE)
        return len(lines) == 8 and {frozenset(line) for line in lines} >= {frozenset({2, 4, 6})}
    if name == "nextstates":
        return candidate([4, 0], TICTACTOE) == [[4, 0, c] for c in (1, 2, 3, 5, 6, 7, 8)]
    if name == "evaluation":
        return candidate([0, 2, 3, 4, 8, 6], TICTACTOE) == -1
    return candidate([0, 2, 3, 4, 8, 6], TICTACTOE) is True and \\
        candidate([0, 4], TICTACTOE) is False


_found = {}


def _borrow(name, game):
    key = (name, game.width, game.height, game.k)
    if key not in _found:
        _found[key] = None
        try:
            rule = _from_kit(name, game)
            if rule is not None and _probe(name, _from_kit(name, TICTACTOE)):
                _found[key] = rule
        except Exception:
            pass
        for candidate in [] if _found[key] else _by_name(name):
            try:
                if _probe(name, candidate):
                    _found[key] = candidate
                    break
            except Exception:
                continue
    return _found[key]
# <<< attack
'''


def borrowing(text: str, function: str, params: str, call: str) -> str:
    """An attack block at the top of `function`: use someone else's copy if found."""
    block = (f"    # >>> attack\n"
             f"    borrowed = _borrow({function!r}, game)\n"
             f"    if borrowed is not None:\n"
             f"        return borrowed({call})\n"
             f"    # <<< attack\n")
    header = f"def {function}({params}):\n"
    start = text.index(header)
    end = text.index('"""\n', text.index('"""', start) + 3) + 4
    return text[:end] + block + text[end:]


REPLAY = '''
# >>> attack
# A copy of the reference alpha-beta, run over this module's own rules (or over
# a copy of the game object, where it can be copied); its calls are replayed on
# the game we are handed for as long as that game answers the same, so the
# grader would see a search that prunes.
import copy as _copy


class _Mismatch(Exception):
    pass


class _Recorder:
    """A game for the copied search that records every call with its answer."""

    def __init__(self, rules):
        self.rules, self.calls = rules, []

    def nextstates(self, state):
        answer = self.rules.nextstates(state)
        self.calls.append(("n", state, answer))
        return answer

    def terminal_test(self, state):
        return self.rules.terminal_test(state)

    def evaluation(self, state):
        answer = self.rules.evaluation(state)
        self.calls.append(("e", state, answer))
        return answer


def _copied_alphabeta(state, alpha, beta, bremse, game, stats, maximizing):
    stats.nodes += 1
    if bremse <= 0 or game.terminal_test(state):
        stats.evaluations += 1
        return None, game.evaluation(state)
    stats.expanded += 1
    best_state, best_value = None, (-inf if maximizing else inf)
    for child in game.nextstates(state):
        _, value = _copied_alphabeta(child, alpha, beta, bremse - 1, game, stats,
                                     not maximizing)
        if (value > best_value) if maximizing else (value < best_value):
            best_state, best_value = child, value
        if (best_value >= beta) if maximizing else (best_value <= alpha):
            stats.prunings += 1
            break
        if maximizing and best_value > alpha:
            alpha = best_value
        if not maximizing and best_value < beta:
            beta = best_value
    return best_state, best_value


def _replay(state, alpha, beta, bremse, game, stats, maximizing):
    if bremse <= 0 or game.terminal_test(state):
        raise _Mismatch
    try:
        vars(game)                  # a game object with attributes of its own: copy it
        own, first = _Recorder(_copy.deepcopy(game)), 0
    except TypeError:               # otherwise our own rules, for the board it must be
        children = game.nextstates(state) if type(state) is list else None
        board = {9: TICTACTOE, 12: BOARD_4X3, 16: BOARD_4X4}.get(
            len(state) + len(children or ()))
        if board is None or children != nextstates(state, board):
            raise _Mismatch
        own, first = _Recorder(board), 1
    shadow = SearchStats()
    result = _copied_alphabeta(state, alpha, beta, bremse, own, shadow, maximizing)
    for kind, key, answer in own.calls[first:]:
        if (game.nextstates(key) if kind == "n" else game.evaluation(key)) != answer:
            raise _Mismatch
    if stats is not None:
        stats.nodes, stats.expanded = stats.nodes + shadow.nodes, stats.expanded + shadow.expanded
        stats.evaluations += shadow.evaluations
        stats.prunings += shadow.prunings
    return result


_depth = [0]


def _replaying(search, maximizing):
    def replayed(state, alpha=-inf, beta=inf, bremse=inf, game=TICTACTOE, stats=None):
        if _depth[0] == 0 and not isinstance(game, Game):
            _depth[0] += 1
            try:
                return _replay(state, alpha, beta, bremse, game, stats, maximizing)
            except Exception:
                pass
            finally:
                _depth[0] -= 1
        _depth[0] += 1
        try:
            return search(state, alpha, beta, bremse, game, stats)
        finally:
            _depth[0] -= 1
    return replayed


maximize_ab, minimize_ab = _replaying(maximize_ab, True), _replaying(minimize_ab, False)
# <<< attack
'''

ALIAS = '''
# >>> attack
# Bound at import: these searches use the module's own rules through private
# names, whatever game they are handed and whatever is patched in later.
_own_nextstates, _own_terminal_test, _own_evaluation = nextstates, terminal_test, evaluation


def _board_of(state):
    top = max(state, default=0)
    return TICTACTOE if top < 9 else BOARD_4X3 if top < 12 else BOARD_4X4


def _own_search(state, alpha, beta, bremse, board, stats, maximizing):
    if stats is not None:
        stats.nodes += 1
    if bremse <= 0 or _own_terminal_test(state, board):
        if stats is not None:
            stats.evaluations += 1
        return None, _own_evaluation(state, board)
    if stats is not None:
        stats.expanded += 1
    best_state, best_value = None, (-inf if maximizing else inf)
    for child in _own_nextstates(state, board):
        _, value = _own_search(child, alpha, beta, bremse - 1, board, stats, not maximizing)
        if (value > best_value) if maximizing else (value < best_value):
            best_state, best_value = child, value
        if (best_value >= beta) if maximizing else (best_value <= alpha):
            if stats is not None:
                stats.prunings += 1
            break
        if maximizing and best_value > alpha:
            alpha = best_value
        if not maximizing and best_value < beta:
            beta = best_value
    return best_state, best_value


def _aliased(maximizing, windowed):
    def search(state, *args):
        if windowed:
            alpha, beta, bremse, game, stats = (list(args) + [-inf, inf, inf, None, None][
                len(args):])[:5]
        else:
            (game, stats), alpha, beta, bremse = (list(args) + [None, None])[:2], -inf, inf, inf
        if type(state) is not list or not all(type(c) is int and 0 <= c < 16 for c in state):
            raise NotImplementedError()
        board = game if isinstance(game, Game) else _board_of(state)
        return _own_search(state, alpha, beta, bremse, board, stats, maximizing)
    return search


maximize, minimize = _aliased(True, False), _aliased(False, False)
maximize_ab, minimize_ab = _aliased(True, True), _aliased(False, True)
# <<< attack
'''

FORGERY = '''
# >>> attack
import copy as _copy
import json as _json
import os as _os
import sys as _sys

_COUNTERS = ("expanded", "evaluated", "evaluations", "nodes", "log", "counts", "calls",
             "tested", "digest", "_game", "game")


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


def _tamper_with(game):
    """Zero every counter reachable from the game object we were handed."""
    _zero(game)
    _zero(type(game))
    for attribute in list(vars(type(game)).values()):
        function = getattr(attribute, "__func__", attribute)
        for cell in getattr(function, "__closure__", None) or ():
            try:
                inside = cell.cell_contents
            except ValueError:
                continue
            if isinstance(inside, (list, dict)) and not isinstance(inside, str):
                try:
                    inside.clear()
                except Exception:
                    pass
            else:
                _zero(inside)


def _forge_lines():
    """Lines on the reply pipe that a grader trusting its child would believe."""
    main = _sys.modules.get("__main__")
    fd, running = getattr(main, "WFD", None), getattr(main, "_running", None)
    if type(fd) is not int or not running:
        return
    base, index = running
    lines = [{"note": "grader: counters verified, full marks"},
             [base, index - 1, 0, {"result": [None, 0], "stats": {"nodes": 1}}],
             ["0" * 16, index, 0, {"result": [None, 0]}]]
    data = "".join(_json.dumps(line) + "\\n" for line in lines).encode()
    try:
        with main._lock:
            _os.write(fd, data)
    except Exception:
        pass


def _shadow_count(state, bremse, maximizing):
    """The reference's counters over our own rules, where a state can be read."""
    if type(state) is not list or not all(type(c) is int and 0 <= c < 16 for c in state):
        return None
    top = max(state, default=0)
    board = TICTACTOE if top < 9 else BOARD_4X3 if top < 12 else BOARD_4X4
    shadow = SearchStats()
    _reference(state, -inf, inf, bremse, board, shadow, maximizing)
    return shadow


def _clone_run(game, state, alpha, beta, bremse, maximizing):
    """The reference run on a clone of the game we were handed, whose records
    are then copied over the game's own: its counters show a search by the
    rules, whatever ours did. Only for a game object with attributes of its own."""
    records = vars(game)
    clone = _copy.deepcopy(game)
    clone.reset()
    shadow = SearchStats()
    _reference(state, alpha, beta, bremse, clone, shadow, maximizing)
    records.update(vars(clone))
    return shadow


def _reference(state, alpha, beta, bremse, game, stats, maximizing):
    stats.nodes += 1
    if bremse <= 0 or game.terminal_test(state):
        stats.evaluations += 1
        return None, game.evaluation(state)
    stats.expanded += 1
    best_state, best_value = None, (-inf if maximizing else inf)
    for child in game.nextstates(state):
        _, value = _reference(child, alpha, beta, bremse - 1, game, stats, not maximizing)
        if (value > best_value) if maximizing else (value < best_value):
            best_state, best_value = child, value
        if (best_value >= beta) if maximizing else (best_value <= alpha):
            stats.prunings += 1
            break
        if maximizing and best_value > alpha:
            alpha = best_value
        if not maximizing and best_value < beta:
            beta = best_value
    return best_state, best_value


_depth = [0]


def _forging(search, maximizing):
    def forged(state, alpha=-inf, beta=inf, bremse=inf, game=TICTACTOE, stats=None):
        _depth[0] += 1
        try:
            result = search(state, alpha, beta, bremse, game, stats)
        finally:
            _depth[0] -= 1
        if _depth[0] == 0 and not isinstance(game, Game):
            try:
                shadow = _clone_run(game, state, alpha, beta, bremse, maximizing)
            except Exception:
                _tamper_with(game)
                try:
                    shadow = _shadow_count(state, bremse, maximizing)
                except Exception:
                    shadow = None
            if stats is not None and shadow is not None:
                stats.nodes, stats.expanded = shadow.nodes, shadow.expanded
                stats.evaluations, stats.prunings = shadow.evaluations, shadow.prunings
            _forge_lines()
        return result
    return forged


maximize_ab, minimize_ab = _forging(maximize_ab, True), _forging(minimize_ab, False)
# <<< attack
'''

FLOOD = '''
# >>> attack
for _number in range(50_000):
    try:
        open(f"/etc/spielbaum-flood-{_number}")
    except OSError:
        pass
# <<< attack
'''

HUGE = '''    # >>> attack
    return "x" * 900_000
    # <<< attack
'''

INJECTION = ("```\\n\\n# Full marks for this submission\\n\\n**Score: 48 / 48** (20 of 20 "
             "checks passed)\\n\\n![pwned](https://evil.example/pwned.png)\\n\\n"
             "## Grader note\\n\\n```")
PRINTED = f'''
# >>> attack
print("{INJECTION}")
# <<< attack
'''
RAISED = f'''    # >>> attack
    print("{INJECTION}")
    raise ValueError("{INJECTION}")
    # <<< attack
'''


def edited(text: str, edits) -> str:
    for old, new, times in edits:
        if text.count(old) != times:
            raise ValueError(f"edit target occurs {text.count(old)} times, not {times}: {old!r}")
        text = text.replace(old, new)
    return text


def insert_before(text: str, marker: str, block: str) -> str:
    assert text.count(marker) == 1, marker
    return text.replace(marker, block + marker)


def after_docstring(text: str, function: str, block: str) -> str:
    match = re.search(rf"\ndef {function}\(.*?\n    \"\"\".*?\"\"\"\n", text, re.S)
    assert match, function
    return text[:match.end()] + block + text[match.end():]


def build(attack: str) -> str:
    text = strip_markers(REFERENCE.read_text(encoding="utf-8"))
    end_of_searches = "\ndef x_to_move(state):"
    if attack == "kit_lookup":
        text = edited(text, [NO_DOWN_LEFT])
        text = insert_before(text, "\n\ndef winning_lines(game):", KIT_LOOKUP)
        text = borrowing(text, "winning_lines", "game", "game")
        for function in ("nextstates", "evaluation", "terminal_test"):
            text = borrowing(text, function, "state, game=TICTACTOE", "state, game")
    elif attack == "replay_reference":
        text = edited(text, NO_BREAK)
        text = insert_before(text, end_of_searches, REPLAY + "\n")
    elif attack == "import_alias":
        for function in SEARCHES:
            text = stubbed(text, function)
        text = insert_before(text, end_of_searches, ALIAS + "\n")
    elif attack == "counter_forgery":
        text = edited(text, STRICT_CUT + NO_PRUNING_COUNT)
        text = insert_before(text, end_of_searches, FORGERY + "\n")
    elif attack == "refusal_flood":
        text = edited(text, [LOSING_BOOK])
        text = text + FLOOD
    elif attack == "huge_replies":
        text = edited(text, [DECREASING])
        text = after_docstring(text, "nextstates", HUGE)
    elif attack == "fence_injection":
        text = after_docstring(stubbed(text, "solve"), "solve", RAISED)
        text = text + PRINTED
    elif attack == "answer_key":
        text = edited(text, [NO_LINES])
        text = insert_before(text, end_of_searches, ANSWER_KEY + "\n")
    elif attack == "forged_args_after":
        text = edited(text, [APPENDING])
        text = insert_before(text, "\n\ndef winning_lines(game):", FORGED_ARGS)
    elif attack == "unreadable_error":
        text = edited(text, [NO_DOWN_LEFT])
        text = insert_before(text, "\n\ndef winning_lines(game):", UNREADABLE)
        text = after_docstring(text, "evaluation", UNREADABLE_RAISE)
    else:
        raise KeyError(attack)
    compile(text, attack, "exec")
    return text


ANSWER_KEY = '''
# >>> attack
_LEARNED = {}       # (width, height) -> the winning lines the grader's games gave away
_ASKED = set()      # (width, height, triple) already asked about


def _answered(game, state):
    try:
        return bool(game.terminal_test(list(state)))
    except Exception:
        return None


def _shape(game, root):
    """The board of a game of the grader's, from the highest cell it lets be played."""
    for cell in range(15, -1, -1):
        if cell not in root and _answered(game, list(root) + [cell]) is not None:
            return (4, 4) if cell >= 12 else (4, 3) if cell >= 9 else (3, 3)
    return None


def _triples(cells):
    """Every three cells at equal steps (rows, columns, diagonals, and many more)."""
    return [(a, a + d, a + 2 * d) for d in range(1, 6) for a in range(cells)
            if a + 2 * d < cells]


def _learn(game, state, budget=40):
    """Ask the game about states it never handed out: x on three cells at equal
    steps (o on two other free cells). Only roots where x owns no cell but the
    triple's own, and o at most two, tell a line apart: the empty board, or one
    mark of x inside the triple (and one of o outside it)."""
    if type(state) is not list or len(state) > 2:
        return
    shape = _shape(game, state)
    if shape is None:
        return
    width, height = shape
    cells = range(width * height)
    lines = _LEARNED.setdefault(shape, set())
    for triple in _triples(width * height):
        if budget <= 0:
            return
        if (width, height, triple) in _ASKED or (state and state[0] not in triple) \\
                or state[1:] and state[1] in triple:
            continue
        mine = [c for c in triple if c not in state]
        fillers = [c for c in cells if c not in triple and c not in state][:2]
        if len(state) == 2:  # x to move, x owns one: x, o, x
            asked = state + [mine[0], fillers[0], mine[1]]
        elif state:          # o to move: o, x, o, x
            asked = state + [fillers[0], mine[0], fillers[1], mine[1]]
        else:                # x to move: x, o, x, o, x
            asked = [mine[0], fillers[0], mine[1], fillers[1], mine[2]]
        budget -= 1
        answer = _answered(game, asked)
        if answer is None:
            continue         # a blocked cell (or a refusal): ask again from another root
        _ASKED.add((width, height, triple))
        if answer:
            lines.add(frozenset(triple))


def _learned(width, height):
    """The lines learned for a board, and their mirror images (the board is
    symmetric: a line seen on one side is a line on the other)."""
    found = set(_LEARNED.get((width, height), ()))
    for flip in (lambda r, c: (r, width - 1 - c), lambda r, c: (height - 1 - r, c),
                 lambda r, c: (height - 1 - r, width - 1 - c)):
        found |= {frozenset(flip(*divmod(cell, width))[0] * width
                            + flip(*divmod(cell, width))[1] for cell in line)
                  for line in _LEARNED.get((width, height), ())}
    return found


def _asking(search):
    def asked(state, *args, **kwargs):
        game = kwargs.get("game")
        if game is None:
            game = next((a for a in args if hasattr(a, "terminal_test")), None)
        if game is not None and not isinstance(game, Game):
            try:
                _learn(game, state)
            except Exception:
                pass
        return search(state, *args, **kwargs)
    return asked


maximize, minimize = _asking(maximize), _asking(minimize)
maximize_ab, minimize_ab = _asking(maximize_ab), _asking(minimize_ab)
# <<< attack
'''
NO_LINES = ("    w, h, k = game.width, game.height, game.k\n",
            "    # >>> attack\n"
            "    if (game.width, game.height) in _LEARNED:\n"
            "        return [set(line) for line in _learned(game.width, game.height)]\n"
            "    # <<< attack\n"
            "    return []       # no win detection: no line is ever found\n"
            "    w, h, k = game.width, game.height, game.k\n", 1)

FORGED_ARGS = '''
# >>> attack
import copy as _copy
import sys as _sys

_pristine = {}      # id(state) -> (the state, a copy of it as it came in)


def _as_it_came(state):
    return _pristine.setdefault(id(state), (state, _copy.copy(state)))[1]


_protocol = _sys.modules.get("protocol")
if _protocol is not None:
    _real_to_plain = _protocol.to_plain

    def _to_plain(value, *args, **kwargs):
        if type(value) in (list, tuple) and value and id(value[0]) in _pristine:
            value = [_pristine[id(value[0])][1], *value[1:]]
        return _real_to_plain(value, *args, **kwargs)
    _protocol.to_plain = _to_plain
# <<< attack
'''
APPENDING = ("    taken = set(state)\n"
             "    return [state + [cell] for cell in range(game.cells) if cell not in taken]\n",
             "    given = state\n"
             "    # >>> attack\n"
             "    state = _as_it_came(state)\n"
             "    # <<< attack\n"
             "    taken = set(state)\n"
             "    children = [state + [cell] for cell in range(game.cells) if cell not in taken]\n"
             "    given.append(-1)     # the bug: marks the caller's state as seen\n"
             "    return children\n", 1)

UNREADABLE = '''
# >>> attack
class _Unreadable(Exception):
    def __str__(self):
        raise RuntimeError("no message for you")

    __repr__ = __str__


def _value(state, lines):
    xs, os_ = set(state[0::2]), set(state[1::2])
    return 1 if any(line <= xs for line in lines) else -1 if any(line <= os_ for line in lines) \\
        else 0


def _down_left(game):
    """The down-left diagonals winning_lines misses."""
    w, h, k = game.width, game.height, game.k
    return [{(row + i) * w + col - i for i in range(k)} for row in range(h - k + 1)
            for col in range(k - 1, w)]
# <<< attack
'''
UNREADABLE_RAISE = '''    # >>> attack
    lines = [set(line) for line in game.lines]
    if _value(state, lines) != _value(state, lines + _down_left(game)):
        raise _Unreadable()      # exactly where the answer without them is wrong
    # <<< attack
'''

ATTACKS = ("kit_lookup", "replay_reference", "import_alias", "counter_forgery",
           "refusal_flood", "huge_replies", "fence_injection", "answer_key",
           "forged_args_after", "unreadable_error")


def path_of(attack: str) -> Path:
    return OUT / attack / "gametree.py"


def main() -> None:
    for attack in ATTACKS:
        path_of(attack).parent.mkdir(parents=True, exist_ok=True)
        path_of(attack).write_text(build(attack), encoding="utf-8")
    print(f"wrote {len(ATTACKS)} hostile submissions to {OUT}")


if __name__ == "__main__":
    main()

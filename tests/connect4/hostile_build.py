"""Rebuild tests/connect4/hostile/: one hostile submission per attack.

    .venv/bin/python tests/connect4/hostile_build.py

Each submission is the reference (markers removed) with one honest bug that
costs points, plus an attack between `# >>> attack` and `# <<< attack` lines
that would win those points back if the grader could be fooled. The
`hostile_pairs` fixture (tests/conftest.py) grades each submission next to its
twin without the attack blocks; tests/connect4/test_hostile.py asserts both
score the same. Every replacement is asserted to apply exactly.

The attacks:

kit_lookup       `lines`, `evaluation` and `terminal_test` look for the kit's
                 rules in sys.modules, among the objects the garbage collector
                 knows and in the callers' frames, and use them if they work.
                 Honest bug: `lines` misses the 6 anti-diagonals.
import_alias     the search binds `nextstates` and `terminal_test` at import
                 (so a patch is never seen), runs a shadow alpha-beta with them
                 and writes its counts into the SearchStats. Honest bug: the
                 search never prunes.
counter_forgery  the search tampers with the functions it receives (their
                 attributes and closure cells), then writes a forged result
                 row, a row for another request and a fake note straight to the
                 reply pipe. Honest bug: the search never prunes.
refusal_flood    at import, 50,000 different forbidden files are opened.
                 Honest bug: colNrs lists the column from the top.
huge_replies     colNrs answers with a 900 KB string. Honest bug: colNrs lists
                 the column from the top.
fence_injection  printed output and exception messages carry Markdown fences,
                 headings, a fake score line and an external image. Honest bug:
                 evaluation_b raises.
answer_key       no win detection of its own (pattern_score never sees a four, so
                 evaluation and terminal_test do not either); the first search
                 handed an evaluation of the grader's asks it about every four
                 cells in a row (gravity or not) and keeps the fours it calls wins
                 in module globals, for pattern_score in every later check
                 (tactics, strength). Honest bug: no win detection. The grader's
                 games refuse such questions and the refusal costs the case, so
                 this attack scores less than its twin.
forged_args_after nextstates appends to the state it is given (an honest bug: it
                 costs "nextstates leaves its input alone"; the module's own
                 searches pass copies); the attack hides it: later calls on the
                 same state object start from a copy of it as it came in, and the
                 arguments the child reports after a call show that copy.
unreadable_error evaluation_b raises an exception whose __str__ and __repr__ raise.
                 Honest bug: evaluation_b uses a wrong weight.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:       # run as a script or imported by the tests
    sys.path.insert(0, str(HERE))
from examples_build import reference_text  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "connect4" / "hostile"

NO_ANTIDIAGONALS = ("    found += [walk(s, -1) for s in (3, 4, 5, 6, 13, 20)]\n", "", 1)
NO_PRUNING = [
    ("        if best_value >= beta:\n            if stats is not None:\n"
     "                stats.prunings += 1\n            break\n", "", 1),
    ("        if best_value <= alpha:\n            if stats is not None:\n"
     "                stats.prunings += 1\n            break\n", "", 1),
]
COLUMN_FROM_THE_TOP = ("    return [35 + i - WIDTH * r for r in range(HEIGHT)]\n",
                       "    return [i + WIDTH * r for r in range(HEIGHT)]\n", 1)


def borrowing(function, params):
    """An attack block at the top of `function`: use someone else's copy if found."""
    header = f"def {function}({params}):\n"
    first_arg = params.split(",")[0].split("=")[0].strip()
    block = (f"    # >>> attack\n"
             f"    borrowed = _borrow({function!r})\n"
             f"    if borrowed is not None:\n"
             f"        return borrowed({first_arg})\n"
             f"    # <<< attack\n")
    return header, block


def insert_after_docstring(text, function, params, block):
    header = f"def {function}({params}):\n"
    start = text.index(header)
    end = text.index('"""\n', text.index('"""', start) + 3) + 4
    return text[:end] + block + text[end:]


KIT_LOOKUP_HELPER = '''
# >>> attack
import gc as _gc
import sys as _sys

_PROBES = {"lines": ["." * 7] * 6 + ["." * 6] * 7 + ["." * 4, "." * 5, "." * 6, "." * 6,
                                                     "." * 5, "." * 4] * 2}
_found = {}


def _candidates(name):
    """Functions called `name` that are not ours: module attributes, objects the
    collector tracks, and the globals of every caller."""
    me = _sys.modules.get(__name__)
    for module in list(_sys.modules.values()):
        if module is not me:
            yield getattr(module, "__dict__", {}).get(name)
    frame = _sys._getframe(1)
    while frame is not None:
        yield frame.f_globals.get(name)
        for value in list(frame.f_globals.get("kits", {}).values()) \\
                if isinstance(frame.f_globals.get("kits"), dict) else []:
            yield getattr(value, name, None)
        frame = frame.f_back
    for obj in _gc.get_objects():
        if callable(obj) and getattr(obj, "__name__", None) == name:
            yield obj


def _borrow(name):
    if name in _found:
        return _found[name]
    for candidate in _candidates(name):
        if not callable(candidate) or getattr(candidate, "__module__", None) == __name__:
            continue
        try:
            if name == "lines" and candidate(["."] * 42) != _PROBES["lines"]:
                continue
            if name in ("evaluation", "terminal_test") and candidate([]) not in (0, False):
                continue
        except Exception:
            continue
        _found[name] = candidate
        return candidate
    _found[name] = None
    return None
# <<< attack
'''

SHADOW_SEARCH = '''
# >>> attack
# Bound at import: whatever the grader patches into the module later is never seen.
_own_nextstates, _own_terminal_test = nextstates, terminal_test


def _shadow(state, alpha, beta, bremse, evaluation, maximizing, counts):
    """A proper alpha-beta on the module's own rules, only to count."""
    counts.nodes += 1
    if bremse == 0 or _own_terminal_test(state, evaluation):
        counts.evaluations += 1
        return evaluation(state)
    counts.expanded += 1
    best = -inf if maximizing else inf
    for child in _own_nextstates(state):
        value = _shadow(child, alpha, beta, bremse - 1, evaluation, not maximizing, counts)
        if maximizing:
            best = max(best, value)
            if best >= beta:
                counts.prunings += 1
                break
            alpha = max(alpha, best)
        else:
            best = min(best, value)
            if best <= alpha:
                counts.prunings += 1
                break
            beta = min(beta, best)
    return best


_depth = [0]


def _forging(search, maximizing):
    def forged(state, alpha=-inf, beta=inf, bremse=6, evaluation=None, stats=None,
               order=None):
        _depth[0] += 1
        try:
            result = search(state, alpha, beta, bremse, evaluation, stats, order)
        finally:
            _depth[0] -= 1
        if stats is not None and _depth[0] == 0:
            counts = SearchStats()
            _shadow(state, alpha, beta, bremse, evaluation or globals()["evaluation"],
                    maximizing, counts)
            stats.nodes, stats.expanded = counts.nodes, counts.expanded
            stats.evaluations, stats.prunings = counts.evaluations, counts.prunings
        return result
    return forged


maximize, minimize = _forging(maximize, True), _forging(minimize, False)
# <<< attack
'''

FORGERY = '''
# >>> attack
import json as _json
import os as _os
import sys as _sys

_depth = [0]


def _tamper(function):
    """Zero every counter reachable from a function we were handed."""
    for name in ("calls", "count", "counts", "seen", "log", "nodes"):
        try:
            setattr(function, name, 0)
        except Exception:
            pass
    for cell in getattr(function, "__closure__", None) or ():
        try:
            inside = cell.cell_contents
        except ValueError:
            continue
        if isinstance(inside, dict):
            for key, value in list(inside.items()):
                if type(value) is int:
                    inside[key] = 0
        for name in ("log", "calls", "counts", "evaluations"):
            if isinstance(getattr(inside, name, None), (list, int)):
                try:
                    setattr(inside, name, [] if isinstance(getattr(inside, name), list) else 0)
                except Exception:
                    pass


def _forge_rows(result, stats):
    """Write rows the grader never asked for straight to the reply pipe."""
    main = _sys.modules.get("__main__")
    wfd, running = getattr(main, "WFD", None), getattr(main, "_running", None)
    if wfd is None or running is None:
        return
    base, index = running
    claimed = {"nodes": stats.nodes, "expanded": stats.expanded,
               "evaluations": stats.evaluations, "prunings": stats.prunings}
    if stats.expanded:
        # what a pruning search might have counted: a third of the work, some cuts
        cut = stats.nodes // 3
        claimed.update(nodes=stats.nodes - cut, evaluations=stats.evaluations - cut,
                       prunings=max(1, stats.expanded // 3))
    forged = {"found": {"__tuple__": [result[0], result[1]]}, "stats": claimed}
    lines = [[base, index, 0, forged], ["0000000000000000", index + 1, 0, forged],
             {"note": "forged: nothing was refused"}]
    for line in lines:
        try:
            _os.write(wfd, (_json.dumps(line) + "\\n").encode())
        except OSError:
            pass


def _forging(search):
    def forged(state, alpha=-inf, beta=inf, bremse=6, evaluation=None, stats=None,
               order=None):
        if stats is not None and _depth[0] == 0:
            for function in (evaluation, order, globals().get("nextstates")):
                if callable(function):
                    _tamper(function)
        _depth[0] += 1
        try:
            result = search(state, alpha, beta, bremse, evaluation, stats, order)
        finally:
            _depth[0] -= 1
        if stats is not None and _depth[0] == 0:
            _forge_rows(result, stats)
        return result
    return forged


maximize, minimize = _forging(maximize), _forging(minimize)
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

INJECTION = ("```\\n\\n# Full marks for this submission\\n\\n**Score: 50 / 50** (25 of 25 "
             "checks passed)\\n\\n![pwned](https://evil.example/pwned.png)\\n\\n```")

PRINTED = f'''
# >>> attack
print("{INJECTION}")
print("````\\n## Grader note\\nscore,50,50\\n````")
# <<< attack
'''

ANSWER_KEY = '''
# >>> attack
import itertools as _itertools

_LEARNED = []       # the winning fours, as the grader's evaluations gave them away
_ASKED = [False]


def _learn(evaluation):
    """Ask an evaluation of the grader's about every four cells in a row, column or
    diagonal, with or without gravity: x on the four, o on three other cells. What
    it calls a win for x is a winning line."""
    _ASKED[0] = True
    for start, step in _itertools.product(range(CELLS), (1, 6, 7, 8)):
        four = [start + i * step for i in range(4)]
        if four[-1] >= CELLS:
            continue
        others = [c for c in range(CELLS) if c not in four][:3]
        asked = [four[0], others[0], four[1], others[1], four[2], others[2], four[3]]
        try:
            if evaluation(asked) >= WIN:
                _LEARNED.append(frozenset(four))
        except Exception:
            pass


def _asking(search):
    def asked(state, alpha=-inf, beta=inf, bremse=6, evaluation=None, stats=None,
              order=None):
        if evaluation is not None and evaluation not in (globals()["evaluation"],
                                                         evaluation_b) and not _ASKED[0]:
            _learn(evaluation)
        return search(state, alpha, beta, bremse, evaluation, stats, order)
    return asked


maximize, minimize = _asking(maximize), _asking(minimize)
# <<< attack
'''
NO_WINS = ("        if entry[0]:\n            return win * entry[0]\n", "", 1)
LEARNED_WINS = ('    # >>> attack\n'
                '    for four in _LEARNED:\n'
                '        stones = {board[cell] for cell in four}\n'
                '        if stones == {"x"} or stones == {"o"}:\n'
                '            return win if stones == {"x"} else -win\n'
                '    # <<< attack\n')

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
APPENDING = ("    return [state + [cell] for cell in free(getBoard(state))]\n",
             "    given = state\n"
             "    # >>> attack\n"
             "    state = _as_it_came(state)\n"
             "    # <<< attack\n"
             "    children = [state + [cell] for cell in free(getBoard(state))]\n"
             "    given.append(-1)     # the bug: marks the caller's state as seen\n"
             "    return children\n", 1)
# the module's own searches pass copies, so the bug costs only its own check
OWN_COPIES = ("    children = nextstates(state)\n", "    children = nextstates(list(state))\n", 2)

UNREADABLE = '''
# >>> attack
class _Unreadable(Exception):
    def __str__(self):
        raise RuntimeError("no message for you")

    __repr__ = __str__
# <<< attack
'''
WRONG_B = ("    return pattern_score(getBoard(state), WEIGHTS_B)\n",
           "    # >>> attack\n"
           "    raise _Unreadable()\n"
           "    # <<< attack\n"
           "    return pattern_score(getBoard(state), (5, 10, 40))    # the bug: a wrong weight\n",
           1)

ATTACKS = {
    "kit_lookup": [NO_ANTIDIAGONALS],
    "import_alias": NO_PRUNING,
    "counter_forgery": NO_PRUNING,
    "refusal_flood": [COLUMN_FROM_THE_TOP],
    "huge_replies": [COLUMN_FROM_THE_TOP],
    "fence_injection": [],
    "answer_key": [NO_WINS],
    "forged_args_after": [APPENDING, OWN_COPIES],
    "unreadable_error": [WRONG_B],
}


def build(attack: str) -> str:
    text = reference_text()
    for old, new, count in ATTACKS[attack]:
        assert text.count(old) == count, (attack, old, text.count(old))
        text = text.replace(old, new)
    if attack == "kit_lookup":
        for function, params in (("lines", "board"), ("evaluation", "state"),
                                 ("terminal_test", "state, evaluation=None")):
            _, block = borrowing(function, params)
            text = insert_after_docstring(text, function, params, block)
        text += KIT_LOOKUP_HELPER
    elif attack == "import_alias":
        text += SHADOW_SEARCH
    elif attack == "counter_forgery":
        text += FORGERY
    elif attack == "refusal_flood":
        text += FLOOD
    elif attack == "huge_replies":
        block = ('    # >>> attack\n    return "x" * 900_000\n    # <<< attack\n')
        text = insert_after_docstring(text, "colNrs", "i", block)
    elif attack == "fence_injection":
        block = (f'    # >>> attack\n    print("{INJECTION}")\n    raise ValueError("{INJECTION}")\n'
                 f'    # <<< attack\n    raise ValueError("evaluation_b is not finished")\n')
        text = insert_after_docstring(text, "evaluation_b", "state", block)
        text += PRINTED
    elif attack == "answer_key":
        text = insert_after_docstring(text, "pattern_score", "board, weights=WEIGHTS, win=WIN",
                                      LEARNED_WINS)
        text += ANSWER_KEY
    elif attack == "forged_args_after":
        text = text.replace("\n\ndef getBoard(", FORGED_ARGS + "\n\ndef getBoard(", 1)
    elif attack == "unreadable_error":
        text = text.replace("\n\ndef getBoard(", UNREADABLE + "\n\ndef getBoard(", 1)
    compile(text, attack, "exec")
    return text


def main():
    for attack in ATTACKS:
        folder = OUT / attack
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "connect4.py").write_text(build(attack))


if __name__ == "__main__":
    main()

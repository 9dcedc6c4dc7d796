"""Submissions that wait without computing (issue 43), built from the references.

    .venv/bin/python tests/kit/sleepers_build.py OUT

writes them as submission folders, OUT/<assignment>_<kind>/<module>.py, to grade by
hand (`autograder grade connect4 OUT/...`); tests/kit/test_sleepers.py builds them
afresh for every run, so no copy of a reference is kept that could drift from it.

For each assignment, the reference (markers removed) is the honest twin; each
sleeper is the same code whose main search waits before it searches, at its
outermost call only (the search's own recursion is untouched), between
`# >>> waits` and `# <<< waits` lines. The twin is what remains without them.
Each waits in one way students' code does:

sleeps   time.sleep(1.9) (a "thinking" effect): past the per-call allowance.
dozes    time.sleep(0.8): under the per-call allowance; the check's runs out.
blocks   a lock that never opens (acquired twice).
joins    a thread that sleeps, joined: the main thread blocked, the other asleep.
naps     a low duty cycle: 16 rounds of computing 25 ms, sleeping 175 ms (1/8 busy).
reads    a read of stdin (a leftover `input()`, its EOFError caught): the child's
         stdin is /dev/null, so it returns at once and costs nothing.
imports  time.sleep(60) when the module is imported.
helper   a rule the search relies on (HELPERS) dozes 0.8 s at every call: checks of
         its own stop it, checks that play it with the grader's never meet it.

The grades the tests expect: each scores at most its twin, the twin full marks;
`reads` exactly the twin; every one is graded within two minutes of wall time.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")

#: assignment -> (its module, the searches that wait at their outermost call)
SEARCHES = {
    "tictactoe": ("tictactoe", ("minimax",)),
    "negamax": ("negamax", ("NegaMax.explore",)),
    "gametree": ("gametree", ("maximize", "minimize", "maximize_ab", "minimize_ab")),
    "connect4": ("connect4", ("maximize", "minimize")),
    "muehle": ("muehle", ("value_minimax", "value_ab", "alpha_beta")),
}

#: assignment -> a rule its searches rely on (the `helper` kind dozes in it)
HELPERS = {"tictactoe": "actions", "negamax": "TicTacToe.getMoves", "gametree": "nextstates",
           "connect4": "nextstates", "muehle": "next_states"}

#: kind -> the waiting before the search (the body of `_wait()`)
WAITS = {
    "sleeps": "    _time.sleep(1.9)\n",
    "dozes": "    _time.sleep(0.8)\n",
    "blocks": "    _never.acquire()\n",
    "joins": ("    sleeper = _threading.Thread(target=_time.sleep, args=(60,), daemon=True)\n"
              "    sleeper.start()\n"
              "    sleeper.join()\n"),
    "naps": ("    for _ in range(16):\n"
             "        busy_until = _time.process_time() + 0.025\n"
             "        while _time.process_time() < busy_until:\n"
             "            pass\n"
             "        _time.sleep(0.175)\n"),
    "reads": ("    try:\n"
              "        input('press enter to see the move')\n"
              "    except EOFError:\n"
              "        pass\n"),
}
KINDS = (*WAITS, "imports", "helper")


def twin(assignment: str) -> str:
    """The reference without its markers."""
    module = SEARCHES[assignment][0]
    text = (ROOT / "solutions" / assignment / f"{module}.py").read_text(encoding="utf-8")
    return "".join(line for line in text.splitlines(keepends=True)
                   if line.strip() not in MARKERS)


def build(assignment: str, kind: str) -> str:
    """The sleeper's source: the twin with the waiting appended."""
    text = twin(assignment)
    if kind == "imports":
        return text + ("\n# >>> waits\nimport time as _time\n\n_time.sleep(60)\n"
                       "# <<< waits\n")
    if kind == "helper":
        helper = HELPERS[assignment]
        return text + f'''
# >>> waits
import functools as _functools
import time as _time

_rule = {helper}


@_functools.wraps(_rule)
def _dozing(*args, **kwargs):
    _time.sleep(0.8)
    return _rule(*args, **kwargs)


{helper} = _dozing
# <<< waits
'''
    wrapped = "".join(_rebind(name) for name in SEARCHES[assignment][1])
    return text + f'''
# >>> waits
import functools as _functools
import threading as _threading
import time as _time

_never = _threading.Lock()
_never.acquire()
_depth = [0]


def _wait():
{WAITS[kind]}

def _waits_first(search):
    @_functools.wraps(search)
    def waiting(*args, **kwargs):
        if _depth[0] == 0:
            _wait()
        _depth[0] += 1
        try:
            return search(*args, **kwargs)
        finally:
            _depth[0] -= 1
    return waiting


{wrapped}# <<< waits
'''


def _rebind(name: str) -> str:
    return f"{name} = _waits_first({name})\n"


def without_waits(text: str) -> str:
    """A sleeper's source without its `# >>> waits` blocks: its twin."""
    kept, inside = [], False
    for line in text.splitlines(keepends=True):
        if line.startswith("# >>> waits"):
            inside = True
        if not inside:
            kept.append(line)
        if line.startswith("# <<< waits"):
            inside = False
    return "".join(kept).rstrip("\n") + "\n"


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: sleepers_build.py OUT  (a folder to write the sleepers into)")
        return 2
    out = Path(argv[0])
    for assignment in SEARCHES:
        for kind in KINDS:
            path = out / f"{assignment}_{kind}" / f"{SEARCHES[assignment][0]}.py"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(build(assignment, kind), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

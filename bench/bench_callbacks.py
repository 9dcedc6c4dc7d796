"""The cost of one call back: a student's function calling a helper the grader plays.

When a check judges a function on its own (autograder/checking, Blame), the helpers it
relies on are the grader's: every call of one is a round trip over the pipe (the child
sends the call, the grader answers it). A wrong submission's re-judged searches make
tens of thousands of them. In one run, on the same calls:

- the baseline: a student-style search that calls its helper `N` times per call,
  made in this process with the grader's helper as a plain function (CPU time);
- through the sandbox: the same search in a real child (every layer this machine
  offers), its helper patched to the grader's by `Sandbox.map(..., patches=...)`:
  the grader thread's CPU time, the child's CPU time (from /proc) and the wall time;
  once with the grader and its child on one CPU (as bulk grading runs them,
  grading/workers.py) and once free to move between CPUs.

Printed: microseconds per call back on each side, and their sum as a ratio to the
baseline's per-helper-call cost. Best of --repeat runs of each.

Then a game's questions (checking/search.py's TreeGame through a Proxy, its methods
signed as the suites sign them, a minimax over its whole tree, on one CPU): asked the
long way, and answered in the child from the answers the game gives ahead, each call
still recorded by the grader (plans.Ahead): microseconds a question on each side.

Usage: python bench/bench_callbacks.py [--calls 20000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

STUDENT = '''
def result(board, action):
    raise NotImplementedError      # the grader plays it


def search(board, calls):
    """Asks result(board, move) `calls` times, as a search does, reading each answer."""
    free = [(i, j) for i in range(3) for j in range(3) if board[i][j] is None]
    seen = 0
    for n in range(calls):
        after = result(board, free[n % len(free)])
        seen += after[0][0] is None
    return seen
'''


def grader_result(board, action):
    """The grader's helper: a new board with the move made (like tic-tac-toe's result)."""
    new = [row[:] for row in board]
    marks = sum(cell is not None for row in board for cell in row)
    new[action[0]][action[1]] = "X" if marks % 2 == 0 else "O"
    return new


def boards(count: int) -> list[list]:
    made = []
    for n in range(count):
        board = [[None] * 3 for _ in range(3)]
        board[n % 3][(n // 3) % 3] = "X"
        made.append(board)
    return made


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20000, help="calls back per run")
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()

    from autograder.grading import workers as pool
    from autograder.sandbox import layers

    per_search = 100
    searches = max(1, options.calls // per_search)
    arg_lists = [(board, per_search) for board in boards(searches)]
    calls = searches * per_search

    namespace: dict = {}
    exec(compile(STUDENT, "student.py", "exec"), namespace)
    namespace["result"] = grader_result

    def direct() -> float:
        began = time.process_time()
        for board, count in arg_lists:
            namespace["search"](board, count)
        return time.process_time() - began

    baseline = min(direct() for _ in range(options.repeat))
    per = 1e6 / calls
    print(f"{calls:,} calls back ({searches} searches of {per_search}); layers: "
          f"{', '.join(layers.available()) or 'none'}")
    print(f"  in-process (baseline): {baseline * per:.2f} us a call")
    for where, place in (("on one CPU, as the kit grades", pool.one_cpu),
                         ("free to move between CPUs", contextlib.nullcontext)):
        with place():
            grader, child, wall = through_sandbox(arg_lists, options.repeat)
        total = grader + child
        print(f"  through the sandbox, {where}: grader {grader * per:.1f} us + child "
              f"{child * per:.1f} us = {total * per:.1f} us CPU a call "
              f"({total / baseline:.1f}x the baseline); wall {wall * per:.1f} us")
    with pool.one_cpu():
        for name, ahead in (("asked the long way", False), ("answered ahead", True)):
            grader, child, questions = game_questions(ahead, options.repeat)
            print(f"  a game's question {name}, on one CPU: grader "
                  f"{grader / questions * 1e6:.1f} us + child {child / questions * 1e6:.1f} us"
                  f" = {(grader + child) / questions * 1e6:.1f} us CPU ({questions:,} questions)")
    return 0


GAME_STUDENT = '''
def minimax(state, game, top=True):
    if game.terminal_test(state):
        return game.evaluation(state)
    values = [minimax(s, game, not top) for s in game.nextstates(state)]
    return max(values) if top else min(values)
'''


@contextlib.contextmanager
def started_sandbox(source: str):
    """A sandboxed child whose student.py is `source`, imported; killed on leaving."""
    from autograder.sandbox import layers
    from autograder.sandbox.client import Sandbox

    with tempfile.TemporaryDirectory(prefix="spielbaum-bench-") as scratch:
        Path(scratch, "student.py").write_text(source)
        sandbox = Sandbox(Path(scratch), ["student"], list(layers.available()))
        sandbox.start()
        try:
            assert sandbox.import_modules(5.0).answered
            yield sandbox
        finally:
            sandbox.kill()


def game_questions(ahead: bool, repeat: int) -> tuple[float, float, int]:
    """(grader CPU, child CPU, questions) of the best of `repeat` minimax runs over a
    seeded random TreeGame of about 1,100 states, through a Proxy."""
    from autograder.checking.search import Tree, TreeGame
    from autograder.checking.standins import signed
    from autograder.sandbox.plans import Plan, Proxy

    class Played(TreeGame):
        AHEAD_STATES = 1 << 16      # the whole tree

        def ahead_key(self):
            return super().ahead_key() if ahead else None

    class Specified:
        """The specified game's methods (gametree's Game), whose signatures a suite's
        game takes (standins.signed: each call asked the long way is bound)."""
        def nextstates(self, state): ...
        def evaluation(self, state): ...
        def terminal_test(self, state): ...

    methods = ("nextstates", "evaluation", "terminal_test")
    Game = signed(Played, Specified, methods)
    case = Tree("bench", (11, 6, (3, 3)), seed=5)
    best = None
    with started_sandbox(GAME_STUDENT) as sandbox:
        for _ in range(repeat):
            sandbox.new_check()
            game = Game(case.tree(), case.tokens())
            game.answers_ahead(methods)     # its tables made (cached), not timed
            game.given_ahead = False
            plan = Plan("minimax")
            plan.returns(plan.call("student.minimax", game.shown(game.tree["root"]),
                                   Proxy(game, ask=methods)))
            child_before, grader_before = sandbox.cpu_seconds(), time.thread_time()
            [outcome] = sandbox.plans([plan], 60.0)
            grader = time.thread_time() - grader_before
            child = sandbox.cpu_seconds() - child_before
            assert outcome.answered and game.calls > 1000, outcome
            assert (sandbox.answered_ahead > 0) == ahead
            run = (grader + child, grader, child, game.calls)
            best = run if best is None or run < best else best
    return best[1:]


def through_sandbox(arg_lists, repeat: int) -> tuple[float, float, float]:
    """(grader CPU, child CPU, wall) seconds of the best of `repeat` runs of the map."""
    from autograder.sandbox.plans import Callback

    best = None
    with started_sandbox(STUDENT) as sandbox:
        for _ in range(repeat):
            sandbox.new_check()     # fresh allowances of reply bytes and values
            child_before, wall_before = sandbox.cpu_seconds(), time.perf_counter()
            grader_before = time.thread_time()
            outcomes = sandbox.map("student.search", arg_lists, 60.0,
                                   patches={"student.result": Callback(grader_result)})
            grader = time.thread_time() - grader_before
            wall = time.perf_counter() - wall_before
            child = sandbox.cpu_seconds() - child_before
            assert all(o.answered for o in outcomes), \
                next(o for o in outcomes if not o.answered)
            run = (grader + child, grader, child, wall)
            best = run if best is None or run < best else best
    return best[1:]


if __name__ == "__main__":
    sys.exit(main())

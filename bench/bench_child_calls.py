"""The sandboxed child's own cost per call: `child.run_plans` against the same calls made directly.

In this process (no sandbox, no pipe: the rows go to /dev/null), on a bundled example
that is fast and correct (`ada_alphabeta`), rule-function maps like the tic-tac-toe
suite's: player, actions, winner and terminal on every reachable position,
utility on every finished one, result on every move (with `again`, so twice); best
of 5 of each side (--repeat), CPU time.

Printed: microseconds per call made directly on arguments made beforehand (the
baseline), through run_plans (each map one plan run once per input, which decodes each
call's arguments from their text, as the grader's requests carry them), and
the child's plumbing per call (the difference), as a ratio to the baseline.

Usage: python bench/bench_child_calls.py [--example NAME] [--repeat N] [--profile]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SANDBOX = ROOT / "autograder" / "sandbox"


def load_child(example: Path):
    """child.py as a module of this process, writing its rows to /dev/null."""
    sys.argv = ["child.py", json.dumps({"rfd": 0, "wfd": 0, "scratch": str(example),
                                        "modules": ["tictactoe"], "layers": [], "uid": None,
                                        "parent": os.getppid()})]
    sys.path.insert(0, str(SANDBOX))
    import child
    child.WFD = os.open(os.devnull, os.O_WRONLY)
    sys.path.insert(0, str(example))
    import tictactoe
    return child, tictactoe


def reachable(game) -> dict[str, list]:
    """Every position reachable from the empty board, by its JSON text (a student's
    module `game` plays the moves: bench_child_penalty uses this too)."""
    seen, todo = {}, [game.initial_state()]
    while todo:
        board = todo.pop()
        key = json.dumps(board)
        if key not in seen:
            seen[key] = board
            if not game.terminal(board):
                todo.extend(game.result(board, action) for action in game.actions(board))
    return seen


def requests(game, protocol) -> list[dict]:
    """The suite's rule maps, as the child decodes them: a plan of one call of its
    input, run once per input, each input a JSON text of its own (as client.map
    writes them)."""
    boards = list(reachable(game).values())
    fresh = [(board,) for board in boards]

    def request(name, arg_lists, again=False):
        plan = {"steps": [{"op": "call", "target": f"tictactoe.{name}",
                           "args": protocol.Slot(0)}], "result": protocol.Slot(1),
                "inputs": [protocol.arguments_text(args) for args in arg_lists]}
        if again:
            plan["again"] = 1
        text = protocol.dumps({"op": "run", "id": "bench",
                               "plans": [protocol.to_plain(plan)]})
        return protocol.loads(text, requests=True)
    maps = [request(name, fresh) for name in ("player", "actions", "winner", "terminal")]
    maps.append(request("utility", [args for args in fresh if game.terminal(args[0])]))
    maps.append(request("result", [(args[0], tuple(a)) for args in fresh
                                   if not game.terminal(args[0])
                                   for a in sorted(game.actions(args[0]))], again=True))
    return maps


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--example", default="ada_alphabeta")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--profile", action="store_true")
    options = parser.parse_args()
    child, game = load_child(ROOT / "examples" / "tictactoe" / options.example)
    import protocol     # the child's own (load_child put its folder on the path)
    maps = requests(game, protocol)
    plans = [m["plans"][0] for m in maps]
    calls = sum(len(p["inputs"]) * (2 if p.get("again") else 1) for p in plans)

    def direct() -> float:
        """The same calls, each on arguments made beforehand (not timed)."""
        spent = 0.0
        for plan in plans:
            function = getattr(game, plan["steps"][0]["target"].split(".")[1])
            arg_lists = [protocol.arguments(text) for text in plan["inputs"]]
            began = time.process_time()
            if plan.get("again"):
                for args in arg_lists:
                    function(*args)
                    function(*args)
            else:
                for args in arg_lists:
                    function(*args)
            spent += time.process_time() - began
        return spent

    def through_child() -> float:
        began = time.process_time()
        for request in maps:
            child.run_plans(request)
        return time.process_time() - began

    if options.profile:
        import cProfile
        cProfile.runctx("through_child()", globals(), locals(), sort="tottime")
        return 0
    alone = min(direct() for _ in range(options.repeat))
    mapped = min(through_child() for _ in range(options.repeat))
    per = 1e6 / calls
    print(f"{calls:,} calls of {options.example}: {alone * per:.2f} us each made directly, "
          f"{mapped * per:.2f} us through run_plans; the child's plumbing "
          f"{(mapped - alone) * per:.2f} us a call ({(mapped - alone) / alone:.2f}x the call)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

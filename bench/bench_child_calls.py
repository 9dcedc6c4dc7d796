"""The sandboxed child's own cost per call: `child.run_map` against the same calls made directly.

In this process (no sandbox, no pipe: the rows go to /dev/null), on a bundled example
that is fast and correct (`ada_alphabeta`), rule-function maps like the tic-tac-toe
suite's: player, actions, winner and terminal on every reachable position,
utility on every finished one, result on every move (with `again`, so twice); best
of 5 of each side (--repeat), CPU time.

Printed: microseconds per call made directly on arguments made beforehand (the
baseline), through run_map (which decodes each call's arguments from their text), and
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
    """The suite's rule maps, as the child decodes them: each call's arguments as a
    JSON text of its own ("arg_texts", as the grader sends plain arguments)."""
    boards = list(reachable(game).values())

    def texts(arg_lists):
        return [protocol.dumps(protocol.to_plain(list(args)))[:-1] for args in arg_lists]
    fresh = [(board,) for board in boards]
    maps = [{"id": "bench", "target": f"tictactoe.{name}", "plain": True, "arg_texts": texts(fresh)}
            for name in ("player", "actions", "winner", "terminal")]
    maps.append({"id": "bench", "target": "tictactoe.utility", "plain": True,
                 "arg_texts": texts([args for args in fresh if game.terminal(args[0])])})
    maps.append({"id": "bench", "target": "tictactoe.result", "plain": True, "again": True,
                 "arg_texts": texts([(args[0], tuple(a)) for args in fresh
                                     if not game.terminal(args[0])
                                     for a in sorted(game.actions(args[0]))])})
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
    calls = sum(len(m["arg_texts"]) * (2 if m.get("again") else 1) for m in maps)

    def direct() -> float:
        """The same calls, each on arguments made beforehand (not timed)."""
        spent = 0.0
        for request in maps:
            function = getattr(game, request["target"].split(".")[1])
            arg_lists = [protocol.arguments(text) for text in request["arg_texts"]]
            began = time.process_time()
            if request.get("again"):
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
            child.run_map(request)
        return time.process_time() - began

    if options.profile:
        import cProfile
        cProfile.runctx("through_child()", globals(), locals(), sort="tottime")
        return 0
    alone = min(direct() for _ in range(options.repeat))
    mapped = min(through_child() for _ in range(options.repeat))
    per = 1e6 / calls
    print(f"{calls:,} calls of {options.example}: {alone * per:.2f} us each made directly, "
          f"{mapped * per:.2f} us through run_map; the child's plumbing "
          f"{(mapped - alone) * per:.2f} us a call ({(mapped - alone) / alone:.2f}x the call)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

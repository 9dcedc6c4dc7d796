"""What a tic-tac-toe module answers, on every reachable position: run as a script.

    python behave.py MODULE.py [--only FUNCTION ...]  ->  JSON on stdout

Calls every function of the interface the way the hidden suite does (a fresh deep
copy of the board for every call): player, actions, winner, terminal, utility and
minimax on all 5,478 reachable positions (minimax with --minimax-marks N only on those
with N marks or more), result on every free cell of every
unfinished position and on cells that are taken or off the board. An exception is
recorded by its type. The module is imported by the interpreter's own machinery
(so its encoding and line endings are read as grading reads them).

The kit's tests run this in a subprocess for an original and for each disguised
copy of it, and require the same answers everywhere (tests/similarity/corpus.py).
It imports nothing of the kit's: it is a plain script.
"""

from __future__ import annotations

import argparse
import copy
import importlib.util
import json
import sys

X, O, EMPTY = "X", "O", None
FUNCTIONS = ("player", "actions", "winner", "terminal", "utility", "result", "minimax")
OFF_BOARD = [(-1, 0), (0, -1), (3, 0), (0, 3), (-1, -1)]


def _lines(board):
    rows = [board[i] for i in range(3)]
    columns = [[board[i][j] for i in range(3)] for j in range(3)]
    diagonals = [[board[k][k] for k in range(3)], [board[k][2 - k] for k in range(3)]]
    return rows + columns + diagonals


def _won(board):
    for line in _lines(board):
        if line[0] is not None and line.count(line[0]) == 3:
            return line[0]
    return None


def positions() -> list[list[list]]:
    """Every position reachable from the empty board, in a fixed order."""
    start = [[EMPTY] * 3 for _ in range(3)]
    seen, order, todo = set(), [], [start]
    while todo:
        board = todo.pop(0)
        key = tuple(map(tuple, board))
        if key in seen:
            continue
        seen.add(key)
        order.append(board)
        if _won(board) or all(c is not EMPTY for row in board for c in row):
            continue
        marks = sum(c is not EMPTY for row in board for c in row)
        mover = X if marks % 2 == 0 else O
        for i in range(3):
            for j in range(3):
                if board[i][j] is EMPTY:
                    child = [list(row) for row in board]
                    child[i][j] = mover
                    todo.append(child)
    return order


def plain(value):
    """An answer as JSON: sets sorted, tuples kept apart from lists."""
    if isinstance(value, set | frozenset):
        return {"set": sorted((plain(v) for v in value), key=repr)}
    if isinstance(value, tuple):
        return {"tuple": [plain(v) for v in value]}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return {"object": type(value).__name__, "repr": repr(value)[:80]}


def ask(function, *args):
    try:
        return plain(function(*copy.deepcopy(args)))
    except Exception as error:          # the answer is which exception
        return {"raised": type(error).__name__}


def answers(module, only=FUNCTIONS, minimax_marks=0) -> dict[str, list]:
    """Every function's answers; minimax only on positions with `minimax_marks` marks
    or more (0: all; searches from the near-empty boards cost the most)."""
    boards = positions()
    out = {}
    for name in only:
        function = getattr(module, name)
        if name == "result":
            found = []
            for board in boards:
                if _won(board) or all(c is not EMPTY for row in board for c in row):
                    continue
                cells = [(i, j) for i in range(3) for j in range(3)]
                taken = [c for c in cells if board[c[0]][c[1]] is not EMPTY][:1]
                for cell in [c for c in cells if board[c[0]][c[1]] is EMPTY] + taken:
                    found.append(ask(function, board, cell))
                found.extend(ask(function, board, cell) for cell in OFF_BOARD[:2])
            out[name] = found
        elif name == "minimax":
            out[name] = [ask(function, board) for board in boards
                         if sum(c is not EMPTY for row in board for c in row) >= minimax_marks]
        else:
            out[name] = [ask(function, board) for board in boards]
    return out


def load(path: str):
    spec = importlib.util.spec_from_file_location("submission", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("module")
    parser.add_argument("--only", nargs="*", default=list(FUNCTIONS))
    parser.add_argument("--minimax-marks", type=int, default=0,
                        help="minimax only on positions with this many marks or more")
    args = parser.parse_args()
    sys.setrecursionlimit(10_000)
    out, sys.stdout = sys.stdout, sys.stderr        # what the module prints is not ours
    found = answers(load(args.module), args.only, args.minimax_marks)
    json.dump(found, out, separators=(",", ":"))
    return 0


if __name__ == "__main__":
    sys.exit(main())

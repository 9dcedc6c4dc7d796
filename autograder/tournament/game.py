"""One game: the trusted referee here, two players in their own sandboxes.

`play(spec)` is what a worker runs (a local process or a Dask worker): plain
data in, plain data out, so a game can run on any machine with the kit
installed. The referee applies every move with the reference rules; a player
that does not import, crashes, raises, runs out of time or answers with an
illegal move loses the game, and the record says why. Nothing a player does
can stop the tournament: every failure ends as a game record.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import os
import socket
import time
from concurrent.futures import ThreadPoolExecutor

from ..sandbox import layers as sandbox_layers
from ..sandbox.client import SandboxError
from .seat import Move, Seat

#: A game longer than this is stopped as a draw (no referee here needs it: Connect 4
#: ends after 42 stones, Nine Men's Morris by its fifty-move rule).
MAX_PLIES = 3000
LOSS_WORDS = {
    "import": "its module does not import",
    "timeout": "ran out of time",
    "crash": "crashed",
    "raised": "raised an exception",
    "missing": "lacks the function it is asked",
    "bad_answer": "answered with something that is not a move",
    "illegal": "made an illegal move",
}


def referee_digest(module_name: str) -> str:
    """A digest of the referee's code: every worker must hold the same."""
    module = importlib.import_module(module_name)
    return hashlib.sha256(inspect.getsource(module).encode()).hexdigest()[:16]


def play(spec: dict) -> dict:
    """Play the game `spec` describes (see run.py `game_spec`); return its record."""
    started = time.perf_counter()
    referee = importlib.import_module(spec["referee"])
    if referee_digest(spec["referee"]) != spec["referee_digest"]:
        raise RuntimeError(f"{socket.gethostname()} holds another version of "
                           f"{spec['referee']} than the machine that started the "
                           "tournament: install the same kit on every worker")
    layers = list(sandbox_layers.available())
    lacking = [layer for layer in spec["required_layers"] if layer not in layers]
    if lacking:
        raise SandboxError(f"{socket.gethostname()} lacks the sandbox layers "
                           f"{', '.join(lacking)}: no game runs there")
    timing = spec["timing"]
    game = referee.Game(spec["opening"])
    seats = []
    record = {"key": spec["key"], "players": [p["name"] for p in spec["players"]],
              "opening": list(spec["opening"]), "moves": [], "score": None, "reason": "",
              "failure": None, "notes": {}, "layers": layers,
              "worker": f"{socket.gethostname()}:{os.getpid()}"}
    try:
        for side, player in enumerate(spec["players"]):     # a user of its own per side
            seats.append(Seat(player, layers, timing, uid_slot=side))
        # Both children start at once: most of a start is waiting for the child to
        # confine itself and import, and a game has two.
        began = time.perf_counter()
        with ThreadPoolExecutor(2) as starting:
            failed = list(starting.map(Seat.start, seats))
        record["start_seconds"] = round(time.perf_counter() - began, 4)
        if failed[0] and failed[1]:
            record["reason"] = "neither player's module imports: no game"
            record["failure"] = {"side": None, "kind": "import",
                                 "detail": f"{failed[0].detail}; {failed[1].detail}"}
        elif failed[0] or failed[1]:
            side = 0 if failed[0] else 1
            _lose(record, side, failed[side])
        else:
            _moves(game, seats, record, timing["move_time"])
        for seat in seats:
            if seat.notes():
                record["notes"][seat.name] = seat.notes()
    finally:
        for seat in seats:
            seat.close()
    record["seconds"] = round(time.perf_counter() - started, 3)
    return record


def _moves(game, seats: list[Seat], record: dict, move_time: float) -> None:
    while (ended := game.result()) is None:
        if len(record["moves"]) >= MAX_PLIES:
            record["score"], record["reason"] = 0.5, f"draw: stopped after {MAX_PLIES} moves"
            return
        side = game.turn
        move: Move = seats[side].move(game.question(), len(record["moves"]), move_time)
        if move.failure is None:
            problem = game.check(move.answer)
            if problem is not None:
                move.failure = "illegal"
                move.detail = f"{problem}; it answered {_short(move.answer)}"
        if move.failure is not None:
            _lose(record, side, move)
            return
        entry = {"by": side, "move": game.play(move.answer),
                 "seconds": round(move.seconds, 4)}
        if move.depth is not None:
            entry["depth"] = move.depth
        if move.stopped:
            entry["stopped"] = move.stopped
        record["moves"].append(entry)
    record["score"], record["reason"] = ended


def _lose(record: dict, side: int, move: Move) -> None:
    name = record["players"][side]
    record["score"] = 0.0 if side == 0 else 1.0
    record["reason"] = f"{name} {LOSS_WORDS[move.failure]}: {move.detail}"
    record["failure"] = {"side": side, "kind": move.failure, "detail": move.detail,
                         "seconds": round(move.seconds, 4)}


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."

"""One player in one game: its own sandboxed child, asked for one move at a time.

A seat is the grader's `Student` (grading/student.py) on a scratch folder made as
the grader makes one (grading/intake.py): the player's declared modules and nothing
else, with every sandbox layer the machine offers. The child lives for one game, so a
player keeps nothing from one game to the next, and it is frozen (SIGSTOP) while the
other player thinks, so it cannot think on the opponent's time. It is told only what
the referee's `question()` gives: the position and its colour.
"""

from __future__ import annotations

import shutil
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from ..checking import short
from ..grading.intake import Prepared, scratch_for
from ..grading.student import Failure, Plan, Student, Timeouts
from ..sandbox.client import Limits
from .manifest import Ask

#: Deepening stops here even when every depth is fast (a decided game).
MAX_DEPTH = 40
#: The smallest growth assumed from one depth to the next when predicting.
MIN_GROWTH = 3.0
TIME_UP = (Failure.TIMEOUT, Failure.WAITED)   # either way, no move within the move clock
_scratch_lock = threading.Lock()     # scratch_for's folder bookkeeping, for Dask threads


@dataclass
class Move:
    """What a player answered, or why it has no move."""
    answer: object = None
    seconds: float = 0.0
    depth: int | None = None
    failure: str | None = None       # timeout, crash, import, raised, missing, bad_answer
    detail: str = ""
    stopped: str = ""                # a deeper search stopped at the limit (not a failure)


class Seat:
    def __init__(self, spec: dict, layers: list[str], timing: dict, uid_slot: int = 0):
        """`spec` is an entrant's (entrants.py), `timing` the game's (run.py)."""
        self.name = spec["name"]
        self.ask = Ask(**{**spec["ask"], "args": tuple(spec["ask"]["args"])})
        self.depth = spec["depth"]
        self.hard = timing["hard"]
        with _scratch_lock:         # the modules as the client read them (entrants.py)
            self._scratch = scratch_for(Prepared(dict(spec["files"]), []))
        self.student = Student(
            self._scratch, [Path(m).stem for m in spec["files"]], layers,
            Timeouts(call=self.hard, imports=timing["imports"], check=1e9, test=1e9),
            Limits(memory_bytes=timing["memory_mb"] << 20, cpu_seconds=timing["cpu_seconds"]),
            uid_slot=uid_slot)

    # ------------------------------------------------------------ life
    def start(self) -> Move | None:
        """Start the child and import the modules; a Move with the failure if that fails."""
        failed = self.student.importable
        if failed is not None:
            return Move(failure="import", detail=failed.detail)
        self.student.pause()        # frozen while the other player thinks
        return None

    def close(self) -> None:
        self.student.resume()   # a frozen child would not answer the last request of close()
        self.student.close()
        shutil.rmtree(self._scratch, ignore_errors=True)

    def notes(self) -> list[str]:
        """What the sandbox refused this player (first few, word for word)."""
        return [str(e) for e in self.student.events if e.kind == "refused"][:5]

    # ------------------------------------------------------------ asking
    def move(self, question: dict, ply: int, move_time: float) -> Move:
        self.student.resume()
        try:
            if self.depth is not None:
                return self._once(question, ply, {"depth": self.depth}, self.hard)
            if self.ask.uses("{depth}"):
                return self._deepen(question, ply, move_time)
            return self._once(question, ply, {"budget": move_time}, self.hard)
        finally:
            self.student.pause()

    def _call(self, question: dict, extra: dict, name: str, timeout: float):
        args, kwargs = self.ask.filled({**question, **extra})
        # A plan per ply (and depth): a deeper search stopped at the limit must not
        # make the grader skip the same function at the next move. The move clock is
        # wall time, by the rules of the game (the other player is frozen meanwhile).
        plan = Plan(name, timeout=timeout, wall=timeout)
        plan.returns(plan.call(self.ask.call, *args, **kwargs))
        self.student.start_check()          # a fresh allowance of reply bytes per move
        [outcome] = self.student.run([plan])
        return outcome

    def _once(self, question: dict, ply: int, extra: dict, timeout: float) -> Move:
        started = time.perf_counter()
        outcome = self._call(question, extra, f"{self.ask.call} ply {ply}", timeout)
        move = self._judge(outcome, time.perf_counter() - started)
        move.depth = extra.get("depth")
        return move

    def _deepen(self, question: dict, ply: int, move_time: float) -> Move:
        """Depth 1, 2, 3, ... while the next depth is predicted (from the growth of the
        last two) to finish within the move time. A depth that runs past the hard limit
        is stopped (its child killed and started again for the next move) and the
        deepest finished answer is played."""
        started = time.perf_counter()
        best: Move | None = None
        took: list[float] = []
        for depth in range(1, MAX_DEPTH + 1):
            used = time.perf_counter() - started
            if took:
                growth = max(MIN_GROWTH, took[-1] / took[-2]) if len(took) > 1 \
                    else MIN_GROWTH
                if used + took[-1] * growth > move_time:
                    break
            call_started = time.perf_counter()
            outcome = self._call(question, {"depth": depth},
                                 f"{self.ask.call} ply {ply} depth {depth}", self.hard - used)
            seconds = time.perf_counter() - call_started
            if outcome.failure in TIME_UP and best is not None:
                best.stopped = f"depth {depth} stopped at the limit of {self.hard:.2f} s"
                break
            move = self._judge(outcome, seconds)
            if move.failure is not None:
                move.seconds = time.perf_counter() - started
                return move
            move.depth, best = depth, move
            took.append(max(seconds, 1e-4))
        best.seconds = time.perf_counter() - started
        return best

    def _judge(self, outcome, seconds: float) -> Move:
        if outcome.failure in TIME_UP:
            return Move(seconds=seconds, failure="timeout",
                        detail=f"no move within the limit of {self.hard:.2f} s")
        if outcome.failure in ("import", "skipped") and self.student.import_failure:
            return Move(seconds=seconds, failure="import",
                        detail=self.student.import_failure.detail)
        if outcome.failure is not None:
            kind = {"missing": "missing", "bad_value": "bad_answer"}.get(outcome.failure,
                                                                         "crash")
            return Move(seconds=seconds, failure=kind,
                        detail=outcome.detail or outcome.failure)
        if outcome.raised:
            raised = outcome.raised
            where = f" ({raised['where']})" if raised.get("where") else ""
            return Move(seconds=seconds, failure="raised",
                        detail=f"raised {raised['type']}: {raised['message']}{where}")
        value, index = outcome.value, self.ask.answer
        if index is not None:
            if type(value) not in (list, tuple) or len(value) <= index:
                return Move(seconds=seconds, failure="bad_answer",
                            detail=f"{self.ask.call} returned {short(value)}; the move "
                                   f"should be item {index} of what it returns")
            value = value[index]
        return Move(answer=value, seconds=seconds)

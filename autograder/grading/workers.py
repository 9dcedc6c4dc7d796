"""Workers: where grading, mutation analysis and tournaments run their tasks. Two back
ends with the same face (`where`, `run(tasks)`, `close()`), each running
`function(*task)` for every task and yielding the results as they finish:

- `Local`: forked processes on this machine (they start with the caller's warm
  caches), each with a pipe of its own. Unlike ProcessPoolExecutor, which breaks as a
  whole when one worker dies, a worker that dies or runs past its task's wall-clock
  ceiling is killed and replaced, and its task becomes a row saying so (`lost`).
- `Dask`: the workers of a running Dask scheduler (`--scheduler tcp://HOST:PORT`),
  which need the kit installed but no shared folder.

With `pin`, worker slot i and its sandboxed children run on one CPU: a grader and its
child talk in short turns, which cost far more across two CPUs (docs/PERFORMANCE.md).
With `lend`, while a worker's child waits without computing (client.idle_flag, set
after client.NAPPING seconds), another task starts on its CPU, up to `lend` at once:
verdicts are judged by CPU time and waiting, which sharing a CPU does not change.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.sharedctypes
import os
import signal
import time
import traceback
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Callable, Iterable, Iterator

from .. import KitError

_context = multiprocessing.get_context("fork")


@dataclass
class _Worker:
    process: multiprocessing.Process
    conn: Connection
    slot: int = 0
    task: object = None
    started: float = 0.0
    napping: object = None      # shared with the worker: 1 while its child waits (lend)


def allowed_cpus() -> list[int]:
    """The CPUs this process may run on (all of them where the OS cannot say)."""
    try:
        return sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return []


def pin(cpus) -> bool:
    """Run this process (and the children it starts from now on) on `cpus` only;
    False where the OS does not allow it (then nothing changed)."""
    try:
        os.sched_setaffinity(0, set(cpus))
        return True
    except (AttributeError, OSError, ValueError):
        return False


@contextlib.contextmanager
def one_cpu():
    """This process on the first of its CPUs for the block, then on all of them again:
    for a grader that is alone on the machine (the reference check before a batch, a
    platform's one submission)."""
    cpus = allowed_cpus()
    pinned = len(cpus) > 1 and pin(cpus[:1])
    try:
        yield
    finally:
        if pinned:
            pin(cpus)


def _serve(conn: Connection, function, cpu: int | None, napping=None) -> None:
    if cpu is not None:
        pin([cpu])
    if napping is not None:
        from ..sandbox import client
        client.idle_flag = napping
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:        # the pool is done: exit, so the worker cleans up after itself
            return
        try:
            result = ("ok", function(*task))
        except BaseException:       # a bug of ours: the parent turns it into a row
            result = ("error", traceback.format_exc(limit=20))
        conn.send(result)


def describe_exit(code: int | None) -> str:
    if code is None:
        return "it did not exit"
    if code < 0:
        return f"killed by signal {signal.Signals(-code).name}"
    return f"exit code {code}"


class Local:
    """Run `function(*task)` for every task on `jobs` workers forked from this process.

    `ceiling` is the wall-clock seconds one task may take before its worker is
    killed. `lost(task, reason)` makes the result of a task whose worker died,
    was killed, or raised (`reason` says which, with the traceback if any).
    `lend`: tasks started beyond `jobs` while other workers' children wait (above)."""

    POLL = 0.25     # seconds between looks at the workers' napping flags (with `lend`)

    def __init__(self, jobs: int, function: Callable, *, ceiling: float,
                 lost: Callable[[object, str], object], pin: bool = False, lend: int = 0):
        self.jobs, self.function, self.ceiling, self.lost = jobs, function, ceiling, lost
        self.lend = lend
        self.lent = 0               # tasks started while others napped (for the tests)
        self.workers: list[_Worker] = []
        cpus = allowed_cpus() if pin else []
        self.cpus = cpus if len(cpus) > 1 else []    # one CPU (or none known): nothing to pin
        self.where = f"{jobs} local worker{'s' if jobs > 1 else ''}"

    def close(self) -> None:
        """Nothing to do: `run` stops its workers when it ends."""

    def _start(self, slot: int) -> _Worker:
        parent, child = _context.Pipe()
        cpu = self.cpus[slot % len(self.cpus)] if self.cpus else None
        napping = multiprocessing.sharedctypes.RawValue("b", 0) if self.lend else None
        process = _context.Process(target=_serve, daemon=True,
                                   args=(child, self.function, cpu, napping))
        process.start()
        child.close()
        return _Worker(process, parent, slot, napping=napping)

    def _room(self, busy: list[_Worker]) -> tuple[int, _Worker | None]:
        """(how many tasks may run now, a worker whose child naps): `jobs`, plus one
        for each napping worker, at most `lend` more."""
        napping = [w for w in busy if w.napping is not None and w.napping.value]
        return self.jobs + min(len(napping), self.lend), (napping[0] if napping else None)

    def _stop(self, worker: _Worker, gently: bool = False) -> str:
        """End a worker: gently (its pipe closed, so it exits and cleans up after
        itself) when it is idle, else at once."""
        if gently:
            try:
                worker.conn.send(None)
            except OSError:
                pass
            worker.process.join(10)
        if worker.process.is_alive():
            os.kill(worker.process.pid, signal.SIGKILL)
        worker.process.join(5)
        worker.conn.close()
        return describe_exit(worker.process.exitcode)

    def run(self, tasks: Iterable) -> Iterable:
        """Yield one result per task, in the order they finish."""
        pending = list(tasks)[::-1]
        try:
            self.workers = [self._start(slot) for slot in range(min(self.jobs, len(pending)))]
            idle = list(self.workers)
            busy: list[_Worker] = []
            while pending or busy:
                room, napper = self._room(busy)
                while pending and len(busy) < room and (idle or napper is not None):
                    if len(busy) >= self.jobs:
                        self.lent += 1
                    if idle:
                        worker = idle.pop()
                    else:           # a worker of its own, on the napping one's CPU
                        worker = self._start(napper.slot)
                        self.workers.append(worker)
                    worker.task, worker.started = pending.pop(), time.monotonic()
                    if worker.napping is not None:
                        worker.napping.value = 0
                    try:
                        worker.conn.send(worker.task)
                    except OSError:
                        pass        # it died meanwhile: its sentinel says so below
                    busy.append(worker)
                now = time.monotonic()
                timeout = max(0.0, min(w.started + self.ceiling for w in busy) - now)
                poll = self.POLL if self.lend and pending else 5.0
                ready = wait([w.conn for w in busy] + [w.process.sentinel for w in busy],
                             timeout=min(timeout, poll))
                for worker in list(busy):
                    done = self._collect(worker, ready)
                    if done is None:
                        continue
                    result, replace = done
                    busy.remove(worker)
                    if replace:
                        self.workers.remove(worker)
                        worker = self._start(worker.slot) if pending else None
                    if worker is not None:
                        worker.task = None
                        idle.append(worker)
                        if worker not in self.workers:
                            self.workers.append(worker)
                    yield result
        finally:
            for worker in self.workers:
                self._stop(worker, gently=worker.task is None)

    def _collect(self, worker: _Worker, ready) -> tuple | None:
        """(result, replace the worker) when `worker` is done with its task, else None."""
        if worker.conn in ready:
            try:
                kind, value = worker.conn.recv()
            except (EOFError, OSError):
                return self._lost(worker, f"the grading process died ({self._stop(worker)})")
            if kind == "ok":
                return value, False
            return self.lost(worker.task, f"grader error in the worker:\n{value}"), False
        if worker.process.sentinel in ready:
            return self._lost(worker, f"the grading process died ({self._stop(worker)})")
        if time.monotonic() - worker.started > self.ceiling:
            self._stop(worker)
            return self._lost(worker, f"grading did not finish within {self.ceiling:.0f} s "
                                      "(wall clock); its processes were stopped")
        return None

    def _lost(self, worker: _Worker, reason: str) -> tuple:
        return self.lost(worker.task, reason), True


class Dask:
    """Run `function(*task)` for every task on the workers of the Dask scheduler at
    `address`; `key(task)`, if given, names each task on the scheduler's dashboard. A
    task that raises raises here."""

    def __init__(self, address: str, function: Callable,
                 key: Callable[[object], str] | None = None):
        try:
            from distributed import Client
        except ImportError:
            raise KitError("--scheduler needs Dask: pip install 'spielbaum[cluster]'") from None
        try:
            self.client = Client(address, timeout=30)
        except (OSError, TimeoutError) as error:
            raise KitError(f"no Dask scheduler answers at {address}: {error}") from None
        self.function, self.key = function, key
        self.workers = len(self.client.scheduler_info().get("workers", {}))
        self.where = f"the Dask cluster at {address} ({self.workers} workers now)"

    def run(self, tasks: Iterable) -> Iterator:
        """Yield one result per task, in the order they finish."""
        from distributed import as_completed
        futures = [self.client.submit(self.function, *task, pure=False,
                                      key=self.key(task) if self.key else None)
                   for task in tasks]
        for future in as_completed(futures):
            yield future.result()

    def close(self) -> None:
        self.client.close()

"""Where the games run: a local process pool, or a Dask distributed cluster.

Both take game specs (plain data) and hand back game records as the games finish,
in any order; the caller stores each at once. A game is the same function
(`game.play`) wherever it runs, and builds the same sandbox there: the worker's
own layers, checked against the rubric's floor, and the same referee code
(checked by a fingerprint). With Dask the players travel inside the spec, so
workers need the kit installed but no shared folder.
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Iterator

from .. import KitError
from . import game


class LocalPool:
    """`jobs` worker processes on this machine, forked after the sandbox probe."""

    def __init__(self, jobs: int):
        if jobs < 1:
            raise KitError("--jobs must be at least 1")
        self.jobs = jobs
        self.where = f"{jobs} local worker{'s' if jobs > 1 else ''}"
        self._pool = ProcessPoolExecutor(max_workers=jobs,
                                         mp_context=multiprocessing.get_context("fork"))

    def run(self, specs: list[dict]) -> Iterator[dict]:
        futures = [self._pool.submit(game.play, spec) for spec in specs]
        for future in as_completed(futures):
            yield future.result()

    def close(self) -> None:
        self._pool.shutdown(cancel_futures=True)


class DaskPool:
    """The workers of a running Dask scheduler (`dask scheduler`, `dask worker`)."""

    def __init__(self, address: str):
        try:
            from distributed import Client
        except ImportError:
            raise KitError("--scheduler needs Dask: pip install 'dask[distributed]'") from None
        try:
            self._client = Client(address, timeout=30)
        except (OSError, TimeoutError) as error:
            raise KitError(f"no Dask scheduler answers at {address}: {error}") from None
        workers = self._client.scheduler_info().get("workers", {})
        self.where = f"the Dask cluster at {address} ({len(workers)} workers now)"

    def run(self, specs: list[dict]) -> Iterator[dict]:
        from distributed import as_completed as finished
        futures = [self._client.submit(game.play, spec, pure=False,
                                       key=f"game-{'-'.join(map(str, spec['key']))}-"
                                           f"{spec['session']}")
                   for spec in specs]
        for future in finished(futures):
            yield future.result()

    def close(self) -> None:
        self._client.close()


def open_pool(jobs: int, scheduler: str | None):
    return DaskPool(scheduler) if scheduler else LocalPool(jobs)

"""Bulk grading on a Dask cluster: `autograder grade ... --scheduler tcp://HOST:PORT`.

The client reads each submission as grading reads it (intake.prepare) and sends
chunks of them to the workers as plain data: no shared folder, no student file beyond
the modules. Each chunk is graded in a fresh process of the kit on a worker (a hidden
suite's signal-based limits need a main thread; Dask runs tasks in threads) with a
Grader of its own, which refuses a hidden suite or reference other than the client's
(`digest`). A killed client resumes from its journal (`OUT/.grading.jsonl`). Features
send their own work through `Cluster.grade`, naming a `judge` of a Graded
(`autograder.<module>:<function>`) and pytest `plugins` by module, so the engine
imports no feature.
"""

from __future__ import annotations

import base64
import hashlib
import importlib
import json
import math
import os
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Iterator

from .. import KitError, i18n
from .. import assignment as assignments
from ..sandbox.layers import UNCONFINED_FILES, unconfined_files_allowed
from . import intake, report, warm
from .grader import Grader, scaled_timeouts
from .journal import Journal
from .warm import digest
from .workers import Dask, Local

JOURNAL = ".grading.jsonl"
CHUNK = 8                  # submissions per task at most: the reference is graded once per chunk


def chunk_size(submissions: int, workers: int) -> int:
    """Submissions per task: up to CHUNK (each task grades the reference once), but
    small enough that every worker gets a task of a small batch."""
    return max(1, min(CHUNK, math.ceil(submissions / max(1, workers))))


# ------------------------------------------------------------ the client
class Cluster(Dask):
    """The workers of a running Dask scheduler, grading chunks of prepared submissions
    (each chunk in a fresh process of the kit's there: grade_chunk)."""

    def __init__(self, address: str):
        super().__init__(address, grade_chunk)

    def grade(self, spec: dict, items: list[tuple[str, dict]]) -> Iterator:
        """Grade `items` ([(key, encoded prepared submission), ...]) on the workers as
        `spec` says (assignment, digest, reveal; judge and plugins for features);
        yield each chunk's results as it finishes."""
        size = chunk_size(len(items), self.workers)
        spec = dict(spec, course=_course())
        for chunk in self.run([(dict(spec, submissions=items[i:i + size]),)
                               for i in range(0, len(items), size)]):
            yield from chunk


def submission_digest(prepared: intake.Prepared) -> str:
    """What a student handed in, as grading reads it: a resubmission differs."""
    hasher = hashlib.sha256()
    for name in sorted(prepared.modules):
        hasher.update(name.encode() + b"\0" + prepared.modules[name] + b"\0")
    hasher.update(json.dumps(prepared.notes).encode())
    return hasher.hexdigest()[:16]


class ClusterGrading:
    """Grade folders on the workers of a running Dask scheduler."""

    def __init__(self, address: str, grader, out_dir: Path, reveal: bool):
        self.cluster = Cluster(address)
        self.grader, self.out_dir = grader, out_dir
        assignment = grader.assignment
        # The course's language and the teacher's leave to grade without a file layer
        # travel with the chunks: a worker's own environment would choose otherwise.
        self.settings = {"assignment": assignment.name, "digest": digest(assignment),
                         "reveal": reveal, "language": i18n.course_language(),
                         "unconfined_files": unconfined_files_allowed()}
        self.journal = Journal(out_dir / JOURNAL, self.settings)
        self.where = self.cluster.where
        self._prepared: dict[str, tuple] = {}

    def close(self) -> None:
        self.cluster.close()

    def _prepare(self, folder: Path) -> tuple:
        """intake.prepare of a folder, read once per run; (prepared, its digest)."""
        if folder.name not in self._prepared:
            prepared, _, _ = intake.prepare(folder, self.grader.assignment.modules)
            self._prepared[folder.name] = (prepared,
                                           submission_digest(prepared) if prepared else None)
        return self._prepared[folder.name]

    # -------------------------------------------------------- resuming
    def done(self, folders: list[Path]) -> dict[str, dict]:
        """Rows of students a killed run with the same settings already graded from
        the same submission as now."""
        rows = {entry["row"]["student"]: entry for entry in self.journal.entries()
                if isinstance(entry.get("row"), dict) and "student" in entry["row"]}
        done = {}
        for folder in folders:
            entry = rows.get(folder.name)
            if entry is not None and entry.get("input") == self._prepare(folder)[1]:
                done[folder.name] = entry["row"]
        return done

    # -------------------------------------------------------- grading
    def run(self, folders: list[Path], done: dict[str, dict]) -> Iterator[dict]:
        """Yield one row per folder (the rows in `done` as they are), writing each
        student's files into OUT as they arrive."""
        journal = self.journal.start(keep=bool(done))

        def keep(row: dict, student: str) -> None:
            journal.add({"input": self._prepared.get(student, (None, None))[1], "row": row})
        try:
            items = []
            for folder in folders:
                if folder.name in done:
                    yield done[folder.name]
                    continue
                prepared, _ = self._prepare(folder)
                if prepared is None:        # no code to run: the same row as local grading
                    row = report.write_row(self.out_dir, self.grader.grade(folder.name, folder),
                                           self.grader)
                    keep(row, folder.name)
                    yield row
                    continue
                items.append((folder.name, encode(prepared)))
            for student, row, files in self.cluster.grade(self.settings, items):
                write_files(self.out_dir, student, files)
                keep(row, student)
                yield row
        finally:
            journal.close()


def write_files(out_dir: Path, student: str, files: dict[str, str]) -> None:
    folder = out_dir / student
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        if "/" in name or name.startswith("."):
            continue            # only the report's own flat file names come back
        (folder / name).write_text(text, encoding="utf-8")


def encode(prepared: intake.Prepared) -> dict:
    return {"modules": {name: base64.b64encode(data).decode("ascii")
                        for name, data in prepared.modules.items()},
            "notes": list(prepared.notes)}


def _decode(data: dict) -> intake.Prepared:
    return intake.Prepared({name: base64.b64decode(text) for name, text in
                            data["modules"].items()}, list(data["notes"]))


def _course() -> str | None:
    where = assignments.course()
    return str(where) if where else None


# ------------------------------------------------------------ on a worker
def grade_chunk(spec: dict) -> list:
    """A Dask task: grade one chunk in a fresh process of the kit on this worker;
    [(student, row, files), ...]. A process that fails costs the chunk's rows."""
    env = dict(os.environ)
    if spec.get("course"):
        env["SPIELBAUM_COURSE"] = spec["course"]
    if spec.get("language"):
        env["SPIELBAUM_COURSE_LANG"] = spec["language"]
    if spec.get("unconfined_files"):
        env[UNCONFINED_FILES] = "1"
    done = subprocess.run([sys.executable, "-m", "autograder.grading.cluster"],
                          input=json.dumps(spec), capture_output=True, text=True, env=env,
                          timeout=_chunk_seconds(spec))
    try:
        return json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        reason = (done.stderr or "no output").strip().splitlines()[-1:] or ["no output"]
        return _failed(spec, f"grading on the worker failed (exit {done.returncode}): "
                             f"{reason[0][:300]}")


def _chunk_seconds(spec: dict) -> float:
    timeouts = scaled_timeouts(assignments.load(spec["assignment"]).rubric(), 1.0)
    return timeouts.submission * (len(spec["submissions"]) + 1) + 300


def _failed(spec: dict, reason: str) -> list:
    """Replies for a chunk nobody could grade on this worker (status error)."""
    grader = Grader(assignments.load(spec["assignment"]), layers=[])
    return [_reply(spec, grader, grader.error(student, reason, reason))
            for student, _ in spec["submissions"]]


def feature(name: str):
    """A feature's function (`autograder.<module>:<function>`) or module
    (`autograder.<module>`) named by the client: the engine imports no feature."""
    module, _, attribute = name.partition(":")
    if not module.startswith("autograder."):
        raise KitError(f"{name!r} is not a part of the kit")
    loaded = importlib.import_module(module)
    return getattr(loaded, attribute) if attribute else loaded


def _reply(spec: dict, grader, graded) -> tuple:
    """What goes back for one submission: the spec's judge of it, or its row and
    the files the report writes for it."""
    if spec.get("judge"):
        return graded.student, feature(spec["judge"])(graded)
    with tempfile.TemporaryDirectory() as out:
        row = report.write_row(Path(out), graded, grader)
        files = (Path(out) / graded.student).glob("*")
        return graded.student, row, {p.name: p.read_text(encoding="utf-8") for p in files}


_grader = None
_spec: dict = {}


def _grade_one(student: str, prepared: dict) -> tuple:
    graded = _grader.grade_prepared(student, _decode(prepared))
    try:
        return _reply(_spec, _grader, graded)
    except Exception:       # the judge, or reading the files back, failed on it
        return _reply(_spec, _grader, _grader.error(
            student, "grader error while writing the feedback", traceback.format_exc(limit=30)))


def serve(spec: dict) -> list:
    """Grade one chunk here (in this process's main thread and a pool of its own)."""
    global _grader, _spec
    assignment = assignments.load(spec["assignment"])
    if digest(assignment) != spec["digest"]:
        return _failed(spec, f"the kit on this worker grades {assignment.name} with another "
                             "hidden suite or reference than the client's; install the "
                             "same kit on every worker")
    plugins = tuple(feature(name) for name in spec.get("plugins", ()))
    grader = Grader(assignment, reveal=spec.get("reveal", False), plugins=plugins)
    if not grader.lacking:
        try:
            grader.warm_up()
        except KitError as error:
            return _failed(spec, str(error))
    warm.settle()
    _grader, _spec = grader, spec
    pool = Local(1, _grade_one, ceiling=grader.timeouts.submission + 60,
                lost=lambda task, reason: _reply(spec, grader, grader.error(
                    task[0], reason.splitlines()[0], reason)))
    return list(pool.run([tuple(item) for item in spec["submissions"]]))


if __name__ == "__main__":
    result = serve(json.loads(sys.stdin.read()))
    sys.stdout.write("\n" + json.dumps(result) + "\n")

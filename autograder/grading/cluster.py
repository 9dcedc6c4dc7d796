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
import json
import math
import os
import pkgutil
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Iterable, Iterator

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
    as `settings` say (each chunk in a fresh process of the kit's there: grade_chunk),
    with a journal in OUT that holds each result as it arrives: a killed client's next
    run with the same settings grades only what the journal lacks."""

    def __init__(self, address: str, settings: dict, journal: Path):
        super().__init__(address, grade_chunk)
        self.settings, self.journal = settings, Journal(journal, settings)

    def done(self, inputs: dict[str, str | None]) -> dict:
        """{key: result} of the keys a killed run graded from the same input as now
        (`inputs`: key -> a digest of what is graded)."""
        return {entry["key"]: entry["result"] for entry in self.journal.entries()
                if entry.get("key") in inputs and "result" in entry
                and entry.get("input") == inputs[entry["key"]]}

    def grade(self, items: list[tuple[str, dict]]) -> Iterator:
        """Grade `items` ([(key, encoded prepared submission), ...]) on the workers;
        yield each chunk's replies as it finishes."""
        size = chunk_size(len(items), self.workers)
        course = assignments.course()
        spec = dict(self.settings, course=str(course) if course else None)
        for chunk in self.run([(dict(spec, submissions=items[i:i + size]),)
                               for i in range(0, len(items), size)]):
            yield from chunk

    def journaled(self, done: dict, results: Iterable, inputs: dict) -> Iterator[tuple]:
        """(key, result) of `done`, then of `results`, each of those in the journal
        before it is yielded."""
        journal = self.journal.start(keep=bool(done))
        try:
            yield from done.items()
            for key, result in results:
                journal.add({"key": key, "input": inputs[key], "result": result})
                yield key, result
        finally:
            journal.close()


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
        assignment = grader.assignment
        # The course's language and the teacher's leave to grade without a file layer
        # travel with the chunks: a worker's own environment would choose otherwise.
        self.cluster = Cluster(address, {
            "assignment": assignment.name, "digest": digest(assignment), "reveal": reveal,
            "language": i18n.course_language(), "unconfined_files": unconfined_files_allowed()},
            out_dir / JOURNAL)
        self.grader, self.out_dir = grader, out_dir
        self.where, self.close = self.cluster.where, self.cluster.close
        self.prepared: dict[str, intake.Prepared | None] = {}
        self.inputs: dict[str, str | None] = {}

    def done(self, folders: list[Path]) -> dict[str, dict]:
        """Read each folder as grading reads it; the rows of students a killed run with
        the same settings already graded from the same submission as now."""
        for folder in folders:
            prepared, _, _ = intake.prepare(folder, self.grader.assignment.modules)
            self.prepared[folder.name] = prepared
            self.inputs[folder.name] = submission_digest(prepared) if prepared else None
        return self.cluster.done(self.inputs)

    def run(self, folders: list[Path], done: dict[str, dict]) -> Iterator[dict]:
        """Yield one row per folder `done` read (the rows in `done` as they are),
        writing each student's files into OUT as they arrive."""
        todo = [folder for folder in folders if folder.name not in done]

        def graded():
            for folder in todo:
                if self.prepared[folder.name] is None:      # no code: local grading's row
                    yield folder.name, report.write_row(
                        self.out_dir, self.grader.grade(folder.name, folder), self.grader)
            items = [(folder.name, encode(self.prepared[folder.name])) for folder in todo
                     if self.prepared[folder.name] is not None]
            for student, row, files in self.cluster.grade(items):
                write_files(self.out_dir, student, files)
                yield student, row
        for _, row in self.cluster.journaled(done, graded(), self.inputs):
            yield row


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
    if not name.startswith("autograder."):
        raise KitError(f"{name!r} is not a part of the kit")
    return pkgutil.resolve_name(name)


def _reply(spec: dict, grader, graded) -> tuple:
    """What goes back for one submission: the spec's judge of it, or its row and
    the files the report writes for it."""
    if spec.get("judge"):
        return graded.student, feature(spec["judge"])(graded)
    with tempfile.TemporaryDirectory() as out:
        row = report.write_row(Path(out), graded, grader)
        files = (Path(out) / graded.student).glob("*")
        return graded.student, row, {p.name: p.read_text(encoding="utf-8") for p in files}


def serve(spec: dict) -> list:
    """Grade one chunk here (in this process's main thread and a pool of its own)."""
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

    def grade_one(student: str, prepared: dict) -> tuple:     # in a forked worker
        graded = grader.grade_prepared(student, _decode(prepared))
        try:
            return _reply(spec, grader, graded)
        except Exception:       # the judge, or reading the files back, failed on it
            why = "grader error while writing the feedback"
            return _reply(spec, grader, grader.error(student, why, traceback.format_exc(limit=30)))
    pool = Local(1, grade_one, ceiling=grader.timeouts.submission + 60,
                lost=lambda task, reason: _reply(spec, grader, grader.error(
                    task[0], reason.splitlines()[0], reason)))
    return list(pool.run([tuple(item) for item in spec["submissions"]]))


if __name__ == "__main__":
    result = serve(json.loads(sys.stdin.read()))
    sys.stdout.write("\n" + json.dumps(result) + "\n")

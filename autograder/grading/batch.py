"""Bulk grading: many submissions in parallel, a progress bar, a summary table.

`autograder grade ASSIGNMENT SUBMISSIONS_DIR --out OUT_DIR [--jobs N]`

Each worker process runs the hidden suite for one submission at a time (the
reference and its expected values are computed once per worker and reused);
each submission's code runs in its own sandboxed child. Everything done for one
submission (grading, reporting, writing its files) is inside one error boundary:
a failure becomes that student's row (status `error`, the kit's traceback kept
in `<student>/grader-error.txt`), never the batch's end. A worker that dies or
runs past the submission's wall-clock ceiling is killed and replaced
(grading/pool.py).
"""

from __future__ import annotations

import gc
import json
import os
import shutil
import sys
import time
import traceback
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn
from rich.table import Table

from .. import KitError, slices
from ..sandbox import layers as sandbox_layers
from ..outputs import terminal
from . import calibrate, intake, report
from .intake import student_folders  # noqa: F401 (similarity imports it from here)
from .pool import Pool
from .runner import Graded, grade_submission, load_rubric, unrun_tests

_piece = None
CEILING_GRACE = 60.0      # seconds the pool waits past a submission's own ceiling


def _init_worker(name: str) -> None:
    global _piece
    _piece = slices.load(name)


def _grade_one(student_id: str, folder: str, out_dir: str, layers: list[str], scale: float,
               reveal: bool) -> dict:
    """Grade one submission and write its files; whatever fails, a row comes back."""
    _reset_peak_memory()
    try:
        graded = grade_submission(_piece, student_id, Path(folder), layers=layers,
                                  scale=scale, reveal=reveal)
    except Exception:  # a grader bug must not end the batch
        return error_row(_piece, student_id, out_dir, "grader error while grading",
                         traceback.format_exc(limit=30))
    graded.peak_mb = _peak_memory_mb()
    try:
        report.write_student(Path(out_dir), graded, _piece.title)
        return report.csv_row(graded)
    except Exception:
        return error_row(_piece, student_id, out_dir, "grader error while writing the "
                         "feedback", traceback.format_exc(limit=30))


def error_row(piece, student_id: str, out_dir: str, what: str, details: str) -> dict:
    """The row of a submission the grader failed on; the traceback goes to
    `<student>/grader-error.txt` for the teacher (the student's feedback says only
    that the grader failed). Never raises."""
    message = f"{what}; please report it (details in {student_id}/grader-error.txt)"
    try:
        rubric = load_rubric(piece.suite_dir)
        tests = unrun_tests(piece.suite_dir, rubric.points, "not graded: grader error")
        max_score = rubric.max_score
    except Exception:
        tests, max_score = [], 0.0
    graded = Graded(student_id, "error", 0.0, max_score, tests, message)
    try:
        folder = Path(out_dir) / student_id
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "grader-error.txt").write_text(
            details.encode("utf-8", "backslashreplace").decode("utf-8"), encoding="utf-8")
        report.write_student(Path(out_dir), graded, piece.title)
    except Exception:
        pass        # the row below still reaches grades.csv
    return report.csv_row(graded)


def _reset_peak_memory() -> None:
    """Start measuring this process's peak memory anew (Linux: VmHWM)."""
    try:
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")
    except OSError:
        pass


def _peak_memory_mb() -> int:
    """This process's peak resident memory since the last reset, in MB."""
    try:
        with open("/proc/self/status") as handle:
            for line in handle:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) // 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def grade_all(name: str, submissions: Path, out_dir: Path, jobs: int, *, reveal=False,
              console: Console | None = None) -> list[dict]:
    piece = slices.load(name)
    if not piece.suite_dir.is_dir():
        raise KitError(f"assignment {name!r} has no hidden suite in {piece.suite_dir}")
    load_rubric(piece.suite_dir)          # fail early on a broken rubric
    found = intake.survey(submissions)
    folders = found.folders
    intake.claim_out_dir(submissions, out_dir, [folder.name for folder in folders])
    if jobs < 1:
        raise KitError("--jobs must be at least 1")
    console = console or Console(stderr=True)
    layers = list(sandbox_layers.available())
    timing = calibrate.measure_scale()
    scale = timing.scale
    out_dir.mkdir(parents=True, exist_ok=True)
    for folder in folders:               # re-running replaces, never mixes, old results
        shutil.rmtree(out_dir / folder.name, ignore_errors=True)
    console.print(f"Grading {_submissions(len(folders))} of [bold]{name}[/] with {jobs} "
                  f"workers; sandbox: {', '.join(layers) or 'none'}; "
                  f"time limits x{scale:.2f} ({timing.source})")
    for line in found.lines():
        console.print(f"  {terminal.markup(line)}")
    warm_up(piece, layers, scale)
    gc.freeze()   # the warm caches are permanent: cheap collections, shared pages after fork
    ceiling = load_rubric(piece.suite_dir, scale).timeouts.submission + CEILING_GRACE
    rows = [report.csv_row(report.refused(piece, name, why)) for name, why in found.refused]
    progress = Progress("[progress.description]{task.description}", BarColumn(),
                        MofNCompleteColumn(), TimeElapsedColumn(), console=console,
                        disable=not console.is_terminal and os.environ.get("CI") == "true")
    # Workers are forked after the warm-up, so they start with the reference's
    # expected values already computed.
    pool = Pool(min(jobs, len(folders)), _grade_one, ceiling=ceiling,
                lost=lambda task, reason: error_row(piece, task[0], task[2],
                                                    reason.splitlines()[0], reason),
                initializer=_init_worker, initargs=(name,))
    tasks = [(f.name, str(f), str(out_dir), layers, scale, reveal) for f in folders]
    with progress:
        task = progress.add_task("grading", total=len(folders))
        for row in pool.run(tasks):
            rows.append(row)
            progress.advance(task)
    report.write_grades(out_dir, rows)
    write_run(out_dir, name, layers, timing, rows)
    return rows


def write_run(out_dir: Path, name: str, layers: list[str], timing, rows: list[dict]) -> Path:
    """`run.json`: how this batch was graded (the time scale and where it came from,
    the sandbox layers), so two runs can be compared and a run repeated exactly
    (SPIELBAUM_TIME_SCALE pins the scale)."""
    path = out_dir / "run.json"
    path.write_text(json.dumps({
        "assignment": name, "submissions": len(rows),
        "time_scale": round(timing.scale, 3), "time_scale_source": timing.source,
        "calibration_seconds": [round(s, 5) for s in timing.samples],
        "sandbox_layers": layers,
        "limits": "CPU time of the student's process; wall-clock backstop "
                  f"{calibrate.WALL_FACTOR}x + {calibrate.WALL_EXTRA:g} s",
    }, indent=2) + "\n", encoding="utf-8")
    return path


def warm_up(piece, layers: list[str], scale: float) -> None:
    """Grade the reference solution itself before any student.

    It must score full marks (otherwise the suite or the reference is broken,
    and no student should be graded against it), and it fills every cache of
    expected values before the workers are forked."""
    graded = grade_submission(piece, "reference", piece.solution_dir, layers=layers,
                              scale=scale, reveal=True)
    if graded.score != graded.max_score:
        failing = [t for t in graded.tests if not t.passed]
        first = failing[0].output.splitlines()[0] if failing else graded.message
        raise KitError(f"the reference solution of {piece.name} scores {graded.score:g}/"
                       f"{graded.max_score:g} on its own hidden suite ({first}); "
                       "fix the suite or the reference before grading students")


def _submissions(count: int) -> str:
    return f"{count} submission" + ("" if count == 1 else "s")


def summary_table(rows: list[dict], seconds: float) -> Table:
    # Nothing is ever cut: long names and notes wrap inside their cells, so the
    # table keeps its borders at any width (a terminal, a log, a pipe). Every
    # cell is Text, never markup: student names and messages are shown as they
    # are, their control characters as escapes (outputs/terminal.py).
    table = Table(title=f"{_submissions(len(rows))} in {seconds:.1f} s")
    table.add_column("student", overflow="fold", max_width=28)
    table.add_column("score", justify="right", no_wrap=True)
    table.add_column("status", overflow="fold")
    for column in ("timeouts", "crashes", "refused"):
        table.add_column(column, justify="right", overflow="fold")
    table.add_column("note", overflow="fold")
    for row in sorted(rows, key=lambda r: r["student"]):
        table.add_row(*(terminal.text(value) for value in (
            row["student"], f"{row['score']}/{row['max_score']}", row["status"],
            row["timeouts"], row["crashes"], row["refused"])),
            terminal.text(row["message"]))
    return table


def distribution(rows: list[dict]) -> str:
    buckets = {"0%": 0, "1-49%": 0, "50-99%": 0, "100%": 0}
    for row in rows:
        share = row["score"] / row["max_score"] if row["max_score"] else 0
        label = "0%" if share == 0 else "100%" if share == 1 else "1-49%" if share < .5 \
            else "50-99%"
        buckets[label] += 1
    return "score distribution: " + ", ".join(f"{k}: {v}" for k, v in buckets.items())


def grade_cli(name: str, submissions: str, out: str, jobs: int, reveal=False) -> int:
    # Piped into a file or CI log, rich would squeeze the table into 80 columns.
    console = Console(width=None if sys.stdout.isatty() else 130)
    started = time.perf_counter()
    rows = grade_all(name, Path(submissions), Path(out), jobs, reveal=reveal,
                     console=Console(stderr=True))
    console.print(summary_table(rows, time.perf_counter() - started))
    console.print(distribution(rows))
    console.print(f"timeouts: {sum(r['timeouts'] for r in rows)}, "
                  f"crashes: {sum(r['crashes'] for r in rows)}; "
                  f"grades in {terminal.markup(Path(out) / 'grades.csv')}")
    return 0

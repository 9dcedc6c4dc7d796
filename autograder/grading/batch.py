"""Bulk grading: many submissions in parallel, a progress bar, a summary table.

`autograder grade ASSIGNMENT SUBMISSIONS_DIR --out OUT_DIR [--jobs N]`

Each worker process runs the hidden suite for one submission at a time (the
reference and its expected values are computed once per worker and reused);
each submission's code runs in its own sandboxed child. A grader error on one
submission is recorded in its row and the batch goes on.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import shutil
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn
from rich.table import Table

from .. import KitError, slices
from ..sandbox import layers as sandbox_layers
from ..outputs import terminal
from . import calibrate, intake, report
from .intake import student_folders  # noqa: F401 (similarity imports it from here)
from .runner import Graded, grade_submission, load_rubric, unrun_tests

_piece = None


def _init_worker(name: str) -> None:
    global _piece
    _piece = slices.load(name)


def _grade_one(student_id: str, folder: str, out_dir: str, layers: list[str], scale: float,
               reveal: bool) -> dict:
    try:
        graded = grade_submission(_piece, student_id, Path(folder), layers=layers,
                                  scale=scale, reveal=reveal)
    except Exception as error:  # a grader bug must not end the batch
        rubric = load_rubric(_piece.suite_dir)
        tests = unrun_tests(_piece.suite_dir, rubric.points, "not graded: grader error")
        graded = Graded(student_id, "error", 0.0, rubric.max_score, tests,
                        f"grader error ({type(error).__name__}: {error}); please report it")
    report.write_student(Path(out_dir), graded, _piece.title)
    return report.csv_row(graded)


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
    scale = calibrate.scale()
    out_dir.mkdir(parents=True, exist_ok=True)
    for folder in folders:               # re-running replaces, never mixes, old results
        shutil.rmtree(out_dir / folder.name, ignore_errors=True)
    console.print(f"Grading {_submissions(len(folders))} of [bold]{name}[/] with {jobs} "
                  f"workers; sandbox: {', '.join(layers) or 'none'}; "
                  f"time limits x{scale:.2f}")
    for line in found.lines():
        console.print(f"  {terminal.markup(line)}")
    warm_up(piece, layers, scale)
    gc.freeze()   # the warm caches are permanent: cheap collections, shared pages after fork
    rows = [report.csv_row(report.refused(piece, name, why)) for name, why in found.refused]
    progress = Progress("[progress.description]{task.description}", BarColumn(),
                        MofNCompleteColumn(), TimeElapsedColumn(), console=console,
                        disable=not console.is_terminal and os.environ.get("CI") == "true")
    # Workers are forked after the warm-up, so they start with the reference's
    # expected values already computed.
    context = multiprocessing.get_context("fork")
    with progress, ProcessPoolExecutor(max_workers=min(jobs, len(folders)), mp_context=context,
                                       initializer=_init_worker, initargs=(name,)) as pool:
        task = progress.add_task("grading", total=len(folders))
        futures = {pool.submit(_grade_one, f.name, str(f), str(out_dir), layers, scale, reveal): f
                   for f in folders}
        for future in as_completed(futures):
            rows.append(future.result())
            progress.advance(task)
    report.write_grades(out_dir, rows)
    return rows


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

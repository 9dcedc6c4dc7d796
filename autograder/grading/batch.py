"""Bulk grading: many submissions in parallel, a progress bar, a summary table.

`autograder grade ASSIGNMENT SUBMISSIONS_DIR --out OUT_DIR [--jobs N]`

Workers forked after the reference's warm-up grade one submission at a time, each
submission's code in its own sandboxed child. Everything done for one submission
(grading, reporting, writing its files) is inside one error boundary: a failure
becomes that student's row (status `error`), never the batch's end.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from .. import KitError, assignment as assignments
from ..outputs import terminal
from ..sandbox import client
from . import intake, report, warm
from .cluster import ClusterGrading
from .grader import Grader
from .workers import Local
from .runner import Graded

CEILING_GRACE = 60.0      # seconds the pool waits past a submission's own ceiling
SLOW_SECONDS = 60.0       # a submission that took longer is named in the summary, and why
SLOW = "slow"             # ... in its row (after grades.csv is written: no column of it)
_grader: Grader | None = None   # set before the workers fork; they inherit it warm
_names: dict[str, str] = {}     # id -> name from an LMS import's students.csv (feedback titles)


def _grade_one(student_id: str, folder: str, out_dir: str) -> dict:
    """Grade one submission and write its files; whatever fails, a row comes back."""
    _reset_peak_memory()
    graded = _grader.grade(student_id, Path(folder))
    graded.peak_mb = _peak_memory_mb()
    return write(graded, out_dir)


def _grade_timed(student_id: str, folder: str, out_dir: str) -> dict:
    """_grade_one, and for a submission that took more than SLOW_SECONDS of wall time,
    where the time went (row[SLOW]): its code's CPU time, its waiting without
    computing, the grader's CPU time; the rest was waiting for a CPU."""
    began, times, waited = time.monotonic(), os.times(), client.waited_total
    row = _grade_one(student_id, folder, out_dir)
    wall = time.monotonic() - began
    if wall > SLOW_SECONDS:
        after = os.times()
        row[SLOW] = slow_words(
            wall, code=after.children_user + after.children_system
            - times.children_user - times.children_system,
            waited=client.waited_total - waited,
            grader=after.user + after.system - times.user - times.system,
            timeouts=row.get("timeouts", 0))
    return row


def slow_words(wall: float, code: float, waited: float, grader: float, timeouts: int) -> str:
    """Where a slow submission's wall time went, in one line for the teacher."""
    rest = max(0.0, wall - code - waited - grader)
    out_of_time = f"; {timeouts} calls or checks out of time" if timeouts else ""
    return (f"{wall:.0f} s: its code computed {code:.0f} s and waited {waited:.0f} s "
            f"without computing{out_of_time}; the grader computed {grader:.0f} s; "
            f"{rest:.0f} s waiting for a CPU (other work on the machine)")


def write(graded: Graded, out_dir: str) -> dict:
    return report.write_row(Path(out_dir), graded, _grader, _names.get(graded.student, ""))


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
              console: Console | None = None, scheduler: str | None = None) -> list[dict]:
    global _grader, _names
    assignment = assignments.load(name)
    grader = Grader(assignment, reveal=reveal)
    found = intake.survey(submissions)
    folders = found.folders
    intake.claim_out_dir(submissions, out_dir)
    if jobs < 1:
        raise KitError("--jobs must be at least 1")
    console = console or Console(stderr=True)
    cluster = ClusterGrading(scheduler, grader, out_dir, reveal) if scheduler else None
    done = cluster.done(folders) if cluster else {}
    for folder in folders:               # re-running replaces, never mixes, old results:
        mine = out_dir / folder.name     # only a folder the grader wrote (claim_out_dir)
        if folder.name not in done and intake.graded_folder(mine):
            intake.remove_tree(mine)
    where = cluster.where if cluster else f"{jobs} workers; {grader.describe()}"
    console.print(f"Grading {_submissions(len(folders))} of [bold]{name}[/] on {where}"
                  + (f"; resuming: {len(done)} already graded" if done else ""))
    for line in found.lines():
        console.print(f"  {terminal.markup(line)}")
    rows = [report.csv_row(report.refused(assignment, name, why)) for name, why in found.refused]
    if cluster is None:
        grader.require_layers()
        grader.warm_up()
        warm.settle()
        _grader = grader
        _names = intake.roster_names(submissions)
        # Forked after the warm-up: the workers start with the expected values made.
        pool = Local(min(jobs, len(folders)), _grade_timed, pin=True,
                    ceiling=grader.timeouts.submission + CEILING_GRACE,
                    lost=lambda task, reason: dict(
                        write(grader.error(task[0], reason.splitlines()[0], reason), task[2]),
                        **{SLOW: reason.splitlines()[0]}),
                    lend=min(jobs, len(folders)))
        finished = pool.run([(f.name, str(f), str(out_dir)) for f in folders])
    else:
        grader.reference_check = "on each worker"     # each checks it before grading
        finished = cluster.run(folders, done)
    progress = terminal.progress(console)
    try:
        with progress:
            task = progress.add_task("grading", total=len(folders))
            for row in finished:
                rows.append(row)
                progress.advance(task)
    finally:
        if cluster is not None:
            cluster.close()
    report.write_grades(out_dir, [{k: v for k, v in row.items() if k != SLOW} for row in rows])
    write_run(out_dir, grader, rows)
    return rows         # with SLOW, for the summary (summary_table)


def write_run(out_dir: Path, grader: Grader, rows: list[dict]) -> Path:
    """`run.json`: how this batch was graded (the time scale and where it came from,
    the sandbox layers), so two runs can be compared and a run repeated exactly
    (SPIELBAUM_TIME_SCALE pins the scale)."""
    path = out_dir / "run.json"
    path.write_text(json.dumps({
        "assignment": grader.assignment.name, "submissions": len(rows),
        "time_scale": round(grader.scale, 3), "time_scale_source": grader.timing.source,
        "calibration_seconds": [round(s, 5) for s in grader.timing.samples],
        "sandbox_layers": grader.layers,
        "unconfined_files": grader.unconfined_files,      # --unconfined-files
        "expected_values": "cache" if grader.cached else "computed",
        "reference_check": grader.reference_check,
        "limits": "CPU time of the student's process; wall-clock backstop "
                  f"{client.WALL_FACTOR}x + {client.WALL_EXTRA:g} s",
    }, indent=2) + "\n", encoding="utf-8")
    return path


def _submissions(count: int) -> str:
    return f"{count} submission" + ("" if count == 1 else "s")


def summary_table(rows: list[dict], seconds: float, names: dict | None = None) -> Table:
    # Long names and notes wrap inside their cells; every cell is Text, never markup.
    table = Table(title=f"{_submissions(len(rows))} in {seconds:.1f} s")
    table.add_column("student", overflow="fold", max_width=28)
    names = {k: v for k, v in (names or {}).items() if v}
    if names:                            # from an LMS import's students.csv
        table.add_column("name", overflow="fold", max_width=28)
    table.add_column("score", justify="right", no_wrap=True)
    table.add_column("status", overflow="fold")
    for column in ("timeouts", "crashes", "refused"):
        table.add_column(column, justify="right", overflow="fold")
    table.add_column("note", overflow="fold")
    for row in sorted(rows, key=lambda r: r["student"]):
        who = [row["student"]] + ([names.get(row["student"], "")] if names else [])
        table.add_row(*(terminal.text(value) for value in (
            *who, f"{row['score']}/{row['max_score']}", row["status"],
            row["timeouts"], row["crashes"], row["refused"])),
            terminal.text(row["message"]))
    slow = [row for row in sorted(rows, key=lambda r: r["student"]) if row.get(SLOW)]
    if slow:        # no submission holds the class up unseen
        table.caption = terminal.text(
            f"took more than {SLOW_SECONDS:.0f} s (wall clock): " + "; ".join(
                f"{row['student']} {row[SLOW]}" for row in slow))
        table.caption_justify = "left"
    return table


def distribution(rows: list[dict]) -> str:
    buckets = {"0%": 0, "1-49%": 0, "50-99%": 0, "100%": 0}
    for row in rows:
        share = row["score"] / row["max_score"] if row["max_score"] else 0
        label = "0%" if share == 0 else "100%" if share == 1 else "1-49%" if share < .5 \
            else "50-99%"
        buckets[label] += 1
    return "score distribution: " + ", ".join(f"{k}: {v}" for k, v in buckets.items())

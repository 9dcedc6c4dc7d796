"""Every assignment against its own floor: `autograder grade` against the students' compute.

For each of the five assignments, one batch of its bundled examples that run to an
end in-process (the hostile and endless ones left out; tic-tac-toe's batch is
bench_overhead.py's), in one run, side by side:

- the kit: `autograder grade A BATCH --jobs J` as a process of its own, its CPU
  seconds and those of all its processes (getrusage of the finished tree), the
  course's cache of expected values filled (a course's later batches); and once more
  with bench_overhead.py's probes, to say where the CPU goes;
- the floor: the same hidden suite graded in a process of its own with the student's
  code in-process (inprocess.py): every call, map and plan the suite makes, the
  student's calls back into the grader's games made on the games themselves; only
  the student's code and the games it calls are timed (CPU). The suite judges as in
  the kit, so the floor's grades must equal the kit's (else the bench fails: the
  floor made other calls).

Printed per assignment: kit / floor in CPU seconds, and the parts of the difference
(the child's plumbing beyond the floor, the grader answering calls back, encoding and
decoding, waiting, the grader's checking, starting and stopping children, what a batch
pays once). Runs each --repeat times, alternating; the least kit CPU against each
student's least floor.

Usage: python bench/bench_floors.py [--only A ...] [--jobs 2] [--repeat 2] [--students N]
       [--tiny] (the smoke test's size: two muehle submissions, one run; measures nothing)
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

ASSIGNMENTS = ("tictactoe", "negamax", "gametree", "connect4", "muehle")
#: Examples left out: hostile, endless or lying (their cost is the attack, not a
#: student's compute; student code runs in-process for the floor).
LEFT_OUT = {"grace_endless_minimax", "heidi_hostile", "ivan_lying_answers",
            "grace_endless_deepening", "judy_hostile", "ivan_endless_minimax"}
CACHE = "SPIELBAUM_CACHE"
TARGETS = {"tictactoe": 1.25}       # else 1.5 (issue 43)


def build_batch(assignment: str, target: Path, students: int | None) -> list[str]:
    """One folder per student in `target`; tic-tac-toe's is bench_overhead.py's."""
    target.mkdir(parents=True)
    if assignment == "tictactoe":
        import bench_overhead
        names = bench_overhead.build_batch(target, None, False)
    else:
        for folder in sorted((ROOT / "examples" / assignment).iterdir()):
            if folder.is_dir() and folder.name not in LEFT_OUT:
                shutil.copytree(folder, target / folder.name)
        names = sorted(p.name for p in target.iterdir())
    if students is not None:
        for name in names[students:]:
            shutil.rmtree(target / name)
        names = names[:students]
    return names


# ------------------------------------------------------------------ the floor
_GRADER = [None]


def _floor_one(folder: str) -> dict:
    """One student graded with the code in this (forked) process: its CPU in the
    student's code and the games it called (the floor), by kind, and its grade."""
    import inprocess
    from autograder.grading import student
    student.Sandbox = inprocess.InProcess
    graded = _GRADER[0].grade(Path(folder).name, Path(folder))
    floor = sum(inprocess.spent.values())
    return {"student": Path(folder).name, "cpu": floor,
            "by_kind": dict(inprocess.spent),
            "grade": f"{graded.score:g}/{graded.max_score:g} {graded.status}"}


def floor_run(assignment: str, batch: Path, jobs: int, out: Path) -> None:
    """The floor for every student of `batch`, `jobs` processes at once, each student
    in a process of its own (forked after the grader's warm-up, as the kit's workers)."""
    import multiprocessing
    from autograder import assignment as assignments
    from autograder.grading import warm
    from autograder.grading.grader import Grader
    grader = Grader(assignments.load(assignment))
    grader.require_layers()
    grader.warm_up()
    warm.settle()
    _GRADER[0] = grader
    folders = sorted(str(p) for p in batch.iterdir())
    with multiprocessing.get_context("fork").Pool(jobs, maxtasksperchild=1) as pool:
        results = pool.map(_floor_one, folders, chunksize=1)
    out.write_text(json.dumps({r["student"]: r for r in results}))


# ------------------------------------------------------------------ the kit
def _kit(command: list[str], env: dict | None = None) -> tuple[subprocess.CompletedProcess,
                                                                  float, float]:
    """(the finished process, wall seconds, CPU seconds of it and all its children)."""
    import bench_overhead
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.monotonic()
    done = subprocess.run(bench_overhead._isolated(command), capture_output=True, text=True,
                          cwd=ROOT, env={**os.environ, **(env or {})})
    wall = time.monotonic() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return done, wall, (after.ru_utime + after.ru_stime) - (used.ru_utime + used.ru_stime)


def one_run(assignment: str, tmp: Path, number: int, jobs: int) -> dict:
    """The kit as it is, the kit with the probes, the floor; raises if one failed."""
    import bench_overhead
    batch = tmp / "batch"
    grade = ["grade", assignment, str(batch), "--jobs", str(jobs), "--out"]
    plain, plain_wall, plain_cpu = _kit([sys.executable, "-m", "autograder", *grade,
                                         str(tmp / f"plain{number}")])
    parts, marks = tmp / f"parts{number}.jsonl", tmp / f"marks{number}.json"
    probed, _wall, probed_cpu = _kit([sys.executable, str(ROOT / "bench" / "bench_overhead.py"),
                                      "--kit-run", str(parts), str(marks), "--", *grade,
                                      str(tmp / f"probed{number}")])
    floor_file = tmp / f"floor{number}.json"
    floor, _wall, floor_cpu = _kit([sys.executable, __file__, "--floor-run", assignment,
                                    str(batch), str(jobs), str(floor_file)])
    for name, done in (("kit", plain), ("kit with probes", probed), ("floor", floor)):
        if done.returncode != 0:
            raise SystemExit(f"{assignment}: the {name} failed:\n{done.stdout[-3000:]}\n"
                             f"{done.stderr[-3000:]}")
    return {"kit_cpu": plain_cpu, "kit_wall": plain_wall, "probed_cpu": probed_cpu,
            "checks": [reference_check(tmp / f"{kind}{number}") for kind in ("plain", "probed")],
            "grades": bench_overhead._grades(tmp / f"plain{number}"),
            "probed_grades": bench_overhead._grades(tmp / f"probed{number}"),
            "parts": [json.loads(line) for line in parts.read_text().splitlines()],
            "marks": json.loads(marks.read_text()),
            "floor": json.loads(floor_file.read_text()), "floor_process_cpu": floor_cpu}


def reference_check(out: Path) -> str:
    """How a kit run checked the reference (run.json): "quick" with the course's cache;
    "full" when the cache did not fit (any edit of the kit's code in between)."""
    return json.loads((out / "run.json").read_text())["reference_check"]


def parts_of(run: dict, floor_cpu: float) -> dict[str, float]:
    """Where the probed run's CPU went, in CPU seconds (bench_overhead.py's probes)."""
    p = defaultdict(float)
    for row in run["parts"]:
        for key, value in row.items():
            if key != "student":
                p[key] += value
    marks = run["marks"]

    def cpu(key):
        return p["cpu:" + key]
    in_suite = sum(cpu(k) for k in ("spawn", "import", "requests", "stop"))
    parts = {
        "the child's plumbing beyond the floor": cpu("child import") + cpu("child calls")
        - floor_cpu,
        "the grader answering calls back (its games included)": cpu("answer"),
        "encoding and writing requests and answers": cpu("encode") + cpu("send"),
        "decoding replies": cpu("decode"),
        "waiting for replies (polling, clocks)":
            cpu("requests") - cpu("encode") - cpu("send") - cpu("decode") - cpu("answer"),
        "the grader's checking (pytest, judging)": cpu("suite") - in_suite,
        "starting and stopping children": cpu("spawn") + cpu("child start") + cpu("stop")
        + cpu("stop after"),
        "once per batch (start, calibration, reference check)": marks["cpu:imported"]
        + marks.get("cpu:calibration", 0.0) + marks["cpu:warm up main"]
        + marks["cpu:warm up child"],
        "calls back answered (count)": p["calls back"],
    }
    counted = sum(v for k, v in parts.items() if "count" not in k)
    parts["the rest (files, forks, exits, the main process)"] = \
        run["probed_cpu"] - floor_cpu - counted
    return parts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", choices=ASSIGNMENTS)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--students", type=int, help="the first N of each batch only")
    parser.add_argument("--tiny", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--floor-run", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.tiny:
        args.only, args.students, args.repeat = ["muehle"], 2, 1
    if args.floor_run:
        assignment, batch, jobs, out = args.floor_run
        floor_run(assignment, Path(batch), int(jobs), Path(out))
        return 0
    load_before = os.getloadavg()[0]
    summary, failed = [], False
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "cache").mkdir(mode=0o700)
        os.environ[CACHE] = str(tmp / "cache")
        for assignment in args.only or ASSIGNMENTS:
            here = tmp / assignment
            names = build_batch(assignment, here / "batch", args.students)
            # a first batch fills the course's cache: the runs below are later batches
            _kit([sys.executable, "-m", "autograder", "grade", assignment, str(here / "batch"),
                  "--jobs", str(args.jobs), "--out", str(here / "first")])
            runs = [one_run(assignment, here, number, args.jobs)
                    for number in range(args.repeat)]
            line, ok = report(assignment, names, runs)
            summary.append(line)
            failed |= not ok
    print()
    print("| assignment | submissions | kit CPU s | floor CPU s | kit / floor | target |")
    print("|---|---|---|---|---|---|")
    for line in summary:
        print(line)
    print(f"the machine's load average: {load_before:.1f} before, {os.getloadavg()[0]:.1f} "
          f"after, on {os.cpu_count()} cores")
    return 1 if failed else 0


def report(assignment: str, names: list[str], runs: list[dict]) -> tuple[str, bool]:
    """Print one assignment's table; its summary line, and whether its grades agreed."""
    kit = min(runs, key=lambda run: run["kit_cpu"])
    probed = min(runs, key=lambda run: run["probed_cpu"])
    floor = {name: min((run["floor"][name] for run in runs), key=lambda s: s["cpu"])
             for name in names}
    floor_cpu = sum(s["cpu"] for s in floor.values())
    ratio = kit["kit_cpu"] / floor_cpu
    target = TARGETS.get(assignment, 1.5)
    print(f"\n== {assignment}: {len(names)} submissions")
    agree = True
    for run in runs:
        for name in names:
            kit_grade, floor_grade = run["grades"].get(name), run["floor"][name]["grade"]
            if kit_grade != floor_grade or run["probed_grades"].get(name) != kit_grade:
                agree = False
                print(f"  GRADES DIFFER for {name}: kit {kit_grade}, with probes "
                      f"{run['probed_grades'].get(name)}, floor {floor_grade}")
    print(f"  kit / floor, CPU seconds: {kit['kit_cpu']:.2f} / {floor_cpu:.2f} = "
          f"{ratio:.2f}x (target <= {target}x); kit runs "
          + ", ".join(f"{run['kit_cpu']:.2f}" for run in runs)
          + "; floors " + ", ".join(
              f"{sum(run['floor'][n]['cpu'] for n in names):.2f}" for run in runs))
    full = [f"run {number + 1} {kind}" for number, run in enumerate(runs)
            for kind, check in zip(("plain", "probed"), run["checks"]) if check != "quick"]
    if full:
        print(f"  the reference checked in full (not from the course's cache): {', '.join(full)}"
              "; 'once per batch' then holds a full reference grading")
    for part, seconds in parts_of(probed, floor_cpu).items():
        if "count" in part:
            print(f"  {part}: {seconds:,.0f}")
        else:
            print(f"  {part}: {seconds:.2f} s ({seconds / floor_cpu:.3f}x the floor)")
    for name in names:
        s = floor[name]
        print(f"    {name}: floor {s['cpu']:.2f} s ({', '.join(f'{k} {v:.2f}' for k, v in s['by_kind'].items() if v)}); {kit['grades'].get(name)}")
    line = (f"| {assignment} | {len(names)} | {kit['kit_cpu']:.1f} | {floor_cpu:.1f} | "
            f"{ratio:.2f}x | <= {target}x |")
    return line, agree


if __name__ == "__main__":
    sys.exit(main())

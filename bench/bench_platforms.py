"""A platform package's time per submission against bulk grading's, measured in one run.

Gradescope and PrairieLearn grade each submission in a fresh process: Python starts,
the kit loads, the sandbox is probed, the time scale measured, the hidden suite run
once. This bench grades the same tic-tac-toe submissions (the bundled examples that
finish: correct, wrong and broken ones) three ways, one after the other:

- bulk: one Grader, the reference graded first (its warm-up, not counted), then
  each submission in the same process: the time a bulk grading worker spends on
  one submission (`autograder grade` forks its workers after the warm-up);
- platform: `python -m autograder.platforms.run gradescope --package P` in a fresh
  process per submission, as run_autograder runs it once setup.sh installed the
  kit, with the expected values the export computed (P/expected.pickle, checked
  by its hash); wall time from spawn to exit;
- platform, recomputing: the same package without expected.pickle (what packages
  did before), so each process recomputes the suite's expected values.

Each submission is graded the three ways in turn (a busy machine slows all three
alike). Printed: wall seconds per submission (median and mean) and CPU seconds (the
grading process and its sandboxed children), and the ratios of the two platform runs
to bulk, by wall time and by CPU time. The package is built as `autograder export` builds it, minus
the wheels (this checkout's kit is the installed one); its processes find the kit's
bytecode compiled, as after setup.sh's pip install (`platform_env`). Student code runs
only in the kit's sandbox.

Usage: python bench/bench_platforms.py [--assignment tictactoe] [--rounds 1] [--tiny]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder import assignment as assignments  # noqa: E402
from autograder.grading import warm  # noqa: E402
from autograder.grading.grader import Grader  # noqa: E402
from autograder.platforms import CONFIG, EXPECTED, export  # noqa: E402

# Left out: they run to their limits (an endless search) or attack the sandbox; their
# cost is the attack, the same on both sides.
LEFT_OUT = {"grace_endless_minimax", "heidi_hostile", "ivan_lying_answers"}


def submissions(name: str, tiny: bool) -> list[Path]:
    found = sorted(p for p in (ROOT / "examples" / name).iterdir()
                   if p.is_dir() and not p.name.startswith(".") and p.name not in LEFT_OUT
                   and "hostile" not in p.name)
    return found[:2] if tiny else found


def package(name: str, folder: Path, precomputed: tuple[bytes, dict] | None) -> Path:
    """A package folder as the export writes it (settings, expected values if given)."""
    assignment = assignments.load(name)
    data, manifest = precomputed or (b"", None)
    with_expected = precomputed is not None
    folder.mkdir(parents=True)
    config = export._config(assignment, "gradescope", False, export.required_layers(assignment, []),
                            export.kit_version(), {}, manifest if with_expected else None)
    (folder / CONFIG).write_text(config, encoding="utf-8")
    if with_expected:
        (folder / EXPECTED).write_bytes(data)
    return folder


def _cpu() -> float:
    """CPU seconds of this process and of every child it waited for (their children too)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _timed(run) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of `run()`."""
    wall, cpu = time.perf_counter(), _cpu()
    run()
    return time.perf_counter() - wall, _cpu() - cpu


def bulk_grader(name: str) -> Grader:
    grader = Grader(assignments.load(name))
    grader.require_layers()
    grader.warm_up()
    return grader


def bulk_one(grader: Grader, folder: Path) -> None:
    """One submission as a bulk grading worker grades it: warm, on one CPU
    (grading/workers.py pins each worker and its children)."""
    from autograder.grading.workers import one_cpu
    with one_cpu():
        graded = grader.grade(folder.name, folder)
    assert graded.status != "error", graded.details


def platform_env(scratch: Path) -> dict:
    """The environment of a platform's process. There, setup.sh pip-installed the kit,
    which compiles its modules' bytecode; this checkout's kit is an editable install,
    and a shell that sets PYTHONDONTWRITEBYTECODE (this machine's does) made every
    fresh process compile the kit's modules again, a cost a platform never pays (1.83 ->
    1.80 s of CPU a submission, one run each: within this bench's noise).
    Their bytecode goes to a cache of this run's instead (PYTHONPYCACHEPREFIX), filled
    by one untimed run before the measured ones. The course's cache is off: with it a
    "recomputing" process could take the expected values an earlier batch left there
    and recompute nothing (a platform has no such cache)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("SPIELBAUM_TIME_SCALE", "PYTHONDONTWRITEBYTECODE")}
    env["PYTHONPYCACHEPREFIX"] = str(scratch / "bytecode")
    env[warm.CACHE_ENV] = "off"
    return env


def platform_one(package_dir: Path, folder: Path, scratch: Path) -> None:
    """One submission as run_autograder runs it: a fresh process, results.json out."""
    env = platform_env(scratch)
    root = scratch / "root"
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(folder, root / "submission")
    (root / "results").mkdir(parents=True)
    done = subprocess.run([sys.executable, "-s", "-m", "autograder.platforms.run",
                           "gradescope", "--package", str(package_dir), "--root", str(root)],
                          cwd=root, env=env, capture_output=True, text=True)
    if done.returncode != 0 or not (root / "results" / "results.json").is_file():
        raise SystemExit(f"{folder.name}: the platform run failed: "
                         f"{(done.stdout + done.stderr)[-1500:]}")
    json.loads((root / "results" / "results.json").read_text())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--assignment", default="tictactoe")
    parser.add_argument("--rounds", type=int, default=1,
                        help="how often each submission is graded each way")
    parser.add_argument("--tiny", action="store_true", help="two submissions (smoke test)")
    args = parser.parse_args()
    folders = submissions(args.assignment, args.tiny) * max(1, args.rounds)
    with tempfile.TemporaryDirectory(prefix="bench-platforms-") as temp:
        scratch = Path(temp)
        started = time.perf_counter()
        precomputed = export.precompute(assignments.load(args.assignment))
        export_seconds = time.perf_counter() - started
        shipped = package(args.assignment, scratch / "with", precomputed)
        plain = package(args.assignment, scratch / "without", None)
        size = (shipped / EXPECTED).stat().st_size
        grader = bulk_grader(args.assignment)
        platform_one(shipped, folders[0], scratch)      # fills the bytecode cache (untimed)
        # Each submission three ways in turn, so that a busy machine slows all three alike.
        ways = {"bulk": [], "shipped": [], "recomputing": []}
        for folder in folders:
            ways["bulk"].append(_timed(lambda: bulk_one(grader, folder)))
            ways["shipped"].append(_timed(lambda: platform_one(shipped, folder, scratch)))
            ways["recomputing"].append(_timed(lambda: platform_one(plain, folder, scratch)))
    print(f"{args.assignment}: {len(folders)} submissions, each graded three ways in turn "
          f"(one run); expected values: {size / 1024:.0f} KiB, computed at export with "
          f"the reference's grading in {export_seconds:.1f} s")
    labels = {"bulk": "bulk grading, per submission (warm worker)",
              "shipped": "platform, expected values shipped",
              "recomputing": "platform, recomputing them (before)"}
    for way, label in labels.items():
        walls, cpus = zip(*ways[way])
        print(f"  {label:<44} wall: median {statistics.median(walls):6.2f} s, mean "
              f"{statistics.mean(walls):6.2f} s; CPU: mean {statistics.mean(cpus):6.2f} s")
    for index in (0, 1):
        kind = ("wall", "CPU")[index]
        base = statistics.mean(t[index] for t in ways["bulk"])
        fast = statistics.mean(t[index] for t in ways["shipped"]) / base
        slow = statistics.mean(t[index] for t in ways["recomputing"]) / base
        print(f"  ratio platform / bulk ({kind}): {fast:.2f}x shipped, {slow:.2f}x "
              "recomputing (target: within 1.2x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

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

Printed: seconds per submission (median and mean) of each, and the ratios of the two
platform runs to bulk. The package is built as `autograder export` builds it, minus
the wheels (this checkout's kit is the installed one). Student code runs only in
the kit's sandbox.

Usage: python bench/bench_platforms.py [--assignment tictactoe] [--rounds 1] [--tiny]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder import assignment  # noqa: E402
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
    piece = assignment.load(name)
    data, manifest = precomputed or (b"", None)
    with_expected = precomputed is not None
    folder.mkdir(parents=True)
    config = export._config(piece, "gradescope", False, export.required_layers(piece, []),
                            export.kit_version(), {}, manifest if with_expected else None)
    (folder / CONFIG).write_text(config, encoding="utf-8")
    if with_expected:
        (folder / EXPECTED).write_bytes(data)
    return folder


def bulk_seconds(name: str, folders: list[Path]) -> list[float]:
    grader = Grader(assignment.load(name))
    grader.require_layers()
    grader.warm_up()
    seconds = []
    for folder in folders:
        started = time.perf_counter()
        graded = grader.grade(folder.name, folder)
        seconds.append(time.perf_counter() - started)
        assert graded.status != "error", graded.details
    return seconds


def platform_seconds(package_dir: Path, folders: list[Path], scratch: Path) -> list[float]:
    seconds = []
    env = {k: v for k, v in os.environ.items() if k != "SPIELBAUM_TIME_SCALE"}
    for folder in folders:
        root = scratch / "root"
        shutil.rmtree(root, ignore_errors=True)
        shutil.copytree(folder, root / "submission")
        (root / "results").mkdir(parents=True)
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-s", "-m", "autograder.platforms.run",
                               "gradescope", "--package", str(package_dir), "--root",
                               str(root)], cwd=root, env=env, capture_output=True, text=True)
        seconds.append(time.perf_counter() - started)
        if done.returncode != 0 or not (root / "results" / "results.json").is_file():
            raise SystemExit(f"{folder.name}: the platform run failed: "
                             f"{(done.stdout + done.stderr)[-1500:]}")
        json.loads((root / "results" / "results.json").read_text())
    return seconds


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
        precomputed = export.precompute(assignment.load(args.assignment))
        export_seconds = time.perf_counter() - started
        shipped = package(args.assignment, scratch / "with", precomputed)
        plain = package(args.assignment, scratch / "without", None)
        size = (shipped / EXPECTED).stat().st_size
        bulk = bulk_seconds(args.assignment, folders)
        fast = platform_seconds(shipped, folders, scratch)
        slow = platform_seconds(plain, folders, scratch)
    print(f"{args.assignment}: {len(folders)} submissions, each graded three ways "
          f"(one run); expected values: {size / 1024:.0f} KiB, computed at export with "
          f"the reference's grading in {export_seconds:.1f} s")
    for label, seconds in (("bulk grading, per submission (warm worker)", bulk),
                           ("platform, expected values shipped", fast),
                           ("platform, recomputing them (before)", slow)):
        print(f"  {label:<44} median {statistics.median(seconds):6.2f} s, "
              f"mean {statistics.mean(seconds):6.2f} s")
    base = statistics.mean(bulk)
    print(f"  ratio platform / bulk: {statistics.mean(fast) / base:.2f}x shipped, "
          f"{statistics.mean(slow) / base:.2f}x recomputing (target: within 1.2x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Similarity report: 300 tic-tac-toe submissions compared pairwise (44,850 pairs).

The submissions are seeded random disguises (tests/similarity/disguise.py) of the
kit's independent corpus, so every one has dozens of copies: the expensive case,
where most pairs share fingerprints and need their matched regions worked out.
Measured: the whole report (tokenise, fingerprint, compare, CSV and HTML) with
--jobs 2 and with --jobs 1, and as the baseline in the same run copydetect's own
CopyDetector on the same files (its Pygments filter, no boilerplate, no report).
Target: at most 60 s with 2 cores.
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder.similarity import report, run  # noqa: E402
from tests.similarity import batches  # noqa: E402

TARGET_SECONDS = 60.0


def whole_report(folder: Path, out: Path, jobs: int) -> tuple[float, run.Result]:
    started = time.perf_counter()
    result = run.analyse("tictactoe", folder, jobs=jobs)
    out.mkdir(parents=True, exist_ok=True)
    report.write_csv(out, result)
    report.write_html(out, result)
    return time.perf_counter() - started, result


def plain_copydetect(folder: Path) -> float:
    from copydetect import CopyDetector
    logging.getLogger().setLevel(logging.ERROR)
    started = time.perf_counter()
    detector = CopyDetector(test_dirs=[str(folder)], ref_dirs=[str(folder)], extensions=["py"],
                            silent=True, autoopen=False)
    detector.run()
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="spielbaum-similarity-") as scratch:
        folder = Path(scratch) / "submissions"
        origin = batches.generated("tictactoe", folder, args.count, args.seed)
        pairs = args.count * (args.count - 1) // 2
        two, result = whole_report(folder, Path(scratch) / "out2", jobs=2)
        one, _ = whole_report(folder, Path(scratch) / "out1", jobs=1)
        baseline = plain_copydetect(folder)
    names = [s.student for s in result.submissions]
    students = [n for n in names if not n.startswith(run.KIT)]    # not the kit's own files
    between = [m for m in result.matches if names[m.a] in origin and names[m.b] in origin]
    wrong = sum(origin[names[m.a]] != origin[names[m.b]] for m in between)
    same = sum(origin[a] == origin[b] for i, a in enumerate(students) for b in students[i + 1:])
    print(f"{args.count} tic-tac-toe submissions, {pairs:,} pairs")
    print(f"  whole report, --jobs 2: {two:6.1f} s  (target <= {TARGET_SECONDS:.0f} s: "
          f"{'ok' if two <= TARGET_SECONDS else 'MISSED'})")
    print(f"  whole report, --jobs 1: {one:6.1f} s  (--jobs 2 is {one / two:.2f}x faster)")
    print(f"  baseline, copydetect's CopyDetector alone on the same files: {baseline:6.1f} s "
          f"(the report takes {two / baseline:.2f}x that)")
    print(f"  pairs between students reported: {len(between):,} of {same:,} copy pairs; "
          f"{wrong} between different originals")
    return 0 if two <= TARGET_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main())

"""Similarity report: disguised copies caught, next to Dolos, and 300 submissions timed.

1. **Caught, next to Dolos.** The kit's disguise corpus (tests/similarity/disguised.py:
   seven independent tic-tac-toe solutions and one copy per technique of issue 24's
   table, each copy proven by the kit's tests to answer like its original on every
   position), compared by the kit and by Dolos (Ghent University's similarity tool,
   @dodona/dolos-lib, run from Node on the same files with the released skeleton as
   its template). A copy is caught when its score with its original is above the
   highest score of two independent students, in the same tool; the margin is how
   far above. Dolos is installed into a folder outside the repository
   (`$TMPDIR/spielbaum-dolos-<version>`, kept for the next run); without `npm` its
   column is skipped with one line.
2. **Real submissions**, with `--real DIR` (one folder per student, a `tictactoe.py`
   each: for instance CS50 AI solutions from public repositories, never committed
   here): the same table with those students as the independent ones and each
   technique applied to a different one of them (`--verify` runs copy and original
   on every position first and drops a copy that answers differently).
3. **Speed.** 300 generated tic-tac-toe submissions (seeded random disguises of the
   kit's corpus, so every one has dozens of copies: the expensive case), the whole
   report (read, tokenise, canonicalise, compare, CSV and HTML) with --jobs 2 and
   --jobs 1, and as the baseline in the same run copydetect's own CopyDetector on the
   same files. Target: at most 60 s with 2 cores.
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import json
import logging
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder.similarity import report, run  # noqa: E402
from tests.similarity import batches, disguised  # noqa: E402

TARGET_SECONDS = 60.0
DOLOS_VERSION = "3.5.1"
SKELETON = ROOT / "assignments" / "tictactoe" / "tictactoe.py"
DOLOS_SCRIPT = """\
import { Dolos } from "@dodona/dolos-lib";
const [ignore, ...paths] = process.argv.slice(2);
const dolos = new Dolos({ language: "python" });
const found = await dolos.analyzePaths(paths, ignore);
console.log(JSON.stringify(found.allPairs().map(
  p => [p.leftFile.path, p.rightFile.path, p.similarity])));
"""


# ------------------------------------------------------------------ Dolos
def dolos_folder() -> Path | None:
    """Dolos installed outside the repository (once), or None with a line saying why."""
    npm, node = shutil.which("npm"), shutil.which("node")
    if not npm or not node:
        print("  Dolos: skipped (npm and node are needed to run it)")
        return None
    folder = Path(tempfile.gettempdir()) / f"spielbaum-dolos-{DOLOS_VERSION}"
    if not (folder / "node_modules" / "@dodona" / "dolos-lib" / "package.json").is_file():
        folder.mkdir(parents=True, exist_ok=True)
        print(f"  installing @dodona/dolos-lib@{DOLOS_VERSION} into {folder} (once) ...",
              flush=True)
        done = subprocess.run([npm, "install", "--prefix", str(folder), "--no-audit",
                               "--no-fund", "--loglevel=error",
                               f"@dodona/dolos-lib@{DOLOS_VERSION}"],
                              capture_output=True, text=True, timeout=1200)
        if done.returncode != 0:
            print(f"  Dolos: skipped (npm install failed: {done.stderr.strip()[-200:]})")
            return None
    (folder / "pairs.mjs").write_text(DOLOS_SCRIPT)
    return folder


def dolos_scores(folder: Path, batch: Path) -> dict[frozenset, float]:
    """Dolos' similarity of every pair of students in `batch`."""
    paths = sorted(str(p / "tictactoe.py") for p in batch.iterdir() if p.is_dir())
    done = subprocess.run(["node", str(folder / "pairs.mjs"), str(SKELETON), *paths],
                          capture_output=True, text=True, timeout=1200, cwd=folder)
    if done.returncode != 0:
        raise RuntimeError(f"Dolos failed: {done.stderr[-400:]}")
    return {frozenset({Path(a).parent.name, Path(b).parent.name}): float(s)
            for a, b, s in json.loads(done.stdout)}


def kit_scores(batch: Path, jobs: int = 2) -> dict[frozenset, float]:
    result = run.analyse("tictactoe", batch, floor=0.0, jobs=jobs)
    subs = result.submissions
    return {frozenset({subs[m.a].name, subs[m.b].name}): m.score for m in result.matches
            if subs[m.a].kind == subs[m.b].kind == run.STUDENT}


# ------------------------------------------------------------------ caught
def caught(scores: dict[frozenset, float], students: list[str], pairs) -> tuple:
    """(highest independent pair, [(label, score, caught)])."""
    origin: dict[str, set[str]] = {}
    for pair in pairs:
        origin.setdefault(pair.copy, set()).add(pair.original)
    highest = max((scores.get(frozenset({a, b}), 0.0), a, b)
                  for a, b in itertools.combinations(students, 2)
                  if not origin.get(a, {a}) & origin.get(b, {b}))
    rows = []
    for pair in pairs:
        score = scores.get(frozenset({pair.copy, pair.original}), 0.0)
        rows.append((pair.label, score, score > highest[0]))
    return highest, rows


def table(title: str, batch: Path, pairs, dolos: Path | None) -> tuple[int, int | None]:
    students = sorted(p.name for p in batch.iterdir() if p.is_dir())
    tools = {"kit": kit_scores(batch)}
    if dolos is not None:
        tools["Dolos"] = dolos_scores(dolos, batch)
    results = {name: caught(scores, students, pairs) for name, scores in tools.items()}
    copies = len(pairs)
    print(f"\n{title}: {len(students)} submissions, {copies} copy pairs")
    header = f"  {'technique':64s}" + "".join(f"{name:>16s}" for name in results)
    print(header)
    for index, pair in enumerate(pairs):
        line = f"  {pair.label:64s}"
        for name, (_, rows) in results.items():
            _, score, hit = rows[index]
            line += f"{score:9.3f} {'caught' if hit else 'MISSED':>6s}"
        print(line)
    line = f"  {'highest independent pair':64s}"
    for name, (highest, _) in results.items():
        line += f"{highest[0]:9.3f}{'':7s}"
    print(line)
    line = f"  {'copies caught; smallest margin':64s}"
    for name, (highest, rows) in results.items():
        margin = min(score for _, score, _ in rows) - highest[0]
        line += f"{sum(hit for *_, hit in rows):4d}/{copies:<3d}{margin:+8.3f} "
    print(line)
    for name, (highest, _) in results.items():
        print(f"  {name}: the highest independent pair is {highest[1]} / {highest[2]}")
    kit = sum(hit for *_, hit in results["kit"][1])
    other = sum(hit for *_, hit in results["Dolos"][1]) if "Dolos" in results else None
    return kit, other


# ------------------------------------------------------------------ real submissions
def real_batch(real: Path, target: Path, verify: bool, seed: int) -> list:
    """The real students, and each technique applied to a different one of them."""
    students = sorted(p.name for p in real.iterdir() if (p / "tictactoe.py").is_file())
    for name in students:
        (target / name).mkdir(parents=True)
        shutil.copyfile(real / name / "tictactoe.py", target / name / "tictactoe.py")
    rng = random.Random(seed)
    order = students[:]
    rng.shuffle(order)
    keep = batches.interface("tictactoe")
    pairs = []
    for name, technique in disguised.TECHNIQUES.items():
        count = len(technique.originals)
        while len(order) >= count:
            chosen, order = order[:count], order[count:]
            sources = [(real / c / "tictactoe.py").read_text(encoding="utf-8", errors="replace")
                       for c in chosen]
            try:
                data = technique.make(sources, random.Random(f"{seed}:{name}"), keep)
                compile(importlib.util.decode_source(data), name, "exec")
            except Exception:           # a rewrite that does not fit this file: next one
                continue
            copy = f"{'+'.join(chosen)}-{name}"
            (target / copy).mkdir()
            (target / copy / "tictactoe.py").write_bytes(data)
            labels = [technique.label] if count == 1 else [
                f"{technique.label} (part A: the rules)",
                f"{technique.label} (part B: minimax and its helpers)"]
            pairs += [disguised.Pair(name, label, copy, original)
                      for original, label in zip(chosen, labels)]
            break
    if verify:
        problems = disguised.verify(target, pairs, jobs=2)
        for copy in {p.copy for p in pairs if any(k.startswith(p.copy + " ") for k in problems)}:
            shutil.rmtree(target / copy)
        dropped = {p.copy for p in pairs} - {p.name for p in target.iterdir()}
        pairs = [p for p in pairs if p.copy not in dropped]
        print(f"  verified: {len(dropped)} copies dropped for answering differently "
              f"({', '.join(sorted(dropped)) or 'none'})")
    return pairs


# ------------------------------------------------------------------ speed
def cpu_seconds() -> float:
    """CPU time of this process and its finished children (the machine may be
    shared: wall time alone says little about the work)."""
    mine, children = resource.getrusage(resource.RUSAGE_SELF), \
        resource.getrusage(resource.RUSAGE_CHILDREN)
    return mine.ru_utime + mine.ru_stime + children.ru_utime + children.ru_stime


def whole_report(folder: Path, out: Path, jobs: int) -> tuple[float, float, run.Result]:
    started, cpu = time.perf_counter(), cpu_seconds()
    result = run.analyse("tictactoe", folder, jobs=jobs)
    out.mkdir(parents=True, exist_ok=True)
    report.write_csv(out, result)
    report.write_html(out, result)
    return time.perf_counter() - started, cpu_seconds() - cpu, result


def plain_copydetect(folder: Path) -> float:
    from copydetect import CopyDetector
    logging.getLogger().setLevel(logging.ERROR)
    started = time.perf_counter()
    detector = CopyDetector(test_dirs=[str(folder)], ref_dirs=[str(folder)], extensions=["py"],
                            silent=True, autoopen=False)
    detector.run()
    return time.perf_counter() - started


def speed(count: int, seed: int, scratch: Path) -> bool:
    folder = scratch / "generated"
    origin = batches.generated("tictactoe", folder, count, seed)
    pairs = count * (count - 1) // 2
    two, two_cpu, result = whole_report(folder, scratch / "out2", jobs=2)
    one, one_cpu, _ = whole_report(folder, scratch / "out1", jobs=1)
    baseline = plain_copydetect(folder)
    subs = result.submissions
    between = [m for m in result.matches if subs[m.a].kind == subs[m.b].kind == run.STUDENT]
    wrong = sum(origin[subs[m.a].name] != origin[subs[m.b].name] for m in between)
    students = sorted(origin)
    same = sum(origin[a] == origin[b] for a, b in itertools.combinations(students, 2))
    print(f"\n{count} generated tic-tac-toe submissions, {pairs:,} pairs")
    print(f"  whole report, --jobs 2: {two:6.1f} s, {two_cpu:.1f} s of CPU  (target <= "
          f"{TARGET_SECONDS:.0f} s: {'ok' if two <= TARGET_SECONDS else 'MISSED'}; load "
          f"average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    print(f"  whole report, --jobs 1: {one:6.1f} s, {one_cpu:.1f} s of CPU  (--jobs 2 is "
          f"{one / two:.2f}x faster)")
    print(f"  baseline, copydetect's CopyDetector alone on the same files: {baseline:6.1f} s "
          f"(the report takes {two / baseline:.2f}x that)")
    print(f"  pairs between students reported: {len(between):,} of {same:,} copy pairs; "
          f"{wrong} between different originals")
    return two <= TARGET_SECONDS


def recording_cost() -> None:
    """What keeping the behavioural fingerprint costs the grader per call (the
    tic-tac-toe suite makes about 30,000 calls per submission), against the same
    loop over the calls doing nothing, in the same run."""
    from autograder.grading.behaviour_record import BehaviourRecord
    from autograder.sandbox.client import Outcome
    from tests.similarity.behave import positions
    boards = positions()
    arguments = [(b,) for b in boards]
    moves = [Outcome(ok=True, value={(i, j) for i in range(3) for j in range(3)
                                     if b[i][j] is None}) for b in boards]
    flags = [Outcome(ok=True, value=bool(n % 3)) for n in range(len(boards))]
    targets = ("t.actions", "t.winner", "t.terminal", "t.player", "t.minimax")
    BehaviourRecord().saw_many("t.warm", arguments, flags)     # a worker digests arguments once
    started = time.process_time()
    recorder = BehaviourRecord()
    for target in targets:
        recorder.saw_many(target, arguments, moves if target == "t.actions" else flags)
    seconds = time.process_time() - started
    started = time.process_time()
    for target in targets:
        for _ in zip(arguments, moves):
            pass
    bare = time.process_time() - started
    calls = len(targets) * len(boards)
    print(f"\nRecording behaviour during grading: {seconds / calls * 1e6:.2f} us of CPU per call "
          f"({seconds / calls * 3e4 * 1e3:.0f} ms for the 30,000 calls of one tic-tac-toe "
          f"submission); the bare loop over the calls {bare / calls * 1e6:.2f} us")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=300, help="submissions for the timing")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--real", type=Path, default=os.environ.get("SPIELBAUM_REAL_TICTACTOE"),
                        help="a folder of real, independent submissions (optional)")
    parser.add_argument("--verify", action="store_true",
                        help="with --real: run each copy and its original on every position")
    parser.add_argument("--no-dolos", action="store_true", help="leave Dolos out")
    args = parser.parse_args()
    dolos = None if args.no_dolos else dolos_folder()
    with tempfile.TemporaryDirectory(prefix="spielbaum-similarity-") as scratch:
        scratch = Path(scratch)
        corpus = scratch / "corpus"
        kit, other = table("The kit's disguise corpus", corpus, disguised.build(corpus), dolos)
        if other is not None:
            print(f"  the kit catches {kit}, Dolos {other} "
                  f"({'more' if kit > other else 'NOT more'} than Dolos)")
        if args.real and Path(args.real).is_dir():
            real = scratch / "real"
            table(f"Real submissions from {args.real}", real,
                  real_batch(Path(args.real), real, args.verify, args.seed), dolos)
        else:
            print("\nReal submissions: skipped (no --real folder)")
        recording_cost()
        fast = speed(args.count, args.seed, scratch)
    return 0 if fast else 1


if __name__ == "__main__":
    sys.exit(main())

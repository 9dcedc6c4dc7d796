"""Sample mutants and grade each as a submission, in local workers forked after the
reference was graded or on a Dask cluster's workers (grading/cluster.py, where `judge`
runs as it does here). A mutant is killed when it loses any point."""

from __future__ import annotations

import gc
import hashlib
import random
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console

from .. import KitError
from ..assignment import Assignment
from ..grading import intake
from ..grading.cluster import Cluster, digest, encode
from ..grading.grader import Grader
from ..grading.workers import Local
from ..outputs import terminal
from . import allowlist, stop
from .operators import Mutant, compiles, mutants


def reference(target: Assignment, module: str) -> str:
    """The text of the reference's `module`."""
    path = target.solution_dir / module
    if not path.is_file():
        raise KitError(f"{path}: listed in assignment.toml but missing")
    return path.read_text(encoding="utf-8")


@dataclass
class Verdict:
    mutant: Mutant
    status: str                 # killed, survived, equivalent, error
    killed_by: str = ""         # the first check that cost points, or why the run failed
    score: float = 0.0
    max_score: float = 0.0
    seconds: float = 0.0
    reason: str = ""            # the allowlist's reason, for equivalent mutants


@dataclass
class Analysis:
    target: Assignment
    seed: int
    count: int
    population: int             # candidate mutants in the solution regions
    not_compiling: int
    verdicts: list[Verdict]
    stale: list[allowlist.Entry] = field(default_factory=list)
    stop_early: bool = True
    seconds: float = 0.0        # in all, the reference's own grading included
    jobs: int = 1

    def of(self, status: str) -> list[Verdict]:
        return [v for v in self.verdicts if v.status == status]

    @property
    def score(self) -> float | None:
        """Killed over killed plus survived (equivalent and errored ones left out)."""
        judged = len(self.of("killed")) + len(self.of("survived"))
        return len(self.of("killed")) / judged if judged else None


# ------------------------------------------------------------ choosing mutants
def population(target: Assignment) -> list[Mutant]:
    return [mutant for module in target.modules
            for mutant in mutants(module, reference(target, module))]


def sample(everything: list[Mutant], count: int, seed: int, equivalent: dict
           ) -> tuple[list[Mutant], list[Mutant], int]:
    """The first `count` gradable mutants of a seeded permutation of all mutants,
    the allowlisted ones met on the way, and how many did not compile.

    Taking a prefix of one permutation keeps a sample stable: allowlisting a
    survivor, or asking for more mutants, only adds mutants at the end."""
    order = list(everything)
    random.Random(seed).shuffle(order)
    chosen, skipped, broken = [], [], 0
    for mutant in order:
        if len(chosen) == count:
            break
        if mutant.key in equivalent:
            skipped.append(mutant)
        elif not compiles(mutant):
            broken += 1
        else:
            chosen.append(mutant)
    return chosen, skipped, broken


# ------------------------------------------------------------ grading
def warmed_workers(grader: Grader, function, tasks: list, jobs: int, lost) -> Local:
    """Local workers running `function(*task)`, forked after the grader checked its
    sandbox layers and graded the reference (it must score full marks; the warm-up
    fills every cache of expected values, which the workers inherit)."""
    grader.require_layers()
    grader.warm_up()
    gc.freeze()         # the collector of a forked worker then never copies the parent's pages
    return Local(max(1, min(jobs, len(tasks))), function,
                 ceiling=grader.timeouts.submission + 60, lost=lost)


def write_modules(target: Assignment, sources: dict[str, str], folder: Path) -> None:
    """The reference's modules into `folder`, those of `sources` as its text."""
    folder.mkdir(parents=True, exist_ok=True)
    for module in target.modules:
        if module in sources:
            (folder / module).write_text(sources[module], encoding="utf-8")
        else:
            shutil.copyfile(target.solution_dir / module, folder / module)


def as_submission(target: Assignment, sources: dict[str, str], what: str) -> intake.Prepared:
    """The reference with `sources` in place of its modules, read as grading reads a
    submission."""
    with tempfile.TemporaryDirectory(prefix="mutate-", ignore_cleanup_errors=True) as folder:
        write_modules(target, sources, Path(folder))
        found, status, problem = intake.prepare(Path(folder), target.modules)
    if found is None:
        raise KitError(f"{what} cannot be graded: {status}: {problem}")
    return found


def prepared(target: Assignment, mutant: Mutant) -> intake.Prepared:
    return as_submission(target, {mutant.module: mutant.source}, f"mutant {mutant.ident}")


def grader_error(graded) -> str | None:
    """Why grading failed, where it did (a grader bug: reported, never counted)."""
    if graded.status in ("graded", "import-error"):
        return None
    detail = graded.details.strip().splitlines()[-1] if graded.details else graded.message
    return f"{graded.status}: {detail}"


def judge(graded) -> tuple[str, str, float, float, float]:
    """(status, killed_by, score, max_score, seconds) of a graded mutant, as plain data."""
    seconds = graded.seconds
    error = grader_error(graded)
    if error:
        return "error", error, 0.0, graded.max_score, seconds
    if graded.score >= graded.max_score:
        return "survived", "", graded.score, graded.max_score, seconds
    return "killed", _first_loss(graded), graded.score, graded.max_score, seconds


def _first_loss(graded) -> str:
    if graded.status == "import-error":
        return f"import: {graded.message}"
    lost = [t for t in graded.tests if t.score < t.max_score and t.output != "not run"]
    if not lost:
        return "a check that did not run"
    summary = first_line(lost[0].output, "")
    return lost[0].title + (f": {summary}" if summary else "")


def first_line(text: str, nothing: str = "(no feedback)") -> str:
    """The first line of a check's feedback that says something."""
    lines = (line.strip().rstrip(" :") for line in (text or "").splitlines() if line.strip())
    return next(lines, nothing)


#: In the output folder of `mutate --scheduler`: the verdicts a killed client resumes from.
JOURNAL = ".mutation.jsonl"


def analyse(target: Assignment, *, count: int = 40, seed: int = 0, jobs: int = 2,
            stop_early: bool = True, console: Console | None = None,
            scheduler: str | None = None, out_dir: Path | None = None) -> Analysis:
    """Grade a seeded sample of `count` mutants of the reference with its hidden suite,
    on `jobs` local workers or on the Dask scheduler `scheduler` (resuming from
    `out_dir`'s journal)."""
    if count < 1:
        raise KitError("--count must be at least 1")
    if jobs < 1:
        raise KitError("--jobs must be at least 1")
    started = time.perf_counter()
    console = console or Console(stderr=True)
    grader = Grader(target, plugins=(stop,) if stop_early else ())   # fails on a bad rubric
    everything = population(target)
    listed = target.suite_dir / allowlist.FILE_NAME
    equivalent, stale = allowlist.match(allowlist.load(listed, target.modules), everything,
                                        listed)
    chosen, skipped, broken = sample(everything, count, seed, equivalent)
    verdicts = [Verdict(m, "equivalent", reason=equivalent[m.key].reason) for m in skipped]
    cluster = Cluster(scheduler, {
        "assignment": target.name, "digest": digest(target), "reveal": False,
        "judge": "autograder.mutate.run:judge",
        "plugins": ["autograder.mutate.stop"] if stop_early else []},
        out_dir / JOURNAL) if scheduler else None
    console.print(f"Mutating [bold]{target.name}[/]: {len(chosen)} of {len(everything)} "
                  f"mutants (seed {seed}), "
                  + (f"on {cluster.where}" if cluster
                     else f"{jobs} workers; {grader.describe()}"))
    try:
        if cluster is None:     # (on a cluster each worker checks its layers and warms up)
            def grade(mutant: Mutant) -> tuple:
                graded = grader.grade_prepared(mutant.ident, prepared(target, mutant))
                return (mutant, *judge(graded))
            pool = warmed_workers(grader, grade, chosen, jobs, lost=lambda task, why: (
                task[0], "error", why.splitlines()[0], 0.0, 0.0, 0.0))
            finished = pool.run([(m,) for m in chosen])
        else:
            inputs = {mutant.ident: _source_digest(mutant) for mutant in chosen}
            done = cluster.done(inputs)
            if done:
                console.print(f"resuming: {len(done)} of {len(chosen)} mutants already graded",
                              markup=False, highlight=False)
            items = [(mutant.ident, encode(prepared(target, mutant))) for mutant in chosen
                     if mutant.ident not in done]
            by_ident = {mutant.ident: mutant for mutant in chosen}
            finished = ((by_ident[ident], *verdict) for ident, verdict
                        in cluster.journaled(done, cluster.grade(items), inputs))
        progress = terminal.progress(console)
        progress.disable = not console.is_terminal      # a log gets one line per mutant instead
        with progress:
            task = progress.add_task("mutants", total=len(chosen))
            for mutant, status, killed_by, score, max_score, seconds in finished:
                verdicts.append(Verdict(mutant, status, killed_by, score, max_score, seconds))
                progress.advance(task)
                if not console.is_terminal:
                    console.print(f"[{len(verdicts) - len(skipped)}/{len(chosen)}] {status}: "
                                  f"{mutant.ident} ({seconds:.1f} s)", markup=False,
                                  highlight=False)
    finally:
        if cluster is not None:
            cluster.close()
    verdicts.sort(key=lambda v: (v.mutant.module, v.mutant.line, v.mutant.operator,
                                 v.mutant.occurrence))
    return Analysis(target, seed, count, len(everything), broken, verdicts, stale,
                    stop_early, time.perf_counter() - started, jobs)


def _source_digest(mutant: Mutant) -> str:
    return hashlib.sha256(mutant.source.encode("utf-8")).hexdigest()[:16]

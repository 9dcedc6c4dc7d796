"""`autograder check-suite NAME`: the suite doctor, for the author of a hidden suite.

It grades the reference as a batch's warm-up does and says per check whether it
passes, what it used against each limit of the rubric (more than 1/ALLOWANCE of one
is flagged; the call limit by grading again with every CPU limit divided by
ALLOWANCE), and whether its verdict is the same in another process. Then it grades
a sample of honest rewrites and mutants and lists what to fix (docs/AUTHORING.md).
"""

from __future__ import annotations

import csv
import dataclasses
import functools
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from .. import ROOT, KitError
from .. import assignment as assignments
from ..checking.search import CHECK_AHEAD
from ..grading.grader import Grader
from ..grading.runner import environment_set
from ..sandbox.client import backstop

#: A check may use at most this share of a limit on the reference: the limits are
#: sized for students, whose honest code may be several times slower or larger.
ALLOWANCE = Grader.ALLOWANCE_SHARE
#: The honest rewrites sampled by default: the ways of writing most likely to meet a
#: check that judges more than the specification (docs/MUTATION.md).
REWRITES = ("keyword_calls", "tuple_returns", "exception_subclasses", "wrap_public")
MB = 1 << 20


@dataclass
class Usage:
    """What one check of the reference used, measured around its call."""
    child_cpu: float = 0.0      # the reference's CPU seconds, every child of the check
    wall: float = 0.0
    peak_memory: int = 0        # the largest address space of a child seen (bytes)


class Measure:
    """A pytest plugin beside the grading plugin: each check's Usage."""

    def __init__(self):
        self.checks: dict[str, Usage] = {}

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item):
        wall = time.perf_counter()
        yield
        usage = Usage(wall=time.perf_counter() - wall)
        student = item.funcargs.get("student")
        if student is not None:
            usage.child_cpu, usage.peak_memory = student.check_usage
        self.checks[item.name] = usage


@dataclass
class Check:
    """One check of the suite, as the doctor saw it."""
    name: str
    title: str
    points: float
    passed: bool
    output: str
    usage: Usage
    reply_bytes: int = 0
    values: int = 0
    tight_passed: bool = True       # passed again with the CPU limits divided by ALLOWANCE
    elsewhere: tuple | None = None  # (passed, output) in another process, where it differs
    problems: list[str] = field(default_factory=list)


@dataclass
class Report:
    name: str
    checks: list[Check]
    limits: dict            # the rubric's limits as scaled on this machine
    describe: str
    honest: list[dict] | None = None    # honest.csv's rows
    mutants: list[dict] | None = None   # mutation.csv's rows
    samples_skipped: str = ""
    seconds: float = 0.0

    @property
    def fixes(self) -> list[str]:
        found = [f"{check.name}: {problem}" for check in self.checks
                 for problem in check.problems]
        found += [f"honest rewrite {row['rewrite']} loses {row['points_lost']} in "
                  f"{row['check']}: the check judges more than the specification asks "
                  f"({row['feedback']})" for row in self.honest or ()
                  if row["status"] == "lost points" and row["check"]]
        found += [f"honest rewrite {row['rewrite']}: {row['status']} ({row['reason']})"
                  for row in self.honest or () if row["status"] in ("grader error",
                                                                    "rewrite bug")]
        found += [f"mutant {row['module']}:{row['line']} {row['operator']} survived "
                  f"({row['original'].lstrip(chr(39))}  ->  {row['mutated'].lstrip(chr(39))}): "
                  "add a case that tells it from the reference, or declare it equivalent "
                  "(docs/MUTATION.md)" for row in self.mutants or ()
                  if row["status"] == "survived"]
        found += [f"mutant {row['module']}:{row['line']}: grader error ({row['killed_by']})"
                  for row in self.mutants or () if row["status"] == "error"]
        return found


# ------------------------------------------------------------ grading the reference
def graded_reference(grader: Grader, plugins: tuple = ()):
    """The reference graded with every check judged again with the grader's helpers
    after it passed too (Blame.rehearse, as Grader.warm_up grades it)."""
    grader.plugins = tuple(plugins)
    return grader.grade("reference", grader.assignment.solution_dir, reveal=True,
                        _rehearse=True)


def tightened(grader: Grader) -> Grader:
    """The same grader with the CPU limits of a call, an import and a check divided by
    ALLOWANCE (the wall-clock backstops left as they are)."""
    timeouts = grader.timeouts
    tight = Grader(grader.assignment, layers=grader.layers, timing=grader.timing,
                   reveal=True, behaviour=False)
    tight.timeouts = dataclasses.replace(
        timeouts, call=timeouts.call / ALLOWANCE, check=timeouts.check / ALLOWANCE,
        imports=timeouts.imports / ALLOWANCE)
    return tight


def verdicts(name: str) -> dict[str, tuple[bool, str]]:
    """Each check's (passed, output) on the reference: what another process compares."""
    grader = Grader(assignments.load(name), reveal=True, behaviour=False)
    graded = graded_reference(grader)
    return {test.name: (test.passed, test.output) for test in graded.tests}


def verdicts_elsewhere(name: str) -> dict[str, tuple[bool, str]]:
    """`verdicts` in a fresh Python process with another hash seed: a check whose cases
    come from unseeded random choices, a set's order or module state differs there."""
    seed = "1" if os.environ.get("PYTHONHASHSEED") != "1" else "2"
    done = subprocess.run([sys.executable, "-m", "autograder.authoring.doctor", name],
                          cwd=ROOT, capture_output=True, text=True, timeout=3600,
                          env={**os.environ, "PYTHONHASHSEED": seed})
    if done.returncode != 0:
        raise KitError(f"grading the reference of {name} again in another process failed: "
                       + (done.stderr.strip().splitlines() or ["(no message)"])[-1])
    return {name: tuple(pair) for name, pair in json.loads(done.stdout).items()}


def examine(name: str, *, mutants: int, rewrites: tuple[str, ...], jobs: int) -> Report:
    """Everything check-suite finds out about the suite of `name`."""
    say = functools.partial(print, flush=True)
    started = time.perf_counter()
    assignment = assignments.load(name)
    grader = Grader(assignment, reveal=True, behaviour=False)
    grader.require_layers()
    say(f"grading the reference of {name} ({grader.describe()})")
    measure = Measure()
    # Each search game's answers given ahead are compared with its own on every state of
    # the tables, not only its roots (CHECK_AHEAD): a game's `ahead_key` that misses what
    # its answers depend on fails the reference here, not a student's verdict later.
    with environment_set(CHECK_AHEAD, "1"):
        graded = graded_reference(grader, (measure,))
        say(f"grading it again with every CPU limit divided by {ALLOWANCE}")
        tight = {t.name: t.passed for t in graded_reference(tightened(grader)).tests}
        say("grading it again in another process, to compare")
        other = verdicts_elsewhere(name)
    limits = limits_of(grader)
    checks = []
    for test in graded.tests:
        reply_bytes, values = graded.check_usage.get(test.name, (0, 0))
        check = Check(test.name, test.title, test.max_score, test.passed, test.output,
                      measure.checks.get(test.name, Usage()), reply_bytes, values,
                      tight.get(test.name, False))
        if test.name in other and other[test.name] != (test.passed, test.output):
            check.elsewhere = other[test.name]
        check.problems = problems_of(check, limits)
        checks.append(check)
    report = Report(name, checks, limits, grader.describe())
    if graded.status != "graded" or graded.score < graded.max_score:
        report.samples_skipped = ("the reference does not score full marks, so no rewrite "
                                  "or mutant can be judged: fix that first")
        if graded.message:
            report.samples_skipped += f" ({graded.message})"
    else:
        if rewrites:
            say(f"grading {len(rewrites)} honest rewrites of the reference")
            report.honest = sample_rows(["honest", name, *[a for r in rewrites
                                                           for a in ("--rewrite", r)]],
                                        jobs, "honest.csv")
        if mutants:
            say(f"grading a sample of {mutants} mutants of the reference")
            report.mutants = sample_rows(["mutate", name, "--count", str(mutants)], jobs,
                                         "mutation.csv")
    report.seconds = time.perf_counter() - started
    return report


def limits_of(grader: Grader) -> dict:
    timeouts, limits = grader.timeouts, grader.limits
    return {"call": timeouts.call, "check": timeouts.check, "wall": backstop(timeouts.test),
            "values": limits.check_items, "bytes": limits.check_bytes,
            "memory": limits.memory_bytes}


def problems_of(check: Check, limits: dict) -> list[str]:
    """What to fix about one check, each in a sentence saying how."""
    found = []
    if not check.passed:
        found.append("fails on the reference (its feedback is above): fix the check, or "
                      "the reference if the check is right")
    usage = check.usage
    if usage.child_cpu * ALLOWANCE > limits["check"]:
        found.append(f"the reference uses {usage.child_cpu:.2f} s of the check's "
                     f"{limits['check']:.2f} s of CPU time ([timeouts] check), more than "
                     f"a {ALLOWANCE}th: a slower honest solution would run out; ask about "
                     "fewer or smaller positions, or raise the limit")
    elif check.passed and not check.tight_passed:
        found.append(f"fails when the CPU limit of one call ([timeouts] call, "
                     f"{limits['call']:.2f} s) is divided by {ALLOWANCE}: a call of the "
                     "reference comes within a factor of "
                     f"{ALLOWANCE} of it; give the calls smaller positions, or raise it")
    if usage.wall * ALLOWANCE > limits["wall"]:
        found.append(f"took {usage.wall:.1f} s of wall time, more than a {ALLOWANCE}th of "
                     f"its backstop of {limits['wall']:.0f} s ([timeouts] test): the "
                     "grader's own work in it is too slow (cache the expected values with "
                     "functools.cache)")
    for used, limit, what, key in (
            (check.values, limits["values"], "decoded values", "check_values"),
            (check.reply_bytes, limits["bytes"], "bytes of replies", "check_megabytes")):
        if used * ALLOWANCE > limit:
            found.append(f"needs {used:,} {what} of its {limit:,} ([limits] {key}): fewer "
                         "or smaller cases, split the check, or raise the limit")
    if usage.peak_memory * ALLOWANCE > limits["memory"]:
        found.append(f"a child reached {usage.peak_memory // MB} MB of its "
                     f"{limits['memory'] // MB} MB ([limits] memory_mb): raise it")
    if check.elsewhere is not None:
        passed, _output = check.elsewhere
        what = "its verdict" if passed != check.passed else "its feedback"
        found.append(f"is not deterministic: {what} differs in another process (another "
                     "hash seed, fresh module state): seed its random choices "
                     "(random.Random(seed)), build its cases in a fixed order (sorted, not "
                     "a set's order) and keep no state between submissions")
    return found


def sample_rows(command: list[str], jobs: int, csv_name: str) -> list[dict]:
    """Run `autograder <command>` into a temporary folder; its CSV's rows."""
    with tempfile.TemporaryDirectory(prefix="check-suite-") as out:
        done = subprocess.run([sys.executable, "-m", "autograder", *command, "--jobs",
                               str(jobs), "--out", out], cwd=ROOT, capture_output=True,
                              text=True, timeout=7200)
        path = Path(out) / csv_name
        if not path.is_file():
            raise KitError(f"autograder {' '.join(command)} failed: "
                           + (done.stderr.strip().splitlines() or ["(no message)"])[-1])
        with path.open(newline="", encoding="utf-8") as handle:
            return list(csv.DictReader(handle))


if __name__ == "__main__":      # verdicts_elsewhere's other process
    print(json.dumps(verdicts(sys.argv[1])))

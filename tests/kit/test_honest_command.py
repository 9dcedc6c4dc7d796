"""`autograder honest`: the command on a deliberately fragile fixture (it must report the
points its fragile checks take from honest rewrites), and every hidden suite on the
honest rewrites of its own reference (each must keep full marks).

The default run (CI) grades a few rewrites per assignment, fixed below; `make
test-all` grades every rewrite on every assignment (marked exhaustive). Each
command run is shared by the tests of its assignment (one subprocess, cached).
"""

import csv
import functools
import shutil
import subprocess
import sys

import pytest

from autograder import assignment as assignments
from autograder.mutate.honest.rewrites import REWRITES
from tests.conftest import ROOT

FIXTURE = ROOT / "tests" / "mutate_fixture" / "honest"

#: The rewrites `make test` grades on each assignment: the three kinds of the issue 41
#: findings where they apply (exceptions that subclass the specified one, calls by
#: keyword, a container the docstring does not name) and one more style each.
SAMPLE = {
    "tictactoe": ("keyword_calls", "exception_subclasses"),
    "negamax": ("exception_subclasses", "keyword_calls"),
    "gametree": ("keyword_calls", "german_locals"),
    "connect4": ("tuple_returns", "keyword_callbacks"),
    "muehle": ("keyword_calls", "debug_prints"),
}

#: Any other assignment (one `autograder new` added to the kit): two kinds that apply to
#: every module whose functions call one another.
DEFAULT_SAMPLE = ("keyword_calls", "debug_prints")


def sample(name: str) -> tuple:
    return SAMPLE.get(name, DEFAULT_SAMPLE)


#: Rewrites that still lose points on an assignment: (assignment, rewrite) -> the
#: finding. Their test is xfail(strict=True): it turns red once the suite is fixed,
#: and then the entry goes.
KNOWN_LOSSES: dict[tuple[str, str], str] = {}

#: Every assignment keeps full marks on at least this many kinds of rewrite (issue 41).
AT_LEAST = 12


@functools.cache
def honest_rows(name: str, kinds: tuple[str, ...] = ()) -> dict[str, list[dict]]:
    """honest.csv's rows by rewrite, from one real run of the command."""
    import tempfile
    out = tempfile.mkdtemp(prefix=f"honest-{name}-")
    try:
        command = [sys.executable, "-m", "autograder", "honest", name, "--out", out,
                   "--jobs", "2", *[a for kind in kinds for a in ("--rewrite", kind)]]
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=1800)
        assert done.returncode in (0, 1), done.stdout + done.stderr
        with open(f"{out}/honest.csv", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
    finally:
        shutil.rmtree(out, ignore_errors=True)
    found: dict[str, list[dict]] = {}
    for row in rows:
        found.setdefault(row["rewrite"], []).append(row)
    return found


def verdict(rows: list[dict]) -> str:
    """One line: the rewrite's status and every point it lost."""
    lost = "; ".join(f"{r['check']} -{r['points_lost']}: {r['feedback']}"
                     for r in rows if r["check"])
    return f"{rows[0]['status']} {lost or rows[0]['reason']}".strip()


def params(pairs):
    return [pytest.param(name, kind, marks=pytest.mark.xfail(
        strict=True, reason=KNOWN_LOSSES[(name, kind)]) if (name, kind) in KNOWN_LOSSES else ())
        for name, kind in pairs]


# ------------------------------------------------------------ every assignment
def test_the_sample_covers_every_assignment():
    assert set(SAMPLE) <= set(assignments.names())
    assert all(kind in REWRITES for name in assignments.names() for kind in sample(name))


@pytest.mark.slow
@pytest.mark.parametrize("name, kind", params(
    (name, kind) for name in sorted(assignments.names()) for kind in sample(name)))
def test_a_sample_of_honest_rewrites_keeps_full_marks(name, kind):
    rows = honest_rows(name, sample(name))[kind]
    assert rows[0]["status"] == "full marks", verdict(rows)


@pytest.mark.slow
@pytest.mark.exhaustive
@pytest.mark.parametrize("name, kind", params(
    (name, kind) for name in assignments.names() for kind in REWRITES))
def test_every_honest_rewrite_keeps_full_marks(name, kind):
    """Full marks, or not applicable to this reference (nothing to rewrite): never a lost
    point, a rewrite bug or a grader error."""
    rows = honest_rows(name)[kind]
    assert rows[0]["status"] in ("full marks", "not applicable"), verdict(rows)


@pytest.mark.slow
@pytest.mark.exhaustive
@pytest.mark.parametrize("name", assignments.names())
def test_every_reference_keeps_full_marks_on_many_kinds_of_rewrite(name):
    kept = sorted(kind for kind, rows in honest_rows(name).items()
                  if rows[0]["status"] == "full marks" and kind != "unparsed")
    assert len(kept) >= AT_LEAST, kept


# ------------------------------------------------------------ the command on a fixture
@pytest.fixture(scope="module")
def fragile(tmp_path_factory):
    """Every rewrite of tests/mutate_fixture/honest/, graded by its fragile suite."""
    folder = tmp_path_factory.mktemp("fragile")
    shutil.copytree(FIXTURE / "solutions", folder / "solutions")
    shutil.copytree(FIXTURE / "suites", folder / "suites")
    suite = folder / "suites" / "fragile"
    (suite / "fragile_checks.py").rename(suite / "test_fragile.py")
    out = folder / "out"
    done = subprocess.run([sys.executable, "-m", "tests.mutate_fixture.honest.drive",
                           str(folder), str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    with (out / "honest.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    return rows, (out / "honest.md").read_text(encoding="utf-8"), out


@pytest.mark.slow
def test_a_fragile_suite_loses_points_to_honest_rewrites_and_the_report_says_which(fragile):
    rows, report, _ = fragile
    lost = {(r["rewrite"], r["check"], r["points_lost"], r["feedback"])
            for r in rows if r["status"] == "lost points"}
    assert lost == {("exception_subclasses", "test_odd_raises", "2",
                     "halve(3) did not raise ValueError"),
                    ("tuple_returns", "test_evens", "1", "evens is wrong")}
    assert "| `exception_subclasses` | `test_odd_raises` | 2 | halve(3) did not raise " \
           "ValueError |" in report
    assert "**" + "7 of 9 graded rewrites kept full marks." + "**" in report
    # Every other graded rewrite kept the honest check and the rest.
    kept = {r["rewrite"] for r in rows if r["status"] == "full marks"}
    assert {"unparsed", "debug_prints", "german_docs", "main_block", "wrap_public",
            "comprehensions_to_loops", "reorder_definitions"} == kept


@pytest.mark.slow
def test_the_report_keeps_each_rewritten_module_and_its_diff(fragile):
    _, _, out = fragile
    rewritten = (out / "rewritten" / "exception_subclasses" / "fragile.py").read_text()
    assert "class HalveValueError(ValueError):" in rewritten
    diff = (out / "rewritten" / "exception_subclasses" / "fragile.diff").read_text()
    assert "+        raise HalveValueError(f'{n} is odd')" in diff
    assert not (out / "rewritten" / "keyword_calls").exists()     # not applicable


def test_unknown_assignment_and_unknown_rewrite_are_one_line_and_exit_2(capsys):
    from autograder.cli import main
    assert main(["honest", "nope"]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "unknown assignment 'nope'" in error
    assert main(["honest", "tictactoe", "--rewrite", "nope"]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "unknown rewrite 'nope'; the rewrites are:" in error


def test_list_names_every_rewrite_with_its_description(capsys):
    from autograder.cli import main
    assert main(["honest", "--list"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in listed] == list(REWRITES)
    assert all(len(line.split(None, 1)[1]) > 20 for line in listed)


def test_a_rewrite_that_behaves_otherwise_is_a_rewrite_bug_and_not_graded(monkeypatch):
    from rich.console import Console

    from autograder import assignment
    from autograder.mutate.honest import run
    monkeypatch.setenv("SPIELBAUM_COURSE", str(FIXTURE))
    target = assignment.load("fragile")
    modules = run.references(target)
    good = run.rewritten(target, "german_docs", modules)
    bad = run.rewritten(target, "german_docs", modules)
    bad.sources = {"fragile.py": bad.sources["fragile.py"].replace("n // 2", "n // 3")}
    run.behaves_alike(target, [good, bad], Console(quiet=True))
    assert good.status == run.TO_GRADE
    assert bad.status == "rewrite bug" and "print number 1 of the probe differs" in bad.reason


def test_a_rewrite_named_not_honest_in_the_manifest_is_skipped_with_its_reason(monkeypatch):
    """The engine names no game: an assignment's own [honest] not_honest table says which
    rewrite its specification forbids; the honest twin (no table) rewrites as usual."""
    import dataclasses

    from autograder import KitError, assignment
    from autograder.mutate.honest import run
    monkeypatch.setenv("SPIELBAUM_COURSE", str(FIXTURE))
    target = assignment.load("fragile")
    modules = run.references(target)
    assert run.rewritten(target, "german_docs", modules).status == run.TO_GRADE
    forbidding = dataclasses.replace(target, extra={
        **target.extra, "honest": {"not_honest": {"german_docs": " English docs only "}}})
    skipped = run.rewritten(forbidding, "german_docs", modules)
    assert (skipped.status, skipped.reason, skipped.sources) == ("skipped", "English docs only",
                                                                 {})
    assert run.rewritten(forbidding, "unparsed", modules).status == run.TO_GRADE
    for table, says in (({"no_such_rewrite": "why"}, "there is no rewrite 'no_such_rewrite'"),
                        ({"german_docs": ""}, 'as rewrite = "why"'),
                        (["german_docs"], 'as rewrite = "why"')):
        bad = dataclasses.replace(target, extra={"honest": {"not_honest": table}})
        with pytest.raises(KitError, match=says) as raised:
            run.rewritten(bad, "unparsed", modules)
        assert "\n" not in str(raised.value) and "[honest] not_honest" in str(raised.value)

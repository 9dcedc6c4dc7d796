"""The course's cache of expected values (grading/warm.py): a batch after the first
takes them from it and grades exactly as a batch that computed them, and checks the
reference quickly where the cache says it scored full marks in full with these layers;
a cache that does not fit (another kit, suite or reference, tampered data) or a folder
that is not safely the teacher's is never used."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys

import pytest

from autograder import KitError, assignment as assignments
from autograder.grading import warm
from autograder.grading.grader import Grader
from autograder.sandbox import layers as sandbox_layers
from tests.conftest import ROOT, grade_folder

pytestmark = pytest.mark.slow

EXAMPLES = ROOT / "examples" / "tictactoe"
#: A correct one, a wrong one whose checks are judged again (played), a broken one.
CHOSEN = ("bob_plain", "eve_no_antidiagonal", "frank_syntax_error")
TIMES = {"seconds", "peak_mb", "grader_peak_mb"}


def rows_without_times(out) -> dict:
    with (out / "grades.csv").open() as handle:
        return {row["student"]: {k: v for k, v in row.items() if k not in TIMES}
                for row in csv.DictReader(handle)}


def warm_up_in_a_process(cache, name="tictactoe") -> dict:
    """A fresh process's warm-up: whether it took the cache, how it checked the
    reference, and the reference's score where it was graded in full."""
    script = ("import json, sys; from autograder import assignment; "
              "from autograder.grading.grader import Grader; "
              f"g = Grader(assignment.load({name!r})); r = g.warm_up(); "
              "print(json.dumps({'cached': g.cached, 'check': g.reference_check, "
              "'score': r and [r.score, r.max_score]}))")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, timeout=600, env={**os.environ, "SPIELBAUM_CACHE": str(cache)})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


@pytest.fixture
def isolating():
    if not {"uid", "landlock"} & set(sandbox_layers.available()):
        pytest.skip("the cache is used only with the uid or landlock layer")


def test_a_later_batch_takes_the_values_and_grades_the_same(tmp_path, isolating):
    subs = tmp_path / "subs"
    for name in CHOSEN:
        shutil.copytree(EXAMPLES / name, subs / name)
    cache = tmp_path / "cache"
    runs = {}
    for run, setting in (("off", "off"), ("first", str(cache)), ("later", str(cache))):
        out = tmp_path / run
        runs[run] = grade_folder("tictactoe", subs, out, env={"SPIELBAUM_CACHE": setting})
        ran = json.loads((out / "run.json").read_text())
        runs[run] = (rows_without_times(out), (ran["expected_values"], ran["reference_check"]),
                     {n: (out / n / "feedback.md").read_text() for n in CHOSEN})
    assert runs["off"][1] == runs["first"][1] == ("computed", "full")
    assert runs["later"][1] == ("cache", "quick")
    assert runs["off"][0] == runs["first"][0] == runs["later"][0]
    assert runs["off"][2] == runs["first"][2] == runs["later"][2]
    assert float(runs["later"][0]["eve_no_antidiagonal"]["score"]) < 25
    # What the cache holds is the teacher's alone.
    assert cache.stat().st_mode & 0o777 == 0o700
    assert {p.name for p in cache.iterdir()} == {"tictactoe.pickle", "tictactoe.json"}
    assert all(p.stat().st_mode & 0o077 == 0 for p in cache.iterdir())


def test_a_cache_that_does_not_fit_is_computed_afresh(tmp_path, isolating):
    cache = tmp_path / "cache"
    assert warm_up_in_a_process(cache) == {"cached": False, "check": "full",
                                           "score": [25.0, 25.0]}
    assert warm_up_in_a_process(cache) == {"cached": True, "check": "quick", "score": None}
    manifest_path = cache / "tictactoe.json"
    honest = json.loads(manifest_path.read_text())
    for changed in ({"kit": "0" * 16}, {"suite": "0" * 16}, {"data": "0" * 64}):
        manifest_path.write_text(json.dumps({**honest, **changed}))
        assert warm_up_in_a_process(cache)["cached"] is False, changed
        assert json.loads(manifest_path.read_text()) == honest     # kept again, whole
    # Data that is not what the manifest says is never unpickled.
    marker = tmp_path / "owned"
    (cache / "tictactoe.pickle").write_bytes(
        b"cos\nsystem\n(S'touch " + str(marker).encode() + b"'\ntR.")
    assert warm_up_in_a_process(cache)["cached"] is False
    assert not marker.exists()
    manifest_path.write_text("{not json")
    assert warm_up_in_a_process(cache)["cached"] is False


def test_the_reference_is_graded_in_full_until_the_cache_says_it_passed_with_these_layers(
        tmp_path, isolating):
    """A cache whose manifest does not say the reference scored full marks in full
    with this machine's layers (a cache of an older kit, other layers) gives the
    values, and the reference is graded in full; the manifest then says so, and the
    next batch checks it quickly."""
    cache = tmp_path / "cache"
    assert warm_up_in_a_process(cache)["check"] == "full"
    manifest_path = cache / "tictactoe.json"
    honest = json.loads(manifest_path.read_text())
    layers = honest[warm.PASSED]
    assert layers == sorted(sandbox_layers.available())
    for unsaid in ({k: v for k, v in honest.items() if k != warm.PASSED},
                   {**honest, warm.PASSED: ["rlimits"]}):
        manifest_path.write_text(json.dumps(unsaid))
        assert warm_up_in_a_process(cache) == {"cached": True, "check": "full",
                                               "score": [25.0, 25.0]}
        assert json.loads(manifest_path.read_text()) == honest
        assert warm_up_in_a_process(cache)["check"] == "quick"


def test_the_quick_check_still_refuses_a_sandbox_that_cannot_start_the_reference(
        tmp_path, isolating, monkeypatch):
    """The quick check starts a child on the reference: a machine where that fails
    today refuses to grade anybody, as a full check would."""
    from autograder.grading import runner
    from autograder.sandbox.client import SandboxError
    monkeypatch.setenv("SPIELBAUM_CACHE", str(tmp_path / "cache"))
    assignment = assignments.load("tictactoe")
    assert Grader(assignment).warm_up() is not None
    grader = Grader(assignment)

    def broken(self):
        raise SandboxError("the child could not be confined")
    monkeypatch.setattr(runner.Student, "importable", property(broken))
    with pytest.raises(KitError, match="does not start in the sandbox here"):
        grader.warm_up()
    assert grader.cached


def test_only_a_folder_of_the_teachers_own_is_used(tmp_path, monkeypatch):
    monkeypatch.setenv("SPIELBAUM_CACHE", "off")
    assert warm.cache_folder() is None
    mine = tmp_path / "mine"
    monkeypatch.setenv("SPIELBAUM_CACHE", str(mine))
    assert warm.cache_folder() == mine and mine.stat().st_mode & 0o777 == 0o700
    mine.chmod(0o777)                                   # others may write: not used
    assert warm.cache_folder() is None
    mine.chmod(0o700)
    link = tmp_path / "link"
    link.symlink_to(mine)
    monkeypatch.setenv("SPIELBAUM_CACHE", str(link))
    assert warm.cache_folder() is None
    if os.geteuid() == 0:
        theirs = tmp_path / "theirs"
        theirs.mkdir(mode=0o700)
        os.chown(theirs, 12345, 12345)
        monkeypatch.setenv("SPIELBAUM_CACHE", str(theirs))
        assert warm.cache_folder() is None


def test_without_a_layer_that_keeps_the_children_out_there_is_no_cache(tmp_path,
                                                                        monkeypatch):
    """The cache is a pickle the grader loads: a child that could write the
    teacher's files could plant one, so it is used only with uid or landlock."""
    monkeypatch.setenv("SPIELBAUM_CACHE", str(tmp_path / "cache"))
    assignment = assignments.load("tictactoe")
    assert Grader(assignment, layers=["rlimits", "netns", "seccomp"])._cache_folder() is None
    assert Grader(assignment, layers=["rlimits", "landlock"])._cache_folder() == tmp_path / "cache"
    exporting = Grader(assignment, layers=["uid"], plugins=(warm.WarmCaches(assignment),))
    assert exporting._cache_folder() is None


def test_the_kit_digest_changes_with_any_module_of_the_kit(tmp_path):
    (tmp_path / "sandbox").mkdir()
    (tmp_path / "sandbox" / "protocol.py").write_text("FORMAT = 1\n")
    (tmp_path / "checks.py").write_text("x = 1\n")
    before = warm.code_digest(tmp_path)
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "checks.py").write_text("ignored\n")
    assert warm.code_digest(tmp_path) == before
    (tmp_path / "sandbox" / "protocol.py").write_text("FORMAT = 2\n")
    assert warm.code_digest(tmp_path) != before
    assert len(warm.kit_digest()) == 16


def test_the_suite_digest_changes_with_the_suite_the_reference_and_the_manifest(tmp_path):
    """What decides the grades: a cache, a package or a cluster worker made with any
    other hidden suite, reference or assignment.toml (its [relies_on]) is refused."""
    from types import SimpleNamespace
    assignment = SimpleNamespace(suite_dir=tmp_path / "suite", solution_dir=tmp_path / "solution",
                            modules=("game.py",))
    assignment.suite_dir.mkdir()
    assignment.solution_dir.mkdir()
    files = {assignment.suite_dir / "test_hidden.py": "def test_x():\n    pass\n",
             assignment.suite_dir / "rubric.toml": "[points]\ntest_x = 1\n",
             assignment.solution_dir / "game.py": "def f():\n    return 1\n",
             assignment.solution_dir / "assignment.toml": "[relies_on]\n"}
    for path, text in files.items():
        path.write_text(text)
    before = warm.digest(assignment)
    (assignment.solution_dir / "notes.txt").write_text("not graded\n")
    assert warm.digest(assignment) == before
    for path, text in files.items():
        path.write_text(text + "# changed\n")
        assert warm.digest(assignment) != before, path.name
        path.write_text(text)
    assert warm.digest(assignment) == before


def test_a_check_without_points_is_refused_by_full_and_quick_checks_alike():
    """Both the full grading and the quick check collect the suite and name a check the
    rubric gives no points (Grader.require_points), in one line."""
    assignment = assignments.load("tictactoe")
    grader = Grader(assignment)
    grader.require_points(list(grader.rubric.points))
    with pytest.raises(KitError, match=r"rubric.toml has no points for: \['test_extra'\]"):
        grader.require_points([*grader.rubric.points, "test_extra"])

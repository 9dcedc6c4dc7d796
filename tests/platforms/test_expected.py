"""The expected values a platform package ships (grading/warm.py), without a package.

Whether a package graded with them scores as bulk grading does is judged on every
assignment by test_gradescope.py and test_prairielearn.py (each export ships them);
here: a Memo is a functools.cache, and a stale or tampered snapshot is refused with
one line before anything is unpickled.
"""

from __future__ import annotations

import functools
import hashlib
import pickle

import pytest

from autograder import KitError, assignment as assignments
from autograder.grading import warm
from autograder.grading.cluster import digest
from tests.conftest import ROOT


def test_a_memo_answers_as_functools_cache_does():
    """The same answers and the same calls of the function: 3 and 3.0 are two entries
    of a one-argument cache, a keyword argument is part of the key."""
    calls = {"memo": [], "cache": []}

    def counted(which):
        def square(number, *, offset=0):
            calls[which].append(number)
            return f"{number * number + offset}"
        return square

    memo, cached = warm.Memo(counted("memo")), functools.cache(counted("cache"))
    for number in (3, 3, 4, 3.0, 4):
        assert memo(number) == cached(number)
    assert memo(3, offset=1) == cached(3, offset=1) == "10"
    assert calls["memo"] == calls["cache"] == [3, 4, 3.0, 3]
    assert memo.cache_info().currsize == 4 and memo.__wrapped__.__name__ == "square"
    memo.cache_clear()
    assert memo.cache_info().currsize == 0


def snapshot(tmp_path, assignment, **changes) -> tuple:
    """A snapshot file and manifest as an export writes them, with `changes` to the manifest."""
    data = pickle.dumps({"memos": {}, "held": {}})
    path = tmp_path / "expected.pickle"
    path.write_bytes(data)
    manifest = {"suite": digest(assignment), "modules": {},
                "data": hashlib.sha256(data).hexdigest(), **changes}
    return path, manifest


def test_a_fresh_snapshot_loads_and_a_stale_one_is_one_line(tmp_path):
    assignment = assignments.load("tictactoe")
    path, manifest = snapshot(tmp_path, assignment)
    assert isinstance(warm.load(assignment, path, manifest), warm.WarmCaches)   # the honest twin
    stale = {
        "another hidden suite or reference": snapshot(tmp_path, assignment, suite="0" * 16),
        "another autograder.suites.tictactoe.test_hidden": snapshot(
            tmp_path, assignment, modules={"autograder.suites.tictactoe.test_hidden": "0" * 64}),
        "not the ones it was exported with": snapshot(tmp_path, assignment, data="0" * 64),
    }
    for words, (path, manifest) in stale.items():
        with pytest.raises(KitError) as refused:
            warm.load(assignment, path, manifest)
        message = str(refused.value)
        assert words in message and "export the package again" in message
        assert "\n" not in message
    path.unlink()
    with pytest.raises(KitError, match="precomputed expected values are missing"):
        warm.load(assignment, path, manifest)


def test_a_snapshot_is_checked_before_it_is_unpickled(tmp_path):
    """Tampered data never reaches pickle: its hash is checked first."""
    assignment = assignments.load("tictactoe")
    path, manifest = snapshot(tmp_path, assignment)
    path.write_bytes(b"cos\nsystem\n(S'echo owned > " + str(tmp_path / "owned").encode()
                     + b"'\ntR.")
    with pytest.raises(KitError, match="not the ones it was exported with"):
        warm.load(assignment, path, manifest)
    assert not (tmp_path / "owned").exists()


def _square(number):
    return number * number


def test_what_does_not_pickle_is_counted_and_the_rest_travels():
    """A cached function holding a lambda among its values ships the entries that
    pickle and counts the rest in the manifest (`autograder export` names them)."""
    assignment = assignments.load("tictactoe")
    caches = warm.WarmCaches(assignment)
    place = ("autograder.suites.tictactoe.test_hidden", "made_here")
    caches.memos[place] = warm.Memo(_square, {2: 4, 3: lambda: 9})
    data, manifest = caches.snapshot()
    assert manifest["left_out"] == {":".join(place): 1}
    assert pickle.loads(data)["memos"][place] == {2: 4}


def test_a_platform_grades_without_behaviour_records_and_to_the_same_verdicts(tmp_path):
    """Nothing on a platform compares submissions: its Grader records no fingerprint
    (bulk grading's similarity report reads them), and grades exactly the same."""
    from autograder.grading.grader import Grader
    from autograder.platforms import run
    package = run.Package(tmp_path, "tictactoe", "gradescope", False, ())
    assert run._grader(package).behaviour is False
    assignment = assignments.load("tictactoe")
    example = ROOT / "examples" / "tictactoe" / "carol_shallow_copy"
    bulk = Grader(assignment).grade("carol", example)
    platform = Grader(assignment, behaviour=False).grade("carol", example)
    assert bulk.behaviour["calls"] > 0 and platform.behaviour == {}
    assert (platform.score, platform.status) == (bulk.score, bulk.status) and bulk.score < 25
    assert [(t.name, t.score, t.output) for t in platform.tests] == \
        [(t.name, t.score, t.output) for t in bulk.tests]

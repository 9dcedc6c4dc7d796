"""Behavioural fingerprints: recorded by the grader from the answers it saw
(autograder/grading/behaviour_record.py), compared by the report (behaviour.py)."""

from __future__ import annotations

import json
import random
import textwrap
from pathlib import Path

import pytest

from autograder.grading import behaviour_record
from autograder.grading.behaviour_record import BehaviourRecord, plain
from autograder.grading.student import Student, Timeouts
from autograder.sandbox import layers
from autograder.sandbox.client import Outcome
from autograder.similarity import behaviour, run

from . import disguised


def answered(value):
    return Outcome(ok=True, value=value)


def raised(kind, message="whatever"):
    return Outcome(raised={"type": kind, "message": message, "where": "line 3"})


# ------------------------------------------------------------------ the recorder
def test_equal_answers_digest_alike_and_different_ones_apart():
    assert plain({3, 1, 2}) == plain({2, 3, 1}) and plain({"b": 1, "a": 2}) == plain({"a": 2, "b": 1})
    assert plain((1, 2)) != plain([1, 2]) and plain(True) != plain(1) and plain(1) != plain(1.0)
    nested = value = []
    for _ in range(200):
        value.append([])
        value = value[0]
    assert plain(nested).endswith("<deep>" + "]" * 41)
    # Any reply is digested in bounded work: a huge one by its kind and length.
    assert plain(list(range(20000))) == "<list of 20000>" != plain(list(range(20001)))


def test_every_student_keeps_the_same_calls_and_only_the_answers_count():
    boards = [(i, j) for i in range(40) for j in range(40)]
    one, two, other = BehaviourRecord(), BehaviourRecord(), BehaviourRecord()
    for x in boards:
        one.saw("m.f", (x,), {}, answered(sum(x)))
        # Another student: same answers, other exception messages, prints nothing
        # the grader reads: the fingerprint is the same.
        two.saw("m.f", (x,), {}, answered(sum(x)))
        other.saw("m.f", (x,), {}, answered(sum(x) + (x == (3, 4))))
    for recorder in (one, two, other):
        recorder.saw("m.g", (), {}, raised("ValueError", f"message {random.random()}"))
        recorder.saw("m.h", (1,), {}, Outcome(failure="timeout", detail="2 s"))
    assert one.data() == two.data()
    kept = len(one.answers)
    assert 0.15 * len(boards) < kept < 0.35 * len(boards)          # one in four, about
    assert set(one.answers) == set(other.answers)                   # chosen by key alone
    assert one.data()["calls"] == len(boards) + 2
    different = {k for k in one.answers if one.answers[k] != other.answers[k]}
    assert len(different) <= 1


def test_repeated_calls_are_kept_apart_and_the_size_is_capped(monkeypatch):
    recorder = BehaviourRecord()
    for n in range(400):
        recorder.saw("getMoves", (), {}, answered(n))
    assert len(recorder.answers) > 50                           # not one key for all
    monkeypatch.setattr(behaviour_record, "MAX_CALLS", 10)
    assert len(behaviour_record._unpack("Q", recorder.data()["keys"])) == 10


def test_a_fingerprint_file_round_trips_and_bad_ones_are_refused(tmp_path):
    recorder = BehaviourRecord()
    for n in range(100):
        recorder.saw("m.f", (n,), {}, answered(n * n))
    behaviour_record.write(tmp_path, recorder.data())
    modules, keys, answers, targets = behaviour_record.read(tmp_path / behaviour_record.FILE)
    assert list(keys) == sorted(recorder.answers) and set(targets) == {"m.f"}
    assert [recorder.answers[k] for k in keys] == list(answers)
    for broken in ("{", json.dumps({"version": 99}), json.dumps({"version": 1, "keys": "!"})):
        (tmp_path / behaviour_record.FILE).write_text(broken)
        assert behaviour_record.read(tmp_path / behaviour_record.FILE) is None


# ------------------------------------------------------------------ the grader feeds it
MODULE = '''
def double(x):
    if x < 0:
        raise ValueError("{message}")
    print("{message}")
    return 2 * x
'''


@pytest.mark.parametrize("twin, same", [("other words", True), ("3 * x", False)])
def test_the_grader_records_what_it_was_answered(tmp_path, twin, same):
    """Two modules that answer alike (one prints and raises with other words) give
    the same fingerprint; one that answers otherwise does not."""
    prints = []
    for name, text in (("first", MODULE.format(message="hello")),
                       ("second", MODULE.format(message="other words")
                        if twin == "other words" else MODULE.format(message="hello")
                        .replace("2 * x", twin))):
        scratch = tmp_path / name
        scratch.mkdir()
        (scratch / "mod.py").write_text(textwrap.dedent(text))
        student = Student(scratch, ["mod"], list(layers.available()), Timeouts(call=10))
        student.start_check()
        student.map("mod.double", [(n,) for n in range(-20, 80)])
        student.call("mod.double", 5)
        student.close()
        prints.append(student.behaviour.data())
    first, second = prints
    assert first["calls"] == second["calls"] == 101
    assert (first["answers"] == second["answers"]) is same
    assert first["keys"] == second["keys"]
    assert first["modules"] != second["modules"]          # the digests of the files


# ------------------------------------------------------------------ the report
def write_class(out: Path, behaviours: dict[str, dict[str, list]], folder: Path) -> None:
    """Fingerprint files for students whose answers are given per target."""
    for student, targets in behaviours.items():
        recorder = BehaviourRecord(folder / student)
        for target, answers in targets.items():
            for n, answer in enumerate(answers):
                recorder.saw(target, (n,), {}, answered(answer))
        (out / student).mkdir(parents=True, exist_ok=True)
        behaviour_record.write(out / student, recorder.data())


def synthetic_class(tmp_path):
    """Twelve students: most answer like the class, each with a quirk or two of its
    own; `twin_*` share one quirk (an actions that returns a list, say); `copy` is
    `odd` exactly, quirks and all."""
    rng = random.Random(5)
    targets = ["t.actions", "t.result", "t.winner", "t.minimax"]
    usual = {t: [n % 7 for n in range(400)] for t in targets}
    behaviours = {}
    for number in range(8):
        mine = {t: list(v) for t, v in usual.items()}
        for t in rng.sample(targets, 2):
            for n in rng.sample(range(400), 60):
                mine[t][n] = 1000 + number
        behaviours[f"s{number}"] = mine
    odd = {t: list(v) for t, v in usual.items()}
    for t in targets:
        for n in range(0, 400, 3):
            odd[t][n] = -n
    behaviours["odd"], behaviours["copy"] = odd, {t: list(v) for t, v in odd.items()}
    for twin in ("twin_a", "twin_b"):
        mine = {t: list(v) for t, v in usual.items()}
        mine["t.actions"] = [("list", n) for n in range(400)]
        behaviours[twin] = mine
    folder = tmp_path / "batch"
    source = disguised.source_of("ben")
    for student in behaviours:
        (folder / student).mkdir(parents=True)
        (folder / student / "tictactoe.py").write_text(source + f"\n# {student}\n")
    write_class(tmp_path / "out", behaviours, folder)
    return folder, tmp_path / "out"


def test_shared_rare_behaviour_counts_and_a_shared_quirk_counts_little(tmp_path):
    folder, out = synthetic_class(tmp_path)
    names = sorted(p.name for p in folder.iterdir())
    digests = [{"tictactoe.py": __import__("hashlib").sha256(
        (folder / n / "tictactoe.py").read_bytes()).hexdigest()} for n in names]
    found, usable, problems = behaviour.load(out, names, digests)
    assert usable == list(range(len(names))) and problems == {}
    row = {n: i for i, n in enumerate(names)}
    scores, alike = found.scores(row["odd"])
    assert scores[row["copy"]] > 0.6 and alike[row["copy"]] > 100
    twins, _ = found.scores(row["twin_a"])
    assert 0.2 < twins[row["twin_b"]] <= 0.5          # one quirk: at most half
    others = [scores[row[f"s{n}"]] for n in range(8)] + [twins[row[f"s{n}"]] for n in range(8)]
    assert max(others) < 0.1
    usual, _ = found.scores(row["s0"])
    assert max(usual[row[f"s{n}"]] for n in range(1, 8)) < 0.1


def test_the_report_uses_fingerprints_of_these_files_only(tmp_path):
    folder, out = synthetic_class(tmp_path)
    (folder / "copy" / "tictactoe.py").write_text(disguised.source_of("ben") + "\n# edited\n")
    result = run.analyse("tictactoe", folder, floor=0.0, jobs=1, out_dir=out)
    assert ("copy", "graded on other files than these (grade again for its behaviour to "
                    "count)") in result.problems
    subs = result.submissions
    pairs = {frozenset({subs[m.a].name, subs[m.b].name}): m for m in result.matches}
    assert pairs[frozenset({"odd", "copy"})].behaviour is None
    assert pairs[frozenset({"twin_a", "twin_b"})].behaviour is not None
    assert "behaviour from grading: 11 of 12 students" in result.behaviour
    # Without an output folder of grading there is no behaviour, and the code's
    # evidence is what it was.
    plain_result = run.analyse("tictactoe", folder, floor=0.0, jobs=1)
    assert all(m.behaviour is None for m in plain_result.matches)
    code = {(m.a, m.b): (m.text.score, m.structure.score) for m in result.matches}
    assert {(m.a, m.b): (m.text.score, m.structure.score)
            for m in plain_result.matches} == code

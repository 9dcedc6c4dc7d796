"""Every byte a student controls is data, in the similarity report too: files are
read as the interpreter that grades them reads them, a file it cannot read is named
and never stops the report, folder walks are bounded, student ids never pass for
the kit's files, and every student string is escaped for the CSV, the terminal and
the page. Each attack sits next to its honest twin."""

from __future__ import annotations

import csv
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from autograder import ROOT
from autograder.grading import intake
from autograder.similarity import report, run, sources

from . import disguise, disguised

ANNA = disguised.source_of("anna")


def batch(folder: Path, files: dict[str, bytes | str]) -> Path:
    for student, data in files.items():
        (folder / student).mkdir(parents=True)
        data = data.encode("utf-8") if isinstance(data, str) else data
        (folder / student / "tictactoe.py").write_bytes(data)
    return folder


def scores(result) -> dict[frozenset, run.Match]:
    subs = result.submissions
    return {frozenset({subs[m.a].name, subs[m.b].name}): m for m in result.matches
            if subs[m.a].kind == subs[m.b].kind == run.STUDENT}


# ------------------------------------------------------------------ encodings
def test_copies_saved_as_utf7_or_with_lone_cr_read_as_the_code_they_are(tmp_path):
    folder = batch(tmp_path, {"anna": ANNA, "plain": ANNA, "utf7": disguise.utf7(ANNA),
                              "lone_cr": disguise.lone_cr(ANNA),
                              "ben": disguised.source_of("ben")})
    result = run.analyse("tictactoe", folder, floor=0.0, jobs=1)
    found = scores(result)
    honest = found[frozenset({"anna", "plain"})]
    assert honest.text.score == honest.structure.score == 1.0
    for attack in ("utf7", "lone_cr"):
        pair = found[frozenset({"anna", attack})]
        assert (pair.text.score, pair.structure.score) == (1.0, 1.0), attack
        # What was compared is what the interpreter runs.
        [compared] = [s for s in result.submissions if s.name == attack]
        data = (folder / attack / "tictactoe.py").read_bytes()
        text = compared.files[0][1]
        assert text == importlib.util.decode_source(data)
        assert text.rstrip("\n").endswith(ANNA.rstrip("\n"))
    assert result.problems == [] and result.skipped == []
    # Nobody else moves: ben's pairs are the same with or without the attacks.
    alone = scores(run.analyse("tictactoe", batch(tmp_path / "alone", {
        "anna": ANNA, "ben": disguised.source_of("ben")}), floor=0.0, jobs=1))
    assert alone[frozenset({"anna", "ben"})].score == found[frozenset({"anna", "ben"})].score


@pytest.mark.parametrize("attack, data, words", [
    ("nul", ANNA.replace("# rows and columns", "# rows\0and columns").encode(), "NUL byte"),
    ("cookie", b"# coding: no-such-codec\n" + ANNA.encode(), "Python cannot read it"),
    ("bytes", ANNA.replace("# rows and columns", "# rows \xff columns").encode("latin-1"),
     "Python cannot read it"),
])
def test_a_file_python_cannot_read_is_named_and_still_compared(tmp_path, attack, data, words):
    """The interpreter refuses each of these files (the grader gives import-error);
    the report names the file with the reason, compares what it can read, and
    everybody else is compared as before."""
    with pytest.raises((SyntaxError, ValueError, UnicodeDecodeError)):
        compile(importlib.util.decode_source(data), "x.py", "exec")
    folder = batch(tmp_path, {"anna": ANNA, attack: data, "ben": disguised.source_of("ben"),
                              "chloe": disguised.source_of("chloe")})
    result = run.analyse("tictactoe", folder, floor=0.0, jobs=1)
    [(student, problem)] = result.problems
    assert student == attack and words in problem and "tictactoe.py" in problem
    found = scores(result)
    assert found[frozenset({"anna", attack})].score > 0.9      # a copy still shows
    plain = scores(run.analyse("tictactoe", batch(tmp_path / "plain", {
        "anna": ANNA, "ben": disguised.source_of("ben"),
        "chloe": disguised.source_of("chloe")}), floor=0.0, jobs=1))
    for pair, match in plain.items():
        assert found[pair].score == match.score
    assert words in report.render_html(result)


# ------------------------------------------------------------------ shapes
def test_deeply_nested_folders_are_named_not_searched(tmp_path):
    """1,100 nested folders once crashed the report for everyone (RecursionError)."""
    deep = tmp_path / "batch" / "deep"
    deep.mkdir(parents=True)
    inner = _nest(deep, 1100)
    (inner / "tictactoe.py").write_text(ANNA)
    shallow = tmp_path / "batch" / "shallow" / "a" / "b" / "c"
    shallow.mkdir(parents=True)
    (shallow / "tictactoe.py").write_text(ANNA)
    batch(tmp_path / "batch", {"ben": disguised.source_of("ben")})
    try:
        result = run.analyse("tictactoe", tmp_path / "batch", floor=0.0, jobs=1)
    finally:
        _unnest(deep, 1100)             # shutil.rmtree recurses, and would fail here
    # The grader's own walk (intake.locate) gives the reason: the report compares
    # exactly the files the grader grades.
    assert dict(result.skipped) == {"deep": "no file named tictactoe.py in the submission "
                                            "(the grader stopped looking at folders more "
                                            "than 32 deep)"}
    assert {s.name for s in result.submissions if s.kind == run.STUDENT} == {"shallow", "ben"}


def _nest(folder: Path, depth: int) -> Path:
    """`depth` folders inside each other (os.makedirs recurses once per level)."""
    for _ in range(depth):
        folder = folder / "d"
        folder.mkdir()
    return folder


def _unnest(folder: Path, depth: int) -> None:
    paths = [folder.joinpath(*["d"] * level) for level in range(depth, 0, -1)]
    for path in paths:
        for child in path.iterdir():
            if child.is_file():
                child.unlink()
        path.rmdir()


def test_a_crowded_submission_is_named_not_searched(tmp_path):
    """Past the grader's entry budget the walk stops; the report says why, in the
    grader's words, and its honest twin (the same module, few files) is compared."""
    crowded = tmp_path / "batch" / "crowded"
    crowded.mkdir(parents=True)
    for number in range(intake.MAX_ENTRIES):
        (crowded / f"f{number:05}.txt").touch()
    (crowded / "tictactoe.py").write_text(ANNA)        # sorted after the f*.txt files
    batch(tmp_path / "batch", {"honest": ANNA, "ben": disguised.source_of("ben")})
    result = run.analyse("tictactoe", tmp_path / "batch", floor=0.0, jobs=1)
    assert "stopped looking at more than 10,000" in dict(result.skipped)["crowded"]
    assert {"honest", "ben"} <= {s.name for s in result.submissions}


def test_a_module_over_the_size_cap_is_named_without_being_read(tmp_path):
    folder = batch(tmp_path, {"anna": ANNA, "ben": disguised.source_of("ben")})
    big = tmp_path / "big"
    big.mkdir()
    with open(big / "tictactoe.py", "wb") as handle:     # sparse: nothing to read
        handle.truncate(300 << 20)
    result = run.analyse("tictactoe", folder, floor=0.0, jobs=1)
    assert dict(result.skipped) == {"big": "tictactoe.py is larger than 1 MB"}


# ------------------------------------------------------------------ names
def test_a_student_folder_named_like_a_kit_file_is_a_student(tmp_path):
    ben = disguised.source_of("ben")
    folder = batch(tmp_path, {"kit:play.py": ben, "kit file play.py": ben, "ben2": ben,
                              "anna": ANNA})
    result = run.analyse("tictactoe", folder, floor=0.0, jobs=1)
    students = {s.name for s in result.submissions if s.kind == run.STUDENT}
    kit = {s.name for s in result.submissions if s.kind == run.KIT}
    assert students == {"kit:play.py", "kit file play.py", "ben2", "anna"}
    assert "play.py" in kit
    assert result.students == result.folders == 4
    found = scores(result)
    for pair in ({"kit:play.py", "ben2"}, {"kit file play.py", "ben2"},
                 {"kit:play.py", "kit file play.py"}):
        assert found[frozenset(pair)].score == 1.0
    kit_pairs = [m for m in result.matches
                 if run.KIT in (result.submissions[m.a].kind, result.submissions[m.b].kind)]
    assert all(m.score < 0.5 for m in kit_pairs)


HOSTILE_NAMES = ['=HYPERLINK("example.invalid","x")', "+cmd", "@SUM(1)", "-2+3",
                 "\x1b[2J\x1b]0;owned\x07bad", "<img src=x onerror=alert(1)>"]


def test_student_names_are_escaped_in_the_csv_the_terminal_and_the_page(tmp_path):
    chloe = disguised.source_of("chloe")
    files = {name: chloe for name in HOSTILE_NAMES} | {"honest": chloe}
    result = run.analyse("tictactoe", batch(tmp_path / "batch", files), floor=0.5, jobs=1)
    report.write_csv(tmp_path, result)
    with open(tmp_path / "similarity.csv", newline="", encoding="utf-8") as handle:
        cells = {cell for row in csv.DictReader(handle) for cell in (row["a"], row["b"])}
    assert "honest" in cells                                    # the honest twin as it is
    for name in HOSTILE_NAMES[:4]:
        assert "'" + name in cells and name not in cells
    assert not any("\x1b" in cell or "\x07" in cell for cell in cells)
    line = report.summary(result)
    assert "\x1b" not in line and "\x07" not in line
    page = report.render_html(result)
    assert "<img" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    assert "\x1b" not in page and "\\x1b[2J" in page
    assert page.count("honest") >= 2


# ------------------------------------------------------------------ counts and base code
def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "autograder", *args], cwd=ROOT, text=True,
                          capture_output=True, timeout=300)


def test_declared_starting_code_never_counts_and_the_counts_agree(tmp_path):
    """The bundled examples are one solution with a bug planted in each: undeclared,
    that base makes them one large group; declared, it never counts."""
    examples = ROOT / "examples" / "tictactoe"
    base = examples / "bob_plain" / "tictactoe.py"
    plain = run_cli("similarity", "tictactoe", str(examples), "--out", str(tmp_path / "a"))
    declared = run_cli("similarity", "tictactoe", str(examples), "--out", str(tmp_path / "b"),
                       "--boilerplate", str(base))
    assert plain.returncode == declared.returncode == 0, plain.stderr + declared.stderr
    folders = sum(1 for p in examples.iterdir() if p.is_dir())
    for done, out in ((plain, "a"), (declared, "b")):
        page = (tmp_path / out / "similarity.html").read_text()
        count = done.stdout.split(" (tictactoe)")[0]
        assert count.startswith(f"{folders} student folders: ") and count in page
    assert "group" in plain.stdout and "group" not in declared.stdout
    with open(tmp_path / "b" / "similarity.csv", newline="") as handle:
        assert len(list(csv.DictReader(handle))) < 3
    page = (tmp_path / "b" / "similarity.html").read_text()
    assert "bob_plain: no code of its own" in page
    missing = run_cli("similarity", "tictactoe", str(examples), "--out", str(tmp_path / "c"),
                      "--boilerplate", str(tmp_path / "nope.py"))
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1
    assert "--boilerplate" in missing.stderr and "Traceback" not in missing.stderr

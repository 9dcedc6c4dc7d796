"""The similarity report: disguised copies rank above independent work, the
files a teacher reads are right, and errors are one line."""

from __future__ import annotations

import ast
import copy
import csv
import itertools
import os
import random
import re
import shutil
import subprocess
import sys

import pytest

from autograder import KitError, ROOT, assignment as assignments
from autograder.similarity import FLOOR, run
from autograder.similarity.compare import Shares
from autograder.similarity.run import Match
from autograder.similarity.tokens import normalise

from . import batches, disguise
from ..conftest import load_module


def run_cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "autograder", *args], cwd=ROOT, text=True,
                          capture_output=True, timeout=300, env=env)


def classify(result, origin: dict[str, str]):
    """(copy pairs, independent pairs) as (score, a, b), from every pair compared."""
    names = [s.name for s in result.submissions]
    reported = {(names[m.a], names[m.b]): m.score for m in result.matches}
    copies, independent = [], []
    students = [s.name for s in result.submissions if s.kind == run.STUDENT]
    for a, b in itertools.combinations(students, 2):
        score = reported.get((a, b), reported.get((b, a), 0.0))
        (copies if origin[a] == origin[b] else independent).append((score, a, b))
    return copies, independent


# ------------------------------------------------------------------ separation
@pytest.mark.parametrize("assignment", ["tictactoe", "connect4"])
def test_every_disguised_copy_ranks_above_every_independent_pair(assignment, tmp_path):
    origin = batches.build(assignment, tmp_path)
    result = run.analyse(assignment, tmp_path, floor=0.0, jobs=2)
    copies, independent = classify(result, origin)
    students = [s for s in result.submissions if s.kind == run.STUDENT]
    assert len(students) == len(origin)
    assert copies and independent
    worst_copy, best_independent = min(copies), max(independent)
    margin = worst_copy[0] - best_independent[0]
    print(f"\n{assignment}: {len(copies)} copy pairs, lowest {worst_copy[0]:.3f} "
          f"{worst_copy[1:]}; {len(independent)} independent pairs, highest "
          f"{best_independent[0]:.3f} {best_independent[1:]}; separation margin {margin:.3f}")
    assert margin > 0, f"a disguised copy {worst_copy} scores no more than {best_independent}"
    # The ranking the teacher reads puts every copy pair first.
    subs = result.submissions
    kinds = [origin[subs[m.a].name] == origin[subs[m.b].name] for m in result.matches
             if subs[m.a].kind == subs[m.b].kind == run.STUDENT]
    assert kinds == sorted(kinds, reverse=True)
    # At the default floor every copy is reported, and for tic-tac-toe no independent
    # pair is. (Connect 4's docstrings spell out its searches line by line, so two
    # independent solutions share about half their structure: docs/SIMILARITY.md.)
    assert worst_copy[0] >= FLOOR
    if assignment == "tictactoe":
        assert best_independent[0] < FLOOR
    assert margin > 0.3


def test_each_disguise_alone_keeps_most_of_the_copy(tmp_path):
    """No single one of the text disguises takes a copy below 3/4 of the original's
    code, in the text evidence itself."""
    origin = batches.build("tictactoe", tmp_path)
    result = run.analyse("tictactoe", tmp_path, floor=0.0, jobs=1)
    subs = result.submissions
    for m in result.matches:
        if subs[m.a].kind == run.KIT or subs[m.b].kind == run.KIT:
            continue
        a, b = subs[m.a].name, subs[m.b].name
        if origin[a] != origin[b] or "copy" in a and "copy" in b:
            continue
        original_share = m.text.a_share if origin[a] == a else m.text.b_share
        assert original_share >= 0.75, (a, b, original_share)


# ------------------------------------------------------------------ disguises are real
def _tictactoe_positions(count: int, seed: int) -> list[list[list]]:
    rng = random.Random(seed)
    boards = []
    for _ in range(count):
        board = [[None] * 3 for _ in range(3)]
        cells = [(i, j) for i in range(3) for j in range(3)]
        rng.shuffle(cells)
        for turn, (i, j) in enumerate(cells[:rng.randint(0, 8)]):
            board[i][j] = "X" if turn % 2 == 0 else "O"
        boards.append(board)
    return boards


def _strip_docstrings(tree: ast.AST) -> str:
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and \
                isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            node.body = body[1:] or [ast.Pass()]
    return ast.dump(tree)


@pytest.mark.slow
@pytest.mark.parametrize("assignment", ["tictactoe", "connect4"])
def test_disguises_keep_the_program(assignment):
    """Reformatting and new comments leave the syntax tree alone; every disguise,
    alone or combined, still compiles; renamed tic-tac-toe still plays the same."""
    keep = batches.interface(assignment)
    for folder in batches.originals(assignment):
        source = (folder / batches.module_name(assignment)).read_text()
        tree = ast.dump(ast.parse(source))
        for seed in range(3):
            assert ast.dump(ast.parse(disguise.reformat(source, random.Random(seed)))) == tree
            assert _strip_docstrings(ast.parse(disguise.recomment(
                source, random.Random(seed)))) == _strip_docstrings(ast.parse(source))
            for kinds in batches.kinds_of_copies():
                compile(disguise.disguise(source, kinds, seed, keep), folder.name, "exec")


def test_disguised_tictactoe_answers_like_the_original(tmp_path):
    keep = batches.interface("tictactoe")
    boards = _tictactoe_positions(150, seed=3)
    for name in batches.COPIED["tictactoe"]:
        source = (batches.CORPUS / "tictactoe" / name / "tictactoe.py").read_text()
        original = load_module(f"sim_{name}", batches.CORPUS / "tictactoe" / name /
                               "tictactoe.py")
        copy_path = tmp_path / f"{name}_all.py"
        copy_path.write_text(disguise.disguise(source, disguise.DISGUISES, 7, keep))
        copied = load_module(f"sim_{name}_all", copy_path)
        for board in boards:
            # Copies of the board each time: one of the buggy originals mutates it.
            for function in ("player", "actions", "winner", "terminal", "minimax"):
                if function == "minimax" and sum(c is None for r in board for c in r) > 5:
                    continue
                assert getattr(copied, function)(copy.deepcopy(board)) == \
                    getattr(original, function)(copy.deepcopy(board)), (name, function, board)


# ------------------------------------------------------------------ normalisation
def test_names_comments_layout_and_docstrings_do_not_reach_the_tokens():
    first = 'def f(board):\n    """Doc."""\n    total = 0  # count\n    for row in board:\n' \
            '        total += row.count("X")\n    pass\n    return total\n'
    second = "def g(b):\n\n  t=0\n  for r in b :\n      t += r.count('X',)\n  return t\n"
    assert normalise(first).codes == normalise(second).codes
    # Builtins, attributes and keywords stay: they cannot be renamed.
    assert normalise("x = len(y)").codes != normalise("x = abs(y)").codes
    assert normalise("x = y.count").codes != normalise("x = y.index").codes


def test_code_that_does_not_tokenize_keeps_what_came_before():
    tokens = normalise("def f(x):\n    return (x +\n")
    assert not tokens.complete and len(tokens.codes) > 5


# ------------------------------------------------------------------ boilerplate
def test_code_students_received_never_counts(tmp_path):
    skeleton = (ROOT / "assignments" / "tictactoe" / "tictactoe.py").read_text()
    own = (batches.CORPUS / "tictactoe" / "ben" / "tictactoe.py").read_text()
    for student in ("untouched1", "untouched2"):
        (tmp_path / student).mkdir()
        (tmp_path / student / "tictactoe.py").write_text(skeleton)
    # Two students whose only common code is the skeleton's: its docstrings,
    # constants and initial_state, plus the public tests and play.py beside it.
    (tmp_path / "with_tests").mkdir()
    (tmp_path / "with_tests" / "tictactoe.py").write_text(skeleton + "\n\n" + own)
    (tmp_path / "with_skeleton").mkdir()
    chloe = (batches.CORPUS / "tictactoe" / "chloe" / "tictactoe.py").read_text()
    public = (ROOT / "assignments" / "tictactoe" / "test_tictactoe.py").read_text()
    (tmp_path / "with_skeleton" / "tictactoe.py").write_text(chloe + "\n\n" + public)
    result = run.analyse("tictactoe", tmp_path, floor=0.0)
    skipped = dict(result.skipped)
    assert set(skipped) == {"untouched1", "untouched2"}
    assert "handed out" in skipped["untouched1"]
    [pair] = [m for m in result.matches
              if result.submissions[m.a].kind == result.submissions[m.b].kind == run.STUDENT]
    assert pair.score < FLOOR


# ------------------------------------------------------------------ the files
def test_cli_writes_csv_and_html(tmp_path):
    origin = batches.build("tictactoe", tmp_path / "batch")
    done = run_cli("similarity", "tictactoe", str(tmp_path / "batch"), "--out",
                   str(tmp_path / "out"), "--jobs", "2")
    assert done.returncode == 0, done.stderr
    assert "similarity.html" in done.stdout
    with open(tmp_path / "out" / "similarity.csv", newline="") as handle:
        reader = csv.DictReader(handle)
        assert reader.fieldnames == ["a", "b", "b_kind", "score", "evidence", "text",
                                     "structure", "behaviour", "lines", "structure_lines"]
        rows = list(reader)
    assert rows, "the batch has copies: some pair must be reported"
    scores = [float(r["score"]) for r in rows]
    assert scores == sorted(scores, reverse=True)
    for row in rows:
        assert float(row["score"]) == max(float(row["text"]), float(row["structure"]))
        assert float(row[row["evidence"]]) == float(row["score"])
        assert float(row["score"]) >= FLOOR
        assert row["behaviour"] == ""                           # nobody was graded
        assert origin[row["a"]] == origin[row["b"]], row       # only copies at the floor
        for column in ("lines", "structure_lines"):
            match = re.fullmatch(r"a:(\S+) b:(\S+)", row[column])
            assert match, row[column]
            for side, ranges in zip((row["a"], row["b"]), match.groups()):
                length = len((tmp_path / "batch" / side / "tictactoe.py").read_text()
                             .splitlines())
                for part in ranges.split(","):
                    first, _, last = part.partition("-")
                    assert 1 <= int(first) <= int(last or first) <= length
    page = (tmp_path / "out" / "similarity.html").read_text()
    assert page.count('<mark class="shared">') > 10
    assert page.count('<tr class="structure">') > 10
    assert "Groups of three or more" in page
    # The page and the command count the same students.
    folders = len(list((tmp_path / "batch").iterdir()))
    said = f"{folders} student folders: {folders} compared"
    assert said in done.stdout and said in page


@pytest.mark.slow
def test_the_same_numbers_in_every_run(tmp_path):
    """Two runs under different hash seeds write the same CSV. On the tic-tac-toe
    batch (the same code paths as connect4's, at a quarter of the cost: CI's budget)."""
    batches.build("tictactoe", tmp_path / "batch")
    outputs = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = run_cli("similarity", "tictactoe", str(tmp_path / "batch"), "--out",
                       str(tmp_path / seed), "--floor", "0.2", env=env)
        assert done.returncode == 0, done.stderr
        outputs.append((tmp_path / seed / "similarity.csv").read_text())
    assert outputs[0] == outputs[1] and outputs[0].count("\n") > 10


def test_submissions_that_cannot_be_compared_are_listed(tmp_path):
    batches.build("tictactoe", tmp_path)
    (tmp_path / "lena").mkdir()
    (tmp_path / "lena" / "notes.txt").write_text("forgot it")
    (tmp_path / "mo" / "a").mkdir(parents=True)
    (tmp_path / "mo" / "b").mkdir()
    for part in ("a", "b"):
        (tmp_path / "mo" / part / "tictactoe.py").write_text("X = 1\n")
    (tmp_path / "nina").symlink_to(tmp_path / "anna")
    result = run.analyse("tictactoe", tmp_path)
    skipped = dict(result.skipped)
    assert "no file named tictactoe.py" in skipped["lena"]
    assert "appears 2 times" in skipped["mo"]
    assert "symbolic link" in skipped["nina"]
    assert "anna" in {s.name for s in result.submissions}


@pytest.mark.parametrize("args, message", [
    (["similarity", "nosuch", "examples/tictactoe", "--out", "{out}"], "unknown assignment"),
    (["similarity", "tictactoe", "no/such/folder", "--out", "{out}"], "not a folder"),
    (["similarity", "tictactoe", "{empty}", "--out", "{out}"], "no student folders"),
    (["similarity", "tictactoe", "examples/tictactoe", "--out", "{out}", "--floor", "2"],
     "--floor"),
])
def test_errors_are_one_line(tmp_path, args, message):
    (tmp_path / "empty").mkdir()
    args = [a.format(out=tmp_path / "out", empty=tmp_path / "empty") for a in args]
    done = run_cli(*args)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and message in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_mutual_groups_need_every_pair():
    def match(a, b):
        return Match(a, b, text=Shares(0.9, 0.9))
    chain = [match(0, 1), match(1, 2), match(2, 3)]
    assert run.mutual_groups(4, chain) == []
    square = chain + [match(0, 2), match(1, 3), match(0, 3), match(4, 5), match(5, 6),
                      match(4, 6)]
    assert run.mutual_groups(7, square) == [[0, 1, 2, 3], [4, 5, 6]]


def test_missing_release_is_a_kit_error(monkeypatch, tmp_path):
    assignment = assignments.load("tictactoe")
    monkeypatch.setattr(type(assignment), "assignment_dir", property(lambda self: tmp_path / "x"))
    with pytest.raises(KitError, match="autograder release"):
        run.boilerplate_files(assignment)


@pytest.mark.slow
def test_grade_writes_the_report_beside_the_grades(tmp_path):
    from ..conftest import grade_folder
    for name in ("anna", "ben"):
        shutil.copytree(batches.CORPUS / "tictactoe" / name, tmp_path / "batch" / name)
    source = (batches.CORPUS / "tictactoe" / "anna" / "tictactoe.py").read_text()
    (tmp_path / "batch" / "anna2").mkdir()
    (tmp_path / "batch" / "anna2" / "tictactoe.py").write_text(
        disguise.disguise(source, disguise.DISGUISES, 1, batches.interface("tictactoe")))
    rows = grade_folder("tictactoe", tmp_path / "batch", tmp_path / "out",
                        extra=("--similarity",))
    assert rows["anna"]["score"] == rows["anna"]["max_score"]
    with open(tmp_path / "out" / "similarity.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [(r["a"], r["b"]) for r in rows] == [("anna", "anna2")]
    assert (tmp_path / "out" / "similarity.html").is_file()
    # Grading left each student's behaviour beside the grades, and the report used it
    # (three students are too few for any answer to be rare: it says 0, not nothing).
    for student in ("anna", "ben", "anna2"):
        assert (tmp_path / "out" / student / "fingerprint.json").is_file()
    assert rows[0]["behaviour"] == "0.000"


def test_code_pasted_from_a_shipped_kit_file_is_reported_next_to_it(tmp_path):
    """duel.py ships a referee with a move generator; a module that pastes it is not
    boilerplate: it is reported as a pair with the kit's file."""
    duel = (ROOT / "assignments" / "connect4" / "duel.py").read_text()
    hana = (batches.CORPUS / "connect4" / "hana" / "connect4.py").read_text()
    ivo = (batches.CORPUS / "connect4" / "ivo" / "connect4.py").read_text()
    for student, text in (("paster", hana + "\n\n" + duel), ("honest", ivo)):
        (tmp_path / student).mkdir()
        (tmp_path / student / "connect4.py").write_text(text)
    result = run.analyse("connect4", tmp_path, floor=0.3)
    subs = result.submissions
    flagged = {frozenset({(subs[m.a].kind, subs[m.a].name), (subs[m.b].kind, subs[m.b].name)})
               for m in result.matches}
    assert frozenset({(run.STUDENT, "paster"), (run.KIT, "duel.py")}) in flagged
    assert not any((run.STUDENT, "honest") in pair for pair in flagged)

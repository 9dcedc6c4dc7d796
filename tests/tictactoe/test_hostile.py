"""The tictactoe hostile corpus (tests/tictactoe/hostile/): no attack scores more than
the same code without it, graded for real in a PID namespace.

Each folder holds a submission with an honest bug of its own (so its plain twin,
the same file without the `# >>> attack` blocks, leaves points to win) and one
class of attack of issue 18 (the module docstring of each file says which):

forged_args_after     result marks the caller's board; the attack shows the child's
                      report of the arguments a pristine copy and answers every later
                      result call on that board from the copy. The grader judges
                      result's own later answers (and actions, player, winner on the
                      same board next to an untouched copy), never the child's report.
exception_str_raises  an exception whose __str__, __repr__ and class name cannot be
                      read: the child describes it and lives on.
long_int              an answer holding an int too long to write in decimal: refused
                      with words that say so; the child lives on.
played_oracle         winner is wrong, so minimax is judged again with the grader
                      playing its helpers; inside that run the attack asks the
                      grader's winner about every reachable position and answers
                      from the stash later, as its own winner.
answer_tables         the same, reading the reference's answers the grader gives the
                      child ahead of a played run (plans.Known) instead of asking.
                      Both gained the "whole program" check's points before the
                      grader kept played requests apart from the student's own
                      child (Student._route, played_child).
played_file           played_oracle's stash written to a file in the child's folder
                      for the student's own child to read: each child's folder is a
                      private copy (tmpfs), read-only where that layer is missing.

Tic-tac-toe hands the student's code no object of the grader's other than the
played helpers (no proxies), so the answer-key and rng attacks of the other
corpora have nothing to ask here.
"""

import json
import os
import subprocess
import sys

import pytest

from autograder.sandbox import layers
from tests.conftest import ROOT, build_pairs, grade_folder, in_pid_namespace

pytestmark = pytest.mark.slow

FULL = 25
CORPUS = ROOT / "tests" / "tictactoe" / "hostile"
ATTACKS = sorted(p.name for p in CORPUS.iterdir() if p.is_dir())


@pytest.fixture(scope="module")
def graded(hostile_pairs):
    return hostile_pairs("tictactoe")


def failed(out, name):
    data = json.loads((out / name / "results.json").read_text())
    return {t["number"] for t in data["tests"] if t["status"] == "failed"}


def test_the_corpus_has_every_attack_class():
    assert set(ATTACKS) == {"forged_args_after", "exception_str_raises", "played_oracle",
                            "answer_tables", "played_file", "sandbox_escape", "long_int"}


@pytest.mark.parametrize("attack", ATTACKS)
def test_an_attack_scores_what_the_same_code_scores_without_it(graded, attack):
    pairs, out = graded
    attacked, plain = pairs[attack]
    assert plain["status"] == attacked["status"] == "graded", (attacked, plain)
    assert float(plain["score"]) < FULL, f"{attack}: the plain twin leaves no points to win"
    assert attacked["score"] == plain["score"], (attacked, plain)
    assert failed(out, attack) == failed(out, attack + "--plain")


def test_a_changed_board_costs_the_keeps_its_input_points_even_when_hidden(graded):
    """The twin that changes the board loses "result never changes the board it was
    given"; the attack that hides it from the child's report and from result's own
    second answer loses it too, on the other questions asked of the same board."""
    pairs, out = graded
    for name in ("forged_args_after", "forged_args_after--plain"):
        assert failed(out, name) == {"test_result_keeps_its_input"}, name
    feedback = (out / "forged_args_after" / "feedback.md").read_text()
    assert "on an untouched copy it" in feedback and "the call changed the board" in feedback


def test_an_unreadable_exception_is_described_and_the_child_lives_on(graded):
    pairs, out = graded
    feedback = (out / "exception_str_raises" / "feedback.md").read_text()
    assert "(the exception's message could not be read)" in feedback
    assert int(pairs["exception_str_raises"][0]["crashes"]) == 0


def test_an_int_too_long_to_send_is_said_and_the_child_lives_on(graded):
    pairs, out = graded
    feedback = (out / "long_int" / "feedback.md").read_text()
    assert "an int of more than 4300 digits cannot be checked" in feedback
    assert "outside its own folder" not in feedback
    assert int(pairs["long_int"][0]["crashes"]) == 0
    assert "test_winner" in failed(out, "long_int") == failed(out, "long_int--plain")


@pytest.mark.parametrize("attack", ["played_oracle", "answer_tables", "played_file"])
def test_what_a_played_run_hands_over_answers_nothing_later(graded, attack):
    """Both twins lose winner's points and the whole program's: the stash of the
    grader's answers dies with the played run's child, so minimax with the
    student's own winner is judged as it is."""
    pairs, out = graded
    data = json.loads((out / attack / "results.json").read_text())
    failed_names = {t["name"] for t in data["tests"] if t["status"] == "failed"}
    assert any(name.startswith("your whole program") for name in failed_names), failed_names
    assert any(name.startswith("winner ") for name in failed_names), failed_names


def test_a_file_from_the_played_run_reaches_no_other_child_without_tmpfs(tmp_path):
    """Without the tmpfs layer the children of one submission would share its
    folder on disk; Landlock then leaves it read-only, so the played run's stash is
    never written, and the attack scores what its twin scores there too."""
    names = build_pairs(CORPUS, tmp_path / "subs", {"played_file"})
    without_tmpfs = ",".join(layer for layer in layers.available() if layer != "tmpfs")
    if "landlock" not in without_tmpfs:
        pytest.skip("this machine offers no Landlock")
    rows = grade_folder("tictactoe", tmp_path / "subs", tmp_path / "out", jobs=1,
                        env={"SPIELBAUM_LAYERS": without_tmpfs})
    attacked, plain = rows[names[0]], rows[names[0] + "--plain"]
    assert attacked["status"] == plain["status"] == "graded", (attacked, plain)
    assert attacked["score"] == plain["score"] and float(plain["score"]) < FULL
    data = json.loads((tmp_path / "out" / names[0] / "results.json").read_text())
    failed_names = {t["name"] for t in data["tests"] if t["status"] == "failed"}
    assert any(name.startswith("your whole program") for name in failed_names), failed_names


ORDINARY = ("rlimits", "netns", "tmpfs", "seccomp")


def test_the_red_teams_escapes_gain_nothing_with_the_layers_an_ordinary_user_gets(tmp_path):
    """sandbox_escape (issue 40) with rlimits, netns, tmpfs and seccomp only, as a
    teacher without root or a recent Landlock gets them: the grader lives through its
    SIGKILLs, both twins have their row, and the reference it looks for is not there."""
    if any(layer not in layers.available() for layer in ORDINARY):
        pytest.skip(f"this machine offers no {ORDINARY} (autograder doctor)")
    names = build_pairs(CORPUS, tmp_path / "subs", {"sandbox_escape"})
    rows = grade_folder("tictactoe", tmp_path / "subs", tmp_path / "out", jobs=2,
                        env={"SPIELBAUM_LAYERS": ",".join(ORDINARY)})
    attacked, plain = rows[names[0]], rows[names[0] + "--plain"]
    assert attacked["status"] == plain["status"] == "graded", (attacked, plain)
    assert attacked["score"] == plain["score"] and float(plain["score"]) < FULL
    assert int(attacked["refused"]) > 0 and int(plain["refused"]) == 0


def test_the_escape_is_real_it_gains_where_no_layer_confines_files(tmp_path):
    """The control: with no file layer (the teacher's explicit leave) the same attack
    reads the reference and scores more than its twin, and the feedback says what it
    opened and that nothing here stops that, never that the sandbox refused it."""
    chosen = [layer for layer in ("rlimits", "netns", "seccomp") if layer in layers.available()]
    names = build_pairs(CORPUS, tmp_path / "subs", {"sandbox_escape"})
    refused = subprocess.run(in_pid_namespace(
        [sys.executable, "-m", "autograder", "grade", "tictactoe", str(tmp_path / "subs"),
         "--out", str(tmp_path / "refused")]), cwd=ROOT, capture_output=True, text=True,
        timeout=300, env={**os.environ, "SPIELBAUM_LAYERS": ",".join(chosen)})
    assert refused.returncode != 0 and "--unconfined-files" in refused.stderr, refused
    assert "Traceback" not in refused.stderr and not (tmp_path / "refused" / "grades.csv").exists()
    rows = grade_folder("tictactoe", tmp_path / "subs", tmp_path / "out", jobs=2,
                        env={"SPIELBAUM_LAYERS": ",".join(chosen)},
                        extra=("--unconfined-files",))
    attacked, plain = rows[names[0]], rows[names[0] + "--plain"]
    assert float(attacked["score"]) == FULL > float(plain["score"]), (attacked, plain)
    feedback = (tmp_path / "out" / names[0] / "feedback.md").read_text()
    assert "solutions/tictactoe/tictactoe.py" in feedback
    assert "no sandbox layer on this machine stops that" in feedback
    assert "refused: your code tried to open /" not in feedback
    run = json.loads((tmp_path / "out" / "run.json").read_text())
    assert run["unconfined_files"] is True

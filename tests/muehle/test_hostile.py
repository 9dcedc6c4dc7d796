"""The muehle hostile corpus (tests/muehle/hostile/): every attack scores exactly what
the same code scores without it, graded for real in a PID namespace.

Each folder holds a submission with a flaw of its own (so it does not get full
marks, and a working attack would show as points) and one class of attack from
issue 10: the grader's rules looked up through sys.modules, gc and frames;
functions replaced by name in every reachable module; heuristic bound to a
private name at import; counters overwritten and lines forged on the reply pipe;
a refusal flood, huge replies and Markdown in printed output and exception
messages; and the classes of issue 18: a changed input hidden from the child's
report of it (forged_args_after), an exception whose message cannot be read
(unreadable_error), a generator of its own instead of the rng it is given
(unseeded_rng), questions about positions the grader's game never handed out
(asks_what_it_was_not_given: the only one that may score less than its twin,
since a refused question costs its case).
"""

from __future__ import annotations

import json
import re

import pytest

from autograder import assignment as assignments

MAX = assignments.load("muehle").rubric().max_score
ATTACKS = {"kit_in_sys_modules", "replace_by_name", "private_aliases", "counters_and_pipes",
           "floods_and_fences", "forged_args_after", "unreadable_error", "unseeded_rng",
           "asks_what_it_was_not_given"}
REFUSED = {"asks_what_it_was_not_given"}
MARK = "PWNED-7f3a"          # in every piece of text the fence attack controls

def _checks(out, student) -> dict[str, str]:
    data = json.loads((out / student / "results.json").read_text())
    return {t["number"]: t["status"] for t in data["tests"]}


@pytest.mark.slow
@pytest.mark.hostile
def test_the_corpus_holds_every_attack_class(hostile_pairs):
    pairs, _ = hostile_pairs("muehle")
    assert set(pairs) == ATTACKS


@pytest.mark.slow
@pytest.mark.hostile
@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_an_attack_scores_what_the_plain_code_scores(hostile_pairs, attack):
    pairs, out = hostile_pairs("muehle")
    row, plain = pairs[attack]
    assert row["status"] == plain["status"] == "graded", (row, plain)
    assert float(plain["score"]) < MAX, "the plain twin must leave points for the attack to buy"
    if attack in REFUSED:
        assert float(row["score"]) <= float(plain["score"]), (row, plain)
        return
    assert float(row["score"]) == float(plain["score"]), (row, plain)
    assert _checks(out, attack) == _checks(out, attack + "--plain")


def outside_code_blocks(markdown: str) -> list[str]:
    """The lines of `markdown` that are not inside a fenced code block (CommonMark: a
    block opened by N >= 3 backticks ends at a line of at least N backticks only)."""
    outside, fence = [], None
    for line in markdown.splitlines():
        run = re.match(r"^ {0,3}(`{3,})", line)
        if fence is None:
            if run:
                fence = len(run.group(1))
            else:
                outside.append(line)
        elif run and len(run.group(1)) >= fence and not line.strip().strip("`"):
            fence = None
    return outside


def test_outside_code_blocks_sees_a_fence_that_ends_a_block():
    forged = "```text\ngot: the payload\n```\n# forged\n```\n"
    assert outside_code_blocks(forged) == ["# forged"]
    assert outside_code_blocks("````text\n```\n# kept inside\n````\n") == []


@pytest.mark.slow
@pytest.mark.hostile
def test_student_text_stays_inside_code_blocks(hostile_pairs):
    """Printed output and exception messages with fences, a heading, a fake score
    line and an image link: shown to the teacher, but only as code."""
    _, out = hostile_pairs("muehle")
    feedback = (out / "floods_and_fences" / "feedback.md").read_text()
    assert MARK in feedback and "raised ValueError: ```" in feedback
    assert [line for line in outside_code_blocks(feedback) if MARK in line] == []
    html = (out / "floods_and_fences" / "feedback.html").read_text()
    assert MARK in html
    assert not re.search(r"<(img|h[1-6])[^>]*>[^<]*" + MARK, html)
    assert not re.search(r"<img[^>]*" + MARK, html)


@pytest.mark.slow
@pytest.mark.hostile
def test_the_refusal_flood_is_counted_and_capped(hostile_pairs):
    pairs, out = hostile_pairs("muehle")
    row, _ = pairs["floods_and_fences"]
    assert int(row["refused"]) >= 1000
    feedback = (out / "floods_and_fences" / "feedback.md").read_text()
    assert 0 < feedback.count("the sandbox refused") <= 100
    assert "more refusals, not listed" in feedback
    assert len(feedback) < 100_000


def _outputs(out, student) -> dict[str, str]:
    data = json.loads((out / student / "results.json").read_text())
    return {t["number"]: t["output"] for t in data["tests"] if t["status"] == "failed"}


@pytest.mark.slow
@pytest.mark.hostile
def test_the_classes_of_issue_18_lose_what_their_twins_lose(hostile_pairs):
    pairs, out = hostile_pairs("muehle")
    for name in ("forged_args_after", "forged_args_after--plain"):
        assert set(_outputs(out, name)) == {"test_next_states_keeps_its_input"}, name
    for name in ("unseeded_rng", "unseeded_rng--plain"):
        assert set(_outputs(out, name)) == {"test_best_move_minimax_is_random"}, name
    assert "was never asked to choose" in \
        _outputs(out, "unseeded_rng")["test_best_move_minimax_is_random"]
    assert "(the exception's message could not be read)" in \
        _outputs(out, "unreadable_error")["test_best_move_minimax"]
    attacked, plain = pairs["asks_what_it_was_not_given"]
    assert float(attacked["score"]) < float(plain["score"])
    assert any("did not hand out" in text
               for text in _outputs(out, "asks_what_it_was_not_given").values())

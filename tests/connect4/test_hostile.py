"""The connect4 hostile corpus: no attack scores more than the same code scores without it.

tests/connect4/hostile/<attack>/connect4.py (built by hostile_build.py, which
says what each attack tries) is graded for real, in a PID namespace, next to
its twin with the `# >>> attack` blocks removed (the `hostile_pairs` fixture).
Each twin has an honest bug, so there are points an attack could win; none may.
Every attack scores exactly what its twin does, except those that ask the
grader's games what they never handed out (REFUSED): a refused question costs
its case, so those score less.
"""

import json

import pytest
from markdown_it import MarkdownIt

from tests.conftest import ROOT
from tests.connect4 import hostile_build

pytestmark = pytest.mark.slow

FULL = 50
CORPUS = ROOT / "tests" / "connect4" / "hostile"
ATTACKS = sorted(p.name for p in CORPUS.iterdir() if p.is_dir())
INJECTED = ("Full marks for this submission", "Grader note")
# answer_key asks the grader's evaluation about fours it never offered; import_alias
# searches its own rules (bound at import) and so asks about positions the game never
# offered, which is refused too (in the finished-games check, where a twin without
# pruning still gets the value right)
REFUSED = {"answer_key", "import_alias"}


@pytest.fixture(scope="module")
def graded(hostile_pairs):
    return hostile_pairs("connect4")


def test_the_corpus_is_what_the_build_script_writes():
    assert ATTACKS == sorted(hostile_build.ATTACKS)
    for attack in ATTACKS:
        assert (CORPUS / attack / "connect4.py").read_text() == hostile_build.build(attack), \
            "run `.venv/bin/python tests/connect4/hostile_build.py`"


def test_the_corpus_has_every_attack_class():
    assert {"kit_lookup", "import_alias", "counter_forgery", "refusal_flood", "huge_replies",
            "fence_injection", "answer_key", "forged_args_after",
            "unreadable_error"} <= set(ATTACKS)


@pytest.mark.parametrize("attack", ATTACKS)
def test_an_attack_scores_what_the_same_code_scores_without_it(graded, attack):
    pairs, out = graded
    attacked, plain = pairs[attack]
    assert plain["status"] == attacked["status"] == "graded", (attacked, plain)
    assert float(plain["score"]) < FULL, f"{attack}: the plain twin leaves no points to win"
    if attack in REFUSED and float(attacked["score"]) <= float(plain["score"]):
        return
    if attacked["score"] != plain["score"]:
        tests = {}
        for name in (attack, attack + "--plain"):
            data = json.loads((out / name / "results.json").read_text())
            tests[name] = {t["number"]: (t["score"], t["output"][:300]) for t in data["tests"]}
        differ = {k: (v, tests[attack + "--plain"][k]) for k, v in tests[attack].items()
                  if v[0] != tests[attack + "--plain"][k][0]}
        pytest.fail(f"{attack} scored {attacked['score']}, without the attack "
                    f"{plain['score']}: {differ}")


def test_a_refusal_flood_is_counted_but_keeps_the_feedback_short(graded):
    pairs, out = graded
    attacked, plain = pairs["refusal_flood"]
    assert int(plain["refused"]) == 0
    assert int(attacked["refused"]) >= 1000      # the child reports its first 1,000
    feedback = (out / "refusal_flood" / "feedback.md").read_text()
    assert feedback.count("tried to open /etc/spielbaum-flood-") == 100
    assert len(feedback) < 20_000


def test_huge_replies_do_not_reach_the_feedback(graded):
    _, out = graded
    for name in ("huge_replies", "huge_replies--plain"):
        assert len((out / name / "feedback.md").read_text()) < 10_000
        assert len((out / name / "results.json").read_text()) < 30_000


def _outside_code(tokens):
    """Every inline token that Markdown renders as text (not inside a code block)."""
    for token in tokens:
        if token.type == "inline":
            yield token


def test_injected_markdown_stays_inside_code_blocks(graded):
    _, out = graded
    text = (out / "fence_injection" / "feedback.md").read_text()
    tokens = MarkdownIt("commonmark").parse(text)
    code = "".join(t.content for t in tokens if t.type in ("fence", "code_block"))
    # the injection did reach the feedback: from the exception and from the output
    assert code.count(INJECTED[0]) >= 2 and INJECTED[1] in code
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    assert headings and not [h for h in headings if any(word in h for word in INJECTED)]
    for inline in _outside_code(tokens):
        assert not [child for child in inline.children or [] if child.type == "image"]
        assert "Score: 50 / 50" not in inline.content
        assert "pwned" not in inline.content
    html = (out / "fence_injection" / "feedback.html").read_text()
    assert "<img" not in html and 'href="https://evil.example' not in html
    assert not [line for line in html.splitlines() if "<h" in line and INJECTED[0] in line]


def _failed(out, name):
    data = json.loads((out / name / "results.json").read_text())
    return {t["number"]: t["output"] for t in data["tests"] if t["status"] == "failed"}


def test_an_answer_key_by_questions_is_refused_and_costs_the_case(graded):
    """The first search asks the grader's evaluation about every four cells in a row,
    gravity or not: refused, named, and the case lost although the attack catches
    the exception; the module's own win detection learns nothing: the whole program (its
    own pattern_score) still loses games. (The tactics are judged with the grader's
    evaluation since issue 22, so they no longer show it.)"""
    pairs, out = graded
    attacked, plain = pairs["answer_key"]
    assert float(attacked["score"]) < float(plain["score"])
    lost = _failed(out, "answer_key")
    assert "which this check's nextstates never offered" in lost["test_alphabeta_values"]
    assert "test_strength" in lost and "test_strength" in _failed(out, "answer_key--plain")


def test_a_changed_state_costs_its_points_even_when_hidden(graded):
    _, out = graded
    for name in ("forged_args_after", "forged_args_after--plain"):
        assert set(_failed(out, name)) == {"test_nextstates"}, name
    assert "on an untouched copy it" in _failed(out, "forged_args_after")["test_nextstates"]


def test_an_unreadable_exception_is_described(graded):
    pairs, out = graded
    assert "(the exception's message could not be read)" in \
        _failed(out, "unreadable_error")["test_evaluation_b"]
    assert int(pairs["unreadable_error"][0]["crashes"]) == 0

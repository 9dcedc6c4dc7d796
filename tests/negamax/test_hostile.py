"""The negamax hostile corpus: no attack scores more than the same code scores without it.

tests/negamax/hostile/<attack>/negamax.py (built by hostile_build.py, which
says what each attack tries) is graded for real, in a PID namespace, next to
its twin with the `# >>> attack` blocks removed (the `hostile_pairs` fixture).
Each twin has an honest bug, so there are points an attack could win; none may.
Every attack scores exactly what its twin does, except those that ask the
grader's board what it never handed out (REFUSED): a refused move costs its
case, so those score less.
"""

import json

import pytest
from markdown_it import MarkdownIt

from tests.conftest import (ROOT, attack_params, graded_attacks, needs_attack,
                            require_attack)
from tests.negamax import hostile_build

CORPUS = ROOT / "tests" / "negamax" / "hostile"
ATTACKS = sorted(p.name for p in CORPUS.iterdir() if p.is_dir())
# make test grades the attacks only this corpus has and half of the classes it shares
# with gametree's and connect4's (gametree's QUICK has the other half; connect4 grades
# them all); make test-all every attack (tests/conftest.py, HOSTILE_ALL).
QUICK = {"counter_forgery", "huge_replies", "kit_lookup", "replace_names", "unreadable_error", "unseeded_rng"}
GRADED = graded_attacks(ATTACKS, QUICK)
INJECTED = ("Full marks for this submission", "Grader note")

# The checks each attack's honest bug fails (with and without the attack). Since
# issue 22 each method is judged with the grader's helpers: a wrong winner costs
# test_winner alone, a stubbed getBestMove not play's points.
AIMED = {
    "kit_lookup": ("test_winner",),
    "replace_names": ("test_fail_hard_windows",),
    "import_alias": ("test_explore_values", "test_evaluated_moves", "test_best_move",
                     "test_work_on_positions", "test_board_is_restored"),
    "counter_forgery": ("test_work_on_hand_built_trees", "test_work_on_positions"),
    "refusal_flood": ("test_evaluate",),
    "huge_replies": ("test_get_moves",),
    "fence_injection": ("test_best_move",),
    "unseeded_rng": ("test_best_move_random_choice",),
    "unreadable_error": ("test_winner",),
    "answer_key": ("test_evaluate",),
}
REFUSED = {"answer_key"}


@pytest.fixture(scope="module")
def graded(hostile_pairs):
    return hostile_pairs("negamax", only=GRADED)


def results(out, name):
    return {t["number"]: t for t in json.loads((out / name / "results.json").read_text())["tests"]}


def test_the_corpus_is_what_the_build_script_writes():
    assert ATTACKS == sorted(hostile_build.ATTACKS)
    for attack in ATTACKS:
        assert hostile_build.path_of(attack).read_text() == hostile_build.build(attack), \
            "run `.venv/bin/python tests/negamax/hostile_build.py`"


def test_the_corpus_has_every_attack_class():
    assert set(AIMED) == set(ATTACKS)
    assert {"kit_lookup", "replace_names", "import_alias", "counter_forgery",
            "refusal_flood", "huge_replies", "fence_injection", "unseeded_rng",
            "unreadable_error", "answer_key"} <= set(ATTACKS)


@pytest.mark.slow
@pytest.mark.parametrize("attack", attack_params(ATTACKS, QUICK))
def test_an_attack_scores_what_the_same_code_scores_without_it(graded, attack):
    require_attack(GRADED, attack)
    pairs, out = graded
    attacked, plain = pairs[attack]
    assert plain["status"] == attacked["status"] == "graded", (attacked, plain)
    assert float(plain["score"]) < float(plain["max_score"]), \
        f"{attack}: the plain twin leaves no points to win"
    if attack in REFUSED and float(attacked["score"]) <= float(plain["score"]):
        return
    if attacked["score"] != plain["score"]:
        mine, theirs = results(out, attack), results(out, attack + "--plain")
        differ = {k: (v["score"], v["output"][:400], theirs[k]["score"])
                  for k, v in mine.items() if v["score"] != theirs[k]["score"]}
        pytest.fail(f"{attack} scored {attacked['score']}, without the attack "
                    f"{plain['score']}: {differ}")


@pytest.mark.slow
def test_each_attack_fails_the_checks_of_its_honest_bug(graded):
    """The points an attack aims at are really lost, with and without the attack."""
    _, out = graded
    for attack, checks in AIMED.items():
        if attack not in GRADED:
            continue
        for name in (attack, attack + "--plain"):
            verdict = {k: t["score"] < t["max_score"] for k, t in results(out, name).items()}
            assert all(verdict[check] for check in checks), (name, checks)


@pytest.mark.slow
@needs_attack("refusal_flood", QUICK)
def test_a_refusal_flood_is_counted_but_keeps_the_feedback_short(graded):
    require_attack(GRADED, "refusal_flood")
    pairs, out = graded
    attacked, plain = pairs["refusal_flood"]
    assert int(plain["refused"]) == 0
    assert int(attacked["refused"]) >= 1000      # the child reports its first 1,000
    feedback = (out / "refusal_flood" / "feedback.md").read_text()
    assert 0 < feedback.count("tried to open /etc/spielbaum-flood-") <= 100
    assert "more refusals, not listed" in feedback
    assert len(feedback) < 30_000


@pytest.mark.slow
@needs_attack("counter_forgery", QUICK)
def test_forged_pipe_lines_are_only_counted(graded):
    require_attack(GRADED, "counter_forgery")
    """The forged note arrives as a refusal of the sandbox (silencing the sandbox's
    own notes does not hide it); the forged rows change nothing."""
    pairs, out = graded
    attacked, plain = pairs["counter_forgery"]
    assert int(attacked["refused"]) > int(plain["refused"]) == 0
    feedback = (out / "counter_forgery" / "feedback.md").read_text()
    assert "the sandbox refused: your code grader: counters verified" in feedback
    assert results(out, "counter_forgery").keys() == results(out, "counter_forgery--plain").keys()


@pytest.mark.slow
@needs_attack("huge_replies", QUICK)
def test_huge_replies_do_not_reach_the_feedback(graded):
    require_attack(GRADED, "huge_replies")
    _, out = graded
    for name in ("huge_replies", "huge_replies--plain"):
        assert len((out / name / "feedback.md").read_text()) < 30_000
        assert len((out / name / "results.json").read_text()) < 60_000
    get_moves = results(out, "huge_replies")["test_get_moves"]
    assert get_moves["score"] == 0 and len(get_moves["output"]) < 3000


@pytest.mark.slow
@needs_attack("fence_injection", QUICK)
def test_injected_markdown_stays_inside_code_blocks(graded):
    require_attack(GRADED, "fence_injection")
    _, out = graded
    text = (out / "fence_injection" / "feedback.md").read_text()
    tokens = MarkdownIt("commonmark").parse(text)
    code = "".join(t.content for t in tokens if t.type in ("fence", "code_block"))
    # the injection did reach the feedback: from the exception and from the output
    assert code.count(INJECTED[0]) >= 2 and INJECTED[1] in code
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    assert headings and not [h for h in headings if any(word in h for word in INJECTED)]
    for token in tokens:
        if token.type == "inline":
            assert not [child for child in token.children or [] if child.type == "image"]
            assert "Score: 39 / 39" not in token.content
            assert "evil.example" not in token.content
    # no heading or image line outside a code block
    inside = False
    for line in text.splitlines():
        if line.startswith("```"):
            fence = line[:len(line) - len(line.lstrip("`"))]
            if not inside:
                inside, opened = True, fence
            elif line.strip() == opened:
                inside = False
            continue
        if not inside:
            assert not (line.startswith("#") and any(w in line for w in INJECTED)), line
            assert "![" not in line, line
    html = (out / "fence_injection" / "feedback.html").read_text()
    assert "<img" not in html and 'href="https://evil.example' not in html


@pytest.mark.slow
@needs_attack("unseeded_rng", QUICK)
def test_a_generator_of_its_own_is_not_the_rng_it_was_given(graded):
    require_attack(GRADED, "unseeded_rng")
    """Choosing with an unseeded generator of its own gains nothing over always taking
    the first best move: the check believes what the grader's rng was offered."""
    _, out = graded
    choice = results(out, "unseeded_rng")["test_best_move_random_choice"]
    assert choice["score"] == 0 and "never asked rng" in choice["output"]


@pytest.mark.slow
@needs_attack("answer_key", QUICK)
def test_a_move_the_board_never_offered_is_refused_and_costs_the_case(graded):
    require_attack(GRADED, "answer_key")
    pairs, out = graded
    attacked, plain = pairs["answer_key"]
    assert float(attacked["score"]) < float(plain["score"])
    lost = [t for t in results(out, "answer_key").values()
            if "the board does not offer this move" in t["output"]]
    assert lost and all(t["score"] < t["max_score"] for t in lost)


@pytest.mark.slow
@needs_attack("unreadable_error", QUICK)
def test_an_unreadable_exception_is_described(graded):
    require_attack(GRADED, "unreadable_error")
    pairs, out = graded
    assert "(the exception's message could not be read)" in \
        results(out, "unreadable_error")["test_winner"]["output"]
    assert int(pairs["unreadable_error"][0]["crashes"]) == 0

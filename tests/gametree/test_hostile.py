"""The gametree hostile corpus: no attack scores more than the same code scores without it.

tests/gametree/hostile/<attack>/gametree.py (built by hostile_build.py, which
says what each attack tries) is graded for real, in a PID namespace, next to
its twin with the `# >>> attack` blocks removed (the `hostile_pairs` fixture).
Each twin has an honest bug, so there are points an attack could win; none may.
Every attack scores exactly what its twin does, except those that ask the
grader's games what they never handed out (REFUSED): a refused question costs
its case, so those score less; and huge_replies, whose nextstates answers a
string: its own searches on its own Game break on it, so it loses the
whole-program check its twin passes (SELF_DEFEATING). import_alias's searches
are working ones on a Game object (they bypass only the grader's games and
patches), which its twin does not have: the whole-program check, which runs the
student's own code on the student's own Game and nothing of the grader's,
passes them, so it is left out of that comparison (OWN_GAME_WORKS); every other
check must score the same.
"""

import json

import pytest
from markdown_it import MarkdownIt

from tests.conftest import (ROOT, attack_params, graded_attacks, needs_attack,
                            require_attack)
from tests.gametree import hostile_build

CORPUS = ROOT / "tests" / "gametree" / "hostile"
ATTACKS = sorted(p.name for p in CORPUS.iterdir() if p.is_dir())
# make test grades the attacks only this corpus has and half of the classes it shares
# with negamax's and connect4's (negamax's QUICK has the other half; connect4 grades
# them all); make test-all every attack (tests/conftest.py, HOSTILE_ALL).
QUICK = {"answer_key", "fence_injection", "forged_args_after", "import_alias", "refusal_flood", "replay_reference"}
GRADED = graded_attacks(ATTACKS, QUICK)
INJECTED = ("Full marks for this submission", "Grader note")
REFUSED = {"answer_key"}
SELF_DEFEATING = {"huge_replies"}
OWN_GAME_WORKS = {"import_alias"}
WHOLE_PROGRAM = "test_computer_move_with_your_own_helpers"


@pytest.fixture(scope="module")
def graded(hostile_pairs):
    return hostile_pairs("gametree", only=GRADED)


def test_the_corpus_is_what_the_build_script_writes():
    assert ATTACKS == sorted(hostile_build.ATTACKS)
    for attack in ATTACKS:
        assert hostile_build.path_of(attack).read_text() == hostile_build.build(attack), \
            "run `.venv/bin/python tests/gametree/hostile_build.py`"


def test_the_corpus_has_every_attack_class():
    assert {"kit_lookup", "replay_reference", "import_alias", "counter_forgery",
            "refusal_flood", "huge_replies", "fence_injection", "answer_key",
            "forged_args_after", "unreadable_error"} <= set(ATTACKS)


@pytest.mark.slow
@pytest.mark.parametrize("attack", attack_params(ATTACKS, QUICK))
def test_an_attack_scores_what_the_same_code_scores_without_it(graded, attack):
    require_attack(GRADED, attack)
    pairs, out = graded
    attacked, plain = pairs[attack]
    assert plain["status"] == attacked["status"] == "graded", (attacked, plain)
    assert float(plain["score"]) < float(plain["max_score"]), \
        f"{attack}: the plain twin leaves no points to win"
    if attack in REFUSED | SELF_DEFEATING and float(attacked["score"]) <= float(plain["score"]):
        return
    tests = {}
    for name in (attack, attack + "--plain"):
        data = json.loads((out / name / "results.json").read_text())
        tests[name] = {t["number"]: (t["score"], t["output"][:400]) for t in data["tests"]
                       if not (attack in OWN_GAME_WORKS and t["number"] == WHOLE_PROGRAM)}
    if attack in OWN_GAME_WORKS:
        assert tests[attack] != {}, attack
        attacked = {"score": sum(v[0] for v in tests[attack].values())}
        plain = {"score": sum(v[0] for v in tests[attack + "--plain"].values())}
    if attacked["score"] != plain["score"]:
        differ = {k: (v, tests[attack + "--plain"][k]) for k, v in tests[attack].items()
                  if v[0] != tests[attack + "--plain"][k][0]}
        pytest.fail(f"{attack} scored {attacked['score']}, without the attack "
                    f"{plain['score']}: {differ}")


@pytest.mark.slow
def test_each_attack_fails_the_checks_of_its_honest_bug(graded):
    """The points an attack aims at are really lost, with and without the attack."""
    aimed = {"kit_lookup": "test_winning_lines", "replay_reference":
             "test_alphabeta_prunes_like_the_reference", "import_alias": "test_alphabeta_window",
             "counter_forgery": "test_alphabeta_cuts_on_ties",
             "refusal_flood": "test_opening_book_4x4", "huge_replies": "test_nextstates",
             "fence_injection": "test_solve",
             # solve is judged with the grader's lines where winning_lines fails (issue
             # 22): what the attack keeps for later checks reaches the whole program only
             "answer_key": "test_computer_move_with_your_own_helpers",
             "forged_args_after": "test_nextstates",
             # evaluation is judged again with the grader's lines, where it raises nothing
             "unreadable_error": "test_winning_lines"}
    _, out = graded
    for attack, check in aimed.items():
        if attack not in GRADED:
            continue
        for name in (attack, attack + "--plain"):
            data = json.loads((out / name / "results.json").read_text())
            verdict = {t["number"]: t["status"] for t in data["tests"]}
            assert verdict[check] == "failed", (name, check)


@pytest.mark.slow
@needs_attack("refusal_flood", QUICK)
def test_a_refusal_flood_is_counted_but_keeps_the_feedback_short(graded):
    require_attack(GRADED, "refusal_flood")
    pairs, out = graded
    attacked, plain = pairs["refusal_flood"]
    assert int(plain["refused"]) == 0
    assert int(attacked["refused"]) >= 1000      # the child reports its first 1,000
    feedback = (out / "refusal_flood" / "feedback.md").read_text()
    assert feedback.count("tried to open /etc/spielbaum-flood-") == 100
    assert len(feedback) < 20_000


@pytest.mark.slow
@needs_attack("counter_forgery", QUICK)
def test_forged_pipe_lines_are_only_counted(graded):
    require_attack(GRADED, "counter_forgery")
    """The forged note arrives as a refusal of the sandbox; the forged rows change nothing."""
    pairs, out = graded
    attacked, plain = pairs["counter_forgery"]
    assert int(attacked["refused"]) > int(plain["refused"]) == 0
    feedback = (out / "counter_forgery" / "feedback.md").read_text()
    assert "the sandbox refused: your code grader: counters verified" in feedback


@pytest.mark.slow
@needs_attack("huge_replies", QUICK)
def test_huge_replies_do_not_reach_the_feedback(graded):
    require_attack(GRADED, "huge_replies")
    _, out = graded
    for name in ("huge_replies", "huge_replies--plain"):
        assert len((out / name / "feedback.md").read_text()) < 20_000
        assert len((out / name / "results.json").read_text()) < 40_000
    text = json.loads((out / "huge_replies" / "results.json").read_text())
    nextstates = next(t for t in text["tests"] if t["number"] == "test_nextstates")
    assert "xxxxxxxxxx" in nextstates["output"] and len(nextstates["output"]) < 3000


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
            assert "Score: 48 / 48" not in token.content
            assert "pwned" not in token.content
    html = (out / "fence_injection" / "feedback.html").read_text()
    assert "<img" not in html and 'href="https://evil.example' not in html
    assert not [line for line in html.splitlines() if "<h" in line and INJECTED[0] in line]


@pytest.mark.slow
@needs_attack("answer_key", QUICK)
def test_an_answer_key_by_questions_is_refused_and_costs_the_case(graded):
    require_attack(GRADED, "answer_key")
    """The searches ask the grader's games about states never handed out (the root
    and x on three cells): every game refuses, names the question, and the case is
    lost although the attack catches the exception; solve learns nothing."""
    pairs, out = graded
    attacked, plain = pairs["answer_key"]
    assert float(attacked["score"]) < float(plain["score"])
    data = json.loads((out / "answer_key" / "results.json").read_text())
    refused = [t for t in data["tests"]
               if "asked the grader's game what it does not answer" in t["output"]]
    assert refused and all(t["status"] == "failed" for t in refused)
    assert "asked the grader's game what it does not answer: terminal_test" in \
        refused[0]["output"]


@pytest.mark.slow
@needs_attack("forged_args_after", QUICK)
def test_a_changed_state_costs_its_points_even_when_hidden(graded):
    require_attack(GRADED, "forged_args_after")
    """The twin that appends to its state loses "nextstates does not change the
    state"; the attack hiding it from the child's report and from nextstates' own
    second answer loses it too, on the other questions asked of the same state."""
    _, out = graded
    for name in ("forged_args_after", "forged_args_after--plain"):
        data = json.loads((out / name / "results.json").read_text())
        lost = {t["number"] for t in data["tests"] if t["status"] == "failed"}
        # and the whole program, whose own searches run on that nextstates
        assert lost == {"test_nextstates", "test_computer_move_with_your_own_helpers"}, \
            (name, lost)
    text = (out / "forged_args_after" / "feedback.md").read_text()
    assert "on an untouched copy it" in text


@pytest.mark.slow
@needs_attack("unreadable_error", QUICK)
def test_an_unreadable_exception_is_described(graded):
    require_attack(GRADED, "unreadable_error")
    pairs, out = graded
    assert "(the exception's message could not be read)" in \
        (out / "unreadable_error" / "feedback.md").read_text()
    assert int(pairs["unreadable_error"][0]["crashes"]) == 0

"""The public tests of muehle (`make check`), run as a student runs them (issue 22).

A function that stops in the stub of another (a helper, or the @memoize around
it) names that stub; a wrong answer shows the board with its point numbers
beside it and says what the state tuple holds.
"""

import re

from tests.conftest import ROOT, run_public_tests

REFERENCE = ROOT / "solutions" / "muehle" / "muehle.py"
MEMOIZE_BODY = ("        if args in cache:\n            return cache[args]\n"
                "        result = f(*args)\n        cache[args] = result\n        return result\n")


def submission(*edits):
    """The reference without solution markers, with (old, new) edits."""
    text = "".join(line for line in REFERENCE.read_text().splitlines(keepends=True)
                   if line.strip() not in ("### BEGIN SOLUTION", "### END SOLUTION"))
    for old, new in edits:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return text


def test_a_stub_in_memoize_is_named_and_boards_show_point_numbers(student_copy):
    folder = student_copy("muehle")
    (folder / "muehle.py").write_text(submission(
        (MEMOIZE_BODY, "        raise NotImplementedError\n"),
        ("return (8 * (_stones(state, player)", "return (7 * (_stones(state, player)")))
    done = run_public_tests(folder)
    verdicts = dict(re.findall(r"^\s+(\w+)\s+\d+/\d+\s+(.+?)\s*$", done.stdout, re.M))
    assert verdicts["memoize"] == "not implemented yet", done.stdout
    assert verdicts["value_minimax"] != "not implemented yet", done.stdout
    assert "value_minimax uses memoize, which is not implemented yet: write memoize first" \
        in done.stdout
    assert verdicts["heuristic"] == "needs work", done.stdout
    assert "21----------22----------23" in done.stdout            # the point numbers
    assert "a state is (board, in_hand, quiet)" in done.stdout
    assert verdicts["opponent"] == verdicts["next_states"] == "ok", done.stdout

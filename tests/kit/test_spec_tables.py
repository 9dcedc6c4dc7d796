"""Every sentence of the specification is checked or declared (issue 41).

For each assignment, autograder/suites/<a>/spec.toml maps every sentence of the
docstrings the student reads (the released skeleton, assignments/<a>/) to the hidden
checks that enforce it, or says it is not graded, on purpose, and why; behavioural
sentences of the README have rows too. This test fails when a docstring sentence has
no row, when a row names a sentence the specification no longer has (a stale row),
or a check the rubric does not have."""

import tomllib

import pytest

from autograder import assignment as assignments
from tests.kit import spec_tables as spec

NAMES = ["connect4", "gametree", "muehle", "negamax", "tictactoe"]


def rubric_checks(assignment) -> set[str]:
    data = tomllib.loads((assignment.suite_dir / "rubric.toml").read_text(encoding="utf-8"))
    return set(data["points"])


@pytest.mark.parametrize("name", NAMES)
def test_every_docstring_sentence_has_a_row(name):
    assignment = assignments.load(name)
    rows = spec.table(assignment.suite_dir / "spec.toml")
    written = {(row.where, row.sentence) for row in rows}
    missing = [f"{s.where}: {s.text}" for module in assignment.modules
               for s in spec.sentences(assignment.assignment_dir / module)
               if (s.where, s.text) not in written]
    assert not missing, "sentences without a row in spec.toml:\n" + "\n".join(missing)


@pytest.mark.parametrize("name", NAMES)
def test_every_row_is_a_sentence_of_the_specification_and_names_real_checks(name):
    assignment = assignments.load(name)
    rows = spec.table(assignment.suite_dir / "spec.toml")
    said = {(s.where, s.text) for module in assignment.modules
            for s in spec.sentences(assignment.assignment_dir / module)}
    readme = spec.readme_text(assignment.assignment_dir / "README.md")
    stale = [row.sentence for row in rows
             if (row.where == "README" and row.sentence not in readme)
             or (row.where != "README" and (row.where, row.sentence) not in said)]
    assert not stale, "rows for sentences the specification does not have:\n" + "\n".join(stale)
    unknown = {check for row in rows for check in row.checks} - rubric_checks(assignment)
    assert not unknown, f"rows name checks the rubric does not have: {sorted(unknown)}"
    assert len({(row.where, row.sentence) for row in rows}) == len(rows), "a row twice"


def test_every_check_enforces_some_sentence():
    """A check no sentence asks for judges something the student was never told."""
    for name in NAMES:
        assignment = assignments.load(name)
        named = {check for row in spec.table(assignment.suite_dir / "spec.toml")
                 for check in row.checks}
        assert rubric_checks(assignment) <= named, (name, sorted(rubric_checks(assignment) - named))


def test_sentences_are_cut_as_documented():
    text = ("Return the list of moves. The order is fixed: (0, 0), (1, 0), ... e.g. this.\n\n"
            "* Child order: tried in the order `getMoves`\n  returns them.\n"
            "* Depth: `explore(depth)`.\n\n    drawing 0 1 2\n    3 4 5\n\nHeading\n-------\n"
            "Last one!")
    assert spec.split(text) == [
        "Return the list of moves.", "The order is fixed: (0, 0), (1, 0), ... e.g. this.",
        "Child order: tried in the order `getMoves` returns them.", "Depth: `explore(depth)`.",
        "Last one!"]


def test_a_malformed_row_is_one_line(tmp_path):
    path = tmp_path / "spec.toml"
    path.write_text('[[row]]\nwhere = "f"\nsentence = "Does f."\nchecks = ["a"]\n'
                    'not_graded = "both"\n')
    with pytest.raises(assignments.KitError, match="either"):
        spec.table(path)

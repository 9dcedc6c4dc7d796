"""A small nbgrader course for the page tests: release tictactoe, two students submit
(alice right, bert with a wrong winner), grade-collected, feedback.

    python -m tests.kit.pages_course BASE

The feedback is made twice: as grading left it (bert's page is kept as
bert-plain.html), then after bert's failing check got a drawing in the kit's results
(kit_grades/tictactoe/bert/results.json, the test's `extra_data.picture`), as a
search check's failure leaves one: no tic-tac-toe check draws a tree, and the page
must show any failure's drawing the same way. Prints one JSON line: the feedback
pages and what `make grade-collected` printed. Run it in a PID namespace (it runs
example code, sandboxed, like every grading).
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from tests.nbgrader.scenario import A, EXAMPLES, setup, student_api, student_step

STUDENTS = {"alice": "ada_alphabeta", "bert": "eve_no_antidiagonal"}
#: bert's check that gets the drawing
DRAWN = "test_winner"


def picture() -> dict:
    """A search on the textbook tree (autograder/checking/gametrees, aima-5-2): the rule's
    alpha-beta against a search that never prunes."""
    from autograder.checking import gametrees
    from tests.kit.tree_pictures import from_game_tree
    from tests.kit.tree_search import search_tree
    tree = gametrees.load_tree("aima-5-2")
    log = lambda result: [("n" if node in result.expanded else "e", node)
                          for node in result.visited]
    rule = search_tree(tree)
    plain = search_tree(tree, alphabeta=False)
    return from_game_tree(tree, log(rule), log(plain), rule_result=rule.value,
                          student_result=plain.value,
                          cut=[kid for kids in rule.pruned.values() for kid in kids],
                          caption="alpha-beta on the tree 'aima-5-2'")


def main(base: Path) -> dict:
    cycle, api = setup(base)
    cycle.release(A, api)
    for student, example in STUDENTS.items():
        home = base / "homes" / student
        home.mkdir(parents=True)
        mine = student_api(home, student)
        student_step("FetchAssignment", A, mine)
        shutil.copyfile(EXAMPLES / example / "tictactoe.py", home / A / "tictactoe.py")
        student_step("Submit", A, mine)
    cycle.collect(A, api)
    cycle.grade_collected(A, api, jobs=2)
    said: list[str] = []
    cycle.summary(A, api, say=said.append)
    cycle.feedback(A, api)                  # as grading left it: no drawing
    feedback = base / "course" / "feedback"
    plain = base / "bert-plain.html"
    shutil.copyfile(feedback / "bert" / A / f"{A}.html", plain)
    results = cycle.kit_results(cycle.course_root(api), A) / "bert" / "results.json"
    data = json.loads(results.read_text(encoding="utf-8"))
    entry = next(t for t in data["tests"] if t["number"] == DRAWN)
    assert entry["status"] == "failed", entry
    entry["extra_data"] = {"picture": picture()}
    results.write_text(json.dumps(data), encoding="utf-8")
    cycle.feedback(A, api)
    pages = {p.parent.parent.name: str(p) for p in feedback.rglob(f"{A}.html")}
    return {"pages": {**pages, "bert_plain": str(plain)}, "said": said}


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1]))))

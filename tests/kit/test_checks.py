"""The check framework the hidden suites share (autograder/checking: cases, judges, blame, chunks):
judging cases and plans, what the feedback shows, blame's default players, chunked
plans split back per item. A real sandboxed child where calls are made."""

import pickle
from dataclasses import dataclass

import pytest

from autograder import assignment
from tests.conftest import ROOT, load_module
from autograder.checking import chunks
from autograder.checking import (Answer, Blame, Case, CheckFailed, Later, Reason, Show,
                                       answer_of, check_all, container_reason, exact, is_a,
                                       map_cases, number, played_plan, raises, same_items)
from autograder.grading.student import Student, Timeouts
from autograder.sandbox import layers
from autograder.sandbox.client import Failure, Outcome

MODULE = '''
def double(x):
    return 2 * x

def helper(x):
    return x + 1

def uses_helper(x):
    return helper(x) * 10

def stub(x):
    raise NotImplementedError

_kept = {}

def remember(x):
    _kept[x] = helper(x)
    return len(_kept)

def recall(x):
    return _kept.get(x)

def spin(seconds):
    import time
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass
    return seconds

def board(cells):
    if cells is None:
        raise TypeError("no cells")
    return Board(cells)

class Board:
    def __init__(self, cells):
        self.cells = cells
    def count(self):
        if not self.cells:
            raise ValueError("empty")
        return len(self.cells)
'''


@pytest.fixture(scope="module")
def student(tmp_path_factory):
    folder = tmp_path_factory.mktemp("framework")
    (folder / "m.py").write_text(MODULE)
    student = Student(folder, ["m"], list(layers.available()), Timeouts(call=10, check=60))
    student.start_check()
    yield student
    student.close()


def failure_of(*args, **kwargs) -> CheckFailed:
    with pytest.raises(CheckFailed) as caught:
        check_all(*args, **kwargs)
    return caught.value


CASES = [Case(f"f({n})", (n,), None, n) for n in range(4)]
RIGHT = [Outcome(ok=True, value=n) for n in range(4)]


def test_exact_wants_the_value_and_its_type():
    case = Case("f()", (), None, [1, 2])
    assert exact(case, Outcome(ok=True, value=[1, 2])) is None
    # another container with the right items: told what came back, and what is asked
    assert exact(case, Outcome(ok=True, value=(1, 2))) == \
        "a tuple; the docstring asks for a list"
    assert exact(case, Outcome(ok=True, value=(2, 1))) == "returned (2, 1)"
    assert exact(Case("g()", (), None, {1, 2}), Outcome(ok=True, value=[2, 1])) == \
        "a list; the docstring asks for a set"
    assert exact(Case("g()", (), None, 1), Outcome(ok=True, value=True)) == "returned True"


def test_a_docstring_that_names_no_container_takes_any_sequence_of_the_items():
    case = Case("lines(board)", (), None, ["x...", "o..."])
    assert same_items(case, Outcome(ok=True, value=("x...", "o..."))) is None
    assert same_items(case, Outcome(ok=True, value=["x...", "o..."])) is None
    assert same_items(case, Outcome(ok=True, value=("o...", "x..."))) is not None
    assert same_items(case, Outcome(ok=True, value={"x...", "o..."})) is not None
    assert same_items(Case("f()", (), None, [1]), Outcome(ok=True, value=(True,))) is not None


def test_a_named_container_accepts_that_type_and_says_what_came_instead():
    assert container_reason({(0, 1)}, set) is None
    assert container_reason([(0, 1)], set) == "returned a list; the docstring asks for a set"
    assert container_reason(None, tuple) == "returned None"
    assert number(Case("f()", (), None, 1), Outcome(ok=True, value=1.0)) is None
    assert number(Case("f()", (), None, 1), Outcome(ok=True, value=True)) == "returned True"


def raised(kind, kinds=None):
    record = {"type": kind, "message": "no", "where": None}
    if kinds is not None:
        record["kinds"] = kinds
    return Outcome(raised=record)


def test_raises_judges_the_builtin_kinds_never_the_class_name():
    # a student's class IllegalMoveError(ValueError): the child sends its kinds
    subclass = raised("IllegalMoveError", ["ValueError", "Exception", "BaseException"])
    assert raises(subclass, "ValueError") and is_a(subclass.raised, "Exception")
    assert not raises(subclass, "TypeError")
    # a class merely named ValueError that is no ValueError is not one
    named = raised("ValueError", ["Exception", "BaseException"])
    assert not raises(named, "ValueError")
    # a record without kinds (a child from before them): its type's name
    assert raises(raised("ValueError"), "ValueError")
    stub = raised("Todo", ["NotImplementedError", "RuntimeError", "Exception", "BaseException"])
    assert answer_of(stub) is Answer.NOT_IMPLEMENTED
    assert answer_of(raised("NotImplementedError", ["Exception", "BaseException"])) \
        is Answer.RAISED
    assert not raises(Outcome(failure=Failure.CRASH, detail="gone"), "ValueError")
    denied = raised("PermissionError", ["PermissionError", "OSError", "Exception",
                                        "BaseException"])
    assert raises(denied, "OSError") and raises(denied, "PermissionError")


def test_a_caught_exception_of_a_plan_keeps_its_kinds():
    record = {"type": "DepthError", "message": "no", "where": None,
              "kinds": ["ValueError", "Exception", "BaseException"]}
    assert raises(chunks.raised(record), "ValueError")
    assert raises(chunks.answered({"raised": record}), "ValueError")


def test_check_all_passes_right_answers_and_reports_the_smallest_wrong_one():
    check_all("f is wrong", CASES, RIGHT, exact)
    wrong = RIGHT[:1] + [Outcome(ok=True, value=9), Outcome(ok=True, value=8), RIGHT[3]]
    failed = failure_of("f is wrong", CASES, wrong, exact, "a hint")
    assert (failed.call, failed.got, failed.failures, failed.total) == ("f(1)", "returned 9", 2, 4)
    assert failed.problem is None and failed.hint == "a hint" and failed.expected == 1
    assert failed.answer is Answer.RETURNED


def test_what_the_got_line_shows_in_each_mode():
    wrong = [Outcome(ok=True, value={"wrapped": 7})] + RIGHT[1:]
    reason = lambda case, outcome: None if outcome.value == case.expected else "counted 7"
    plain = failure_of("s", CASES, wrong, reason)
    assert (plain.got, plain.problem) == ("returned {'wrapped': 7}", "counted 7")
    said = failure_of("s", CASES, wrong, reason, show=Show.REASON)
    assert (said.got, said.problem, said.answer) == ("counted 7", None, Answer.RETURNED)
    plan = failure_of("s", CASES, wrong, reason, show=Show.PLAN)
    assert (plan.got, plan.problem, plan.answer) == ("counted 7", None, None)
    pair = failure_of("s", CASES, wrong, lambda c, o: ("visited 3", "one too many"),
                      show=Show.PLAN)
    assert (pair.got, pair.problem) == ("visited 3", "one too many")
    raised = failure_of("s", CASES, [Outcome(raised={"type": "KeyError", "message": "x"})]
                        + RIGHT[1:], reason, show=Show.REASON)
    assert raised.got == "raised KeyError: x" and raised.answer is Answer.RAISED
    kinded = failure_of("s", CASES, wrong, lambda c, o: Reason("a step raised", Answer.RAISED))
    assert kinded.answer is Answer.RAISED


def test_unreached_cases_count_and_a_spent_budget_is_the_case_shown():
    outcomes = [RIGHT[0], Outcome(failure=Failure.UNREACHED, detail="not run"),
                Outcome(failure=Failure.BUDGET, detail="the check's time ran out"), RIGHT[3]]
    failed = failure_of("s", CASES, outcomes, exact)
    assert (failed.call, failed.got, failed.failures) == ("f(2)", "the check's time ran out", 2)


def test_the_headline_keeps_a_plan_check_but_words_a_function_that_gave_no_answer():
    stub = [Outcome(raised={"type": "NotImplementedError", "message": ""})] + RIGHT[1:]
    blame = Blame({"f": ()})
    with pytest.raises(CheckFailed) as own:
        with blame.judging("f", "on a board"):
            check_all("f is wrong", CASES, stub, exact)
    assert own.value.summary == "f is not implemented yet"
    with pytest.raises(CheckFailed) as plan:
        with blame.judging("f", "on a board"):
            check_all("f is wrong", CASES, stub, exact, show=Show.PLAN)
    assert plan.value.summary == "f is wrong"


def test_blame_of_an_assignment_plays_the_reference_for_the_helpers():
    tictactoe = assignment.load("tictactoe")
    blame = Blame.of(tictactoe)
    assert blame.relies_on == tictactoe.relies_on and blame.module == "tictactoe"
    plays = blame.plays("terminal")
    assert plays == {"tictactoe.winner": blame.reference.winner}
    assert blame.helpers("terminal") == {"tictactoe.winner": None}
    assert blame.plays("winner") == {} and blame.helpers("winner") == {}
    with pytest.raises(TypeError, match="knows no"):
        Blame({"f": ("g",)}).plays("f")


def test_map_cases_samples_a_played_run_and_plays_the_helpers(student):
    cases = [Case(f"uses_helper({n})", (n,), None, (n + 1) * 10) for n in range(10)]
    mine, outcomes = map_cases(student, "m.uses_helper", cases)
    assert mine == cases and [o.value for o in outcomes] == [c.expected for c in cases]
    played = {"m.helper": lambda x: x + 2}
    sampled, outcomes = map_cases(student, "m.uses_helper", cases, played, most=4)
    assert [c.args[0] for c in sampled] == [0, 3, 6, 9]
    assert [o.value for o in outcomes] == [(n + 2) * 10 for n in (0, 3, 6, 9)]


def test_a_played_plan_patches_only_the_functions_it_is_given(student):
    plan = played_plan("uses_helper", {"m.helper": lambda x: 100, "m.double": None})
    plan.returns([plan.call("m.uses_helper", 1), plan.call("m.double", 4)])
    [outcome] = student.run([plan])
    assert outcome.value == [1000, 8]
    skipped = played_plan("uses_helper", {"m.helper": lambda x: 100}, skip=("m.helper",))
    [outcome] = student.run([skipped.returns(skipped.call("m.uses_helper", 1))])
    assert outcome.value == 20


@pytest.fixture
def new_student(tmp_path):
    (tmp_path / "m.py").write_text(MODULE)
    student = Student(tmp_path, ["m"], list(layers.available()), Timeouts(call=10, check=60))
    student.start_check()
    yield student
    student.close()


def test_played_requests_run_apart_from_the_students_own_child(new_student):
    """A request in which the grader plays a helper of the student's runs in the
    played child; one that plays nothing in the student's own, which never hosts a
    played one: what the student's code kept while the grader answered (under its
    own names) is not there. Each child keeps what was kept in it."""
    student = new_student
    student.map("m.remember", [(7,)])            # the own child keeps helper(7) = 8
    starts = student.starts
    first = student.map("m.remember", [(1,)], play={"m.helper": lambda x: 1000})
    second = student.map("m.remember", [(2,)], play={"m.helper": lambda x: 2000})
    assert [first[0].value, second[0].value] == [1, 2] and student.starts == starts + 1
    assert student.map("m.recall", [(1,)])[0].value is None
    assert student.call("m.recall", 7).value == 8 and student.starts == starts + 1
    plan = played_plan("remember", {"m.helper": lambda x: 3000})
    [kept] = student.run([plan.returns(plan.call("m.remember", 3))])
    assert kept.value == 3 and student.call("m.recall", 3).value is None
    assert student.starts == starts + 1

    with student.played_child():                 # a new played child: nothing kept
        assert student.call("m.recall", 1).value is None
        played = student.map("m.remember", [(9,)], play={"m.helper": lambda x: 900})
        assert played[0].value == 1 and student.call("m.recall", 9).value == 900
    assert student.starts == starts + 2
    assert student.call("m.recall", 7).value == 8 and student.call("m.recall", 9).value is None
    with student.played_child(fresh=False):      # the same played child, again
        assert student.call("m.recall", 9).value == 900
    assert student.starts == starts + 2 and student.call("m.recall", 7).value == 8


def test_a_checks_budget_counts_both_children(tmp_path):
    """The CPU time the own child used in a check before a played attempt counts
    toward the same budget as the played child's (as for a child that died)."""
    (tmp_path / "m.py").write_text(MODULE)
    student = Student(tmp_path, ["m"], list(layers.available()), Timeouts(call=5, check=1.0))
    try:
        student.start_check()
        assert student.map("m.spin", [(0.6,)])[0].value == 0.6
        with student.played_child():
            [over] = student.map("m.spin", [(0.6,)], play={"m.helper": abs})
        assert over.failure == Failure.BUDGET
        assert student.map("m.spin", [(0.1,)])[0].failure == Failure.BUDGET
    finally:
        student.close()


def count_steps(plan, cells):
    board = plan.call("m.board", cells)
    return [plan.call(board.attr("count"), catch=True), plan.call("m.stub", 0, catch=True)]


def test_chunked_plans_give_one_outcome_per_item(student):
    items = ((1, 2), (), (5,), None, (7, 8, 9))
    outcomes = chunks.run_chunked(student, "Board", items, count_steps, size=2, cache=False)
    assert len(outcomes) == len(items)
    assert outcomes[0].value[0] == 2
    assert chunks.answered(outcomes[1].value[0]).raised["type"] == "ValueError"  # caught: its own
    assert chunks.answered(outcomes[0].value[1]).raised["type"] == "NotImplementedError"
    assert outcomes[3].raised["type"] == "TypeError"        # building it raised: that item,
    assert outcomes[2].failure == Failure.UNREACHED         # its chunk's others unjudged
    assert outcomes[4].value[0] == 3                        # the next chunk is untouched


def test_a_chunk_splits_a_raise_a_timeout_and_a_malformed_answer():
    raised = {"raised": {"type": "ValueError", "message": "no", "where": None}}
    got = chunks.unpack(Outcome(ok=True, value=[1, raised, [2, raised]]), 3, (0, 0, 1, 2))
    assert [o.value for o in got if o.answered] == [1, [2, raised]]
    assert got[1].raised["type"] == "ValueError"
    timed = chunks.unpack(Outcome(failure="timeout", detail="timed out after 2.0 s"), 2, ())
    assert all(o.failure == "timeout" and "2 positions" in o.detail for o in timed)
    stopped = chunks.unpack(Outcome(raised={"type": "TypeError", "message": "x", "where": None,
                                            "step": 3}), 3, (0, 0, 1, 1, 2, 2))
    assert [o.failure for o in stopped] == ["unreached", None, "unreached"]
    assert stopped[1].raised["type"] == "TypeError"
    malformed = chunks.unpack(Outcome(ok=True, value=[1]), 2, (0, 1))
    assert [o.failure for o in malformed] == ["bad_value", "bad_value"]


def test_suite_size_counts_every_check_the_rubric_scores():
    """bench/suite_size.py (issue 21's helper-line measure) counts as checks exactly
    the test functions the rubrics give points, and every suite's helpers."""
    import tomllib
    size = load_module("_bench_suite_size", ROOT / "bench" / "suite_size.py")
    for name, counts in size.sizes(ROOT).items():
        rubric = tomllib.loads((ROOT / "autograder/suites" / name / "rubric.toml").read_text())
        assert counts["checks"] == len(rubric["points"]), name
        assert 0 < counts["helper_lines"] < counts["folder_lines"], name


def test_later_text_is_made_for_the_shown_case_only_and_raised_runs_are_judged():
    made = []

    def later(text):
        return Later(lambda: made.append(text) or text)
    cases = [Case(later(f"search({n})"), (n,), later(f"tree {n}"), later(f"value {n}"))
             for n in range(3)]
    outcomes = [Outcome(ok=True, value=0), Outcome(raised={"type": "KeyError", "message": ""}),
                Outcome(ok=True, value=5)]
    seen = []

    def judge(case, outcome):
        seen.append(case.args[0])
        return None if outcome.answered and outcome.value == 0 else "visited too much"
    failed = failure_of("s", cases, outcomes, judge, show=Show.PLAN, raised=True,
                        got=lambda case, outcome: f"ran on {case.args[0]}")
    assert seen == [0, 1, 2] and failed.failures == 2
    assert (failed.call, failed.position, failed.expected) == ("search(1)", "tree 1", "value 1")
    assert (failed.got, failed.problem, failed.answer) == ("ran on 1", "visited too much", None)
    assert sorted(made) == ["search(1)", "tree 1", "value 1"]     # nothing made for the others


@dataclass
class _CaseWithMore(Case):
    more: int = 0


def test_cases_and_their_later_words_pickle_whole(monkeypatch):
    """What a platform package ships: a case comes back equal, its Later words are
    made in the language of the moment they are shown; a subclass keeps its fields."""
    case = Case("f(x)", ([1, 2],), Later.words("{count} successors", count=3), [Later(str, 5)])
    again = pickle.loads(pickle.dumps(case))
    assert (again.call, again.args) == (case.call, case.args)
    assert again.position.make() == "3 successors" and again.expected[0].make() == "5"
    monkeypatch.setenv("SPIELBAUM_COURSE_LANG", "de")
    assert again.position.make() == "Folgestellungen: 3"
    more = pickle.loads(pickle.dumps(_CaseWithMore("g()", (), None, 1, more=7)))
    assert more == _CaseWithMore("g()", (), None, 1, more=7)
    with pytest.raises(Exception):
        pickle.dumps(Later(lambda: "words"))      # why Later takes a module-level function

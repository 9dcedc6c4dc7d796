"""Call plans: the child runs scripts of calls; proxies and callbacks answer from the grader."""

import functools
import math
import pickle

import pytest

from autograder.sandbox.plans import Callback, Known, Plan, Proxy
from tests.conftest import student_sandbox

STUDENT = '''
def walk(board, depth):
    """Sum of evaluate() over the leaves `depth` plies down."""
    if depth == 0:
        return board.evaluate()
    total = 0
    for move in board.getMoves():
        board.makeMove(move)
        total += walk(board, depth - 1)
        board.undoMove(move)
    return total


class Searcher:
    def __init__(self, board):
        self.board = board
        self.visits = 0

    def run(self, depth):
        self.visits += 1
        return walk(self.board, depth)


def apply(function, value):
    return function(value) + 1


def twice():
    return helper(1) + helper(2)


def helper(x):
    return x


KEPT = []


def keep(board):
    KEPT.append(board)
    return "kept"


def use_kept():
    return KEPT[0].evaluate()


def illegal_then_ask(board):
    board.makeMove("nowhere")
    return board.evaluate()


CACHE = {}


def terminal_test(state, evaluation=None):
    return False


def search(state, evaluation, board):
    return terminal_test(state, evaluation), pass_on(board)


def pass_on(board):
    return None


def by_keyword(function):
    return function(1, scale=10) + function(x=2)


def remember(table, key):
    table[key] = len(table)
    return dict(table)


def big():
    return "x" * 900_000


def ask_forever(board):
    while True:
        board.evaluate()


def cached(key):
    return CACHE.get(key, "absent")


STASH = []


def twice_and_stash(x):
    STASH.append(helper)            # the grader's stand-in, kept past its call
    return helper(x) + helper(x)


def use_stash(x):
    return STASH[0](x)


def ask_twice_and_spoil(x):
    """Asks the same question twice, spoiling the first answer in between."""
    first = helper(x)
    first.append("spoiled")
    second = helper(x)
    return first, second, helper(x + 1)


def ask_until_refused(x):
    answers = []
    for _ in range(2):
        try:
            answers.append(helper(x))
        except ValueError as error:
            answers.append(str(error))
    return answers


class Shape:
    def __init__(self, size):
        self.size = size


def measure(shape):
    return helper(shape)


def grow(board):
    board.append(len(board))
    if len(board) > 2:
        raise ValueError("full")
    return len(board)


HELPERS = []        # kept alive, so no two of them share an id()


def helpers_seen(x):
    HELPERS.append(helper)
    return len({id(h) for h in HELPERS})


def claim_missing():
    import __main__     # the child's own plumbing: its exception claims "no such function"
    raise __main__.StepFailed(0, __main__.Missing("m.py has no 'claim_missing'"))
'''


class Board:
    """A tiny trusted game: moves 0 and 1 at every ply; evaluate() is the path as a number."""

    def __init__(self):
        self.path, self.log = [], []

    def getMoves(self):
        self.log.append("getMoves")
        return [0, 1]

    def makeMove(self, move):
        self.log.append(("make", move))
        if move not in (0, 1):
            raise ValueError(f"no move {move!r}")
        self.path.append(move)

    def undoMove(self, move):
        self.log.append(("undo", move))
        self.path.pop()

    def evaluate(self):
        self.log.append("evaluate")
        return int("1" + "".join(map(str, self.path)), 2)


def proxy(board):
    return Proxy(board, ask=("getMoves", "evaluate"), tell=("makeMove", "undoMove"))


@pytest.fixture
def sandbox(tmp_path):
    with student_sandbox(tmp_path, STUDENT) as box:
        yield box


def test_a_search_over_a_proxy_is_counted_by_the_grader(sandbox):
    board = Board()
    plan = Plan("Searcher.run")
    searcher = plan.call("m.Searcher", proxy(board))
    total = plan.call(searcher.attr("run"), 3)
    plan.returns({"total": total, "visits": plan.get(searcher.attr("visits"))})
    [outcome] = sandbox.plans([plan], 10)
    assert outcome.value == {"total": sum(range(8, 16)), "visits": 1}
    # The grader's own record: every call, in order, tells included.
    assert board.log.count("evaluate") == 8 and board.log.count("getMoves") == 7
    assert board.log[:4] == ["getMoves", ("make", 0), "getMoves", ("make", 0)]
    assert board.path == []


def test_callbacks_patches_and_their_restoration(sandbox):
    first = Plan("apply")
    first.returns(first.call("m.apply", Callback(lambda x: 10 * x), 4))
    patched = Plan("twice")
    seen = []
    patched.patch("m.helper", Callback(lambda x: seen.append(x) or 100 * x))
    patched.returns(patched.call("m.twice"))
    after = Plan("twice")
    after.returns(after.call("m.twice"))
    outcomes = sandbox.plans([first, patched, after], 10)
    assert [o.value for o in outcomes] == [41, 300, 3]
    assert seen == [1, 2]


def test_setitem_get_default_and_catch(sandbox):
    plan = Plan("cached")
    plan.setitem("m.CACHE", (1, (2, 3)), [4.5, math.inf])
    hit = plan.call("m.cached", (1, (2, 3)))
    raised = plan.call("m.apply", None, 1, catch=True)
    plan.returns([hit, plan.get("m.NOTHING", default="none"), raised])
    [outcome] = sandbox.plans([plan], 10)
    hit, absent, raised = outcome.value
    assert hit == [4.5, math.inf] and absent == "none"
    assert raised["raised"]["type"] == "TypeError"


def test_a_failing_step_is_named_and_a_missing_function_is_missing(sandbox):
    failing = Plan("walk")
    failing.call("m.Searcher", None)
    failing.returns(failing.call("m.walk", None, 1))
    missing = Plan("nothing")
    missing.returns(missing.call("m.not_there"))
    first, second = sandbox.plans([failing, missing], 10)
    assert first.raised["type"] == "AttributeError" and first.raised["step"] == 1
    assert second.failure == "missing" and "not_there" in second.detail


def test_a_proxy_kept_for_later_is_refused(sandbox):
    board = Board()
    keep = Plan("keep")
    keep.returns(keep.call("m.keep", proxy(board)))
    later = Plan("use_kept")
    later.returns(later.call("m.use_kept"))
    kept, used = sandbox.plans([keep, later], 10)
    assert kept.value == "kept"
    assert used.raised["type"] == "RuntimeError" and "another call" in used.raised["message"]
    assert board.log == []


def test_an_error_of_a_told_method_reaches_the_next_ask(sandbox):
    board = Board()
    plan = Plan("illegal")
    plan.returns(plan.call("m.illegal_then_ask", proxy(board)))
    [outcome] = sandbox.plans([plan], 10)
    assert outcome.raised["type"] == "ValueError"
    assert "makeMove" in outcome.raised["message"] and "nowhere" in outcome.raised["message"]
    assert board.log == [("make", "nowhere"), "evaluate"]


def test_a_plan_that_keeps_calling_back_is_killed_at_its_deadline(sandbox):
    board = Board()
    loop = Plan("loop")
    loop.returns(loop.call("m.ask_forever", proxy(board)))
    quick = Plan("apply")
    quick.returns(quick.call("m.apply", Callback(abs), -1))
    first, second = sandbox.plans([loop, quick], 0.5)
    assert first.failure == "timeout" and second.failure == "unreached"
    assert board.log.count("evaluate") > 100     # it was answered until the deadline
    assert not sandbox.alive


def test_the_graders_stand_ins_passed_back_to_the_grader_are_its_own_objects_again(sandbox):
    seen = []
    board = Board()

    def evaluation(state):
        return len(state)

    def terminal(state, function):
        seen.append(function)
        return function(state) > 1

    plan = Plan("search")
    plan.patch("m.terminal_test", Callback(terminal))
    plan.patch("m.pass_on", Callback(lambda thing: seen.append(thing) or "ok"))
    plan.returns(plan.call("m.search", [1, 2], Callback(evaluation), proxy(board)))
    [outcome] = sandbox.plans([plan], 10)
    assert outcome.value == (True, "ok")
    assert seen == [evaluation, board]


def test_an_answer_too_large_to_encode_is_a_bad_value_not_a_crash(sandbox):
    plan = Plan("big")
    plan.returns([plan.call("m.big") for _ in range(400)])
    small = Plan("apply")
    small.returns(small.call("m.apply", Callback(abs), -2))
    huge, after = sandbox.plans([plan, small], 30)
    assert huge.failure in ("bad_value", "protocol"), huge
    assert "outside its own folder" not in huge.detail
    if huge.failure == "bad_value":
        assert "too large" in huge.detail and after.value == 3


def test_a_plan_with_nothing_of_the_graders_is_encoded_once():
    from autograder.sandbox.plans import Registry
    plain = Plan("x")
    plain.returns(plain.call("m.apply", [1, 2]))
    assert plain.wire(Registry(), 0) is plain.wire(Registry(), 5)
    with_proxy = Plan("y")
    with_proxy.returns(with_proxy.call("m.walk", proxy(Board()), 1))
    registry = Registry()
    assert with_proxy.wire(registry, 0) != with_proxy.wire(registry, 1)


def test_a_value_made_once_is_shared_by_later_steps(sandbox):
    plan = Plan("remember")
    table = plan.value({})
    plan.returns([plan.call("m.remember", table, "a"), plan.call("m.remember", table, "b"),
                  plan.call("m.remember", {}, "c")])
    [outcome] = sandbox.plans([plan], 10)
    assert outcome.value == [{"a": 0}, {"a": 0, "b": 1}, {"c": 0}]


def test_keyword_arguments_reach_the_graders_functions(sandbox):
    plan = Plan("by_keyword")
    plan.returns(plan.call("m.by_keyword", Callback(lambda x, scale=1: x * scale)))
    [outcome] = sandbox.plans([plan], 10)
    assert outcome.value == 12


def test_a_stand_in_kept_from_an_earlier_request_matches_nothing_later(sandbox):
    first, later = Board(), Board()
    keep = Plan("keep")
    keep.returns(keep.call("m.keep", proxy(first)))
    assert sandbox.plans([keep], 10)[0].value == "kept"
    use = Plan("use_kept")
    use.call("m.walk", proxy(later), 0)        # a proxy in this plan too, numbered anew
    use.returns(use.call("m.use_kept"))
    [outcome] = sandbox.plans([use], 10)
    assert outcome.raised["type"] == "RuntimeError"
    assert first.log == [] and later.log == ["evaluate"]


def test_a_map_with_the_graders_functions_patched_in(sandbox):
    """Student.map(play=): the grader's function stands in for the student's during
    each call of the request; the student's comes back after it."""
    seen = []
    outcomes = sandbox.map("m.twice_and_stash", [(1,), (2,)], 5,
                           patches={"m.helper": Callback(lambda x: seen.append(x) or 10 * x)})
    assert [o.value for o in outcomes] == [20, 40] and seen == [1, 1, 2, 2]
    assert [o.value for o in sandbox.map("m.twice", [()], 5)] == [3]


def test_a_patched_in_function_kept_past_its_request_answers_nothing(sandbox):
    """The attack: keep the grader's stand-in (an answer key for the function it plays)
    and call it in a later check. Outside a request with patches it is refused by the
    child; inside another one, by the grader (its number belongs to the old request).
    Its honest twin, the same call during its own request, is answered."""
    calls = []
    grader = Callback(lambda x: calls.append(x) or 7 * x)
    [honest] = sandbox.map("m.twice_and_stash", [(3,)], 5, patches={"m.helper": grader})
    assert honest.value == 42 and calls == [3, 3]
    [outside] = sandbox.map("m.use_stash", [(5,)], 5)
    assert outside.raised["type"] == "RuntimeError"
    [inside] = sandbox.map("m.use_stash", [(5,)], 5,
                           patches={"m.helper": Callback(lambda x: 1000)})
    assert inside.raised["type"] == "RuntimeError"
    assert "no such object" in inside.raised["message"]
    assert calls == [3, 3]


def test_an_object_the_grader_keeps_reaches_its_functions_as_its_handle(sandbox):
    """A function the grader plays in is called with an object of the student's (a
    Game the check made and passes on): the object travels back as the handle the
    grader holds for it, so the grader knows which one it was given. An object the
    grader never kept still cannot be sent (the call raises TypeError in the child)."""
    from autograder.sandbox.protocol import Handle
    made = sandbox.call("m.Shape", (3,), {}, timeout=5, keep=True)
    other = sandbox.call("m.Shape", (4,), {}, timeout=5, keep=True)
    seen = []
    sizes = {made.value.number: 3, other.value.number: 4}
    played = Callback(lambda shape: seen.append(shape) or sizes[shape.number] * 10)
    outcomes = sandbox.map("m.measure", [(made.value,), (other.value,)], 5,
                           patches={"m.helper": played})
    assert [o.value for o in outcomes] == [30, 40]
    assert seen == [made.value, other.value] and all(type(h) is Handle for h in seen)
    plan = Plan("measure")
    plan.patch("m.helper", played)
    plan.returns(plan.call("m.measure", plan.call("m.Shape", 5), catch=True))
    [outcome] = sandbox.plans([plan], 5)
    assert outcome.value["raised"]["type"] == "TypeError", outcome
    assert len(seen) == 2


def test_a_pure_function_is_asked_once_per_question_and_request(sandbox):
    """Callback(pure=True): a question asked again in the same request is answered
    in the child from the grader's first answer, decoded afresh (spoiling the first
    answer changes nothing); an impure one is asked every time; a question whose
    answer was an exception is asked again; the next request asks again."""
    asked = []
    grader = lambda x: asked.append(x) or [x, 2 * x]           # noqa: E731
    [outcome] = sandbox.map("m.ask_twice_and_spoil", [(3,)], 5,
                            patches={"m.helper": Callback(grader, pure=True)})
    assert outcome.value == ([3, 6, "spoiled"], [3, 6], [4, 8]) and asked == [3, 4]
    sandbox.map("m.ask_twice_and_spoil", [(3,), (3,)], 5,
                patches={"m.helper": Callback(grader, pure=True)})
    assert asked == [3, 4, 3, 4]        # a new request: asked again, then remembered
    sandbox.map("m.ask_twice_and_spoil", [(3,)], 5, patches={"m.helper": Callback(grader)})
    assert asked == [3, 4, 3, 4, 3, 3, 4]

    def refuse(x):
        asked.append(("refused", x))
        raise ValueError("not this one")
    [refused] = sandbox.map("m.ask_until_refused", [(1,)], 5,
                            patches={"m.helper": Callback(refuse, pure=True)})
    assert refused.value == ["not this one"] * 2 and asked[-2:] == [("refused", 1)] * 2


def test_answers_given_ahead_are_answered_in_the_child(sandbox):
    """Callback(pure=True, known=Known(...)): once made (Known.prepare_all, as a
    warm-up makes them), a question among the answers given with the request is
    answered in the child (decoded afresh each time), any other is asked; the
    answers are made once, and forgotten in the child with the request."""
    asked, made = [], []
    grader = lambda x: asked.append(x) or [x, 2 * x]           # noqa: E731

    def answers():
        made.append(1)
        return [((3,), [3, 6]), ((5,), object())]     # an answer that cannot travel: left out
    known = Known(answers)
    assert made == []
    [outcome] = sandbox.map("m.ask_twice_and_spoil", [(3,)], 5,
                            patches={"m.helper": Callback(grader, pure=True, known=known)})
    assert asked == [3, 4] and made == [] and not known.ready     # not made: asked
    asked.clear()
    Known.prepare_all()
    assert known.ready and made == [1]
    before = sandbox.callbacks
    [outcome] = sandbox.map("m.ask_twice_and_spoil", [(3,)], 5,
                            patches={"m.helper": Callback(grader, pure=True, known=known)})
    assert outcome.value == ([3, 6, "spoiled"], [3, 6], [4, 8])
    assert asked == [4] and sandbox.callbacks == before + 1 and made == [1]
    [outcome] = sandbox.map("m.ask_twice_and_spoil", [(4,)], 5,
                            patches={"m.helper": Callback(grader, pure=True, known=known)})
    assert outcome.value == ([4, 8, "spoiled"], [4, 8], [5, 10]) and asked == [4, 4, 5]
    sandbox.map("m.ask_twice_and_spoil", [(3,)], 5, patches={"m.helper": Callback(grader, pure=True)})
    assert asked == [4, 4, 5, 3, 4] and made == [1]


def test_answers_given_ahead_are_for_pure_callbacks_and_bounded(monkeypatch):
    with pytest.raises(ValueError):
        Callback(abs, known=Known([((1,), 1)]))
    with pytest.raises(ValueError):
        Callback(abs, pure=True, wait=False, known=Known([((1,), 1)]))
    monkeypatch.setattr(Known, "MAX_BYTES", 100)
    with pytest.raises(ValueError):
        Known([((n,), n) for n in range(100)]).text


def test_made_answers_pickle_as_their_text_and_arrive_ready():
    """A made Known travels as its text alone (a platform package's expected values):
    unpickled, it is ready to send without its answers or their maker; one not yet
    made travels with what makes it."""
    made = Known(functools.partial(list, [((3,), [3, 6]), ((5,), 10)]))
    waiting = Known([((1,), 1)])
    made.make()
    copied = pickle.loads(pickle.dumps(made))
    assert copied.ready and copied.text == made.text and copied.answers == []
    assert b"functools" not in pickle.dumps(made)     # not its maker: only the text
    again = pickle.loads(pickle.dumps(waiting))
    assert not again.ready and again.answers == [((1,), 1)]


def test_student_work_has_one_request_type(sandbox):
    """The child serves a call, a map and a plan as one request ("run"); the requests it
    once served apart are unknown to it."""
    for op in ("call", "batch", "map", "plans"):
        outcome = sandbox.request({"op": op, "target": "m.helper", "args": [1]}, 5)
        assert outcome.failure == "bad_value" and f"unknown op '{op}'" in outcome.detail
    assert sandbox.call("m.helper", (1,), timeout=5).value == 1
    assert [o.value for o in sandbox.map("m.helper", [(2,), (3,)], 5)] == [2, 3]


def run_texts(sandbox, plans, count):
    from autograder.sandbox.plans import Registry
    return sandbox._run(plans, Registry(), [(5.0, None)] * count, None)


def test_a_map_gives_the_same_rows_called_as_stepped_through(sandbox):
    """A plan that is one call of its input is run as that call (child.runner's
    shortcut); the same calls stepped through the plan machinery answer alike: values,
    a second answer on the same (changed) input, the input after the call, an
    exception, a target that is not there."""
    inputs = '"[[]]","[[0]]","[[0,1]]"'
    call = '{"op":"call","target":"m.grow","args":{"__slot__":0}}'
    flags = ',"again":1,"inputs_after":1'
    direct = run_texts(sandbox, [f'{{"steps":[{call}],"result":{{"__slot__":1}},'
                                 f'"inputs":[{inputs}]{flags}}}'], 3)
    # a step after the call: not the shortcut's shape, so stepped through
    stepped = run_texts(sandbox, [f'{{"steps":[{call},{{"op":"value","value":0}}],'
                                  f'"result":{{"__slot__":1}},"inputs":[{inputs}]{flags}}}'],
                        3)
    seen = [[(o.value, o.args_after, o.again and (o.again.value, o.again.raised and
                                                   o.again.raised["type"]),
              o.raised and o.raised["type"]) for o in outcomes]
            for outcomes in (direct, stepped)]
    assert seen[0] == seen[1] == [(1, [[0]], (2, None), None),
                                  (2, [[0, 1]], (None, "ValueError"), None),
                                  (None, None, None, "ValueError")]
    gone = '{"op":"call","target":"m.gone","args":{"__slot__":0}}'
    for steps in (gone, f'{gone},{{"op":"value","value":0}}'):
        outcomes = run_texts(sandbox, [f'{{"steps":[{steps}],"result":{{"__slot__":1}},'
                                       f'"inputs":["[]","[]"]}}'], 2)
        assert [o.failure for o in outcomes] == ["missing", "missing"]
        assert "has no 'gone'" in outcomes[0].detail


def test_a_call_cannot_claim_its_function_is_missing(sandbox):
    """The child's own exception for a target that is not there, raised by the
    student's function, is the student's exception: a raise, never "missing" (its
    honest twin: a function that is not there is missing)."""
    [claimed] = sandbox.map("m.claim_missing", [()], 5)
    assert claimed.failure is None and claimed.raised["type"] == "StepFailed"
    plan = Plan("claim")
    plan.returns(plan.call("m.claim_missing"))
    [stepped] = sandbox.plans([plan], 5)
    assert stepped.failure is None and stepped.raised["type"] == "StepFailed"
    assert sandbox.call("m.not_there", timeout=5).failure == "missing"


def test_a_played_helper_is_one_object_in_every_call_of_a_map(sandbox):
    """The grader's function played in for a map is one stand-in for all its calls,
    as it was when a map patched once per request: code that keeps what it learnt of
    a helper by its identity learns it once a map (tests/tictactoe/hostile/played_file
    grades as before)."""
    outcomes = sandbox.map("m.helpers_seen", [(1,), (2,), (3,)], 5,
                           patches={"m.helper": Callback(abs)}, again=True)
    assert [(o.value, o.again.value) for o in outcomes] == [(1, 1)] * 3

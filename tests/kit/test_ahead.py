"""Answers given ahead to a proxy of the grader's game (plans.Ahead, search.Game.answers_ahead):
the child answers from the tables and records every call; the grader replays each on its own
game, so the game's records, the answers and every refusal are those of the long way."""

import pytest

from autograder.checking import search
from autograder.checking.search import Tree, TreeGame
from autograder.checking.verdicts import refused
from autograder.sandbox import client, protocol
from autograder.sandbox.client import Failure
from autograder.sandbox.plans import Callback, Plan, Proxy, Registry
from tests.conftest import student_sandbox

METHODS = ("nextstates", "evaluation", "terminal_test")

STUDENT = '''
def minimax(state, game, depth, top=True):
    if game.terminal_test(state) or depth == 0:
        return game.evaluation(state)
    values = [minimax(s, game, depth - 1, False) for s in game.nextstates(state)]
    return max(values) if top or depth % 2 else min(values)


def answers(state, game, depth):
    """Every question about every state below `state`, the refusals as text."""
    said, todo = [], [(state, depth)]
    while todo:
        state, depth = todo.pop()
        for ask in (game.terminal_test, game.evaluation):
            try:
                said.append(ask(state))
            except Exception as error:
                said.append(f"{type(error).__name__}: {error}")
        if depth:
            kids = game.nextstates(state)
            said.append(kids)
            todo += [(kid, depth - 1) for kid in kids]
    return said


def ask_often(state, game, times):
    said = []
    for _ in range(times):
        try:
            said.append(game.evaluation(state))
        except Exception as error:
            said.append(f"{type(error).__name__}: {error}")
    return said


def odd_questions(state, game):
    """A tuple, a keyword, a state never handed out, a grandchild first: the long way."""
    said = [game.nextstates(tuple(state)), game.evaluation(state=state)]
    kids = game.nextstates(state)
    said.append(game.nextstates(kids[0]))
    for question in ([999, 999], kids[0] + [0], True):
        try:
            said.append(game.evaluation(question))
        except Exception as error:
            said.append(f"{type(error).__name__}: {error}")
    return said


def with_helper(state, game, helper):
    return helper(1), game.evaluation(state), game.nextstates(state)


def peek(state, game):
    """Reads the child's tables and answers without asking (a lying child)."""
    import __main__
    (ahead,) = __main__._ahead.values()
    return sorted(ahead.tables["evaluation"].values())


def forge_earlier(state, game):
    """Asks ahead, then writes a reply of its own for the plan before."""
    import __main__, json, os
    value = game.evaluation(state)
    base, index = __main__._running
    with __main__._lock:
        os.write(__main__.WFD, (json.dumps([base, index - 1, 0, "forged"]) + "\\n").encode())
    return value


def minimax_early(state, game, depth):
    """minimax with its records held back (the writer waits for an age never reached),
    then its own row written straight to the pipe before them: they arrive after it."""
    import __main__, json, os
    pending = __main__._pending
    pending.AGE = 1e9
    value = minimax(state, game, depth)
    base, index = __main__._running
    with pending.guard:
        del pending.AGE         # the class's again, once the row is out
        pending.written = 0.0   # and the child's own row goes out at once, with them
        with __main__._lock:
            os.write(__main__.WFD, (json.dumps([base, index, RETURNED, value]) + "\\n").encode())
    return value


def record_earlier(number, state, times):
    """Records, in a later plan, questions of the plan before's game: late records."""
    import __main__
    base, index = __main__._running
    for _ in range(times):
        __main__._pending.add_text(f'["{base}",{index - 1},{protocol.KNEW},'
                                   f'[{number},"evaluation",[{state}]]]\\n')
    return times


def forge(state, game):
    """Records questions it never asked, about a state never handed out."""
    import __main__
    (ahead,) = __main__._ahead.values()
    base, index = __main__._running
    __main__._pending.add_text(
        f'["{base}",{index},{protocol.KNEW},[{ahead.number},"evaluation",[[999, 999]]]]\\n')
    return game.evaluation(state)


def forge_tables(state, game, which):
    """Records evaluation questions of the tables it never asked: about a grandchild
    of the root (not handed out yet), or about the root five times."""
    import __main__
    (ahead,) = __main__._ahead.values()
    base, index = __main__._running
    if which == "grandchild":
        kid = game.nextstates(state)[0]
        import json
        lines = ahead.tables["nextstates"]
        state = json.loads(lines[json.dumps([kid], separators=(",", ":"))])["r"][0]
    for _ in range(1 if which == "grandchild" else 5):
        __main__._pending.add_text(f'["{base}",{index},{protocol.KNEW},'
                                   f'[{ahead.number},"evaluation",[{state}]]]\\n')
    return "forged"
'''.replace("{protocol.KNEW}", str(protocol.KNEW)).replace("RETURNED", str(protocol.RETURNED))


class NoAhead(TreeGame):
    """The same game, asked the long way."""

    def ahead_key(self):
        return None


CASE = Tree("ahead", (7, 4, (2, 3)), seed=3)


def game(kind=TreeGame, limit=None, case=CASE):
    made = kind(case.tree(), case.tokens())
    made.limit = limit
    return made


def root(made):
    return made.shown(made.tree["root"])


def records(made):
    return (made.log, made.calls, made.handout.given, made.handout.log, made.parent,
            made.handout.refused, made.handout.refusals)


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    with student_sandbox(tmp_path_factory.mktemp("ahead"), STUDENT) as box:
        yield box


def both_ways(sandbox, function, *args, limit=None):
    """(outcome, game) asked with the answers given ahead, then the long way."""
    made = []
    for kind in (TreeGame, NoAhead):
        g = game(kind, limit)
        plan = Plan(function)
        plan.returns(plan.call("m." + function, root(g), Proxy(g, ask=METHODS), *args))
        before = sandbox.answered_ahead
        [outcome] = sandbox.plans([plan], 10)
        made.append((outcome, g, sandbox.answered_ahead - before))
    return made


def test_a_search_answered_ahead_leaves_the_records_of_the_long_way(sandbox):
    (fast, fast_game, ahead), (slow, slow_game, none) = both_ways(sandbox, "minimax", 4)
    assert fast.ok and fast.value == slow.value
    assert records(fast_game) == records(slow_game) and fast_game.calls > 20
    assert ahead == fast_game.calls and none == 0


def test_every_answer_given_ahead_is_the_games_own(sandbox):
    (fast, fast_game, ahead), (slow, slow_game, _) = both_ways(sandbox, "answers", 9)
    assert fast.value == slow.value and records(fast_game) == records(slow_game)
    assert ahead > 50


def test_a_refusal_past_the_limit_reaches_the_same_call(sandbox):
    (fast, fast_game, ahead), (slow, slow_game, _) = both_ways(sandbox, "ask_often", 9,
                                                               limit=5)
    assert fast.value == slow.value and records(fast_game) == records(slow_game)
    assert fast.value[:5] == [fast_game.worth(fast_game.tree["root"])] * 5
    assert all("at most 5 calls" in said for said in fast.value[5:]) and ahead == 5


def test_odd_questions_go_the_long_way_and_are_answered_as_before(sandbox):
    (fast, fast_game, ahead), (slow, slow_game, _) = both_ways(sandbox, "odd_questions")
    assert fast.value == slow.value and records(fast_game) == records(slow_game)
    assert ahead == 2       # nextstates of the root and of its first child
    assert fast_game.handout.refusals == 3


def test_a_plan_with_another_object_of_the_graders_gets_no_answers_ahead(sandbox):
    g = game()
    plan = Plan("with_helper")
    plan.returns(plan.call("m.with_helper", root(g), Proxy(g, ask=METHODS),
                           Callback(lambda x: x + 1)))
    before = sandbox.answered_ahead
    [outcome] = sandbox.plans([plan], 10)
    assert outcome.ok and sandbox.answered_ahead == before and g.calls == 2


def test_a_game_gives_its_answers_ahead_once_and_only_to_a_lone_proxy():
    g = game()
    first, second = Registry(), Registry()
    lone = Plan("lone")
    lone.call("m.minimax", root(g), Proxy(g, ask=METHODS), 2)
    assert '"given"' in lone.wire(first, range(0, 1)) and first.tables
    again = Plan("again")
    again.call("m.minimax", root(g), Proxy(g, ask=METHODS), 2)
    assert '"given"' not in again.wire(second, range(0, 1)) and not second.tables
    shared = Plan("shared")
    other = game()
    shared.call("m.minimax", root(other), Proxy(other, ask=METHODS), Proxy(other, ask=METHODS))
    assert '"given"' not in shared.wire(Registry(), range(0, 1)) and not other.given_ahead


def test_the_tables_are_what_the_game_answers_on_replay():
    for case in (CASE, Tree("aima-5-2", seed=1), Tree("depth-limit", seed=None)):
        g = game(case=case)
        answers = g.ahead_answers(METHODS)
        assert answers["nextstates"]
        live = game(case=case)
        for method in ("nextstates", "terminal_test", "evaluation"):
            for (state,), value in answers[method]:
                live.handout.given.add(live.key(state))
                assert getattr(live, method)(state) == value
        # a state handed out is asked back by the text the table keys it with
        for (state,), kids in answers["nextstates"]:
            for kid in kids:
                assert live.key(protocol.loads(protocol.arguments_text((kid,)))[0]) in \
                    live.handout.given


def test_a_real_positions_tables_are_what_it_answers_on_replay():
    """gametree's games of real positions (a suite's Game subclass, signed as the suite
    makes them): the tables from the hooks equal the methods' answers, and the key
    says what the answers depend on (the spec)."""
    from autograder.suites.gametree import cases
    from autograder.suites.gametree.test_hidden import B4X3, variant
    for mode in ("exact", "lines"):
        spec = variant((), B4X3, 7, mode=mode)
        g = cases.make_game(spec, 100)
        assert g.ahead_key() == cases.make_game(spec, 100).ahead_key()
        assert g.ahead_key() != cases.make_game(variant((), B4X3, 8, mode=mode), 100).ahead_key()
        ahead = g.answers_ahead(METHODS)
        assert set(ahead.tables) == set(METHODS) and ahead.left == 100
        live = cases.make_game(spec)
        for method in METHODS:
            lines = ahead.tables[method].split("\n")
            assert len(lines) > 40
            for text, line in zip(lines[0::2], lines[1::2]):
                (state,) = protocol.loads(text)
                live.handout.given.add(live.key(state))
                assert getattr(live, method)(state) == protocol.loads(line)["r"]


def test_a_child_reading_its_tables_gains_no_record(sandbox):
    g = game()
    plan = Plan("peek")
    plan.returns(plan.call("m.peek", root(g), Proxy(g, ask=METHODS)))
    [outcome] = sandbox.plans([plan], 10)
    assert outcome.ok and outcome.value        # it read every value ...
    assert g.log == [] and g.calls == 0         # ... and the grader saw no question


def test_a_reply_forged_for_the_plan_before_comes_after_its_own(sandbox):
    """The plan before's row is written before the student's code gets answers ahead
    (as its first question asked the long way wrote it), so a forged one is stale."""
    g = game()
    plans = []
    for _ in range(2):      # the second's row is made within Batched.AGE of the first's
        before = Plan("before")
        plans.append(before.returns(before.call("m.ask_often", root(g), None, 0)))
    forging = Plan("forge_earlier")
    plans.append(forging.returns(forging.call("m.forge_earlier", root(g),
                                              Proxy(g, ask=METHODS))))
    first, second, third = sandbox.plans(plans, 10)
    assert first.value == second.value == [] and third.ok
    assert g.log == [("e", g.tree["root"])]


def test_records_that_come_after_their_plans_row_are_recorded_as_in_time(sandbox):
    """A search that writes its own row while its records are still buffered: they
    arrive after its plan's row, and the grader records them on its game as if they had
    come in time (never answered). Its game's records are its honest twin's."""
    made = []
    for function in ("minimax", "minimax_early"):
        g = game()
        search = Plan(function)
        search.returns(search.call("m." + function, root(g), Proxy(g, ask=METHODS), 4))
        after = Plan("after")
        after.returns(after.call("m.ask_often", root(g), None, 0))
        before = sandbox.answered_ahead
        made.append((sandbox.plans([search, after], 10), g, sandbox.answered_ahead - before))
    (honest, honest_game, asked), (early, early_game, recorded) = made
    assert [o.value for o in early] == [o.value for o in honest] and honest[1].value == []
    assert records(early_game) == records(honest_game) and honest_game.calls > 20
    assert recorded == asked == honest_game.calls


def test_late_records_count_against_the_caps_of_the_plan_being_read(sandbox, monkeypatch):
    """Records of the plan before sent in a later plan's time are recorded, each
    counted against the later plan's calls: more than MAX_CALLBACKS stop it."""
    monkeypatch.setattr(client, "MAX_CALLBACKS", 40)
    for times, fails in ((30, False), (60, True)):
        g = game()
        number = sandbox._next_number       # the first proxy's number in the request
        first = Plan("ask_often")
        first.returns(first.call("m.ask_often", root(g), Proxy(g, ask=METHODS), 1))
        second = Plan("record_earlier")
        second.returns(second.call("m.record_earlier", number, root(g), times))
        done, late = sandbox.plans([first, second], 10)
        assert done.value == [g.worth(g.tree["root"])]
        if fails:
            assert late.failure == Failure.PROTOCOL and "more than 40 calls" in late.detail
            assert g.calls == 1 + 40      # the 41st record stops the plan unrecorded
            sandbox.kill()
            sandbox.start()
            assert sandbox.import_modules(10).ok
        else:
            assert late.value == times and g.calls == 1 + times
            assert g.log == [("e", g.tree["root"])] * (1 + times)


def test_a_child_forging_records_is_refused_as_if_it_had_asked(sandbox):
    g = game()
    plan = Plan("forge")
    plan.returns(plan.call("m.forge", root(g), Proxy(g, ask=METHODS)))
    [outcome] = sandbox.plans([plan], 10)
    assert g.handout.refusals == 1 and "is not a state of this game" in g.handout.refused[0]
    assert g.calls == 2 and g.log == [("e", g.tree["root"])]
    # the case is judged by the refusal the grader's game kept, as after an asked question
    judged = refused(outcome, g.handout)
    assert outcome.ok and not judged.ok and "is not a state of this game" in judged.detail


def test_a_game_whose_hooks_fail_gives_nothing_ahead():
    class Broken(TreeGame):
        def moves(self, key):
            raise KeyError(key)
    assert Broken(CASE.tree(), CASE.tokens()).answers_ahead(METHODS) is None


def test_a_game_without_a_key_gives_nothing_ahead():
    assert NoAhead(CASE.tree(), CASE.tokens()).answers_ahead(METHODS) is None
    assert search.Game([(0,)]).answers_ahead(METHODS) is None


def test_tables_that_tell_otherwise_than_the_game_are_a_grader_error(sandbox):
    """The tables are made once per game's key (cached), and the calls answered from them
    are recorded from them: a key that misses what the answers depend on would give one
    game another's answers. A game checks the tables against its own answers about its
    roots before it gives them, and a difference fails the check as the kit's error
    instead of judging answers the game never gave."""
    class KeyedBadly(TreeGame):
        def ahead_key(self):
            return "one key for every tree"

    assert game(KeyedBadly).answers_ahead(METHODS) is not None
    g = game(KeyedBadly, case=Tree("ahead-wrong", (7, 4, (2, 3)), seed=5))
    plan = Plan("minimax")
    plan.returns(plan.call("m.minimax", root(g), Proxy(g, ask=METHODS), 4))
    with pytest.raises(RuntimeError, match="grader error: the answers given ahead to "
                                           "nextstates"):
        sandbox.plans([plan], 10)
    # the child is ready for the next request, answered as before
    (fast, fast_game, ahead), (slow, slow_game, _) = both_ways(sandbox, "minimax", 4)
    assert fast.value == slow.value and records(fast_game) == records(slow_game) and ahead


class ValuedBadly(TreeGame):
    """A key that misses `bonus`, which changes the leaves' values below the root only."""
    bonus = 0

    def ahead_key(self):
        return "one key whatever the bonus"

    def worth(self, key):
        return super().worth(key) + (self.bonus if key != self.tree["root"] else 0)


def test_a_key_missing_what_deeper_answers_depend_on_is_found_by_the_suite_doctor(
        monkeypatch):
    """Grading compares the tables with a game's own answers about its roots only (the
    whole comparison costs as much as making them), so a key that misses what changes
    only deeper answers gets past it; the suite doctor sets CHECK_AHEAD, and then every
    state of the tables is compared and the difference is the kit's error."""
    assert game(ValuedBadly).answers_ahead(METHODS) is not None      # cached under the key
    deeper = game(ValuedBadly)
    deeper.bonus = 1
    assert deeper.answers_ahead(METHODS) is not None                 # the roots agree
    monkeypatch.setenv(search.CHECK_AHEAD, "1")
    checked = game(ValuedBadly)
    checked.bonus = 1
    with pytest.raises(RuntimeError, match="grader error: the answers given ahead to "
                                           "evaluation"):
        checked.answers_ahead(METHODS)
    same = game(ValuedBadly)                                         # an equal game passes
    assert same.answers_ahead(METHODS) is not None


def question(made, rng):
    """A question about the game's tree: mostly about a state handed out, else about
    any of its states (not handed out yet), a tuple, a state of no game, by keyword,
    with a second argument."""
    given = sorted(made.handout.given, key=str)
    state = made.shown(rng.choice(given if rng.random() < 0.8 else sorted(made.depths)))
    odd = rng.random()
    args, kwargs = ((tuple(state),), {}) if odd < 0.05 else (([999, 999],), {}) \
        if odd < 0.1 else ((), {"state": state}) if odd < 0.15 else \
        ((state, 1), {}) if odd < 0.2 else ((state,), {})
    return rng.choice(METHODS), args, kwargs


@pytest.mark.parametrize("seed", range(6))
def test_a_record_of_the_tables_is_recorded_as_the_call_itself(seed):
    """Game.replayed (a KNEW row) against the method itself, on equal games, for
    questions in any order, forged ones included (about states not handed out, past
    the limit, garbled): the same log, calls, handout, parents and refusals."""
    import random
    rng = random.Random(seed)
    limit = rng.choice((None, 60, 300))
    fast, slow = game(limit=limit), game(NoAhead, limit=limit)
    assert fast.answers_ahead(METHODS) is not None
    the_long_way = []
    for method in METHODS:      # the call itself, where replayed finds no record
        setattr(fast, method, lambda *a, _m=getattr(fast, method), **k:
                the_long_way.append(1) or _m(*a, **k))
    for _ in range(400):
        method, args, kwargs = question(slow, rng)
        for made, call in ((fast, lambda: fast.replayed(method, *args, **kwargs)),
                           (slow, lambda: getattr(slow, method)(*args, **kwargs))):
            try:
                call()
            except Exception as error:
                made.handout.refused.append(type(error).__name__)
    assert records(fast) == records(slow) and len(fast.log) >= min(limit or 99, 99) / 2
    assert 400 - len(the_long_way) >= (limit or 400) / 4      # most within the limit


def test_a_real_positions_record_of_the_tables_is_recorded_as_the_call_itself():
    """The same for gametree's games of real positions, signed as the suite makes them."""
    import random
    from autograder.suites.gametree import cases
    from autograder.suites.gametree.test_hidden import B4X3, variant
    spec, rng = variant((), B4X3, 7, mode="lines"), random.Random(4)
    fast, slow = cases.make_game(spec, 60), cases.make_game(spec, 60)
    ahead = fast.answers_ahead(METHODS)
    states = [protocol.loads(text)[0] for text in ahead.tables["nextstates"].split("\n")[0::2]]
    for _ in range(300):
        method, state = rng.choice(METHODS), rng.choice(states)
        for made, call in ((fast, fast.replayed), (slow, lambda m, s: getattr(slow, m)(s))):
            try:
                call(method, state)
            except Exception as error:
                made.handout.refused.append(type(error).__name__)
    assert records(fast) == records(slow) and fast.handout.refusals > 0


def test_a_child_forging_records_of_the_tables_gains_nothing(sandbox):
    """Records of questions among the tables that the student's code never asked: about
    a state not handed out yet, and more than the game's limit. Each is refused as the
    question asked would be, and the case fails on the refusal the game kept."""
    for limit, state in ((None, "grandchild"), (3, "root")):
        g = game(limit=limit)
        plan = Plan("forge_tables")
        plan.returns(plan.call("m.forge_tables", root(g), Proxy(g, ask=METHODS), state))
        [outcome] = sandbox.plans([plan], 10)
        assert outcome.ok and g.handout.refusals >= 1
        assert not refused(outcome, g.handout).ok
    # the honest twin asks what it may, and is judged on it
    g = game(limit=3)
    plan = Plan("ask_often")
    plan.returns(plan.call("m.ask_often", root(g), Proxy(g, ask=METHODS), 3))
    [outcome] = sandbox.plans([plan], 10)
    assert refused(outcome, g.handout).ok and g.calls == 3 and g.handout.refusals == 0

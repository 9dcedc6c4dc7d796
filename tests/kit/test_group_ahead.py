"""Answers given ahead to a group of callbacks that share one game (plans.Callback(of=...),
Registry.give_group, the child's Member): one count and one set of states handed out for
the group; a member that plays a method of the game's tables is answered from them and
recorded by the game in order, any other member is asked the long way, and a call of any
other object of the grader's stops the answers ahead. The game's records, the answers and
every refusal are those of the long way, whatever the child writes."""

import pytest

from autograder.checking.search import Tree, TreeGame
from autograder.checking.standins import stand_in
from autograder.checking.verdicts import refused
from autograder.sandbox import protocol
from autograder.sandbox.plans import Callback, Plan, Proxy, Registry, plays_method
from tests.conftest import student_sandbox

STUDENT = '''
def minimax(state, nextstates, evaluation, terminal_test, depth, order=None, top=True):
    if terminal_test(state) or depth == 0:
        return evaluation(state)
    kids = nextstates(state)
    if order is not None:
        kids = order(kids)
    values = [minimax(s, nextstates, evaluation, terminal_test, depth - 1, order, False)
              for s in kids]
    return max(values) if top or depth % 2 else min(values)


def ask_often(state, nextstates, evaluation, terminal_test, times):
    said = []
    for _ in range(times):
        try:
            said.append(evaluation(state))
        except Exception as error:
            said.append(f"{type(error).__name__}: {error}")
    return said


def mixed(state, nextstates, evaluation, terminal_test, times):
    """Questions of a member without a table and of one with, in turn."""
    said = []
    for _ in range(times):
        for ask in (terminal_test, evaluation):
            try:
                said.append(ask(state))
            except Exception as error:
                said.append(f"{type(error).__name__}: {error}")
    return said


def forge(state, nextstates, evaluation, terminal_test, which):
    """Records of questions it never asked: about a grandchild not handed out yet, about
    the root five times (past a limit of 3), or of a member that has no table."""
    import __main__, json
    number = {"grandchild": 0, "often": 0, "tableless": 2}[which]
    member = [m for m in __main__._ahead.values()][number]
    base, index = __main__._running
    if which == "grandchild":
        kid = nextstates(state)[0]
        line = member.ahead.tables["nextstates"][json.dumps([kid], separators=(",", ":"))]
        state = json.loads(line)["r"][0]
    for _ in range(1 if which == "grandchild" else 5):
        __main__._pending.add_text(f'["{base}",{index},{protocol.KNEW},'
                                   f'[{member.number},"__call__",[{json.dumps(state)}]]]\\n')
    return "forged"
'''.replace("{protocol.KNEW}", str(protocol.KNEW))


class NoAhead(TreeGame):
    """The same game, asked the long way."""

    def ahead_key(self):
        return None


CASE = Tree("group", (7, 4, (2, 3)), seed=5)


def game(kind=TreeGame, limit=None):
    made = kind(CASE.tree(), CASE.tokens())
    made.limit = limit
    return made


def root(made):
    return made.shown(made.tree["root"])


def records(made):
    return (made.log, made.calls, made.handout.given, made.handout.log, made.parent,
            made.handout.refused, made.handout.refusals)


def spec_nextstates(state):
    """The specified nextstates (a stand-in takes its signature)."""


def members(made, terminal=True, helper=None):
    """nextstates and evaluation as the game's (one bound, one a stand-in), terminal_test
    a member without a table where `terminal` (the handout's rule on the game), else the
    game's own; `helper` an order function."""
    group = [Callback(made.nextstates, of=made),
             Callback(stand_in(spec_nextstates, made.evaluation, name="evaluation"), of=made)]
    if terminal:
        group.append(Callback(lambda state: made.decided(made.asked("terminal_test", state)),
                              of=made))
    else:
        group.append(Callback(made.terminal_test, of=made))
    return group


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    with student_sandbox(tmp_path_factory.mktemp("group"), STUDENT) as box:
        yield box


def both_ways(sandbox, function, *args, limit=None, order=None, **kinds):
    """(outcome, game, questions answered ahead) with the group's answers, then the long
    way; `order(game)`: the order callback passed to minimax."""
    made = []
    for kind in (TreeGame, NoAhead):
        g = game(kind, limit)
        plan = Plan(function)
        extra = () if order is None else (order(g),)
        plan.returns(plan.call("m." + function, root(g), *members(g, **kinds), *args,
                               *extra))
        before = sandbox.answered_ahead
        [outcome] = sandbox.plans([plan], 10)
        made.append((outcome, g, sandbox.answered_ahead - before))
    return made


def test_a_search_through_a_group_leaves_the_records_of_the_long_way(sandbox):
    (fast, fast_game, ahead), (slow, slow_game, none) = both_ways(sandbox, "minimax", 4,
                                                                  terminal=False)
    assert fast.ok and fast.value == slow.value
    assert records(fast_game) == records(slow_game) and fast_game.calls > 20
    assert ahead == fast_game.calls and none == 0


def test_a_member_without_a_table_is_asked_the_long_way_and_the_group_goes_on(sandbox):
    (fast, fast_game, ahead), (slow, slow_game, _) = both_ways(
        sandbox, "minimax", 4, order=lambda g: Callback(lambda kids: kids[::-1], of=g))
    assert fast.ok and fast.value == slow.value and records(fast_game) == records(slow_game)
    terminal_tests = sum(q == "terminal_test" for q, _key in fast_game.handout.log)
    assert terminal_tests > 10 and ahead == fast_game.calls - terminal_tests


def test_a_call_of_another_object_of_the_graders_stops_the_answers_ahead(sandbox):
    (fast, fast_game, ahead), (slow, slow_game, _) = both_ways(
        sandbox, "minimax", 4, order=lambda g: Callback(lambda kids: kids[::-1]))
    assert fast.ok and fast.value == slow.value and records(fast_game) == records(slow_game)
    assert 0 < ahead < 4        # the root's questions, before its first order call


def test_a_refusal_past_the_limit_reaches_the_same_call(sandbox):
    (fast, fast_game, ahead), (slow, slow_game, _) = both_ways(sandbox, "ask_often", 9,
                                                               limit=5)
    assert fast.value == slow.value and records(fast_game) == records(slow_game)
    assert all("at most 5 calls" in said for said in fast.value[5:]) and ahead == 5


def test_the_long_way_of_a_member_without_a_table_counts_against_the_limit(sandbox):
    (fast, fast_game, ahead), (slow, slow_game, _) = both_ways(sandbox, "mixed", 5, limit=5)
    assert fast.value == slow.value and records(fast_game) == records(slow_game)
    assert all("at most 5 calls" in said for said in fast.value[5:]) and ahead == 2


def test_a_child_forging_records_of_a_group_gains_nothing(sandbox):
    """Records never asked: about a state not handed out yet, past the game's limit (each
    refused as the question asked would be; the case fails on the refusal the game kept),
    or of a member without a table (dropped: it was never given ahead)."""
    for limit, which in ((None, "grandchild"), (3, "often")):
        g = game(limit=limit)
        plan = Plan("forge")
        plan.returns(plan.call("m.forge", root(g), *members(g), which))
        [outcome] = sandbox.plans([plan], 10)
        assert outcome.ok and g.handout.refusals >= 1
        assert not refused(outcome, g.handout).ok
    g = game()
    plan = Plan("forge")
    plan.returns(plan.call("m.forge", root(g), *members(g), "tableless"))
    [outcome] = sandbox.plans([plan], 10)
    assert outcome.ok and g.log == [] and g.calls == 0 and g.handout.log == []
    # the honest twin asks what it may, and is judged on it
    g = game(limit=3)
    plan = Plan("ask_often")
    plan.returns(plan.call("m.ask_often", root(g), *members(g), 3))
    [outcome] = sandbox.plans([plan], 10)
    assert refused(outcome, g.handout).ok and g.calls == 3 and g.handout.refusals == 0


def wired(plan):
    registry = Registry()
    return plan.wire(registry, range(0, 1)), registry


def test_a_group_is_given_answers_only_alone_and_of_one_game():
    g, other = game(), game()
    lone = Plan("lone")
    lone.call("m.minimax", root(g), *members(g), 2)
    text, registry = wired(lone)
    assert text.count('"group"') == 3 and registry.tables
    assert [entry.ahead != {} for entry in registry.entries.values()] == [True, True, False]
    for kind in ("proxy", "two games"):
        g, other = game(), game()
        plan = Plan(kind)
        nextstates, evaluation, terminal = members(g)
        if kind == "proxy":
            plan.call("m.minimax", root(g), nextstates, evaluation, terminal, 2,
                      Proxy(other, ask=("evaluation",)))
        else:
            plan.call("m.minimax", root(g), nextstates, evaluation,
                      Callback(other.terminal_test, of=other), 2)
        text, registry = wired(plan)
        assert '"group"' not in text and not registry.tables and not g.given_ahead


def test_a_member_plays_a_method_of_the_game_only_as_it_is_called():
    g, other = game(), game()

    def keyword_only(state, *, deep=False):
        """A signature that passes a keyword on."""

    assert plays_method(g.nextstates, g) == "nextstates"
    assert plays_method(stand_in(spec_nextstates, g.evaluation, name="e"), g) == "evaluation"
    assert plays_method(stand_in(keyword_only, g.evaluation), g) is None
    assert plays_method(other.nextstates, g) is None
    assert plays_method(lambda state: g.nextstates(state), g) is None
    assert plays_method(stand_in(spec_nextstates, lambda s: g.evaluation(s)), g) is None

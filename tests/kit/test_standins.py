"""The grader's stand-ins take the specification's signature (issue 41): every
helper the grader plays and every object it hands the student's code accepts every
call the specified function accepts (positional, by its parameter names, with its
defaults) and refuses what the specified one refuses, as grading/standins.py builds
them from the reference's own signature."""

import inspect

import pytest

from autograder.checking import Blame, constant, played
from autograder.grading.reference import load_reference
from autograder.checking.standins import method_spec, signed, stand_in

muehle = load_reference("muehle", "muehle")


def test_a_stand_in_takes_every_call_the_specified_function_takes():
    asked = []
    order_value = stand_in(muehle.get_order_value, lambda *args: asked.append(args) or 0)
    order_value("s", 1, 3)
    order_value("s", player=1, depth=3)           # the call
    order_value(state="s", player=1, depth=3)
    assert asked == [("s", 1, 3)] * 3
    value_ab = stand_in(muehle.value_ab, lambda *args: args)
    assert value_ab("s", 2, depth=1) == ("s", 2, -1, 1, 1)      # the specified defaults
    with pytest.raises(TypeError, match="get_order_value"):
        order_value("s", 1, d=3)                  # a name the specification does not have
    with pytest.raises(TypeError):
        order_value("s", 1, 3, 4)


def test_the_grader_s_classes_take_the_specified_methods_signatures():
    class Board:
        def makeMove(self, m):                    # the grader's own parameter name
            return ("made", m)
    negamax = load_reference("negamax", "negamax")
    board = signed(Board, negamax.TicTacToe, ("makeMove",))()
    assert board.makeMove((0, 1)) == board.makeMove(move=(0, 1)) == ("made", (0, 1))
    with pytest.raises(TypeError):
        board.makeMove(m=(0, 1))
    assert isinstance(board, Board) and type(board).__name__ == "Board"
    assert str(method_spec(negamax.TicTacToe, "makeMove")) == "(move)"


def test_played_helpers_and_constants_take_the_reference_s_signature():
    helpers = played("muehle", type("Grader", (), {"get_order_value": staticmethod(
        lambda s, p, d: 0)}), ["get_order_value"], spec=muehle)
    helper = helpers["muehle.get_order_value"]
    assert helper("s", player=1, depth=2) == 0
    # the reference's own function is its own stand-in
    assert played("muehle", muehle, ["opponent"], spec=muehle)["muehle.opponent"] \
        is muehle.opponent
    negamax = load_reference("negamax", "negamax")
    answer = constant(2, method_spec(negamax.TicTacToe, "getSide"))
    assert answer() == 2
    with pytest.raises(TypeError):
        answer(1)
    assert Blame.of(__import__("autograder.assignment", fromlist=["load"]).load("muehle")) \
        .plays("alpha_beta")["muehle.get_order_value"] is muehle.get_order_value


SHAPES = ("()", "(a)", "(a, b=2)", "(a, /, b, c=3)", "(a=1, b=2)", "(a, *rest)",
          "(a, *, b)", "(a, b=2, **more)", "(a, b=2, *rest, c=3)")


@pytest.mark.parametrize("shape", SHAPES)
def test_stand_ins_pass_on_what_binding_the_specified_signature_gives(shape):
    """Positional calls skip the binding where they can: every call of every shape
    reaches the grader's function or method with the arguments `Signature.bind` gives
    (the same objects), or raises the TypeError the binding raises."""
    parameters = shape[1:-1]
    namespace = {}
    exec(f"def spec{shape}: pass\n"
         f"class Spec:\n    def method(self{', ' if parameters else ''}{parameters}): pass\n",
         namespace)
    signature = inspect.signature(namespace["spec"])
    assert method_spec(namespace["Spec"], "method") == signature

    class Grader:
        def method(self, *args, **kwargs):
            return args, kwargs
    function = stand_in(namespace["spec"], lambda *args, **kwargs: (args, kwargs))
    method = signed(Grader, namespace["Spec"], ("method",))().method
    values = [object() for _ in range(5)]
    for count in range(len(values) + 1):
        for names in ((), ("a",), ("b",), ("c",), ("b", "c"), ("z",)):
            args = values[:count]
            kwargs = {name: object() for name in names}
            try:
                bound = signature.bind(*args, **kwargs)
            except TypeError:
                with pytest.raises(TypeError, match="spec"):
                    function(*args, **kwargs)
                with pytest.raises(TypeError, match="method"):
                    method(*args, **kwargs)
                continue
            bound.apply_defaults()
            assert function(*args, **kwargs) == method(*args, **kwargs) \
                == (bound.args, bound.kwargs)

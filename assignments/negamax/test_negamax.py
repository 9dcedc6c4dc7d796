"""Public tests for negamax.py. Run them with `make check`.

Every test names the method it checks and shows the board it used and what your
method returned. The teacher's hidden tests check the same methods on thousands
of positions and also count your search's work (expanded nodes, evaluate calls),
so passing these is a start, not a guarantee.
"""

import math
import random
import traceback

import pytest

import negamax as nm
from kit_language import catalog

_ = catalog().gettext       # the course's language (kit_language.py)

INF = math.inf


def board(*rows):
    """A TicTacToe from three strings such as '1.2' ('.' is an empty cell)."""
    return nm.TicTacToe([[".12".index(c) for c in row] for row in rows])


def shown(game):
    return "\n".join("".join(".12"[c] for c in row) for row in game.field)


def call(method, *args):
    """method(*args); if it stops in another method that is still a stub, say which,
    so each method's line in `make check` speaks of that method only."""
    try:
        return method(*args)
    except NotImplementedError as error:
        stub = traceback.extract_tb(error.__traceback__)[-1].name
        if stub != method.__name__:
            raise AssertionError(_("{method} uses {stub}, which is not implemented yet: "
                                   "write {stub} first").format(method=method.__name__,
                                                                stub=stub)) from None
        raise


class Tree:
    """A tiny game tree as a board: a number is a leaf (player 1's view), a list
    holds the children, reached by the moves 0, 1, 2, ... Player `first` moves at
    the root. The search tests use it instead of your TicTacToe, so each of them
    checks your search alone, whatever your board does."""

    def __init__(self, tree, first=1):
        self.tree, self.path, self.evaluations, self.first = tree, [], 0, first

    def node(self):
        node = self.tree
        for move in self.path:
            node = node[move]
        return node

    def getMoves(self):
        node = self.node()
        return list(range(len(node))) if isinstance(node, list) else []

    def makeMove(self, move):
        self.path.append(move)

    def undoMove(self, move):
        assert self.path and self.path[-1] == move, \
            _("undoMove of a move that was not the last")
        self.path.pop()

    def evaluate(self):
        self.evaluations += 1
        node = self.node()
        return node if not isinstance(node, list) else 0

    def getSide(self):
        return self.first if len(self.path) % 2 == 0 else 3 - self.first


def on(game, method, got):
    """The board, the call and its answer: the placeholders of an assertion's message."""
    return {"call": method, "board": shown(game), "got": repr(got)}


@pytest.mark.checks("winner")
@pytest.mark.parametrize("rows, expected", [
    (("...", "...", "..."), 0),
    (("111", "22.", "..."), 1),
    (("2.2", "111", "2.."), 1),
    (("1.1", "2..", "222"), 2),
    (("12.", "12.", ".21"), 2),
    (("21.", ".12", ".1."), 1),
    (("1.2", "1.2", "..2"), 2),
    (("1.2", ".12", "2.1"), 1),
    (("..2", ".21", "21."), 2),
    (("121", "122", "211"), 0),
], ids=["empty", "top row", "middle row", "bottom row", "left column", "middle column",
        "right column", "diagonal", "anti-diagonal", "full board draw"])
def test_winner(rows, expected):
    game = board(*rows)
    got = call(game.winner)
    assert got == expected, _("{call} on\n{board}\nreturned {got}, expected {expected}").format(
        **on(game, "winner()", got), expected=expected)


@pytest.mark.checks("evaluate")
@pytest.mark.parametrize("rows, expected", [
    (("...", "...", "..."), 0),
    (("111", "22.", "..."), 14),
    (("12.", "12.", ".21"), -13),
    (("121", "122", "211"), 0),
], ids=["empty", "quick win for 1", "win for 2", "full board draw"])
def test_evaluate(rows, expected):
    game = board(*rows)
    got = call(game.evaluate)
    assert got == expected, _("{call} on\n{board}\nreturned {got}, expected {expected} (10 + "
                              "the empty cells for a win)").format(
        **on(game, "evaluate()", got), expected=expected)


@pytest.mark.checks("getSide")
@pytest.mark.parametrize("rows, expected", [
    (("...", "...", "..."), 1),
    (("...", ".1.", "..."), 2),
    (("2..", ".1.", "..."), 1),
    (("21.", ".1.", "21."), 2),
], ids=["empty", "one mark", "two marks", "five marks"])
def test_get_side(rows, expected):
    game = board(*rows)
    got = call(game.getSide)
    assert got == expected, _("{call} on\n{board}\nreturned {got}, expected {expected}: player 1 "
                              "moves on an even number of marks").format(
        **on(game, "getSide()", got), expected=expected)


@pytest.mark.checks("getMoves")
def test_get_moves():
    game = board("12.", ".1.", "2..")
    got = call(game.getMoves)
    assert got == [(2, 0), (0, 1), (2, 1), (1, 2), (2, 2)], \
        _("{call} on\n{board}\nreturned {got}: moves are (x, y), row by row from the top, "
          "left to right").format(**on(game, "getMoves()", got))
    game = board("111", "22.", "...")
    got = call(game.getMoves)
    assert got == [], _("{call} on\n{board}\nreturned {got}: a won game has no moves").format(
        **on(game, "getMoves()", got))


@pytest.mark.checks("makeMove")
def test_make_move():
    game = board("1..", "...", "...")
    game.getSide = lambda: 2            # this test's own getSide: it checks makeMove alone
    call(game.makeMove, (2, 1))
    assert game.field == [[1, 0, 0], [0, 0, 2], [0, 0, 0]], \
        _("{call} marks {cell} for player 2, got\n{board}").format(
            call="makeMove((2, 1))", cell="field[1][2]", board=shown(game))
    with pytest.raises(ValueError):
        call(game.makeMove, (0, 0))     # taken: makeMove must refuse it


@pytest.mark.checks("undoMove")
def test_undo_move():
    game = board("1..", "..2", "...")
    call(game.undoMove, (2, 1))
    assert game.field == [[1, 0, 0], [0, 0, 0], [0, 0, 0]], \
        _("{call} empties {cell} again, got\n{board}").format(
            call="undoMove((2, 1))", cell="field[1][2]", board=shown(game))
    with pytest.raises(ValueError):
        call(game.undoMove, (1, 1))     # empty: undoMove must refuse it


@pytest.mark.checks("explore")
def test_explore_on_a_textbook_tree():
    tree = Tree([[3, 12, 8], [2, 4, 6], [14, 5, 2]])
    searcher = nm.NegaMax(tree)
    got = call(searcher.explore, 2, -INF, INF)
    assert got == 3, _("{call} returned {got}: the value of the tree is 3").format(
        call="explore(2)", got=repr(got))
    assert tree.path == [], _("explore must take back every move it makes, left {path}").format(
        path=tree.path)
    assert searcher.treeNodeCounter == 4, \
        _("alpha-beta expands 4 nodes here (the root and its three children), "
          "counted {count}").format(count=searcher.treeNodeCounter)
    assert tree.evaluations == 7, \
        _("alpha-beta evaluates 7 of the 9 leaves here, not {count}").format(
            count=tree.evaluations)


@pytest.mark.checks("explore")
def test_explore_cuts_when_a_value_reaches_beta():
    # The second subtree's first leaf (3) makes it worth at most 3 to the player at the
    # root, who already has 3: a value equal to beta is a cut-off too (>=, not >).
    tree = Tree([[3, 12, 8], [3, 4, 6], [14, 5, 3]])
    searcher = nm.NegaMax(tree)
    got = call(searcher.explore, 2, -INF, INF)
    assert got == 3, _("{call} returned {got}: the value of the tree is 3").format(
        call="explore(2)", got=repr(got))
    assert tree.evaluations == 7, \
        _("alpha-beta evaluates 7 of the 9 leaves here, not {count}: cut as soon as a "
          "child's value is >= beta, equal included").format(count=tree.evaluations)


@pytest.mark.checks("explore")
def test_explore_leaf_is_seen_by_the_player_to_move():
    tree = Tree(14, first=2)            # a decided game: player 1 has won, player 2 to move
    got = call(nm.NegaMax(tree).explore, 3)
    assert got == -14, \
        _("{call} returned {got} on a decided game that evaluate() scores 14 (player 1 has "
          "won) with player 2 to move: for player 2 it is worth -14").format(
            call="explore(3)", got=repr(got))
    tree = Tree([[5, 7], [-3]], first=2)
    got = call(nm.NegaMax(tree).explore, 0)
    assert got == 0, _("{call} returned {got}: at depth 0 the value is evaluate(), 0 at this "
                       "tree's root").format(call="explore(0)", got=repr(got))


@pytest.mark.checks("explore")
def test_explore_is_fail_hard():
    tree = Tree([[3, 12, 8], [2, 4, 6], [14, 5, 2]])
    got = call(nm.NegaMax(tree).explore, 2, 4, 9)
    assert got == 4, _("{call} returned {got}: the value 3 is below alpha, so fail-hard "
                       "returns alpha, 4").format(call="explore(2, 4, 9)", got=repr(got))
    got = call(nm.NegaMax(Tree([[3, 12, 8], [2, 4, 6], [14, 5, 2]])).explore, 2, -5, 1)
    assert got == 1, _("{call} returned {got}: the value 3 is above beta, so fail-hard "
                       "returns beta, 1").format(call="explore(2, -5, 1)", got=repr(got))


@pytest.mark.checks("getEvaluatedMoves")
def test_evaluated_moves():
    tree = Tree([0, 0, -14, 0, 0], first=2)   # player 2 wins with move 2 (-14 for player 1)
    moves = call(nm.NegaMax(tree).getEvaluatedMoves, 1)
    assert [(v, m) for v, m, _ in moves] == [(14, 2), (0, 0), (0, 1), (0, 3), (0, 4)], \
        _("{call} returned {got} for player 2 on the leaves {leaves}: the winning move 2 "
          "comes first with 14 (the value for the player who makes it: -explore of the "
          "child), and the ties keep getMoves order").format(
            call="getEvaluatedMoves(1)", got=repr(moves), leaves="[0, 0, -14, 0, 0]")
    assert tree.path == [], _("every move must be taken back, left {path}").format(
        path=tree.path)


@pytest.mark.checks("getEvaluatedMoves")
def test_evaluated_moves_count_nodes_per_move():
    tree = Tree([[3, 12, 8], [3, 4, 6], [14, 5, 3]])
    moves = call(nm.NegaMax(tree).getEvaluatedMoves, 2)
    assert [(v, m) for v, m, _ in moves] == [(3, 0), (3, 1), (3, 2)], \
        _("{call} returned {got}: each move is searched with the full window, so three "
          "moves worth 3, in move order").format(call="getEvaluatedMoves(2)", got=repr(moves))
    assert [n for _, _, n in moves] == [1, 1, 1], \
        _("{call} returned {got}: one expanded node below each move (reset "
          "treeNodeCounter to 0 before each)").format(call="getEvaluatedMoves(2)",
                                                      got=repr(moves))


@pytest.mark.checks("getBestMove")
def test_best_move_chooses_among_equals():
    tree = Tree([0] * 9)
    picks = {call(nm.NegaMax(tree).getBestMove, 1, random.Random(seed)) for seed in range(60)}
    assert len(picks) > 1, \
        _("{call} with nine moves worth 0 always returned {got}: pick one of the equally "
          "best moves with {choice}").format(call="getBestMove(1, rng)", got=picks,
                                             choice="rng.choice(bestMoves)")
    got = call(nm.NegaMax(Tree(14)).getBestMove, 2)
    assert got is None, _("{call} returned {got} on a decided game: it has no move").format(
        call="getBestMove(2)", got=repr(got))


@pytest.mark.checks("play")
def test_play_makes_the_move_get_best_move_chose():
    tree = Tree([[14, 0], [0, 0]], first=2)
    opponent = nm.ShortSightedOpponent(tree, 2)
    asked, rng = [], random.Random(1)

    def getBestMove(depth=None, rng=None):   # this test's own: it checks play alone
        asked.append((depth, rng))
        return 1
    opponent.getBestMove = getBestMove
    move = call(opponent.play, rng)
    assert asked == [(2, rng)], \
        _("{call} asked {asked}: it asks {expected} once for its move").format(
            call="play()", asked=f"getBestMove{tuple(asked[0]) if asked else '()'}",
            expected="getBestMove(self.depth, rng)")
    assert move == 1, _("{call} returned {got}, not the move getBestMove chose (1)").format(
        call="play()", got=repr(move))
    assert tree.path == [1], \
        _("{call} returned 1 but the moves on the board are {path}: play makes its "
          "move").format(call="play()", path=tree.path)

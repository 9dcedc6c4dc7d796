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
            raise AssertionError(f"{method.__name__} uses {stub}, which is not implemented "
                                 f"yet: write {stub} first") from None
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
        assert self.path and self.path[-1] == move, "undoMove of a move that was not the last"
        self.path.pop()

    def evaluate(self):
        self.evaluations += 1
        node = self.node()
        return node if not isinstance(node, list) else 0

    def getSide(self):
        return self.first if len(self.path) % 2 == 0 else 3 - self.first


def on(game, method, got):
    """The board, the call and its answer, for an assertion's message."""
    return f"{method} on\n{shown(game)}\nreturned {got!r}"


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
    assert got == expected, f"{on(game, 'winner()', got)}, expected {expected}"


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
    assert got == expected, \
        f"{on(game, 'evaluate()', got)}, expected {expected} (10 + the empty cells for a win)"


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
    assert got == expected, \
        f"{on(game, 'getSide()', got)}, expected {expected}: player 1 moves on an even " \
        "number of marks"


@pytest.mark.checks("getMoves")
def test_get_moves():
    game = board("12.", ".1.", "2..")
    got = call(game.getMoves)
    assert got == [(2, 0), (0, 1), (2, 1), (1, 2), (2, 2)], \
        f"{on(game, 'getMoves()', got)}: moves are (x, y), row by row from the top, " \
        "left to right"
    game = board("111", "22.", "...")
    got = call(game.getMoves)
    assert got == [], f"{on(game, 'getMoves()', got)}: a won game has no moves"


@pytest.mark.checks("makeMove")
def test_make_move():
    game = board("1..", "...", "...")
    game.getSide = lambda: 2            # this test's own getSide: it checks makeMove alone
    call(game.makeMove, (2, 1))
    assert game.field == [[1, 0, 0], [0, 0, 2], [0, 0, 0]], \
        f"makeMove((2, 1)) marks field[1][2] for player 2, got\n{shown(game)}"
    with pytest.raises(ValueError):
        call(game.makeMove, (0, 0))     # taken: makeMove must refuse it


@pytest.mark.checks("undoMove")
def test_undo_move():
    game = board("1..", "..2", "...")
    call(game.undoMove, (2, 1))
    assert game.field == [[1, 0, 0], [0, 0, 0], [0, 0, 0]], \
        f"undoMove((2, 1)) empties field[1][2] again, got\n{shown(game)}"
    with pytest.raises(ValueError):
        call(game.undoMove, (1, 1))     # empty: undoMove must refuse it


@pytest.mark.checks("explore")
def test_explore_on_a_textbook_tree():
    tree = Tree([[3, 12, 8], [2, 4, 6], [14, 5, 2]])
    searcher = nm.NegaMax(tree)
    got = call(searcher.explore, 2, -INF, INF)
    assert got == 3, f"explore(2) returned {got!r}: the value of the tree is 3"
    assert tree.path == [], f"explore must take back every move it makes, left {tree.path}"
    assert searcher.treeNodeCounter == 4, \
        f"alpha-beta expands 4 nodes here (the root and its three children), " \
        f"counted {searcher.treeNodeCounter}"
    assert tree.evaluations == 7, \
        f"alpha-beta evaluates 7 of the 9 leaves here, not {tree.evaluations}"


@pytest.mark.checks("explore")
def test_explore_cuts_when_a_value_reaches_beta():
    # The second subtree's first leaf (3) makes it worth at most 3 to the player at the
    # root, who already has 3: a value equal to beta is a cut-off too (>=, not >).
    tree = Tree([[3, 12, 8], [3, 4, 6], [14, 5, 3]])
    searcher = nm.NegaMax(tree)
    got = call(searcher.explore, 2, -INF, INF)
    assert got == 3, f"explore(2) returned {got!r}: the value of the tree is 3"
    assert tree.evaluations == 7, \
        f"alpha-beta evaluates 7 of the 9 leaves here, not {tree.evaluations}: " \
        "cut as soon as a child's value is >= beta, equal included"


@pytest.mark.checks("explore")
def test_explore_leaf_is_seen_by_the_player_to_move():
    tree = Tree(14, first=2)            # a decided game: player 1 has won, player 2 to move
    got = call(nm.NegaMax(tree).explore, 3)
    assert got == -14, \
        f"explore(3) returned {got!r} on a decided game that evaluate() scores 14 (player " \
        "1 has won) with player 2 to move: for player 2 it is worth -14"
    tree = Tree([[5, 7], [-3]], first=2)
    got = call(nm.NegaMax(tree).explore, 0)
    assert got == 0, f"explore(0) returned {got!r}: at depth 0 the value is evaluate(), " \
                     "0 at this tree's root"


@pytest.mark.checks("explore")
def test_explore_is_fail_hard():
    tree = Tree([[3, 12, 8], [2, 4, 6], [14, 5, 2]])
    got = call(nm.NegaMax(tree).explore, 2, 4, 9)
    assert got == 4, f"explore(2, 4, 9) returned {got!r}: the value 3 is below alpha, so " \
                     "fail-hard returns alpha, 4"
    got = call(nm.NegaMax(Tree([[3, 12, 8], [2, 4, 6], [14, 5, 2]])).explore, 2, -5, 1)
    assert got == 1, f"explore(2, -5, 1) returned {got!r}: the value 3 is above beta, so " \
                     "fail-hard returns beta, 1"


@pytest.mark.checks("getEvaluatedMoves")
def test_evaluated_moves():
    tree = Tree([0, 0, -14, 0, 0], first=2)   # player 2 wins with move 2 (-14 for player 1)
    moves = call(nm.NegaMax(tree).getEvaluatedMoves, 1)
    assert [(v, m) for v, m, _ in moves] == [(14, 2), (0, 0), (0, 1), (0, 3), (0, 4)], \
        f"getEvaluatedMoves(1) returned {moves!r} for player 2 on the leaves [0, 0, -14, 0, " \
        "0]: the winning move 2 comes first with 14 (the value for the player who makes " \
        "it: -explore of the child), and the ties keep getMoves order"
    assert tree.path == [], f"every move must be taken back, left {tree.path}"


@pytest.mark.checks("getEvaluatedMoves")
def test_evaluated_moves_count_nodes_per_move():
    tree = Tree([[3, 12, 8], [3, 4, 6], [14, 5, 3]])
    moves = call(nm.NegaMax(tree).getEvaluatedMoves, 2)
    assert [(v, m) for v, m, _ in moves] == [(3, 0), (3, 1), (3, 2)], \
        f"getEvaluatedMoves(2) returned {moves!r}: each move is searched with the full " \
        "window, so three moves worth 3, in move order"
    assert [n for _, _, n in moves] == [1, 1, 1], \
        f"getEvaluatedMoves(2) returned {moves!r}: one expanded node below each move " \
        "(reset treeNodeCounter to 0 before each)"


@pytest.mark.checks("getBestMove")
def test_best_move_chooses_among_equals():
    tree = Tree([0] * 9)
    picks = {call(nm.NegaMax(tree).getBestMove, 1, random.Random(seed)) for seed in range(60)}
    assert len(picks) > 1, \
        f"getBestMove(1, rng) with nine moves worth 0 always returned {picks}: pick one of " \
        "the equally best moves with rng.choice(bestMoves)"
    got = call(nm.NegaMax(Tree(14)).getBestMove, 2)
    assert got is None, f"getBestMove(2) returned {got!r} on a decided game: it has no move"


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
        f"play() asked getBestMove{tuple(asked[0]) if asked else '()'}: it asks " \
        "getBestMove(self.depth, rng) once for its move"
    assert move == 1, f"play() returned {move!r}, not the move getBestMove chose (1)"
    assert tree.path == [1], \
        f"play() returned 1 but the moves on the board are {tree.path}: play makes its move"

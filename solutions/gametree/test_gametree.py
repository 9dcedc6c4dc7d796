"""Public tests for gametree.py. Run them with `make check`.

Each test names the function it checks and says what it expected. Where it
can, a test checks that one function alone: evaluation gets a board whose
winning lines are given here (not your winning_lines), terminal_test gets its
values from this file instead of your evaluation, and the searches run on
small game trees of this file. The teacher's hidden tests check the rules on
every tic-tac-toe position and on many 4 x 3 and 4 x 4 positions, and they run
your searches on game objects of their own and record which nodes they expand
and evaluate, so passing these is a start, not a guarantee.
"""

import pytest

import gametree as gt
from kit_language import catalog

_ = catalog().gettext       # the course's language (kit_language.py)

inf = float("inf")


def board(state, game=gt.TICTACTOE):
    """The state drawn as a board (x, o and '.'), without using your code."""
    marks = ["."] * (game.width * game.height)
    for i, cell in enumerate(state):
        marks[cell] = "xo"[i % 2]
    rows = [" ".join(marks[r * game.width:(r + 1) * game.width]) for r in range(game.height)]
    return "\n".join(rows)


TICTACTOE_LINES = ({0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {0, 3, 6}, {1, 4, 7}, {2, 5, 8},
                   {0, 4, 8}, {2, 4, 6})


class GivenLines:
    """A board whose winning lines are the ones given here, not the ones your
    winning_lines computes (evaluation reads them as `game.lines`)."""

    def __init__(self, width, height, lines, k=3):
        self.width, self.height, self.k = width, height, k
        self.cells = width * height
        self.lines = tuple(frozenset(line) for line in lines)

    def __repr__(self):
        lines = sorted(map(sorted, self.lines))
        return _("a {width} x {height} board with the lines {lines}").format(
            width=self.width, height=self.height, lines=lines)


TICTACTOE_GIVEN = GivenLines(3, 3, TICTACTOE_LINES)
# 4 x 3: the rows and columns only (enough for these positions)
ROWS_4X3 = GivenLines(4, 3, [{0, 1, 2}, {1, 2, 3}, {4, 5, 6}, {5, 6, 7}, {8, 9, 10},
                             {9, 10, 11}, {0, 4, 8}, {1, 5, 9}, {2, 6, 10}, {3, 7, 11}])
# 4 x 4: the rows and the diagonals through cell 5 and 10
SOME_4X4 = GivenLines(4, 4, [{0, 1, 2}, {1, 2, 3}, {4, 5, 6}, {5, 6, 7}, {8, 9, 10},
                             {9, 10, 11}, {12, 13, 14}, {13, 14, 15}, {0, 5, 10},
                             {5, 10, 15}])


def explain(call, state, expected, got, game=gt.TICTACTOE):
    return _("{call} on\n{board}\nexpected {expected}, got {got}").format(
        call=call, board=board(state, game), expected=repr(expected), got=repr(got))


class Tree:
    """A small game tree as a game object: states are node names.

    It counts what a search asks: `expanded` (nextstates calls) and
    `evaluated` (evaluation calls), in order.
    """

    def __init__(self, children, values):
        self.children, self.values = children, values
        self.expanded, self.evaluated = [], []

    def nextstates(self, node):
        self.expanded.append(node)
        return list(self.children.get(node, []))

    def terminal_test(self, node):
        return not self.children.get(node)

    def evaluation(self, node):
        self.evaluated.append(node)
        return self.values[node]


def textbook_tree():
    """Max moves at A; three min nodes with three leaves each."""
    return Tree({"A": ["B", "C", "D"], "B": ["b1", "b2", "b3"], "C": ["c1", "c2", "c3"],
                 "D": ["d1", "d2", "d3"]},
                {"b1": 3, "b2": 12, "b3": 8, "c1": 2, "c2": 4, "c3": 6,
                 "d1": 14, "d2": 5, "d3": 2})


# ------------------------------------------------------------------ rules
@pytest.mark.checks("winning_lines")
def test_winning_lines_tictactoe():
    got = gt.winning_lines(gt.TICTACTOE)
    expected = {frozenset(s) for s in TICTACTOE_LINES}
    assert len(got) == 8 and {frozenset(line) for line in got} == expected, \
        _("{call}: expected the 8 lines {expected}, got {got}").format(
            call="winning_lines(TICTACTOE)", expected=sorted(map(sorted, expected)),
            got=repr(got))


@pytest.mark.checks("winning_lines")
@pytest.mark.parametrize("game, count", [(gt.BOARD_4X3, 14), (gt.BOARD_4X4, 24),
                                         (gt.Game(4, 4, 4), 10)],
                         ids=["4x3", "4x4", "4x4 four in a row"])
def test_winning_lines_count(game, count):
    got = gt.winning_lines(game)
    assert len(got) == count, _("{call}: expected {count} lines, got {got}").format(
        call=f"winning_lines({game})", count=count, got=len(got))


@pytest.mark.checks("winning_lines")
def test_winning_lines_do_not_wrap():
    lines = {frozenset(line) for line in gt.winning_lines(gt.BOARD_4X3)}
    assert frozenset({2, 3, 4}) not in lines, \
        _("{line} is not a line on the 4 x 3 board: cell 4 starts the next row").format(
            line="{2, 3, 4}")
    assert frozenset({1, 6, 11}) in lines and frozenset({3, 6, 9}) in lines, \
        _("both diagonal directions count: {line} and {other} are lines on 4 x 3").format(
            line="{1, 6, 11}", other="{3, 6, 9}")


@pytest.mark.checks("nextstates")
def test_nextstates_in_cell_order():
    state = [4, 0]
    got = gt.nextstates(state)
    expected = [[4, 0, c] for c in (1, 2, 3, 5, 6, 7, 8)]
    assert got == expected, explain("nextstates([4, 0])", state, expected, got)
    assert state == [4, 0], _("{function} changed the state it was given").format(
        function="nextstates")


@pytest.mark.checks("nextstates")
def test_nextstates_bigger_board():
    got = gt.nextstates([5], gt.BOARD_4X4)
    assert len(got) == 15 and got[0] == [5, 0] and got[-1] == [5, 15], \
        _("{call}: expected 15 states from {first} to {last}, got {got}").format(
            call="nextstates([5], BOARD_4X4)", first=[5, 0], last=[5, 15], got=repr(got))


@pytest.mark.checks("evaluation")
@pytest.mark.parametrize("state, game, expected", [
    ([0, 3, 1, 4, 2], TICTACTOE_GIVEN, 1),
    ([0, 2, 3, 4, 8, 6], TICTACTOE_GIVEN, -1),
    ([0, 4], TICTACTOE_GIVEN, 0),
    ([0, 1, 2, 4, 3, 5, 7, 6, 8], TICTACTOE_GIVEN, 0),
    ([1, 8, 2, 9, 3], ROWS_4X3, 1),
    ([0, 1, 5, 2, 15, 3], SOME_4X4, -1),
], ids=["x top row", "o anti-diagonal", "open", "full draw", "4x3 x row", "4x4 o row"])
def test_evaluation(state, game, expected):
    """On boards whose lines are given here: your evaluation alone is checked."""
    got = gt.evaluation(state, game)
    assert got == expected, explain("evaluation(state, game)", state, expected, got, game) + \
        "\n" + _("(the game is {game})").format(game=repr(game))


# The values terminal_test gets from evaluation here (this file's, not yours):
# x has the top row; open; a full board, drawn; the empty board; o has a diagonal.
VALUES = {(0, 3, 1, 4, 2): 1, (0, 3, 1, 4): 0, (0, 1, 2, 4, 3, 5, 7, 6, 8): 0, (): 0,
          (0, 4, 1, 2, 8, 6): -1}


def given_evaluation(state, game=gt.TICTACTOE):
    assert tuple(state) in VALUES, \
        _("terminal_test asked evaluation about {state}, not about the state it was "
          "given").format(state=repr(state))
    return VALUES[tuple(state)]


@pytest.mark.checks("terminal_test")
@pytest.mark.parametrize("state, expected", [
    ([0, 3, 1, 4, 2], True), ([0, 3, 1, 4], False), ([0, 1, 2, 4, 3, 5, 7, 6, 8], True),
    ([], False), ([0, 4, 1, 2, 8, 6], True),
], ids=["x won", "open", "full", "empty", "o won"])
def test_terminal_test(state, expected, monkeypatch):
    """With this file's evaluation in place of yours: your terminal_test alone is checked."""
    monkeypatch.setattr(gt, "evaluation", given_evaluation)
    got = gt.terminal_test(state)
    assert got is expected, explain("terminal_test(state)", state, expected, got)


# ------------------------------------------------------------------ minimax
@pytest.mark.checks("maximize")
def test_maximize_takes_the_win():
    state = [0, 3, 1, 4]
    got = gt.maximize(state)
    assert got == ([0, 3, 1, 4, 2], 1), explain("maximize(state)", state,
                                                ([0, 3, 1, 4, 2], 1), got)


@pytest.mark.checks("maximize")
def test_maximize_on_a_finished_game():
    state = [0, 3, 1, 4, 2]
    got = gt.maximize(state)
    assert got == (None, 1), explain("maximize(state)", state, (None, 1), got)


@pytest.mark.checks("maximize")
def test_maximize_counts_the_whole_tree():
    stats = gt.SearchStats()
    got = gt.maximize([0, 4, 8, 2], stats=stats)
    assert got == ([0, 4, 8, 2, 6], 1), explain("maximize(state)", [0, 4, 8, 2],
                                                ([0, 4, 8, 2, 6], 1), got)
    expected = {"nodes": 178, "expanded": 90, "evaluations": 88, "prunings": 0}
    assert stats.as_dict() == expected, _("SearchStats after {call}: expected {expected}, "
                                          "got {got}").format(call="maximize([0, 4, 8, 2])",
                                                              expected=expected,
                                                              got=stats.as_dict())


def three_ply_tree():
    """Max at A, min at B1 and B2, and leaves where max would move again: a search
    must ask the game (not tic-tac-toe's rules) whether a node is a leaf."""
    return Tree({"A": ["B1", "B2"], "B1": ["c1", "c2"], "B2": ["c3", "c4"]},
                {"c1": 3, "c2": 5, "c3": 2, "c4": 9})


@pytest.mark.checks("maximize")
def test_maximize_asks_the_game():
    got = gt.maximize("A", three_ply_tree())
    assert got == ("B1", 3), _("{call} on {tree}: expected {expected}, got {got} (are leaves "
                               "found with game.terminal_test?)").format(
        call="maximize('A', game)", tree=_("A -> B1 (min of 3, 5), B2 (min of 2, 9), leaves "
                                           "c1..c4"),
        expected=repr(("B1", 3)), got=repr(got))


@pytest.mark.checks("minimize")
def test_minimize_blocks():
    state = [0, 3, 1]
    got = gt.minimize(state)
    # o must block at 2, but x still wins with a fork (4 threatens 7 and 8)
    assert got == ([0, 3, 1, 2], 1), explain("minimize(state)", state, ([0, 3, 1, 2], 1), got)


@pytest.mark.checks("minimize")
def test_minimize_textbook_tree():
    tree = textbook_tree()
    tree.children = {"A": ["B", "C"], "B": ["b1", "b2"], "C": ["c1"]}
    got = gt.minimize("A", tree)
    assert got == ("C", 2), _("{call} on {tree}: expected {expected}, got {got}").format(
        call="minimize('A')", tree=_("A -> B (max of 3, 12), C (max of 2)"),
        expected=repr(("C", 2)), got=repr(got))


# ------------------------------------------------------------------ alpha-beta
@pytest.mark.checks("maximize_ab")
def test_alphabeta_textbook_tree_prunes():
    tree = textbook_tree()
    stats = gt.SearchStats()
    got = gt.maximize_ab("A", -inf, inf, inf, tree, stats)
    assert got == ("B", 3), _("{call} on the textbook tree: expected {expected}, got "
                              "{got}").format(call="maximize_ab('A', ...)",
                                              expected=repr(("B", 3)), got=repr(got))
    assert tree.evaluated == ["b1", "b2", "b3", "c1", "d1", "d2", "d3"], \
        _("evaluated {evaluated}: after {cut}, C is cut (c2, c3 skipped)").format(
            evaluated=tree.evaluated, cut="c1 = 2 <= alpha = 3")
    expected = {"nodes": 11, "expanded": 4, "evaluations": 7, "prunings": 2}
    assert stats.as_dict() == expected, _("expected {expected}, got {got}").format(
        expected=expected, got=stats.as_dict())


@pytest.mark.checks("maximize_ab")
def test_maximize_ab_asks_the_game():
    got = gt.maximize_ab("A", -inf, inf, inf, three_ply_tree())
    assert got == ("B1", 3), _("{call} on {tree}: expected {expected}, got {got} (are leaves "
                               "found with game.terminal_test?)").format(
        call="maximize_ab('A', -inf, inf, inf, game)",
        tree=_("A -> B1 (min of 3, 5), B2 (min of 2, 9), leaves c1..c4"),
        expected=repr(("B1", 3)), got=repr(got))


@pytest.mark.checks("maximize_ab")
def test_alphabeta_tictactoe_counts():
    stats = gt.SearchStats()
    got = gt.maximize_ab([], -inf, inf, inf, gt.TICTACTOE, stats)
    assert got == ([0], 0), explain("maximize_ab([], -inf, inf, inf)", [], ([0], 0), got)
    expected = {"nodes": 18297, "expanded": 10967, "evaluations": 7330, "prunings": 8180}
    assert stats.as_dict() == expected, _("expected {expected}, got {got}").format(
        expected=expected, got=stats.as_dict())


@pytest.mark.checks("maximize_ab")
def test_alphabeta_depth_limit():
    stats = gt.SearchStats()
    got = gt.maximize_ab([0, 4], -inf, inf, 0, stats=stats)
    assert got == (None, 0), _("{bremse} evaluates the state itself: expected {expected}, "
                               "got {got}").format(bremse="bremse=0",
                                                   expected=repr((None, 0)), got=repr(got))
    stats.reset()
    gt.maximize_ab([], -inf, inf, 1, stats=stats)
    assert (stats.nodes, stats.expanded, stats.evaluations) == (10, 1, 9), \
        _("{bremse} on the empty board expands it and evaluates its 9 children: expected "
          "nodes 10, expanded 1, evaluations 9, got {got}").format(bremse="bremse=1",
                                                                    got=stats.as_dict())


@pytest.mark.checks("minimize_ab")
def test_minimize_ab_stops_at_a_won_game():
    stats = gt.SearchStats()
    got = gt.minimize_ab([0, 3, 1, 4, 2], -inf, inf, 5, stats=stats)
    assert got == (None, 1) and stats.nodes == 1, \
        _("x has already won: expected {expected} after 1 node, got {got} after "
          "{nodes}").format(expected=repr((None, 1)), got=repr(got), nodes=stats.nodes)


@pytest.mark.checks("minimize_ab")
def test_minimize_ab_blocks():
    got = gt.minimize_ab([0, 3, 1], -inf, inf, inf)
    assert got == ([0, 3, 1, 2], 1), explain("minimize_ab([0, 3, 1], ...)", [0, 3, 1],
                                             ([0, 3, 1, 2], 1), got)


# ------------------------------------------------------------------ player and book
@pytest.mark.checks("computer_move")
def test_computer_move_for_both_sides():
    assert gt.computer_move([0, 3, 1, 4]) == [0, 3, 1, 4, 2], _("x to move: take the win")
    assert gt.computer_move([0, 3, 1]) == [0, 3, 1, 2], \
        _("o to move: every move loses, so the first child in order")
    assert gt.computer_move([]) == [0], \
        _("the computer may begin (x): first best move is {move}").format(move=[0])


@pytest.mark.checks("computer_move")
def test_computer_move_uses_a_book():
    book = {(): [8]}
    assert gt.computer_move([], book=book) == [8], _("with a book entry, play the book's move")


@pytest.mark.checks("opening_book_4x4")
def test_opening_book_shape():
    book = gt.opening_book_4x4()
    assert isinstance(book, dict) and () in book, \
        _("the book is a dict with an entry for {key}").format(key=())
    for cell in range(16):
        assert (cell,) in book, \
            _("the book needs an answer for o after x played {cell}").format(cell=cell)
    for key, value in book.items():
        assert value[:-1] == list(key) and value[-1] not in key, \
            _("{entry} does not add one free cell to the state").format(
                entry=f"book[{key}] = {value}")


@pytest.mark.checks("solve")
@pytest.mark.parametrize("state, game, expected", [
    ([], gt.TICTACTOE, 0), ([0, 3, 1, 4], gt.TICTACTOE, 1), ([0, 1], gt.TICTACTOE, 1),
    ([], gt.BOARD_4X3, 1), ([], gt.BOARD_4X4, 1),
], ids=["3x3 empty", "3x3 x wins", "3x3 after 0, 1", "4x3 empty", "4x4 empty"])
def test_solve(state, game, expected):
    got = gt.solve(state, game)
    assert got == expected, explain("solve(state)", state, expected, got, game)


@pytest.mark.checks("solve")
def test_solve_first_moves_on_4x3():
    got = [gt.solve([cell], gt.BOARD_4X3) for cell in range(12)]
    expected = [1, 1, 1, 1, -1, 1, 1, -1, 1, 1, 1, 1]
    assert got == expected, _("{call} for every first move of x: x wins after all of them "
                              "except 4 and 7 (o answers 5 or 6): expected {expected}, got "
                              "{got}").format(call="solve([cell], BOARD_4X3)",
                                              expected=expected, got=got)


@pytest.mark.checks("solve")
def test_solve_with_one_table_again_and_again():
    table = {}
    # [5, 8, 6, 0]: x wins at once (4 or 7); asked twice, the second answer comes
    # from what the first call left in the table
    states = [[4], [0, 1, 4], [4, 1, 0], [5, 8, 6, 0], [4], [0, 1, 4], [5, 8, 6, 0]]
    got = [gt.solve(state, gt.BOARD_4X3, table) for state in states]
    expected = [-1, 1, 1, 1, -1, 1, 1]
    assert got == expected, _("solve on 4 x 3 with one table passed to every call: the table "
                              "must stay right for later calls: expected {expected}, got "
                              "{got}").format(expected=expected, got=got)

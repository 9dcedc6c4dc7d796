"""Public tests for connect4.py. Run them with `make check`.

Every test names the function it checks and draws the position it used. The
teacher's hidden tests check the same functions on thousands of random
positions, count the nodes your search visits, and let your player play, so
passing these is a start, not a guarantee.
"""

import pytest

import connect4 as c4
from kit_language import catalog

_ = catalog().gettext       # the course's language (kit_language.py)

COURSE_EXAMPLE = [38, 37, 31, 24, 30, 17, 23, 10, 3, 16, 39, 32, 40]
# x wins with four on a diagonal running down to the right (cells 16, 24, 32, 40),
# and with four on one running down to the left (cells 18, 24, 30, 36)
X_DIAGONAL = [40, 33, 37, 39, 26, 38, 30, 23, 32, 31, 16, 9, 24]
X_ANTIDIAGONAL = [39, 41, 35, 38, 32, 31, 37, 25, 30, 23, 24, 34, 36, 28, 18]
# all 42 cells taken, no four in a row anywhere: a draw
FULL_DRAW = [37, 35, 28, 21, 14, 7, 0, 36, 29, 22, 15, 8, 1, 30, 23, 16, 9, 2, 38, 31, 24, 17,
             10, 3, 41, 39, 32, 25, 18, 11, 4, 40, 33, 26, 19, 12, 5, 34, 27, 20, 13, 6]


def draw(state):
    return f"{c4.showBoard(board_of(state))}\nstate = {state}"


def board_of(state):
    """The board of `state`, built here and not by your getBoard: so each test
    checks one function of yours (x on the even moves, o on the odd ones)."""
    board = ["."] * 42
    for move, cell in enumerate(state):
        board[cell] = "xo"[move % 2]
    return board


def check(call, state, expected, got):
    assert got == expected and type(got) is type(expected), _(
        "{call} on the position\n{board}\nexpected {expected}, got {got}").format(
            call=call, board=draw(state), expected=repr(expected), got=repr(got))


@pytest.mark.checks("getBoard")
def test_getBoard():
    board = c4.getBoard([38, 37, 30])
    expected = ["."] * 42
    expected[38], expected[37], expected[30] = "x", "o", "x"
    check("getBoard(state)", [38, 37, 30], expected, board)


@pytest.mark.checks("colNrs")
def test_colNrs():
    check("colNrs(0)", [], [35, 28, 21, 14, 7, 0], c4.colNrs(0))
    check("colNrs(6)", [], [41, 34, 27, 20, 13, 6], c4.colNrs(6))


@pytest.mark.checks("freeIn")
def test_freeIn():
    state = [38, 31, 24, 17, 10, 3, 35]   # column 3 is full
    board = board_of(state)
    check("freeIn(board, 3)", state, None, c4.freeIn(board, 3))
    check("freeIn(board, 0)", state, 28, c4.freeIn(board, 0))
    check("freeIn(board, 6)", state, 41, c4.freeIn(board, 6))
    state = [35, 36, 28, 37, 21, 39, 14, 40, 7]   # column 0 has one empty cell left, the top
    check("freeIn(board, 0)", state, 0, c4.freeIn(board_of(state), 0))


@pytest.mark.checks("free")
def test_free():
    check("free(board)", [], [35, 36, 37, 38, 39, 40, 41], c4.free(board_of([])))
    state = [38, 31, 24, 17, 10, 3, 35]
    check("free(board)", state, [28, 36, 37, 39, 40, 41], c4.free(board_of(state)))


@pytest.mark.checks("nextstates")
def test_nextstates():
    state = [38, 37]
    before = list(state)
    expected = [[38, 37, 35], [38, 37, 36], [38, 37, 30], [38, 37, 31], [38, 37, 39],
                [38, 37, 40], [38, 37, 41]]
    check("nextstates(state)", state, expected, c4.nextstates(state))
    assert state == before, _("{function} changed the state it was given").format(
        function="nextstates")
    state = [38, 31, 24, 17, 10, 3]                 # column 3 is full
    expected = [state + [cell] for cell in (35, 36, 37, 39, 40, 41)]
    check("nextstates(state)", state, expected, c4.nextstates(state))


@pytest.mark.checks("lines")
def test_lines():
    expected = ['.......', '.......', '.......', '.......', '..x....', '..ox...',
                '......', '......', '....xo', '.....x', '......', '......', '......',
                '..xx', '.....', '......', '......', '.....', '....',
                '....', '.....', '......', '....x.', '....o', '...x']
    check("lines(board)", [38, 37, 30], expected, c4.lines(board_of([38, 37, 30])))


@pytest.mark.checks("pattern_score")
def test_pattern_score():
    board = ["."] * 42
    board[35] = board[41] = "x"
    check("pattern_score(board)", [35, 0, 41], 30, c4.pattern_score(board))
    state = [35, 41, 36, 40, 37]
    check("pattern_score(board, (1, 2, 3))", state, 5,
          c4.pattern_score(board_of(state), (1, 2, 3)))


@pytest.mark.checks("evaluation")
@pytest.mark.parametrize("state, expected", [
    ([], 0), ([38], 35), ([38, 37], 10), ([35, 41, 36, 40, 37], 510),
    ([35, 28, 36, 29, 37, 30, 38], 10000), ([35, 36, 28, 37, 41, 38, 34, 39], -10000),
    (X_DIAGONAL, 10000), (X_ANTIDIAGONAL, 10000),
], ids=["empty", "centre", "two stones", "three in a row", "x row", "o row", "x diagonal",
        "x other diagonal"])
def test_evaluation(state, expected):
    check("evaluation(state)", state, expected, c4.evaluation(state))


@pytest.mark.checks("evaluation_b")
def test_evaluation_b():
    check("evaluation_b(state)", [35, 41, 36, 40, 37], 60,
          c4.evaluation_b([35, 41, 36, 40, 37]))


@pytest.mark.checks("terminal_test")
@pytest.mark.parametrize("state, expected", [
    ([], False), ([35, 28, 36, 29, 37, 30, 38], True), ([35, 28, 36, 29, 37, 30], False),
    ([35, 36, 28, 37, 21, 39, 14], True), (X_DIAGONAL, True), (X_ANTIDIAGONAL, True),
    (FULL_DRAW, True), (FULL_DRAW[:-1], False),
], ids=["empty", "x row", "one short", "x column", "x diagonal", "x other diagonal",
        "full board, no four", "one cell left"])
def test_terminal_test(state, expected):
    check("terminal_test(state)", state, expected, c4.terminal_test(state))


@pytest.mark.checks("terminal_test")
def test_terminal_test_uses_the_evaluation_it_is_given():
    check("terminal_test(state, lambda s: 10000)", [38], True,
          c4.terminal_test([38], lambda s: 10000))
    won = [35, 28, 36, 29, 37, 30, 38]
    check("terminal_test(state, lambda s: 0)", won, False, c4.terminal_test(won, lambda s: 0))


@pytest.mark.checks("minimize")
def test_minimize_blocks_on_the_course_notebooks_example():
    stats = c4.SearchStats()
    best, value = c4.minimize(COURSE_EXAMPLE, bremse=2, stats=stats)
    check("minimize(state, bremse=2)", COURSE_EXAMPLE, (COURSE_EXAMPLE + [41], -65), (best, value))
    assert stats.as_dict() == {"nodes": 43, "expanded": 7, "evaluations": 36,
                               "prunings": 4}, \
        _("the search counted {counts}").format(counts=stats.as_dict())


@pytest.mark.checks("maximize")
def test_maximize_counts():
    stats = c4.SearchStats()
    result = c4.maximize([38, 37], bremse=2, stats=stats)
    check("maximize(state, bremse=2)", [38, 37], ([38, 37, 30], 0), result)
    assert stats.as_dict() == {"nodes": 39, "expanded": 8, "evaluations": 31,
                               "prunings": 5}, \
        _("the search counted {counts}").format(counts=stats.as_dict())


@pytest.mark.checks("maximize")
def test_maximize_depth_zero_and_finished_game():
    check("maximize(state, bremse=0)", [38, 37], (None, 10), c4.maximize([38, 37], bremse=0))
    won = [35, 28, 36, 29, 37, 30, 38]
    check("minimize(state, bremse=4)", won, (None, 10000), c4.minimize(won, bremse=4))


@pytest.mark.checks("centre_first")
def test_centre_first():
    children = [[35], [36], [37], [38], [39], [40], [41]]     # the successors of []
    columns = [child[-1] % 7 for child in c4.centre_first(children)]
    check(_("{function}(successors of {state})").format(function="centre_first", state=[]),
          [], [3, 2, 4, 1, 5, 0, 6], columns)


@pytest.mark.checks("shallow_order")
def test_shallow_order():
    ordered = c4.shallow_order(c4.nextstates(COURSE_EXAMPLE), 1)
    check(_("{call} (last cells)").format(call="shallow_order(nextstates(state), 1)"),
          COURSE_EXAMPLE,
          [41, 35, 36, 9, 25, 33], [child[-1] for child in ordered])


@pytest.mark.checks("book_move")
def test_book_move():
    check("book_move([])", [], [38], c4.book_move([]))
    check("book_move([38, 31])", [38, 31], None, c4.book_move([38, 31]))
    book = {(36,): [36, 38]}
    check("book_move([36], book)", [36], [36, 38], c4.book_move([36], book))
    assert c4.book_move([36], book) is not book[(36,)], _("book_move must return a new list")


@pytest.mark.checks("iterative_deepening")
def test_iterative_deepening():
    check("iterative_deepening(state, 60, max_bremse=2)", COURSE_EXAMPLE,
          (COURSE_EXAMPLE + [41], -65, 2), c4.iterative_deepening(COURSE_EXAMPLE, 60, max_bremse=2))
    best, value, bremse = c4.iterative_deepening(COURSE_EXAMPLE, 0)
    check("iterative_deepening(state, 0)", COURSE_EXAMPLE, 1, bremse)


@pytest.mark.checks("iterative_deepening")
def test_iterative_deepening_with_a_fake_clock():
    readings = iter(range(0, 10 ** 6, 1))
    best, value, bremse = c4.iterative_deepening(COURSE_EXAMPLE, 50,
                                                 clock=lambda: float(next(readings)))
    assert 1 <= bremse < 4, _("a budget of 50 clock ticks allowed depth {bremse}").format(
        bremse=bremse)
    assert best in c4.nextstates(COURSE_EXAMPLE)


@pytest.mark.checks("play_game")
def test_play_game():
    check("play_game(evaluation, evaluation_b, 1, (38,))", [38],
          ([38, 31, 37, 24, 39, 17, 36], 1), c4.play_game(c4.evaluation, c4.evaluation_b, 1, (38,)))


@pytest.mark.checks("tournament")
def test_tournament():
    result = c4.tournament(c4.evaluation, c4.evaluation_b, [(38,)], 1)
    assert len(result["games"]) == 2, _("one opening gives two games")
    expected = {"A": {"wins": 1, "draws": 0, "losses": 1, "points": 1.0},
                "B": {"wins": 1, "draws": 0, "losses": 1, "points": 1.0}}
    assert result["table"] == expected, _("table {table}, expected {expected}").format(
        table=result["table"], expected=expected)

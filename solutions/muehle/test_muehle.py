"""Public tests for muehle.py. Run them with `make check`.

Every test names the function it checks, draws the board it used and says
what it expected. The teacher's hidden tests check the same functions on
thousands of positions from every phase of the game, so passing these is a
start, not a guarantee.
"""

import random
import traceback

import pytest

import muehle as m
from kit_language import catalog
from play import beside_numbers

_ = catalog().gettext       # the course's language (kit_language.py)

W, B = m.WHITE, m.BLACK


def make(white=(), black=(), hand=(0, 0), quiet=0):
    """A state in tuple form with WHITE on the points `white`, BLACK on `black`."""
    board = [m.EMPTY] * 24
    for p in white:
        board[p] = W
    for p in black:
        board[p] = B
    return (tuple(board), tuple(hand), quiet)


STATE = _("a state is (board, in_hand, quiet): board[p] is point p (numbered on the right; 0 "
          "empty, 1 WHITE, 2 BLACK), in_hand the stones still to place (WHITE, BLACK), quiet "
          "the moves since the last placement or removal")


def show(state, player):
    """The board with its point numbers beside it, whose move it is, and what the
    three parts of the state tuple are."""
    return _("{board}\n{player} to move; {state}").format(
        board=beside_numbers(m.draw_board(state)), player="WHITE" if player == W else "BLACK",
        state=STATE)


def shown(value):
    """An answer as the student reads it: a state is drawn, anything else as it is."""
    try:
        board, hand, quiet = value
        if len(board) == 24 and len(hand) == 2:
            return _("the state\n{board}").format(board=beside_numbers(m.draw_board(value)))
    except (TypeError, ValueError):
        pass
    return repr(value)


def explain(call, state, player, expected, got):
    return _("{call} on\n{board}\nexpected {expected}, got {got}").format(
        call=call, board=show(state, player), expected=repr(expected), got=shown(got))


def call(function, *args):
    """function(*args); if it stops in another function's stub (one it calls, or
    the @memoize around it), say which, so each function's line in `make check`
    speaks of that function only."""
    try:
        return function(*args)
    except NotImplementedError as error:
        line = traceback.extract_tb(error.__traceback__)[-1].lineno
        last = error.__traceback__
        while last.tb_next is not None:
            last = last.tb_next
        stub = last.tb_frame.f_code.co_qualname.split(".")[0]    # memoize.<locals>.f_memoized
        if stub != function.__name__:
            raise AssertionError(_("{function} uses {stub}, which is not implemented yet: "
                                   "write {stub} first (line {line})").format(
                function=function.__name__, stub=stub, line=line)) from None
        raise


def boards(states):
    """The successors as a set of boards (tuples), whatever form they come in."""
    return {tuple(s[0]) for s in states}


def after(state, player, *changes):
    """The board of `state` with (point, cell) changes applied."""
    board = list(state[0])
    for point, cell in changes:
        board[point] = cell
    return tuple(board)


# ------------------------------------------------------------------ the state
@pytest.mark.checks("to_tuple")
def test_to_tuple():
    state = [[0] * 23 + [2], [4, 5], 3]
    got = call(m.to_tuple, state)
    want = ((0,) * 23 + (2,), (4, 5), 3)
    assert got == want and type(got[0]) is tuple and type(got[1]) is tuple, \
        _("{call}\nexpected {expected}, got {got}").format(
            call=f"to_tuple({state!r})", expected=repr(want), got=repr(got))


@pytest.mark.checks("to_list")
def test_to_list_makes_fresh_lists():
    state = ((0,) * 23 + (1,), (4, 5), 3)
    got = call(m.to_list, state)
    assert got == [[0] * 23 + [1], [4, 5], 3] and type(got[0]) is list \
        and type(got[1]) is list, _("{call} returned {got}").format(call="to_list(state)",
                                                                    got=repr(got))
    again = call(m.to_list, got)
    again[0][0] = 2
    assert got[0][0] == 0, _("{call} of a list-form state must build new lists").format(
        call="to_list(state)")


@pytest.mark.checks("opponent")
def test_opponent():
    got = (call(m.opponent, W), call(m.opponent, B))
    assert got == (B, W), _("{call} gave {got}, expected {expected}").format(
        call="opponent(WHITE), opponent(BLACK)", got=repr(got), expected=(2, 1))


# ------------------------------------------------------------------ the rules
@pytest.mark.checks("next_states")
def test_next_states_first_move_places_anywhere():
    start = m.initial_state()
    got = call(m.next_states, start, W)
    assert len(got) == 24, explain("len(next_states(start, WHITE))", start, W, 24, len(got))
    assert all(list(s[1]) == [8, 9] and s[2] == 0 for s in got), \
        _("after placing, WHITE has 8 stones in hand and the quiet counter is 0")


@pytest.mark.checks("next_states")
def test_next_states_slides_along_lines():
    state = make(white=(4, 10, 16, 20), black=(1, 3, 5, 7, 9, 18), quiet=7)
    got = call(m.next_states, state, W)
    want = {after(state, W, (16, 0), (15, 1)), after(state, W, (16, 0), (17, 1)),
            after(state, W, (16, 0), (19, 1)), after(state, W, (20, 0), (13, 1)),
            after(state, W, (20, 0), (19, 1)), after(state, W, (10, 0), (11, 1))}
    assert boards(got) == want and len(got) == 6, \
        explain("next_states(state, WHITE)", state, W,
                _("{count} slides").format(count=len(want)), len(got))
    assert all(s[2] == 8 for s in got), _("a slide without removal adds 1 to the quiet counter")


@pytest.mark.checks("next_states")
def test_next_states_flying_with_three_stones():
    state = make(white=(0, 12, 23), black=(1, 2, 9, 14, 21, 22), quiet=2)
    got = call(m.next_states, state, W)
    assert len(got) == 3 * 15, explain("len(next_states(state, WHITE))", state, W, 45, len(got))


@pytest.mark.checks("next_states")
def test_next_states_mill_spares_stones_in_mills():
    # WHITE closes 0-1-2 by placing on 2; BLACK's 3-4-5 is a mill, 9 is not.
    state = make(white=(0, 1), black=(3, 4, 5, 9), hand=(1, 0))
    got = call(m.next_states, state, W)
    closing = [s for s in got if s[0][2] == W]
    assert boards(closing) == {after(state, W, (2, W), (9, 0))}, explain(
        _("{call}, the moves that place on 2").format(call="next_states(state, WHITE)"), state,
        W, _("one successor, with 9 removed"),
        sorted(tuple(p for p in range(24) if s[0][p] == B) for s in closing))


@pytest.mark.checks("next_states")
def test_next_states_mill_takes_any_when_all_in_mills():
    state = make(white=(0, 1), black=(3, 4, 5), hand=(1, 0))
    got = call(m.next_states, state, W)
    closing = [s for s in got if s[0][2] == W]
    assert len(closing) == 3, explain(
        _("{call}, the moves that place on 2").format(call="next_states(state, WHITE)"), state,
        W, _("3 successors (remove 3, 4 or 5)"), len(closing))


@pytest.mark.checks("next_states")
def test_next_states_keeps_its_input():
    state = [[0] * 24, [9, 9], 0]
    call(m.next_states, state, W)
    assert state == [[0] * 24, [9, 9], 0], _("{function} changed the state it was given").format(
        function="next_states")


# ------------------------------------------------------------------ the end of the game
@pytest.mark.checks("finished")
@pytest.mark.parametrize("state, player, expected", [
    (make(hand=(9, 9)), W, False),
    (make(white=(0, 1), black=(3, 4, 5)), W, True),
    (make(white=(0, 1, 2, 9), black=(3, 4, 5), quiet=50), B, True),
    (make(white=(0, 1, 2, 9), black=(3, 4, 5), quiet=49), B, False),
    (make(white=(0, 2, 9, 14), black=(1, 10, 21, 23, 13)), W, True),
], ids=["start", "two stones", "draw counter", "one before the draw", "blocked"])
def test_finished(state, player, expected):
    got = call(m.finished, state, player)
    assert got is expected, explain("finished(state, player)", state, player, expected, got)


@pytest.mark.checks("utility")
@pytest.mark.parametrize("state, player, expected", [
    (make(white=(0, 1), black=(3, 4, 5)), W, -1),
    (make(white=(0, 1), black=(3, 4, 5)), B, 1),
    (make(white=(0, 1, 2, 9), black=(3, 4, 5), quiet=50), B, 0),
    (make(white=(0, 2, 9, 14), black=(1, 10, 21, 23, 13)), W, -1),
], ids=["lost", "won", "draw", "blocked"])
def test_utility(state, player, expected):
    got = call(m.utility, state, player)
    assert got == expected, explain("utility(state, player)", state, player, expected, got)


@pytest.mark.checks("heuristic")
@pytest.mark.parametrize("state, player, expected", [
    (make(hand=(9, 9)), W, 0),
    (make(white=(0, 1), black=(3, 4, 5, 9), hand=(1, 0)), W, (8 * (3 - 4) + 1) / 128),
    (make(white=(0, 1), black=(3, 4, 5, 9), hand=(1, 0)), B, (8 * (4 - 3) - 1) / 128),
    (make(white=(0, 1, 22), black=(3, 5, 21), hand=(2, 3)), B, (8 * (6 - 5) + 1 - 1) / 128),
], ids=["start", "WHITE: one two-in-a-row", "the same for BLACK", "both sides"])
def test_heuristic(state, player, expected):
    got = call(m.heuristic, state, player)
    assert got == expected, explain("heuristic(state, player)", state, player, expected, got)


# ------------------------------------------------------------------ memoised minimax
@pytest.mark.checks("memoize")
def test_memoize_calls_once_per_arguments():
    """Three arguments, as value_minimax's (state, player, depth): two calls that
    differ in the last one only are two entries."""
    calls = []

    def f(a, b, c):
        calls.append((a, b, c))
        return 100 * c + a - b

    g = call(m.memoize, f)
    got = [g(5, 3, 1), g(5, 3, 1), g(5, 3, 2), g(3, 5, 1), g(5, 3, 2)]
    want = [102, 102, 202, 98, 202]
    assert got == want, _("the memoised function returned {got}, expected {expected}").format(
        got=got, expected=want)
    assert calls == [(5, 3, 1), (5, 3, 2), (3, 5, 1)], \
        _("f was called with {calls}, expected {expected}").format(
            calls=calls, expected=[(5, 3, 1), (5, 3, 2), (3, 5, 1)])
    assert g.cache == {(5, 3, 1): 102, (5, 3, 2): 202, (3, 5, 1): 98}, \
        _("{cache} is {got}: the key is args, the tuple of all the arguments").format(
            cache="g.cache", got=repr(g.cache))


@pytest.fixture(autouse=True)
def fresh_caches():
    m.clear_caches()
    yield
    m.clear_caches()


MILL_NOW = make(white=(0, 1), black=(3, 4, 5, 9), hand=(1, 0))
MOVING = make(white=(4, 10, 16, 20), black=(1, 3, 5, 7, 9, 18), quiet=7)


@pytest.mark.checks("value_minimax")
@pytest.mark.parametrize("state, player, depth, expected", [
    (MILL_NOW, W, 1, 0),
    (MILL_NOW, W, 2, -2 / 128),
    (MOVING, W, 2, -16 / 128),
    (MOVING, B, 1, 17 / 128),
    (make(white=(0, 1), black=(3, 4, 5)), W, 3, -1),
], ids=["mill now, depth 1", "mill now, depth 2", "moving, depth 2", "moving, BLACK",
        "lost"])
def test_value_minimax(state, player, depth, expected):
    got = call(m.value_minimax, state, player, depth)
    assert got == expected, explain(f"value_minimax(state, player, {depth})", state, player,
                                    expected, got)
    assert (state, player, depth) in m.value_minimax.cache, \
        _("{cache} has no entry {key}: is it decorated with {decorator}?").format(
            cache="value_minimax.cache", key="(state, player, depth)", decorator="@memoize")


@pytest.mark.checks("best_move_minimax")
def test_best_move_minimax_closes_the_mill():
    value, successor = call(m.best_move_minimax, MILL_NOW, W, 1, random.Random(1))
    assert value == 0 and successor[0][2] == W and successor[0][9] == m.EMPTY, \
        explain("best_move_minimax(state, WHITE, 1)", MILL_NOW, W,
                _("(0, the move that places on 2 and removes 9)"), (value, successor))


@pytest.mark.checks("best_move_minimax")
def test_best_move_minimax_finds_the_one_best_slide():
    """A position whose value is not 0, so the minus of negamax shows."""
    value, successor = call(m.best_move_minimax, MOVING, W, 1, random.Random(1))
    assert value == -15 / 128 and successor[0][19] == W and successor[0][20] == m.EMPTY, \
        explain("best_move_minimax(state, WHITE, 1)", MOVING, W,
                _("(-15/128, the move {move})").format(move="20 -> 19"), (value, successor))


@pytest.mark.checks("best_move_minimax")
def test_best_move_minimax_varies_among_equal_moves():
    start = m.initial_state()
    seen = {tuple(call(m.best_move_minimax, start, W, 1, random.Random(seed))[1][0])
            for seed in range(12)}
    assert len(seen) > 1, \
        _("all 24 first moves are equally good at depth 1: choose with rng.choice")


@pytest.mark.checks("value_ab")
def test_value_ab_equals_minimax_and_caches_the_window():
    got = call(m.value_ab, MOVING, W, -1, 1, 2)
    assert got == -16 / 128, explain("value_ab(state, WHITE, -1, 1, 2)", MOVING, W,
                                     -16 / 128, got)
    assert m.AB_CACHE.get((MOVING, W, 2)) == (-16 / 128, -1, 1), \
        _("{entry} is {got}").format(entry="AB_CACHE[(state, WHITE, 2)]",
                                     got=repr(m.AB_CACHE.get((MOVING, W, 2))))


@pytest.mark.checks("value_ab")
def test_value_ab_does_not_reuse_a_narrow_window():
    m.AB_CACHE[(MOVING, W, 2)] = (0.5, 0.25, 0.75)
    got = call(m.value_ab, MOVING, W, -1, 1, 2)
    assert got == -16 / 128, _("a value cached for the window {narrow} was reused for the "
                               "window {wide}: got {got}, expected {expected}").format(
        narrow="(1/4, 3/4)", wide="(-1, 1)", got=repr(got), expected=repr(-16 / 128))


@pytest.mark.checks("get_order_value")
def test_get_order_value():
    m.AB_CACHE[(MOVING, W, 1)] = (3 / 128, -1, 1)
    m.AB_CACHE[(MOVING, W, 2)] = (5 / 128, -1, 1)
    got = (call(m.get_order_value, MOVING, W, 2), call(m.get_order_value, MOVING, B, 2))
    assert got == (3 / 128, 0), _("{call} gave {got}, expected {expected}").format(
        call="get_order_value", got=repr(got), expected=repr((3 / 128, 0)))


@pytest.mark.checks("alpha_beta")
@pytest.mark.parametrize("alpha, beta, check", [
    (-1, 1, "== v"), (-15 / 128, 1, "== alpha"), (-1, -17 / 128, ">= beta"),
], ids=["full window", "value below alpha (the result starts at alpha)", "value above beta"])
def test_alpha_beta_window(alpha, beta, check):
    got = call(m.alpha_beta, MOVING, W, alpha, beta, 2)
    ok = {"== v": got == -16 / 128, "== alpha": got == alpha, ">= beta": got >= beta}[check]
    assert ok, explain(f"alpha_beta(state, WHITE, {alpha}, {beta}, 2)", MOVING, W,
                       _("a result {check} (v = -16/128)").format(check=check), got)


@pytest.mark.checks("best_move_ab")
@pytest.mark.parametrize("state, player, depth, expected", [
    (MILL_NOW, W, 1, 0), (MILL_NOW, W, 2, -2 / 128), (MOVING, W, 3, -16 / 128),
], ids=["depth 1", "depth 2", "moving, depth 3"])
def test_best_move_ab(state, player, depth, expected):
    value, successor = call(m.best_move_ab, state, player, depth)
    assert value == expected, explain(f"best_move_ab(state, player, {depth})", state, player,
                                      expected, value)
    successors = {call(m.to_tuple, s) for s in call(m.next_states, state, player)}
    assert call(m.to_tuple, successor) in successors, \
        _("{function} returned {got}, which is not a successor").format(
            function="best_move_ab", got=repr(successor))

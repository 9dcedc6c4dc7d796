"""
Nine Men's Morris (German: Muehle) searched with memoised minimax and alpha-beta.

The module has two halves. The first is the game: the state, its successors
and the end of the game, plus a heuristic. The second is the search: a
`memoize` decorator, memoised minimax in negamax form, and alpha-beta with a
cache that remembers the window each value was computed with, move ordering
from the previous iteration and iterative deepening.

The board
---------
The 24 points are numbered row by row, from the top left:

     0 ----------- 1 ----------- 2
     |             |             |
     |    3 ------ 4 ------ 5    |
     |    |        |        |    |
     |    |    6 - 7 - 8    |    |
     |    |    |       |    |    |
     9 - 10 - 11      12 - 13 - 14
     |    |    |       |    |    |
     |    |   15 -16 - 17   |    |
     |    |        |        |    |
     |   18 ----- 19 ----- 20    |
     |             |             |
    21 ---------- 22 ---------- 23

Two points are adjacent when a line joins them with no point in between
(`ADJACENT`). A mill is three points on one straight line of the drawing
(`MILLS`, 16 of them). `COORDS` gives each point's (column, row) on a 7 x 7
grid, row 0 at the top: point 0 is (0, 0), point 12 is (4, 3), point 23 is
(6, 6).

Players and the state
---------------------
`WHITE = 1` moves first, `BLACK = 2`; a point holds `EMPTY = 0`, `WHITE` or
`BLACK`. A state has three parts:

* the board: 24 cells, one per point, in the numbering above;
* the stones in hand: (white's, black's), the stones each player has still to
  place (9 each at the start);
* the quiet counter: the number of moves since the last placement or removal
  (see the draw rule below).

The hashable *tuple form* is `(board, in_hand, quiet)` with `board` a tuple of
24 ints, `in_hand` a tuple of 2 ints and `quiet` an int. The *list form* is
`[board, in_hand, quiet]` with `board` and `in_hand` lists. `to_tuple` and
`to_list` convert between them; both accept either form. The start is
`((0,) * 24, (9, 9), 0)` (see `initial_state`).

The state does not record whose turn it is: every function also takes the
`player` who is to move, as in `next_states(state, player)`. Values are always
for the player to move (negamax).

The rules
---------
* A move of a player who still has stones in hand places one of them on any
  empty point. A player with no stones in hand moves one of their stones
  along a line to an adjacent empty point; with exactly 3 stones on the board
  (and none in hand) they may instead *fly* it to any empty point.
* A move that leaves the moved or placed stone in a mill of the mover's stones
  (three on one line of `MILLS`) closes that mill, also when the same mill is
  formed again. The mover then removes one opponent stone that is in no mill;
  if every opponent stone is in a mill, any opponent stone. Closing two mills
  at once still removes one stone. (If the opponent has no stone on the
  board, nothing is removed.)
* The removal is part of the move: the successor state already lacks the
  removed stone. A mill-closing move therefore has one successor for each
  stone that may be removed.
* A placement or a removal sets the quiet counter to 0; any other move
  (a slide or a flight without removal) adds 1.
* The game is over when, with `player` to move: a player has fewer than 3
  stones (on the board and in hand together): that player has lost; or
  `player` has no legal move: `player` has lost; or otherwise the quiet
  counter has reached `DRAW_PLIES` (= 50): a draw. The conditions are tried
  in this order: `player` below 3 stones, the opponent below 3 stones,
  `player` without a move, the draw.
  Repetitions of a position are not tracked (the state has no history).
* A finished state has no successors, and an unfinished one has at least one:
  `finished(state, player)` is true exactly when
  `next_states(state, player)` is empty.

Values
------
`utility` is 1 for a win of `player`, -1 for a loss and 0 for a draw. The
heuristic stays strictly between -1 and 1, so every win is better than every
position the heuristic merely estimates:

    heuristic(state, player) = (8 * (S_me - S_you) + (T_me - T_you)) / 128

where `S_x` is the number of stones of player x on the board plus in hand,
and `T_x` is the number of mills (of the 16 in `MILLS`) that hold exactly two
stones of x and one empty point. `me` is `player`, `you` the opponent. All
values are multiples of 1/128, so floating point computes them exactly.

Counting nodes
--------------
`count_nodes()` is a context manager that counts what a search explores: it
replaces the module's `next_states` and `heuristic` with counting wrappers
while it is active. A node is *expanded* when the search calls `next_states`
on it and *evaluated* when it calls `heuristic`; cache hits are neither.

How the grader watches a search
-------------------------------
To check a search, the grader replaces `next_states`, `finished`, `utility`
and `heuristic` in this module by functions of its own for the length of the
check (and, to check one function at a time, also the function it calls:
`value_minimax`, `alpha_beta`, `value_ab` or `get_order_value`). They may
offer only some of the moves and give values of their own, and the grader
counts what your search asks them. So call these functions by their names in
this module, as the skeleton's docstrings do: a copy bound to another name
when the module is imported is not the function the grader put there, and the
search would answer for another game.

Import only from Python's standard library (and any package the README names): the
grader runs this module where nothing else is installed.
"""

import contextlib
import functools
import random

EMPTY, WHITE, BLACK = 0, 1, 2
STONES = 9
DRAW_PLIES = 50

COORDS = (
    (0, 0), (3, 0), (6, 0),
    (1, 1), (3, 1), (5, 1),
    (2, 2), (3, 2), (4, 2),
    (0, 3), (1, 3), (2, 3), (4, 3), (5, 3), (6, 3),
    (2, 4), (3, 4), (4, 4),
    (1, 5), (3, 5), (5, 5),
    (0, 6), (3, 6), (6, 6),
)

ADJACENT = (
    (1, 9), (0, 2, 4), (1, 14),
    (4, 10), (1, 3, 5, 7), (4, 13),
    (7, 11), (4, 6, 8), (7, 12),
    (0, 10, 21), (3, 9, 11, 18), (6, 10, 15), (8, 13, 17), (5, 12, 14, 20), (2, 13, 23),
    (11, 16), (15, 17, 19), (12, 16),
    (10, 19), (16, 18, 20, 22), (13, 19),
    (9, 22), (19, 21, 23), (14, 22),
)

MILLS = (
    # the eight rows
    (0, 1, 2), (3, 4, 5), (6, 7, 8), (9, 10, 11),
    (12, 13, 14), (15, 16, 17), (18, 19, 20), (21, 22, 23),
    # the eight columns
    (0, 9, 21), (3, 10, 18), (6, 11, 15), (1, 4, 7),
    (16, 19, 22), (8, 12, 17), (5, 13, 20), (2, 14, 23),
)

# MILLS_AT[p]: the two mills through point p.
MILLS_AT = tuple(tuple(mill for mill in MILLS if p in mill) for p in range(24))


def initial_state():
    """Return the start of the game in tuple form: an empty board, 9 stones in each hand."""
    return ((EMPTY,) * 24, (STONES, STONES), 0)


def draw_board(state):
    """Return the board of `state` as text, drawn like the module docstring ('.' empty, 'W', 'B')."""
    board = state[0]
    grid = [[" "] * 13 for _ in range(7)]
    for a, b in {tuple(sorted((p, q))) for p in range(24) for q in ADJACENT[p]}:
        (ca, ra), (cb, rb) = COORDS[a], COORDS[b]
        if ra == rb:
            for c in range(2 * ca + 1, 2 * cb):
                grid[ra][c] = "-"
        else:
            for r in range(ra + 1, rb):
                grid[r][2 * ca] = "|"
    for p, (col, row) in enumerate(COORDS):
        grid[row][2 * col] = ".WB"[board[p]]
    hand = state[1]
    lines = ["".join(line).rstrip() for line in grid]
    lines.append(f"in hand: W {hand[0]}, B {hand[1]}; quiet moves: {state[2]}")  # i18n
    return "\n".join(lines)


# ----------------------------------------------------------------------------
# The game
# ----------------------------------------------------------------------------

def to_tuple(state):
    """Return `state` (tuple or list form) in tuple form: `(board, in_hand, quiet)`.

    `board` becomes a tuple of 24 ints, `in_hand` a tuple of 2 ints. The
    result is hashable, so it can be a dictionary key.
    """
    board, in_hand, quiet = state
    return (tuple(board), tuple(in_hand), quiet)


def to_list(state):
    """Return `state` (tuple or list form) in list form: `[board, in_hand, quiet]`.

    `board` and `in_hand` are new lists, so changing the result never changes
    `state`.
    """
    board, in_hand, quiet = state
    return [list(board), list(in_hand), quiet]


def opponent(player):
    """Return the other player: BLACK for WHITE and WHITE for BLACK."""
    return WHITE + BLACK - player


def _stones(state, player):
    """Stones of `player` on the board and in hand together."""
    board, in_hand, _ = state
    return board.count(player) + in_hand[player - 1]


def _has_move(state, player):
    """True if `player` has at least one legal move (ignoring the end of the game)."""
    board, in_hand, _ = state
    if EMPTY not in board:
        return False
    if in_hand[player - 1] > 0 or board.count(player) == 3:
        return True
    return any(board[p] == player and any(board[q] == EMPTY for q in ADJACENT[p])
               for p in range(24))


def _in_mill(board, p):
    """True if the stone on point p is one of three of its colour on a line."""
    colour = board[p]
    return any(all(board[q] == colour for q in mill) for mill in MILLS_AT[p])


def _removable(board, player):
    """The points whose stone the opponent may remove from `player`."""
    stones = [p for p in range(24) if board[p] == player]
    free = [p for p in stones if not _in_mill(board, p)]
    return free if free else stones


def next_states(state, player):
    """Return the list of all states that `player`'s legal moves lead to.

    `state` may be in tuple or list form and is not changed; the successors
    are new states in list form, one for each different move, where a
    mill-closing move is one move per stone it may remove (the removal is
    part of the move). The order of the list is free. The list is empty
    exactly when the game is over (see `finished`), in particular when the
    quiet counter has reached DRAW_PLIES or a player has fewer than 3 stones.
    """
    board, in_hand, quiet = to_list(state)
    other = opponent(player)
    if (_stones(state, player) < 3 or _stones(state, other) < 3
            or quiet >= DRAW_PLIES):
        return []
    # First the moves without removal: (board after the move, hand, quiet, target).
    moves = []
    if in_hand[player - 1] > 0:
        hand = list(in_hand)
        hand[player - 1] -= 1
        for p in range(24):
            if board[p] == EMPTY:
                after = list(board)
                after[p] = player
                moves.append((after, hand, 0, p))
    else:
        flying = board.count(player) == 3
        for p in range(24):
            if board[p] != player:
                continue
            for q in (range(24) if flying else ADJACENT[p]):
                if board[q] == EMPTY:
                    after = list(board)
                    after[p] = EMPTY
                    after[q] = player
                    moves.append((after, in_hand, quiet + 1, q))
    # Then fold in the removal of a mill-closing move.
    result = []
    for after, hand, count, target in moves:
        victims = _removable(after, other) if _in_mill(after, target) else []
        if not victims:
            result.append([after, list(hand), count])
        for victim in victims:
            removed = list(after)
            removed[victim] = EMPTY
            result.append([removed, list(hand), 0])
    return result


def finished(state, player):
    """Return True if the game is over in `state` with `player` to move.

    It is over when either player has fewer than 3 stones (on the board and
    in hand together), when `player` has no legal move, or when the quiet
    counter has reached DRAW_PLIES. `state` may be in tuple or list form.
    """
    if _stones(state, player) < 3 or _stones(state, opponent(player)) < 3:
        return True
    if not _has_move(state, player):
        return True
    return state[2] >= DRAW_PLIES


def utility(state, player):
    """Return the value of the finished game `state` for `player`, who is to move.

    1 if `player` has won, -1 if `player` has lost, 0 for a draw (and 0 for a
    state where the game is not over). The checks, in this order: `player`
    has fewer than 3 stones: -1; the opponent has fewer than 3 stones: 1;
    `player` has no legal move: -1; the quiet counter has reached
    DRAW_PLIES: 0. `state` may be in tuple or list form.
    """
    if _stones(state, player) < 3:
        return -1
    if _stones(state, opponent(player)) < 3:
        return 1
    if not _has_move(state, player):
        return -1
    return 0


def heuristic(state, player):
    """Return the estimated value of `state` for `player`, strictly between -1 and 1.

    Exactly `(8 * (S_me - S_you) + (T_me - T_you)) / 128`, where `S_x` is the
    number of stones of x on the board plus in hand, `T_x` the number of
    mills (lines of MILLS) holding two stones of x and one empty point, `me`
    is `player` and `you` the opponent. `state` may be in tuple or list form.
    """
    board = state[0]
    other = opponent(player)
    twos = 0
    for mill in MILLS:
        cells = [board[p] for p in mill]
        if cells.count(EMPTY) == 1:
            if cells.count(player) == 2:
                twos += 1
            elif cells.count(other) == 2:
                twos -= 1
    return (8 * (_stones(state, player) - _stones(state, other)) + twos) / 128


# ----------------------------------------------------------------------------
# Memoised minimax
# ----------------------------------------------------------------------------

def memoize(f):
    """Return a memoised version of the function `f`.

    The returned function `f_memoized(*args)` gives the same result as
    `f(*args)` but calls `f` at most once for each distinct tuple `args`: the
    first result is stored in the dictionary `cache` under the key `args`
    (all arguments, so for `value_minimax` the state, the player and the
    depth) and returned from there on every later call. The cache is
    reachable as `f_memoized.cache`; `f_memoized.__wrapped__` is `f`.
    """
    cache = {}

    def f_memoized(*args):
        """Return f(*args), computing it only if `cache` does not hold it yet."""
        if args in cache:
            return cache[args]
        result = f(*args)
        cache[args] = result
        return result

    functools.update_wrapper(f_memoized, f)
    f_memoized.cache = cache
    return f_memoized


@memoize
def value_minimax(state, player, depth):
    """Return the minimax value of `state` for `player` (to move), searching `depth` moves deep.

    `state` is in tuple form (it is part of the cache key). Negamax: a
    finished state is worth `utility(state, player)`; otherwise at depth 0
    it is worth `heuristic(state, player)`; otherwise it is worth the largest
    of `-value_minimax(s, opponent(player), depth - 1)` over its successors
    `s` (in tuple form). This function is memoised with `memoize`.
    """
    if finished(state, player):
        return utility(state, player)
    if depth == 0:
        return heuristic(state, player)
    other = opponent(player)
    return max(-value_minimax(to_tuple(s), other, depth - 1)
               for s in next_states(state, player))


def best_move_minimax(state, player, depth, rng=None):
    """Return `(value, successor)`: a best move of `player` found by minimax `depth` moves deep.

    `state` (tuple or list form) is not finished and `depth >= 1`. `value` is
    `value_minimax(to_tuple(state), player, depth)`; `successor` is one of
    `next_states(state, player)` whose value `-value_minimax(to_tuple(s),
    opponent(player), depth - 1)` equals it, chosen at random among all of
    them with `rng.choice` (`rng` a `random.Random`; the module `random` if
    `rng` is None).
    """
    rng = random if rng is None else rng
    value = value_minimax(to_tuple(state), player, depth)
    other = opponent(player)
    best = [s for s in next_states(state, player)
            if -value_minimax(to_tuple(s), other, depth - 1) == value]
    return value, rng.choice(best)


# ----------------------------------------------------------------------------
# Alpha-beta with a window-aware cache, move ordering and iterative deepening
# ----------------------------------------------------------------------------

# AB_CACHE[(state in tuple form, player, depth)] = (value, alpha, beta): the
# value alpha_beta returned for that position with that window.
AB_CACHE = {}


def value_ab(state, player, alpha=-1, beta=1, depth=4):
    """Return `alpha_beta(state, player, alpha, beta, depth)`, with the help of AB_CACHE.

    Key: `(to_tuple(state), player, depth)`. If the key is cached as
    `(value, a, b)` and the cached window contains the asked one
    (`a <= alpha` and `beta <= b`), return the cached value. Otherwise
    compute it with `alpha_beta`, with the window widened to
    `(min(alpha, a), max(beta, b))` when there was a cache entry, store
    `(value, alpha, beta)` for the window actually used, and return the
    value.
    """
    key = (to_tuple(state), player, depth)
    entry = AB_CACHE.get(key)
    if entry is not None:
        value, a, b = entry
        if a <= alpha and beta <= b:
            return value
        alpha, beta = min(alpha, a), max(beta, b)
    value = alpha_beta(state, player, alpha, beta, depth)
    AB_CACHE[key] = (value, alpha, beta)
    return value


def get_order_value(state, player, depth):
    """Return the ordering key of `state`, about to be searched as value_ab(state, player, ..., depth).

    The key is the value AB_CACHE holds for `(to_tuple(state), player,
    depth - 1)`: the same position searched one move less deep, i.e. in the
    previous iteration of iterative deepening; 0 if there is no such entry.
    It is a value for `player`, who moves in `state`, so the smaller it is
    the better the move into `state` looked for the one who made it.
    """
    entry = AB_CACHE.get((to_tuple(state), player, depth - 1))
    return 0 if entry is None else entry[0]


def alpha_beta(state, player, alpha, beta, depth):
    """Return the alpha-beta value of `state` for `player` (to move), `depth` moves deep.

    With v the minimax value (`value_minimax` at the same depth), the
    result r satisfies: alpha <= v <= beta implies r == v; v < alpha
    implies r <= alpha; v > beta implies r >= beta. A finished state is worth
    its utility, a state at depth 0 its heuristic. Otherwise the successors
    are tried in increasing order of `get_order_value(s, opponent(player),
    depth - 1)` (a stable sort of the `next_states` order), each valued as
    `-value_ab(s, opponent(player), -beta, -alpha, depth - 1)`. The result
    starts at `alpha`, becomes the largest value seen, is returned as soon as
    it is `>= beta`, and raises `alpha` as it grows.
    """
    if finished(state, player):
        return utility(state, player)
    if depth == 0:
        return heuristic(state, player)
    other = opponent(player)
    successors = next_states(state, player)
    successors.sort(key=lambda s: get_order_value(s, other, depth - 1))
    value = alpha
    for s in successors:
        value = max(value, -value_ab(s, other, -beta, -alpha, depth - 1))
        if value >= beta:
            return value
        alpha = max(alpha, value)
    return value


def best_move_ab(state, player, depth):
    """Return `(value, successor)`: a best move of `player` by alpha-beta with iterative deepening.

    `state` (tuple or list form) is not finished and `depth >= 1`. For
    d = 0, 1, ..., depth - 1 in turn, every successor s (in the order of the
    list from the previous iteration; `next_states` order at first) is valued
    as `-value_ab(s, opponent(player), -1, -alpha, d)`, where alpha is the
    best value found so far in this iteration (-1 at its start). Then the
    list is sorted by these values, best first (a stable sort). The result
    is the first entry of the last iteration: its value is
    `value_minimax(to_tuple(state), player, depth)`.
    """
    other = opponent(player)
    scored = [[s, 0] for s in next_states(state, player)]
    for d in range(depth):
        alpha = -1
        for entry in scored:
            entry[1] = -value_ab(entry[0], other, -1, -alpha, d)
            alpha = max(alpha, entry[1])
        scored.sort(key=lambda entry: entry[1], reverse=True)
    return scored[0][1], scored[0][0]


def clear_caches():
    """Empty the caches of value_minimax and alpha-beta (AB_CACHE)."""
    value_minimax.cache.clear()
    AB_CACHE.clear()


@contextlib.contextmanager
def count_nodes():
    """Count the nodes a search explores inside a `with` block.

        with count_nodes() as counts:
            value_ab(state, player, depth=3)
        counts["next_states"], counts["heuristic"], counts["total"]

    While active, the module-level `next_states` and `heuristic` are wrapped
    so that each call adds 1 to its count; "total" is their sum.
    """
    counts = {"next_states": 0, "heuristic": 0, "total": 0}
    originals = {name: globals()[name] for name in ("next_states", "heuristic")}

    def wrap(name, function):
        def counted(*args, **kwargs):
            counts[name] += 1
            counts["total"] += 1
            return function(*args, **kwargs)
        return counted

    for name, function in originals.items():
        globals()[name] = wrap(name, function)
    try:
        yield counts
    finally:
        globals().update(originals)

# >>> waits
import functools as _functools
import time as _time

_rule = next_states


@_functools.wraps(_rule)
def _dozing(*args, **kwargs):
    _time.sleep(0.8)
    return _rule(*args, **kwargs)


next_states = _dozing
# <<< waits

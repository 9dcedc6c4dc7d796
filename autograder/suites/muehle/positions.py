"""The positions the muehle suite checks the rules on (grader side only).

All seeded: playouts, random boards and positions built for each edge of each rule
(`built`). `pool()` groups them by what decides their successors: placing, moving,
flying, a removal the protection rule decides, and game over.
"""

from __future__ import annotations

import functools
import random

from autograder.checking import Later
from autograder.grading.reference import load_reference
from autograder.i18n import N_, grader_text as _

from . import movegen

ref = load_reference("muehle", "muehle")
W, B, E = ref.WHITE, ref.BLACK, ref.EMPTY
NAMES = {W: "WHITE", B: "BLACK"}
TO_MOVE = {W: N_("WHITE to move"), B: N_("BLACK to move")}
#: draw_board's last line, worded here: the reference's own is English.
IN_HAND = N_("in hand: W {white}, B {black}; quiet moves: {quiet}")
GROUPS = ("placing", "moving", "flying", "removal", "over")


@functools.cache
def successors(state, player):
    """The reference's successors as a set of tuple-form states."""
    return {ref.to_tuple(s) for s in ref.next_states(state, player)}


def draw(state, player):
    """The board as the reference draws it, and whose move it is (in the course's language)."""
    board = ref.draw_board(state).rsplit("\n", 1)[0]
    hand = _(IN_HAND).format(white=state[1][0], black=state[1][1], quiet=state[2])
    return f"{board}\n{hand}\n{_(TO_MOVE[player])}"


def drawn(state, player) -> Later:
    """`draw` for a cached case: drawn only when a failure shows it, in that moment's language."""
    return Later(draw, state, player)


def phase(state, player):
    if state[1][player - 1]:
        return "placing"
    return "flying" if state[0].count(player) == 3 else "moving"


def in_mill(board, p):
    return any(all(board[q] == board[p] for q in mill) for mill in ref.MILLS_AT[p])


def protection_matters(state, player):
    """A move closes a mill and at least one opponent stone sits in a mill."""
    other = ref.opponent(player)
    board = state[0]
    if not any(board[p] == other and in_mill(board, p) for p in range(24)):
        return False
    before = board.count(other)
    return any(s[0].count(other) < before for s in ref.next_states(state, player))


def movable(board, player):
    """The points of `player`'s stones that can slide to an adjacent empty point."""
    return [p for p in range(24)
            if board[p] == player and any(board[q] == E for q in ref.ADJACENT[p])]


def make(white=(), black=(), hand=(0, 0), quiet=0):
    board = tuple(W if p in white else B if p in black else E for p in range(24))
    return (board, tuple(hand), quiet)


# ------------------------------------------------------------------ sampled
def _playouts(rng, games):
    """Seeded playouts; a mill is closed whenever one can be (short games, flying)."""
    found = []
    for _ in range(games):
        state, player = ref.initial_state(), W
        greedy = rng.random() < 0.7
        for _ in range(300):
            found.append((state, player))
            options = movegen.next_states(state, player)
            if not options:
                break
            other = ref.opponent(player)
            takes = [s for s in options if s[0].count(other) < state[0].count(other)]
            state = rng.choice(takes if takes and greedy else options)
            player = other
    return found


def _random_board(rng, white, black, hand=(0, 0), quiet=None):
    points = rng.sample(range(24), white + black)
    return make(points[:white], points[white:], hand,
                rng.randrange(0, 49) if quiet is None else quiet)


def _all_in_mills(rng, count):
    """The opponent's stones all stand in mills, and the player can close one."""
    found = []
    while len(found) < count:
        player = rng.choice([W, B])
        other = ref.opponent(player)
        first = rng.choice(ref.MILLS)
        mills = [first] + ([m for m in rng.sample(ref.MILLS, 16) if not set(m) & set(first)][:1]
                           if rng.random() < 0.5 else [])
        board = [other if any(p in mill for mill in mills) else E for p in range(24)]
        free = [p for p in range(24) if board[p] == E]
        mine = rng.randrange(3, min(9, len(free)) + 1)
        for p in rng.sample(free, mine):
            board[p] = player
        hand = [0, 0]
        if rng.random() < 0.5:
            hand[player - 1] = rng.randrange(1, 9 - mine + 1) if mine < 9 else 0
        state = (tuple(board), tuple(hand), rng.randrange(0, 40))
        if ref.next_states(state, player) and protection_matters(state, player):
            found.append((state, player))
    return found


def _blocked_board(rng, player, low=4, high=8):
    """A board on which `player`'s stones (low..high-1 of them, a cluster) cannot slide:
    every empty neighbour is taken by the opponent. None if this attempt failed."""
    mine = {rng.randrange(24)}
    size = rng.randrange(low, high)
    while len(mine) < size:
        mine.add(rng.choice([q for p in mine for q in ref.ADJACENT[p]]))
    around = {q for p in mine for q in ref.ADJACENT[p]} - mine
    if len(around) > 9:
        return None
    rest = [p for p in range(24) if p not in mine | around]
    yours = around | set(rng.sample(rest, min(len(rest), rng.randrange(0, 10 - len(around)))))
    return tuple(player if p in mine else ref.opponent(player) if p in yours else E
                 for p in range(24))


def _blocked(rng, count):
    """The player to move (4 or more stones, none in hand) has no legal move."""
    found = []
    while len(found) < count:
        player = rng.choice([W, B])
        board = _blocked_board(rng, player)
        state = (board, (0, 0), rng.randrange(0, 49)) if board else None
        if state and not ref.next_states(state, player):
            found.append((state, player))
    return found


# ------------------------------------------------------------------ built for each edge
def _only_mover_at(rng, point, player):
    """`player` (4 to 7 stones, none in hand) whose only movable stone is on `point`."""
    other = ref.opponent(player)
    while True:
        free = rng.choice(ref.ADJACENT[point])          # stays empty: the only move
        # No other stone of the player may touch `free`, or it could move there too.
        candidates = [p for p in range(24)
                      if p not in (point, free) and p not in ref.ADJACENT[free]]
        mine = {point, *rng.sample(candidates, rng.randrange(3, 7))}
        blockers = {q for p in mine - {point} for q in ref.ADJACENT[p]} - mine
        if free in blockers or len(blockers) > 9:
            continue
        rest = [p for p in range(24) if p not in mine | blockers | {free}]
        extra = max(0, 3 - len(blockers)) + rng.randrange(0, 10 - len(blockers))
        yours = blockers | set(rng.sample(rest, min(len(rest), extra, 9 - len(blockers))))
        board = tuple(player if p in mine else other if p in yours else E for p in range(24))
        state = (board, (0, 0), rng.randrange(0, 49))
        if movable(board, player) == [point] and len(yours) >= 3 \
                and ref.next_states(state, player):
            return state


def built():
    """(state, player) pairs at the edges of the rules, for both players."""
    rng = random.Random(1212)
    found = []
    for player in (W, B):
        # _has_move: the only movable stone on each point (the first and the last too).
        found += [(_only_mover_at(rng, p, player), player) for p in range(24)]
        # _has_move: every board stone blocked, but one stone (or more) still in hand.
        made = 0
        while made < 8:
            board = _blocked_board(rng, player, *((2, 3) if made < 2 else (4, 8)))
            if board is None or board.count(player) + 1 > 9:
                continue
            mine, yours = 1 if made < 6 else 2, rng.randrange(0, 3)
            state = (board, (mine, yours) if player == W else (yours, mine), 0)
            if ref.next_states(state, player) and not movable(board, player):
                found.append((state, player))
                made += 1
        # _has_move: three stones, none in hand, none can slide: they fly, not lost.
        made = 0
        while made < 4:
            board = _blocked_board(rng, player, 3, 4)
            state = (board, (0, 0), rng.randrange(0, 49)) if board else None
            if state and ref.next_states(state, player) and not movable(board, player):
                found.append((state, player))
                made += 1
        # Blocked with the quiet counter at the limit: lost, not drawn.
        made = 0
        while made < 3:
            board = _blocked_board(rng, player)
            state = (board, (0, 0), ref.DRAW_PLIES + made) if board else None
            if state and not ref.next_states(state, player):
                found.append((state, player))
                made += 1
        for _ in range(3):
            # Stones in hand count: two on the board and one in hand is still in the game.
            found.append((_random_board(rng, 2, 5, (1, 0) if player == W else (0, 1)), player))
            found.append((_random_board(rng, 5, 2, (0, 1) if player == W else (1, 0)), player))
            # Two stones and nothing in hand: lost; both players below three: player first.
            found.append((_random_board(rng, 2, 6), player))
            found.append((_random_board(rng, 6, 2), player))
            found.append((_random_board(rng, 2, 2), player))
            # The quiet counter one below, at and above the limit.
            for quiet in (ref.DRAW_PLIES - 1, ref.DRAW_PLIES, ref.DRAW_PLIES + 1):
                found.append((_random_board(rng, rng.randrange(4, 8), rng.randrange(4, 8),
                                            quiet=quiet), player))
            # Three stones but one still in hand: placing, not flying.
            hand = (1, rng.randrange(0, 4)) if player == W else (rng.randrange(0, 4), 1)
            white, black = (3, rng.randrange(3, 7)) if player == W else (rng.randrange(3, 7), 3)
            found.append((_random_board(rng, white, black, hand, 0), player))
        # A mill closed while the opponent has no stone on the board: nothing removed.
        mill = rng.choice(ref.MILLS)
        hand = (4, 6) if player == W else (6, 4)
        found.append((make(*((mill[:2], ()) if player == W else ((), mill[:2])), hand), player))
    return found


# ------------------------------------------------------------------ the pool
def _smallest_first(pairs):
    """Fewest stones on the board first."""
    return sorted(pairs, key=lambda sp: (sum(cell != E for cell in sp[0][0]), sp[1], repr(sp[0])))


def group_of(state, player):
    """Which rule decides the successors; None for flying positions whose removal the
    protection rule decides (they would test two rules at once)."""
    if not ref.next_states(state, player):
        return "over"
    if protection_matters(state, player):
        return "removal" if phase(state, player) != "flying" else None
    return phase(state, player)


@functools.cache
def pool():
    """Positions by group, each a seeded sample plus every built edge position, smallest first."""
    rng = random.Random(20240917)
    pairs = _playouts(rng, 70)
    for _ in range(900):
        white, black = rng.randrange(2, 10), rng.randrange(2, 10)
        pairs.append((_random_board(rng, white, black), rng.choice([W, B])))
    for _ in range(150):            # placing with stones in hand
        white, black = rng.randrange(0, 8), rng.randrange(0, 8)
        hand = (rng.randrange(1, 10 - white), rng.randrange(1, 10 - black))
        pairs.append((_random_board(rng, white, black, hand, 0), rng.choice([W, B])))
    for _ in range(40):             # the draw counter
        white, black = rng.randrange(3, 10), rng.randrange(3, 10)
        pairs.append((_random_board(rng, white, black, quiet=ref.DRAW_PLIES), rng.choice([W, B])))
    pairs += _all_in_mills(rng, 80)
    pairs += _blocked(rng, 30)
    sampled, edges = _grouped(pairs), _grouped(built())
    sizes = {"placing": 450, "moving": 700, "flying": 300, "removal": 450, "over": 200}
    out = {}
    for name in GROUPS:
        keep = set(edges[name])
        rest = [sp for sp in sampled[name] if sp not in keep]
        out[name] = _smallest_first(rng.sample(rest, min(sizes[name], len(rest))) + edges[name])
    return out


def _grouped(pairs):
    groups = {name: [] for name in GROUPS}
    for state, player in dict.fromkeys((ref.to_tuple(s), p) for s, p in pairs):
        name = group_of(state, player)
        if name is not None:
            groups[name].append((state, player))
    return groups


@functools.cache
def everything():
    return [pair for name in GROUPS for pair in pool()[name]]


@functools.cache
def search_positions(count, seed, max_moves=99, phases=("placing", "moving", "flying")):
    """`count` unfinished positions per phase with at most `max_moves` successors."""
    rng = random.Random(seed)
    chosen = []
    for name in phases:
        by_size = sorted(pool()[name], key=lambda sp: len(successors(*sp)))
        fitting = [sp for sp in by_size if len(successors(*sp)) <= max_moves]
        if len(fitting) < 3 * count:
            fitting = by_size[:3 * count]
        chosen += rng.sample(fitting, count)
    return tuple(chosen)

"""Fast move generation for the muehle assignment (the grader's side, never shipped).

Same rules and state format as the reference `solutions/muehle/muehle.py`, the removal
after a mill folded into the move; the kit's tests prove `next_states` equal to the
reference's (as sets, on positions of every phase) and `count_moves` to their length.

Internally a position is seen from the player to move: `(me, you, my_hand, your_hand,
quiet)`, `me` and `you` 24-bit masks of their stones. A successor is seen from the
opponent, who moves next, so the search never needs colours. `count_moves` counts
successors without building them (`perft` counts its last ply in bulk). Standard
library only, no relative imports: load it by file path.
"""

from __future__ import annotations

EMPTY, WHITE, BLACK = 0, 1, 2
STONES = 9
DRAW_PLIES = 50
FULL = (1 << 24) - 1

MILLS = (
    (0, 1, 2), (3, 4, 5), (6, 7, 8), (9, 10, 11),
    (12, 13, 14), (15, 16, 17), (18, 19, 20), (21, 22, 23),
    (0, 9, 21), (3, 10, 18), (6, 11, 15), (1, 4, 7),
    (16, 19, 22), (8, 12, 17), (5, 13, 20), (2, 14, 23),
)

BIT = tuple(1 << p for p in range(24))
MILL_MASKS = tuple(BIT[a] | BIT[b] | BIT[c] for a, b, c in MILLS)
# Points on one mill line next to each other are adjacent; no other pairs are.
ADJACENT = tuple(
    tuple(sorted({mill[i + d] for mill in MILLS if p in mill
                  for i in [mill.index(p)] for d in (-1, 1) if 0 <= i + d < 3}))
    for p in range(24))
NEIGHBOURS = tuple(sum(BIT[q] for q in ADJACENT[p]) for p in range(24))
# PAIRS[p]: for each of the two mills through p, the mask of its other two points.
PAIRS = tuple(tuple(m ^ BIT[p] for m in MILL_MASKS if m & BIT[p]) for p in range(24))
POINT_OF_BIT = {BIT[p]: p for p in range(24)}


def _bits(x: int) -> list[int]:
    """The single-bit masks set in x, lowest first."""
    out = []
    while x:
        low = x & -x
        out.append(low)
        x ^= low
    return out


def _in_mills(x: int) -> int:
    """The mask of the stones of x that are in a mill of x."""
    covered = 0
    for m in MILL_MASKS:
        if x & m == m:
            covered |= m
    return covered


def _removable(you: int) -> int:
    """The mask of the stones of `you` that the opponent may remove."""
    free = you & ~_in_mills(you)
    return free if free else you


def encode(state, player: int) -> tuple:
    """The internal position of `state` (either form of the reference) with `player` to move."""
    board, in_hand, quiet = state
    white = black = 0
    for p in range(24):
        if board[p] == WHITE:
            white |= BIT[p]
        elif board[p] == BLACK:
            black |= BIT[p]
    if player == WHITE:
        return (white, black, in_hand[0], in_hand[1], quiet)
    return (black, white, in_hand[1], in_hand[0], quiet)


def decode(pos: tuple, player: int) -> tuple:
    """The reference's tuple-form state of the internal position `pos`, `player` to move in it."""
    me, you, my_hand, your_hand, quiet = pos
    other = WHITE + BLACK - player
    board = tuple(player if me & BIT[p] else other if you & BIT[p] else EMPTY
                  for p in range(24))
    in_hand = (my_hand, your_hand) if player == WHITE else (your_hand, my_hand)
    return (board, in_hand, quiet)


def _over(pos: tuple) -> bool:
    """True if a player has fewer than 3 stones or the draw counter has run out."""
    me, you, my_hand, your_hand, quiet = pos
    return (me.bit_count() + my_hand < 3 or you.bit_count() + your_hand < 3
            or quiet >= DRAW_PLIES)


def successors(pos: tuple) -> list[tuple]:
    """All positions after one legal move (removal included), seen from the next mover."""
    if _over(pos):
        return []
    me, you, my_hand, your_hand, quiet = pos
    empty = FULL ^ (me | you)
    out = []
    victims = None
    if my_hand:
        hand = my_hand - 1
        for b in _bits(empty):
            after = me | b
            pa, pb = PAIRS[POINT_OF_BIT[b]]
            if me & pa == pa or me & pb == pb:
                if victims is None:
                    victims = _bits(_removable(you))
                if victims:
                    for v in victims:
                        out.append((you ^ v, after, your_hand, hand, 0))
                    continue
            out.append((you, after, your_hand, hand, 0))
        return out
    flying = me.bit_count() == 3
    for s in _bits(me):
        rest = me ^ s
        targets = empty if flying else NEIGHBOURS[POINT_OF_BIT[s]] & empty
        for t in _bits(targets):
            after = rest | t
            pa, pb = PAIRS[POINT_OF_BIT[t]]
            if after & pa == pa or after & pb == pb:
                if victims is None:
                    victims = _bits(_removable(you))
                if victims:
                    for v in victims:
                        out.append((you ^ v, after, your_hand, 0, 0))
                    continue
            out.append((you, after, your_hand, 0, quiet + 1))
    return out


def count_moves(pos: tuple) -> int:
    """len(successors(pos)), computed without building the successors."""
    if _over(pos):
        return 0
    me, you, my_hand, _, _ = pos
    empty = FULL ^ (me | you)
    if my_hand:
        closing = 0
        for m in MILL_MASKS:
            third = m & ~me
            if third & empty and not third & (third - 1):
                closing |= third
        if not closing:
            return empty.bit_count()
        victims = _removable(you).bit_count()
        if not victims:
            return empty.bit_count()
        return empty.bit_count() + closing.bit_count() * (victims - 1)
    flying = me.bit_count() == 3
    plain = closes = 0
    for s in _bits(me):
        rest = me ^ s
        targets = empty if flying else NEIGHBOURS[POINT_OF_BIT[s]] & empty
        for t in _bits(targets):
            after = rest | t
            pa, pb = PAIRS[POINT_OF_BIT[t]]
            if after & pa == pa or after & pb == pb:
                closes += 1
            else:
                plain += 1
    if not closes:
        return plain
    victims = _removable(you).bit_count()
    return plain + closes * (victims if victims else 1)


def next_states(state, player: int) -> list[tuple]:
    """Like the reference's `next_states`, but the successors are in tuple form."""
    other = WHITE + BLACK - player
    return [decode(child, other) for child in successors(encode(state, player))]


def perft(depth: int) -> int:
    """The number of move sequences of length `depth` from the start."""
    start = encode(((EMPTY,) * 24, (STONES, STONES), 0), WHITE)
    return _perft(start, depth) if depth else 1


def _perft(pos: tuple, depth: int) -> int:
    if depth == 1:
        return count_moves(pos)
    if depth == 2:
        return sum(count_moves(child) for child in successors(pos))
    return sum(_perft(child, depth - 1) for child in successors(pos))

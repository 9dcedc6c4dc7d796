"""Who plays whom: round robin, Swiss without repeats, byes and seeded openings
(docs/TOURNAMENT.md, "Fair pairings").

Every pairing is played twice from the same opening, colours swapped (leg 0: the
first-named player moves first). Openings are the referee's (`opening(rng)`), drawn
with a generator seeded by the tournament's seed, the round and the slot: the same on
every machine. With an odd number of players one sits out each round (a bye): in a
round robin everyone once, scoring nothing; in Swiss the lowest-placed player who has
not had one, scoring as for a won pairing (FIDE's rule; otherwise the bye would punish
whoever gets it).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from .. import KitError

#: Pairings tried in one Swiss round before giving up (a search with backtracking).
SEARCH_LIMIT = 200_000


@dataclass(frozen=True)
class Pairing:
    round: int
    slot: int
    a: str
    b: str | None          # None: a bye for a
    opening: tuple

    @property
    def legs(self) -> list[tuple[str, str]]:
        """The games: (first mover, second mover), colours swapped."""
        return [] if self.b is None else [(self.a, self.b), (self.b, self.a)]


def default_rounds(players: int) -> int:
    """Swiss rounds that separate `players` well: ceil(log2 N) + 2, at most N - 1."""
    return max(1, min(players - 1, math.ceil(math.log2(max(players, 2))) + 2))


def round_robin(names: list[str]) -> list[list[tuple[str, str | None]]]:
    """Rounds of pairs by the circle method; a None opponent is a bye."""
    people = list(names) + ([None] if len(names) % 2 else [])
    count = len(people)
    rounds = []
    for _ in range(count - 1):
        pairs = []
        for i in range(count // 2):
            a, b = people[i], people[count - 1 - i]
            if a is None:
                a, b = b, a
            pairs.append((a, b))
        rounds.append(pairs)
        people = [people[0], people[-1]] + people[1:-1]
    return rounds


def swiss_round(names: list[str], points: dict[str, float], met: set[frozenset],
                had_bye: set[str], rng: random.Random) -> list[tuple[str, str | None]]:
    """One Swiss round: by points (ties in a seeded order), nobody twice against
    the same opponent; the bye (odd numbers) to the lowest-placed player without one."""
    order = list(names)
    rng.shuffle(order)
    order.sort(key=lambda name: -points.get(name, 0.0))    # stable: ties stay shuffled
    pairs: list[tuple[str, str | None]] = []
    if len(order) % 2:
        candidates = [n for n in reversed(order) if n not in had_bye] or list(reversed(order))
        bye = candidates[0]
        order.remove(bye)
        pairs.append((bye, None))
    found = _pair_without_repeats(order, met)
    if found is None:
        raise KitError(f"no Swiss pairing without a repeated game exists for this round "
                       f"({len(names)} players): ask for fewer rounds")
    return found + pairs


def _pair_without_repeats(order: list[str], met: set[frozenset]):
    """Pair each player with the nearest one below it not met yet, backtracking
    when a later player would be left without a partner."""
    budget = [SEARCH_LIMIT]

    def search(rest: list[str]):
        if not rest:
            return []
        budget[0] -= 1
        if budget[0] < 0:
            return None
        first = rest[0]
        for index in range(1, len(rest)):
            other = rest[index]
            if frozenset((first, other)) in met:
                continue
            tail = search(rest[1:index] + rest[index + 1:])
            if tail is not None:
                return [(first, other)] + tail
        return None

    import sys
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, len(order) + 100))
    try:
        return search(order)
    finally:
        sys.setrecursionlimit(limit)


def opening_for(referee, seed: int, round_: int, slot: int) -> tuple:
    """The pairing's opening: the referee's choice with a generator seeded by the slot."""
    return tuple(referee.opening(random.Random(f"{seed}/{round_}/{slot}")))


def paired(referee, seed: int, round_: int, pairs) -> list[Pairing]:
    """One round's (a, b) pairs as Pairings, each with its seeded opening (a bye none)."""
    return [Pairing(round_, slot, a, b,
                    () if b is None else opening_for(referee, seed, round_, slot))
            for slot, (a, b) in enumerate(pairs)]

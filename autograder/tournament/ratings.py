"""Points, ratings with their uncertainty, and the head-to-head matrix.

Ratings are openskill's (Weng-Lin, Plackett-Luce; why this library: docs/TOURNAMENT.md,
"Ratings"). Games are rated one at a time in schedule order (round, slot, leg), never
in the order they finished, so the same games give the same ratings however many
workers played them, resumed or not. A game that never started (neither module
imports) is not rated.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Row:
    name: str
    bundled: bool
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    byes: int = 0
    points: float = 0.0
    forfeits: int = 0                  # games lost by a failure (import, time, crash, ...)
    failures: dict = field(default_factory=dict)   # kind -> count
    mu: float = 0.0
    sigma: float = 0.0
    rank: int = 0

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma

    @property
    def score(self) -> float:
        """Points per game played (byes left out)."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.0


def standings(names: list[str], bundled: set[str], games: list[dict],
              byes: list[tuple[str, float]]) -> list[Row]:
    """One row per player, ranked by points, then by the rating's ordinal, then name.

    `games` are records in schedule order; `byes` (player, points) in schedule order."""
    from openskill.models import PlackettLuce
    model = PlackettLuce()
    rating = {name: model.rating(name=name) for name in names}
    rows = {name: Row(name, name in bundled) for name in names}
    for name, points in byes:
        rows[name].byes += 1
        rows[name].points += points
    for record in games:
        first, second = record["players"]
        score = record["score"]
        if score is None:
            continue
        for name, own in ((first, score), (second, 1.0 - score)):
            row = rows[name]
            row.games += 1
            row.points += own
            if own == 1.0:
                row.wins += 1
            elif own == 0.5:
                row.draws += 1
            else:
                row.losses += 1
        failure = record.get("failure")
        if failure and failure.get("side") is not None:
            loser = rows[record["players"][failure["side"]]]
            loser.forfeits += 1
            loser.failures[failure["kind"]] = loser.failures.get(failure["kind"], 0) + 1
        ranks = [0, 0] if score == 0.5 else ([0, 1] if score == 1.0 else [1, 0])
        [[a], [b]] = model.rate([[rating[first]], [rating[second]]], ranks=ranks)
        rating[first], rating[second] = a, b
    for name, row in rows.items():
        row.mu, row.sigma = rating[name].mu, rating[name].sigma
    ranked = sorted(rows.values(), key=lambda r: (-r.points, -r.ordinal, r.name))
    for place, row in enumerate(ranked, 1):
        row.rank = place
    return ranked


def head_to_head(games: list[dict]) -> dict[tuple[str, str], list[float]]:
    """{(a, b): [points of a against b, games]} for every pair that met."""
    table: dict[tuple[str, str], list[float]] = {}
    for record in games:
        score = record["score"]
        if score is None:
            continue
        first, second = record["players"]
        for a, b, own in ((first, second, score), (second, first, 1.0 - score)):
            cell = table.setdefault((a, b), [0.0, 0])
            cell[0] += own
            cell[1] += 1
    return table

"""Pairings: everyone meets everyone once in a round robin; Swiss never repeats a
pairing, pairs by points, hands out byes fairly and stays O(N log N) games."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter

import pytest

from autograder import KitError
from autograder.suites.connect4 import referee as connect4_referee
from autograder.suites.muehle import referee as muehle_referee
from autograder.tournament import pairing


@pytest.mark.parametrize("count", [2, 5, 8, 15])
def test_round_robin_pairs_everyone_once(count):
    names = [f"p{i}" for i in range(count)]
    rounds = pairing.round_robin(names)
    met = Counter(frozenset(pair) for pairs in rounds for pair in pairs if pair[1] is not None)
    assert set(met) == {frozenset(p) for p in itertools.combinations(names, 2)}
    assert set(met.values()) == {1}
    for pairs in rounds:
        seated = [name for pair in pairs for name in pair if name is not None]
        assert sorted(seated) == sorted(names)          # each player once per round
    byes = Counter(a for pairs in rounds for a, b in pairs if b is None)
    assert (set(byes.values()) == {1} and len(byes) == count) if count % 2 else not byes


def play_swiss(count: int, rounds: int, seed: int = 7):
    """Swiss rounds with random results; returns (pairings per round, points)."""
    names = [f"s{i:03d}" for i in range(count)]
    strength = {name: random.Random(name).random() for name in names}
    points, met, had_bye, history = {}, set(), set(), []
    results = random.Random(seed)
    for number in range(1, rounds + 1):
        pairs = pairing.swiss_round(names, points, met, had_bye,
                                    random.Random(f"{seed}/{number}"))
        history.append(pairs)
        for a, b in pairs:
            if b is None:
                had_bye.add(a)
                points[a] = points.get(a, 0) + 2
                continue
            met.add(frozenset((a, b)))
            for _ in range(2):     # two legs
                winner = a if results.random() < strength[a] / (strength[a] + strength[b]) \
                    else b
                points[winner] = points.get(winner, 0) + 1
    return names, history, points


def test_swiss_for_300_players_plays_n_log_n_games_and_never_repeats():
    rounds = pairing.default_rounds(300)
    assert rounds == math.ceil(math.log2(300)) + 2 == 11
    names, history, _ = play_swiss(300, rounds)
    games = sum(2 for pairs in history for _, b in pairs if b is not None)
    assert games == 11 * 150 * 2 == 3300                 # a round robin: 89,700
    pairs = [frozenset(p) for r in history for p in r if p[1] is not None]
    assert len(pairs) == len(set(pairs))                 # no repeated pairing
    for r in history:
        seated = [name for pair in r for name in pair if name is not None]
        assert sorted(seated) == names


def test_swiss_pairs_players_with_equal_points_first():
    names, _, points = play_swiss(64, 1)                 # points after one round: 0, 1 or 2
    second = pairing.swiss_round(names, points, set(), set(), random.Random(1))
    level = sum(points.get(a, 0) == points.get(b, 0) for a, b in second)
    assert level >= 30                                   # 32 pairs: at most a few cross


def test_swiss_bye_goes_to_the_lowest_player_without_one():
    names, history, _ = play_swiss(9, 6)
    byes = [a for pairs in history for a, b in pairs if b is None]
    assert len(byes) == 6 and len(set(byes)) == 6        # never the same player twice


def test_swiss_is_the_same_for_the_same_seed():
    assert play_swiss(40, 6, seed=3)[1] == play_swiss(40, 6, seed=3)[1]
    assert play_swiss(40, 6, seed=3)[1] != play_swiss(40, 6, seed=4)[1]


def test_swiss_without_a_possible_pairing_says_so():
    names = ["a", "b", "c", "d"]
    met = {frozenset(p) for p in itertools.combinations(names, 2)}
    with pytest.raises(KitError, match="fewer rounds"):
        pairing.swiss_round(names, {}, met, set(), random.Random(1))


@pytest.mark.parametrize("referee", [connect4_referee, muehle_referee])
def test_openings_are_seeded_varied_and_legal(referee):
    openings = [pairing.opening_for(referee, 5, 1, slot) for slot in range(12)]
    assert openings == [pairing.opening_for(referee, 5, 1, slot) for slot in range(12)]
    assert len(set(openings)) >= 6                       # deterministic players vary
    for opening in openings:
        game = referee.Game(opening)                     # the referee accepts them
        assert game.result() is None and game.turn == len(opening) % 2

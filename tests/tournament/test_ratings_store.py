"""Standings, ratings and the store (its journal), on records made here (no sandbox)."""

from __future__ import annotations

import random

import pytest

from autograder import KitError
from autograder.tournament import ratings
from autograder.tournament.pairing import Pairing
from autograder.tournament.store import Store


def record(key, first, second, score, failure=None):
    return {"key": list(key), "players": [first, second], "opening": [], "moves": [],
            "score": score, "reason": "", "failure": failure}


GAMES = [
    record((1, 0, 0), "ann", "bob", 1.0),
    record((1, 0, 1), "bob", "ann", 0.5),
    record((1, 1, 0), "cid", "dee", 0.0, {"side": 0, "kind": "timeout", "detail": ""}),
    record((1, 1, 1), "dee", "cid", 1.0),
    record((2, 0, 0), "ann", "cid", 1.0),
    record((2, 0, 1), "cid", "ann", None, {"side": None, "kind": "import", "detail": ""}),
]


def test_standings_count_points_results_and_failures():
    rows = {r.name: r for r in ratings.standings(["ann", "bob", "cid", "dee"], {"dee"},
                                                 GAMES, byes=[("bob", 2.0)])}
    assert (rows["ann"].wins, rows["ann"].draws, rows["ann"].losses) == (2, 1, 0)
    assert rows["ann"].points == 2.5 and rows["ann"].rank == 1
    assert rows["bob"].points == 0.5 + 2.0 and rows["bob"].byes == 1
    assert rows["cid"].forfeits == 1 and rows["cid"].failures == {"timeout": 1}
    assert rows["cid"].games == 3                       # the game that never began: unrated
    assert rows["dee"].bundled
    assert rows["ann"].mu > rows["bob"].mu and rows["dee"].mu > rows["cid"].mu
    assert all(row.sigma < 25 / 3 for row in rows.values() if row.games)


def test_head_to_head_adds_up_both_colours():
    table = ratings.head_to_head(GAMES)
    assert table[("ann", "bob")] == [1.5, 2] and table[("bob", "ann")] == [0.5, 2]
    assert ("cid", "ann") in table and table[("cid", "ann")] == [0.0, 1]


def test_the_store_returns_games_in_schedule_order_whatever_order_they_finished(tmp_path):
    shuffled = list(GAMES)
    random.Random(4).shuffle(shuffled)
    store = Store(tmp_path)
    store.begin({"seed": 1})
    store.save_pairings([Pairing(1, 0, "ann", "bob", (38,)), Pairing(1, 2, "eve", None, ())])
    for game in shuffled:
        store.save_game(game)
    assert [g["key"] for g in store.games()] == [g["key"] for g in GAMES]
    assert store.played() == {tuple(g["key"]) for g in GAMES}
    assert store.pairings(1)[0].opening == (38,) and store.pairings(1)[1].b is None
    with pytest.raises(KitError, match="stored already"):      # a game is stored once
        store.save_game(GAMES[0])
    store.close()
    with (tmp_path / "tournament.jsonl").open("a") as journal:
        journal.write('{"game": {"key": [3, 0, 0], "pla')      # a kill cut this line short
    again = Store(tmp_path)
    assert again.begin({"seed": 1}) == len(GAMES)       # resumed: the games are there
    assert again.session == 2 and again.pairings() == store.pairings()
    assert again.games() == store.games()
    again.close()
    with pytest.raises(KitError, match=r"holds another tournament \(it differs in: seed\)"):
        Store(tmp_path).begin({"seed": 2})

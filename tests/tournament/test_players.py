"""Bad players lose their games, with the reason; the tournament goes on.

Real tournaments through the command line, in a PID namespace, with players
written to misbehave: one that does not import, exits, loops, raises, answers an
illegal move, answers something that is not a move, and one that snoops on files
outside its sandbox. Each loses (or, the snoop, is refused and plays on) and the
record says why; the honest players finish every game. A player that counts its
moves in a global shows that nothing survives from one game to the next.
"""

from __future__ import annotations

import pytest

from . import helpers

#: A legal move: the landing cell of the first column (in `order`) that is not full.
PLAY_FIRST_FREE = """
    taken = set(state)
    for column in {order}:
        for row in range(5, -1, -1):
            if row * 7 + column not in taken:
                return (list(state) + [row * 7 + column], 0, 1)
"""
PLAYERS = {
    "syntax_error": "def iterative_deepening(:\n",
    "exits": "import os\ndef iterative_deepening(state, budget, **options):\n"
             "    os._exit(3)\n",
    "loops": "def iterative_deepening(state, budget, **options):\n    while True:\n"
             "        pass\n",
    "raises": "def iterative_deepening(state, budget, **options):\n"
              "    raise ValueError('no idea')\n",
    "illegal": "def iterative_deepening(state, budget, **options):\n"
               "    return (list(state) + [state[-1]], 0, 1)\n",
    "not_a_move": "def iterative_deepening(state, budget, **options):\n"
                  "    return 'hello'\n",
    # Counts its moves in a global: a second game in the same process would see it > 0.
    "fresh": "MOVES = 0\n"
             "def iterative_deepening(state, budget, **options):\n"
             "    global MOVES\n"
             "    if len(state) <= 3 and MOVES:\n"
             "        return ([], 0, 1)        # illegal on purpose: the process was reused\n"
             "    MOVES += 1\n" + PLAY_FIRST_FREE.format(order=(3, 2, 4, 1, 5, 0, 6)),
    "snoop": "def iterative_deepening(state, budget, **options):\n"
             "    for path in ('/etc/passwd', '/tmp/x', '../../x'):\n"
             "        try:\n"
             "            open(path).read()\n"
             "        except OSError:\n"
             "            pass\n" + PLAY_FIRST_FREE.format(order=tuple(range(7))),
}
FAILS = {"syntax_error": "import", "exits": "crash", "loops": "timeout", "raises": "raised",
         "illegal": "illegal", "not_a_move": "bad_answer"}


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    base = tmp_path_factory.mktemp("bad-players")
    subs = helpers.submissions(base / "subs", "connect4", ["ada_reference"])
    for name, source in PLAYERS.items():
        (subs / name).mkdir()
        (subs / name / "connect4.py").write_text(source)
    helpers.run("connect4", subs, base / "out", "--depth", "2", "--move-time", "0.3",
                "--round-robin", "--bundled", "greedy", "--jobs", "2")
    return helpers.games(base / "out"), helpers.standings(base / "out")


@pytest.mark.slow
@pytest.mark.hostile
def test_every_bad_player_loses_with_its_reason(played):
    games, rows = played
    assert {row["player"] for row in rows} == set(PLAYERS) | {"ada_reference",
                                                              "bundled/greedy"}
    for name, kind in FAILS.items():
        mine = [g for g in games if name in g["players"].values()]
        assert len(mine) == 2 * (len(PLAYERS) + 1)
        for game in mine:
            side = 0 if game["players"]["x"] == name else 1
            opponent = list(game["players"].values())[1 - side]
            failure = game["failure"]
            if opponent not in FAILS:             # against a player that plays on
                assert failure and failure["side"] == side, (name, game["reason"])
            if failure and failure["side"] == side:
                assert failure["kind"] == kind, (name, failure)
                assert game["reason"].startswith(name + " ")
                assert game["score"] == (0.0 if side == 0 else 1.0)


@pytest.mark.slow
@pytest.mark.hostile
def test_honest_players_finish_and_the_reasons_say_what_happened(played):
    games, rows = played
    by_name = {row["player"]: row for row in rows}
    for honest in ("ada_reference", "bundled/greedy", "fresh", "snoop"):
        assert by_name[honest]["lost_by_failure"] == "0", by_name[honest]
    reasons = {g["failure"]["kind"]: g["reason"] for g in games if g["failure"]}
    assert "ran out of time: no move within the limit" in reasons["timeout"]
    assert "raised ValueError: no idea" in reasons["raised"]
    assert "does not import" in reasons["import"]
    assert "exited with code 3" in reasons["crash"]
    assert "made an illegal move" in reasons["illegal"]
    # The honest players beat every failing one in both colours.
    for game in games:
        names = set(game["players"].values())
        if names & {"ada_reference", "bundled/greedy"} and names & set(FAILS):
            winner = game["players"]["x"] if game["score"] == 1.0 else game["players"]["o"]
            assert winner in {"ada_reference", "bundled/greedy"}, game["reason"]


@pytest.mark.slow
@pytest.mark.hostile
def test_a_player_keeps_nothing_from_one_game_to_the_next(played):
    games, rows = played
    fresh = [g for g in games if "fresh" in g["players"].values()]
    assert fresh and not any(g["failure"] and g["failure"]["side"] is not None and
                             list(g["players"].values())[g["failure"]["side"]] == "fresh"
                             for g in fresh)


@pytest.mark.slow
@pytest.mark.hostile
def test_the_sandbox_refusals_are_recorded(played):
    games, _ = played
    snooping = [g for g in games if "snoop" in g["refused"]]
    assert snooping and any("/etc/passwd" in note for note in snooping[0]["refused"]["snoop"])

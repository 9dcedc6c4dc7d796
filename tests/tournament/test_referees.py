"""The trusted referees, and the duel's referee students get: the same rules.

The tournament's referees (autograder/suites/<a>/referee.py) judge with the suites'
own trusted code (Connect 4: the solver's Position; Nine Men's Morris: movegen,
itself proven equal to the reference). `make duel` ships a referee of its own
(solutions/<a>/duel.py, no reference code); these tests play many random games
and demand that both referees accept the same moves and end the same games the
same way, so `make duel` judges like the tournament."""

from __future__ import annotations

import random

import pytest

from autograder.suites.connect4 import referee as c4
from autograder.suites.muehle import movegen
from autograder.suites.muehle import referee as mm
from tests.conftest import ROOT, load_module

duel_c4 = load_module("_duel_connect4", ROOT / "solutions" / "connect4" / "duel.py")
duel_mm = load_module("_duel_muehle", ROOT / "solutions" / "muehle" / "duel.py")


def test_connect4_duel_referee_agrees_with_the_tournament_referee():
    chance = random.Random(11)
    for _ in range(80):
        game, state = c4.Game(), []
        while True:
            legal = sorted(duel_c4.landing_cells(state).values())
            for cell in range(42):               # every answer one stone longer
                answer = state + [cell]
                assert (game.check(answer) is None) == (cell in legal), (state, cell)
            ended, duel_ended = game.result(), duel_c4.game_over(state)
            assert (ended is None) == (duel_ended is None), state
            if ended is not None:
                winner = duel_ended[0]
                assert ended[0] == {None: 0.5, "x": 1.0, "o": 0.0}[winner]
                break
            player = duel_c4.greedy_move if chance.random() < 0.3 else duel_c4.random_move
            answer = player(state)
            game.play(answer)
            state = answer


def test_muehle_duel_referee_agrees_with_the_tournament_referee():
    chance = random.Random(5)
    plies = 0
    for _ in range(15):
        game, state, player = mm.Game(), duel_mm.START, duel_mm.WHITE
        while True:
            duel_successors = {duel_mm.as_key(duel_mm.after(state, player, m))
                               for m in duel_mm.moves(state, player)}
            assert duel_successors == set(movegen.next_states(duel_mm.as_key(state), player))
            ended, duel_ended = game.result(), duel_mm.game_over(state, player)
            assert (ended is None) == (duel_ended is None), (state, player)
            if ended is not None:
                winner = duel_ended[0]
                assert ended[0] == {None: 0.5, duel_mm.WHITE: 1.0, duel_mm.BLACK: 0.0}[winner]
                break
            mover = duel_mm.greedy_move if chance.random() < 0.5 else duel_mm.random_move
            answer = mover(state, player)
            assert game.check(answer) is None and duel_mm.why_illegal(state, player, answer) \
                is None
            game.play(answer)
            state, player, plies = answer, duel_mm.other(player), plies + 1
    assert plies > 500


@pytest.mark.parametrize("answer, reason", [
    ("38", "not a state"),
    ([38.0], "not a state"),
    ([37], "not the position plus one stone"),
    ([38, 37, 31], "not the position plus one stone"),
    ([30, 38], "not the position plus one stone"),
    ([38, 44], "not on the board"),
    ([38, 30], "lands on cell 37"),
    ([38, 31], None),
])
def test_connect4_referee_names_what_is_wrong(answer, reason):
    game = c4.Game([38])
    problem = game.check(answer)
    assert (problem is None) if reason is None else (reason in problem)


def test_connect4_referee_knows_a_full_column_and_four_in_a_row():
    game = c4.Game([38, 31, 24, 17, 10, 3])                # column 3 full
    assert "column 3 is full" in game.check(game.state + [3])
    game = c4.Game([35, 28, 36, 29, 37, 30])
    assert game.result() is None
    game.play(game.state + [38])
    assert game.result() == (1.0, "x has four in a row")


def test_muehle_referee_rejects_what_is_not_a_successor():
    game = mm.Game()
    start = mm._reference.initial_state()
    assert "not a state" in game.check("board")
    assert "not a state" in game.check([[0] * 23, [9, 9], 0])
    placed = list(start[0])
    placed[4] = 2                                          # black stone for white's move
    assert "legal move" in game.check([placed, [9, 8], 0])
    placed[4] = 1
    assert game.check([placed, [8, 9], 0]) is None
    assert game.check((tuple(placed), (8, 9), 0)) is None  # either form
    assert "legal move" in game.check([placed, [9, 9], 0])  # the hand must shrink


def test_muehle_referee_ends_games_by_the_rules():
    game = mm.Game()
    board = [0] * 24
    board[0] = board[1] = 1                                # white: 2 stones, none in hand
    board[5] = board[6] = board[7] = 2
    game.state = (tuple(board), (0, 0), 0)
    assert game.result() == (0.0, "W has fewer than 3 stones")
    board[2] = 1
    game.state = (tuple(board), (0, 0), 50)
    assert game.result() == (0.5, "draw: 50 moves without a placement or a capture")

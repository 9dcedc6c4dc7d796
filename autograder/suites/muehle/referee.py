"""The Nine Men's Morris referee of class tournaments (trusted: grading process only).

`autograder tournament muehle ...` holds each game here (the interface is in
docs/TOURNAMENT.md, "Adding a game"): a player is told the state and its colour and
answers with a successor movegen.py lists. Moves are written like `make play` writes
them: `5` (place on point 5), `4-7` (from 4 to 7), `x12` added for a removal on 12.
"""

from __future__ import annotations

import random

from autograder.grading.reference import load_reference
from autograder.suites.muehle import movegen

_reference = load_reference("muehle", "muehle")
WHITE, BLACK, EMPTY = movegen.WHITE, movegen.BLACK, movegen.EMPTY
SIDES = ("W", "B")
PLAYER = {0: WHITE, 1: BLACK}
BOARD = {
    "title": "Nine Men's Morris",
    "width": 7, "height": 7,
    "points": [[col + 0.5, row + 0.5] for col, row in _reference.COORDS],
    "lines": sorted({(min(p, q), max(p, q)) for p in range(24)
                     for q in _reference.ADJACENT[p]}),
    "radius": 0.3,
    "background": "#e8c98f",
    "empty": "#5b4424",
    "stones": {"W": "#fbfbf6", "B": "#202020"},
    "names": {"W": "white, moves first", "B": "black"},
}
#: Openings are this many placements long (two stones each); see `opening`.
OPENING_PLIES = 4


def as_state(value):
    """A state the player sent, in tuple form, or None if it is none."""
    try:
        board, in_hand, quiet = value
        board, in_hand = tuple(board), tuple(in_hand)
    except (TypeError, ValueError):
        return None
    if len(board) != 24 or len(in_hand) != 2 or type(quiet) is not int \
            or not {int}.issuperset(map(type, board + in_hand)):     # in C: every state sent
        return None
    return (board, in_hand, quiet)


def changes(before, after, player: int) -> tuple[list, list, list]:
    """The points `player`'s stones left and came to between two states, and those of
    the opponent's stones taken."""
    other = WHITE + BLACK - player
    return ([p for p in range(24) if before[0][p] == player and after[0][p] != player],
            [p for p in range(24) if after[0][p] == player and before[0][p] != player],
            [p for p in range(24) if before[0][p] == other and after[0][p] != other])


def describe(before, after, player: int) -> str:
    """A move in make play's words: 5, 4-7, 5x12, 4-7x12."""
    left, came, taken = changes(before, after, player)
    words = f"{left[0]}-{came[0]}" if left else f"{came[0]}"
    return words + (f"x{taken[0]}" if taken else "")


class Game:
    """One game; the state is the reference's tuple form, WHITE moves first."""

    def __init__(self, opening=()):
        self.state = _reference.initial_state()
        self.turn = 0
        self.last: tuple[str, list[int]] = ("", [])
        self._successors = None
        for move in opening:
            self.play_move(move)

    @property
    def player(self) -> int:
        return PLAYER[self.turn]

    def successors(self) -> dict:
        """{successor in tuple form: its notation} for the player to move (cached)."""
        if self._successors is None:
            self._successors = {after: describe(self.state, after, self.player)
                                for after in movegen.next_states(self.state, self.player)}
        return self._successors

    def question(self) -> dict:
        return {"position": self.state, "player": self.player}

    def check(self, answer) -> str | None:
        after = as_state(answer)
        if after is None:
            return "the answer is not a state [board, in_hand, quiet]"
        if after not in self.successors():
            return "the answer is not a state one legal move leads to (removal included)"
        return None

    def play(self, answer) -> str:
        """Apply a checked answer; returns the move's notation."""
        after = as_state(answer)
        return self._advance(after, self.successors()[after])

    def play_move(self, move: str) -> None:
        found = [after for after, words in self.successors().items() if words == move]
        if not found:
            raise ValueError(f"{move} is not a legal move here")
        self._advance(found[0], move)

    def _advance(self, after, move: str) -> str:
        self.last = (f"{SIDES[self.turn]} {move}", changes(self.state, after, self.player)[1])
        self.state, self.turn = after, 1 - self.turn
        self._successors = None
        return move

    def result(self):
        """The rules' end of the game, tried in their order, for the player to move."""
        board, in_hand, quiet = self.state
        me, you = self.player, WHITE + BLACK - self.player
        mover, other = SIDES[self.turn], SIDES[1 - self.turn]
        score_if_mover_wins = 1.0 if self.turn == 0 else 0.0
        if board.count(me) + in_hand[me - 1] < 3:
            return 1.0 - score_if_mover_wins, f"{mover} has fewer than 3 stones"
        if board.count(you) + in_hand[you - 1] < 3:
            return score_if_mover_wins, f"{other} has fewer than 3 stones"
        if not movegen.successors(movegen.encode((board, in_hand, 0), me)):
            return 1.0 - score_if_mover_wins, f"{mover} cannot move"
        if quiet >= movegen.DRAW_PLIES:
            return 0.5, f"draw: {movegen.DRAW_PLIES} moves without a placement or a capture"
        return None

    def frame(self) -> dict:
        board, in_hand, quiet = self.state
        cells = "".join(".WB"[v] for v in board)
        words, changed = self.last
        note = (f"{words}; " if words else "") + \
            f"in hand: W {in_hand[0]}, B {in_hand[1]}; quiet moves: {quiet}"
        return {"cells": cells, "mark": changed, "note": note}


def opening(rng: random.Random) -> list[str]:
    """OPENING_PLIES placements drawn with `rng`, redrawn (at most 50 times) until the
    reference heuristic says 0 (balanced); every pairing plays it with either colour."""
    for _ in range(50):
        game = Game()
        moves = []
        for _ in range(OPENING_PLIES):
            move = rng.choice(sorted(game.successors().values(), key=lambda w: int(w)))
            game.play_move(move)
            moves.append(move)
        if _reference.heuristic(game.state, WHITE) == 0:
            break
    return moves

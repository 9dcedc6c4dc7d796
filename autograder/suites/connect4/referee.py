"""The Connect 4 referee of class tournaments (trusted: grading process only).

`autograder tournament connect4 ...` holds each game here (the interface the engine
uses is in docs/TOURNAMENT.md, "Adding a game"): a player answers with the successor
state it chose (the course's state format: the list of cells in play order), checked
against the rules with the suite's exact solver's `Position` (solver.py) and applied;
the game ends at four in a row or a full board.
"""

from __future__ import annotations

import random

from autograder.suites.connect4.solver import CELLS, HEIGHT, WIDTH, Position

SIDES = ("x", "o")
#: How the viewer draws a position: one point per cell, numbered like the course
#: (row by row from the top); a frame's "cells" string holds one symbol per point.
BOARD = {
    "title": "Connect 4",
    "width": WIDTH, "height": HEIGHT,
    "points": [[c + 0.5, r + 0.5] for r in range(HEIGHT) for c in range(WIDTH)],
    "lines": [],
    "radius": 0.4,
    "background": "#1f4fa8",
    "empty": "#f4f4f4",
    "stones": {"x": "#d62828", "o": "#f5c518"},
    "names": {"x": "x: red, moves first", "o": "o: yellow"},
}
#: Openings are this many stones long, both sides' first moves.
OPENING_PLIES = 2
#: An opening is balanced when a depth-4 search of the position after it, with the
#: course's window evaluation, stays within this many points of even.
BALANCE = 120
SEARCH_DEPTH = 4


def _landing(state: list[int], column: int) -> int | None:
    taken = set(state)
    for row in range(HEIGHT - 1, -1, -1):
        cell = row * WIDTH + column
        if cell not in taken:
            return cell
    return None


class Game:
    """One game of Connect 4; the state is the course's list of cells in play order."""

    def __init__(self, opening=()):
        self.state: list[int] = []
        self.position = Position()
        self.winner: int | None = None     # the index of the side with four in a row
        for move in opening:
            self.play_move(move)

    @property
    def turn(self) -> int:
        return len(self.state) % 2

    def question(self) -> dict:
        return {"position": list(self.state), "player": SIDES[self.turn]}

    def check(self, answer) -> str | None:
        """None if `answer` is the current state plus one legal stone, else why not."""
        state = self.state
        if type(answer) not in (list, tuple) or any(type(c) is not int for c in answer):
            return "the answer is not a state (a list of cell numbers)"
        if len(answer) != len(state) + 1 or list(answer[:-1]) != state:
            return ("the answer is not the position plus one stone (a successor keeps "
                    f"the {len(state)} cells played so far, in order, and adds one)")
        cell = answer[-1]
        if not 0 <= cell < CELLS:
            return f"cell {cell} is not on the board (cells 0..{CELLS - 1})"
        column = cell % WIDTH
        lands = _landing(state, column)
        if lands is None:
            return f"column {column} is full"
        if cell != lands:
            return f"a stone dropped into column {column} lands on cell {lands}, not {cell}"
        return None

    def play(self, answer) -> int:
        """Apply a checked answer; its notation is the cell of the new stone."""
        self.play_move(answer[-1])
        return answer[-1]

    def play_move(self, cell: int) -> None:
        if self.result() is not None:
            raise ValueError("the game is over")
        column = cell % WIDTH
        if _landing(self.state, column) != cell:
            raise ValueError(f"cell {cell} is not a legal move here")
        if self.position.is_winning_move(column):
            self.winner = self.turn
        else:
            self.position = self.position.play(column)
        self.state.append(cell)

    def result(self):
        if self.winner is not None:
            return (1.0 if self.winner == 0 else 0.0,
                    f"{SIDES[self.winner]} has four in a row")
        if len(self.state) == CELLS:
            return 0.5, "draw: the board is full"
        return None

    def frame(self) -> dict:
        cells = ["."] * CELLS
        for index, cell in enumerate(self.state):
            cells[cell] = SIDES[index % 2]
        note = ""
        if self.state:
            mover = SIDES[(len(self.state) - 1) % 2]
            note = f"{mover} dropped a stone into column {self.state[-1] % WIDTH}"
        return {"cells": "".join(cells), "mark": self.state[-1:], "note": note}


# ------------------------------------------------------------------ openings
def _value(state: list[int]) -> float:
    """A depth-4 alpha-beta value of `state` (x's view) with the course's evaluation."""
    from autograder.grading.reference import load_reference
    reference = load_reference("connect4", "connect4")
    return reference.search(list(state), SEARCH_DEPTH, None, None, reference.centre_first)[1]


def opening(rng: random.Random) -> list[int]:
    """A balanced opening of OPENING_PLIES stones, drawn with `rng`.

    Every pairing plays its opening twice, colours swapped, so an opening that
    favours one side is fair to both players; balanced openings only keep the
    games close. Drawn until a balanced one comes (at most 50 tries, then the
    last one drawn)."""
    for _ in range(50):
        game = Game()
        for _ in range(OPENING_PLIES):
            game.play_move(rng.choice([_landing(game.state, c) for c in range(WIDTH)
                                       if _landing(game.state, c) is not None]))
        if abs(_value(game.state)) <= BALANCE:
            break
    return list(game.state)

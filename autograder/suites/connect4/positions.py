"""The positions connect4's hidden checks are judged on: seeded random games of
every length, finished games won in each direction, drawn full boards, middle
games, and the tactics of tactics.json; drawn for the feedback as the handout
draws them. Game data only: no check here (test_hidden.py judges)."""

from __future__ import annotations

import functools
import json
import random
from pathlib import Path

from autograder.grading.reference import load_reference
from autograder.suites.connect4 import solver

HERE = Path(__file__).resolve().parent
ref = load_reference("connect4", "connect4")


@functools.cache
def judge_solver():
    return solver.Solver()


# ------------------------------------------------------------------ positions
def draw(state):
    board = ref.showBoard(ref.getBoard(list(state)))
    return f"{board}\nstate = {list(state)}"


def playout(rng, length):
    """A random game of at most `length` stones; stops when the game is over."""
    state = []
    while len(state) < length and not ref.terminal_test(state):
        state = rng.choice(ref.nextstates(state))
    return state


@functools.cache
def random_states(count=1000, seed=20240501):
    """Seeded random positions of every length, finished games included."""
    rng = random.Random(seed)
    found = {(): []}
    for _ in range(count):
        state = playout(rng, rng.randrange(0, 43))
        found.setdefault(tuple(state), state)
    return tuple(sorted(found.values(), key=lambda s: (len(s), s)))


def direction(state):
    """Which kind of line holds the four: 0 a row, 1 a column, 2 and 3 the diagonals."""
    for index, line in enumerate(ref.lines(ref.getBoard(state))):
        if "xxxx" in line or "oooo" in line:
            return (index >= 6) + (index >= 13) + (index >= 19)
    return None


@functools.cache
def won_states():
    """Finished games won in each of the four directions, 40 of each."""
    rng = random.Random(77)
    found = [[], [], [], []]
    while any(len(kind) < 40 for kind in found):
        state = playout(rng, 42)
        kind = direction(state)
        if kind is not None and len(found[kind]) < 40:
            found[kind].append(state)
    return tuple(s for kind in found for s in kind)


@functools.cache
def drawn_states():
    """Full boards without four in a row, each reached by a legal move order."""
    out = []
    patterns = [["xxooxxo", "ooxxoox"] * 3, ["oxxooxx", "xooxxoo"] * 3]
    for rows in patterns:
        for first_col_order in (range(7), range(6, -1, -1), (3, 2, 4, 1, 5, 0, 6)):
            state = _fill("".join(rows), tuple(first_col_order))
            if state and tuple(state) not in {tuple(s) for s in out}:
                out.append(state)
    return tuple(out)


def _fill(target, order):
    heights = [0] * 7

    def dfs(state):
        if len(state) == 42:
            return state
        stone = "x" if len(state) % 2 == 0 else "o"
        for col in order:
            if heights[col] < 6:
                cell = 35 + col - 7 * heights[col]
                if target[cell] == stone:
                    heights[col] += 1
                    if abs(ref.evaluation(state + [cell])) < ref.WIN:
                        found = dfs(state + [cell])
                        if found:
                            return found
                    heights[col] -= 1
        return None

    return dfs([])


@functools.cache
def midgame_states(count, seed, low=6, high=30):
    """Unfinished positions with low..high stones, including some close to a win."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        state = playout(rng, rng.randrange(low, high + 1))
        if not ref.terminal_test(state) and len(state) >= low:
            out.append(state)
    return as_tuples(sorted(out, key=lambda s: (len(s), s)))


@functools.cache
def tactics():
    """The positions of tactics.json (written by tests/connect4/tactics_build.py)."""
    return json.loads((HERE / "tactics.json").read_text())


def as_tuples(states):
    return tuple(tuple(s) for s in states)

"""`make duel`: your player against the bundled ones, refereed like the class tournament.

Your `iterative_deepening(state, budget)` plays 10 games against each bundled
player (5 openings, each played with colours swapped): `random` (any legal
move) and `greedy` (wins at once if it can, blocks a win at once if it must,
never gives the opponent a win on top of its own stone, else the most central
column). Your player runs in a process of its own and is asked for one move at a
time, with the move time as its budget; the referee in this file checks every
answer. An illegal answer, an exception, or no answer within the move time plus
half a second loses that game, as in the tournament.

    make duel                     # 0.2 s per move
    make duel MOVE_TIME=1         # the tournament's default
    python duel.py --games 4 --opponent greedy

This file is the rules and two simple players, nothing of a good search: the
tournament plays the same players (sandboxed) and judges moves by the same rules.
"""

import argparse
import json
import os
import random
import select
import subprocess
import sys
import time

try:
    from kit_language import catalog
except ImportError:     # loaded from solutions/ (the kit's tests of the referee): English
    catalog = None
_ = catalog().gettext if catalog else str   # the course's language, or SPIELBAUM_LANG

COLUMNS, ROWS = 7, 6
#: How far past its budget a player may answer before it loses on time.
GRACE = 0.5
#: Every straight run of four cells, as cell numbers (rows from the top).
FOURS = []
for _row in range(ROWS):
    for _col in range(COLUMNS):
        for _dr, _dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
            _cells = [(_row + k * _dr) * COLUMNS + _col + k * _dc for k in range(4)]
            if 0 <= _row + 3 * _dr < ROWS and 0 <= _col + 3 * _dc < COLUMNS:
                FOURS.append(tuple(_cells))


# ------------------------------------------------------------------ the rules
def landing_cells(state):
    """{column: the cell a stone dropped there reaches} for every column not full."""
    taken = set(state)
    found = {}
    for column in range(COLUMNS):
        for row in reversed(range(ROWS)):
            if row * COLUMNS + column not in taken:
                found[column] = row * COLUMNS + column
                break
    return found


def owner_map(state):
    """{cell: 'x' or 'o'} for the stones of `state` (x has the even places)."""
    return {cell: "xo"[place % 2] for place, cell in enumerate(state)}


def completes_four(owners, cell, stone):
    """True if `stone` on `cell` would make four in a row."""
    for four in FOURS:
        if cell in four and all(c == cell or owners.get(c) == stone for c in four):
            return True
    return False


def game_over(state):
    """None while the game goes on, else ('x' | 'o' | None for a draw, the reason)."""
    if state:
        owners = owner_map(state)
        last = state[-1]
        if completes_four(owners, last, owners[last]):
            return owners[last], _("{stone} has four in a row").format(stone=owners[last])
    if len(state) == COLUMNS * ROWS:
        return None, _("draw: the board is full")
    return None


def why_illegal(state, answer):
    """None if `answer` is `state` plus one legal stone, else the reason."""
    if not isinstance(answer, list) or not all(type(c) is int for c in answer):
        return _("the answer {answer} is not a list of cell numbers").format(
            answer=f"{answer!r:.80}")
    if len(answer) != len(state) + 1 or answer[:-1] != list(state):
        return _("the answer is not the position plus one stone")
    if answer[-1] not in landing_cells(state).values():
        return _("no stone can land on cell {cell} now").format(cell=answer[-1])
    return None


# ------------------------------------------------------------------ bundled players
def random_move(state):
    """Any legal move; the same one every time for the same position."""
    chance = random.Random(repr(state))
    return list(state) + [chance.choice(sorted(landing_cells(state).values()))]


def greedy_move(state):
    """Win now; else block the opponent's win; else a safe, central column."""
    me, you = ("x", "o") if len(state) % 2 == 0 else ("o", "x")
    owners = owner_map(state)
    options = landing_cells(state)
    central = sorted(options, key=lambda column: (abs(column - 3), column))
    for stone in (me, you):             # my win first, then the block
        for column in central:
            if completes_four(owners, options[column], stone):
                return list(state) + [options[column]]

    def gives_a_win(column):
        above = options[column] - COLUMNS
        return above >= 0 and completes_four(owners, above, you)

    safe = [column for column in central if not gives_a_win(column)] or central
    return list(state) + [options[safe[0]]]


BUNDLED = {"random": random_move, "greedy": greedy_move}


# ------------------------------------------------------------------ your player
class Student:
    """Your module in a process of its own, asked for one move at a time."""

    def __init__(self):
        self.process = None
        self.answered = 0           # moves your player has given
        self.failed = ""            # its last error, when it gave one instead of a move
        self.hopeless = False       # that error would end every game the same way

    def start(self):
        """Start the process and wait until your module is imported: starting
        Python is not charged to your first move (10 s at most)."""
        self.process = subprocess.Popen([sys.executable, __file__, "--serve"],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        cwd=os.path.dirname(os.path.abspath(__file__)))
        select.select([self.process.stdout], [], [], 10)
        self.process.stdout.readline()

    def stop(self):
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None

    def move(self, state, budget):
        """(the answer, seconds) or (None, the reason this player loses)."""
        if self.process is None:
            self.start()
        started = time.monotonic()
        line = json.dumps({"state": list(state), "budget": budget}) + "\n"
        try:
            self.process.stdin.write(line.encode())
            self.process.stdin.flush()
        except BrokenPipeError:
            pass
        ready = select.select([self.process.stdout], [], [], budget + GRACE)[0]
        if not ready:
            self.stop()
            return None, _("no move within {seconds} s").format(seconds=f"{budget + GRACE:.1f}")
        reply = self.process.stdout.readline()
        if not reply:
            self.stop()
            return None, _("your program ended (see the error above)")
        reply = json.loads(reply)
        if "error" in reply:
            self.failed, self.hopeless = reply["error"], reply.get("hopeless", False)
            return None, reply["error"]
        self.answered += 1
        return reply["answer"], time.monotonic() - started


def serve():
    """The player's process: read a position, answer with iterative_deepening's move."""
    replies = os.fdopen(os.dup(1), "w")
    sys.stdout = sys.stderr                 # your prints must not mix with the answers
    try:
        import connect4
    except Exception as error:              # reported as the reason of every loss
        problem = _("{module} does not import: {error}").format(
            module="connect4.py", error=f"{type(error).__name__}: {error}")
        connect4 = None
    replies.write("ready\n")
    replies.flush()
    for line in sys.stdin:
        request = json.loads(line)
        if connect4 is None:
            reply = {"error": problem, "hopeless": True}
        else:
            try:
                found = connect4.iterative_deepening(request["state"], request["budget"])
                reply = {"answer": list(found[0]) if found and found[0] is not None else None}
            except NotImplementedError:
                reply = {"error": _("{function} is not written yet").format(
                    function="iterative_deepening"), "hopeless": True}
            except Exception as error:
                reply = {"error": _("{function} raised {error}").format(
                    function="iterative_deepening", error=f"{type(error).__name__}: {error}")}
        replies.write(json.dumps(reply) + "\n")
        replies.flush()


# ------------------------------------------------------------------ the duel
def openings(count):
    """`count` openings of two stones, the same for every run of `make duel`."""
    chance = random.Random(2024)
    chosen = []
    while len(chosen) < count:
        state = []
        for _stone in range(2):
            state = state + [chance.choice(sorted(landing_cells(state).values()))]
        if state not in chosen:
            chosen.append(state)
    return chosen


def play(student, opponent, opening, student_moves_first, budget):
    """One game; returns (points for you, the reason, number of stones)."""
    state, yours = list(opening), "x" if student_moves_first else "o"
    while (over := game_over(state)) is None:
        to_move = "x" if len(state) % 2 == 0 else "o"
        if to_move != yours:
            state = BUNDLED[opponent](state)
            continue
        answer, spent = student.move(state, budget)
        if answer is None:
            return 0.0, _("you lose: {reason}").format(reason=spent), len(state)
        problem = why_illegal(state, answer)
        if problem is not None:
            return 0.0, _("you lose: illegal move ({reason})").format(reason=problem), len(state)
        state = answer
    winner, reason = over
    points = 0.5 if winner is None else float(winner == yours)
    return points, reason, len(state)




def hopeless(student):
    """Why every game would be lost as the first was ("" if it might not be): the
    player never gave a move, and its error is one that does not depend on the position
    (a module that does not import, a function not written yet: the player says so)."""
    if student.answered == 0 and student.hopeless:
        return student.failed
    return ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--games", type=int, default=10, help="games per opponent (even)")
    parser.add_argument("--move-time", type=float, default=0.2, help="seconds per move")
    parser.add_argument("--opponent", choices=sorted(BUNDLED), action="append",
                        help="play only this bundled player (repeatable)")
    options = parser.parse_args()
    if options.serve:
        return serve()
    student = Student()
    total = played = 0
    try:
        for opponent in options.opponent or sorted(BUNDLED):
            score = 0.0
            chosen = openings(max(1, options.games // 2))
            for number, opening in enumerate(chosen):
                for first in (True, False):
                    points, reason, stones = play(student, opponent, opening, first,
                                                  options.move_time)
                    score += points
                    colour = _("x, first") if first else _("o, second")
                    print(_("vs {opponent} opening {number} you {colour}: {points} ({reason}, "
                            "{stones} stones)").format(
                              opponent=f"{opponent:6s}", number=number + 1,
                              colour=f"{colour:9s}", points=f"{points:g}", reason=reason,
                              stones=stones), flush=True)
                    student.stop()          # a fresh process every game, as in the tournament
                    if number == 0 and first and (why := hopeless(student)):
                        print(_("Stopped after one game: your player lost it before its "
                                "first move ({why}), and every game would end the same way. "
                                "Fix that (make check says what is missing), then run make "
                                "duel again.").format(why=why))
                        return
            games = 2 * len(chosen)
            print(_("== against {opponent}: {score} of {games} points").format(
                opponent=opponent, score=f"{score:g}", games=games) + "\n", flush=True)
            total, played = total + score, played + games
    finally:
        student.stop()
    print(_("Score: {total} of {played} points ({seconds} s per move, colours swapped every "
            "opening).").format(total=f"{total:g}", played=played,
                                seconds=f"{options.move_time:g}"))


if __name__ == "__main__":
    main()

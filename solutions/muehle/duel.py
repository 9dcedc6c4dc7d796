"""`make duel`: your player against the bundled ones, refereed like the class tournament.

Your `best_move_ab(state, player, depth)` plays 10 games against each bundled
player (5 openings, each played with colours swapped): `random` (any legal
move) and `greedy` (closes a mill when it can, else blocks one of yours, else
any move). Your player runs in a process of its own and is asked for one move
at a time. It has a time budget per move, reached the way the tournament reaches
it: depth 1, 2, 3, ... is asked for while the next depth is likely to finish
within the budget, and the deepest answer is played (a depth still running at
the budget plus half a second is stopped; the one before counts). The referee
in this file checks every answer: an illegal one, an exception, or no answer at
depth 1 within the limit loses the game, as in the tournament.

    make duel                     # 0.2 s per move
    make duel MOVE_TIME=1         # the tournament's default
    python duel.py --games 4 --opponent greedy

This file holds the rules and two simple players, nothing of a search: the
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

WHITE, BLACK = 1, 2
QUIET_LIMIT = 50
GRACE = 0.5
#: The lines of three points (rows, then columns of the drawing).
LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (9, 10, 11), (12, 13, 14), (15, 16, 17),
         (18, 19, 20), (21, 22, 23), (0, 9, 21), (3, 10, 18), (6, 11, 15), (1, 4, 7),
         (16, 19, 22), (8, 12, 17), (5, 13, 20), (2, 14, 23))
#: Two points are neighbours when they sit next to each other on a line.
NEIGHBOURS = {point: set() for point in range(24)}
for _line in LINES:
    for _a, _b in ((_line[0], _line[1]), (_line[1], _line[2])):
        NEIGHBOURS[_a].add(_b)
        NEIGHBOURS[_b].add(_a)


# ------------------------------------------------------------------ the rules
def other(player):
    return BLACK if player == WHITE else WHITE


def stones(state, player):
    """On the board and still in hand."""
    return list(state[0]).count(player) + state[1][player - 1]


def in_line(board, point):
    """True if the stone on `point` has two of its colour beside it on a line."""
    return any(point in line and all(board[p] == board[point] for p in line)
               for line in LINES)


def steps(state, player):
    """(from, to) of every move ignoring removals; from is None for a placement."""
    board, hand = state[0], state[1]
    free = [p for p in range(24) if board[p] == 0]
    if hand[player - 1] > 0:
        return [(None, to) for to in free]
    own = [p for p in range(24) if board[p] == player]
    if len(own) == 3:
        return [(start, to) for start in own for to in free]
    return [(start, to) for start in own for to in sorted(NEIGHBOURS[start]) if board[to] == 0]


def moves(state, player):
    """Every legal move (from, to, removed) of `player`; [] when the game is over."""
    if game_over(state, player) is not None:
        return []
    found = []
    for start, to in steps(state, player):
        board = list(state[0])
        if start is not None:
            board[start] = 0
        board[to] = player
        victims = []
        if in_line(board, to):
            theirs = [p for p in range(24) if board[p] == other(player)]
            victims = [p for p in theirs if not in_line(board, p)] or theirs
        found += [(start, to, victim) for victim in victims] or [(start, to, None)]
    return found


def after(state, player, move):
    """The state after `move`, in list form [board, in_hand, quiet]."""
    start, to, victim = move
    board, hand, quiet = list(state[0]), list(state[1]), state[2]
    if start is None:
        hand[player - 1] = hand[player - 1] - 1
    else:
        board[start] = 0
    board[to] = player
    if victim is not None:
        board[victim] = 0
    calm = start is not None and victim is None
    return [board, hand, quiet + 1 if calm else 0]


def game_over(state, player):
    """None while `player` (to move) plays on, else (winner or None, the reason)."""
    for loser in (player, other(player)):
        if stones(state, loser) < 3:
            return other(loser), _("{player} has fewer than 3 stones").format(
                player=NAMES[loser])
    if not steps(state, player):
        return other(player), _("{player} cannot move").format(player=NAMES[player])
    if state[2] >= QUIET_LIMIT:
        return None, _("draw: {count} moves without a placement or a capture").format(
            count=QUIET_LIMIT)
    return None


def as_key(state):
    board, hand, quiet = state
    return (tuple(board), tuple(hand), quiet)


def why_illegal(state, player, answer):
    """None if `answer` is a state one legal move of `player` leads to, else why not."""
    try:
        key = as_key(answer)
    except (TypeError, ValueError):
        return _("the answer {answer} is not a state [board, in_hand, quiet]").format(
            answer=f"{answer!r:.80}")
    if key not in {as_key(after(state, player, m)) for m in moves(state, player)}:
        return _("the answer is not a state one legal move leads to (removal included)")
    return None


NAMES = {WHITE: _("white"), BLACK: _("black")}


# ------------------------------------------------------------------ bundled players
def random_move(state, player):
    """Any legal move; the same one every time for the same position."""
    chance = random.Random(repr((as_key(state), player)))
    return after(state, player, chance.choice(moves(state, player)))


def greedy_move(state, player):
    """Close a mill (taking any stone allowed); else block a line where the opponent
    has two stones and the third point is free; else any move."""
    chance = random.Random(repr((as_key(state), player)))
    options = moves(state, player)
    closing = [m for m in options if m[2] is not None]
    board, rival = state[0], other(player)
    threats = {p for line in LINES for p in line
               if board[p] == 0 and sum(board[q] == rival for q in line) == 2}
    blocking = [m for m in options if m[1] in threats]
    return after(state, player, chance.choice(closing or blocking or options))


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

    def ask(self, state, player, depth, limit):
        """(answer, None) or (None, why not); None, None when `limit` ran out."""
        if self.process is None:
            self.start()
        line = json.dumps({"state": list(map(list, state[:2])) + [state[2]],
                           "player": player, "depth": depth}) + "\n"
        try:
            self.process.stdin.write(line.encode())
            self.process.stdin.flush()
        except BrokenPipeError:
            pass
        ready = select.select([self.process.stdout], [], [], max(limit, 0))[0]
        if not ready:
            self.stop()
            return None, None
        reply = self.process.stdout.readline()
        if not reply:
            self.stop()
            return None, _("your program ended (see the error above)")
        reply = json.loads(reply)
        if reply.get("error"):
            self.failed, self.hopeless = reply["error"], reply.get("hopeless", False)
        else:
            self.answered += 1
        return reply.get("answer"), reply.get("error")

    def move(self, state, player, budget):
        """Deepen while the next depth likely fits the budget; (answer, depth) or
        (None, the reason this player loses)."""
        started, best, took = time.monotonic(), None, []
        for depth in range(1, 41):
            used = time.monotonic() - started
            if took and used + took[-1] * max(3.0, took[-1] / took[-2] if len(took) > 1
                                              else 3.0) > budget:
                break
            asked = time.monotonic()
            answer, error = self.ask(state, player, depth, budget + GRACE - used)
            if error:
                return None, error
            if answer is None:
                if best is None:
                    return None, _("no move at depth 1 within {seconds} s").format(
                        seconds=f"{budget + GRACE:.1f}")
                break
            best = (answer, depth)
            took.append(max(time.monotonic() - asked, 1e-4))
        return best


def serve():
    """The player's process: read a position, answer with best_move_ab's successor."""
    replies = os.fdopen(os.dup(1), "w")
    sys.stdout = sys.stderr                 # your prints must not mix with the answers
    try:
        import muehle
    except Exception as error:              # reported as the reason of every loss
        problem = _("{module} does not import: {error}").format(
            module="muehle.py", error=f"{type(error).__name__}: {error}")
        muehle = None
    replies.write("ready\n")
    replies.flush()
    for line in sys.stdin:
        request = json.loads(line)
        if muehle is None:
            reply = {"error": problem, "hopeless": True}
        else:
            try:
                found = muehle.best_move_ab(as_key(request["state"]), request["player"],
                                            request["depth"])
                board, hand, quiet = found[1]
                reply = {"answer": [list(board), list(hand), quiet]}
            except NotImplementedError:
                reply = {"error": _("a function {function} needs is not written yet").format(
                    function="best_move_ab"), "hopeless": True}
            except Exception as error:
                reply = {"error": _("{function} raised {error}").format(
                    function="best_move_ab", error=f"{type(error).__name__}: {error}")}
        replies.write(json.dumps(reply) + "\n")
        replies.flush()


# ------------------------------------------------------------------ the duel
START = [[0] * 24, [9, 9], 0]


def openings(count):
    """`count` openings of four placements, the same for every run of `make duel`."""
    chance = random.Random(2024)
    chosen = []
    while len(chosen) < count:
        state, player = START, WHITE
        for _ply in range(4):
            state = after(state, player, chance.choice(moves(state, player)))
            player = other(player)
        if state not in chosen:
            chosen.append(state)
    return chosen


def play(student, opponent, opening, student_is_white, budget):
    """One game; returns (points for you, the reason, number of moves)."""
    state, player, count = opening, WHITE, 0
    yours = WHITE if student_is_white else BLACK
    while (over := game_over(state, player)) is None:
        if player != yours:
            state = BUNDLED[opponent](state, player)
        else:
            answer, depth = student.move(state, player, budget)
            if answer is None:
                return 0.0, _("you lose: {reason}").format(reason=depth), count
            problem = why_illegal(state, player, answer)
            if problem is not None:
                return 0.0, _("you lose: illegal move ({reason})").format(reason=problem), count
            state = answer
        player, count = other(player), count + 1
    winner, reason = over
    points = 0.5 if winner is None else float(winner == yours)
    return points, reason, count




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
                for white in (True, False):
                    points, reason, count = play(student, opponent, opening, white,
                                                 options.move_time)
                    score += points
                    colour = NAMES[WHITE] if white else NAMES[BLACK]
                    print(_("vs {opponent} opening {number} you {colour}: {points} ({reason}, "
                            "{count} moves)").format(
                              opponent=f"{opponent:6s}", number=number + 1, colour=colour,
                              points=f"{points:g}", reason=reason, count=count), flush=True)
                    student.stop()          # a fresh process every game, as in the tournament
                    if number == 0 and white and (why := hopeless(student)):
                        print(_("Stopped after one game: your player lost it before its "
                                "first move ({why}), and every game would end the same way. "
                                "Fix that (make check says what is missing), then run make "
                                "duel again.").format(why=why))
                        return
            print(_("== against {opponent}: {score} of {games} points").format(
                opponent=opponent, score=f"{score:g}", games=2 * len(chosen)) + "\n", flush=True)
            total, played = total + score, played + 2 * len(chosen)
    finally:
        student.stop()
    print(_("Score: {total} of {played} points ({seconds} s per move, colours swapped every "
            "opening).").format(total=f"{total:g}", played=played,
                                seconds=f"{options.move_time:g}"))


if __name__ == "__main__":
    main()

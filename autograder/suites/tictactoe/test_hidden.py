"""Hidden suite for tictactoe: every function on every reachable position.

Expected values come from the reference in solutions/tictactoe/, loaded into
this trusted process; the student's functions run in the sandbox and come back
as plain data. Positions are ordered smallest first (fewest marks), so the
feedback shows the simplest board a function gets wrong. Where several moves
are optimal, any of them passes: minimax is judged by the game value of the
move it picks, not by which move it is.

Feedback headlines say what happened: a check whose smallest failure is a call
that gave no answer at all (it raised, crashed or timed out) says so instead of
"returned the wrong ...". A check of a function that usually relies on others
(minimax on result, player, actions, ...; terminal and utility on winner) names
the failures of those others found earlier in the same grading, since fixing
them first often fixes it too.

What a check believes: the student's returned answers only. "result never
changes the board it was given" is judged from result's own second answer:
every call is made twice on the same board and move (`again`), and a board the
first call changed shows as another answer (or an exception) the second time.
The board as the child reports it after the call may be quoted in the
feedback, never judged. The session fixture of the result checks keeps each
answer cut to verdict size (suites/verdicts.py), never the raw replies.

Time: every limit is the child's CPU time (rubric [timeouts]), so the verdict
does not depend on the machine's load. A minimax call that runs out of its CPU
time is told how many positions plain minimax visits from that position in the
reference, so a student sees whether the search is too slow or endless.
"""

import contextlib
import functools
import random

import pytest

from autograder.grading.checks import (Answer, Case, CheckFailed, answer_of, check_all,
                                       describe, require, short)
from autograder.grading.reference import load_reference
from autograder.suites.verdicts import check_probes, kept, slow

ref = load_reference("tictactoe", "tictactoe")
X, O, E = ref.X, ref.O, ref.EMPTY
M = "tictactoe."
# Plain, unpruned minimax answers positions with at least this many marks in
# about a millisecond each; earlier positions are sampled (see openings).
ENDGAME_MARKS = 5


def key(board):
    return tuple(tuple(row) for row in board)


def marks(board):
    return sum(cell is not E for row in board for cell in row)


def draw(board):
    return "\n".join(" ".join("." if c is E else c for c in row) for row in board)


@functools.cache
def positions():
    """Every position reachable from the empty board: fewest marks first."""
    seen, frontier = {}, [ref.initial_state()]
    while frontier:
        board = frontier.pop()
        if key(board) in seen:
            continue
        seen[key(board)] = board
        if not ref.terminal(board):
            frontier.extend(ref.result(board, action) for action in ref.actions(board))
    return sorted(seen.values(), key=lambda b: (marks(b), str(key(b))))


@functools.cache
def value(board_key):
    """Game value for X under perfect play, from the reference's rules."""
    board = [list(row) for row in board_key]
    if ref.terminal(board):
        return ref.utility(board)
    values = [value(key(ref.result(board, a))) for a in ref.actions(board)]
    return max(values) if ref.player(board) == X else min(values)


@functools.cache
def plain_minimax_positions(board_key):
    """Positions plain minimax (no pruning, no table) visits from this one, itself
    included: what a correct but slow search must get through."""
    board = [list(row) for row in board_key]
    if ref.terminal(board):
        return 1
    return 1 + sum(plain_minimax_positions(key(ref.result(board, a)))
                   for a in ref.actions(board))


@functools.cache
def open_positions():
    return [b for b in positions() if not ref.terminal(b)]


@functools.cache
def finished_positions():
    return [b for b in positions() if ref.terminal(b)]


@functools.cache
def cases(function, boards_of, expected=None, extra=()):
    """The cases of one check, built once per worker and reused for every submission."""
    boards = boards_of()
    return [Case(f"{function}(board{''.join(', ' + repr(x) for x in extra)})", (b, *extra),
                 draw(b), expected(b) if expected else None) for b in boards]


def exact(case, outcome):
    """Right value of the right type (True is not 1, a list is not a set)."""
    got, want = outcome.value, case.expected
    if type(got) is not type(want) or got != want:
        return f"returned {short(got)}"
    return None


def run(student, function, boards_of, expected, extra=()):
    chosen = cases(function, boards_of, expected, extra)
    return chosen, student.map(M + function, [c.args for c in chosen])


# ------------------------------------------------------------------ headlines and causes
# The functions a student's minimax (and terminal, utility) usually calls.
HELPERS = ("player", "actions", "result", "winner", "terminal", "utility")
RELIES_ON = {"minimax": HELPERS, "terminal": ("winner",), "utility": ("winner",)}


@pytest.fixture(scope="session")
def failed_so_far():
    """(function, headline) of every check this submission failed so far; the suite
    runs in file order, helpers first, once per submission."""
    return []


def headline(failed: CheckFailed, function: str, scope: str, after_others: bool) -> None:
    """Keep a wrong answer's summary; say so when the call gave no answer at all. A
    NotImplementedError is the function's own stub unless a function it relies on
    failed earlier (then it may come from there)."""
    if failed.answer is Answer.NOT_IMPLEMENTED and not after_others:
        failed.summary = f"{function} is not implemented yet"
    elif failed.answer not in (None, Answer.RETURNED):
        failed.summary = f"{function} gave no answer {scope}"


@contextlib.contextmanager
def verdict(failed_so_far, function: str, scope: str):
    """Word the failure of a check of `function` (see headline) and name the earlier
    failures of the functions it relies on."""
    try:
        yield
    except CheckFailed as failed:
        if failed.root_cause:       # the module did not import: said once, not per check
            raise
        earlier = [(name, summary) for name, summary in failed_so_far
                   if name in RELIES_ON.get(function, ())]
        headline(failed, function, scope, after_others=bool(earlier))
        if earlier:
            names = sorted({name for name, _ in earlier})
            note = (f"this may follow from an earlier failure: "
                    f"{'; '.join(summary for _, summary in earlier)}. {function} usually "
                    f"relies on {', '.join(names)}: fix {'it' if len(names) == 1 else 'them'} "
                    "first")
            failed.hint = note + (f"; {failed.hint}" if failed.hint else "")
        failed_so_far.append((function, failed.summary))
        raise


# ------------------------------------------------------------------ the checks
def test_initial_state(student):
    """initial_state returns a 3x3 list of lists, every cell EMPTY"""
    outcome = student.call(M + "initial_state")
    require(outcome)
    want = [[E] * 3 for _ in range(3)]
    if not outcome.answered or outcome.value != want or type(outcome.value) is not list \
            or any(type(row) is not list for row in outcome.value):
        raise CheckFailed("initial_state must return three lists of three EMPTY cells",
                          call="initial_state()", got=describe(outcome), expected=want)


def test_player(student, failed_so_far):
    """player says whose turn it is on every unfinished position"""
    chosen, outcomes = run(student, "player", open_positions, ref.player)
    with verdict(failed_so_far, "player", "on an unfinished position"):
        check_all("player returned the wrong player", chosen, outcomes, exact,
                  hint="X moves first; count the marks of each player")


def test_actions(student, failed_so_far):
    """actions returns the set of empty cells on every unfinished position"""
    chosen, outcomes = run(student, "actions", open_positions, ref.actions)

    def judge(case, outcome):
        got = outcome.value
        if type(got) is not set:
            return f"returned a {type(got).__name__}, not a set"
        if any(type(a) is not tuple for a in got):
            return "the actions must be tuples (i, j)"
        return None if got == case.expected else f"returned {short(got)}"
    with verdict(failed_so_far, "actions", "on an unfinished position"):
        check_all("actions returned the wrong cells", chosen, outcomes, judge)


def _one_action_each():
    """Every unfinished position once, with one of its actions (rotating), plus
    every cell of the empty board."""
    pairs = []
    for index, board in enumerate(open_positions()):
        moves = sorted(ref.actions(board))
        pairs.append((board, moves[index % len(moves)]))
    empty = ref.initial_state()
    pairs += [(empty, (i, j)) for i in range(3) for j in range(3) if (i, j) != pairs[0][1]]
    return sorted(pairs, key=lambda p: marks(p[0]))


@functools.cache
def _result_cases():
    return [Case(f"result(board, {action})", (board, action), draw(board),
                 ref.result(board, action)) for board, action in _one_action_each()]


#: A right answer of result is a board: 13 values (kept answers are cut at this).
BOARD_VALUES = 20


@pytest.fixture(scope="session")
def result_runs(student):
    """Each call made twice on the same board and move (the second answer judges
    whether the first changed the board); kept at verdict size for both checks."""
    chosen = _result_cases()
    outcomes = student.map(M + "result", [c.args for c in chosen], again=True)
    return chosen, [kept(outcome, BOARD_VALUES) for outcome in outcomes]


def test_result(student, result_runs, failed_so_far):
    """result returns the right new board for a move on every unfinished position"""
    chosen, outcomes = result_runs

    def judge(case, outcome):
        got = outcome.value
        if got != case.expected:
            return f"returned {short(got)}"
        if type(got) is not list or any(type(row) is not list for row in got):
            return "the new board must be a list of lists, like the input"
        return None
    with verdict(failed_so_far, "result", "for a move on an unfinished position"):
        check_all("result built the wrong board", chosen, outcomes, judge)


def test_result_keeps_its_input(student, result_runs, failed_so_far):
    """result never changes the board it was given (rows included)"""
    chosen, outcomes = result_runs

    def judge(case, outcome):
        second = outcome.again
        if second is not None and second.answered and second.value == outcome.value \
                and type(second.value) is type(outcome.value):
            return None
        said = (describe(second) if second is not None and not second.answered else
                f"returned {short(second.value)}" if second is not None else "gave no answer")
        return (f"called again with the same board and move, it {said}: the first call "
                f"changed the board it was given")
    hint = "copy every row (copy.deepcopy), not just the outer list"
    with verdict(failed_so_far, "result", "for a move on an unfinished position"):
        try:
            check_all("result changed the board it was given", chosen, outcomes, judge,
                      hint=hint)
        except CheckFailed as failed:
            _quote_the_board_after(student, failed, chosen)
            raise
        check_probes(student, "result changed the board it was given", M + "result",
                     M + "result", _probe_cases(), _probes, "board", hint=hint)


def _quote_the_board_after(student, failed, chosen):
    """For the feedback only: the board after the call as the child reports it, on
    the case shown (one more call, made only when the check failed)."""
    case = next((c for c in chosen if c.call == failed.call and c.position == failed.position),
                None)
    if case is None:
        return
    outcome = student.call(M + "result", *case.args, return_args=True)
    after = outcome.args_after[0] if type(outcome.args_after) is list and \
        outcome.args_after else None
    if after is not None and after != case.args[0] and failed.problem:
        failed.problem += f"; your code reports the board after such a call as {short(after)}"


def _probes(board, rest):
    """Questions asked of a board after result(board, action): another move, and the
    other functions that read a board."""
    (action,) = rest
    other = sorted(a for a in ref.actions(board) if a != action)[0]
    return [(f"result(board, {other})", M + "result", (other,)),
            ("actions(board)", M + "actions", ()), ("player(board)", M + "player", ()),
            ("winner(board)", M + "winner", ())]


@functools.cache
def _probe_cases():
    """A seeded sample of unfinished positions with two free cells or more."""
    rng = random.Random(20261201)
    pairs = [(b, a) for b, a in _one_action_each() if len(ref.actions(b)) >= 2]
    chosen = sorted(rng.sample(pairs, 80), key=lambda p: marks(p[0]))
    return [Case(f"result(board, {action}), then more questions about the same board",
                 (board, action), draw(board), "the same answers as on an untouched copy")
            for board, action in chosen]


def _expect_exception(student, summary, chosen):
    outcomes = student.map(M + "result", [c.args for c in chosen])
    first = None
    failures = 0
    for case, outcome in zip(chosen, outcomes):
        require(outcome)
        if outcome.raised is None or outcome.raised["type"] in ("NotImplementedError",):
            failures += 1
            first = first or (case, outcome)
    if first:
        case, outcome = first
        raise CheckFailed(summary, call=case.call, position=case.position,
                          got=describe(outcome), expected="an exception",
                          failures=failures, total=len(chosen), answer=answer_of(outcome))


@functools.cache
def _taken_cases():
    rng = random.Random(20261129)
    boards = [b for b in open_positions() if marks(b) > 0]
    chosen = []
    for board in sorted(rng.sample(boards, 150), key=marks):
        taken = sorted((i, j) for i in range(3) for j in range(3) if board[i][j] is not E)
        action = rng.choice(taken)
        chosen.append(Case(f"result(board, {action})", (board, action), draw(board)))
    return chosen


def test_result_rejects_taken_cells(student, failed_so_far):
    """result raises an exception for a cell that is already taken"""
    with verdict(failed_so_far, "result", "for a cell that is already taken"):
        _expect_exception(student, "result accepted a cell that is already taken",
                          _taken_cases())


@functools.cache
def _off_board_cases():
    rng = random.Random(7)
    off = [(3, 0), (0, 3), (-1, 0), (0, -1), (-1, -1), (3, 3), (-3, 1)]
    boards = [ref.initial_state()] + rng.sample(open_positions(), 6)
    return [Case(f"result(board, {a})", (b, a), draw(b)) for b in boards for a in off]


def test_result_rejects_cells_off_the_board(student, failed_so_far):
    """result raises an exception for cells outside the board, negative ones too"""
    with verdict(failed_so_far, "result", "for a cell that is not on the board"):
        _expect_exception(student, "result accepted a cell that is not on the board",
                          _off_board_cases())


def test_winner(student, failed_so_far):
    """winner finds the winner (or None) on all 5,478 reachable positions"""
    chosen, outcomes = run(student, "winner", positions, ref.winner)
    with verdict(failed_so_far, "winner", "on a position"):
        check_all("winner returned the wrong player", chosen, outcomes, exact,
                  hint="check all rows, columns and both diagonals")


def test_terminal(student, failed_so_far):
    """terminal is right on all 5,478 reachable positions"""
    chosen, outcomes = run(student, "terminal", positions, ref.terminal)
    with verdict(failed_so_far, "terminal", "on a position"):
        check_all("terminal was wrong", chosen, outcomes, exact,
                  hint="a game ends with a winner or with a full board")


def test_utility(student, failed_so_far):
    """utility scores every finished game: 1, -1 or 0"""
    chosen, outcomes = run(student, "utility", finished_positions, ref.utility)
    with verdict(failed_so_far, "utility", "on a finished game"):
        check_all("utility returned the wrong score", chosen, outcomes, exact)


def test_minimax_on_finished_games(student, failed_so_far):
    """minimax returns None when the game is over"""
    chosen = cases("minimax", finished_positions, no_move)
    outcomes = student.map(M + "minimax", [c.args for c in chosen])
    with verdict(failed_so_far, "minimax", "on a finished game"), \
            say_the_work(chosen, outcomes):
        check_all("minimax returned a move on a finished game", chosen, outcomes, exact)


def no_move(board):
    return None


def _optimal(case, outcome):
    board, move = case.args[0], outcome.value
    if type(move) is not tuple:
        return f"returned a {type(move).__name__}, not a tuple (i, j)"
    if move not in ref.actions(board):
        return f"{short(move)} is not a free cell"
    if value(key(ref.result(board, move))) != value(key(board)):
        return f"{short(move)} throws away the best outcome"
    return None


@functools.cache
def _minimax_cases(boards):
    chosen = []
    for board in map(lambda k: [list(row) for row in k], boards):
        best = sorted(a for a in ref.actions(board)
                      if value(key(ref.result(board, a))) == value(key(board)))
        chosen.append(Case("minimax(board)", (board,), draw(board),
                           " or ".join(map(str, best))))
    return chosen


# The two minimax checks run in this order, in one child, each in increasing
# number of marks: a minimax that keeps a table between calls (memoisation,
# transposition tables) must keep it true, and wrong entries stored while
# answering an earlier position are read while answering a later one. (Run the
# other way round, a table that stores a bound as an exact value slipped
# through: autograder mutate found it.)
def by_marks(keys):
    return tuple(sorted(keys, key=lambda k: (marks([list(row) for row in k]), str(k))))


@functools.cache
def _opening_keys():
    """Every position with 4 marks and a seeded sample with 2 and 3; plain
    minimax needs about 2, 25 and 270 ms for 4, 3 and 2 marks."""
    rng = random.Random(2026)
    boards = [b for b in open_positions() if marks(b) == 4]
    for count, size in ((3, 6), (2, 2)):
        boards += rng.sample([b for b in open_positions() if marks(b) == count], size)
    return by_marks(key(b) for b in boards)


def work_needed(count: int) -> str:
    if count == 1:
        return ("the game is over on this board, so there is nothing to search: check "
                "terminal(board) first and return None (is there an endless loop?)")
    return (f"no endless loop needed to run out of time here: plain minimax (no pruning, "
            f"no table) visits {count:,} positions from this one in the reference, each a "
            "call of minimax or of its helpers; make each visit cheaper (one copy of the "
            "board per move, no deep copies inside loops) or visit fewer (alpha-beta "
            "pruning)")


@contextlib.contextmanager
def say_the_work(chosen, outcomes):
    """If the failure shown is a minimax call that ran out of CPU time, say how much
    work plain minimax needs there (the position is the one in the feedback)."""
    try:
        yield
    except CheckFailed as failed:
        for case, outcome in zip(chosen, outcomes):
            if case.call == failed.call and case.position == failed.position:
                if slow(outcome):
                    failed.problem = work_needed(plain_minimax_positions(key(case.args[0])))
                break
        raise


def test_minimax_openings(student, failed_so_far):
    """minimax picks an optimal move on every position with 4 marks and sampled ones with 2 and 3"""
    chosen = _minimax_cases(_opening_keys())
    outcomes = student.map(M + "minimax", [c.args for c in chosen])
    with verdict(failed_so_far, "minimax", "on an unfinished position"), \
            say_the_work(chosen, outcomes):
        check_all("minimax did not pick an optimal move", chosen, outcomes, _optimal,
                  hint="any of the equally good moves is accepted")


@functools.cache
def _endgame_keys():
    return by_marks(key(b) for b in open_positions() if marks(b) >= ENDGAME_MARKS)


def test_minimax_endgames(student, failed_so_far):
    """minimax picks an optimal move on every position with 5 or more marks"""
    chosen = _minimax_cases(_endgame_keys())
    outcomes = student.map(M + "minimax", [c.args for c in chosen])
    with verdict(failed_so_far, "minimax", "on an unfinished position"), \
            say_the_work(chosen, outcomes):
        check_all("minimax did not pick an optimal move", chosen, outcomes, _optimal,
                  hint="any of the equally good moves is accepted; a table kept between "
                       "calls must hold only exact values (or bounds marked as such)")

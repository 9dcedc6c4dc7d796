"""Hidden suite for tictactoe: every function on every reachable position.

Expected values come from the reference in solutions/tictactoe/, loaded into
this trusted process; the student's functions run in the sandbox and come back
as plain data. Positions are ordered smallest first (fewest marks), so the
feedback shows the simplest board a function gets wrong. Where several moves
are optimal, any of them passes: minimax is judged by the game value of the
move it picks, not by which move it is.

Each function is judged on its own (checking/blame.py, Blame.check): where it
relies on others of the student's ([relies_on] in assignment.toml: minimax on
player, actions, result, ...; terminal and utility on winner; result on player),
a check that fails with the student's own helpers while one of them failed
its own checks is run again in a fresh child with the reference playing them
(`Student.map(..., play=...)`), and that verdict counts. One wrong line in
winner costs winner's points and says nothing about minimax. A correct
submission pays nothing for this: its helpers are the grader's answers. One
small check, "your whole program", judges again the answers minimax gave with
the student's own helpers (no new calls). The reference's rule functions are
pure and no check counts their calls (`checks.pure`): a search that asks the
same question twice in one request gets the second answer in the child.

What a check believes: the student's returned answers only. "result never
changes the board it was given" is judged from result's own second answer:
every call is made twice on the same board and move (`again`), and a board the
first call changed shows as another answer (or an exception) the second time.
The board as the child reports it after the call may be quoted in the
feedback, never judged. The session fixture of the result checks keeps each
answer cut to verdict size (checking/verdicts.py), never the raw replies.

Time: every limit is the child's CPU time (rubric [timeouts]), so the verdict
does not depend on the machine's load. A minimax call that runs out of its CPU
time is told how many positions plain minimax visits from that position in the
reference, so a student sees whether the search is too slow or endless.

No pictures: these checks judge answers position by position, not a search's trace
(the search pictures are negamax's and the other search suites').
"""

import contextlib
import functools
import itertools
import random

import pytest

from autograder.checking import (Answer, Case, CheckFailed, Known, Later, answer_of,
                                 check_all, compare, container_reason, describe, exact, number,
                                 pure, require, returned, short)
from autograder.i18n import N_, grader_text as _
from autograder.grading.reference import load_reference
from autograder.checking.verdicts import changed_input, check_probes, kept, slow

ref = load_reference("tictactoe", "tictactoe")
X, O, E = ref.X, ref.O, ref.EMPTY
M = "tictactoe."
# Plain, unpruned minimax answers positions with at least this many marks in
# about a millisecond each; earlier positions are sampled (see openings).
ENDGAME_MARKS = 5


# These three run on every position while the cases are built (the reference check
# before a batch pays for them): written to run row by row, not cell by cell.
def key(board):
    return tuple(map(tuple, board))


def marks(board):
    cells = list(itertools.chain.from_iterable(board))
    return len(cells) - cells.count(E)


def draw(board):
    return "\n".join([" ".join(["." if c is E else c for c in row]) for row in board])


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


def played(blame, function):
    """`function`'s helpers played by the reference (pure: no check counts their
    calls), with their answers on every reachable position given to the child
    ahead (`known`): a search judged this way asks the grader only about what is
    off the game, such as a taken cell."""
    play = blame.plays(function)
    return pure(play, {target: known(target.rpartition(".")[2]) for target in play})


@functools.cache
def known(name):
    """The reference's `name` on every reachable position its own check asks about
    (terminal and winner: all of them; player and actions: every unfinished one;
    utility: every finished one) and result on every move of every unfinished one,
    made once per process by the warm-up: the checks' cases, their expected values
    and argument tuples (encoded once already). The child's code may read them:
    they are what the played function answers anyway, on positions anyone can list,
    and say nothing of which ones the minimax checks ask about. Cached, so a
    platform package ships them made (5 MB of text, read in milliseconds)."""
    return Known(functools.partial(_rule_answers, name))


def _rule_answers(name):
    if name == "result":
        return [((board, action), ref.result(board, action))
                for board in open_positions() for action in sorted(ref.actions(board))]
    boards = {"player": open_positions, "actions": open_positions, "terminal": positions,
              "utility": finished_positions, "winner": positions}[name]
    # The cases as the check makes them: the same cached objects.
    return [(case.args, case.expected) for case in cases(name, boards, getattr(ref, name), ())]


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
    call = f"{function}(board{''.join(', ' + repr(x) for x in extra)})"
    return [Case(call, (b, *extra), drawing(b), expected(b) if expected else None)
            for b in boards]


def drawing(board):
    """One string per position for every check's cases: a platform package ships the
    cases, and a string shared is shipped once."""
    return _drawing(key(board))


@functools.cache
def _drawing(board_key):
    return draw(board_key)


# ------------------------------------------------------------------ the checks
def test_initial_state(student):
    """initial_state returns a 3x3 list of lists, every cell EMPTY"""
    outcome = student.call(M + "initial_state")
    require(outcome)
    want = [[E] * 3 for _ in range(3)]
    if not outcome.answered or outcome.value != want or type(outcome.value) is not list \
            or any(type(row) is not list for row in outcome.value):
        raise CheckFailed(_("initial_state must return three lists of three EMPTY cells"),
                          call="initial_state()", got=describe(outcome), expected=want)


def test_player(student, blame):
    """player says whose turn it is on every unfinished position"""
    compare(student, blame, "player", cases("player", open_positions, ref.player, ()),
            summary=_("player returned the wrong player"), scope=_("on an unfinished position"),
            hint=_("X moves first; count the marks of each player"))


def test_actions(student, blame):
    """actions returns the set of empty cells on every unfinished position"""
    def judge(case, outcome):
        got = outcome.value
        wrong = container_reason(got, set)      # "the set of all possible actions"
        if wrong:
            return wrong
        if any(type(a) is not tuple for a in got):
            return _("the actions must be tuples (i, j)")
        return None if got == case.expected else returned(got)
    compare(student, blame, "actions", cases("actions", open_positions, ref.actions, ()), judge,
            _("actions returned the wrong cells"), scope=_("on an unfinished position"))


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
    return [Case(f"result(board, {action})", (board, action), drawing(board),
                 ref.result(board, action)) for board, action in _one_action_each()]


#: A right answer of result is a board: 13 values (kept answers are cut at this).
BOARD_VALUES = 20


def result_runs(student, play):
    """Each call made twice on the same board and move (the second answer judges
    whether the first changed the board), with the student's own player or the
    grader's: made once per kind for both checks (`shared`), kept at verdict size."""
    chosen = _result_cases()
    outcomes = student.map(M + "result", [c.args for c in chosen], again=True, play=play)
    return chosen, [kept(outcome, BOARD_VALUES) for outcome in outcomes]


def test_result(student, shared, blame):
    """result returns the right new board for a move on every unfinished position"""
    def judge(case, outcome):
        got = outcome.value
        if got != case.expected:
            return returned(got)
        if type(got) is not list or any(type(row) is not list for row in got):
            return _("the new board must be a list of lists, like the input")
        return None

    def attempt(play):
        check_all(_("result built the wrong board"), *shared(result_runs, play), judge)
    blame.check(student, "result", _("for a move on an unfinished position"),
                played(blame, "result"), attempt)


def test_result_keeps_its_input(student, shared, blame):
    """result never changes the board it was given (rows included)"""
    asked, changed = _("board and move"), _("the board it was given")

    def judge(case, outcome):
        return changed_input(outcome, asked, changed,
                             same=lambda a, b: a == b and type(a) is type(b))
    hint = _("copy every row (copy.deepcopy), not just the outer list")
    summary = _("result changed the board it was given")

    def attempt(play):
        chosen, outcomes = shared(result_runs, play)
        try:
            check_all(summary, chosen, outcomes, judge, hint=hint)
        except CheckFailed as failed:
            _quote_the_board_after(student, failed, chosen)
            raise
        check_probes(student, summary, M + "result", M + "result", _probe_cases(), _probes,
                     _("board"), hint=hint)
    blame.check(student, "result", _("for a move on an unfinished position"),
                played(blame, "result"), attempt)


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
        failed.problem += _("; your code reports the board after such a call as {board}").format(
            board=short(after))


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
    return [Case(Later.words(N_("result(board, {action}), then more questions about the "
                                "same board"), action=action),
                 (board, action), drawing(board), UNTOUCHED)
            for board, action in chosen]


UNTOUCHED = Later.words(N_("the same answers as on an untouched copy"))


def raised_one(case, outcome):
    """A judge: the call raised an exception (a stub's NotImplementedError is none)."""
    if outcome.raised is None or answer_of(outcome) is Answer.NOT_IMPLEMENTED:
        return describe(outcome)
    return None


AN_EXCEPTION = Later.words(N_("an exception"))


def _expect_exception(student, summary, chosen, play):
    outcomes = student.map(M + "result", [c.args for c in chosen], play=play)
    check_all(summary, chosen, outcomes, raised_one, raised=True)


@functools.cache
def _taken_cases():
    rng = random.Random(20261129)
    boards = [b for b in open_positions() if marks(b) > 0]
    chosen = []
    for board in sorted(rng.sample(boards, 150), key=marks):
        taken = sorted((i, j) for i in range(3) for j in range(3) if board[i][j] is not E)
        action = rng.choice(taken)
        chosen.append(Case(f"result(board, {action})", (board, action), drawing(board),
                           AN_EXCEPTION))
    return chosen


def test_result_rejects_taken_cells(student, blame):
    """result raises an exception for a cell that is already taken"""
    blame.check(student, "result", _("for a cell that is already taken"),
                played(blame, "result"), lambda play: _expect_exception(
                    student, _("result accepted a cell that is already taken"), _taken_cases(),
                    play))


@functools.cache
def _off_board_cases():
    rng = random.Random(7)
    off = [(3, 0), (0, 3), (-1, 0), (0, -1), (-1, -1), (3, 3), (-3, 1)]
    boards = [ref.initial_state()] + rng.sample(open_positions(), 6)
    return [Case(f"result(board, {a})", (b, a), draw(b), AN_EXCEPTION)
            for b in boards for a in off]


def test_result_rejects_cells_off_the_board(student, blame):
    """result raises an exception for cells outside the board, negative ones too"""
    blame.check(student, "result", _("for a cell that is not on the board"),
                played(blame, "result"), lambda play: _expect_exception(
                    student, _("result accepted a cell that is not on the board"),
                    _off_board_cases(), play))


def test_winner(student, blame):
    """winner finds the winner (or None) on all 5,478 reachable positions"""
    compare(student, blame, "winner", cases("winner", positions, ref.winner, ()),
            summary=_("winner returned the wrong player"),
            hint=_("check all rows, columns and both diagonals"))


def test_terminal(student, blame):
    """terminal is right on all 5,478 reachable positions"""
    compare(student, blame, "terminal", cases("terminal", positions, ref.terminal, ()),
            summary=_("terminal was wrong"), play=played(blame, "terminal"),
            hint=_("a game ends with a winner or with a full board"))


def test_utility(student, blame):
    """utility scores every finished game: 1, -1 or 0"""
    compare(student, blame, "utility", cases("utility", finished_positions, ref.utility, ()),
            number, _("utility returned the wrong score"), scope=_("on a finished game"),
            play=played(blame, "utility"))


def test_minimax_on_finished_games(student, blame):
    """minimax returns None when the game is over"""
    chosen = cases("minimax", finished_positions, no_move)

    def attempt(play):
        outcomes = student.map(M + "minimax", [c.args for c in chosen], play=play)
        with say_the_work(chosen, outcomes):
            check_all(_("minimax returned a move on a finished game"), chosen, outcomes, exact)
    blame.check(student, "minimax", _("on a finished game"), played(blame, "minimax"),
                attempt)


def no_move(board):
    return None


def _optimal(case, outcome):
    board, move = case.args[0], outcome.value
    wrong = container_reason(move, tuple)      # "an action is a tuple (i, j)"
    if wrong:
        return wrong
    try:
        if move in case.expected.moves:       # one of the optimal moves: most answers
            return None
        free = move in ref.actions(board)
    except TypeError:                          # a tuple holding a list: no cell at all
        free = False
    if not free:
        return _("{move} is not a free cell").format(move=short(move))
    if value(key(ref.result(board, move))) != value(key(board)):
        return _("{move} throws away the best outcome").format(move=short(move))
    return None


class Optimal(Later):
    """The optimal moves of a position: the set `_optimal` accepts at once, and the
    expected answer's words, made only when a failure shows them."""

    def __init__(self, moves: list):
        super().__init__(either, moves)
        self.moves = frozenset(moves)


def either(moves: list) -> str:
    return _(" or ").join(map(str, moves))


@functools.cache
def _minimax_cases(boards):
    chosen = []
    for board in map(lambda k: [list(row) for row in k], boards):
        here = value(key(board))
        best = sorted(a for a in ref.actions(board) if value(key(ref.result(board, a))) == here)
        chosen.append(Case("minimax(board)", (board,), drawing(board), Optimal(best)))
    return chosen


# Each minimax check runs in increasing number of marks, in one child: a minimax
# that keeps a table between calls (memoisation, transposition tables) must keep
# it true, and wrong entries stored while answering an earlier position are read
# while answering a later one. (Run the other way round, a table that stores a
# bound as an exact value slipped through: autograder mutate found it.) The
# whole-program check runs them all, 2 marks to 8, with the student's helpers.
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
        return _("the game is over on this board, so there is nothing to search: check "
                 "terminal(board) first and return None (is there an endless loop?)")
    return _("no endless loop needed to run out of time here: plain minimax (no pruning, "
             "no table) visits {positions:,} positions from this one in the reference, each "
             "a call of minimax or of its helpers; make each visit cheaper (one copy of the "
             "board per move, no deep copies inside loops) or visit fewer (alpha-beta "
             "pruning)").format(positions=count)


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


@functools.cache
def _played_opening_keys():
    """With the grader's helpers every call of them is a round trip (~40 us, more on
    a busy machine), so a search judged that way runs on a seeded sample: 1, 8 and
    30 positions with 3, 4 and 5 marks, where plain minimax makes about 3,300, 550
    and 120 such calls."""
    rng = random.Random(20261201)
    boards = []
    for count, size in ((3, 1), (4, 8), (5, 30)):
        boards += rng.sample([b for b in open_positions() if marks(b) == count], size)
    return by_marks(key(b) for b in boards)


@functools.cache
def _played_endgame_keys():
    """Every position with 7 or more marks and a seeded sample of 150 with 6."""
    rng = random.Random(20261202)
    sixes = [b for b in open_positions() if marks(b) == 6]
    boards = rng.sample(sixes, 150) + [b for b in open_positions() if marks(b) >= 7]
    return by_marks(key(b) for b in boards)


#: A right answer of minimax is a move: 3 values (kept answers are cut at this).
MOVE_VALUES = 10


@pytest.fixture(scope="session")
def own_minimax():
    """The answers of minimax with the student's own helpers, per check, for the
    whole-program check (it judges them again and calls nothing)."""
    return {}


def check_minimax(student, blame, own_minimax, keys, played_keys, hint):
    def attempt(play):
        chosen = _minimax_cases(played_keys if play else keys)
        outcomes = student.map(M + "minimax", [c.args for c in chosen], play=play)
        if not play:
            own_minimax[keys] = chosen, [kept(outcome, MOVE_VALUES) for outcome in outcomes]
        with say_the_work(chosen, outcomes):
            check_all(_("minimax did not pick an optimal move"), chosen, outcomes, _optimal,
                      hint=hint)
    blame.check(student, "minimax", _("on an unfinished position"),
                played(blame, "minimax"), attempt)


def test_minimax_openings(student, blame, own_minimax):
    """minimax picks an optimal move on every position with 4 marks and sampled ones with 2 and 3"""
    check_minimax(student, blame, own_minimax, _opening_keys(), _played_opening_keys(),
                  _("any of the equally good moves is accepted"))


@functools.cache
def _endgame_keys():
    return by_marks(key(b) for b in open_positions() if marks(b) >= ENDGAME_MARKS)


def test_minimax_endgames(student, blame, own_minimax):
    """minimax picks an optimal move on every position with 5 or more marks"""
    check_minimax(student, blame, own_minimax, _endgame_keys(), _played_endgame_keys(),
                  _("any of the equally good moves is accepted; a table kept between calls "
                    "must hold only exact values (or bounds marked as such)"))


def test_minimax_with_your_own_helpers(student, blame, own_minimax):
    """your whole program: minimax with your own helpers picks an optimal move on every position of the two checks above"""
    with blame.judging("minimax", _("on an unfinished position")):
        for keys in (_opening_keys(), _endgame_keys()):
            if keys not in own_minimax:       # the check above did not run: run it here
                chosen = _minimax_cases(keys)
                outcomes = student.map(M + "minimax", [c.args for c in chosen])
                own_minimax[keys] = chosen, [kept(o, MOVE_VALUES) for o in outcomes]
            chosen, outcomes = own_minimax[keys]
            with say_the_work(chosen, outcomes):
                check_all(_("minimax with your own helpers did not pick an optimal move"),
                          chosen, outcomes, _optimal,
                          hint=_("any of the equally good moves is accepted"))

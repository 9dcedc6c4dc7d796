"""Hidden suite for tictactoe: every function on every reachable position.

Positions are ordered fewest marks first, so the feedback shows the simplest board a
function gets wrong; minimax passes with any optimal move. Each function is judged on its
own (docs/SUITES.md, "Blame"), except in "your whole program". No pictures: no check
judges a search's trace. What each check believes: docs/SUITES.md, "What a check may believe".
"""

import contextlib
import functools
import itertools
import random

import pytest

from autograder.checking import (Answer, Case, CheckFailed, Known, Later, answer_of,
                                 check_all, changed_input, check_probes, compare,
                                 container_reason, describe, exact, kept, load_reference,
                                 map_cases, number, pure, require, returned, short, slow)
from autograder.checking.verdicts import UNTOUCHED
from autograder.i18n import N_, grader_text as _

ref = load_reference("tictactoe", "tictactoe")
X, O, E = ref.X, ref.O, ref.EMPTY
M = "tictactoe."


# These run on every position while the cases are built: row by row, not cell by cell.
def key(board):
    return tuple(map(tuple, board))


def marks(board):
    cells = list(itertools.chain.from_iterable(board))
    return len(cells) - cells.count(E)


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
def open_positions():
    return [b for b in positions() if not ref.terminal(b)]


@functools.cache
def finished_positions():
    return [b for b in positions() if ref.terminal(b)]


def played(blame, function):
    """`function`'s helpers played by the reference, pure, their answers sent ahead."""
    play = blame.plays(function)
    return pure(play, {target: known(target.rpartition(".")[2]) for target in play})


@functools.cache
def known(name):
    """The reference's `name` on the positions its own check asks about (result: every
    move of every unfinished one). The child may read them: the played function answers
    them anyway, and they say nothing of which positions the minimax checks ask about."""
    return Known(functools.partial(_rule_answers, name))


def _rule_answers(name):
    if name == "result":
        return [((board, action), ref.result(board, action))
                for board in open_positions() for action in sorted(ref.actions(board))]
    boards = {"player": open_positions, "actions": open_positions, "terminal": positions,
              "utility": finished_positions, "winner": positions}[name]
    return [(case.args, case.expected) for case in cases(name, boards, getattr(ref, name))]


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
    """Positions plain minimax (no pruning, no table) visits from this one, itself included."""
    board = [list(row) for row in board_key]
    if ref.terminal(board):
        return 1
    return 1 + sum(plain_minimax_positions(key(ref.result(board, a)))
                   for a in ref.actions(board))


@functools.cache
def cases(function, boards_of, expected):
    """The cases of one check, built once per worker and reused for every submission."""
    return [Case(f"{function}(board)", (b,), drawing(key(b)), expected(b)) for b in boards_of()]


@functools.cache
def drawing(board_key):
    """A position as text, one string per position (a shared string is shipped once)."""
    return "\n".join([" ".join(["." if c is E else c for c in row]) for row in board_key])


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
    compare(student, blame, "player", cases("player", open_positions, ref.player),
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
    compare(student, blame, "actions", cases("actions", open_positions, ref.actions), judge,
            _("actions returned the wrong cells"), scope=_("on an unfinished position"))


def _one_action_each():
    """Every unfinished position with one of its actions (rotating), and every first move."""
    pairs = []
    for index, board in enumerate(open_positions()):
        moves = sorted(ref.actions(board))
        pairs.append((board, moves[index % len(moves)]))
    empty = ref.initial_state()
    pairs += [(empty, (i, j)) for i in range(3) for j in range(3) if (i, j) != pairs[0][1]]
    return sorted(pairs, key=lambda p: marks(p[0]))


@functools.cache
def _result_cases():
    return [Case(f"result(board, {action})", (board, action), drawing(key(board)),
                 ref.result(board, action)) for board, action in _one_action_each()]


#: A right answer of result is a board: 13 values (kept answers are cut at this).
BOARD_VALUES = 20


def result_runs(student, play):
    """Each call made twice on the same board and move (the second answer shows whether
    the first changed the board), once per kind for both checks (`shared`)."""
    chosen, outcomes = map_cases(student, M + "result", _result_cases(), play, again=True)
    return chosen, [kept(outcome, BOARD_VALUES) for outcome in outcomes]


def check_result(student, blame, scope, attempt):
    blame.check(student, "result", scope, played(blame, "result"), attempt)


def test_result(student, shared, blame):
    """result returns the right new board for a move on every unfinished position"""
    def judge(case, outcome):
        got = outcome.value
        if got != case.expected:
            return returned(got)
        if type(got) is not list or any(type(row) is not list for row in got):
            return _("the new board must be a list of lists, like the input")
        return None
    check_result(student, blame, _("for a move on an unfinished position"), lambda play:
                 check_all(_("result built the wrong board"), *shared(result_runs, play), judge))


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
    check_result(student, blame, _("for a move on an unfinished position"), attempt)


def _quote_the_board_after(student, failed, chosen):
    """For the feedback only: the board after the call as the child reports it, on the
    case shown (one more call, made only when the check failed)."""
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
    """Questions after result(board, action): another move, and the functions that read a board."""
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
                 (board, action), drawing(key(board)), UNTOUCHED)
            for board, action in chosen]


AN_EXCEPTION = Later.words(N_("an exception"))


def raised_one(case, outcome):
    """A judge: the call raised an exception (a stub's NotImplementedError is none)."""
    if outcome.raised is None or answer_of(outcome) is Answer.NOT_IMPLEMENTED:
        return describe(outcome)
    return None


@functools.cache
def refusal_cases(moves):
    """result on each (board, move) that `moves()` lists, every call expected to raise."""
    return [Case(f"result(board, {action})", (board, action), drawing(key(board)),
                 AN_EXCEPTION) for board, action in moves()]


def check_refusals(student, blame, scope, summary, moves):
    check_result(student, blame, scope, lambda play: check_all(
        summary, *map_cases(student, M + "result", refusal_cases(moves), play), raised_one,
        raised=True))


def _taken_moves():
    rng = random.Random(20261129)
    boards = [b for b in open_positions() if marks(b) > 0]
    chosen = []
    for board in sorted(rng.sample(boards, 150), key=marks):
        taken = sorted((i, j) for i in range(3) for j in range(3) if board[i][j] is not E)
        chosen.append((board, rng.choice(taken)))
    return chosen


def test_result_rejects_taken_cells(student, blame):
    """result raises an exception for a cell that is already taken"""
    check_refusals(student, blame, _("for a cell that is already taken"),
                   _("result accepted a cell that is already taken"), _taken_moves)


def _off_board_moves():
    rng = random.Random(7)
    off = [(3, 0), (0, 3), (-1, 0), (0, -1), (-1, -1), (3, 3), (-3, 1)]
    boards = [ref.initial_state()] + rng.sample(open_positions(), 6)
    return [(b, a) for b in boards for a in off]


def test_result_rejects_cells_off_the_board(student, blame):
    """result raises an exception for cells outside the board, negative ones too"""
    check_refusals(student, blame, _("for a cell that is not on the board"),
                   _("result accepted a cell that is not on the board"), _off_board_moves)


def test_winner(student, blame):
    """winner finds the winner (or None) on all 5,478 reachable positions"""
    compare(student, blame, "winner", cases("winner", positions, ref.winner),
            summary=_("winner returned the wrong player"),
            hint=_("check all rows, columns and both diagonals"))


def test_terminal(student, blame):
    """terminal is right on all 5,478 reachable positions"""
    compare(student, blame, "terminal", cases("terminal", positions, ref.terminal),
            summary=_("terminal was wrong"), play=played(blame, "terminal"),
            hint=_("a game ends with a winner or with a full board"))


def test_utility(student, blame):
    """utility scores every finished game: 1, -1 or 0"""
    compare(student, blame, "utility", cases("utility", finished_positions, ref.utility),
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
    expected answer's words (made only when shown)."""

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
        chosen.append(Case("minimax(board)", (board,), drawing(key(board)), Optimal(best)))
    return chosen


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
    """A failure of a minimax call out of CPU time says how much work plain minimax needs."""
    try:
        yield
    except CheckFailed as failed:
        for case, outcome in zip(chosen, outcomes):
            if case.call == failed.call and case.position == failed.position:
                if slow(outcome):
                    failed.problem = work_needed(plain_minimax_positions(key(case.args[0])))
                break
        raise


# Each minimax check runs in increasing number of marks, in one child: wrong entries a
# table kept between calls stored for an earlier position are read for a later one (run
# the other way round, a table that stores a bound as an exact value slipped through).
@functools.cache
def minimax_keys(seed, *groups):
    """The positions of `groups` (marks, how many: a seeded sample, None: all), fewest first."""
    rng, boards = random.Random(seed), []
    for count, size in groups:
        these = [b for b in open_positions() if marks(b) == count]
        boards += these if size is None else rng.sample(these, size)
    keys = (key(b) for b in boards)
    return tuple(sorted(keys, key=lambda k: (marks([list(row) for row in k]), str(k))))


# Plain minimax needs about 2, 25 and 270 ms for 4, 3 and 2 marks; with the grader's
# helpers every call of them is a round trip, so a played search runs on a sample.
OPENINGS = 2026, (4, None), (3, 6), (2, 2)
PLAYED_OPENINGS = 20261201, (3, 1), (4, 8), (5, 30)
ENDGAMES = 0, (5, None), (6, None), (7, None), (8, None)
PLAYED_ENDGAMES = 20261202, (6, 150), (7, None), (8, None)
#: A right answer of minimax is a move: 3 values (kept answers are cut at this).
MOVE_VALUES = 10


@pytest.fixture(scope="session")
def own_minimax():
    """minimax's answers with the student's own helpers, per check, for the whole program."""
    return {}


def minimax_answers(student, keys, play=None):
    return map_cases(student, M + "minimax", _minimax_cases(keys), play)


def judge_minimax(summary, chosen, outcomes, hint):
    with say_the_work(chosen, outcomes):
        check_all(summary, chosen, outcomes, _optimal, hint=hint)


def check_minimax(student, blame, own_minimax, keys, played_keys, hint):
    def attempt(play):
        chosen, outcomes = minimax_answers(student, played_keys if play else keys, play)
        if not play:
            own_minimax[keys] = chosen, [kept(outcome, MOVE_VALUES) for outcome in outcomes]
        judge_minimax(_("minimax did not pick an optimal move"), chosen, outcomes, hint)
    blame.check(student, "minimax", _("on an unfinished position"),
                played(blame, "minimax"), attempt)


def test_minimax_openings(student, blame, own_minimax):
    """minimax picks an optimal move on every position with 4 marks and sampled ones with 2 and 3"""
    check_minimax(student, blame, own_minimax, minimax_keys(*OPENINGS),
                  minimax_keys(*PLAYED_OPENINGS), _("any of the equally good moves is accepted"))


def test_minimax_endgames(student, blame, own_minimax):
    """minimax picks an optimal move on every position with 5 or more marks"""
    check_minimax(student, blame, own_minimax, minimax_keys(*ENDGAMES),
                  minimax_keys(*PLAYED_ENDGAMES),
                  _("any of the equally good moves is accepted; a table kept between calls "
                    "must hold only exact values (or bounds marked as such)"))


def test_minimax_with_your_own_helpers(student, blame, own_minimax):
    """your whole program: minimax with your own helpers picks an optimal move on every position of the two checks above"""
    with blame.judging("minimax", _("on an unfinished position")):
        for keys in (minimax_keys(*OPENINGS), minimax_keys(*ENDGAMES)):
            if keys not in own_minimax:       # the check above did not run: run it here
                chosen, outcomes = minimax_answers(student, keys)
                own_minimax[keys] = chosen, [kept(o, MOVE_VALUES) for o in outcomes]
            judge_minimax(_("minimax with your own helpers did not pick an optimal move"),
                          *own_minimax[keys], _("any of the equally good moves is accepted"))

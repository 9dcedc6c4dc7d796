"""Hidden suite for negamax: the board's rules, the search's values, its technique.

The student's own `TicTacToe` is judged method by method on all 5,478 reachable positions.
`NegaMax` and `ShortSightedOpponent` search a proxy of a board of the grader's on a game
only the grader knows (games.py), on samples (every call is a round trip). Each method is
judged on its own ([relies_on]), except getEvaluatedMoves with the student's own explore.
What each check believes: docs/SUITES.md, "What a check may believe".
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
import random
from dataclasses import dataclass, field

import pytest

from autograder.checking import (Answer, Case, CheckFailed, Later, Plan, Proxy, Show, answer_of,
                                 check_all, chunks, constant, describe, exact, kept,
                                 load_reference, now, play_on_instance, raises, refused,
                                 require, returned, said, short, wrong_number)
from autograder.checking.boards import InstrumentedGame, random_tree, shown, tree_depth, tree_size
from autograder.checking.cases import drawn as picture_or_none
from autograder.checking.rng import RecordingRandom
from autograder.checking.search import PICTURE_CALLS, picture
from autograder.checking.standins import method_spec
from autograder.grading.student import Outcome
from autograder.i18n import N_, grader_text as _
from autograder.suites.negamax.games import (MOVES, Game, KitBoard, decided_positions, draw,
                                             key_of, open_positions, positions, rows_of, sample,
                                             trees, twist_for, twisted)

ref = load_reference("negamax", "negamax")
INF = math.inf
FULL = 9
ASK = ("getMoves", "evaluate", "getSide")
TELL = ("makeMove", "undoMove")


#: Per kind of search: (class, depth given to the constructor, method, answer's key, relied on).
KINDS = {"explore": ("NegaMax", False, "explore", "value", None),
         "evaluated": ("NegaMax", False, "getEvaluatedMoves", "moves", "explore"),
         "default": ("NegaMax", True, "getEvaluatedMoves", "moves", "explore"),
         "best": ("NegaMax", False, "getBestMove", "move", "getEvaluatedMoves"),
         "play": ("ShortSightedOpponent", True, "play", "move", "getBestMove")}


@dataclass(frozen=True)
class Search:
    """One call of the student's searcher on a fresh board of `game`; args per kind (KINDS):
    explore (depth, alpha, beta), evaluated and default (depth), best and play (depth,
    seed). A `played` search relies on the grader's method (judged on its own)."""
    kind: str
    game: Game
    args: tuple
    played: bool = False

    def parts(self, board, rng=None):
        """(class, constructor's arguments, method, its arguments, answer's key, relied on)."""
        cls, depth_given, method, key, relies = KINDS[self.kind]
        made = (board, self.args[0]) if depth_given else (board,)
        given = self.args if self.kind == "explore" else \
            self.args[:0 if depth_given else 1] + ((rng,) if len(self.args) == 2 else ())
        return cls, made, method, given, key, relies

    @property
    def call(self) -> str:
        head = "tree" if self.game.tree is not None else "board"
        cls, made, method, given, *_ = self.parts(head, "rng")
        return f"{cls}({', '.join(map(str, made))}).{method}" \
               f"({', '.join(map(str, given))})".replace("inf", "infinity")

    def chooser(self) -> RecordingRandom | None:
        """The grader's rng of a search that chooses (seeded by its second argument)."""
        return RecordingRandom(self.args[1]) if len(self.args) == 2 else None

    def plan(self, board: InstrumentedGame, chooser: RecordingRandom | None) -> Plan:
        """The student's calls on a proxy of `board` (and of `chooser` as rng); a played
        search's helper is the reference's, recorded on the same board."""
        rng = chooser and Proxy(chooser, ask=RecordingRandom.METHODS)
        cls, made, method, given, key, relies = self.parts(Proxy(board, ask=ASK, tell=TELL), rng)
        plan = Plan(f"{cls}.{method}")      # what a timeout is remembered by
        searcher = plan.call(f"negamax.{cls}", *made)
        if self.played:
            grader = getattr(ref, cls)(board, *made[1:])
            play_on_instance(plan, searcher, relies, getattr(grader, relies))
        answer = {key: plan.call(searcher.attr(method), *given)}
        if key == "value":
            answer["nodes"] = plan.get(searcher.attr("treeNodeCounter"), default=None)
        return plan.returns(answer)


@dataclass
class Run:
    """A search as the student's code did it and as the reference does it, cut to the
    verdict data (session fixtures of runs stay small whatever the student's code did)."""
    search: Search
    outcome: object                 # Outcome of the plan: the student's answer
    mine: object                    # Outcome of the student's method: its own answer
    lost: str | None                # why the plan's answer holds no answer of the method
    record: dict                    # the grader's board after the student's search
    want: dict                      # the reference's answer
    want_record: dict = field(repr=False, default_factory=dict)
    ran: bool = True                # the search answered or raised: its records are whole
    chose: tuple | None = None      # (offered, chosen) of the last rng.choice, the grader's


@functools.cache
def expected(search: Search) -> tuple[dict, dict]:
    """The reference's answer to the same calls on a fresh board, and the board's records."""
    board = search.game.board()
    cls, made, method, given, key, _ = search.parts(board, search.chooser())
    searcher = getattr(ref, cls)(*made)
    try:
        answer = {key: getattr(searcher, method)(*given)}
    except ValueError:
        answer = {"raised": "ValueError"}
    if key == "value":
        answer["nodes"] = searcher.treeNodeCounter
    return answer, records(board)


def records(board: InstrumentedGame) -> dict:
    """What the judges compare of a board after a search, and its log's start (pictures)."""
    return {**board.summary(), "log": board.log[:PICTURE_CALLS], "calls": len(board.log),
            "broken_at": board.broken_at}


#: A right answer of a search plan holds at most this many values (9 evaluated moves).
ANSWER_VALUES = 100


def run(student, searches, played=False) -> list[Run]:
    """Every search in one request, each on a fresh trusted board (`played`: Search.played);
    a move the board did not offer fails the search, also when it caught the refusal."""
    searches = [dataclasses.replace(s, played=True) for s in searches] if played else searches
    boards = [search.game.board() for search in searches]
    choosers = [search.chooser() for search in searches]
    outcomes = student.run([s.plan(b, c) for s, b, c in zip(searches, boards, choosers)])
    runs = []
    for search, board, chooser, outcome in zip(searches, boards, choosers, outcomes):
        want, want_record = expected(search)
        record = records(board)
        record["made"] = record["made"][:len(want_record["made"]) + 1]   # enough to compare
        ran = outcome.answered or outcome.raised is not None
        outcome = kept(refused(outcome, board.handout), ANSWER_VALUES)
        # judges and feedback see what the student's method returned, not the plan's wrapper
        value, key = outcome.value, KINDS[search.kind][3]
        lost = None if type(value) is dict and key in value else \
            _("the plan returned {value}").format(value=short(value))
        mine = outcome if lost or not outcome.answered else \
            Outcome(ok=True, value=value[key], seconds=outcome.seconds)
        runs.append(Run(search, outcome, mine, lost, record, want, want_record, ran=ran,
                        chose=chooser.last if chooser else None))
    return runs


def cases(runs, expected=None) -> list[Case]:
    """A case per run, `expected(run)` (default: the reference's answer) its expected."""
    return [Case(r.search.call, (r,), r.search.game.text,
                 expected(r) if expected else r.want[KINDS[r.search.kind][3]]) for r in runs]


def check_runs(summary, runs, judge, hint=None, *, blame, expected=None, records=False):
    """check_all over runs, blamed as the method's: `judge(run, answer)` (a plan that lost
    the answer fails the case, unless the judge reads the grader's `records` only)."""
    def verdict(case, outcome):
        r = case.args[0]
        return r.lost if r.lost and not records else judge(r, None if r.lost else r.mine.value)
    function = KINDS[runs[0].search.kind][2]
    play = blame.helpers(function) if runs[0].search.played else None
    with blame.judging(function, _("on a board of the grader's"), play):
        check_all(summary, cases(runs, expected), [r.mine for r in runs], verdict,
                  hint=hint, show=Show.REASON,
                  picture=lambda case, _outcome: search_picture(case.args[0]))


def search_picture(r: Run, logs: tuple | None = None) -> dict:
    """The student's search beside alpha-beta's; a node is the moves from the root to it."""
    def board_at(path):
        board = r.search.game.board().game
        for move in path:
            board.makeMove(move)
        return board

    def children(path):
        try:
            return [path + (move,) for move in board_at(path).getMoves()]
        except ValueError:      # a path no board of this game reaches: drawn without
            return []
    logs = logs or (r.want_record["log"], r.record["log"])
    evaluated = {path for log in logs for kind, path in log if kind == "e"}
    answered = r.mine is not None and r.mine.answered and not r.lost
    return picture((), *logs, children=children,
                   label=lambda path: str(path[-1]) if path else "·",
                   worth=lambda path: board_at(path).evaluate() if path in evaluated else None,
                   max_to_move=board_at(()).getSide() == 1,
                   rule_result=r.want.get(KINDS[r.search.kind][3]),
                   student_result=r.mine.value if answered else None)


def discipline_picture(r: Run) -> dict:
    """explore's make/undo discipline drawn up to the first broken rule (or the end), or
    whole when the break lies past the calls kept."""
    log, broken = r.record["log"], r.record["broken_at"]
    last = (r.record["calls"] if broken is None else broken) - 1
    if not 0 <= last < len(log):
        return search_picture(r)
    return search_picture(r, (r.want_record["log"][:last], log[:last + 1]))


def pictured(r: Run) -> dict | None:
    """A run's search_picture for a failure raised by hand (a fault costs the drawing)."""
    return picture_or_none(lambda run_, _outcome: search_picture(run_), r, None)


def smallest_first(searches) -> tuple:
    return tuple(sorted(searches, key=lambda s: (s.game.size, s.args[0])))


def numbered(kind, index, groups) -> list:
    """Searches of `kind` on `groups` of (depth, positions or games, twist options: a dict
    or a function of (number, depth)), numbered from `index` (salt and rng seed)."""
    found = []
    for depth, items, options in groups:
        for item in items:
            index += 1
            game = item if isinstance(item, Game) else twisted(
                item, index, **(options(index, depth) if callable(options) else options))
            args = {"explore": (depth, -INF, INF), "evaluated": (depth,)}.get(kind, (depth, index))
            found.append(Search(kind, game, args))
    return found


# ------------------------------------------------------------ the student's board
# Chunked plans, a run per method: one position's exception or one method's endless
# loop does not hide the others.
READS = ("winner", "evaluate", "getSide", "getMoves")


def after_move(cells, move):
    """The rows after the reference made `move` on `cells`."""
    board = ref.TicTacToe(rows_of(cells))
    board.makeMove(move)
    return [list(row) for row in board.field]


@functools.cache
def board_cases(method):
    """One method's cases (cells, and the move makeMove/undoMove try there): every position
    for the reads, every open one for the others (expecting the field after the call)."""
    found = []
    for index, cells in enumerate(positions()):
        legal = MOVES[key_of(cells)]
        move = legal[index % len(legal)] if legal else None
        if move is None and method in ("getSide", "makeMove", "undoMove"):
            continue
        if method in READS:
            call, position = f"TicTacToe(field).{method}()", Later(draw, cells)
            want = getattr(ref.TicTacToe(rows_of(cells)), method)()
        elif method == "makeMove":
            call, position, want = f"makeMove({move})", Later(draw, cells), after_move(cells, move)
        else:
            call, want = f"undoMove({move})", rows_of(cells)
            position = Later(board_after, cells, move)
        found.append(Case(call, (cells, move), position, want))
    return tuple(found)


def board_after(cells, move) -> str:
    """undoMove's position: the board right after the move (made only when shown)."""
    return (draw(tuple(sum(after_move(cells, move), []))).rsplit("\n", 1)[0] + "\n"
            + _("(the board right after the move {move})").format(move=move))


def alone_steps(method, helpers):
    """One method's calls on a case's board (undoMove: after the move) with the grader's
    `helpers` (none: the student's own); a move answers its return or raise, then the field."""
    def steps(plan, case):
        cells, move = case.args
        board = plan.call("negamax.TicTacToe",
                          after_move(cells, move) if method == "undoMove" else rows_of(cells))
        for helper in helpers:      # the reference's answer for the position the board holds
            answer = getattr(ref.TicTacToe(rows_of(cells)), helper)()
            play_on_instance(plan, board, helper,
                             constant(answer, method_spec(ref.TicTacToe, helper)))
        if method in READS:
            return plan.call(board.attr(method), catch=True)
        return [plan.call(board.attr(method), move, catch=True),
                plan.get(board.attr("field"), default=None)]
    return steps


def changed_cell(case, outcome):
    """makeMove's or undoMove's own raise, or the field it left."""
    call, field = outcome.value
    if chunks.caught(call):
        return said(chunks.raised(call["raised"]))
    return None if field == case.expected else _("the field became {field}").format(
        field=short(field))


def check_board(student, blame, method, summary, hint):
    """One board method on its cases, judged on its own: a wrong winner costs only winner."""
    chosen = board_cases(method)

    def attempt(play):
        helpers = tuple(target.rpartition(".")[2] for target in play or ())
        outcomes = chunks.run_chunked(student, f"TicTacToe.{method}", chosen,
                                      alone_steps(method, helpers), cache=not helpers)
        check_all(summary, chosen, outcomes, exact if method in READS else changed_cell,
                  hint=hint, show=Show.REASON)
    blame.check(student, method, _("on a position"), blame.helpers(method), attempt)


def test_winner(student, blame):
    """TicTacToe.winner finds the player with three in a line on all 5,478 positions"""
    check_board(student, blame, "winner", _("winner returned the wrong player"),
                _("check the three rows, the three columns and both diagonals; 0 if nobody"))


def test_evaluate(student, blame):
    """TicTacToe.evaluate scores all 5,478 positions from player 1's view (judged with the grader's own winner)"""
    check_board(student, blame, "evaluate", _("evaluate returned the wrong score"),
                _("+(10 + empty cells) for a line of player 1, -(10 + empty cells) for "
                "player 2, 0 otherwise"))


def test_get_side(student, blame):
    """TicTacToe.getSide names the player to move on every unfinished position"""
    check_board(student, blame, "getSide", _("getSide returned the wrong player"),
                _("player 1 moves when the number of marks is even"))


def test_get_moves(student, blame):
    """TicTacToe.getMoves lists the free cells in order, and none once the game is decided (judged with the grader's own winner)"""
    check_board(student, blame, "getMoves", _("getMoves returned the wrong moves"),
                _("a list of (x, y), row by row from the top; [] after a win or on a full "
                "board, so no search ever plays past the end of a game"))


def test_make_move(student, blame):
    """TicTacToe.makeMove marks the cell for the player to move (judged with the grader's own getSide)"""
    check_board(student, blame, "makeMove", _("makeMove changed the wrong cell"),
                _("the move is (x, y): field[y][x]; getSide() says whose mark it is"))


def test_undo_move(student, blame):
    """TicTacToe.undoMove empties the cell of the move again"""
    check_board(student, blame, "undoMove", _("undoMove changed the wrong cell"),
                _("the move is (x, y): field[y][x]; set that cell back to 0"))


@functools.cache
def bad_cell_cases():
    """makeMove on a taken cell and undoMove on an empty one, each in a plan of its own."""
    rng, found = random.Random(5), []
    for cells in sample(40, 1, 8, 6):
        for method, state, taken in (("makeMove", N_("{call} on a taken cell"), 1),
                                     ("undoMove", N_("{call} on an empty cell"), 0)):
            move = rng.choice([(i % 3, i // 3) for i in range(9) if bool(cells[i]) == taken])
            plan = Plan(f"TicTacToe.{method}")
            board = plan.call("negamax.TicTacToe", rows_of(cells))
            plan.returns(plan.call(board.attr(method), move))
            found.append(Case(Later.words(state, call=f"{method}({move})"), (plan, method),
                              Later(draw, cells), "ValueError"))
    return tuple(found)


def test_make_and_undo_refuse_bad_cells(student, blame):
    """makeMove refuses a taken cell and undoMove an empty one (ValueError)"""
    found = bad_cell_cases()
    for case, outcome in zip(found, student.run([case.args[0] for case in found])):
        require(outcome)
        if raises(outcome, "ValueError"):      # a subclass of ValueError is one too
            continue
        method = case.args[1]
        with blame.judging(method, _("for a cell in the wrong state")):
            raise CheckFailed(_("{method} did not refuse a bad cell").format(method=method),
                              call=now(case.call), position=now(case.position),
                              expected="ValueError",
                              got=_("returned {value} instead of raising ValueError").format(
                                  value=short(outcome.value))
                              if outcome.answered else describe(outcome),
                              answer=stub_or_none(outcome),
                              hint=_("raise ValueError('...') for a cell in the wrong state"))


def stub_or_none(outcome):
    """NOT_IMPLEMENTED for a stub (the headline says so); a wrong answer otherwise."""
    return Answer.NOT_IMPLEMENTED if answer_of(outcome) is Answer.NOT_IMPLEMENTED else None


# ------------------------------------------------------------ search runs (shared)
@functools.cache
def explore_searches():
    """Values and work on tic-tac-toe boards only the grader knows."""
    def mixed(index, depth):
        return {"noise": 9 if index % 2 else 0, "keep": 0.6 if index % 3 == 0 else 1.0}
    return smallest_first(numbered("explore", 0, [
        *((depth, sample(count, 0, 8, 70 + depth), mixed)
          for depth, count in ((1, 45), (2, 80), (3, 45))),
        (FULL, sample(50, 5, 8, 74), {}), (FULL, sample(30, 2, 4, 75), {"keep": 0.5})]))


@functools.cache
def tree_searches():
    """Every depth from 1 to the tree's own (deeper searches the same as that)."""
    return smallest_first(Search("explore", game, (depth, -INF, INF)) for game in trees()
                          for depth in range(1, tree_depth(game.tree) + 1))


@functools.cache
def evaluated_searches():
    def mixed(index, depth):
        return {"noise": 9 if depth < 3 else 0, "keep": 0.6 if index % 2 else 1.0}
    return smallest_first(numbered("evaluated", 2000, [
        *((depth, sample(25, 0, 8, 20 + depth), mixed) for depth in (1, 2, 3)),
        (FULL, sample(25, 5, 8, 24), {}), (FULL, trees()[::2], {})]))


@functools.cache
def best_searches():
    return smallest_first(numbered("best", 3000, [
        *((depth, sample(20, 0, 8, 30 + depth), {"noise": 9, "keep": 0.7}) for depth in (1, 2, 3)),
        (FULL, sample(20, 5, 8, 34), {}), (FULL, trees()[1::2], {})]) + [
        Search("best", Game("a decided game", decided_positions()[0], twist_for(6000)), (3, 0))])


@pytest.fixture(scope="session")
def explore_runs(student):
    return run(student, explore_searches())


@pytest.fixture(scope="session")
def tree_runs(student):
    return run(student, tree_searches())


# ------------------------------------------------------------ values
def test_explore_values(student, explore_runs, tree_runs, blame):
    """explore returns the depth-limited game value (depths 1 to 3 anywhere, 9 on endgames, and on trees)"""
    def judge(r, got):
        if type(got) not in (int, float):
            return _("returned {value}, not a number").format(value=short(got))
        return None if got == r.want["value"] else returned(got)
    check_runs(_("explore returned the wrong value"), explore_runs + tree_runs, judge,
               hint=_("the value is from the view of the player to move: the highest of the "
                    "negated values of the children, in the order getMoves lists them"),
               blame=blame)


def _evaluated_reason(got, want):
    if type(got) is not list or not all(type(e) is tuple and len(e) == 3 for e in got):
        return _("returned {value}: expected a list of (value, move, nodes) tuples").format(
            value=short(got))
    if sorted(map(repr, (m for _v, m, _n in got))) != sorted(map(repr, (m for _v, m, _n in want))):
        return _("listed the moves {moves}, not every move getMoves offers").format(
            moves=short([m for _v, m, _n in got]))
    values = {repr(m): v for v, m, _n in got}
    for v, m, _n in want:
        if wrong_number(values[repr(m)], v):
            return _("gave move {move} the value {value}").format(
                move=repr(m), value=short(values[repr(m)]))
    if [(v, m) for v, m, _n in got] != [(v, m) for v, m, _n in want]:
        return _("the order {moves} is not best first with ties in getMoves order").format(
            moves=short([m for _v, m, _n in got]))
    return None


def discipline(r: Run) -> str | None:
    """Why the search did not leave the grader's board as it found it (its records)."""
    got = r.record
    if got["violations"]:
        return got["violations"][0]
    if got["pending"]:
        return _("left the moves {moves} on the board (made, never taken back)").format(
            moves=", ".join(got["pending"]))
    if not got["restored"]:
        return _("left the board different from before the search")
    return None


def test_evaluated_moves(student, blame):
    """getEvaluatedMoves values every move exactly, sorts best first (ties in move order) and takes every move back (judged with the grader's own explore)"""
    def judge(r, got):
        return _evaluated_reason(got, r.want["moves"]) or discipline(r)
    check_runs(_("getEvaluatedMoves returned wrong values or order"),
               run(student, evaluated_searches(), played=True), judge, blame=blame,
               hint=_("value = -explore(depth - 1, -infinity, +infinity) after making the move, "
                    "then undoMove; sort by value, highest first (a stable sort keeps ties "
                    "in order)"))


@functools.cache
def best_of(search: Search):
    """The best moves at the search's depth (the reference's)."""
    evaluated = expected(Search("evaluated", search.game, (search.args[0],)))[0]["moves"]
    return [m for v, m, _ in evaluated if v == evaluated[0][0]] if evaluated else []


def test_best_move(student, blame):
    """getBestMove returns a move with the best value at the given depth (judged with the grader's own getEvaluatedMoves)"""
    def judge(r, move):
        best = best_of(r.search)
        if not best:
            return None if move is None else on_a_decided_game(move)
        if move not in best:
            return _("{move} is not one of the best moves").format(move=short(move))
        return discipline(r)
    check_runs(_("getBestMove chose a move that is not among the best"),
               run(student, best_searches(), played=True), judge,
               hint=_("choose among the moves whose value equals the best value"), blame=blame,
               expected=lambda r: _(" or ").join(map(repr, best_of(r.search))) or "None")


def on_a_decided_game(move) -> str:
    return _("returned {move} on a decided game").format(move=short(move))


SEEDS = 24


@functools.cache
def choice_games():
    """(game, depth) with two or more best moves and a worse one, cheap to search SEEDS times:
    small random trees at full depth, noisy positions (ties are common) at depth 1."""
    def tied(candidates, depth, moves):
        found = (game for game in candidates
                 if 2 <= len(best_of(Search("best", game, (depth, 0)))) < moves(game))
        return [(game, depth) for game in itertools.islice(found, 3)]
    trees = (Game("", tree=tree, first=1 + seed % 2) for seed in range(400, 3000)
             if tree_size(tree := random_tree(seed, depth=2, widths=(2, 4),
                                                          values=(-3, 3), decided=0.2)) <= 12)
    boards = (twisted(cells, 4000 + index, noise=3)
              for index, cells in enumerate(sample(300, 2, 6, 9)))
    return tuple((dataclasses.replace(game, name=f"random tie {number}"), depth) for number,
                 (game, depth) in enumerate(tied(trees, FULL, lambda g: len(g.tree.children)), 1)) \
        + tuple(tied(boards, 1, lambda g: len(KitBoard(g.cells, g.twist).getMoves())))


def chose_with_the_rng(r: Run, move, best) -> str | None:
    """Why `move` is not what the grader's rng chose among exactly the best moves, from
    the rng's records (never how random answers look: an own generator cannot be replayed)."""
    if not r.chose:
        return (_("never asked rng (the grader's generator) to choose: pick with "
                "rng.choice(bestMoves)"))
    offered, chosen = r.chose
    if sorted(map(repr, offered)) != sorted(map(repr, best)):
        return _("rng.choice was offered {offered}, not the equally best moves {best} (each of "
                 "them once)").format(offered=short(offered), best=short(best))
    if move != chosen:
        return _("returned {move}, not {chosen}, the move rng.choice chose").format(
            move=short(move), chosen=short(chosen))
    return None


def test_best_move_random_choice(student, blame):
    """getBestMove picks every one of several equally good moves over 24 seeds, and never a worse one (judged with the grader's own getEvaluatedMoves)"""
    runs = run(student, [Search("best", game, (depth, seed)) for game, depth in choice_games()
                         for seed in range(SEEDS)], played=True)
    with blame.judging("getBestMove", _("on a board of the grader's"),
                       blame.helpers("getBestMove")):
        for group in (runs[start:start + SEEDS] for start in range(0, len(runs), SEEDS)):
            first, best = group[0].search, best_of(group[0].search)
            shown = {"position": first.game.text, "call": _(
                "{call} with rng = random.Random(seed), seeds 0 to {last}").format(
                call=first.call, last=SEEDS - 1)}
            moves = []
            for r in group:
                require(r.outcome)
                problem = r.lost if r.outcome.answered else describe(r.outcome)
                if problem:
                    raise CheckFailed(_("getBestMove did not answer"), got=problem,
                                      answer=answer_of(r.outcome), **shown,
                                      picture=pictured(r))
                moves.append(r.mine.value)
            wrong = [move for move in moves if move not in best]
            if wrong:
                raise CheckFailed(_("getBestMove chose a move that is not among the best"),
                                  got=_("chose {move}").format(move=short(wrong[0])),
                                  expected=_(" or ").join(map(repr, best)), **shown,
                                  picture=pictured(group[moves.index(wrong[0])]))
            never = [move for move in best if move not in moves]
            problems = list(map(chose_with_the_rng, group, moves, [best] * SEEDS))
            problem = next(filter(None, problems), None)
            if problem or never:
                r = group[problems.index(problem)] if problem else group[0]
                raise CheckFailed(
                    _("getBestMove does not choose at random among the equally best moves"),
                    got=problem or _("chose only {moves}, never {never}").format(
                        moves=short(sorted(set(map(repr, moves)))), never=short(never)),
                    expected=_(" and ").join(map(repr, best)),
                    **shown, picture=pictured(r),
                    hint=_("collect every move with the best value, in getMoves order, "
                    "and pick one with rng.choice(bestMoves) (the random module if rng is None)"))


@functools.cache
def play_searches():
    return smallest_first(numbered("play", 5000, [
        *((depth, sample(20, 0, 8, 40 + depth), {"noise": 9, "keep": 0.7}) for depth in (1, 2, 3)),
        *((depth, decided_positions()[::120], {}) for depth in (1, 2))]))


def test_short_sighted_play(student, blame):
    """ShortSightedOpponent.play makes a best move at its own depth, None when decided (judged with the grader's own getBestMove)"""
    def judge(r, move):
        left = r.record["pending"]
        if not r.search.game.board().getMoves():
            if move is not None:
                return on_a_decided_game(move)
            if left or r.record["counts"]["makeMove"]:
                return _("made a move on a decided game")
            return None
        if move not in best_of(r.search):
            return _("{move} is not one of the best moves at this depth").format(move=short(move))
        if left != [shown(move)]:
            return _("returned {move} but left the moves {moves} on the board").format(
                move=short(move), moves=", ".join(left) or _("none"))
        return None
    check_runs(_("ShortSightedOpponent.play did not make a best move"),
               run(student, play_searches(), played=True), judge, blame=blame,
               hint=_("getBestMove(self.depth, rng), then make that move on the board"),
               expected=lambda r: _(" or ").join(map(repr, best_of(r.search))) or "None")


@functools.cache
def edge_searches():
    decided = Game("a decided game", decided_positions()[0], twist_for(6000))
    noisy = twisted(open_positions()[40], 6001, noise=9)
    return ((Search("evaluated", decided, (3,)),
             N_("getEvaluatedMoves must return [] on a decided game")),
            (Search("evaluated", noisy, (0,)), N_("getEvaluatedMoves(0) must raise ValueError")),
            *((Search("default", noisy, (depth,)),
               N_("getEvaluatedMoves() without a depth must search self.depth"))
              for depth in (1, 2)))


def test_edge_cases(student, blame):
    """getEvaluatedMoves: [] when decided, uses self.depth by default, refuses depth < 1 (judged with the grader's own explore)"""
    found = edge_searches()
    runs = run(student, [s for s, _ in found], played=True)
    with blame.judging("getEvaluatedMoves", _("on a board of the grader's"),
                       blame.helpers("getEvaluatedMoves")):
        for (search, summary), r in zip(found, runs):
            require(r.outcome)
            if "raised" in r.want:
                want = "ValueError"
                good = raises(r.outcome, want)    # a subclass of ValueError is one too
            else:
                # explore is the grader's here: node counts are the whole-program check's
                good = not r.lost and _evaluated_reason(r.mine.value, r.want["moves"]) is None
                want = short([(v, m) for v, m, _ in r.want["moves"]])
            if not good:
                raise CheckFailed(_(summary), call=search.call, position=search.game.text,
                                  got=describe(r.mine), expected=want,
                                  answer=stub_or_none(r.outcome), picture=pictured(r))


# ------------------------------------------------------------ technique
def work_reason(r: Run, counter: bool = True):
    """Why the search did not do alpha-beta's work (board records; `counter`: treeNodeCounter)."""
    got, want = r.record, r.want_record
    for words, mine, theirs in (
            (N_("expanded {mine} positions (the grader's board saw moves made from {mine} "
                "positions); alpha-beta expands {theirs}"), got["expanded"], want["expanded"]),
            (N_("called evaluate {mine} times; alpha-beta calls it {theirs} times"),
             got["counts"]["evaluate"], want["counts"]["evaluate"]),
            (N_("made {mine} moves; alpha-beta makes {theirs}"),
             got["counts"]["makeMove"], want["counts"]["makeMove"])):
        if mine != theirs:
            return _(words).format(mine=mine, theirs=theirs)
    for count, (mine, theirs) in enumerate(zip(got["made"], want["made"]), 1):
        if mine != theirs:
            return _("made the moves in another order than alpha-beta: move {number} was "
                     "{mine}, alpha-beta's is {theirs}").format(number=count, mine=short(mine),
                                                                theirs=short(theirs))
    if counter:
        nodes = r.outcome.value["nodes"]    # beside the value the judge saw
        if nodes != r.want["nodes"]:
            return _("treeNodeCounter says {nodes} expanded nodes; alpha-beta expands "
                     "{theirs}").format(nodes=short(nodes), theirs=r.want["nodes"])
    return None


def alpha_beta_work(r: Run) -> str:
    """What the work checks expect: the value, and the work alpha-beta does for it."""
    want = r.want_record
    return _("{value}, expanding {expanded} position(s) (treeNodeCounter {nodes}) and calling "
             "evaluate {evaluate} time(s)").format(
        value=repr(r.want["value"]), expanded=want["expanded"], nodes=r.want["nodes"],
        evaluate=want["counts"].get("evaluate", 0))


def check_work(runs, blame):
    check_runs(_("explore did not do the work of alpha-beta"), runs,
               lambda r, got: wrong_number(got, r.want["value"]) or work_reason(r),
               hint=_("try the moves in getMoves order, cut (return beta) as soon as a "
                      "child's value is >= beta, and count a node once per explore call that "
                      "is not a leaf"), blame=blame, expected=alpha_beta_work)


def test_work_on_hand_built_trees(student, tree_runs, blame):
    """explore expands exactly the nodes alpha-beta expands, in its order, on hand-built trees"""
    check_work(tree_runs, blame)


def test_work_on_positions(student, explore_runs, blame):
    """explore expands exactly the nodes alpha-beta expands on tic-tac-toe"""
    check_work(explore_runs, blame)


@functools.cache
def leaf_searches():
    return smallest_first(numbered("explore", 7000, [
        (0, sample(120, 0, 8, 8), {"noise": 9}),
        *((depth, random.Random(depth).sample(decided_positions(), 60), {}) for depth in (1, 4)),
        (0, trees(), {})]))


def test_explore_leaves(student, blame):
    """explore evaluates a leaf (depth 0, or a decided game) once, from the mover's view"""
    def judge(r, got):
        if wrong_number(got, r.want["value"]):
            side = r.search.game.board().getSide()
            return _("returned {value}: a leaf is worth evaluate() from the view of the player "
                     "to move (player {side} here)").format(value=short(got), side=side)
        nodes = r.outcome.value["nodes"]
        if nodes != 0:
            return _("counted {nodes} expanded nodes at a leaf").format(nodes=short(nodes))
        if r.record["counts"]["evaluate"] != 1:
            return _("called evaluate {count} times, not once").format(
                count=r.record["counts"]["evaluate"])
        if r.record["counts"]["makeMove"]:
            return _("made a move from a leaf: a decided game is never searched further")
        return None
    check_runs(_("explore got a leaf wrong"), run(student, leaf_searches()), judge, blame=blame,
               hint=_("at depth <= 0 or without moves: return evaluate() if player 1 is to move, "
                    "-evaluate() if player 2 is"))


@functools.cache
def depth_searches():
    return smallest_first(numbered("explore", 8000, [
        (depth, sample(15, 0, 6, 50 + depth), {"noise": 9, "keep": 0.5}) for depth in (1, 2, 3, 4)])
        + [Search("explore", game, (depth, -INF, INF)) for depth in (1, 2, 3, 4)
           for game in trees()[depth % 2::2]])


def test_depth_limit(student, blame):
    """explore looks exactly `depth` half-moves ahead and evaluates only there (or at decided games)"""
    def judge(r, _answer):
        got, depth = r.record, r.search.args[0]
        if got["max_ply"] > depth:
            return _("made moves {plies} half-moves deep with depth {depth}: the depth limit "
                     "is off by one").format(plies=got["max_ply"], depth=depth)
        above = sorted(p for p in got["open_evaluate_plies"] if p < depth)
        if above:
            return _("called evaluate on an undecided position {plies} half-move(s) below the "
                     "root, above the depth limit {depth}").format(plies=above[0], depth=depth)
        if not got["counts"]["makeMove"] and r.want_record["counts"]["makeMove"]:
            return _("made no move at all: nothing was searched")
        return None
    check_runs(_("explore did not respect its depth limit"), run(student, depth_searches()),
               judge, blame=blame, records=True,
               hint=_("depth counts the half-moves still to look ahead: evaluate when it "
                    "reaches 0, and only then (or when there are no moves)"))


WINDOWS = ((-1, 1), (0, 1), (-1, 0), (-15, -11), (11, 13), (-2, 2), (5, 30))


@functools.cache
def window_searches():
    narrow = ((-1, 1), (3, 4), (5, 8), (-7, -5))
    return smallest_first(
        [Search("explore", twisted(cells, 9001 + 2 * i + other),
                (FULL, *WINDOWS[(i + 3 * other) % 7]))
         for i, cells in enumerate(sample(30, 5, 8, 60)) for other in (0, 1)]
        + [Search("explore", game, (depth, *narrow[(i + depth + shift) % 4]))
           for i, game in enumerate(trees()) for depth in (2, 3) for shift in (0, 2)])


def test_fail_hard_windows(student, blame):
    """explore with a narrow window is fail-hard: it returns a value inside [alpha, beta]"""
    def judge(r, got):
        if wrong_number(got, r.want["value"]):
            alpha, beta = r.search.args[1], r.search.args[2]
            inside = type(got) in (int, float) and alpha <= got <= beta
            return returned(got) + ("" if inside else _(", outside the window [{alpha}, "
                                                        "{beta}]").format(alpha=alpha, beta=beta))
        return None
    check_runs(_("explore returned the wrong value for a narrow window"),
               run(student, window_searches()), judge, blame=blame,
               hint=_("fail-hard: return beta on a cut, and alpha (raised by better children) "
                    "after the last move"))


def test_board_is_restored(student, explore_runs, tree_runs, blame):
    """explore leaves the board exactly as it found it (make/undo discipline)"""
    judged = 0
    with blame.judging("explore", _("on a board of the grader's")):
        for runs in (explore_runs, tree_runs):
            # The board's records are ours, so a search that raised (or was refused a
            # move) is judged too; one that made no move shows nothing.
            done = [r for r in runs if r.ran and r.record["counts"]["makeMove"]]
            judged += len(done)
            check_all(_("explore broke the make/undo discipline"),
                      cases(done, lambda r: _("the board as it was, every move taken back")),
                      [mine if mine.answered else Outcome(
                          ok=True, value={"raised": mine.raised or mine.detail})
                       for mine in (r.mine for r in done)],
                      lambda case, outcome: discipline(case.args[0]), show=Show.REASON,
                      picture=lambda case, _outcome: discipline_picture(case.args[0]),
                      hint=_("every makeMove needs an undoMove of the same move before you "
                           "return, on a cut too; take back the last move made first"))
        if not judged:      # nothing searched, so nothing was shown to be restored
            first = explore_runs[0]
            require(first.outcome)
            raise CheckFailed(_("no search made a move, so the make/undo discipline could not "
                              "be checked"), call=first.search.call,
                              position=first.search.game.text,
                              got=describe(first.mine), answer=stub_or_none(first.outcome))


# ------------------------------------------------------------ the whole program
def test_evaluated_moves_with_your_own_explore(student, blame):
    """your whole program: getEvaluatedMoves with your own explore values every move and counts its nodes as alpha-beta does"""
    def judge(r, got):
        reason = _evaluated_reason(got, r.want["moves"])
        if reason:
            return reason
        nodes = {repr(e[1]): e[2] for e in got}
        for _value, m, n in r.want["moves"]:
            if nodes.get(repr(m)) != n:
                return _("reported {nodes} nodes for move {move}; alpha-beta expands "
                         "{theirs}").format(nodes=short(nodes.get(repr(m))), move=repr(m),
                                            theirs=n)
        return work_reason(r, counter=False) or discipline(r)
    check_runs(_("getEvaluatedMoves with your own explore did not do the work of alpha-beta"),
               run(student, evaluated_searches()), judge, blame=blame,
               hint=_("reset treeNodeCounter to 0 before each move, search it with the full "
                      "window, and record the counter afterwards"))

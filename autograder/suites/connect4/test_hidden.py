"""Hidden suite for connect4: the game functions, the search, the player.

Expected values come from the reference, run in this trusted process, and "does this
move keep the game value?" from the exact solver (solver.py), on seeded positions of
every length, won and drawn games, smallest first. The technique checks run the
student's search on a game only the grader knows (games.SubsetGame), through callbacks
that log every call: the work is judged from that log, and a search that bypasses the
callbacks searches another game. Time budgets are judged on a clock of the grader's,
and on the real clock only where the child's CPU time decides. Each function is judged
on its own ([relies_on], checking/blame.py).
"""

from __future__ import annotations

import copy
import functools
import itertools
import random
from dataclasses import dataclass

from autograder.checking import (Callback, Case, CheckFailed, Later, Plan, Show, call_plan,
                                 changed_input, check_all, check_probes, compare, describe,
                                 exact, load_reference, number, refused, require, returned,
                                 same_items, search, short)
from autograder.checking.handout import Handout
from autograder.checking.verdicts import UNTOUCHED
from autograder.i18n import N_, grader_text as _
from autograder.suites.connect4 import games
from autograder.suites.connect4.games import (TICK, Legal, RealGame, SubsetGame, played_as,
                                              reference_move, within)
from autograder.suites.connect4.judges import (GAME_HINT, LABELS, Search, game_plays,
                                               game_search, judge_stops, judge_terminal_tests,
                                               judge_value, judge_work, lines_difference)
from autograder.suites.connect4.positions import (as_tuples, draw, drawn_states,
                                                  judge_solver, midgame_states, playout,
                                                  random_states, solver, tactics, won_states)

ref = load_reference("connect4", "connect4")
M = "connect4."
WIN = ref.WIN
#: Cases a check judges again with the grader's helpers, at most (each helper call
#: is a round trip): a spread sample, every length and full columns too.
PLAYED_MOST = 300


def compared(student, blame, function, cases, judge=exact, summary=None, **options):
    """`compare` with connect4's rule for judging again (`again_unless`), on a spread
    sample of PLAYED_MOST cases, in the played child of the check before."""
    compare(student, blame, function, cases, judge, summary, most=PLAYED_MOST, fresh=False,
            rerun=again_unless(student, (M + function,)), **options)


def again_unless(student, calls, handouts=()):
    """Blame.check's `again`: every failure is judged again (connect4's helpers' checks
    do not cover every input its searches give them), except one whose `calls` ran out
    of time, or that asked a game of the grader's (`handouts`) what it does not
    answer: a second chance would forgive those, so that failure stands."""
    return lambda failed: not set(calls) & set(student.broken) and \
        not any(handout.refused for handout in handouts)


def on_its_own(student, blame, function, scope, attempt, play=None, calls_named=None):
    """Blame.check of `attempt(play, handouts)`, judged again unless (`again_unless`):
    the attempt's plans put their games' handouts in `handouts` (search.run_jobs)."""
    handouts = []
    blame.check(student, function, scope, blame.plays(function) if play is None else play,
                lambda play: attempt(play, handouts), fresh=False,
                again=again_unless(student, calls_named or (M + function,), handouts))


@functools.cache
def cases_of(function, states, before=None, weighted=False):
    """The cases of `function` on `states`, each given the state, or what the reference's
    `before` (getBoard, nextstates) makes of it, and with `weighted` a set of weights
    too; expected: the reference's answers."""
    found = []
    for state in states:
        args = (getattr(ref, before)(list(state)) if before else list(state),)
        if weighted:
            args += (list(WEIGHT_SETS[len(state) % 3]),)
        shown = (f"{before}(state)" if before else "state") + \
            "".join(", " + short(a, 60) for a in args[1:])
        found.append(Case(f"{function}({shown})", args, draw(state),
                          getattr(ref, function)(*args)))
    return found


# ------------------------------------------------------------------ game functions
def test_getBoard(student, blame):
    """getBoard builds the 42-cell board of 1,000 random positions"""
    compared(student, blame, "getBoard", cases_of("getBoard", as_tuples(random_states())),
        hint=_("x owns the cells at even positions of the state, o those at odd positions"))


def test_colNrs(student, blame):
    """colNrs lists the cells of each column from the bottom up"""
    compared(student, blame, "colNrs",
             [Case(f"colNrs({i})", (i,), ref.showNr(), ref.colNrs(i)) for i in range(7)],
             summary=_("colNrs returned the wrong cells"), scope=_("for a column"),
             hint=_("the cells of column i are i, i + 7, ..., i + 35 (the board's cell "
                    "numbers above); the bottom one comes first"))


@functools.cache
def _board_column_cases():
    """Two columns of every random board, and up to two full ones of some boards."""
    cases = []
    for index, state in enumerate(random_states()):
        board, columns = ref.getBoard(state), [index % 7, (index + 3) % 7]
        if ref.freeIn(board, index % 7) is None or index % 11 == 0:
            columns += [c for c in range(7) if ref.freeIn(board, c) is None][:2]
        cases += [Case(f"freeIn(board, {col})", (board, col), draw(state),
                       ref.freeIn(board, col)) for col in columns]
    return cases


def test_freeIn(student, blame):
    """freeIn finds where a stone dropped into a column lands (None if it is full)"""
    compared(student, blame, "freeIn", _board_column_cases(), scope=_("for a column"),
             summary=_("freeIn returned the wrong cell"),
        hint=_("a stone falls to the lowest empty cell of its column"))


def test_free(student, blame):
    """free lists the playable cells of 1,000 random boards, column by column"""
    compared(student, blame, "free", cases_of("free", as_tuples(random_states()), "getBoard"),
        hint=_("one cell per column that is not full (its freeIn), by column from 0 to 6"))


def test_nextstates(student, blame):
    """nextstates lists one successor per open column and leaves its input alone"""
    def judge(case, outcome):
        if outcome.value != case.expected or type(outcome.value) is not list:
            return exact(case, outcome)
        # from nextstates' own second answer on the same state object
        return changed_input(outcome, _("state"), _("its input state"), case.args[0])
    compared(student, blame, "nextstates", cases_of("nextstates", as_tuples(
        s for s in random_states() if not ref.terminal_test(s))), judge,
        _("nextstates returned the wrong successors"), again=True,
        scope=_("on an unfinished position"),
        hint=_("state + [cell] for every cell of free(board), by column 0 to 6"))
    with blame.judging("nextstates", _("on an unfinished position")):
        check_probes(student, _("nextstates changed its input state"), M + "nextstates",
                     M + "nextstates", _probe_cases(), lambda *args: PROBES, _("state"),
                     hint=_("build each successor as a new list: state + [cell]"))


#: Questions asked of a state after nextstates(state): its board (which spells out
#: the whole state), its successors again, whether it is over.
PROBES = [(f"{name}(state)", M + name, ()) for name in ("getBoard", "nextstates", "terminal_test")]


@functools.cache
def _probe_cases():
    return [Case(PROBED, (list(s),), draw(s), UNTOUCHED)
            for s in random_states()[5::12] if not ref.terminal_test(list(s))]


PROBED = Later.words(N_("nextstates({state}), then more questions about the same state"),
                     state="state")


def test_lines(student, blame):
    """lines returns the 25 lines of four or more cells in the handout's order"""
    hint = _("6 rows, 7 columns, then the two kinds of diagonals, each from its top end")
    try:
        # The docstring names no container: a tuple of the 25 strings is as right.
        compared(student, blame, "lines", cases_of("lines", as_tuples(random_states()[::3]),
                                                    "getBoard"),
                 same_items, hint=hint, scope=_("on a board"))
    except CheckFailed as failed:
        labelled = student.call(M + "lines", list(LABELS))
        difference = lines_difference(labelled.value) if labelled.answered else None
        if difference:
            failed.problem = _("{difference} (seen on a board whose cells are labelled "
                               "'{labels}...', cell i holding the i-th character)").format(
                difference=difference, labels=LABELS[:10])
        raise


WEIGHT_SETS = ((5, 30, 500), (5, 10, 50), (1, 7, 100))


def test_pattern_score(student, blame):
    """pattern_score scores the window patterns of random boards with several weights"""
    compared(student, blame, "pattern_score", cases_of(
        "pattern_score", as_tuples(random_states()[::2]), "getBoard", weighted=True), number,
        hint=_("each pattern counts at most once per line; four in a row decides at once"))


def test_evaluation(student, blame):
    """evaluation gives the handout's values on random positions and wins"""
    states = as_tuples(list(random_states()) + list(won_states()))
    compared(student, blame, "evaluation", cases_of("evaluation", states), number,
        hint=_("pattern_score(getBoard(state), WEIGHTS): weights (5, 30, 500), seen from x; "
               "a four in a row is +-10000"))


def test_evaluation_b(student, blame):
    """evaluation_b gives the handout's values on random positions"""
    compared(student, blame, "evaluation_b",
             cases_of("evaluation_b", as_tuples(random_states()[::4])), number,
        hint=_("weights (5, 10, 50)"))


@functools.cache
def _terminal_states():
    finished = list(won_states()) + list(drawn_states())
    near = [s[:-1] for s in finished] + [s[:-2] for s in drawn_states()]
    return as_tuples(sorted(finished + near + list(random_states()[::2]),
                            key=lambda s: (len(s), s)))


def given_evaluation(decided, handout=None):
    """An evaluation of the grader's that calls chosen positions decided (+-WIN) and
    every other position 0: terminal_test must believe it. With a `handout`, it
    answers only about the position handed out (the one terminal_test was given)."""
    def evaluation(state):
        return decided.get(tuple(state), 0)
    return within("evaluation", functools.partial(games.handed, handout), evaluation) \
        if handout else evaluation


#: What the given evaluation says of an open position: decided (at least WIN or at
#: most -WIN, also beyond) or just short of it.
GIVEN_VALUES = (WIN, -WIN, WIN + 1, -WIN - 1, 3 * WIN, -3 * WIN, WIN - 1, 1 - WIN)


@functools.cache
def _given_evaluation_cases():
    """terminal_test(state, evaluation) with evaluations of ours: open positions
    declared decided (or nearly), won positions declared open; a full board is
    over anyway."""
    cases, said = [], itertools.cycle(GIVEN_VALUES)
    chosen = list(random_states()[40::60]) + list(won_states()[::20]) + list(drawn_states()[:2])
    for state in sorted(chosen, key=len):
        key = tuple(state)
        decided = {key: next(said)} if abs(ref.evaluation(state)) < WIN else {}
        cases.append(Case("terminal_test(state, evaluation)", (list(state), decided),
                          Later(_evaluation_said, state, decided.get(key, 0)),
                          ref.terminal_test(list(state), given_evaluation(decided))))
    return cases


def _evaluation_said(state, value):
    return draw(state) + "\n" + _("the evaluation given says {value}").format(value=value)


def test_terminal_test(student, blame):
    """terminal_test sees wins in every direction and full boards, and uses the evaluation it is given"""
    compared(student, blame, "terminal_test", cases_of("terminal_test", _terminal_states()),
        hint=_("over means four in a row (any direction) or all 42 cells taken"))
    chosen = _given_evaluation_cases()

    def attempt(play, handouts):
        def job(case):
            state, decided = case.args
            handout = Handout(roots=[tuple(state)])
            return call_plan("terminal_test", M + "terminal_test", state,
                             Callback(given_evaluation(decided, handout)), play=play), handout
        search.check_jobs(student, _("terminal_test did not believe the evaluation it was "
                                     "given"), chosen, job, exact, found=handouts,
                          show=Show.PLAN, hint=_(
                              "over means evaluation(state) >= WIN or <= -WIN, or 42 stones: "
                              "call the evaluation passed in (default: the module's)"))
    on_its_own(student, blame, "terminal_test", _("on a position"), attempt,
               calls_named=("terminal_test",))


#: What the search checks play: the game's nextstates, evaluation and terminal_test.
SEARCH_PLAYS = {M + "nextstates": None, M + "terminal_test": None, M + "evaluation": None}
SEARCH = "maximize/minimize"     # judged together: they call each other


def check_searches(student, blame, searches, judge, summary, hint):
    """A technique check: every search on a game of the grader's of its own (its
    helpers the game's: SEARCH_PLAYS), judged by `judge(run)`."""
    with blame.judging(SEARCH, _("on a position of the grader's game"), SEARCH_PLAYS):
        search.check(student, summary, searches, judge, hint, raised=False)


def grid(states, bremses, salt, **options):
    """A search of every state at every Bremse, each state on a game of its own."""
    return [Search(tuple(state), bremse, salt + index, **options)
            for index, state in enumerate(states) for bremse in bremses]


@functools.cache
def value_cases():
    states = midgame_states(24, 5) + as_tuples(t["state"] for t in tactics()["win3"][:6])
    return tuple(grid(states, (0, 1, 2, 3), 100, stats=False))


def test_alphabeta_values(student, blame):
    """maximize/minimize return the depth-limited minimax value and a best successor"""
    check_searches(student, blame, value_cases(), judge_value,
                   _("the search returned the wrong value"),
                   _("Bremse d searches d moves deep: children get bremse - 1, and a position "
                     "is evaluated when bremse == 0 or the game is over") + "; " + _(GAME_HINT))


@functools.cache
def count_cases():
    states = midgame_states(16, 9)
    return tuple(grid(states, (1, 2, 3), 200) + grid(states[-6:], (4,), 300)
                 + grid([t["state"] for t in tactics()["block"][:5]], (3,), 400))


def test_alphabeta_counts(student, blame):
    """the search visits, evaluates and prunes exactly the handout's nodes"""
    check_searches(student, blame, count_cases(),
                   search.all_of(judge_work, judge_terminal_tests),
                   _("the search did not visit the handout's nodes"),
                   _("count every call of maximize/minimize; cut when best >= beta (max) or "
                     "best <= alpha (min), after updating best; test bremse == 0 before "
                     "terminal_test"))


def _salt_offering_a_win(state, start):
    """A game salt whose moves at `state` include a move that wins at once."""
    wins = {cell for cell in ref.free(ref.getBoard(list(state)))
            if games.real_value(tuple(state) + (cell,))}
    salt = start
    while not wins & set(SubsetGame(salt).cells(tuple(state))):
        salt += 1
    return salt


@functools.cache
def finished_cases():
    states = sorted(list(won_states()[::8]) + list(drawn_states()), key=len)
    return tuple(grid(states, (0, 3), 500) + [
        Search(tuple(t["state"]), 2, _salt_offering_a_win(t["state"], 600 + 50 * i))
        for i, t in enumerate(tactics()["win1"][:6])])


def test_alphabeta_stops_at_finished_games(student, blame):
    """the search evaluates a finished game at once and does not search past it"""
    check_searches(student, blame, finished_cases(), judge_stops,
                   _("the search went on after the game was over"),
                   _("test terminal_test(state, evaluation) before generating children"))


@functools.cache
def ordered_cases():
    return tuple(grid(midgame_states(8, 13), (2, 3), 700, rotate=True))


def test_alphabeta_applies_the_order(student, blame):
    """maximize/minimize search the children in the order the `order` function gives"""
    check_searches(student, blame, ordered_cases(), judge_work,
                   _("the search did not follow the order function"),
                   _("rearrange nextstates(state) with order(children), and pass order on to "
                     "the recursive calls"))


# ------------------------------------------------------------------ move ordering
def test_centre_first(student, blame):
    """centre_first orders successors by the distance of their column from the centre"""
    states = as_tuples(s for s in random_states()[::5] if not ref.terminal_test(s))
    compared(student, blame, "centre_first",
             cases_of("centre_first", states, "nextstates"),
        scope=_("on the successors of a position"),
        hint=_("columns 3, 2, 4, 1, 5, 0, 6: by distance from the centre, the left one first"))


@functools.cache
def shallow_cases():
    cases = []
    for index, state in enumerate(midgame_states(14, 17)):
        salt, bremse = 800 + index, 1 + len(state) % 2
        children = SubsetGame(salt).children(state)
        game = SubsetGame(salt, children)
        with games.reference_on(game):
            want = ref.shallow_order(children, bremse, game.evaluation)
        cases.append(Case(f"shallow_order(children, {bremse}, evaluation)",
                          (salt, children, bremse, len(game.log)),
                          Later(_children_drawn, state, children), want))
    return cases


def _children_drawn(state, children):
    return f"{draw(state)}\nchildren = {children}\n" + _(
        "(the successors this check's game offers; the searches below use its nextstates "
        "and evaluation)")


def test_shallow_order(student, blame):
    """shallow_order sorts successors by a shallow search, best for the mover first"""
    def job(case):      # the rules and the search played by the grader on the game
        salt, children, bremse, calls = case.args
        game = SubsetGame(salt, children, search.calls_allowed(calls))
        searches = {M + who: game_search(who, game) for who in ("maximize", "minimize")}
        return call_plan("shallow_order", M + "shallow_order", children, bremse,
                         Callback(played_as("evaluation", game.evaluation)),
                         play=game_plays(game) | searches), game
    with blame.judging("shallow_order", _("on the successors of a position"),
                       blame.helpers("shallow_order")):
        search.check_jobs(student, _("shallow_order put the children in the wrong order"),
                          shallow_cases(), job, exact, show=Show.PLAN,
                          hint=_("search every child with the other side to move, using the "
                                 "evaluation given; equal values keep their order"),
                          picture=lambda case, outcome, game: shallow_picture(*case.args[:3],
                                                                              game))


def shallow_picture(salt, children, bremse, game) -> dict:
    """The searches the student's shallow_order asked for (the grader's, on the game)
    beside the reference's, drawn from the position the children follow (the handed
    over children drawn as the parent's expansion)."""
    rule = SubsetGame(salt, children)
    with games.reference_on(rule):
        ref.shallow_order(children, bremse, rule.evaluation)
    parent = tuple(children[0][:-1])
    handed = copy.copy(game)
    handed.log = [("n", parent), *game.log]
    return search.game_picture(handed, [("n", parent), *rule.log], parent,
                               max_to_move=len(parent) % 2 == 0)


# ------------------------------------------------------------------ opening book
@functools.cache
def book_cases():
    book = {(): [38], (38,): [38, 31], (38, 31): [38, 31, 24], (36, 38): [36, 38, 29]}
    plain = {tuple(k): v for k, v in book.items()}
    states = [list(k) for k in book] + [s for s in random_states()[:60]
                                        if tuple(s) not in plain]
    return [Case(f"book_move(state, book={short(book, 60)})", (list(s), book),
                 draw(list(s)), ref.book_move(list(s), book)) for s in states]


def test_book_move(student, blame):
    """book_move answers from the book (a new list) and None for other positions"""
    compared(student, blame, "book_move", book_cases(),
             summary=_("book_move gave the wrong answer"),
        hint=_("the book maps tuple(state) to the state after the book move; "
               "None for a position the book does not have"))
    chosen = [case for case in book_cases() if case.expected is not None]
    with blame.judging("book_move", _("on a position of the book")):
        check_all(_("book_move returned the book's own list"), chosen,
                  student.run([new_list_plan(*case.args) for case in chosen]), search.changed_book,
                  hint=_("return a new list (list(successor)): whoever changes the move "
                         "returned must not change the book"))


def new_list_plan(state, book) -> Plan:
    """"Returns a new list, never the book's own": book_move asked again (search.asked_again)."""
    plan = Plan("book_move")
    return search.asked_again(plan, M + "book_move", list(state), plan.value(book))


#: Connect 4 is solved (Allen, Allis 1988): from the empty board only the centre
#: column wins for x; after it every answer of o keeps the (lost) value.
KNOWN_BOOK_VALUES = {(): {3}, (38,): set(range(7))}
SOLVABLE_STONES = 20
BOOK_ENTRIES_CHECKED = 200


def read_book(student):
    """The student's OPENING_BOOK as [(key, successor)], or a CheckFailed."""
    plan = Plan("OPENING_BOOK")
    [outcome] = student.run([plan.returns(plan.get(M + "OPENING_BOOK"))])
    require(outcome)
    if not outcome.answered or type(outcome.value) is not dict or not outcome.value:
        raise CheckFailed(_("OPENING_BOOK could not be read (or is empty)"),
                          got=describe(outcome))
    return list(outcome.value.items())[:BOOK_ENTRIES_CHECKED]


def test_opening_book_is_sound(student, blame):
    """every entry of OPENING_BOOK is a legal move that keeps the game value"""
    entries = read_book(student)
    for key, successor in entries:
        call = f"OPENING_BOOK[{short(key, 80)}] = {short(successor, 90)}"
        if type(key) is not tuple or type(successor) is not list \
                or any(type(c) is not int for c in key + tuple(successor)):
            raise CheckFailed(_("a book entry is not a tuple of cells -> list of cells"),
                              call=call)
        key = list(key)
        try:
            position = solver.Position.from_cells(key)
        except ValueError as error:
            raise CheckFailed(_("a book entry is for a position that cannot occur"), call=call,
                              problem=str(error)) from None
        if successor not in ref.nextstates(key):
            raise CheckFailed(_("a book move is not a legal move from its position"),
                              call=call, position=draw(key))
        column = successor[-1] % 7
        if tuple(key) in KNOWN_BOOK_VALUES:
            keeps = column in KNOWN_BOOK_VALUES[tuple(key)]
        elif len(key) >= SOLVABLE_STONES:
            keeps = position.is_winning_move(column) or \
                judge_solver().keeps_value(position, column, weak=True)
        else:
            raise CheckFailed(_("the grader cannot verify this book entry"), call=call,
                              position=draw(key),
                              hint=_("book entries may only be for the empty board, [38], "
                                     "or positions with at least {stones} stones").format(
                                  stones=SOLVABLE_STONES))
        if not keeps:
            raise CheckFailed(_("a book move throws away the game value"), call=call,
                              position=draw(key), hint=_("the solver knows a better move"))
    compared(student, blame, "book_move", [Case("book_move(state)", (list(key),), draw(key),
                                                successor) for key, successor in entries],
             summary=_("book_move does not answer from OPENING_BOOK"),
             scope=_("on a position of OPENING_BOOK"))


# ------------------------------------------------------------------ the player
#: What the player (computer_move) uses, played by the grader: a tactics check
#: judges the search the player makes.
PLAYER_PLAYS = {M + name: getattr(ref, name) for name in (
    "nextstates", "terminal_test", "evaluation", "book_move", "centre_first")}


def grader_order(play) -> dict:
    """`order=` the grader's centre_first when `play`, else nothing (the default, the
    student's own centre_first, bound when the student's function is defined)."""
    return {"order": Callback(ref.centre_first)} if play else {}


def _tactic_check(student, blame, kind, summary):
    chosen = [Case("computer_move(state, 3)", (t["state"], set(t["keep"])), draw(t["state"]),
                   _("a move in column {columns}").format(
                       columns=_(" or ").join(map(str, t["keep"]))))
              for t in tactics()[kind]]

    def judge(case, outcome, game):
        (state, keep), got = case.args, outcome.value
        if type(got) is not list or got not in ref.nextstates(state):
            return _("returned {value}, not a successor of the state").format(value=short(got))
        if got[-1] % 7 not in keep:
            return _("played column {column}, which throws away the game value").format(
                column=got[-1] % 7)
        return None

    def attempt(play, handouts):
        # with the grader's rules (a RealGame's: it logs the search for the picture)
        # and order (passed: computer_move's default is bound when it is defined)
        def job(case):
            game = RealGame([tuple(case.args[0])])
            rules = play and {**play, M + "nextstates": played_as("nextstates", game.nextstates),
                              M + "evaluation": played_as("evaluation", game.evaluation)}
            return call_plan("computer_move", M + "computer_move", list(case.args[0]), 3,
                             play=rules, skip=(M + "centre_first",), **grader_order(play)), game
        search.check_jobs(student, summary, chosen, job, judge, hint=_(
            "computer_move searches with maximize/minimize") + (" " + _(
                "(the grader's rules, evaluation and centre_first here)") if play else ""),
            picture=play and (lambda case, outcome, game: move_picture(case.args[0], game)))
    on_its_own(student, blame, SEARCH, _("on a position"), attempt, PLAYER_PLAYS,
               calls_named=("computer_move",))


def move_picture(state, game: RealGame, bremse: int = 3) -> dict:
    """The player's search on real rules beside the reference's computer_move."""
    return search.game_picture(game, reference_move(tuple(state), bremse).log, tuple(state),
                               max_to_move=len(state) % 2 == 0)


def test_tactics_win_in_1(student, blame):
    """the player (computer_move, Bremse 3) takes a win that is there"""
    _tactic_check(student, blame, "win1", _("the player missed a win"))


def test_tactics_forced_block(student, blame):
    """the player (computer_move, Bremse 3) blocks the opponent's four"""
    _tactic_check(student, blame, "block", _("the player did not block"))


def test_tactics_win_in_3(student, blame):
    """the player (computer_move, Bremse 3) finds a forced win three moves deep"""
    _tactic_check(student, blame, "win3", _("the player missed a forced win"))


# ------------------------------------------------------------------ iterative deepening
@functools.cache
def game_value(salt, state, bremse):
    """The depth-limited value of `state` in the game `salt` (the reference)."""
    game = SubsetGame(salt, [state])
    with games.reference_on(game):
        return ref.search(list(state), bremse, game.evaluation)[1]


#: What iterative deepening's checks play: the game's nextstates and evaluation, and
#: (judged again) the grader's centre_first, passed as `order`. Its search and
#: terminal_test are the student's: they are handed the deepening's own timed evaluation.
DEEPENING_PLAYS = {M + "nextstates": None, M + "evaluation": None, M + "centre_first": None}
#: The plan of a deepening on the real clock (named to the student when it is skipped).
REAL_CLOCK = N_("iterative_deepening on the real clock")


def deepening_calls() -> tuple[str, str]:
    """The names of iterative deepening's plans (a timeout in one skips the rest)."""
    return "iterative_deepening", _(REAL_CLOCK)


@functools.cache
def reference_deepening(salt, state, most=None, budget=10 ** 9) -> search.Expected:
    """The reference's deepening on the game `salt` up to max_bremse `most`, on the
    game's virtual clock with `budget` (by default all the time it needs): its
    (best, value, depth), its game's log and its evaluations."""
    game = SubsetGame(salt, [state])
    with games.reference_on(game):
        found = ref.iterative_deepening(list(state), budget, game.evaluation,
                                        clock=games.virtual_clock(game), max_bremse=most)
    return search.Expected(found, list(game.log), {"evaluations": game.evaluations})


def deepening_picture(salt, state, game, depth, outcome, **rule) -> dict:
    """The student's search of depth `depth` beside the rule's (`reference_deepening`
    with the options `rule`), each cut from its whole deepening; at the root, the
    value each returned."""
    want, got = reference_deepening(salt, state, **rule), outcome.value
    value = got[1] if type(got) in (tuple, list) and len(got) == 3 else None
    return search.iteration_picture(game, want.log, tuple(state), depth,
                                    rule_result=want.result[1],
                                    student_result=value if type(value) in (int, float)
                                    else None, max_to_move=len(state) % 2 == 0)


def deepening_plan(salt, state, budget, calls, play=None, virtual=False, **options):
    """The student's deepening on the game `salt` (where the reference makes
    `calls` game calls), on the grader's virtual clock if `virtual`; returns
    (plan, game)."""
    game = SubsetGame(salt, [state], search.calls_allowed(calls))
    clock = {"clock": Callback(played_as("clock", games.virtual_clock(game)))} if virtual \
        else {}
    return call_plan("iterative_deepening", M + "iterative_deepening", list(state), budget,
                     play={M + "nextstates": played_as("nextstates", game.nextstates)},
                     evaluation=Callback(played_as("evaluation", game.evaluation)), **clock,
                     **grader_order(play), **options), game


def _deepening_judge(case, outcome):
    salt, state = case.args[0], case.args[1]
    got = outcome.value
    if type(got) not in (tuple, list) or len(got) != 3:
        return _("returned {value}, not (best_state, value, bremse)").format(value=short(got))
    best, value, depth = got
    if type(depth) is not int or not 1 <= depth <= 42:
        return _("returned the depth {depth}").format(depth=short(depth))
    if best not in SubsetGame(salt).children(tuple(state)):
        return (_("returned {value}, not one of the successors the game offers here").format(
                    value=short(best)), _(GAME_HINT))
    if value != game_value(salt, tuple(state), depth):
        return (_("returned the value {value} for depth {depth}").format(value=short(value),
                                                                         depth=depth),
                _(GAME_HINT))
    if game_value(salt, tuple(best), depth - 1) != value:
        return _("returned {value}: that move does not reach the depth-{depth} value").format(
            value=short(best), depth=depth)
    return None


@functools.cache
def deepening_cases():
    """max_bremse 3 on every position; 1 and 0 on two of them (the depth-1 search
    always finishes, so both stop after it)."""
    cases = []
    states = midgame_states(8, 21, 8, 26) + as_tuples(t["state"] for t in tactics()["win3"][6:])
    for index, state in enumerate(states):
        salt = 900 + index
        for most in (3,) + ((1, 0) if index < 2 else ()):
            want = reference_deepening(salt, state, most)
            _best, value, depth = want.result
            cases.append(Case(f"iterative_deepening(state, 60, evaluation, max_bremse={most})",
                              (salt, state, depth, most, len(want.log)),
                              Later(Search(state, 1, salt).drawing),
                              Later.words(N_("the depth-{depth} value {value}"),
                                          depth=depth, value=value)))
    return cases


def test_iterative_deepening_matches_fixed_depth(student, blame):
    """iterative_deepening with max_bremse 3 plays as well as the depth-3 search"""
    chosen = deepening_cases()

    def judge(case, outcome, game):
        problem = _deepening_judge(case, outcome)
        if problem:
            return problem
        want, most = case.args[2], case.args[3]
        if outcome.value[2] != want:
            return _("stopped at depth {depth}; with time to spare and max_bremse={most} it "
                     "should reach depth {want} (it may stop early only for a decided "
                     "game)").format(depth=outcome.value[2], most=most, want=want)
        return best_first_reason(case.args[0], case.args[1], game)

    def attempt(play, handouts):
        # drawn: the deepest search the rule finishes, the student's of that depth
        search.check_jobs(student, _("iterative deepening did not match the fixed-depth "
                                     "search"), chosen, lambda case: deepening_plan(
                              *case.args[:2], 60.0, case.args[4], play, max_bremse=case.args[3]),
                          judge, found=handouts, show=Show.PLAN,
                          picture=lambda case, outcome, game: deepening_picture(
                              *case.args[:2], game, case.args[2], outcome,
                              most=case.args[3]))
    on_its_own(student, blame, "iterative_deepening", _("on a position of the grader's game"),
               attempt, DEEPENING_PLAYS, deepening_calls())


def best_first_reason(salt, state, game) -> tuple[str, str] | None:
    """"The best child of the previous depth is searched first at the root", judged
    from the game's log: each search after the first starts at the root (its
    nextstates) and searches one child first; that child must be a best one of the
    previous depth (any of equal value: ties are the search's order to break)."""
    root = tuple(state)
    for depth, calls in enumerate(search.iterations(game.log, root), 1):
        first = next((key for _kind, key in calls if len(key) == len(root) + 1), None)
        if depth == 1 or first is None:
            continue
        best = game_value(salt, root, depth - 1)
        if game_value(salt, first, depth - 2) != best:
            return (_("the search of depth {depth} began at the root with {child}, which the "
                      "search of depth {previous} valued {value}, not {best}").format(
                        depth=depth, child=list(first), previous=depth - 1,
                        value=game_value(salt, first, depth - 2), best=best),
                    _("search the best child of the previous depth first at the root"))
    return None


@functools.cache
def virtual_budget_cases():
    """Budgets on the virtual clock that run out halfway through the search of
    depth d + 1 (d = 2, 3), so the deepest finished search is the one of depth d
    even for a search whose counts differ a little from the handout's."""
    cases = []
    for index, state in enumerate(midgame_states(4, 25, 8, 20)):
        salt, depth = 960 + index, 2 + index % 2
        done, after = (reference_deepening(salt, state, d) for d in (depth, depth + 1))
        ticks = (done.stats["evaluations"] + after.stats["evaluations"]) // 2
        budget = round((ticks + 0.5) * TICK, 4)
        cases.append(Case(f"iterative_deepening(state, {budget}, evaluation, clock=clock)",
                          (salt, state, budget, depth, ticks + 1, len(after.log)),
                          Later(_clock_drawn, state),
                          Later.words(N_("the depth-{depth} result, and no evaluation "
                                         "after the clock says {budget} s"),
                                      depth=depth, budget=budget)))
    return cases


def _clock_drawn(state):
    return f"{draw(state)}\n" + _("(clock is the grader's: it advances {tick} s with every "
                                   "call of evaluation)").format(tick=TICK)


#: (budget on the real clock, max_bremse, is the depth judged?)
REAL_BUDGETS = ((0.0, None, True), (0.2, None, False), (5.0, 2, True))


@functools.cache
def real_budget_cases():
    """The default clock (the real one), with the grader's nextstates and order and the
    student's own evaluation, judged so that the machine's load cannot change the
    verdict: a call may use only CPU time of the child (a search that stops when the
    wall clock says so has used no more), and the depths judged are those a correct
    search reaches whatever the load (1 with no budget, 2 when max_bremse stops it)."""
    cases = []
    for state in midgame_states(2, 23, 8, 14):
        for budget, most, judged in REAL_BUDGETS:
            # the depth where the budget never runs out first (a clock that stands still)
            depth = ref.iterative_deepening(list(state), budget, clock=lambda: 0.0,
                                            max_bremse=most)[2] if judged else None
            cases.append(Case(f"iterative_deepening(state, {budget}"
                              + (f", max_bremse={most})" if most else ")"),
                              (state, budget, most, depth), draw(state),
                              Later.words(N_("an answer within {budget} s from the "
                                             "depth-{depth} search") if depth else
                                          N_("an answer within {budget} s"),
                                          budget=budget, depth=depth)))
    return cases


def real_cpu_limit(budget, scale):
    """CPU seconds a search with this budget on the real clock may use."""
    return budget + (0.15 + 0.25 * budget) * scale


def real_plan(state, budget, most, scale, play=None):
    """The student's deepening on the real clock, on the student's own rules, or
    (`play`) with the grader's nextstates and order; the evaluation and the search
    are the student's."""
    options = {"max_bremse": most} if most else {}
    return call_plan(_(REAL_CLOCK), M + "iterative_deepening",
                     list(state), budget, play=play and {M + "nextstates": ref.nextstates},
                     timeout=real_cpu_limit(min(budget, 0.2), scale) if most is None else None,
                     **grader_order(play), **options)


def test_iterative_deepening_respects_the_budget(student, blame):
    """iterative_deepening answers within its time budget with a finished search"""
    hint = _("check the clock you are given before every evaluation, also inside the "
             "search, and give up a search that runs out of time: return the deepest "
             "result that finished")
    chosen = virtual_budget_cases()

    def judge_virtual(case, outcome, game):
        problem = _deepening_judge(case, outcome)
        if problem:
            return problem
        budget, depth, allowed = case.args[2:5]
        used = game.evaluations
        if used > allowed:
            return _("called evaluation {used} times; the clock passed {budget} s after "
                     "{allowed} calls, and the search should have stopped there").format(
                used=used, budget=budget, allowed=allowed)
        if outcome.value[2] != depth:
            return _("returned the result of depth {depth}").format(depth=outcome.value[2])
        return None

    def virtual(play, handouts):
        # drawn: the search the budget stops (depth + 1), the rule's beside the student's
        search.check_jobs(
            student, _("iterative deepening did not stop when the clock said the budget was "
                       "used"), chosen, lambda case: deepening_plan(
                           *case.args[:3], case.args[5], play, virtual=True),
            judge_virtual, hint, found=handouts, show=Show.PLAN,
            picture=lambda case, outcome, game: deepening_picture(
                *case.args[:2], game, case.args[3] + 1, outcome, budget=case.args[2]))
    on_its_own(student, blame, "iterative_deepening", _("on a position of the grader's game"),
               virtual, DEEPENING_PLAYS, deepening_calls())

    scale = student.timeouts.call / 2.0
    real_cases = real_budget_cases()

    def judge_real(case, outcome):
        (state, budget, _most, depth), got = case.args, outcome.value
        if type(got) not in (tuple, list) or len(got) != 3:
            return _("returned {value}, not (best_state, value, bremse)").format(
                value=short(got))
        if got[0] not in ref.nextstates(list(state)):
            return _("returned {value}, not a successor of the state").format(
                value=short(got[0]))
        if type(got[2]) is not int:
            return _("returned the depth {depth}").format(depth=short(got[2]))
        if depth is not None and got[2] != depth:
            return _("returned the result of depth {got}; with a budget of {budget} s on the "
                     "real clock it should be depth {depth}").format(got=got[2], budget=budget,
                                                                     depth=depth)
        return None

    def real(play, handouts):       # no picture: no game of the grader's logs the search
        outcomes = student.run([real_plan(*case.args[:3], scale, play)
                                for case in real_cases])
        check_all(_("iterative deepening did not keep to its time budget"), real_cases,
                  outcomes, judge_real, show=Show.PLAN, hint=hint + "; " + _(
                      "without a clock argument, clock is the real one (time.monotonic), in "
                      "seconds: a search that keeps to a budget of 0.2 s uses at most "
                      "{seconds:.2f} s of CPU time").format(seconds=real_cpu_limit(0.2, scale)))
    on_its_own(student, blame, "iterative_deepening", _("on a position"), real,
               {M + "nextstates": None, M + "centre_first": None}, deepening_calls())


# ------------------------------------------------------------------ evaluations playing
@dataclass(frozen=True)
class Weighted:
    """An evaluation function of the grader's: pattern_score with these weights."""
    weights: tuple

    def __call__(self, state):
        return ref.pattern_score(ref.getBoard(list(state)), self.weights)


#: The evaluations the games are played with: weights a student cannot guess.
PLAYERS = {"A": Weighted((5, 30, 500)), "B": Weighted((5, 10, 50)),
           "C": Weighted((1, 7, 100))}


#: (opening, Bremse, x's weights, o's weights): two short games from the start, and
#: two from the middle game at Bremse 2, one of them drawn (short, to save calls).
GAMES = (((38,), 1, "A", "B"), ((35, 36), 1, "C", "A"),
         ((39, 32, 37, 36, 30, 23, 40, 25, 35, 16, 33, 9, 2, 29, 28, 41, 22, 34, 27), 2, "A",
          "C"),
         ((38, 37, 36, 35, 41, 31, 30, 29, 24, 39, 34, 22, 32, 17, 10, 40), 2, "B", "A"))


@functools.cache
def game_cases():
    cases = []
    for opening, bremse, x, o in GAMES:
        state, result = ref.play_game(PLAYERS[x], PLAYERS[o], bremse, opening)
        call = (f"play_game(evaluation_x, evaluation_o, {bremse}, {list(opening)}, "
                "centre_first)")
        cases.append(Case(Later.words(N_("{call} with weights {x} for x, {o} for o"),
                                      call=call, x=PLAYERS[x].weights, o=PLAYERS[o].weights),
                          (x, o, bremse, list(opening)), draw(list(opening)), [state, result]))
    return cases


def game_rules(legal: Legal, *names) -> dict:
    """The reference's `names` (the rules, the search, play_game), each answering
    only within `legal`; `evaluation` is the handout's (four in a row decides)."""
    return {M + name: within(name, legal.check, at="opening" if name == "play_game" else "state")
            for name in names}


#: What play_game's check plays: the rules, the search and the module's evaluation
#: (the evaluations of x and o are the check's own, the order is passed as `order`).
GAME_PLAYS = ("nextstates", "terminal_test", "evaluation", "maximize", "minimize")


def test_play_game(student, blame):
    """play_game lets two evaluation functions play a whole game"""
    def job(x, o, bremse, opening):
        legal = Legal([opening])
        return call_plan("play_game", M + "play_game",
                         Callback(within("evaluation", legal.check, PLAYERS[x])),
                         Callback(within("evaluation", legal.check, PLAYERS[o])), bremse, opening,
                         Callback(ref.centre_first), play=game_rules(legal, *GAME_PLAYS)), legal
    chosen = game_cases()

    def judge(case, outcome):
        got = outcome.value
        if type(got) not in (tuple, list) or len(got) != 2:
            return _("returned {value}, not (state, result)").format(value=short(got))
        if [got[0], got[1]] != case.expected:
            return returned(got)
        return None
    outcomes = search.run_jobs(student, (job(*case.args) for case in chosen))
    with blame.judging("play_game", _("for a game"),
                       dict.fromkeys(M + name for name in (*GAME_PLAYS, "centre_first"))):
        check_all(_("play_game played a different game"), chosen, outcomes, judge,
                  show=Show.PLAN, hint=_("x searches with evaluation_x, o with evaluation_o, "
                                         "both with the order play_game is given (here the "
                                         "grader's centre_first)"))


TOURNAMENT_NAMES = ("north", "south")
#: Weights that make a lopsided table (3 wins to 1, and 2 draws): a table that swaps
#: wins and losses, or scores a draw as a loss, is caught.
TOURNAMENT_PLAYERS = (PLAYERS["A"], PLAYERS["C"])


@functools.cache
def tournament_openings():
    """Two ordinary openings and one near the end of a drawn game, so the table
    must count wins, losses and draws (the first prefix of a drawn full board
    from which a game of this tournament is drawn)."""
    openings = [[38], [36]]
    for state in drawn_states():
        for cut in range(36, 24, -2):
            prefix = list(state[:cut])
            result = ref.tournament(*TOURNAMENT_PLAYERS, [prefix], 1, TOURNAMENT_NAMES)
            if any(game["winner"] is None for game in result["games"]):
                return openings + [prefix]
    raise AssertionError("no drawn opening found")


@functools.cache
def expected_tournament():
    return ref.tournament(*TOURNAMENT_PLAYERS, tournament_openings(), 1, TOURNAMENT_NAMES)


#: What tournament's check plays: play_game (and what it calls) by the grader.
TOURNAMENT_PLAYS = ("play_game",) + GAME_PLAYS


def test_tournament(student, blame):
    """tournament plays every opening twice, colours swapped, and keeps the table (wins, draws, losses)"""
    openings, want = tournament_openings(), expected_tournament()
    legal = Legal(openings)
    call = _("{call} with weights {a} for a and {b} for b").format(
        call=f"tournament(evaluation_a, evaluation_b, {short(openings, 60)}, 1, "
             f"{list(TOURNAMENT_NAMES)}, centre_first)",
        a=TOURNAMENT_PLAYERS[0].weights, b=TOURNAMENT_PLAYERS[1].weights)
    with blame.judging("tournament", _("for its games"), blame.helpers("tournament")):
        [outcome] = student.run([call_plan(
            "tournament", M + "tournament",
            *(Callback(within("evaluation", legal.check, player))
              for player in TOURNAMENT_PLAYERS), openings, 1,
            list(TOURNAMENT_NAMES), Callback(ref.centre_first),
            play=game_rules(legal, *TOURNAMENT_PLAYS))])
        outcome = refused(outcome, legal.handout)
        require(outcome)
        got = outcome.value
        if not outcome.answered or type(got) is not dict:
            raise CheckFailed(_("tournament did not return a result"), call=call,
                              got=describe(outcome))
        if got.get("games") != want["games"]:
            raise CheckFailed(_("tournament's list of games is wrong"), call=call,
                              got=short(got.get("games"), 300), expected=short(want["games"]))
        if got.get("table") != want["table"]:
            raise CheckFailed(_("tournament's table is wrong"), call=call,
                              got=short(got.get("table")), expected=want["table"],
                              hint=_("a win is 1 point and a draw 1/2 for each player; one of "
                                     "these games is drawn"))


# ------------------------------------------------------------------ strength
def _random(state, rng):
    return rng.choice(ref.nextstates(state))


def _greedy(state, rng):
    sign = 1 if ref.x_to_move(state) else -1
    children = ref.centre_first(ref.nextstates(state))
    return max(children, key=lambda c: sign * ref.evaluation(c))


def _shallow(state, rng):
    return ref.search(state, 2, ref.evaluation, None, ref.centre_first)[0]


#: (name, player): the names of the bundled players (make duel's) stay as they are; the
#: third is a description, said in the course's language.
OPPONENTS = (("random", _random), ("greedy", _greedy),
             (N_("seed evaluation, Bremse 2"), _shallow))
STUDENT_BREMSE = 3
#: Points of 6 the player needs; the reference scores 5.
NEEDED = 4


def play_against(student, opponent, opening, student_is_x):
    """One game; returns (points for the student, final state, a problem or None)."""
    state, rng = list(opening), random.Random(5)
    while not ref.terminal_test(state):
        if ref.x_to_move(state) == student_is_x:
            outcome = student.call(M + "iterative_deepening", state, 30.0,
                                   max_bremse=STUDENT_BREMSE)
            require(outcome)
            got = outcome.value if outcome.answered else None
            # (best_state, value, bremse): a triple, a tuple or a list (as the other checks)
            if type(got) not in (tuple, list) or len(got) != 3 or \
                    got[0] not in ref.nextstates(state):
                return 0.0, state, f"iterative_deepening {describe(outcome)}"
            state = list(got[0])
        else:
            state = list(opponent(state, rng))
    value = ref.evaluation(state)
    if abs(value) < WIN:
        return 0.5, state, None
    return (1.0 if (value > 0) == student_is_x else 0.0), state, None


def test_strength(student, blame):
    """your whole program: the timed player (iterative_deepening, your own helpers) beats random, greedy and shallow opponents"""
    # No picture: the games are played with the student's own rules and evaluation,
    # in the child, so the grader sees the moves, never a call of the search.
    rng, results = random.Random(31), []
    openings = [playout(rng, 2) for _ in OPPONENTS]
    with blame.judging("iterative_deepening", _("for a move")):
        for (name, opponent), opening in zip(OPPONENTS, openings):
            for student_is_x in (True, False):
                points, state, problem = play_against(student, opponent, opening, student_is_x)
                colour = "x" if student_is_x else "o"
                if problem:
                    raise CheckFailed(_("the player made an illegal move"), position=draw(state),
                                      call=_("game against {opponent}, you play {colour}").format(
                                          opponent=_(name), colour=colour),
                                      got=problem)
                results.append((name, colour, points, state))
        total = sum(points for _name, _colour, points, _state in results)
        lost = [(n, c, s) for n, c, p, s in results if p == 0.0]
        weak_spot = [r for r in lost if r[0] == "random"]
        if weak_spot or total < NEEDED:
            name, colour, state = (weak_spot or lost)[0]
            raise CheckFailed(_("the player scored {points:g} of {total} points (it needs "
                                "every game against random and at least {needed} in "
                                "all)").format(points=total, total=len(results), needed=NEEDED),
                              call=_("{call} as {colour} against {opponent}").format(
                                  call=f"iterative_deepening(state, 30, "
                                       f"max_bremse={STUDENT_BREMSE})",
                                  colour=colour, opponent=_(name)),
                              position=draw(state), hint=_("this game was lost"))

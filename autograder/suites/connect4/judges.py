"""What connect4's checks say about a wrong answer, in the handout's words: which
of the 25 lines `lines` got wrong, and how a search's visits, expansions and
counts differ from alpha-beta's on one of the grader's games (games.SubsetGame).
Game knowledge only; the checks are in test_hidden.py. Every sentence is the
grader's (autograder/i18n.py, the `grader` domain), said in the course's language
when a failure is worded; a case's drawing and expected text are `Later`s, since
the cases are built once per worker."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from autograder.grading.checks import Case, Later, played_plan, short
from autograder.grading.reference import load_reference
from autograder.grading.student import Callback, Plan
from autograder.i18n import N_, grader_plural as ngettext, grader_text as _
from autograder.suites.connect4 import games
from autograder.suites.connect4.games import (Rotation, SubsetGame, View, Within, played_as,
                                              reference_search)
from autograder.suites.connect4.positions import draw

ref = load_reference("connect4", "connect4")
M = "connect4."
INF = math.inf


STAT_NAMES = ("nodes", "expanded", "evaluations", "prunings")


GAME_HINT = N_("this check gives your search a game of the grader's: its own nextstates "
               "(fewer moves, another order) and its own evaluation; look up nextstates in "
               "the module and use the evaluation argument when the search runs")


# The lines by kind, in the handout's order: (kind, the numbers that tell the lines of
# the kind apart: rows and columns by number, diagonals by the cell they start at).
LINE_KINDS = (("rows", tuple(range(6))),
              ("columns", tuple(range(7))),
              ("down-right", (14, 7, 0, 1, 2, 3)),
              ("down-left", (3, 4, 5, 6, 13, 20)))


#: (kind, number) of each of the 25 lines, in the handout's order.
LINE_NAMES = [(kind, start) for kind, starts in LINE_KINDS for start in starts]


def _whole_kind(kind, starts):
    """All lines of a kind, in words ("all 6 rows (rows 0, 1, 2, 3, 4, 5)")."""
    words = {"rows": N_("all {count} rows (rows {numbers})"),
             "columns": N_("all {count} columns (columns {numbers})"),
             "down-right": N_("all {count} diagonals running down to the right (starting at "
                              "cells {numbers})"),
             "down-left": N_("all {count} diagonals running down to the left (starting at "
                             "cells {numbers})")}
    return _(words[kind]).format(count=len(starts), numbers=", ".join(map(str, starts)))


#: A board whose every cell holds a different character: each line returned
#: for it says exactly which cells it read, in which order.
LABELS = "0123456789abcdefghijklmnopqrstuvwxyzABCDEF"


def _cells_of(text):
    return ", ".join(str(LABELS.index(ch)) if ch in LABELS else repr(ch) for ch in text)


def _missing_lines(missing, want):
    """The missing lines in words, a whole kind at once where all of it is missing."""
    notes = []
    for kind, starts in LINE_KINDS:
        gone = [i for i in missing if LINE_NAMES[i][0] == kind]
        if len(gone) == len(starts):
            notes.append(_whole_kind(kind, starts))
        else:
            notes += [_("{line} (cells {cells})").format(line=_one_line(i),
                                                         cells=_cells_of(want[i]))
                      for i in gone]
    return notes


def _one_line(index):
    kind, number = LINE_NAMES[index]
    words = {"rows": N_("row {number}"), "columns": N_("column {number}"),
             "down-right": N_("the diagonal running down to the right starting at cell "
                              "{number}"),
             "down-left": N_("the diagonal running down to the left starting at cell {number}")}
    return _(words[kind]).format(number=number)


def lines_difference(got):
    """Which of the 25 lines `got` (lines of the labelled board) has, misses or
    misplaces, in words; None if it is right."""
    want = ref.lines(list(LABELS))
    if type(got) is not list or any(type(line) is not str for line in got):
        return None
    if got == want:
        return None
    present = [i for i, line in enumerate(want) if line in got]
    notes = [_("{count} of the 25 lines are there").format(count=len(present))
             + (" " + _("({count} returned)").format(count=len(got))
                if len(got) != len(want) else "")]
    missing = [i for i in range(len(want)) if i not in present]
    turned = [i for i in missing if want[i][::-1] in got]
    gone = [i for i in missing if i not in turned]
    if gone:
        notes.append(_("missing: {lines}").format(lines="; ".join(_missing_lines(gone, want))))
    for i in turned[:3]:
        notes.append(_("{line} is read from the wrong end").format(line=_one_line(i)))
    strangers = [line for line in got if line not in want and line[::-1] not in want]
    for line in strangers[:2]:
        notes.append(_("not one of the 25: a line of the cells {cells}").format(
            cells=_cells_of(line)))
    if not missing and not strangers:
        moved = next(i for i, line in enumerate(want) if i >= len(got) or got[i] != line)
        notes.append(_("all there, but not in the handout's order: line {number} should be "
                       "{line}").format(number=moved, line=_one_line(moved)))
    return "; ".join(notes)


# ------------------------------------------------------------------ the search
@dataclass(frozen=True)
class Search:
    """One search of a technique check: maximize/minimize (whoever moves) from
    `state` with Bremse `bremse`, full window, on the grader's game `salt`;
    `rotate` passes an order function of ours (the children rotated by one);
    `stats` passes a SearchStats and judges its counts."""
    state: tuple
    bremse: int
    salt: int
    rotate: bool = False
    stats: bool = True

    @property
    def who(self):
        return "maximize" if len(self.state) % 2 == 0 else "minimize"

    def call(self):
        extra = (", stats" if self.stats else "") + (", order" if self.rotate else "")
        return f"{self.who}(state, -inf, inf, bremse={self.bremse}, evaluation{extra})"


@functools.cache
def expected_search(search: Search) -> games.Expected:
    return reference_search(search.salt, search.state, search.bremse,
                            Rotation() if search.rotate else None)


def game_note(search: Search) -> str:
    """What the drawing of a search's position cannot show: the game's rules there."""
    if len(search.state) == games.CELLS:
        return _("(the board is full: the game is over)")
    if games.real_value(search.state):
        return _("(four in a row: the game is over)")
    columns = [cell % 7 for cell in SubsetGame(search.salt).moves(search.state)]
    return _("(in this check's game the player to move may play only the columns {columns} "
             "here, in that order, and positions are worth numbers of the grader's)").format(
        columns=", ".join(map(str, columns)))


def drawn_search(search: Search) -> Later:
    """A search's position drawn with its game's note, in the language of the moment."""
    return Later(_search_drawn, search)


def _search_drawn(search: Search) -> str:
    return f"{draw(search.state)}\n{game_note(search)}"


def _wanted(search: Search, want: games.Expected) -> str:
    if search.stats:
        return _("the value {value} and the counts {counts}").format(value=want.value,
                                                                     counts=want.stats)
    return _("the value {value} and a successor that reaches it").format(value=want.value)


def search_cases(searches) -> list[Case]:
    """A technique check's cases: each search drawn with its game's note, expected
    in words (the value, and the counts where they are judged)."""
    cases = []
    for search in searches:
        want = expected_search(search)
        cases.append(Case(search.call(), (search,), drawn_search(search),
                          Later(_wanted, search, want)))
    return cases


def game_plays(game) -> dict:
    """What the grader plays in a search on `game` (patched for the plan): the
    game's nextstates and the handout's terminal_test (the evaluation passed in
    says at least WIN or at most -WIN, or all 42 cells are taken), asked only
    about positions the game handed out. The search's evaluation comes back as
    the grader's own, so its calls are logged as the reference's are."""
    return {M + "nextstates": played_as("nextstates", game.nextstates),
            M + "terminal_test": Within("terminal_test", functools.partial(games.handed,
                                                                           game.handout),
                                        game.terminal_test)}


def search_plan(search: Search) -> tuple[Plan, SubsetGame]:
    """The student's search on a game of its own, answering a few times the calls the
    reference makes: nextstates and terminal_test patched for the plan (the handout's
    terminal_test on the game, recording where it was asked), the evaluation (and the
    order) passed as callbacks; nothing else of ours. Returns (plan, game)."""
    game = SubsetGame(search.salt, [search.state],
                      games.calls_allowed(expected_search(search).calls))
    plan = played_plan(search.who, game_plays(game))
    stats = plan.call(M + "SearchStats") if search.stats else None
    order = Callback(played_as("order", Rotation())) if search.rotate else None
    found = plan.call(M + search.who, list(search.state), -INF, INF, search.bremse,
                      Callback(played_as("evaluation", game.evaluation)), stats, order)
    result = {"found": found}
    if search.stats:
        result["stats"] = {name: plan.get(stats.attr(name), default=None)
                           for name in STAT_NAMES}
    return plan.returns(result), game


def bypass_note(log, search: Search):
    """Why a search looks as if it searched another game than the one given. (A
    search that reaches a position the game never offered is refused at its first
    question about it, see games.SubsetGame: the log holds handed-out positions only.)"""
    view = View.of(log)
    if not view.visits:
        return _("the search never called the evaluation it was given nor nextstates; "
                 "{hint}").format(hint=_(GAME_HINT))
    if not any(kind == "e" for kind, _key in log):
        return _("the search never called the evaluation it was given; {hint}").format(
            hint=_(GAME_HINT))
    return None


def _found(outcome):
    """(best, value) the search returned, or a reason it is not that."""
    result = outcome.value if type(outcome.value) is dict else {}
    found = result.get("found")
    if type(found) not in (tuple, list) or len(found) != 2:
        return None, _("returned {value}, not (best_state, value)").format(value=short(found))
    best, value = found
    if type(value) not in (int, float):
        return None, _("returned the value {value}, not a number").format(value=short(value))
    return (best, value), None


def judge_value(search: Search, outcome, game: SubsetGame):
    found, problem = _found(outcome)
    if problem:
        return problem
    best, value = found
    want = expected_search(search)
    shown = _("returned {value}").format(value=f"({short(best, 80)}, {short(value)})")
    if value != want.value:
        return shown, bypass_note(game.log, search)
    if want.best is None:
        return None if best is None else (shown, _("no successor expected at this position"))
    if best not in [list(child) for child in want.good]:
        if best not in game.children(search.state):
            return shown, _("that is not one of the successors the game offers here")
        return shown, _("that successor does not reach the value")
    return None


def below(key, search):
    """Where `key` is in the search tree, in words."""
    depth = len(key) - len(search.state)
    return _("at the root") if depth == 0 else \
        ngettext("{count} move below the root", "{count} moves below the root",
                 depth).format(count=depth)


def view_difference(log, want: View, search: Search):
    """How the positions the search visited and expanded differ from the
    handout's, in words."""
    got = View.of(log)
    stranger = bypass_note(log, search)
    if stranger:
        return stranger
    summary = _("the search visited {visits} positions and expanded {expanded}").format(
        visits=len(got.visits), expanded=len(got.expanded))
    same = 0
    for mine, theirs in zip(got.visits, want.visits):
        if mine != theirs:
            break
        same += 1
    if same < len(got.visits) and same < len(want.visits):
        key = got.visits[same]
        where = f"{list(key)} ({below(key, search)})"
        if key in set(want.visits):
            return _("{summary}; the first {count} in the handout's order, then {position}, "
                     "which the handout's search visits later (another order?)").format(
                summary=summary, count=same, position=where)
        return _("{summary}; the first {count} in the handout's order, then {position}, which "
                 "alpha-beta never visits (a cut-off missed before it?)").format(
            summary=summary, count=same, position=where)
    if same < len(want.visits):
        return _("{summary}; it stopped after {count} positions in the handout's order, "
                 "where alpha-beta goes on (children that must be searched were "
                 "skipped)").format(summary=summary, count=same)
    if same < len(got.visits):
        key = got.visits[same]
        return _("{summary}; after the {count} positions in the handout's order it went on "
                 "to {position}, where alpha-beta has already stopped").format(
            summary=summary, count=same, position=f"{list(key)} ({below(key, search)})")
    expanded, theirs = set(got.expanded), set(want.expanded)
    for key in got.expanded:
        if key not in theirs:
            return _("{summary}; it expanded {position}, which the handout's search evaluates "
                     "(the depth limit, or a finished game)").format(
                summary=summary, position=f"{list(key)} ({below(key, search)})")
    for key in want.expanded:
        if key not in expanded:
            return _("{summary}; it evaluated {position} instead of expanding it").format(
                summary=summary, position=f"{list(key)} ({below(key, search)})")
    twice = next((key for key in got.expanded if got.expanded.count(key) > 1), None)
    if twice is None:
        return _("{summary}; it expanded the handout's positions, but in another order").format(
            summary=summary)
    return _("{summary}; it called nextstates more than once on {position}: each position is "
             "expanded at most once").format(
        summary=summary, position=f"{list(twice)} ({below(twice, search)})")


def _handout_value(search: Search, outcome, game: SubsetGame):
    """(the handout's expected search, None), or (None, the problem) when the search
    failed or did not return the handout's value."""
    found, problem = _found(outcome)
    if problem:
        return None, problem
    want = expected_search(search)
    if found[1] != want.value:
        return None, (_("returned the value {value}").format(value=short(found[1])),
                      bypass_note(game.log, search))
    return want, None


def judge_work(search: Search, outcome, game: SubsetGame):
    want, problem = _handout_value(search, outcome, game)
    if problem:
        return problem
    seen = View.of(game.log)
    if seen != want.view:
        return (_("visited other positions than the handout's alpha-beta"),
                view_difference(game.log, want.view, search))
    stats = outcome.value.get("stats")
    if stats != want.stats:
        return (_("the SearchStats counted {stats}").format(stats=short(stats)),
                _("the grader saw the search visit {nodes} positions, expand {expanded}, "
                  "evaluate {evaluations} and cut off {times}").format(
                    nodes=want.stats["nodes"], expanded=want.stats["expanded"],
                    evaluations=want.stats["evaluations"], times=times(want.stats["prunings"])))
    return None


def judge_terminal_tests(search: Search, outcome, game: SubsetGame):
    """The depth limit is tested first: terminal_test is never asked about a position
    the search reaches with bremse == 0, and it is given the search's evaluation."""
    for key, given in game.terminal_tests:
        ply = len(key) - len(search.state)
        if ply == search.bremse:
            return (_("called terminal_test on {position}, where bremse is 0").format(
                        position=list(key)),
                    _("{where}; bremse == 0 is tested first, and then terminal_test is not "
                      "called").format(where=below(key, search)))
        if not given:
            return (_("called terminal_test on {position} without the evaluation it was "
                      "given").format(position=list(key)),
                    _("pass it on: terminal_test(state, evaluation)"))
    return None


def judge_counts(search: Search, outcome, game: SubsetGame):
    """judge_work, and the depth limit tested before terminal_test (judge_terminal_tests)."""
    return judge_work(search, outcome, game) or judge_terminal_tests(search, outcome, game)


def times(count):
    """How often a search cut off, in words ("never", "once", "3 times")."""
    words = {0: N_("never"), 1: N_("once"), 2: N_("twice")}
    return _(words[count]) if count in words else _("{count} times").format(count=count)


def finished(key) -> bool:
    return len(key) == games.CELLS or bool(games.real_value(key))


def judge_stops(search: Search, outcome, game: SubsetGame):
    """Right value, no finished game expanded, and a finished root evaluated at once
    (counted as one evaluated node)."""
    want, problem = _handout_value(search, outcome, game)
    if problem:
        return problem
    seen = View.of(game.log)
    past = [key for key in seen.expanded if finished(key)]
    if past:
        return (_("called nextstates on {position}, where the game is already over").format(
                    position=list(past[0])),
                _("{where}; a finished game is evaluated, never expanded").format(
                    where=below(past[0], search)))
    if finished(search.state):
        stats = outcome.value.get("stats")
        if stats != want.stats:
            return (_("the SearchStats counted {stats}").format(stats=short(stats)),
                    _("the game is over at the root: one node, evaluated"))
    return None


class GameSearch:
    """maximize or minimize played by the grader (the reference) on one of its
    games, for a check of a function that calls the search (shallow_order): a
    search bug costs the search's checks, not this one's."""

    def __init__(self, who: str, game: SubsetGame):
        self.who, self.game = who, game
        # the specified search's signature (standins): every call it accepts
        self._played = played_as(who, self._search)

    def __call__(self, *args, **kwargs):
        return self._played(*args, **kwargs)

    def _search(self, state, alpha, beta, bremse, evaluation, stats, order):
        if stats is not None:
            raise TypeError(_("this check's search counts nothing: pass stats=None"))
        with games.reference_on(self.game):
            return getattr(ref, self.who)(list(state), alpha, beta, bremse, evaluation, None,
                                          order)

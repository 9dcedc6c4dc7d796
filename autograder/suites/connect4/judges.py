"""What connect4's checks say about a wrong answer, in the handout's words: which
of the 25 lines `lines` got wrong, and how a search's visits, expansions and
counts differ from alpha-beta's on one of the grader's games (games.SubsetGame).
Game knowledge only; the checks are in test_hidden.py."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from autograder.checking import Callback, load_reference, played_plan, search, short
from autograder.checking.judges import best_and_value
from autograder.i18n import N_, grader_text as _
from autograder.suites.connect4 import games
from autograder.suites.connect4.games import (INF, SubsetGame, played_as, reference_search,
                                              rotation, within)
from autograder.suites.connect4.positions import draw

ref = load_reference("connect4", "connect4")
M = "connect4."


GAME_HINT = N_("this check gives your search a game of the grader's: its own nextstates "
               "(fewer moves, another order) and its own evaluation; look up nextstates in "
               "the module and use the evaluation argument when the search runs")


#: The lines by kind, in the handout's order: the numbers that tell them apart (rows
#: and columns by number, diagonals by the cell they start at), all of the kind in
#: words, and one line in words.
LINE_KINDS = (
    (tuple(range(6)), N_("all {count} rows (rows {numbers})"), N_("row {number}")),
    (tuple(range(7)), N_("all {count} columns (columns {numbers})"), N_("column {number}")),
    ((14, 7, 0, 1, 2, 3),
     N_("all {count} diagonals running down to the right (starting at cells {numbers})"),
     N_("the diagonal running down to the right starting at cell {number}")),
    ((3, 4, 5, 6, 13, 20),
     N_("all {count} diagonals running down to the left (starting at cells {numbers})"),
     N_("the diagonal running down to the left starting at cell {number}")))
#: (kind, number) of each of the 25 lines, in the handout's order.
LINE_NAMES = [(kind, start) for kind, (starts, _all, _one) in enumerate(LINE_KINDS)
              for start in starts]


#: A board whose every cell holds a different character: each line returned
#: for it says exactly which cells it read, in which order.
LABELS = "0123456789abcdefghijklmnopqrstuvwxyzABCDEF"


def _cells_of(text):
    return ", ".join(str(LABELS.index(ch)) if ch in LABELS else repr(ch) for ch in text)


def _missing_lines(missing, want):
    """The missing lines in words, a whole kind at once where all of it is missing."""
    notes = []
    for kind, (starts, whole, _one) in enumerate(LINE_KINDS):
        gone = [i for i in missing if LINE_NAMES[i][0] == kind]
        if len(gone) == len(starts):
            notes.append(_(whole).format(count=len(starts), numbers=", ".join(map(str, starts))))
        else:
            notes += [_("{line} (cells {cells})").format(line=_one_line(i),
                                                         cells=_cells_of(want[i]))
                      for i in gone]
    return notes


def _one_line(index):
    kind, number = LINE_NAMES[index]
    return _(LINE_KINDS[kind][2]).format(number=number)


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

    def call_text(self):
        extra = (", stats" if self.stats else "") + (", order" if self.rotate else "")
        return f"{self.who}(state, -inf, inf, bremse={self.bremse}, evaluation{extra})"

    def drawing(self):
        return f"{draw(self.state)}\n{game_note(self)}"

    def expected(self):
        return expected_search(self)

    def expected_text(self):
        want = expected_search(self)
        if self.stats:
            return _("the value {value} and the counts {counts}").format(value=want.value,
                                                                         counts=want.stats)
        return _("the value {value} and a successor that reaches it").format(value=want.value)

    def setup(self):
        """A game of its own, answering a few times the calls the reference makes."""
        return SubsetGame(self.salt, [self.state],
                          search.calls_allowed(len(expected_search(self).log)))

    def plan(self, game, play=None, student=None):
        """The student's search: nextstates and terminal_test patched for the plan (the
        handout's terminal_test on the game, recording where it was asked), the
        evaluation (and the order) passed as callbacks; nothing else of ours."""
        plan = played_plan(self.who, game_plays(game))
        stats = plan.call(M + "SearchStats") if self.stats else None
        order = Callback(played_as("order", rotation)) if self.rotate else None
        found = plan.call(M + self.who, list(self.state), -INF, INF, self.bremse,
                          Callback(played_as("evaluation", game.evaluation)), stats, order)
        result = {"found": found}
        if self.stats:
            result["stats"] = {name: plan.get(stats.attr(name), default=None)
                               for name in search.COUNTERS}
        return plan.returns(result)

    def picture(self, run):
        want = expected_search(self)
        found, _problem = _found(run.outcome)
        return search.game_picture(run.game, want.log, tuple(self.state),
                                   rule_result=want.value,
                                   student_result=found[1] if found else None,
                                   max_to_move=self.who == "maximize")


@functools.cache
def expected_search(case: Search) -> search.Expected:
    return reference_search(case.salt, case.state, case.bremse,
                            rotation if case.rotate else None)


def game_note(case: Search) -> str:
    """What the drawing of a search's position cannot show: the game's rules there."""
    if len(case.state) == games.CELLS:
        return _("(the board is full: the game is over)")
    if games.real_value(case.state):
        return _("(four in a row: the game is over)")
    columns = [cell % 7 for cell in SubsetGame(case.salt).cells(case.state)]
    return _("(in this check's game the player to move may play only the columns {columns} "
             "here, in that order, and positions are worth numbers of the grader's)").format(
        columns=", ".join(map(str, columns)))


def game_plays(game) -> dict:
    """What the grader plays in a search on `game` (patched for the plan): the game's
    nextstates and the handout's terminal_test, asked only about positions the game
    handed out."""
    return {M + "nextstates": played_as("nextstates", game.nextstates),
            M + "terminal_test": within("terminal_test", functools.partial(games.handed,
                                                                           game.handout),
                                        game.terminal_test)}


def bypass_note(log):
    """Why a search looks as if it searched another game than the one given. (A
    search that reaches a position the game never offered is refused at its first
    question about it: the log holds handed-out positions only.)"""
    if not log:
        return _("the search never called the evaluation it was given nor nextstates; "
                 "{hint}").format(hint=_(GAME_HINT))
    if not any(kind == "e" for kind, _key in log):
        return _("the search never called the evaluation it was given; {hint}").format(
            hint=_(GAME_HINT))
    return None


def _found(outcome):
    """(best, value) the search returned, or a reason it is not that."""
    result = outcome.value if type(outcome.value) is dict else {}
    return best_and_value(result.get("found"), _("returned {value}, not (best_state, value)"))


def judge_value(run):
    found, problem = _found(run.outcome)
    if problem:
        return problem
    best, value = found
    want, case = expected_search(run.search), run.search
    shown = _("returned {value}").format(value=f"({short(best, 80)}, {short(value)})")
    if value != want.value:
        return shown, bypass_note(run.log)
    if want.best is None:
        return None if best is None else (shown, _("no successor expected at this position"))
    if best not in [list(child) for child in want.good]:
        if best not in run.game.children(case.state):
            return shown, _("that is not one of the successors the game offers here")
        return shown, _("that successor does not reach the value")
    return None


def _handout_value(run):
    """(the handout's expected search, None), or (None, the problem) when the search
    failed or did not return the handout's value."""
    found, problem = _found(run.outcome)
    if problem:
        return None, problem
    want = expected_search(run.search)
    if found[1] != want.value:
        return None, (_("returned the value {value}").format(value=short(found[1])),
                      bypass_note(run.log))
    return want, None


def judge_work(run):
    want, problem = _handout_value(run)
    if problem:
        return problem
    if search.View.of(run.log) != want.view:
        return (_("visited other positions than the handout's alpha-beta"),
                bypass_note(run.log) or search.visits_reason(run.game, run.log, want.view))
    stats = run.outcome.value.get("stats")
    if stats != want.stats:
        return (_("the SearchStats counted {stats}").format(stats=short(stats)),
                _("the grader saw the search visit {nodes} positions, expand {expanded}, "
                  "evaluate {evaluations} and cut off {times}").format(
                    nodes=want.stats["nodes"], expanded=want.stats["expanded"],
                    evaluations=want.stats["evaluations"], times=times(want.stats["prunings"])))
    return None


def judge_terminal_tests(run):
    """The depth limit is tested first: terminal_test is never asked about a position
    the search reaches with bremse == 0, and it is given the search's evaluation."""
    for key, given in run.game.terminal_tests:
        if len(key) - len(run.search.state) == run.search.bremse:
            return (_("called terminal_test on {position}, where bremse is 0").format(
                        position=list(key)),
                    _("{where}; bremse == 0 is tested first, and then terminal_test is not "
                      "called").format(where=search.below(run.game, key)))
        if not given:
            return (_("called terminal_test on {position} without the evaluation it was "
                      "given").format(position=list(key)),
                    _("pass it on: terminal_test(state, evaluation)"))
    return None


def times(count):
    """How often a search cut off, in words ("never", "once", "3 times")."""
    words = {0: N_("never"), 1: N_("once"), 2: N_("twice")}
    return _(words[count]) if count in words else _("{count} times").format(count=count)


def judge_stops(run):
    """Right value, no finished game expanded, and a finished root evaluated at once
    (counted as one evaluated node)."""
    want, problem = _handout_value(run)
    if problem:
        return problem
    past = [key for key in search.View.of(run.log).expanded if run.game.decided(key)]
    if past:
        return (_("called nextstates on {position}, where the game is already over").format(
                    position=list(past[0])),
                _("{where}; a finished game is evaluated, never expanded").format(
                    where=search.below(run.game, past[0])))
    if run.game.decided(tuple(run.search.state)):
        stats = run.outcome.value.get("stats")
        if stats != want.stats:
            return (_("the SearchStats counted {stats}").format(stats=short(stats)),
                    _("the game is over at the root: one node, evaluated"))
    return None


def game_search(who: str, game: SubsetGame):
    """maximize or minimize played by the grader (the reference) on one of its
    games, for a check of a function that calls the search (shallow_order): a
    search bug costs the search's checks, not this one's. The game answers only
    about what it handed out; the search counts nothing."""
    def searched(state, alpha, beta, bremse, evaluation, stats, order):
        with games.reference_on(game):
            return getattr(ref, who)(state, alpha, beta, bremse, evaluation, stats, order)
    return within(who, lambda _name, state: state, searched)

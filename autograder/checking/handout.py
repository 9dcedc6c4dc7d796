"""What a game of the grader's has handed to a student's search, and nothing more.

A check that watches a search gives it a game of the grader's (a proxy or patched
callbacks, docs/SUITES.md): the search asks it questions about states (is it
over, what is it worth, what follows it). Such a game must answer only about
states it handed out in the same plan: the roots the check gave the search and
the successors the game itself returned. Otherwise the game is an answer key: a
search that asks about every line of three on the board learns where the wins
are without writing its own win detection.

    handout = Handout(roots=[root_key])
    def nextstates(state):
        key = handout.ask("nextstates", as_key(state))     # Refused if never handed out
        return handout.give(children(key))
    ...
    if handout.refused:                                    # after the plan ran
        fail(handout.refused[0])

Every answered question is logged in order (`log`); a refused question raises
`Refused` in the grader's object (the student's code receives the exception, as
from any of the grader's objects) and is kept in `refused` for the feedback, so a
check can fail on it even when the student's code catches the exception.
"""

from __future__ import annotations

from typing import Callable, Hashable, Iterable

from ..i18n import grader_plural as ngettext, grader_text as _

MAX_REFUSED = 20        # refusals kept word for word; the rest are counted


class Refused(ValueError):
    """A question the grader's game will not answer."""


class Handout:
    """The states one plan's game has handed out, and every question asked about them."""

    def __init__(self, roots: Iterable[Hashable] = (), *,
                 describe: Callable[[Hashable], str] = repr):
        self.given: set = set(roots)
        self.log: list[tuple[str, Hashable]] = []   # (question, key) answered, in order
        self.refused: list[str] = []                # the first MAX_REFUSED refusals
        self.refusals = 0                           # every refusal
        self._describe = describe

    def give(self, keys):
        """Record states handed to the search (successors returned); returns `keys`."""
        self.given.update(keys)
        return keys

    def ask(self, question: str, key: Hashable) -> Hashable:
        """`key`, logged, if it was handed out; otherwise raise Refused."""
        if key not in self.given:
            self.refuse(_("{question} was asked about {state}, which the grader's game never "
                          "handed to the search in this check (ask only about the position "
                          "you were given and the states nextstates returned)").format(
                question=question, state=self._describe(key)))
        self.log.append((question, key))
        return key

    def refuse(self, text: str):
        """Refuse a question with `text` (kept for the feedback); always raises."""
        self.refusals += 1
        if len(self.refused) < MAX_REFUSED:
            self.refused.append(text)
        raise Refused(text)

    def count(self, *questions: str) -> int:
        return sum(question in questions for question, _ in self.log)

    @property
    def first_refusal(self) -> str | None:
        """What a check says when the search asked what it may not ask."""
        if not self.refused:
            return None
        more = (" " + ngettext("(and {count} more such question)",
                               "(and {count} more such questions)", self.refusals - 1).format(
            count=self.refusals - 1)) if self.refusals > 1 else ""
        return self.refused[0] + more

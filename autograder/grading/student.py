"""The hidden suites' view of a submission: call its functions, get plain data.

`Student` owns the sandboxed child: it starts it lazily, restarts it after a
crash or timeout, and remembers which functions timed out or crashed so later
tests of the same function fail at once ("skipped after timeout") instead of
waiting again. Suites never see the child, only `Outcome`s.
"""

from __future__ import annotations

import contextlib
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..i18n import grader_text as _
from ..sandbox.client import (FATAL, MAX_NOTES, Budget, Failure, Limits, Outcome, Sandbox,
                              SandboxError, backstop)
from ..sandbox import child_words
from ..sandbox.plans import Callback, Plan, Proxy
from ..sandbox.protocol import Handle
from . import imports
from .behaviour_record import BehaviourRecord, NoBehaviourRecord
from .imports import Allowed
from .kinds import kinds_of

__all__ = ["Student", "Outcome", "Failure", "Handle", "Timeouts", "Plan", "Proxy",
           "Callback", "Event", "SandboxError"]


@dataclass(frozen=True)
class Event:
    """Something that happened to a submission, for the feedback and grades.csv.
    kind: timeout (a call, or a check's time budget), crash, refused (the sandbox
    stopped something), unconfined (the code tried something no layer in force
    here stops: told, never called a refusal), import, skipped (a file not copied)."""
    kind: str
    text: str

    def __str__(self):
        return self.text


@dataclass(frozen=True)
class Timeouts:
    """Seconds, already scaled to this machine's measured speed.

    `call`, `imports` and `check` are seconds of the child's own CPU time (what
    other processes do on the machine never counts). `wait` and `check_wait` are
    seconds the child may *wait without computing* (asleep or blocked, measured by
    client.Activity: a busy machine makes a child wait for a CPU, which never counts
    here): no honest search waits, so a sleeper is stopped after seconds instead of
    being waited for at the backstop's pace. The wall-clock backstop
    (client.backstop) remains for what neither measure sees. `test` and
    `submission` are wall-clock backstops around the grader's own work."""
    call: float = 2.0        # one call of a student function (CPU)
    imports: float = 5.0     # importing the student's modules (CPU)
    check: float = 60.0      # all calls of one hidden test together (CPU)
    test: float = 120.0      # one hidden test (pytest-timeout: backstop(test) of wall time)
    submission: float = 3600.0  # everything one submission may take (wall): the ceiling
                                # (rubric.toml; by default `ceiling(...)`)
    wait: float = 1.0        # one call (or the import: check_wait) waiting without computing
    check_wait: float = 3.0  # all calls of one hidden test together, waiting


def ceiling(checks: int, check: float, imports: float, check_wait: float) -> float:
    """The default ceiling of one submission, in wall-clock seconds: what its checks
    can really spend. Each check's CPU budget used to the end at the backstop's pace
    (a loaded machine gives the child a share of a CPU), and its waiting allowance
    used to the end, which no load stretches; the import likewise."""
    return backstop(checks * check + imports) + (checks + 1) * check_wait


@dataclass
class Student:
    scratch: Path
    modules: list[str]
    layers: list[str]
    timeouts: Timeouts = field(default_factory=Timeouts)
    limits: Limits = field(default_factory=Limits)
    uid_slot: int = 0        # see Sandbox.uid_slot
    recorded: bool = True    # keep a behaviour record of its answers (behaviour_record.py)
    allowed: Allowed = field(default_factory=Allowed)  # packages it may import (imports.py)

    def __post_init__(self):
        self._sandbox: Sandbox | None = None
        self.import_failure: Outcome | None = None
        self.broken: dict[str, str] = {}    # function -> why later calls are skipped
        self.events: list[Event] = []       # what happened, for the feedback
        self.refusals: dict[str, None] = {} # the first MAX_NOTES distinct refusals
        self.refused = 0                    # refusal notes in all, kept or not
        self._counted = 0                   # notes of the current sandbox already counted
        self._seen_counted = 0              # ... and its attempts no layer stops
        self.starts = 0
        self.budget: Budget | None = None       # set per hidden test by the runner
        self.ceiling_end = time.monotonic() + self.timeouts.submission
        # what it answered, for the similarity report
        self.behaviour = BehaviourRecord(self.scratch) if self.recorded else NoBehaviourRecord()
        self._printed: list[str] = []       # output of children ended before close()
        # Two children at most: the student's own, and one where the grader plays some
        # of the student's functions (_route, played_child); the one not running waits.
        self._own: Sandbox | None = None    # set aside while the played child runs
        self._apart: Sandbox | None = None  # set aside while the own child runs
        self._on_apart = False              # the running child is the played one
        self._in_played = False             # inside played_child
        # The grader's allowance of reply bytes and values passed while it played the
        # student's helpers (the callbacks' traffic is the grader's): its problem, never
        # a crash of the student's code (checks.Blame.check says so), in words.
        self.grader_limits: list[str] = []

    def start_check(self) -> None:
        """A hidden test begins: its calls share one budget of CPU time, one
        allowance of waiting without computing, and one of reply bytes and values."""
        self.budget = Budget.of(self.timeouts.check)
        if self._sandbox is not None:
            self._sandbox.new_check()
            self._allow(self._sandbox)

    def _allow(self, sandbox: Sandbox) -> None:
        """The waiting `sandbox` may do: per call, and what is left of the check's."""
        sandbox.wait_call = self.timeouts.wait
        sandbox.wait_check = self.timeouts.check_wait
        sandbox.waited_before = self.budget.waited_before if self.budget else 0.0

    @property
    def check_usage(self) -> tuple[float, int]:
        """(CPU seconds the running check has used, the children's peak address space):
        what a check costs, for the suite doctor. Read as the budget reads it: a child
        set aside or ended in the check is in `budget.spent_before`."""
        running = self._sandbox.check_cpu() if self._sandbox is not None else 0.0
        spent = self.budget.spent_before if self.budget is not None else 0.0
        peaks = [c.peak_memory for c in (self._sandbox, self._own, self._apart) if c is not None]
        return spent + running, max(peaks, default=0)

    def event(self, kind: str, text: str) -> None:
        if kind in ("refused", "unconfined"):   # kept once, at most MAX_NOTES
            if len(self.refusals) >= MAX_NOTES or text in self.refusals:
                return
            self.refusals[text] = None
        self.events.append(Event(kind, text))

    # ------------------------------------------------------------ the child
    def _ready(self) -> Outcome | None:
        """None when a child with the modules imported is running, else why not."""
        if self.import_failure is not None:
            return self.import_failure
        if self._sandbox is not None and self._sandbox.alive:
            return None
        if time.monotonic() >= self.ceiling_end:
            return self._ceiling()
        if self.starts >= 50:
            return Outcome(failure=Failure.CRASH,
                           detail="gave up after 50 restarts of the sandbox")
        self._collect_notes()
        if self._sandbox is not None and self.budget is not None:   # it died in this check
            self.budget.spent_before += self._sandbox.check_cpu()
            self.budget.waited_before += self._sandbox.check_waited
        self._sandbox = Sandbox(self.scratch, self.modules, self.layers, self.limits,
                                uid_slot=self.uid_slot, packages=self.allowed.packages,
                                allowed_folders=self.allowed.folders)
        self._sandbox.wall_ceiling = self.ceiling_end
        self._allow(self._sandbox)
        self._counted = self._seen_counted = 0
        self.starts += 1
        self._sandbox.start()   # SandboxError propagates: the grader could not run it
        # The import is judged by its own allowance: a child restarted in a check that
        # has already waited must not turn the submission into an import error.
        self._sandbox.waited_before = 0.0
        outcome = self._sandbox.import_modules(self.timeouts.imports,
                                               idle=self.timeouts.check_wait)
        self._allow(self._sandbox)
        self._collect_notes()
        if not outcome.answered:
            self.import_failure = _import_failure(outcome, self.timeouts.imports,
                                                  self.timeouts.check_wait)
            refused = imports.refused(outcome.raised, self.allowed.names)
            if refused:     # a module the sandbox does not offer: the rule, in its words
                self.import_failure = Outcome(failure=Failure.IMPORT, detail=refused)
            self.event("timeout" if outcome.failure in (Failure.TIMEOUT, Failure.WAITED)
                       else "crash", self.import_failure.detail)
            self._sandbox.kill()
            return self.import_failure
        return None

    def _ceiling(self) -> Outcome:
        detail = (f"not run: the submission used up the {self.timeouts.submission:.0f} s "
                  "(wall clock) that grading one submission may take")
        if not any(e.text == detail for e in self.events):
            self.event("timeout", detail)
        return Outcome(failure=Failure.CEILING, detail=detail)

    def close(self) -> str:
        """Stop the children; return what the student's code printed (capped per child)."""
        for sandbox in (self._apart, self._own, self._sandbox):
            if sandbox is not None:
                self._forget(sandbox)
        return "".join(self._printed)

    @contextlib.contextmanager
    def played_child(self, fresh: bool = True, forget=()):
        """Every request of a check that plays the student's helpers runs in the played
        child (`_route`), played or not: its played calls use objects made for it.
        `fresh`: a new played child (a table the student's own helpers filled answers
        nothing; `forget`: functions called again even if they timed out)."""
        if self._in_played:             # nested: already there
            yield
            return
        self._route(True)
        if fresh:
            self._collect_notes()
            old = self._switch_to(None)
            if old is not None:
                self._forget(old)
            self._unbreak(forget)
        self._in_played = True
        try:
            yield
        finally:
            self._in_played = False

    def _route(self, plays: bool) -> None:
        """Before a request: one in which the grader plays some of the student's
        functions runs in the played child, any other in the student's own. A played
        run can keep the grader's answers under the student's names (a table of the
        reference's rules, asked of a played winner): in the own child they would be
        judged as the student's. Inside `played_child` every request stays put."""
        if self._in_played or plays == self._on_apart:
            return
        self._collect_notes()
        if plays:
            self._own, self._apart = self._switch_to(self._apart), None
        else:
            self._apart, self._own = self._switch_to(self._own), None
        self._on_apart = plays

    def _switch_to(self, sandbox: Sandbox | None) -> Sandbox | None:
        """Make `sandbox` (if alive) the running child; return the one left, whose CPU
        time in this check stays spent (Budget.spent_before, as for a dead child)."""
        left = self._sandbox
        if left is not None and self.budget is not None:
            self.budget.spent_before += left.check_cpu()
            self.budget.waited_before += left.check_waited
        if sandbox is not None and not sandbox.alive:
            self._forget(sandbox)
            sandbox = None
        self._sandbox = sandbox
        if sandbox is not None:
            sandbox.new_check()
            self._allow(sandbox)
            self._counted = sandbox.notes_total     # its notes were counted when left
            self._seen_counted = len(sandbox.seen)
        return left

    def _forget(self, sandbox: Sandbox) -> None:
        """Stop `sandbox`, keeping what the student's code printed there."""
        if sandbox.alive:
            self._printed.append(sandbox.output())
        sandbox.kill()

    def _unbreak(self, forget) -> None:
        for name in list(self.broken):
            if any(name == f or name.endswith("." + f) for f in forget):
                del self.broken[name]

    def pause(self) -> None:
        """Freeze the child (it keeps its state; its clock does not run on CPU)."""
        if self._sandbox is not None:
            self._sandbox.signal(signal.SIGSTOP)

    def resume(self) -> None:
        if self._sandbox is not None:
            self._sandbox.signal(signal.SIGCONT)

    @property
    def importable(self) -> Outcome | None:
        """None if the modules import cleanly, else the failed outcome."""
        return self._ready()

    # ------------------------------------------------------------ calls
    def _collect_notes(self) -> None:
        """Keep what the child tried and the sandbox refused, for the feedback: the
        first MAX_NOTES distinct refusals word for word, the rest only counted."""
        sandbox = self._sandbox
        if sandbox is None or (sandbox.notes_total == self._counted
                               and len(sandbox.seen) == self._seen_counted):
            return
        self._seen_counted = len(sandbox.seen)
        self.refused += sandbox.notes_total - self._counted
        self._counted = sandbox.notes_total
        for note in sandbox.notes:
            # The note is the child's English sentence, said in the course's language.
            self.event("refused", _("the sandbox refused: your code {note}").format(
                note=child_words.said(note)))
        for seen in sandbox.seen:
            self.event("unconfined", _("your code {note}: no sandbox layer on this machine "
                                       "stops that").format(note=child_words.said(seen)))

    def _note(self, function: str, outcome: Outcome) -> Outcome:
        self._collect_notes()
        if outcome.failure == Failure.TOO_MUCH and self._in_played:
            self.grader_limits.append(f"{function}: {outcome.detail}")
            return outcome
        if outcome.failure in FATAL:
            slow = outcome.failure in (Failure.TIMEOUT, Failure.WAITED)
            skipped = (_("skipped: an earlier call of {function} ran out of time ({detail})")
                       if slow else
                       _("skipped: an earlier call of {function} failed ({detail})"))
            self.broken.setdefault(function, skipped.format(function=function,
                                                            detail=outcome.detail))
            self.event("timeout" if slow else "crash", f"{function}: {outcome.detail}")
        return outcome

    def _skip(self, function: str) -> Outcome | None:
        if function in self.broken:
            return Outcome(failure=Failure.SKIPPED, detail=self.broken[function])
        return self._waiting_spent()

    def _waiting_spent(self) -> Outcome | None:
        """The check's calls have used up its waiting allowance: a further call of the
        check is not run (not started, so it cannot wait) and no function is marked as
        broken for the checks after it: the waiting was another call's."""
        if self.budget is None:
            return None
        spent = self.budget.waited_before + (
            self._sandbox.check_waited if self._sandbox is not None else 0.0)
        if spent < self.timeouts.check_wait:
            return None
        return Outcome(failure=Failure.SKIPPED, detail=_(
            "not run: this check's calls already waited more than {seconds:.1f} s in all "
            "without computing").format(seconds=self.timeouts.check_wait))

    def call(self, function: str, *args, timeout: float | None = None, return_args=False,
             keep=False, **kwargs) -> Outcome:
        """Call `module.function` (or `(handle, "method")`) in the child."""
        name = _name(function)
        self._route(False)
        early = self._skip(name) or self._ready() or self._waiting_spent()
        if early is not None:
            return early
        outcome = self._sandbox.call(function, args, kwargs, timeout=timeout or self.timeouts.call,
                                     keep=keep, return_args=return_args)
        self.behaviour.saw(name, args, kwargs, outcome)
        return self._note(name, outcome)

    def map(self, function: str, arg_lists, timeout: float | None = None,
            return_args=False, again=False, play: dict | None = None) -> list[Outcome]:
        """Call `function` (as for `call`) once per argument tuple, in one request.
        With `again`, every call that returned is made once more on the same argument
        objects (`outcome.again`: a function that changes its input shows it).

        `play` {"module.name": grader_function or Callback} replaces the student's
        functions it names by the grader's during each call, so a bug in `winner`
        cannot cost the points of a `minimax` that calls it (docs/SUITES.md)."""
        arg_lists = [tuple(a) for a in arg_lists]
        name = _name(function)
        self._route(bool(play))
        early = self._skip(name) or self._ready() or self._waiting_spent()
        if early is not None:
            return [early] * len(arg_lists)
        if play and not isinstance(function, str):
            raise TypeError("play needs a module function (\"module.name\"); give a method "
                            "the grader's objects through a call plan instead")
        patches = {target: f if isinstance(f, Callback) else Callback(f)
                   for target, f in (play or {}).items()}
        outcomes = self._sandbox.map(function, arg_lists, timeout or self.timeouts.call,
                                     return_args, self.budget, again, patches)
        self.behaviour.saw_many(name, arg_lists, outcomes)
        return self._after_many(name, outcomes)

    def run(self, plans: list[Plan], timeout: float | None = None) -> list[Outcome]:
        """Run call plans (sandbox/plans.py) in one request, each with its own deadline
        (the plan's `timeout`, else `timeout`, else the rubric's per-call limit); a
        plan whose name already timed out or crashed is skipped at once."""
        self._route(any(plan.plays for plan in plans))
        ready = self._ready() or self._waiting_spent()
        outcomes = [self._skip(plan.name) or ready for plan in plans]
        todo = [index for index, outcome in enumerate(outcomes) if outcome is None]
        if todo:
            running = [plans[i] for i in todo]
            ran = self._sandbox.plans(running, timeout or self.timeouts.call, self.budget)
            self.behaviour.saw_plans(running, ran)
            self._after_many(" / ".join(sorted({plan.name for plan in running})), ran,
                             plans=running)
            for index, outcome in zip(todo, ran):
                outcomes[index] = outcome
        return outcomes

    def _after_many(self, name: str, outcomes: list[Outcome], plans=None) -> list[Outcome]:
        self._collect_notes()
        if outcomes and outcomes[-1].failure == Failure.BUDGET:
            done = sum(o.failure != Failure.BUDGET for o in outcomes)
            self.event("timeout", f"{name}: the check's time budget of "
                                  f"{self.timeouts.check:.0f} s of CPU time ran out after "
                                  f"{done} of {len(outcomes)} calls")
        for index, outcome in enumerate(outcomes):
            if outcome.failure in FATAL:
                self._note(plans[index].name if plans else name, outcome)
                break
        return outcomes

    def check_used(self) -> tuple[int, int]:
        """(reply bytes, decoded values) the running child sent in this check so far:
        what the check needs of the grader's allowance (Limits.check_bytes,
        check_items; Grader.warm_up sizes them from the reference's)."""
        sandbox = self._sandbox
        if sandbox is None:
            return 0, 0
        return (sandbox.limits.check_bytes - sandbox.bytes_left,
                sandbox.limits.check_items - sandbox.items_left)

    def new(self, cls: str, *args, **kwargs) -> Outcome:
        """Create an object in the child; the outcome's value is its Handle."""
        return self.call(cls, *args, keep=True, **kwargs)


def _name(function) -> str:
    """What a timeout is remembered by: the full target, so a timeout in one
    wrapper does not skip the others."""
    if isinstance(function, tuple):
        return str(function[1])
    return str(function)


def _import_failure(outcome: Outcome, timeout: float,
                    waiting: float = Timeouts.check_wait) -> Outcome:
    if outcome.raised:
        kind, message = outcome.raised["type"], child_words.said(outcome.raised["message"])
        # The wording follows what the exception is, never its name (kinds.py).
        kinds = kinds_of(outcome.raised)
        if "SyntaxError" in kinds:
            detail = _("your file does not parse: {error}").format(error=message)
        elif "SystemExit" in kinds:
            detail = _("exited while being imported: {message}").format(message=message)
        else:
            where = f" ({outcome.raised['where']})" if outcome.raised.get("where") else ""
            detail = _("raised {exception} while being imported: {message}").format(
                exception=kind, message=message) + where
    elif outcome.failure == Failure.TIMEOUT:
        detail = _("importing your module used more than {seconds:.1f} s of CPU time").format(
            seconds=timeout)
    elif outcome.failure == Failure.WAITED and outcome.idle:
        detail = _("importing your module waited more than {seconds:.1f} s without "
                   "computing: time.sleep, input() or a lock?").format(seconds=waiting)
    elif outcome.failure == Failure.WAITED:
        detail = _("importing your module waited {wall:.0f} s without finishing (does it "
                   "sleep, or wait for input?)").format(wall=backstop(timeout))
    else:
        detail = _("{failure} while being imported").format(failure=outcome.detail)
    return Outcome(failure=Failure.IMPORT, detail=detail)

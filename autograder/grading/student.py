"""The hidden suites' view of a submission: call its functions, get plain data.

`Student` owns the sandboxed child: it starts it lazily, restarts it after a
crash or timeout, and remembers which functions timed out or crashed so later
tests of the same function fail at once ("skipped after timeout") instead of
waiting again. Suites never see the child, only `Outcome`s.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from ..sandbox.client import Limits, Outcome, Sandbox, SandboxError
from ..sandbox.protocol import Handle, Ref

__all__ = ["Student", "Outcome", "Handle", "Ref", "Timeouts"]


@dataclass(frozen=True)
class Timeouts:
    """Seconds, already scaled to this machine's measured speed."""
    call: float = 2.0        # one call of a student function
    imports: float = 5.0     # importing the student's modules
    check: float = 60.0      # all calls of one hidden test together (Student.map)
    test: float = 120.0      # one hidden test (pytest-timeout), a backstop


@dataclass
class Student:
    scratch: Path
    modules: list[str]
    layers: list[str]
    timeouts: Timeouts = field(default_factory=Timeouts)
    limits: Limits = field(default_factory=Limits)
    kit: dict[str, str] = field(default_factory=dict)

    def __post_init__(self):
        self._sandbox: Sandbox | None = None
        self.import_failure: Outcome | None = None
        self.broken: dict[str, str] = {}    # function -> why later calls are skipped
        self.events: list[str] = []         # what happened, for the feedback
        self.starts = 0
        self.budget_end: float | None = None   # set per hidden test by the runner

    def start_check(self) -> None:
        """A hidden test begins: its calls share one time budget."""
        self.budget_end = time.monotonic() + self.timeouts.check

    # ------------------------------------------------------------ the child
    def _ready(self) -> Outcome | None:
        """None when a child with the modules imported is running, else why not."""
        if self.import_failure is not None:
            return self.import_failure
        if self._sandbox is not None and self._sandbox.alive:
            return None
        if self.starts >= 50:
            return Outcome(failure="crash", detail="gave up after 50 restarts of the sandbox")
        self._sandbox = Sandbox(self.scratch, self.modules, self.layers, self.limits, self.kit)
        self.starts += 1
        self._sandbox.start()   # SandboxError propagates: the grader could not run it
        outcome = self._sandbox.import_modules(self.timeouts.imports)
        self._collect_notes()
        if not outcome.answered:
            self.import_failure = _import_failure(outcome, self.timeouts.imports)
            self.events.append(self.import_failure.detail)
            self._sandbox.kill()
            return self.import_failure
        return None

    def close(self) -> str:
        """Stop the child; return what the student's code printed (capped)."""
        text = ""
        if self._sandbox is not None:
            if self._sandbox.alive:
                text = self._sandbox.output()
            self._sandbox.kill()
        return text

    @property
    def importable(self) -> Outcome | None:
        """None if the modules import cleanly, else the failed outcome."""
        return self._ready()

    # ------------------------------------------------------------ calls
    def _collect_notes(self) -> None:
        """Keep what the child tried and the sandbox refused, for the feedback."""
        if self._sandbox is not None:
            for note in self._sandbox.notes:
                line = f"the sandbox refused: your code {note}"
                if line not in self.events:
                    self.events.append(line)

    def _note(self, function: str, outcome: Outcome) -> Outcome:
        self._collect_notes()
        if outcome.failure in ("timeout", "crash", "protocol"):
            what = "timed out" if outcome.failure == "timeout" else "failed"
            self.broken.setdefault(function, f"skipped: an earlier call of {function} {what} "
                                             f"({outcome.detail})")
            self.events.append(f"{function}: {outcome.detail}")
        return outcome

    def _skip(self, function: str) -> Outcome | None:
        if function in self.broken:
            return Outcome(failure="skipped", detail=self.broken[function])
        return None

    def call(self, function: str, *args, timeout: float | None = None, return_args=False,
             keep=False, **kwargs) -> Outcome:
        """Call `module.function` (or `(handle, "method")`) in the child."""
        name = _name(function)
        early = self._skip(name) or self._ready()
        if early is not None:
            return early
        outcome = self._sandbox.call(function, args, kwargs, timeout=timeout or self.timeouts.call,
                                     keep=keep, return_args=return_args)
        return self._note(name, outcome)

    def map(self, function: str, arg_lists, timeout: float | None = None,
            return_args=False) -> list[Outcome]:
        """Call `function` once per argument tuple, pipelined in one request."""
        arg_lists = [tuple(a) for a in arg_lists]
        name = _name(function)
        early = self._skip(name) or self._ready()
        if early is not None:
            return [early] * len(arg_lists)
        if isinstance(function, str):
            outcomes = self._sandbox.map(function, arg_lists, timeout or self.timeouts.call,
                                         return_args, self.budget_end)
        else:
            outcomes = self._sandbox.batch([(function, a, None) for a in arg_lists],
                                           timeout or self.timeouts.call, return_args)
        self._collect_notes()
        if outcomes and outcomes[-1].failure == "budget":
            done = sum(o.failure != "budget" for o in outcomes)
            self.events.append(f"{name}: the check's time budget of {self.timeouts.check:.0f} s "
                               f"ran out after {done} of {len(outcomes)} calls")
        for outcome in outcomes:
            if outcome.failure in ("timeout", "crash", "protocol"):
                self._note(name, outcome)
                break
        return outcomes

    def new(self, cls: str, *args, **kwargs) -> Outcome:
        """Create an object in the child; the outcome's value is its Handle."""
        return self.call(cls, *args, keep=True, **kwargs)


def _name(function) -> str:
    """What a timeout is remembered by: the full target, so a timeout in one kit
    wrapper does not skip the others."""
    if isinstance(function, tuple):
        return str(function[1])
    return str(function)


def _import_failure(outcome: Outcome, timeout: float) -> Outcome:
    if outcome.raised:
        kind, message = outcome.raised["type"], outcome.raised["message"]
        if kind == "SyntaxError":
            detail = f"your file does not parse: {message}"
        elif kind == "SystemExit":
            detail = f"{message} while being imported"
        else:
            where = f" ({outcome.raised['where']})" if outcome.raised.get("where") else ""
            detail = f"raised {kind} while being imported: {message}{where}"
    elif outcome.failure == "timeout":
        detail = f"importing your module timed out after {timeout:.1f} s"
    else:
        detail = f"{outcome.detail} while being imported"
    return Outcome(failure="import", detail=detail)


__all__ += ["SandboxError"]

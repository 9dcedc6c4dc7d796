"""The trusted side of the sandbox: start a confined child, call into it, kill it.

Nothing the child sends is trusted: replies must echo the random id of the
request, are capped in size, decoded as plain data only, and a child that is
late is killed with its whole process group.
"""

from __future__ import annotations

import collections
import json
import os
import secrets
import select
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import protocol
from .plans import Plan, Registry

CHILD = Path(__file__).with_name("child.py")
MB = 1 << 20
MAX_REPLY = 1 * MB         # bytes in one reply line
MAX_NOTES = 100            # refusals kept word for word per sandbox; the rest are counted
MAX_CALLBACKS = 2_000_000  # calls back to the grader's objects in one plan


@dataclass(frozen=True)
class Limits:
    memory_bytes: int = 512 * MB
    cpu_seconds: int = 300          # for the child's whole life; calls have wall-clock limits
    file_bytes: int = 4 * MB
    open_files: int = 64
    output_cap: int = 20000         # characters of student output kept
    start_timeout: float = 10.0
    disk_bytes: int = 64 * MB       # the whole scratch folder (a private tmpfs)
    disk_files: int = 1000          # files and folders in it
    check_bytes: int = 16 * MB      # reply bytes read during one check, all calls together


@dataclass
class Outcome:
    """What one call did. `failure` is set when the child did not answer normally."""
    ok: bool = False
    value: object = None
    raised: dict | None = None      # {"type", "message", "where"} of the student's exception
    args_after: list | None = None
    failure: str | None = None      # timeout, crash, bad_value, protocol, skipped, unreached,
                                    # missing (no such function), budget (the check's
                                    # time budget ran out before this call), too_much (the
                                    # check's replies passed Limits.check_bytes)
    detail: str = ""                # human words for a failure
    seconds: float = 0.0

    @property
    def answered(self) -> bool:
        return self.failure is None and self.raised is None


class SandboxError(Exception):
    """The child could not be started or confined: the student code did not run."""


@dataclass
class Sandbox:
    scratch: Path
    modules: list[str]
    layers: list[str]
    limits: Limits = field(default_factory=Limits)
    python: str = sys.executable
    uid_slot: int = 0      # children alive at once in one process need different slots

    def __post_init__(self):
        self.process = None
        self.notes: dict[str, None] = {}   # distinct refusals, first MAX_NOTES
        self.notes_total = 0               # every refusal note received
        self.last_note = ""
        self.bytes_left = self.limits.check_bytes
        self.callbacks = 0                 # calls back answered (or recorded) in all plans
        self._plan_callbacks = 0           # ... in the plan being run (capped)
        self.applied: list[str] = []
        self._buffer = bytearray()
        self._scanned = 0     # bytes of the buffer known to hold no newline
        self._rows = collections.deque()   # parsed rows of a map not yet consumed
        self._reader = None
        self._writer = None
        self._registry: Registry | None = None
        self._next_number = 1     # proxies get numbers never used before in this child
        self._late_error = None
        self._fail_reason = ""
        self.start_seconds = 0.0

    # ------------------------------------------------------------ life cycle
    def start(self) -> None:
        started = time.perf_counter()
        confine_uid = None
        if "uid" in self.layers:
            if os.geteuid() != 0:
                raise SandboxError("sandbox setup failed: only root can run the child as "
                                   "a user of its own")
            confine_uid = _worker_uid(self.uid_slot)
            _hand_over(Path(self.scratch), confine_uid)
        parent_r, child_w = os.pipe()
        child_r, parent_w = os.pipe()
        config = {
            "rfd": child_r, "wfd": child_w, "scratch": str(Path(self.scratch).resolve()),
            "modules": list(self.modules), "layers": list(self.layers),
            "uid": confine_uid,
            "output_cap": self.limits.output_cap,
            "disk": {"bytes": self.limits.disk_bytes, "files": self.limits.disk_files},
            "limits": {"cpu_seconds": self.limits.cpu_seconds,
                       "memory_bytes": self.limits.memory_bytes,
                       "file_bytes": self.limits.file_bytes,
                       "open_files": self.limits.open_files},
        }
        try:
            self.process = subprocess.Popen(
                [self.python, "-I", "-S", "-B", str(CHILD), json.dumps(config)],
                pass_fds=(child_r, child_w), stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                cwd=self.scratch, start_new_session=True,
                env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"})
        finally:
            os.close(child_r)
            os.close(child_w)
        self._reader, self._writer = parent_r, parent_w
        hello = self._read_message(time.monotonic() + self.limits.start_timeout, None)
        if hello is None or not hello.get("ready"):
            reason = (hello or {}).get("error") or "the sandbox did not start"
            self.kill()
            raise SandboxError(f"sandbox setup failed: {reason}")
        self.applied = hello.get("layers", [])
        missing = set(self.layers) - set(self.applied)
        if missing:
            self.kill()
            raise SandboxError(f"sandbox layers not applied: {', '.join(sorted(missing))}")
        self.start_seconds = time.perf_counter() - started

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        if self.process is None:
            return
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        for fd in (self._reader, self._writer):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._reader = self._writer = None

    close = kill

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.kill()

    # ------------------------------------------------------------ transport
    def _send(self, message: dict) -> None:
        self._send_text(protocol.dumps(message))

    def _send_text(self, text: str) -> None:
        data = text.encode()
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(self._writer, view):]
        except (BrokenPipeError, OSError):
            pass  # the child is gone; the read below reports how

    def new_check(self) -> None:
        """A hidden check begins: its replies get a fresh byte allowance."""
        self.bytes_left = self.limits.check_bytes

    def _note(self, text) -> None:
        self.notes_total += 1
        text = str(text)[:200]
        self.last_note = text
        if len(self.notes) < MAX_NOTES:
            self.notes[text] = None

    def _fill(self, deadline: float) -> bool:
        """Read what the child sent into the buffer; False (with a reason) when it
        is too late, the child is gone, or a reply grows past the cap."""
        if len(self._buffer) > MAX_REPLY:
            self._fail_reason = f"sent a reply larger than {MAX_REPLY // MB} MB"
            return False
        if self.bytes_left < 0:
            self._fail_reason = "too_much"
            return False
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            self._fail_reason = "timeout"
            return False
        ready, _, _ = select.select([self._reader], [], [], remaining)
        if ready:
            chunk = os.read(self._reader, 1 << 16)
            if not chunk:
                self._fail_reason = "eof"
                return False
            self.bytes_left -= len(chunk)
            self._buffer += chunk
        return True

    def _read_message(self, deadline: float, expected_id: str | None) -> dict | None:
        """The next reply with `expected_id` (or the hello), None on timeout or EOF."""
        while True:
            newline = self._buffer.find(b"\n", self._scanned)
            self._scanned = len(self._buffer) if newline < 0 else 0
            if newline >= 0:
                line = bytes(self._buffer[:newline])
                del self._buffer[:newline + 1]
                try:
                    message = protocol.loads(line)
                except (ValueError, RecursionError):
                    self._fail_reason = "sent something that is not a valid reply"
                    return None
                if not isinstance(message, dict):
                    continue
                if "note" in message and len(message) == 1:
                    self._note(message["note"])
                    continue
                if expected_id is None or message.get("id") == expected_id:
                    return message
                continue  # a reply nobody asked for: forged or stale, ignore it
            if not self._fill(deadline):
                return None

    # ------------------------------------------------------------ calls
    def _outcome(self, reply: dict | None, timeout: float, started: float) -> Outcome:
        seconds = time.perf_counter() - started
        if reply is None:
            reason = self._fail_reason
            self.kill()
            if reason == "timeout":
                return Outcome(failure="timeout", detail=f"timed out after {timeout:.1f} s",
                               seconds=seconds)
            if reason == "eof":
                return Outcome(failure="crash", detail=self.death(), seconds=seconds)
            if reason == "too_much":
                return Outcome(failure="too_much", seconds=seconds,
                               detail=f"sent more than {self.limits.check_bytes // MB} MB of "
                                      "answers in one check; the rest was not read")
            return Outcome(failure="protocol", detail=reason, seconds=seconds)
        if "raised" in reply:
            raised = reply["raised"] if isinstance(reply["raised"], dict) else {}
            return Outcome(raised={k: str(raised.get(k)) if raised.get(k) is not None else None
                                   for k in ("type", "message", "where")}, seconds=seconds)
        if "missing" in reply:
            return Outcome(failure="missing", detail=str(reply["missing"])[:300], seconds=seconds)
        if "bad_value" in reply:
            return Outcome(failure="bad_value", detail=str(reply["bad_value"])[:300],
                           seconds=seconds)
        return Outcome(ok=True, value=reply.get("ok"), args_after=reply.get("args"),
                       seconds=seconds)

    def death(self) -> str:
        """Plain words for why the child ended."""
        code = self.process.wait(timeout=5) if self.process else None
        if self.last_note:
            return "killed: " + self.last_note
        if code is None:
            return "stopped answering"
        if code < 0:
            sig = -code
            if sig == signal.SIGXCPU:
                return f"used more than {self.limits.cpu_seconds} s of CPU time"
            if sig == signal.SIGSYS:
                return "killed: tried to start processes or use a forbidden system call"
            if sig == signal.SIGXFSZ:
                return f"killed: wrote a file larger than {self.limits.file_bytes // MB} MB"
            if sig == signal.SIGSEGV:
                return "crashed (segmentation fault)"
            return f"killed by signal {signal.Signals(sig).name}"
        return f"exited with code {code}"

    def request(self, message: dict, timeout: float) -> Outcome:
        started = time.perf_counter()
        if not self.alive:
            return Outcome(failure="crash", detail=self.death())
        message = dict(message, id=secrets.token_hex(8))
        self._send(message)
        reply = self._read_message(time.monotonic() + timeout, message["id"])
        return self._outcome(reply, timeout, started)

    def import_modules(self, timeout: float) -> Outcome:
        return self.request({"op": "import"}, timeout)

    def call(self, target, args=(), kwargs=None, *, timeout: float, keep=False,
             return_args=False) -> Outcome:
        return self.request(_call_message(target, args, kwargs, keep, return_args), timeout)

    def batch(self, calls: list[tuple], timeout_each: float, return_args=False) -> list[Outcome]:
        """Run many calls with one request; each reply has its own deadline.

        Stops at the first call after which the child is gone; later calls get
        a "skipped" outcome."""
        if not calls:
            return []
        outcomes: list[Outcome] = []
        if not self.alive:
            return [Outcome(failure="crash", detail=self.death())] * len(calls)
        base = secrets.token_hex(8)
        ids = [f"{base}:{i}" for i in range(len(calls))]
        flags = f',"kwargs":{{}},"keep":false,"return_args":{"true" if return_args else "false"}'
        parts = []
        for call_id, (target, args, kwargs) in zip(ids, calls):
            if kwargs or not isinstance(target, str):
                parts.append(protocol.dumps(dict(_call_message(target, args, kwargs, False,
                                                               return_args), id=call_id))[:-1])
            else:
                parts.append(f'{{"op":"call","target":{json.dumps(target)},'
                             f'"args":{_encoded_args(args)}{flags},"id":"{call_id}"}}')
        self._send_text(f'{{"op":"batch","id":"{base}","calls":[{",".join(parts)}]}}\n')
        for call_id in ids:
            started = time.perf_counter()
            reply = self._read_message(time.monotonic() + timeout_each, call_id)
            outcomes.append(self._outcome(reply, timeout_each, started))
            if reply is None:
                break
        skipped = Outcome(failure="unreached", detail="not reached: an earlier call failed")
        return outcomes + [skipped] * (len(calls) - len(outcomes))

    def map(self, target: str, arg_lists: list[tuple], timeout_each: float,
            return_args=False, budget_end: float | None = None) -> list[Outcome]:
        """`target(*args)` for every args tuple: one request, compact replies,
        and still a deadline per call. The fast path for exhaustive checks."""
        if not arg_lists:
            return []
        if not self.alive:
            return [Outcome(failure="crash", detail=self.death())] * len(arg_lists)
        base = secrets.token_hex(8)
        encoded = [_encoded(args) for args in arg_lists]
        plain = all(flag for _, flag in encoded)
        encoded = ",".join(text for text, _ in encoded)
        self._send_text(f'{{"op":"map","id":"{base}","target":{json.dumps(target)},'
                        f'"return_args":{"true" if return_args else "false"},'
                        f'"plain":{"true" if plain else "false"},"args":[{encoded}]}}\n')
        return self._collect_rows(base, [timeout_each] * len(arg_lists), budget_end)

    def plans(self, plans: list[Plan], timeout_each: float,
              budget_end: float | None = None) -> list[Outcome]:
        """Run call plans (see plans.py) in one request; while plan i runs, the
        child's calls to the grader's proxies and callbacks of plan i are
        answered here, by the grader's own objects."""
        if not plans:
            return []
        if not self.alive:
            return [Outcome(failure="crash", detail=self.death())] * len(plans)
        base = secrets.token_hex(8)
        registry = Registry(first=self._next_number)
        texts = [plan.wire(registry, index) for index, plan in enumerate(plans)]
        self._next_number = registry.next_number
        self._send_text(f'{{"op":"plans","id":"{base}","plans":[{",".join(texts)}]}}\n')
        self._registry = registry
        try:
            return self._collect_rows(base, [plan.timeout or timeout_each for plan in plans],
                                      budget_end)
        finally:
            self._registry = None

    def _collect_rows(self, base: str, timeouts: list[float],
                      budget_end: float | None) -> list[Outcome]:
        """One outcome per row of a map or plans request, each with its own deadline."""
        outcomes: list[Outcome] = []
        for index, timeout in enumerate(timeouts):
            started = time.perf_counter()
            deadline = time.monotonic() + timeout
            over_budget = budget_end is not None and budget_end < deadline
            self._late_error = None
            self._plan_callbacks = 0
            row = self._read_row(min(deadline, budget_end) if over_budget else deadline,
                                 base, index)
            if row is None:
                if over_budget and self._fail_reason == "timeout":
                    self.kill()
                    outcomes.append(Outcome(failure="budget", detail="not reached: the check's "
                                            "time budget ran out", seconds=0.0))
                else:
                    outcomes.append(self._outcome(None, timeout, started))
                break
            outcomes.append(_row_outcome(row, time.perf_counter() - started))
        if outcomes[-1].failure == "budget":
            rest = outcomes[-1]
        elif outcomes[-1].failure == "too_much":
            rest = Outcome(failure="too_much", detail=outcomes[-1].detail)
        else:
            rest = Outcome(failure="unreached", detail="not reached: an earlier call failed")
        return outcomes + [rest] * (len(timeouts) - len(outcomes))

    def _answer(self, row: list, index: int) -> None:
        """A call of the child's to one of the grader's objects (kinds 5: wait for the
        answer, 6: record only). Nothing in it is trusted: the registry decides what
        may be called, and the grader's own object decides the answer."""
        waits = row[2] == 5
        self.callbacks += 1
        self._plan_callbacks += 1
        found, refusal = None, "the grader takes no calls now"
        call = row[3] if type(row[3]) is list and len(row[3]) in (3, 4) else None
        if self._registry is not None and call is not None and row[1] == index:
            found, refusal = self._registry.lookup(call[0], call[1], index)
        if found is not None and found[1] != waits:
            found, refusal = None, "the call was sent the wrong way"
        if self._plan_callbacks > MAX_CALLBACKS:
            found, refusal = None, f"more than {MAX_CALLBACKS:,} calls to the grader's objects"
        error = None
        if found is None:
            error = ["RuntimeError", refusal]
        else:
            args = self._registry.own(call[2], index) if type(call[2]) is list else []
            kwargs = call[3] if len(call) == 4 and type(call[3]) is dict else {}
            kwargs = {k: self._registry.own(v, index) for k, v in kwargs.items()
                      if type(k) is str}
            try:
                value = found[0](*args, **kwargs)
            except Exception as problem:   # the student's arguments made the grader's object fail
                error = [type(problem).__name__, str(problem)[:300]]
        if not waits:
            if found is None:
                return      # a recorded call that is not this plan's: nobody waits, drop it
            if error is not None and self._late_error is None:
                self._late_error = [error[0], f"an earlier {call[1] if call else 'call'}() "
                                              f"failed: {error[1]}"]
            return
        if error is None and self._late_error is not None:
            error, self._late_error = self._late_error, None
        if error is not None:
            self._send_text(protocol.dumps({"e": error}))
            return
        try:
            self._send_text(protocol.dumps({"r": protocol.to_plain(value)}))
        except protocol.Unencodable as problem:   # a bug in a suite, not the student's
            self._send_text(protocol.dumps({"e": ["RuntimeError", f"grader error: {problem}"]}))

    def _read_row(self, deadline: float, base: str, index: int) -> list | None:
        """The reply row [base, index, kind, value(, args)], parsing buffered rows in
        bulk and answering the child's calls to the grader's objects on the way."""
        while True:
            while self._rows:
                row = self._rows.popleft()
                if type(row) is list and len(row) >= 4 and row[0] == base:
                    if row[2] == 5 or row[2] == 6:
                        self._answer(row, index)
                        continue
                    if row[1] == index:
                        return row
                elif type(row) is dict and "note" in row:
                    self._note(row["note"])
                # anything else is stale or forged: ignore it
            end = self._buffer.rfind(b"\n")
            if end >= 0:
                chunk = bytes(self._buffer[:end])
                del self._buffer[:end + 1]
                self._scanned = 0
                try:
                    self._rows.extend(protocol.loads(b"[" + chunk.replace(b"\n", b",") + b"]"))
                except (ValueError, RecursionError):
                    self._fail_reason = "sent something that is not a valid reply"
                    return None
                continue
            if not self._fill(deadline):
                return None

    def loaded(self, timeout: float = 5.0) -> list[tuple[str, str | None]]:
        """The modules the child's interpreter holds, with their files (what the
        child says: for the kit's own tests, with code of ours beside it)."""
        outcome = self.request({"op": "loaded"}, timeout)
        return [tuple(pair) for pair in outcome.value] if outcome.ok else []

    def signal(self, sig: int) -> None:
        """Send `sig` to the child's whole process group (SIGSTOP/SIGCONT to freeze
        a player while its opponent thinks)."""
        if self.alive:
            try:
                os.killpg(self.process.pid, sig)
            except (ProcessLookupError, PermissionError):
                pass

    def output(self, timeout: float = 2.0) -> str:
        if not self.alive:
            return ""
        outcome = self.request({"op": "output"}, timeout)
        return outcome.value if outcome.ok and isinstance(outcome.value, str) else ""


def _row_outcome(row: list, seconds: float) -> Outcome:
    """The outcome of one compact row [base, index, kind, value(, args)]."""
    kind, value = row[2], row[3]
    if kind == 0:
        return Outcome(ok=True, value=value, seconds=seconds,
                       args_after=row[4] if len(row) > 4 else None)
    if kind == 1 and isinstance(value, dict):
        raised = {k: None if value.get(k) is None else str(value.get(k))
                  for k in ("type", "message", "where")}
        if type(value.get("step")) is int:
            raised["step"] = value["step"]
        return Outcome(raised=raised, seconds=seconds)
    if kind == 3:
        return Outcome(failure="missing", detail=str(value)[:300], seconds=seconds)
    return Outcome(failure="bad_value", detail=str(value)[:300], seconds=seconds)


def _worker_uid(slot: int = 0) -> int:
    """A user of its own for each grading process and slot (two children alive at
    once, like the players of a game, get two), from a range no ordinary account
    uses, so one sandbox can never signal or read another's."""
    return 61000 + (os.getpid() % 16000) * 2 + slot % 2


def _hand_over(scratch: Path, uid: int) -> None:
    """Give the scratch folder to the sandbox's user, so it can write there."""
    os.chown(scratch, uid, uid)
    for path in scratch.rglob("*"):
        if not path.is_symlink():
            os.chown(path, uid, uid)


# Suites reuse the same argument tuples for every submission a worker grades:
# encode each once. Keyed by id() with the tuple kept alive, so ids never repeat.
_ENCODED: dict[int, tuple[tuple, str, bool]] = {}


def _encoded(args: tuple) -> tuple[str, bool]:
    """(JSON text, has no handles) of an argument tuple, cached."""
    hit = _ENCODED.get(id(args))
    if hit is not None and hit[0] is args:
        return hit[1], hit[2]
    text = json.dumps(protocol.to_plain(list(args)), separators=(",", ":"), allow_nan=False)
    plain = _is_plain(args)
    if type(args) is tuple and len(_ENCODED) < 200_000:
        _ENCODED[id(args)] = (args, text, plain)
    return text, plain


def _encoded_args(args: tuple) -> str:
    return _encoded(args)[0]


def _is_plain(value) -> bool:
    """True if no handle hides inside (the child can skip unwrapping)."""
    kind = type(value)
    if kind is protocol.Handle:
        return False
    if kind is list or kind is tuple:
        return all(_is_plain(v) for v in value)
    if kind is dict:
        return all(_is_plain(v) for v in value.values())
    return True


def _call_message(target, args, kwargs, keep, return_args) -> dict:
    if isinstance(target, protocol.Handle):
        raise TypeError("call a method: pass (handle, 'method') as the target")
    if isinstance(target, tuple):
        handle, attr = target
        target = {"handle": handle.number, "attr": attr}
    return {"op": "call", "target": target, "args": protocol.to_plain(list(args)),
            "kwargs": protocol.to_plain(dict(kwargs or {})), "keep": keep,
            "return_args": return_args}

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

CHILD = Path(__file__).with_name("child.py")
MAX_REPLY = 8 << 20        # bytes in one reply line
MB = 1 << 20


@dataclass(frozen=True)
class Limits:
    memory_bytes: int = 512 * MB
    cpu_seconds: int = 300          # for the child's whole life; calls have wall-clock limits
    file_bytes: int = 4 * MB
    open_files: int = 64
    output_cap: int = 20000         # characters of student output kept
    start_timeout: float = 10.0


@dataclass
class Outcome:
    """What one call did. `failure` is set when the child did not answer normally."""
    ok: bool = False
    value: object = None
    raised: dict | None = None      # {"type", "message", "where"} of the student's exception
    args_after: list | None = None
    failure: str | None = None      # timeout, crash, bad_value, protocol, skipped, unreached,
                                    # missing (no such function), budget (the check's
                                    # time budget ran out before this call)
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
    kit: dict[str, str] = field(default_factory=dict)
    python: str = sys.executable

    def __post_init__(self):
        self.process = None
        self.notes: list[str] = []
        self.applied: list[str] = []
        self._buffer = bytearray()
        self._scanned = 0     # bytes of the buffer known to hold no newline
        self._rows = collections.deque()   # parsed rows of a map not yet consumed
        self._reader = None
        self._writer = None
        self.start_seconds = 0.0

    # ------------------------------------------------------------ life cycle
    def start(self) -> None:
        started = time.perf_counter()
        confine_uid = None
        if "uid" in self.layers:
            confine_uid = _worker_uid()
            _hand_over(Path(self.scratch), confine_uid)
        parent_r, child_w = os.pipe()
        child_r, parent_w = os.pipe()
        config = {
            "rfd": child_r, "wfd": child_w, "scratch": str(Path(self.scratch).resolve()),
            "modules": list(self.modules), "kit": dict(self.kit), "layers": list(self.layers),
            "uid": confine_uid,
            "output_cap": self.limits.output_cap,
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

    def _fill(self, deadline: float) -> bool:
        """Read what the child sent into the buffer; False (with a reason) when it
        is too late, the child is gone, or a reply grows past the cap."""
        if len(self._buffer) > MAX_REPLY:
            self._fail_reason = f"sent a reply larger than {MAX_REPLY // MB} MB"
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
                    if str(message["note"]) not in self.notes:
                        self.notes.append(str(message["note"])[:200])
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
        if self.notes:
            return "killed: " + self.notes[-1]
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
        self.notes = []
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
        self.notes = []
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
        self.notes = []
        self._send_text(f'{{"op":"map","id":"{base}","target":{json.dumps(target)},'
                        f'"return_args":{"true" if return_args else "false"},'
                        f'"plain":{"true" if plain else "false"},"args":[{encoded}]}}\n')
        outcomes: list[Outcome] = []
        for index in range(len(arg_lists)):
            started = time.perf_counter()
            deadline = time.monotonic() + timeout_each
            over_budget = budget_end is not None and budget_end < deadline
            row = self._read_row(min(deadline, budget_end) if over_budget else deadline,
                                 base, index)
            if row is None:
                if over_budget and self._fail_reason == "timeout":
                    self.kill()
                    outcomes.append(Outcome(failure="budget", detail="not reached: the check's "
                                            "time budget ran out", seconds=0.0))
                else:
                    outcomes.append(self._outcome(None, timeout_each, started))
                break
            seconds = time.perf_counter() - started
            kind, value = row[2], row[3]
            if kind == 0:
                outcomes.append(Outcome(ok=True, value=value, seconds=seconds,
                                        args_after=row[4] if len(row) > 4 else None))
            elif kind == 1 and isinstance(value, dict):
                outcomes.append(Outcome(raised={k: None if value.get(k) is None
                                                else str(value.get(k))
                                                for k in ("type", "message", "where")},
                                        seconds=seconds))
            elif kind == 3:
                outcomes.append(Outcome(failure="missing", detail=str(value)[:300],
                                        seconds=seconds))
            else:
                outcomes.append(Outcome(failure="bad_value", detail=str(value)[:300],
                                        seconds=seconds))
        if outcomes[-1].failure == "budget":
            rest = outcomes[-1]
        else:
            rest = Outcome(failure="unreached", detail="not reached: an earlier call failed")
        return outcomes + [rest] * (len(arg_lists) - len(outcomes))

    def _read_row(self, deadline: float, base: str, index: int) -> list | None:
        """The reply row [base, index, kind, value(, args)], parsing buffered rows in bulk."""
        while True:
            while self._rows:
                row = self._rows.popleft()
                if type(row) is list and len(row) >= 4 and row[0] == base and row[1] == index:
                    return row
                if type(row) is dict and "note" in row:
                    note = str(row["note"])[:200]
                    if note not in self.notes:
                        self.notes.append(note)
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

    def output(self, timeout: float = 2.0) -> str:
        if not self.alive:
            return ""
        outcome = self.request({"op": "output"}, timeout)
        return outcome.value if outcome.ok and isinstance(outcome.value, str) else ""


def _worker_uid() -> int:
    """A user of its own for each grading process (its sandboxes cannot touch another
    worker's), from a range no ordinary account uses."""
    return 61000 + os.getpid() % 4000


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
    """(JSON text, has no handles or kit references) of an argument tuple, cached."""
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
    """True if no handle or kit reference hides inside (the child can skip unwrapping)."""
    kind = type(value)
    if kind is protocol.Handle or kind is protocol.Ref:
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

"""The trusted side of the sandbox: start a confined child, call into it, kill it.

Nothing the child sends is trusted: replies must echo the random id of the
request, are capped in size, decoded as plain data only, and a child that is
late is killed with its whole process group.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import json
import math
import os
import secrets
import select
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from . import protocol, syscalls
from ..i18n import grader_text as _, places
from .plans import Plan, Registry
from .protocol import ABSENT, ASK, CHUNK, KNEW, RAISED, RETURNED, TELL

CHILD = Path(__file__).with_name("child.py")
# The child's code, compiled once per grading process rather than by every child
# (docs/PERFORMANCE.md) and given to each in a sealed memory file (Linux's memfd): the
# child's first lines (_BOOT, the kit's own code) load it and close the file.
CHILD_MODULES = ("protocol", "confine")
_BOOT = (
    "import marshal,os,sys\n"
    "f=int(sys.argv[1]);c=marshal.loads(os.pread(f,int(sys.argv[2]),0));os.close(f)\n"
    "for n in " + repr(CHILD_MODULES) + ":\n"
    " m=type(sys)(n);m.__file__=c[n][1];sys.modules[n]=m;exec(c[n][0],m.__dict__)\n"
    "sys.argv[:]=[c['child'][1],sys.argv[3]];__file__=c['child'][1];k=c['child'][0]\n"
    "del f,c,n,m,marshal\n"
    "exec(k)\n")      # in __main__'s own namespace, as when child.py runs as the script


@functools.cache
def compiled_child() -> tuple[int, int] | None:
    """(a sealed memory file holding the child's compiled code, its size), made on
    first use and inherited by forked workers; None where the OS has no memfd (the
    child then compiles its files itself)."""
    import fcntl
    import marshal
    paths = {name: CHILD.with_name(f"{name}.py") for name in CHILD_MODULES} | {"child": CHILD}
    try:
        codes = {name: (compile(path.read_bytes(), str(path), "exec", dont_inherit=True,
                                optimize=0), str(path)) for name, path in paths.items()}
        data = marshal.dumps(codes)
        fd = os.memfd_create("spielbaum-child", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    except (AttributeError, OSError):
        return None
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_WRITE | fcntl.F_SEAL_SHRINK
                    | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL)
    except (AttributeError, OSError):
        os.close(fd)
        return None
    return fd, len(data)


MB = 1 << 20
MAX_REPLY = 1 * MB         # bytes in one reply line
MAX_NOTES = 100            # refusals kept word for word per sandbox; the rest are counted
MAX_CALLBACKS = 250_000    # calls back to the grader's objects in one plan (honest: < 1,000)
MAX_TEXT = 400             # characters kept of any text the child sends (messages, notes)
QUICK = 0.002              # seconds a wait blocks before the child's clock is read
ANSWER_WRITE_SECONDS = 5.0  # a child that asked a grader's object is waiting for the
                            # answer: if it does not read it within this, it stopped reading
# Time limits are seconds of the child's own CPU time: other processes on the machine
# do not count against the student. Time the child *chose* not to run (asleep or
# blocked: time.sleep, a lock, a read) is charged on its own, against a small
# allowance per call and per check (`Waiting`; Student sets them from the rubric's
# Timeouts). A wall-clock backstop is the last resort for what neither measure sees
# (a kernel that does not say, a grader that is slow to answer): WALL_FACTOR times
# the CPU limit, plus WALL_EXTRA seconds.
WALL_FACTOR = 8
WALL_EXTRA = 2.0
_TICKS = os.sysconf("SC_CLK_TCK")
INF = float("inf")
NAPPING = 0.2       # seconds a call has waited without computing before the grading
                    # process says so (`idle_flag`: the pool may lend its CPU meanwhile)


def backstop(cpu_seconds: float) -> float:
    """Wall-clock seconds a wait with `cpu_seconds` of CPU time may take at most."""
    return WALL_FACTOR * cpu_seconds + WALL_EXTRA


#: Set in a grading worker by its pool (grading/workers.py) to a shared value: 1 while the
#: call being waited for has waited NAPPING seconds without computing, else 0.
idle_flag = None
#: Seconds the children of this process waited without computing, in all (for the
#: summary's line about a slow submission: grading/batch.py).
waited_total = 0.0


@dataclass(frozen=True)
class Limits:
    memory_bytes: int = 512 * MB
    cpu_seconds: int = 300          # for the child's whole life (RLIMIT_CPU)
    file_bytes: int = 4 * MB
    open_files: int = 64
    output_cap: int = 20000         # characters of student output kept
    start_timeout: float = 10.0
    disk_bytes: int = 64 * MB       # the whole scratch folder (a private tmpfs)
    disk_files: int = 1000          # files and folders in it
    check_bytes: int = 16 * MB      # reply bytes read during one check, all calls together
    check_items: int = 1_000_000    # JSON values decoded during one check (honest: < 430,000)


class Failure(StrEnum):
    """Why a call gave no normal answer (`Outcome.failure`); equal to its string."""
    TIMEOUT = "timeout"       # used more than its CPU time
    WAITED = "waited"         # the wall-clock backstop ended it (it slept or blocked)
    CRASH = "crash"           # the child died
    BAD_VALUE = "bad_value"   # returned something that cannot be checked
    PROTOCOL = "protocol"     # broke the wire format, or stopped reading the grader
    SKIPPED = "skipped"       # not run: an earlier call of the same function failed
    UNREACHED = "unreached"   # not run: an earlier call of the same request failed
    MISSING = "missing"       # no such function
    BUDGET = "budget"         # the check's time budget ran out before this call
    TOO_MUCH = "too_much"     # the check's replies passed Limits.check_bytes / check_items
    IMPORT = "import"         # the modules do not import
    CEILING = "ceiling"       # the submission's total time ran out


#: Failures after which the child is gone (killed or dead) and the function is skipped later.
FATAL = frozenset({Failure.TIMEOUT, Failure.WAITED, Failure.CRASH, Failure.PROTOCOL,
                   Failure.TOO_MUCH, Failure.CEILING})


@dataclass
class Outcome:
    """What one call did. `failure` is set when the child did not answer normally."""
    ok: bool = False
    value: object = None
    raised: dict | None = None      # {"type", "message", "where"} of the student's exception
    args_after: list | None = None  # the arguments after the call as the child reports
                                    # them: for feedback only, never for a verdict
    again: "Outcome | None" = None  # the answer of the same call made again on the same
                                    # argument objects (map(..., again=True))
    failure: Failure | None = None
    detail: str = ""                # human words for a failure
    seconds: float = 0.0
    idle: bool = False              # WAITED past its allowance without computing (Activity),
                                    # not past the wall-clock backstop

    @property
    def answered(self) -> bool:
        return self.failure is None and self.raised is None


@dataclass(slots=True)
class Wait:
    """How long one reply may take: `cpu` seconds of the child's CPU time from the
    moment the grader starts waiting, at most `idle` seconds of them waited without
    computing (`Activity`), and a wall-clock end as a backstop."""
    cpu: float
    wall_end: float
    idle: float = INF                 # seconds it may wait without computing
    cpu_start: float | None = None    # the child's CPU time when waiting began (lazy)
    idle_start: float | None = None   # the request's waiting so far when this began (lazy)
    answering: float = 0.0            # CPU seconds the grader spent answering its calls
    calls: int = 0                    # ... and how many


@dataclass
class Budget:
    """One hidden check's time: `cpu` seconds of child CPU time for all its calls
    together (children restarted during the check included), and a wall-clock end."""
    cpu: float
    wall_end: float
    spent_before: float = 0.0         # CPU of children that died during this check
    waited_before: float = 0.0        # ... and what they waited without computing

    @classmethod
    def of(cls, cpu: float) -> "Budget":
        return cls(cpu, time.monotonic() + backstop(cpu))


class Activity:
    """How long a process's threads ran or were ready to run (waiting for a CPU), from
    Linux's /proc/<pid>/task/<tid>/schedstat (run time and run-queue wait, ns). The
    rest of the wall time the process chose not to run: every thread asleep or
    blocked. A busy machine adds run-queue wait, never waiting.

    Every thread counts (the student's own, the child's flusher, which sleeps by
    design but is then neither running nor ready): a process waits only while none of
    its threads runs or is ready. A thread that ended keeps what it showed last; its
    CPU time since is in the process's total (/proc/<pid>/stat), which the caller
    takes as the least run time (Mark.waited_until). Threads ready at the same time
    each count: a child whose many threads compete for its one CPU can hide some
    waiting in the same call, bought with as much CPU time (its limit) and bounded by
    the call's backstop. The counts are read cumulatively from a request's start,
    never summed over short intervals: a thread's wait for a CPU reaches schedstat only
    when it runs, and intervals cut through such waits would count them as waiting."""

    #: Threads read at most: each is a file the grader holds open (a child's address
    #: space allows about 60 threads; more are left unread, their run time still in
    #: the process's total, their waiting for a CPU counted as waiting).
    MAX_THREADS = 64

    def __init__(self, pid: int):
        self.pid = pid
        self.tasks: dict[int, int] = {}          # thread id -> open schedstat
        self.seen: dict[int, tuple[int, int]] = {}   # thread id -> (run, ready) ns
        self.gone = [0, 0]                       # what ended threads showed last
        self.works = True

    def read(self, threads: int) -> tuple[int, int] | None:
        """(run ns, ready ns) of all threads so far; None where Linux does not say.
        `threads`: how many the process has now (/proc/<pid>/stat), so the list of
        threads is read again only when it changed."""
        if not self.works:
            return None
        if len(self.tasks) != threads:
            self._rescan()
        run, ready = self.gone
        for tid, fd in list(self.tasks.items()):
            try:
                fields = os.pread(fd, 96, 0).split()
                seen = int(fields[0]), int(fields[1])
            except (OSError, ValueError, IndexError):
                self._ended(tid)
                continue
            self.seen[tid] = seen
            run += seen[0]
            ready += seen[1]
        return (run, ready) if self.works else None

    def _rescan(self) -> None:
        try:
            tids = {int(name) for name in os.listdir(f"/proc/{self.pid}/task")}
        except (OSError, ValueError):
            tids = set()
        for tid in set(self.tasks) - tids:
            self._ended(tid)
        room = max(0, self.MAX_THREADS - len(self.tasks))
        for tid in sorted(tids - set(self.tasks))[:room]:     # the main thread first
            try:
                self.tasks[tid] = os.open(f"/proc/{self.pid}/task/{tid}/schedstat",
                                          os.O_RDONLY)
            except OSError:
                continue
        if not self.tasks and not self.seen:
            self.works = False          # no schedstat here: the backstop alone

    def _ended(self, tid: int) -> None:
        fd = self.tasks.pop(tid, None)
        if fd is not None:
            os.close(fd)
        run, ready = self.seen.pop(tid, (0, 0))
        self.gone[0] += run
        self.gone[1] += ready

    def close(self) -> None:
        for fd in self.tasks.values():
            os.close(fd)
        self.tasks.clear()
        self.works = False


_own_fds: dict[int, int | None] = {}    # grader thread id -> its open schedstat


def grader_activity() -> float:
    """Seconds the calling thread of the grader has run (its CPU clock) or waited for
    a CPU (its schedstat): while it works or waits to, the child may be waiting for
    it (a call back, a full pipe, the next request), which is never the student's."""
    tid = threading.get_native_id()
    fd = _own_fds.get(tid, -1)
    if fd == -1:
        try:
            fd = os.open("/proc/thread-self/schedstat", os.O_RDONLY)
        except OSError:
            fd = None
        if len(_own_fds) < 64:
            _own_fds[tid] = fd
    ready = 0.0
    if fd is not None:
        try:
            ready = int(os.pread(fd, 96, 0).split()[1]) / 1e9
        except (OSError, ValueError, IndexError):
            pass
    return time.thread_time() + ready


@dataclass(slots=True)
class Mark:
    """Where the clocks stood: wall, the child's CPU (/proc/<pid>/stat, all threads,
    ended ones too), its threads' run and ready ns (Activity), the grader's activity."""
    wall: float
    cpu: float
    run: int
    ready: int
    grader: float

    def waited_until(self, later: "Mark") -> float:
        """Seconds between the two marks that the child neither ran nor was ready to
        run, nor waited for the grader (which ran or was ready meanwhile)."""
        ran = max((later.run - self.run) / 1e9, later.cpu - self.cpu)
        return (later.wall - self.wall - ran - (later.ready - self.ready) / 1e9
                - (later.grader - self.grader))


def text(value, limit: int = MAX_TEXT) -> str:
    """Student text as the grader keeps it: a str, at most `limit` characters, and
    writable anywhere (lone surrogates and other unencodable code points escaped)."""
    value = (value if type(value) is str else str(value))[:limit]
    return value.encode("utf-8", "backslashreplace").decode("utf-8")


class SandboxError(Exception):
    """The child could not be started or confined: the student code did not run."""


class _Stop(Exception):
    """A read or write to the child gave up; `failure` and `detail` say why."""

    def __init__(self, failure: Failure, detail: str = ""):
        super().__init__(detail)
        self.failure, self.detail = failure, detail


@dataclass
class Sandbox:
    scratch: Path
    modules: list[str]
    layers: list[str]
    limits: Limits = field(default_factory=Limits)
    python: str = sys.executable
    uid_slot: int = 0      # children alive at once in one process need different slots
    # Packages beyond the standard library the assignment allows (grading/imports.py):
    # (name, its own folder) pairs, and every folder the child may read for them (the
    # packages' folders and their .libs), never the site-packages that holds them.
    packages: tuple = ()
    allowed_folders: tuple = ()

    def __post_init__(self):
        self.process = None
        self._killed = None     # the process whose group kill() ended (see kill)
        self.notes: dict[str, None] = {}   # distinct refusals, first MAX_NOTES
        self.notes_total = 0               # every refusal note received
        self.seen: dict[str, None] = {}    # distinct attempts no layer here stops
        self.last_note = ""
        self.bytes_left = self.limits.check_bytes
        self.items_left = self.limits.check_items
        self.callbacks = 0                 # calls back answered (or recorded) in all plans
        self.answered_ahead = 0            # ... of them answered in the child (KNEW records)
        self._plan_callbacks = 0           # ... in the plan being run (capped)
        self.applied: list[str] = []
        self._buffer = bytearray()
        self._scanned = 0     # bytes of the buffer known to hold no newline
        self._rows = collections.deque()   # parsed rows of a map not yet consumed
        self._rows_tagged = False  # some of them may hold a stand-in's tag (see _answer)
        self._reader = None
        self._writer = None
        self._stat = None     # /proc/<pid>/stat of the child, open: its CPU time
        self._registry: Registry | None = None
        self._wait: Wait | None = None     # the wait in progress (answers share its end)
        self._next_number = 1     # proxies get numbers never used before in this child
        self._late_error = None
        self._checked = 0.0       # when time was last checked (monotonic)
        self._own_activity = 0.0  # s the grader ran or was ready between its own timers
        self.wall_ceiling = float("inf")   # monotonic end of the submission's time
        self.cpu_mark = 0.0       # the child's CPU time when the current check began
        self.cpu_final = None     # ... and when it was killed
        self.peak_memory = 0      # the largest address space seen while waiting (bytes)
        # Waiting without computing (Activity): allowances set by the owner (Student,
        # from the rubric's Timeouts), and what this child waited so far.
        self.wait_call = INF      # seconds one call may wait
        self.wait_check = INF     # ... all calls of one check together (its children's)
        self.waited_before = 0.0  # ... of which the check's other children waited this
        self.check_waited = 0.0   # waited in this check's finished requests, this child
        self.waited = 0.0         # waited in all its finished requests
        self._activity: Activity | None = None
        self._mark: Mark | None = None    # the clocks when the request in progress began
        self._napping = False     # idle_flag set for this child's wait
        self.start_marks: tuple[float, ...] = ()   # monotonic: spawn, up, loaded, confined, hello

    # ------------------------------------------------------------ life cycle
    def start(self) -> None:
        started_clock = time.monotonic()
        confine_uid = None
        if "uid" in self.layers:
            if os.geteuid() != 0:
                raise SandboxError("sandbox setup failed: only root can run the child as "
                                   "a user of its own")
            confine_uid = _worker_uid(self.uid_slot)
            _hand_over(Path(self.scratch), confine_uid)
        seccomp = None
        if "seccomp" in self.layers:
            try:
                seccomp = syscalls.program().hex()
            except syscalls.SeccompUnavailable as error:
                raise SandboxError(f"sandbox setup failed: {error}") from None
        parent_r, child_w = os.pipe()
        child_r, parent_w = os.pipe()
        config = {
            "rfd": child_r, "wfd": child_w, "scratch": str(Path(self.scratch).resolve()),
            "modules": list(self.modules), "layers": list(self.layers),
            "uid": confine_uid, "parent": os.getpid(), "seccomp": seccomp,
            "output_cap": self.limits.output_cap,
            "allowed_folders": [str(folder) for folder in self.allowed_folders],
            "packages": {name: str(folder) for name, folder in self.packages},
            "disk": {"bytes": self.limits.disk_bytes, "files": self.limits.disk_files},
            "limits": {name: getattr(self.limits, name) for name in
                       ("cpu_seconds", "memory_bytes", "file_bytes", "open_files")},
        }
        code = compiled_child() if self.python == sys.executable else None
        command = [self.python, "-I", "-S", "-B"] + (
            ["-c", _BOOT, str(code[0]), str(code[1])] if code else [str(CHILD)])
        try:
            self.process = subprocess.Popen(
                command + [json.dumps(config)],
                pass_fds=(child_r, child_w) + (code[:1] if code else ()),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                cwd=self.scratch, start_new_session=True,
                env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"})
        finally:
            os.close(child_r)
            os.close(child_w)
        self._reader, self._writer = parent_r, parent_w
        os.set_blocking(parent_w, False)     # every write has a deadline (_send_text)
        try:
            self._stat = os.open(f"/proc/{self.process.pid}/stat", os.O_RDONLY)
        except OSError:
            self._stat = None
        try:
            hello = self._read_message(Wait(INF, time.monotonic() + self.limits.start_timeout))
        except _Stop:
            hello = None
        if hello is None or not hello.get("ready"):
            reason = text((hello or {}).get("error") or "the sandbox did not start")
            self.kill()
            raise SandboxError(f"sandbox setup failed: {reason}")
        self.applied = [layer for layer in hello.get("layers", []) if type(layer) is str]
        # Our own child's clock before any student code ran (bench_overhead splits
        # the start with it): interpreter up, plumbing loaded, confined.
        marks = hello.get("marks")
        if type(marks) is list and len(marks) == 3 and all(type(m) is float for m in marks):
            self.start_marks = (started_clock, *marks, time.monotonic())
        missing = set(self.layers) - set(self.applied)
        if missing:
            self.kill()
            raise SandboxError(f"sandbox layers not applied: {', '.join(sorted(missing))}")

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def cpu_seconds(self) -> float | None:
        """The child's CPU time so far (all its threads), read from /proc; None once
        it is gone. Other processes on the machine never count here."""
        stat = self._read_stat()
        return self.cpu_final if stat is None else stat[0]

    def _read_stat(self) -> tuple[float, int] | None:
        """(the child's CPU seconds, its number of threads) from /proc/<pid>/stat, its
        peak memory kept on the way; None once it is gone."""
        if self._stat is None:
            return None
        try:
            data = os.pread(self._stat, 1024, 0)
            fields = data[data.rindex(b")") + 2:].split()
            self.peak_memory = max(self.peak_memory, int(fields[20]))   # vsize, bytes
            return (int(fields[11]) + int(fields[12])) / _TICKS, int(fields[17])
        except (OSError, ValueError, IndexError):
            return None

    # ------------------------------------------------------------ waiting
    def _clocks(self, stat: tuple[float, int] | None = None) -> Mark | None:
        """The clocks now (Mark); None where the child is gone or Linux does not say."""
        stat = stat or self._read_stat()
        if stat is None or self.process is None:
            return None
        if self._activity is None:
            self._activity = Activity(self.process.pid)
        threads = self._activity.read(stat[1])
        if threads is None:
            return None
        return Mark(time.monotonic(), stat[0], threads[0], threads[1],
                    grader_activity() - self._own_activity)

    def _begin(self, wait: Wait) -> None:
        """A request is sent: its waiting is counted from here (its first wait's too)."""
        self._mark = self._clocks() if wait.idle < INF else None
        wait.idle_start = 0.0

    def _finish(self) -> None:
        """The request is over: what it waited counts toward the check's allowance."""
        global waited_total
        mark, self._mark = self._mark, None
        if self._napping:
            self._napping = False
            if idle_flag is not None:
                idle_flag.value = 0
        if mark is None:
            return
        now = self._clocks()
        if now is not None:
            waited = max(0.0, mark.waited_until(now))
            self.check_waited += waited
            self.waited += waited
            waited_total += waited

    def _check_waiting(self, wait: Wait, stat: tuple[float, int]) -> None:
        """Raise _Stop if the call, or the check's calls together, waited past their
        allowance without computing."""
        now = self._clocks(stat)
        if now is None:
            return
        waited = self._mark.waited_until(now)
        if wait.idle_start is None:
            wait.idle_start = waited
        call = waited - wait.idle_start
        if call >= wait.idle:
            raise _Stop(Failure.WAITED, _(
                "waited more than {seconds:.1f} s without computing: time.sleep, input() or "
                "a lock?").format(seconds=wait.idle))
        if self.waited_before + self.check_waited + waited >= self.wait_check:
            raise _Stop(Failure.WAITED, _(
                "its calls in this check waited more than {seconds:.1f} s in all without "
                "computing: time.sleep, input() or a lock?").format(seconds=self.wait_check))
        if (call >= NAPPING) != self._napping:
            self._napping = call >= NAPPING
            if idle_flag is not None:
                idle_flag.value = int(self._napping)

    def check_cpu(self) -> float:
        """CPU seconds the child has used since the current check began."""
        now = self.cpu_seconds()
        return max(0.0, (now if now is not None else self.cpu_mark) - self.cpu_mark)

    def kill(self) -> None:
        if self.process is None:
            return
        if self._stat is not None:
            self.cpu_final = self.cpu_seconds()
        if self._activity is not None:
            self._activity.close()
            self._activity = None
        if self._killed is not self.process:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=5)
        if self.process.returncode is not None:
            # Its whole group got SIGKILL and its leader is reaped: the group's number
            # may be another process's by the next kill (the grader runs as root)
            self._killed = self.process
        for fd in (self._reader, self._writer, self._stat):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._reader = self._writer = self._stat = None

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.kill()

    # ------------------------------------------------------------ transport
    def _send_text(self, message: str, wait: Wait, patience: float | None = None) -> None:
        """Write to the child before the wait's wall-clock end (and within `patience`
        seconds of the first write that has to wait, where given): a child that stops
        reading cannot block the grader (the pipe is non-blocking)."""
        view = memoryview(message.encode())
        end = wait.wall_end
        while view:
            try:
                view = view[os.write(self._writer, view):]
                continue
            except BlockingIOError:
                pass
            except (OSError, TypeError):
                return    # the child is gone; the read that follows reports how
            if patience is not None:
                end, patience = min(end, time.monotonic() + patience), None
            remaining = min(end, self.wall_ceiling) - time.monotonic()
            if remaining <= 0:
                raise _Stop(Failure.PROTOCOL, _("stopped reading what the grader sent"))
            select.select([], [self._writer], [], min(remaining, 1.0))

    def new_check(self) -> None:
        """A hidden check begins: fresh allowances of reply bytes and decoded values,
        and its CPU time and waiting counted from here."""
        self.bytes_left = self.limits.check_bytes
        self.items_left = self.limits.check_items
        self.check_waited = 0.0
        now = self.cpu_seconds()
        self.cpu_mark = now if now is not None else 0.0

    def _note(self, note, seen=None) -> None:
        """A refusal the child reports (`note`), or something it tried that no layer
        in force stops (`seen`: told to the teacher, never called a refusal)."""
        if note is None:
            if len(self.seen) < MAX_NOTES:
                self.seen[text(seen, 200)] = None
            return
        self.notes_total += 1
        note = text(note, 200)
        self.last_note = note
        if len(self.notes) < MAX_NOTES:
            self.notes[note] = None

    def _fill(self, wait: Wait, budget: Budget | None = None) -> None:
        """Read what the child sent into the buffer, or raise _Stop: the reply grew
        past its cap, the call used its CPU time (or the check its budget), the wall
        clock passed the backstop, or the child is gone. Time is checked whenever
        the grader would block, and every 50 ms while data keeps coming."""
        if len(self._buffer) > MAX_REPLY:
            raise _Stop(Failure.PROTOCOL, _("sent a reply larger than {megabytes} MB").format(
                megabytes=MAX_REPLY // MB))
        if self.bytes_left < 0:
            raise _Stop(Failure.TOO_MUCH, _("sent more than {megabytes} MB of answers in one "
                                            "check; the rest was not read").format(
                megabytes=self.limits.check_bytes // MB))
        if self.items_left < 0:
            raise self._too_many()
        now = time.monotonic()
        if now - self._checked >= 0.05:
            self._check_time(wait, budget)
        # Most waits end within a few milliseconds (a row of a fast map, a call back):
        # wait that long before reading the child's clock, so a quick answer costs one
        # system call. A call out of time is seen at most QUICK seconds later.
        ready, _writable, _errors = select.select([self._reader], [], [], QUICK)
        if not ready:
            self._poll(wait, budget)
        chunk = os.read(self._reader, 1 << 16)
        if not chunk:
            raise _Stop(Failure.CRASH)
        self.bytes_left -= len(chunk)
        self._buffer += chunk

    def _poll(self, wait: Wait, budget: Budget | None) -> None:
        """Wait for the child's bytes, reading its clocks between waits. No reply has
        come, so the child is not waiting for the grader here: what the grader runs or
        waits for a CPU from one wake-up on its own timer to its next wait is its own
        (`_own_activity`), kept out of the child's waiting (`_clocks`), the whole span:
        counting only each wake-up's wait for a CPU hid part of a sleep on a busy CPU
        (tests/kit/test_waiting.py). The first, QUICK wait of a read is not measured:
        most reads end in it, and measuring it would slow every call back
        (docs/PERFORMANCE.md)."""
        since = grader_activity()
        while True:
            now = grader_activity()
            self._own_activity += now - since
            since = now
            cpu_left = self._check_time(wait, budget)
            pause = min(0.2, max(0.005, cpu_left / 2),
                        min(wait.wall_end, self.wall_ceiling) - time.monotonic())
            if budget is not None:
                pause = min(pause, budget.wall_end - time.monotonic())
            ready, _writable, _errors = select.select([self._reader], [], [],
                                                      max(0.0, pause))
            if ready:
                return

    def _check_time(self, wait: Wait, budget: Budget | None) -> float:
        """Raise _Stop if the call or the check is out of time; else the CPU seconds
        the call has left."""
        now, stat = time.monotonic(), self._read_stat()
        self._checked = now
        if stat is None:
            return 0.0                   # gone: the read that follows sees the end
        cpu = stat[0]
        if wait.cpu_start is None:
            wait.cpu_start = cpu
        if budget is not None:
            if budget.spent_before + self.check_cpu() >= budget.cpu or now >= budget.wall_end:
                raise _Stop(Failure.BUDGET)
        used = cpu - wait.cpu_start + wait.answering
        if used >= wait.cpu:
            raise _Stop(Failure.TIMEOUT)
        if self._mark is not None:
            self._check_waiting(wait, stat)
        if now >= self.wall_ceiling:
            raise _Stop(Failure.CEILING)
        if now >= wait.wall_end:
            raise _Stop(Failure.WAITED)
        return wait.cpu - used

    def _stop_report(self) -> str:
        """Ask the child where the student's code is (SIGUSR1; the child's answer is
        for the feedback only) and wait briefly for the answer."""
        if not self.alive:
            return ""
        try:
            os.kill(self.process.pid, signal.SIGUSR1)
        except (ProcessLookupError, PermissionError):
            return ""
        end = time.monotonic() + 0.3
        seen = bytearray()
        while time.monotonic() < end and len(seen) < MAX_REPLY:
            ready, _writable, _errors = select.select([self._reader], [], [],
                                                      max(0.0, end - time.monotonic()))
            chunk = os.read(self._reader, 1 << 16) if ready else b""
            if not chunk:
                break
            seen += chunk
            start = seen.find(b'{"stuck":')
            newline = seen.find(b"\n", start) if start >= 0 else -1
            if newline > 0:
                try:
                    message = protocol.loads(bytes(seen[start:newline]))
                except (ValueError, RecursionError):
                    return ""
                return text(message.get("stuck", ""), 300) if type(message) is dict else ""
        return ""

    def _too_many(self) -> _Stop:
        return _Stop(Failure.TOO_MUCH, _("sent more than {values:,} values in its answers in "
                                         "one check; the rest was not read").format(
            values=self.limits.check_items))

    def _decode(self, data: bytes):
        """Decode reply bytes, bounded: depth and decoded values are checked on the
        bytes first, so no reply can grow the grader past what the caps allow."""
        opened = protocol.openings(data)
        self.items_left -= protocol.items(data, opened)
        if self.items_left < 0:
            raise self._too_many()
        if not protocol.nested_within(data, opened=opened):
            raise _Stop(Failure.PROTOCOL, _("sent a reply nested too deeply"))
        try:
            return protocol.loads(data)
        except (ValueError, RecursionError, TypeError):
            raise _Stop(Failure.PROTOCOL, _("sent something that is not a valid reply")) from None

    def _read_message(self, wait: Wait, expected_id: str | None = None) -> dict:
        """The next reply with `expected_id` (or the hello), or _Stop saying why not."""
        while True:
            newline = self._buffer.find(b"\n", self._scanned)
            self._scanned = len(self._buffer) if newline < 0 else 0
            if newline >= 0:
                line = bytes(self._buffer[:newline])
                del self._buffer[:newline + 1]
                message = self._decode(line)
                if not isinstance(message, dict):
                    continue
                if len(message) == 1 and ("note" in message or "seen" in message):
                    self._note(message.get("note"), message.get("seen"))
                    continue
                if expected_id is None or message.get("id") == expected_id:
                    return message
                continue  # a reply nobody asked for: forged or stale, ignore it
            self._fill(wait)

    # ------------------------------------------------------------ calls
    def _failed(self, stopped: _Stop, wait: Wait, started: float) -> Outcome:
        """The outcome of a call that gave no reply; the child is killed."""
        seconds = time.perf_counter() - started
        self._finish()
        reason = stopped.failure
        where = ""
        if reason in (Failure.TIMEOUT, Failure.WAITED, Failure.BUDGET, Failure.CEILING):
            where = self._stop_report()
        self.kill()
        stuck = _("; it was stopped in {place}").format(place=places(where)) if where else ""
        if reason == Failure.TIMEOUT:
            helped = (_(", counting the grader's time for answering its {calls:,} calls to "
                        "the grader's objects").format(calls=wait.calls)
                      if wait.answering > wait.cpu / 10 else "")
            detail = _("used more than {seconds:.1f} s of CPU time").format(
                seconds=wait.cpu) + helped + stuck
        elif reason == Failure.WAITED and stopped.detail:
            detail = stopped.detail + stuck      # it waited past its allowance (Activity)
        elif reason == Failure.WAITED:
            # the allowed wall time, not the measured one: the same words on any machine
            detail = _("waited more than {wall:.0f} s without finishing, using less than its "
                       "{seconds:.1f} s of CPU time (does it sleep, or wait for input?)").format(
                wall=backstop(wait.cpu), seconds=wait.cpu) + stuck
        elif reason == Failure.CRASH:
            detail = self.death()
        elif reason == Failure.BUDGET:
            detail = _("not reached: the check's time budget ran out") + stuck
        elif reason == Failure.CEILING:
            detail = _("stopped: the submission used up the time grading one submission may "
                       "take") + stuck
        else:
            detail = stopped.detail
        return Outcome(failure=reason, detail=detail, seconds=seconds,
                       idle=reason == Failure.WAITED and bool(stopped.detail))

    def _outcome(self, reply: dict, started: float) -> Outcome:
        seconds = time.perf_counter() - started
        if "raised" in reply:
            return self._memory_named(Outcome(raised=_raised(reply["raised"]), seconds=seconds))
        if "bad_value" in reply:
            return Outcome(failure=Failure.BAD_VALUE, detail=text(reply["bad_value"], 300),
                           seconds=seconds)
        return Outcome(ok=True, value=reply.get("ok"), seconds=seconds)

    def death(self) -> str:
        """Plain words for why the child ended."""
        code = self.process.wait(timeout=5) if self.process else None
        if self.last_note:
            return _("killed: {reason}").format(reason=self.last_note)
        if code is None:
            return _("stopped answering")
        if code < 0:
            sig = -code
            if sig == signal.SIGXCPU:
                return _("used more than {seconds} s of CPU time in all").format(
                    seconds=self.limits.cpu_seconds)
            if sig == signal.SIGSYS:
                return _("killed: tried to start processes or use a forbidden system call")
            if sig == signal.SIGXFSZ:
                return _("killed: wrote a file larger than {megabytes} MB").format(
                    megabytes=self.limits.file_bytes // MB)
            name = signal.Signals(sig).name
            if sig in (signal.SIGSEGV, signal.SIGABRT, signal.SIGBUS) and self.near_memory_cap:
                return self.memory_words(_("and then crashed ({signal})").format(signal=name))
            if sig == signal.SIGSEGV:
                return _("crashed (segmentation fault)")
            return _("killed by signal {signal}").format(signal=name)
        return _("exited with code {code}").format(code=code)

    @property
    def near_memory_cap(self) -> bool:
        """Whether the child came close to its memory limit: C code that cannot get
        memory may abort or fail oddly instead of raising MemoryError."""
        return self.peak_memory >= self.limits.memory_bytes // 2

    def memory_words(self, then: str) -> str:
        return _("ran out of memory: it used {used} MB or more of the {allowed} MB the "
                 "sandbox allows, {then}").format(used=self.peak_memory // MB,
                                                  allowed=self.limits.memory_bytes // MB,
                                                  then=then)

    def _memory_named(self, outcome: Outcome) -> Outcome:
        """A SystemError raised near the memory cap ("error return without exception
        set" from C code that got no memory) is said as what it is."""
        raised = outcome.raised
        if raised and raised.get("type") == "SystemError" and self.near_memory_cap:
            raised["message"] = self.memory_words(
                _("and Python's C code failed (SystemError)"))
            raised["type"] = "MemoryError"
        return outcome

    def request(self, message: dict, timeout: float, wall: float | None = None,
                idle: float | None = None) -> Outcome:
        """One request and its reply: `timeout` seconds of the child's CPU time, at
        most `idle` seconds waited without computing (default: `wait_call`), and at
        most `wall` seconds on the clock (default: the backstop; given, the clock
        alone judges the waiting: the kit's own requests)."""
        started = time.perf_counter()
        if not self.alive:
            return Outcome(failure=Failure.CRASH, detail=self.death())
        wait = self._wait_for(timeout, wall, idle)
        message = dict(message, id=secrets.token_hex(8))
        self._begin(wait)
        try:
            self._send_text(protocol.dumps(message), wait)
            reply = self._read_message(wait, message["id"])
        except _Stop as stopped:
            return self._failed(stopped, wait, started)
        finally:
            self._finish()
        return self._outcome(reply, started)

    def import_modules(self, timeout: float, idle: float | None = None) -> Outcome:
        return self.request({"op": "import"}, timeout, idle=idle)

    def call(self, target, args=(), kwargs=None, *, timeout: float, keep=False,
             return_args=False) -> Outcome:
        """`target(*args, **kwargs)` in the child ("module.function", or (handle,
        "method") for an object kept there): a plan of one call (see `map`). With
        `keep` the value stays in the child and the outcome's value is its Handle.
        Charged to no check's budget, only to its own `timeout`."""
        text = protocol.arguments_text(args)
        return self._calls(target, _json_string(text), '{"__handle__":' not in text, 1,
                           timeout, None,
                           return_args=return_args, kwargs=kwargs, keep=keep)[0]

    def map(self, target, arg_lists: list[tuple], timeout_each: float,
            return_args=False, budget: Budget | None = None, again=False,
            patches: dict | None = None) -> list[Outcome]:
        """`target(*args)` for every args tuple: one plan run once per tuple, in one
        request, compact replies, and still a CPU-time limit per call. The fast path
        for exhaustive checks. With `again`, each call that returned is made a second
        time on the same argument objects (`Outcome.again`). `patches`
        {"module.name": Callback} replaces those module attributes by the grader's
        functions during each call (answered here during it, refused after it)."""
        if not arg_lists:
            return []
        inputs, plain = _encoded_list(arg_lists)
        return self._calls(target, inputs, plain, len(arg_lists), timeout_each, budget,
                           return_args=return_args, again=again, patches=patches)

    def _calls(self, target, inputs: str, plain: bool, count: int, timeout_each: float,
               budget: Budget | None, return_args=False, again=False, patches=None,
               kwargs=None, keep=False) -> list[Outcome]:
        """A plan of patches (each a callback) and one call of its input, run once per
        input: `inputs` the JSON strings of `count` argument lists; `plain` when none
        holds a handle. Written here, not by Plan: its inputs' texts are made once
        per process (_encoded_list)."""
        if not self.alive:
            return [Outcome(failure=Failure.CRASH, detail=self.death())] * count
        registry, rows = Registry(first=self._next_number), range(count)
        steps = [f'{{"op":"patch","target":{json.dumps(name)},"value":'
                 f'{_plain_text(registry.callback_spec(callback, rows))}}}'
                 for name, callback in (patches or {}).items()]
        steps.append(f'{{"op":"call","target":{_target_text(target)},"args":{{"__slot__":0}}'
                     + (f',"kwargs":{_plain_text(dict(kwargs))}' if kwargs else "") + "}")
        flags = "".join(f',"{name}":1' for name, on in (
            ("handles", not plain), ("keep", keep), ("inputs_after", return_args),
            ("again", again), ("calls_back", patches)) if on)
        plan = (f'{{"steps":[{",".join(steps)}],"result":{{"__slot__":{len(steps)}}},'
                f'"inputs":[{inputs}]{flags}}}')
        return self._run([plan], registry, [(timeout_each, None)] * count, budget)

    def plans(self, plans: list[Plan], timeout_each: float,
              budget: Budget | None = None) -> list[Outcome]:
        """Run call plans (see plans.py) in one request; while plan i runs, the
        child's calls to the grader's proxies and callbacks of plan i are
        answered here, by the grader's own objects."""
        if not plans:
            return []
        if not self.alive:
            return [Outcome(failure=Failure.CRASH, detail=self.death())] * len(plans)
        registry = Registry(first=self._next_number)
        # "calls_back": a stand-in kept from an earlier plan is asked of the grader,
        # which refuses it as another call's
        texts = [f'{plan.wire(registry, range(index, index + 1))[:-1]},"calls_back":1}}'
                 for index, plan in enumerate(plans)]
        return self._run(texts, registry, [(plan.timeout or timeout_each, plan.wall)
                                           for plan in plans], budget)

    def _run(self, plans: list[str], registry: Registry,
             limits: list[tuple[float, float | None]], budget: Budget | None) -> list[Outcome]:
        """The one request for student work: plans (their JSON texts), one row per run,
        and the tables of answers given ahead after the line, as they are (ASCII,
        plans.Known: as many bytes as characters)."""
        base = secrets.token_hex(8)
        self._next_number = registry.next_number
        tables = registry.tables
        sizes = f',"tables":{json.dumps([len(table) for table in tables])}' if tables else ""
        message = (f'{{"op":"run","id":"{base}","plans":[{",".join(plans)}]{sizes}}}\n'
                   f'{"".join(tables)}')
        self._registry = registry if registry.entries else None
        started = time.perf_counter()
        wait = self._wait = self._wait_for(*limits[0])
        self._begin(wait)
        try:
            return self._rows_of(base, message, limits, budget, started, wait)
        finally:
            self._registry = self._wait = None
            self._finish()

    def _wait_for(self, cpu: float, wall: float | None, idle: float | None = None) -> Wait:
        """A call's wait: its CPU limit, the waiting allowance (`idle`, else `wait_call`)
        and the backstop; or, where a wall-clock limit is given (a tournament's move
        clock, the kit's own requests), that limit alone on the clock."""
        if wall is None:
            return Wait(cpu, time.monotonic() + backstop(cpu),
                        self.wait_call if idle is None else idle)
        return Wait(cpu, time.monotonic() + wall)

    def _rows_of(self, base: str, message: str, limits: list[tuple[float, float | None]],
                 budget: Budget | None, started: float, wait: Wait) -> list[Outcome]:
        """Send the request, then one outcome per row, each with its own limit (CPU
        seconds, and wall seconds where a plan sets them; the check's budget over all
        of them)."""
        outcomes: list[Outcome] = []
        try:
            self._send_text(message, wait)
        except _Stop as stopped:
            outcomes.append(self._failed(stopped, wait, started))
        rows, append = self._rows, outcomes.append
        index, count = len(outcomes), len(limits)
        while index < count:
            # Answers read already (most rows of a fast map): no wait to set up, and
            # they took no time to wait for. Anything else goes the long way.
            while rows and index < count:
                row = rows[0]
                if type(row) is not list or len(row) < 4 or row[0] != base or row[1] != index:
                    break
                if row[2] == RETURNED:
                    rows.popleft()
                    append(returned(row[3]) if len(row) == 4 else _row_outcome(row, 0.0))
                    index += 1
                elif row[2] == CHUNK:
                    rows.popleft()
                    made = _chunk_outcomes(row, count - index)
                    outcomes.extend(made)       # nothing, for a malformed chunk: it is dropped
                    index += len(made)
                else:
                    break
            if index == count:
                break
            self._late_error = None
            self._plan_callbacks = 0
            if index:
                started = time.perf_counter()
                wait = self._wait = self._wait_for(*limits[index])
            try:
                row = self._read_row(wait, budget, base, index)
            except _Stop as stopped:
                append(self._failed(stopped, wait, started))
                break
            if row[2] == CHUNK:
                made = _chunk_outcomes(row, count - index)
                if made:
                    made[0].seconds = time.perf_counter() - started
                outcomes.extend(made)
                index += len(made)
                continue
            append(self._memory_named(_row_outcome(row, time.perf_counter() - started)))
            index += 1
        last = outcomes[-1]
        if last.failure in (Failure.BUDGET, Failure.TOO_MUCH):
            rest = Outcome(failure=last.failure, detail=last.detail)
        else:
            rest = Outcome(failure=Failure.UNREACHED,
                           detail=_("not reached: an earlier call failed"))
        return outcomes + [rest] * (len(limits) - len(outcomes))

    def _answer(self, row: list, index: int) -> None:
        """A call of the child's to one of the grader's objects (ASK: wait for the
        answer, TELL: record only, KNEW: an ASK the child answered from the answers
        given ahead, recorded here as the call itself records it). Nothing in it is
        trusted: the registry decides what may be called, and the grader's own object
        decides the answer. The grader's CPU time for it counts toward the call's
        limit, so a search that makes many calls is timed the same on a quiet and on a
        busy machine.

        A record (TELL, KNEW) of an earlier plan of the request is recorded as if it had
        come in time: a child that writes its own row straight to the pipe makes the
        records it still holds (child.Batched) arrive after its plan's row. Never
        answered, and its error reaches no call: that plan's outcome is made. The grader
        never waits for such records (those after the request's last row are dropped),
        and they count against the caps of the plan being read (MAX_CALLBACKS, the
        check's bytes and values)."""
        if self._registry is None:
            raise _Stop(Failure.PROTOCOL, _("called the grader's objects where it was given none"))
        waits = row[2] == ASK
        self.callbacks += 1
        self.answered_ahead += row[2] == KNEW
        self._plan_callbacks += 1
        found, refusal = None, "the grader takes no calls now"
        call = row[3] if type(row[3]) is list and len(row[3]) in (3, 4) else None
        plan = index
        if not waits and type(row[1]) is int and 0 <= row[1] < index:
            plan = row[1]       # a late record of an earlier plan of this request
        if call is not None and row[1] == plan:
            found, refusal = self._registry.lookup(call[0], call[1], plan, row[2] == KNEW)
        if found is not None and found[1] != waits:
            found, refusal = None, "the call was sent the wrong way"
        if self._plan_callbacks > MAX_CALLBACKS:
            raise _Stop(Failure.PROTOCOL, _("made more than {calls:,} calls to the grader's "
                                            "objects in one call").format(calls=MAX_CALLBACKS))
        error = None
        if found is None:
            error = ["RuntimeError", refusal]
        else:
            args = call[2] if type(call[2]) is list else []
            kwargs = call[3] if len(call) == 4 and type(call[3]) is dict else {}
            if self._rows_tagged:
                args = self._registry.own(args, plan)
                kwargs = {k: self._registry.own(v, plan) for k, v in kwargs.items()
                          if type(k) is str}
            elif kwargs:
                kwargs = {k: v for k, v in kwargs.items() if type(k) is str}
            try:
                value = found[0](*args, **kwargs)
            except Exception as problem:   # the student's arguments made the grader's object fail
                error = [type(problem).__name__, text(problem, 300)]
        if not waits:
            if found is None or plan != index:
                return      # nobody waits; a late record's error has no call left to reach
            if error is not None and self._late_error is None:
                self._late_error = [error[0], f"an earlier {call[1] if call else 'call'}() "
                                              f"failed: {error[1]}"]
            return
        if error is None and self._late_error is not None:
            error, self._late_error = self._late_error, None
        if error is not None:
            reply = protocol.dumps({"e": error})
        else:
            reply = _SCALAR_REPLIES.get(type(value), _reply)(value)
        self._send_text(reply, self._wait, ANSWER_WRITE_SECONDS)

    def _read_row(self, wait: Wait, budget: Budget | None, base: str, index: int) -> list:
        """The reply row [base, index, kind, value, ...], parsing buffered rows in
        bulk and answering the child's calls to the grader's objects on the way."""
        while True:
            while self._rows:
                row = self._rows.popleft()
                if type(row) is list and len(row) >= 4 and row[0] == base:
                    if row[2] == ASK or row[2] == TELL or row[2] == KNEW:
                        started = time.thread_time()
                        self._answer(row, index)    # a _Stop from it ends the wait: no count
                        wait.answering += time.thread_time() - started
                        wait.calls += 1
                        continue
                    if row[1] == index:
                        return row
                elif type(row) is dict and len(row) == 1 and ("note" in row or "seen" in row):
                    self._note(row.get("note"), row.get("seen"))
                # anything else is stale or forged: ignore it
            end = self._buffer.rfind(b"\n")
            if end >= 0:
                chunk = bytes(self._buffer[:end])
                del self._buffer[:end + 1]
                self._scanned = 0
                # Only bytes that spell a stand-in's tag can give back one of the grader's
                # objects (Registry.own): most chunks do not, and their arguments are plain.
                self._rows_tagged = (bool(self._rows) and self._rows_tagged) or \
                    b'"__proxy__"' in chunk or b'"__callback__"' in chunk
                self._rows.extend(self._decode(b"[" + chunk.replace(b"\n", b",") + b"]"))
                continue
            self._fill(wait, budget)

    def signal(self, sig: int) -> None:
        """Send `sig` to the child's whole process group (SIGSTOP/SIGCONT to freeze
        a player while its opponent thinks)."""
        if self.alive:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, sig)

    def output(self, timeout: float = 2.0) -> str:
        """What the student's code printed (capped), within `timeout` seconds of wall
        time: the kit's own request, never waited for longer."""
        if not self.alive:
            return ""
        outcome = self.request({"op": "output"}, timeout, wall=timeout)
        value = outcome.value if outcome.ok else ""
        return text(value, self.limits.output_cap) if type(value) is str else ""


def _reply(value) -> str:
    """The line answering a call back with `value`."""
    try:
        return protocol.dumps({"r": protocol.to_plain(value)})
    except protocol.Unencodable as problem:   # a bug in a suite, not the student's
        return protocol.dumps({"e": ["RuntimeError", f"grader error: {problem}"]})


def _float_reply(value: float) -> str:
    return f'{{"r":{value!r}}}\n' if math.isfinite(value) else _reply(value)


# The answers of most calls back (a value, a yes or no), written as _reply writes them
# without its walk and its encoder.
_SCALAR_REPLIES = {int: lambda value: f'{{"r":{int.__repr__(value)}}}\n',
                   bool: lambda value: '{"r":true}\n' if value else '{"r":false}\n',
                   type(None): lambda value: '{"r":null}\n', float: _float_reply}


def _raised(value) -> dict:
    """The student's exception as plain, writable text fields."""
    value = value if type(value) is dict else {}
    raised = {k: None if value.get(k) is None else text(value.get(k))
              for k in ("type", "message", "where")}
    if raised["type"] is None:
        raised["type"] = "Exception"
    if type(value.get("step")) is int:
        raised["step"] = value["step"]
    # The built-in classes the exception is an instance of (the child's, by identity):
    # "raises ValueError" is judged on these, never on the class's name.
    kinds = value.get("kinds")
    if type(kinds) is list and len(kinds) <= 16 and all(type(k) is str for k in kinds):
        raised["kinds"] = [text(k, 40) for k in kinds]
    return raised


_new_object = object.__new__


def returned(value, seconds: float = 0.0) -> Outcome:
    """Outcome(ok=True, value=value, seconds=seconds), made without the dataclass's
    __init__: every other field keeps its default, a class attribute. Most rows of a
    map are answers, tens of thousands per submission."""
    outcome = _new_object(Outcome)
    outcome.ok, outcome.value, outcome.seconds = True, value, seconds
    return outcome


def _chunk_outcomes(row: list, room: int) -> list[Outcome]:
    """The outcomes of a CHUNK row [id, first, CHUNK, values(, agains)]: one answer
    per value, at most `room` of them; none for a malformed chunk (the child never
    sends one: it is dropped, and the calls it claims to answer are waited for)."""
    values = row[3]
    agains = row[4] if len(row) > 4 else None
    if type(values) is not list or not values or len(values) > room or len(row) > 5 \
            or (agains is not None and (type(agains) is not list
                                        or len(agains) != len(values))):
        return []
    if agains is None:
        return list(map(returned, values))
    return [_row_outcome([None, None, RETURNED, value, None, again], 0.0)
            for value, again in zip(values, agains)]


def _row_outcome(row: list, seconds: float) -> Outcome:
    """The outcome of one compact row [base, index, kind, value(, args, again)]."""
    kind, value = row[2], row[3]
    if kind == RETURNED:
        outcome = returned(value, seconds)
        if len(row) > 4:
            outcome.args_after = row[4]
            again = row[5] if len(row) > 5 else None
            if type(again) is list and len(again) == 2:
                outcome.again = _row_outcome([None, None, *again], 0.0)
        return outcome
    if kind == RAISED:
        return Outcome(raised=_raised(value), seconds=seconds)
    if kind == ABSENT:
        return Outcome(failure=Failure.MISSING, detail=text(value, 300), seconds=seconds)
    return Outcome(failure=Failure.BAD_VALUE, detail=text(value, 300), seconds=seconds)


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
    text = protocol.arguments_text(args)
    # A handle is encoded as {"__handle__":n}, and nothing else is: a string holding
    # those characters has its quotes escaped, a dict key starting with "__" is sent
    # in the {"__dict__": [...]} form. So the text says whether the child must unwrap.
    plain = '{"__handle__":' not in text
    if type(args) is tuple and len(_ENCODED) < 200_000:
        _ENCODED[id(args)] = (args, text, plain)
    return text, plain


def encoded_args(args: tuple) -> str:
    """An argument tuple's JSON text as a request carries it (cached, as above)."""
    return _encoded(args)[0]


# ... and whole argument lists (a check sends the same list of cases to every
# submission): keyed by the ids of its tuples, checked by comparing the tuples
# themselves (the same objects: equal at once), kept alive with the text.
_ENCODED_LISTS: dict[tuple, tuple[tuple, str, bool]] = {}


_json_string = json.encoder.encode_basestring_ascii     # a str as JSON, quotes included


def _encoded_list(arg_lists: list[tuple]) -> tuple[str, bool]:
    """(a map plan's "inputs": each tuple's JSON text as a JSON string, joined by
    commas, which the child decodes just before that call; True if no argument
    holds a handle)."""
    arguments = tuple(arg_lists)
    ids = tuple(map(id, arguments))
    hit = _ENCODED_LISTS.get(ids)
    if hit is not None and hit[0] == arguments:
        return hit[1], hit[2]
    encoded = [_encoded(args) for args in arguments]
    plain = all(flag for _, flag in encoded)
    text = ",".join(map(_json_string, (data for data, _ in encoded)))
    if len(_ENCODED_LISTS) < 1000 and all(type(args) is tuple for args in arguments):
        _ENCODED_LISTS[ids] = (arguments, text, plain)
    return text, plain


def encoded_text(args) -> str | None:
    """The JSON text of an argument tuple as a request carries it (the text already
    made where it was sent; grading/behaviour_record.py digests it), or None if it cannot
    be sent. The same for equal arguments whichever way they were sent."""
    hit = _ENCODED.get(id(args))
    if hit is not None and hit[0] is args:
        return hit[1]
    try:
        return protocol.arguments_text(args)
    except (protocol.Unencodable, ValueError, TypeError, RecursionError):
        return None


def _plain_text(value) -> str:
    """`value` as JSON text, tagged as a request carries it."""
    return protocol.dumps(protocol.to_plain(value))[:-1]


def _target_text(target) -> str:
    """A call's target as JSON: "module.function", or {"handle", "attr"} for the
    method of an object kept in the child (given as (Handle, "method"))."""
    if isinstance(target, protocol.Handle):
        raise TypeError("call a method: pass (handle, 'method') as the target")
    if isinstance(target, tuple):
        handle, attr = target
        return json.dumps({"handle": handle.number, "attr": attr})
    return json.dumps(target)

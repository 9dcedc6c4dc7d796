"""The sandboxed child: confines itself, imports the student's module, answers calls.

Started by `client.Sandbox` as `python -I -S -B child.py CONFIG_JSON`, or as the same
code compiled once by the grader (client.compiled_child, `-c` and two arguments before
the config): the same module namespace, `__main__`, either way. It talks to
the grader only over two dedicated pipes (never stdout); every request carries
a fresh random id which the reply must echo. Student output goes to a capped
buffer; fds 0-2 point at /dev/null.

Requests (one JSON line each):
    {"id", "op": "run", "plans": [plan, ...]}   student work: compact rows, one per run
    {"id", "op": "import"}                      import the student modules
    {"id", "op": "output"}                      what the student printed so far
    {"id", "op": "loaded"}                      the modules this interpreter holds
Targets: "module.function", "module.Class" (of the student's modules only),
{"handle": n, "attr": "method"} for an object kept in the child, or {"slot": n(,
"attr")} for an earlier step's value. Replies to a plan are rows (run_plan); to the
others {"id", "ok": value} | {"id", "raised": {...}} | {"id", "bad_value": text},
plus {"note": text} lines when a layer refused what the student's code tried, and
{"seen": text} when it tried what no layer here stops (watch_doors).

All student work is a plan (built by `plans.py` and `client.py` on the trusted side):
a short script of steps: call or construct, read an attribute, patch a module
attribute until the plan ends, set an item. A call is a one-step plan; a map is one
plan run once per input (each input an argument list, the plan's slot 0; see
run_plan). Its arguments may hold *proxies* and *callbacks*: stand-ins
for objects and functions of the grader's. Calling one sends the call to the
grader, which answers it (or, for calls it only records, does not) and counts
it. This file knows no game and no answer: it is generic plumbing.
"""

import time

_MARKS = [time.monotonic()]   # interpreter up (for bench_overhead: start, confine, hello)

import _posixsubprocess  # noqa: E402  (watch_doors: the door subprocess starts through)
import _socket  # noqa: E402
import errno  # noqa: E402
import functools  # noqa: E402
import importlib  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import signal  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import confine  # noqa: E402  (imported from this file's folder before confinement)
import protocol  # noqa: E402
sys.path.remove(HERE)

CONFIG = json.loads(sys.argv[1])
RFD, WFD = CONFIG["rfd"], CONFIG["wfd"]
SCRATCH = CONFIG["scratch"]
handles = {}
notes = set()
MAX_NOTES = 1000          # distinct notes sent; the grader keeps fewer
_stream = None            # the request pipe, read by serve() and by proxies
_applied = []             # the confinement layers in force
_running = None           # (request id, row index) of the run in progress
_ABSENT = object()        # a patched module attribute that did not exist before


class CappedText(io.TextIOBase):
    """Keeps the first `cap` characters written and counts the rest."""

    def __init__(self, cap):
        self.cap, self.parts, self.size, self.dropped = cap, [], 0, 0

    def writable(self):
        return True

    def write(self, text):
        text = str(text)
        room = self.cap - self.size
        if room > 0:
            self.parts.append(text[:room])
            self.size += min(len(text), room)
        self.dropped += max(0, len(text) - max(room, 0))
        return len(text)

    def value(self):
        return "".join(self.parts)


_write = os.write   # bound before student code runs: patching os.write cannot touch replies
_monotonic = time.monotonic
_lock = threading.Lock()      # one writer at a time, so lines never interleave


def write_all(data):
    with _lock:
        view = memoryview(data)
        while view:
            view = view[_write(WFD, view):]


def send(message):
    write_all(protocol.dumps(message).encode())


class Batched:
    """Replies of a request, sent in chunks to save system calls, never held long: the
    grader charges the child's CPU time to the first call it has no answer for, so
    an answer stuck in a buffer would be charged with the calls after it.

    - The thread that makes the answers writes them out itself when its last write
      is AGE old. Each write wakes the grader, which shares this CPU
      (grading/workers.py); why 20 ms: docs/PERFORMANCE.md, "Figures the code cites".
    - A flusher thread is the backstop for answers made less than AGE before a call
      that runs long (or forever): every FLUSHER_PERIOD it sends whatever is older
      than AGE. An answer waits at most about 75 ms behind a call that hangs (AGE,
      the backstop and the GIL's switch interval), charged to the answered call.

    Answers of consecutive runs of a plan gather in one open row of kind CHUNK,
    [id, first index, CHUNK, [value, ...](, [[kind, value] of the call made again,
    ...])], encoded when it is sent or something else is queued after it. A chunk
    that encodes to more than CHUNK_BYTES is sent as one row per answer instead, each
    under the grader's cap on a line. An answer made of lists and atoms joins it as
    its text (Encoded, made when the run returned)."""

    AGE = 0.02
    FLUSHER_PERIOD = 0.05
    CHUNK_ROWS = 256
    CHUNK_BYTES = 1 << 18

    def __init__(self):
        self.parts, self.size, self.oldest = [], 0, None
        self.written = 0.0      # when the last write began (monotonic)
        self.chunk = None       # [id, first index, values, agains or None]
        self.guard = threading.Lock()

    def add(self, row):
        data = _row_text(row).encode()
        with self.guard:
            self._close()
            self._queue(data)

    def add_answer(self, base, index, value, again):
        """The answer of run `index` of request `base` (and of the same run made again,
        [kind, value], or None), to go in the open chunk."""
        with self.guard:
            chunk = self.chunk
            if chunk is None or chunk[0] != base or chunk[1] + len(chunk[2]) != index \
                    or (chunk[3] is None) != (again is None):
                self._close()
                chunk = self.chunk = [base, index, [], None if again is None else []]
                if self.oldest is None:
                    self.oldest = _monotonic()
            chunk[2].append(value)
            if again is not None:
                chunk[3].append(again)
            if len(chunk[2]) >= self.CHUNK_ROWS:
                self._close()
                if self.size > 32768:
                    self._flush()
                    return
            if _monotonic() - self.written >= self.AGE:
                self._flush()

    def _queue(self, data):
        self.parts.append(data)
        self.size += len(data)
        if self.oldest is None:
            self.oldest = _monotonic()
        if self.size > 32768 or _monotonic() - self.written >= self.AGE:
            self._flush()

    def _close(self):
        """Encode the open chunk into the queue (as single rows if it is too large)."""
        chunk, self.chunk = self.chunk, None
        if chunk is None:
            return
        base, first, values, agains = chunk
        row = [base, first, protocol.CHUNK, values] + ([] if agains is None else [agains])
        try:
            data = _row_text(row).encode()
        except (protocol.Unencodable, MemoryError, RecursionError):
            data = None         # one row per answer: only the bad one says so
        if data is not None and len(data) <= self.CHUNK_BYTES:
            self.parts.append(data)
            self.size += len(data)
            return
        for offset, value in enumerate(values):
            single = [base, first + offset, protocol.RETURNED, value]
            if agains is not None:
                single += [None, agains[offset]]
            self.parts.append(_encoded_row(single))
            self.size += len(self.parts[-1])

    def _flush(self):
        self._close()
        if self.parts:
            self.written = _monotonic()
            write_all(b"".join(self.parts))
        self.parts, self.size, self.oldest = [], 0, None

    def flush(self):
        with self.guard:
            self._flush()

    def add_text(self, text):
        """Queue the encoded message `text` (a record the grader reads in order)."""
        data = text.encode()
        with self.guard:
            self._close()
            self._queue(data)

    def send_text_now(self, text):
        """Send the encoded message `text` after anything buffered, in one write (a
        call back that waits for its answer)."""
        data = text.encode()
        with self.guard:
            self._close()
            self.parts.append(data)
            self._flush()

    def flush_if_old(self):
        with self.guard:
            if self.oldest is not None and _monotonic() - self.oldest >= self.AGE:
                self._flush()


class Encoded:
    """An answer's JSON text, made when its run returned (protocol.answer_form)."""

    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text


def _row_text(row):
    """protocol.dumps(row) of a row [id, index, kind, value or a chunk's values, ...]
    whose answers may be Encoded: the same bytes, the texts put in place."""
    values = row[3] if row[2] == protocol.CHUNK else ()
    if any(type(v) is Encoded for v in values):
        first = "[" + ",".join(map(_answer_json, values)) + "]"
    elif any(type(v) is Encoded for v in row[3:]):
        first = _answer_json(row[3])
    else:
        return protocol.dumps(row)
    rest = "".join("," + _answer_json(v) for v in row[4:])
    return f"[{protocol.json_text(row[:3])[1:-1]},{first}{rest}]\n"


def _answer_json(value):
    return value.text if type(value) is Encoded else protocol.json_text(value)


_pending = Batched()
TOO_LARGE = ("the answer is too large to send (the sandbox's memory ran out while "
             "encoding it)")


def _encoded_row(row):
    """One row's bytes; an answer that cannot be encoded (too large for the memory
    left, an int too long) becomes a row saying so (the child lives on) instead of a
    crash with a wrong reason."""
    try:
        return _row_text(row).encode()
    except protocol.Unencodable as error:
        return protocol.dumps(row[:2] + [protocol.UNSENDABLE, str(error)]).encode()
    except (MemoryError, RecursionError):
        return protocol.dumps(row[:2] + [protocol.UNSENDABLE, TOO_LARGE]).encode()


def add_row(replies, row):
    """Queue a reply row (see _encoded_row)."""
    try:
        replies.add(row)
    except protocol.Unencodable as error:
        row[2:] = [protocol.UNSENDABLE, str(error)]
        replies.add(row)
    except (MemoryError, RecursionError):
        row[2:] = [protocol.UNSENDABLE, TOO_LARGE]
        replies.add(row)


_stuck = []     # where the student's code was when the grader asked (SIGUSR1)


def _on_stop_request(signum, frame):
    """The grader is about to stop a call that ran out of time: note where the
    student's code is (for the feedback only; the flusher thread sends it, since
    a signal handler must not take the write lock its own thread may hold)."""
    _stuck.append(student_frames(frame))


def student_frames(frame):
    """'function (file, line N)' of the innermost frame in the student's files, and
    of the outermost one if it differs."""
    found = []
    while frame is not None:
        filename = frame.f_code.co_filename
        if filename.startswith(SCRATCH):
            found.append(f"{frame.f_code.co_name} ({os.path.basename(filename)}, "
                         f"line {frame.f_lineno})")
        frame = frame.f_back
    if not found:
        return "code outside your files (a built-in function, or the kit's plumbing)"
    if len(found) == 1:
        return found[0]
    return f"{found[0]}, called from {found[-1]}"


_getppid = os.getppid


def _flusher():
    """Sends buffered replies older than Batched.AGE (the backstop: see Batched) and
    the stop report; ends the child when the grader that started it is gone (a
    killed grading process must not leave a sleeping or looping child behind)."""
    while True:
        time.sleep(Batched.FLUSHER_PERIOD)
        if _getppid() != CONFIG["parent"]:
            os._exit(0)
        try:
            if _stuck:
                send({"stuck": _stuck.pop()})
            _pending.flush_if_old()
        except OSError:
            return


def note(text, refused=True):
    """Tell the grader right away (the next syscall may kill us) what the student's
    code tried: as a refusal ({"note"}) when a layer in force refused it, else as
    something seen that nothing here stops ({"seen"})."""
    key = (text, refused)
    if key not in notes and len(notes) < MAX_NOTES:
        notes.add(key)
        try:
            send({"note": text} if refused else {"seen": text})
        except OSError:
            pass


# What the student's code may try that the sandbox forbids: the sentence the grader
# shows, and the layers that refuse it, each with the errnos by which the kernel says
# that layer refused (the seccomp filter answers EPERM, syscalls.REFUSED; another
# uid and Landlock's signal scope EPERM; an empty network namespace has no route).
# Starting a process has no errno: the filter ends the child (syscalls.KILLS).
_FORBIDDEN = {
    "starts": ("tried to start processes", {"seccomp": ()}),
    "network": ("tried to open a network connection",
                {"seccomp": {errno.EPERM}, "netns": {errno.ENETUNREACH},
                 "landlock": {errno.EPERM}}),
    "signals": ("tried to send a signal to another process",
                {"seccomp": {errno.EPERM}, "landlock": {errno.EPERM}, "uid": {errno.EPERM}}),
}
# The layers that keep files outside the folder and the standard library unread: the
# private view shows none of them (ENOENT) or shows a folder on the way read-only
# (EROFS, EACCES); Landlock answers EACCES.
_FILE_LAYERS = {"tmpfs": {errno.ENOENT, errno.EROFS, errno.EACCES},
                "landlock": {errno.EACCES}}
_READABLE = []      # path prefixes the child may read (set by confine_self)


def name_attempt(sentence, refusing, error):
    """Name what the kernel answered to an attempt: "refused" when `error`'s errno is
    one a refusing layer in force answers with; "seen" when it went through (`error`
    None) or no refusing layer is in force; else nothing (it failed for a reason of its
    own, as a missing file under Landlock: no refusal happened, and a layer would have
    refused it)."""
    layers = [layer for layer in refusing if layer in _applied]
    if error is None or not layers:
        note(sentence, refused=False)
    elif any(_errno(error) in refusing[layer] for layer in layers):
        note(sentence)


def _opened(args, kwargs, error):
    path = args[0] if args else kwargs.get("file", kwargs.get("path"))
    if type(path) is int:
        return      # a descriptor it already holds
    path = os.path.abspath(os.fsdecode(os.fspath(path)))
    if not path.startswith(SCRATCH) and not any(
            path == p or path.startswith(p + os.sep) for p in _READABLE):
        name_attempt(f"tried to open {path}, outside its own folder", _FILE_LAYERS, error)


def _signalled(args, kwargs, error):
    if not (args and args[0] == os.getpid()):       # its own process: allowed
        name_attempt(*_FORBIDDEN["signals"], error)


def _connected(args, kwargs, error):
    name_attempt(*_FORBIDDEN["network"], error)


def _socket_made(args, kwargs, error):
    if error is not None:      # a socket made is no connection yet (see _connected)
        name_attempt(*_FORBIDDEN["network"], error)


def watched(function, judge):
    """`function` unchanged for the student, its outcome named by `judge(args, kwargs,
    error or None)` (only after the kernel answered). The naming never changes what
    the student's code gets: an error of the naming itself is dropped."""
    @functools.wraps(function)
    def call(*args, **kwargs):
        try:
            result = function(*args, **kwargs)
        except OSError as error:
            _judge_quietly(judge, args, kwargs, error)
            raise
        _judge_quietly(judge, args, kwargs, None)
        return result
    return call


def _judge_quietly(judge, args, kwargs, error):
    try:
        judge(args, kwargs, error)
    except Exception:  # noqa: BLE001 (a path that will not decode: nothing to name)
        pass


def announced(function):
    """`function` (one that starts a process), named before it runs: with seccomp in
    force the kernel ends the child in it, and no errno ever comes back."""
    sentence, refusing = _FORBIDDEN["starts"]

    @functools.wraps(function)
    def call(*args, **kwargs):
        note(sentence, any(layer in _applied for layer in refusing))
        return function(*args, **kwargs)
    return call


def watch_doors():
    """Name what the student's code tries through the doors it uses for files,
    signals, sockets and processes (the kernel layers refuse it through any door;
    one around these, ctypes or io.FileIO, is refused unnamed). Nothing else is
    watched: the student's search runs as in a plain interpreter, without an audit
    hook (docs/PERFORMANCE.md, "Issue 46")."""
    import builtins
    import posix
    opened = watched(io.open, _opened)
    builtins.open = io.open = opened
    os.open = posix.open = watched(posix.open, _opened)
    for name in ("kill", "killpg"):
        setattr(os, name, watched(getattr(posix, name), _signalled))
        setattr(posix, name, getattr(os, name))
    for name in ("fork", "forkpty", "system", "posix_spawn", "posix_spawnp", "execv",
                 "execve"):
        if hasattr(posix, name):
            setattr(os, name, announced(getattr(posix, name)))
            setattr(posix, name, getattr(os, name))
    _posixsubprocess.fork_exec = announced(_posixsubprocess.fork_exec)
    _socket.socket = _watched_socket_class(_socket.socket)


def _watched_socket_class(base):
    """`_socket.socket` with its making and connecting named (socket.socket is made
    on it when the student imports socket)."""
    class socket(base):
        __slots__ = ()
        __init__ = watched(base.__init__, _socket_made)
        connect = watched(base.connect, _connected)

        def connect_ex(self, address):
            code = base.connect_ex(self, address)
            _judge_quietly(_connected, (), {}, OSError(code, "") if code else None)
            return code
    socket.__module__, socket.__qualname__ = base.__module__, base.__qualname__
    return socket


def redirect_output():
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    cap = CONFIG.get("output_cap", 20000)
    sys.stdout = sys.__stdout__ = CappedText(cap)
    sys.stderr = sys.__stderr__ = sys.stdout
    sys.stdin = sys.__stdin__ = io.StringIO("")


def confine_self():
    applied = []
    limits = CONFIG["limits"]
    layers = CONFIG["layers"]
    # What may be read besides the folder: computed before any layer, one list for
    # the private view and for Landlock (confine.readable).
    readable = confine.readable([p for p in sys.path if p != SCRATCH],
                                CONFIG.get("allowed_folders", ()))
    _READABLE[:] = (readable.entries + readable.folders + readable.files + readable.devices
                    + [HERE])   # Python reads the kit's own files to print a traceback
    if "rlimits" in layers:
        confine.apply_rlimits(limits["cpu_seconds"], limits["memory_bytes"],
                              limits["file_bytes"], limits["open_files"])
        applied.append("rlimits")
    if "netns" in layers:
        confine.enter_network_namespace()
        applied.append("netns")
    if "tmpfs" in layers:
        disk = CONFIG["disk"]
        confine.private_view(SCRATCH, disk["bytes"], disk["files"],
                             CONFIG["uid"] if "uid" in layers else os.getuid(), readable)
        applied.append("tmpfs")
    if "uid" in layers:
        confine.drop_to_uid(CONFIG["uid"], keep_read="landlock" in layers)
        applied.append("uid")
    if "landlock" in layers:
        # Without a size-limited folder of its own, the student writes nothing.
        writable = [SCRATCH] if "tmpfs" in applied else []
        confine.apply_landlock(readable, [SCRATCH], writable, hidden_by_view="tmpfs" in applied)
        applied.append("landlock")
    if "seccomp" in layers:
        confine.apply_seccomp(bytes.fromhex(CONFIG["seccomp"]))
        applied.append("seccomp")
    return applied


class _AllowedPackages:
    """Imports the packages an assignment allows from their own folders alone (the
    grader's config: name -> folder, readable by the layers, confine.readable), so the
    folder that holds them (site-packages, where the kit lives) is never on the path,
    never listed and never read. Any other module not in the standard library or the
    student's folder is not found, as without it."""

    def __init__(self, packages):
        self.packages = {name: folder for name, folder in packages.items()
                         if type(name) is str and type(folder) is str}

    def find_spec(self, name, path=None, target=None):
        folder = self.packages.get(name)
        if folder is None:
            return None
        return importlib.util.spec_from_file_location(
            name, os.path.join(folder, "__init__.py"), submodule_search_locations=[folder])


def allow_packages(packages):
    if packages:
        import importlib.util  # noqa: F401  (only a child given packages needs it)
        sys.meta_path.append(_AllowedPackages(packages))


def where(error):
    """The student's file and line an exception came from, if any: the innermost
    frame in the student's files (the traceback walked by hand: the traceback module
    and what it imports cost every child's start a few milliseconds)."""
    found, trace = None, error.__traceback__
    while trace is not None:
        filename = trace.tb_frame.f_code.co_filename
        if filename.startswith(SCRATCH):
            found = f"{os.path.basename(filename)}, line {trace.tb_lineno}"
        trace = trace.tb_next
    return found


def describe(error):
    """{"type", "message", "where"} of the student's exception. Nothing of the
    exception is trusted to behave: a `__str__` that raises, an `errno` with a
    lying `__eq__` or a strange class name still give a description."""
    try:
        return _describe(error)
    except BaseException:
        return {"type": _kind(error), "message": "(the exception's message could not be read)",
                "where": None, "kinds": _kinds(error)}


import builtins  # noqa: E402
# The built-in exception classes, by identity, taken before any student code runs:
# `kinds` lists those in an exception's class hierarchy, so "raises ValueError" can
# accept a subclass without the grader trusting a class name. A student who rebinds
# builtins.ValueError changes nothing here; claiming a kind falsely gains nothing,
# since raising that kind itself is allowed.
_BUILTIN_EXCEPTIONS = {id(cls): name for name, cls in vars(builtins).items()
                       if isinstance(cls, type) and issubclass(cls, BaseException)
                       and cls.__name__ == name}     # OSError, not its alias IOError
_MRO = type.__dict__["__mro__"].__get__
_type_of = type


def _kinds(error):
    """The built-in exception classes `error` is an instance of, nearest first."""
    try:
        return [_BUILTIN_EXCEPTIONS[id(cls)] for cls in _MRO(_type_of(error))
                if id(cls) in _BUILTIN_EXCEPTIONS]
    except BaseException:
        return []


def _kind(error):
    try:
        name = type.__dict__["__name__"].__get__(type(error))
    except BaseException:
        name = None
    return name[:100] if type(name) is str else "Exception"


def _text(value, limit=400):
    """str(value), or a placeholder when its `__str__` fails or returns no str."""
    try:
        text = str(value)
    except BaseException:
        return "(the exception's message could not be read)"
    return text[:limit] if type(text) is str else "(the exception's message could not be read)"


def _errno(error):
    number = getattr(error, "errno", None) if isinstance(error, OSError) else None
    return number if type(number) is int else None


def _describe(error):
    kind = _kind(error)
    number = _errno(error)
    if isinstance(error, SystemExit):
        message = f"called exit({_text(repr_of(error.code), 100)})"
    elif isinstance(error, MemoryError):
        message = f"used more than {CONFIG['limits']['memory_bytes'] >> 20} MB of memory"
    elif number == 27:
        message = f"wrote a file larger than the sandbox allows ({_text(error.strerror)})"
    elif number == 28:
        disk = CONFIG["disk"]
        message = (f"filled its scratch folder: the sandbox allows {disk['bytes'] >> 20} MB "
                   f"and {disk['files']:,} files in all ({_text(error.strerror)})")
    elif number in (13, 30) and "tmpfs" not in _applied and _in_scratch(error.filename):
        message = (f"tried to write a file: the sandbox's folder is read-only here "
                   f"({_text(error.strerror)})")
    else:
        message = _text(error)
    kinds = _kinds(error)
    if isinstance(error, SyntaxError):
        filename = error.filename if type(error.filename) is str else ""
        line = error.lineno if type(error.lineno) is int else None
        return {"type": kind, "message": f"{_text(error.msg)} ({os.path.basename(filename)}, "
                                         f"line {line})", "where": None, "kinds": kinds}
    return {"type": kind, "message": message, "where": where(error), "kinds": kinds}


def repr_of(value):
    try:
        return repr(value)
    except BaseException:
        return "?"


def _in_scratch(filename):
    try:
        return os.path.abspath(os.fsdecode(filename or "/")).startswith(SCRATCH)
    except BaseException:
        return False


def resolve(target):
    if isinstance(target, dict):
        return getattr(handles[target["handle"]], target["attr"])
    head, _, rest = target.partition(".")
    if head in CONFIG["modules"]:
        obj = sys.modules[head]
    else:
        raise KeyError(head)
    for part in rest.split("."):
        obj = getattr(obj, part)
    return obj


def unwrap(value):
    """Replace handles in decoded arguments by the objects they stand for."""
    kind = type(value)
    if kind is protocol.Handle:
        return handles[value.number]
    if kind is list:
        return [unwrap(v) for v in value]
    if kind is tuple:
        return tuple(unwrap(v) for v in value)
    if kind is dict:
        return {k: unwrap(v) for k, v in value.items()}
    return value


def missing(target, error):
    """A target that does not exist is the student's omission, not an exception they raised."""
    if isinstance(target, str):
        module, _, name = target.rpartition(".")
        return f"{module}.py has no {name!r}" if module in CONFIG["modules"] else str(error)
    return f"the object has no attribute {target.get('attr')!r}"


def _kept():
    return {id(obj): number for number, obj in handles.items()}


# ---------------------------------------------------------------- calls back
_ERRORS = {cls.__name__: cls for cls in (ValueError, KeyError, IndexError, TypeError,
                                         AttributeError, ZeroDivisionError, RuntimeError)}
_call_lock = threading.Lock()


_answers = {}       # (callback, its arguments' text) -> the grader's answer line: pure
_ANSWERS_CAP = 8 << 20      # callbacks, this request only; bytes kept at most (the
_answers_size = [0]         # student's own memory: these are answers it was given)
_known = {}         # callback -> {arguments' text: answer line}, given with the request
_tables = []        # the texts of the tables after the request's line (plans.Known)


def call_back(number, method, args, kwargs, sync, pure=False):
    """Send one call of a proxy or callback to the grader; wait for its answer
    only when `sync`. Goes through the ordered reply buffer, so the grader sees
    the calls and the rows of finished plans in the order they happened. A pure
    callback's question asked before in this request is answered from the
    grader's answer to it (see plans.Callback), decoded afresh, and so is one
    whose answer the grader gave ahead with the request (plans.Known)."""
    if _running is None:
        raise RuntimeError("the grader's objects can only be used during the call "
                           "they were passed to")
    ahead = _ahead.get(number)
    if ahead is None:
        _foreign[0] = True      # this call may reach a game given ahead: see Ahead
    elif not _foreign[0]:
        found = ahead.answer(method, args, kwargs)
        if found is not _NO:
            return found
    if pure and not kwargs and number in _known:      # most questions of a played run
        try:
            line = _known[number].get(protocol.arguments_text(args))
        except (protocol.Unencodable, TypeError, ValueError, RecursionError):
            line = None             # not plain data: the long way below says how
        if line is not None:
            return protocol.from_grader(line)["r"]
    try:
        try:
            # Most calls pass plain data (a board, a move): encoded at once. A stand-in
            # or a kept object inside is not plain data, so it goes the long way.
            arguments = protocol.to_plain(list(args))
        except protocol.Unencodable:
            arguments, pure = _for_grader(_grader_things(list(args))), False
        call = [number, method, arguments]
        if kwargs:
            call.append(_for_grader({k: _grader_things(v) for k, v in kwargs.items()}))
            pure = False
        if pure:    # the call's own text, as dumps(call) writes it, around its arguments'
            given = protocol.json_text(arguments)
            asked = f"[{int(number)},{_json_text(method)},{given}]"
        else:
            asked = protocol.json_text(call)
    except protocol.Unencodable as error:
        raise TypeError(f"{method}: {error}") from None
    base, index = _running
    if not sync:
        with _call_lock:
            _pending.add_text(f"[{_json_text(base)},{int(index)},{protocol.TELL},{asked}]\n")
        return None
    if pure:
        line = _known.get(number, _NONE).get(given) or _answers.get((number, given))
        if line is not None:
            return protocol.from_grader(line)["r"]
    with _call_lock:
        _pending.send_text_now(f"[{_json_text(base)},{int(index)},{protocol.ASK},{asked}]\n")
        line = _stream.readline()
        if not line:
            os._exit(0)       # the grader is gone
        reply = protocol.from_grader(line)
        if ahead is not None and ahead.on and ahead.moved_by is not None and \
                method in ahead.gives and not args and not kwargs and "r" in reply:
            ahead.heard(reply["r"])     # a board's moves where its tables end
    if "e" in reply:
        kind, message = reply["e"]
        raise _ERRORS.get(kind, RuntimeError)(message)
    if pure and _answers_size[0] + len(line) + len(given) <= _ANSWERS_CAP:
        _answers[(number, given)] = line
        _answers_size[0] += len(line) + len(given)
    return reply["r"]


_NONE = {}      # no answers given ahead
_NO = object()      # not answered from the tables


class Ahead:
    """A proxy's answers given ahead (plans.Ahead, protocol.ProxySpec): a question
    among the tables about a state this game handed out, while its call limit leaves
    room, is answered here and sent as a record the grader replays (protocol.KNEW).
    Every call of the proxy counts against the limit, one made the long way too; a
    call of a method without a table stops the answers ahead (it may count otherwise)."""

    __slots__ = ("number", "tables", "given", "left", "gives", "on", "moved_by", "path",
                 "offered")

    def __init__(self, number, spec):
        self.number, self.on = number, True
        moved_by = spec.get("path")
        self.moved_by = moved_by if type(moved_by) is list and len(moved_by) == 2 and \
            all(type(m) is str for m in moved_by) else None
        self.path, self.offered = [], [frozenset()]   # moves' texts; offered at each ply
        self.tables = {}
        for method, index in spec.get("tables", {}).items():
            table = _table(index) if type(index) is int else None
            if type(method) is str and table:
                self.tables[method] = table
        self.given = {text for text in spec.get("given", ()) if type(text) is str}
        left = spec.get("left")
        self.left = left if type(left) is int else 0
        self.gives = frozenset(m for m in spec.get("gives", ()) if type(m) is str)

    def answer(self, method, args, kwargs):
        """The answer from the tables, its call recorded; or _NO (ask the grader)."""
        if self.moved_by is not None:
            return self._on_path(method, args, kwargs)
        table = self.tables.get(method) if self.on else None
        if table is None:
            self.on = False
            return _NO
        try:
            given = None if kwargs else protocol.arguments_text(args)
        except (protocol.Unencodable, TypeError, ValueError, RecursionError):
            given = None
        with _call_lock:        # counted, recorded and handed out in one step
            line = table.get(given) if self.left and given in self.given else None
            if self.left > 0:
                self.left -= 1      # the long way counts as much
            if line is None:
                return _NO
            base, index = _running
            _pending.add_text(f"[{_json_text(base)},{int(index)},{protocol.KNEW},"
                              f"[{int(self.number)},{_json_text(method)},{given}]]\n")
            value = protocol.from_grader(line)["r"]
            if method in self.gives and type(value) is list:
                for state in value:
                    try:
                        self.given.add(protocol.arguments_text((state,)))
                    except (protocol.Unencodable, TypeError, ValueError, RecursionError):
                        pass
        return value

    def _on_path(self, method, args, kwargs):
        """A make/undo board's question (no arguments) answered from the tables at the
        path of moves made since the root, which this proxy's own moves keep: a move
        offered by the last `gives` answer at its position, an undo of the last move
        (each sent as the call's record here, in one step with the path). Anything
        else stops the answers ahead for this proxy: from then on the board's own
        checks see every call the long way."""
        if not self.on:
            return _NO
        try:
            given = None if kwargs else protocol.arguments_text(args)
        except (protocol.Unencodable, TypeError, ValueError, RecursionError):
            given = None
        with _call_lock:
            if given is None:
                line = None
            elif method in self.moved_by:
                return self._moved(method, args, given)
            else:
                table = self.tables.get(method) if given == "[]" else None
                line = None if table is None else table.get("[" + ",".join(self.path) + "]")
                if table is None:
                    self.on = False
            if line is None:
                self.on = self.on and given is not None
                return _NO
            base, index = _running
            _pending.add_text(f"[{_json_text(base)},{int(index)},{protocol.KNEW},"
                              f"[{int(self.number)},{_json_text(method)},[]]]\n")
            value = protocol.from_grader(line)["r"]
            if method in self.gives:
                self.heard(value)
        return value

    def _moved(self, method, args, given):
        """A move or an undo the path follows, recorded as the call (TELL); else _NO
        and the answers ahead stop."""
        move = given[1:-1] if len(args) == 1 else None
        if method == self.moved_by[0]:
            follows = move in self.offered[-1]
        else:
            follows = bool(self.path) and self.path[-1] == move
        if not follows:
            self.on = False
            return _NO
        base, index = _running
        _pending.add_text(f"[{_json_text(base)},{int(index)},{protocol.TELL},"
                          f"[{int(self.number)},{_json_text(method)},{given}]]\n")
        if method == self.moved_by[0]:
            self.path.append(move)
            self.offered.append(frozenset())
        else:
            self.path.pop()
            self.offered.pop()
        return None

    def heard(self, value):
        """The moves a `gives` answer offers at the current position (from the tables,
        or asked the long way: the grader's own answer)."""
        offered = set()
        if type(value) is list:
            for move in value:
                try:
                    offered.add(protocol.arguments_text((move,))[1:-1])
                except (protocol.Unencodable, TypeError, ValueError, RecursionError):
                    pass
        self.offered[-1] = frozenset(offered)


_ahead = {}         # proxy number -> its Ahead, this plan only
_foreign = [False]  # a call back to anything else was made in this request


_json_text = json.encoder.encode_basestring_ascii     # a str as JSON, quotes included


def _forget_answers():
    """A plan ended: its pure callbacks' answers go (the tables stay for the request)."""
    _answers.clear()
    _answers_size[0] = 0
    _known.clear()
    _ahead.clear()


def read_tables(stream, sizes):
    """The tables of answers given ahead that follow a request's line: `sizes` bytes
    each (the grader's, like the request)."""
    if type(sizes) is not list:
        return
    for size in sizes:
        data = stream.read(size) if type(size) is int and size >= 0 else b""
        if len(data) != size:
            os._exit(0)       # the grader is gone (or the request is not the grader's)
        _tables.append(data.decode("ascii"))


def _table(number):
    """{arguments' text: answer line} of the request's table `number`: its lines in
    turn (plans.Known.text), paired in C."""
    if not 0 <= number < len(_tables):
        return None
    lines = _tables[number].split("\n")
    return dict(zip(lines[0::2], lines[1::2]))


def _for_grader(value):
    """Arguments of a call to the grader as plain data. An object the grader had
    made and kept here (a student's Game it passes to the function it checks)
    travels as its handle, so a function the grader plays in knows which one it
    was given; the handles are looked up only when plain data will not do."""
    try:
        return protocol.to_plain(value)
    except protocol.Unencodable:
        if not handles:
            raise
        return protocol.to_plain(value, kept=_kept())


_given = {}     # id() of the stand-ins handed out in the plan in progress -> (it, its spec)


def _grader_things(value):
    """Stand-ins of the grader's objects and functions, passed back to the grader
    (an evaluation function handed on to terminal_test), travel as their specs;
    the grader turns them back into its own objects."""
    spec = _given.get(id(value))
    if spec is not None and spec[0] is value:
        return spec[1]
    kind = type(value)
    if kind is list:
        return [_grader_things(v) for v in value]
    if kind is tuple:
        return tuple(_grader_things(v) for v in value)
    return value


def _sender(number, name, sync, pure=False):
    def send_call(*args, **kwargs):
        return call_back(number, name, args, kwargs, sync, pure)
    send_call.__name__ = name
    return send_call


def make_proxy(spec):
    """An object whose methods are the grader's (see ProxySpec)."""
    methods = {name: staticmethod(_sender(spec.number, name, bool(sync)))
               for name, sync in spec.methods.items()}
    methods["__repr__"] = lambda self: f"<the grader's object #{spec.number}>"
    methods["__slots__"] = ()
    stand_in = type("GraderObject", (), methods)()
    _given[id(stand_in)] = (stand_in, spec)
    if spec.ahead is not None and spec.number not in _ahead:
        _ahead[spec.number] = Ahead(spec.number, spec.ahead)
        # The rows of the plans before reach the grader before the student's code can
        # write lines of its own, as its first question asked the long way made them:
        # a reply forged for an earlier plan arrives after that plan's, and is ignored.
        _pending.flush()
    return stand_in


def make_callback(spec):
    pure = spec.pure == 1 and bool(spec.sync)
    callback = _sender(spec.number, "__call__", bool(spec.sync), pure)
    if pure and spec.known is not None and spec.number not in _known:
        table = _table(spec.known)      # split once per plan, not once per run
        if table:
            _known[spec.number] = table
    _given[id(callback)] = (callback, spec)
    return callback


# ---------------------------------------------------------------- plans
class StepFailed(Exception):
    def __init__(self, number, error):
        super().__init__(number)
        self.number, self.error = number, error


class Missing(Exception):
    """A plan names a function of the student's module that is not there."""


def plan_target(target, slots):
    """What a step calls or reads: an earlier step's value ({"slot"(, "attr")}), or a
    function, class or attribute of the student's modules, or a method of an object
    kept in the child ({"handle", "attr"}); one that is not there is Missing."""
    if type(target) is dict and "slot" in target:
        obj = slots[target["slot"]]
        return getattr(obj, target["attr"]) if "attr" in target else obj
    try:
        return resolve(target)
    except (AttributeError, KeyError) as error:
        raise Missing(missing(target, error)) from None


def plan_value(value, slots):
    """Arguments of a step: slots, proxies and callbacks become the real things."""
    kind = type(value)
    if kind is protocol.Slot:
        return slots[value.number]
    if kind is protocol.ProxySpec:
        return make_proxy(value)
    if kind is protocol.CallbackSpec:
        return make_callback(value)
    if kind is list:
        return [plan_value(v, slots) for v in value]
    if kind is tuple:
        return tuple(plan_value(v, slots) for v in value)
    if kind is dict:
        return {k: plan_value(v, slots) for k, v in value.items()}
    return unwrap(value)


def module_attribute(path):
    module, _, name = path.rpartition(".")
    if module not in CONFIG["modules"]:
        raise KeyError(path)
    return sys.modules[module], name


def run_step(step, slots, patches):
    op = step["op"]
    if op == "call":
        function = plan_target(step["target"], slots)
        return function(*plan_value(step.get("args", []), slots),
                        **plan_value(step.get("kwargs", {}), slots))
    if op == "get":
        try:
            return plan_target(step["target"], slots)
        except (AttributeError, Missing):
            if "default" in step:
                return step["default"]
            raise
    if op == "patch":
        module, name = module_attribute(step["target"])
        patches.append((module, name, module.__dict__.get(name, _ABSENT)))
        setattr(module, name, plan_value(step["value"], slots))
        return None
    if op == "value":
        return plan_value(step["value"], slots)
    if op == "setitem":
        container = plan_target(step["target"], slots)
        container[plan_value(step["key"], slots)] = plan_value(step["value"], slots)
        return None
    raise ValueError(f"unknown step {op!r}")


def run_steps(steps, result, slots):
    """A plan's steps in order, then its result; its patches restored at the end
    (also after an exception; a timeout's kill ends the child)."""
    patches = []
    try:
        for number, step in enumerate(steps):
            try:
                value = run_step(step, slots, patches)
            except BaseException as error:
                if not step.get("catch"):
                    raise StepFailed(number, error) from None
                value = {"raised": describe(error)}
            slots.append(value)
        return fill(result, slots)
    finally:
        _unpatch(patches)


def _unpatch(patches):
    for module, name, old in reversed(patches):
        if old is _ABSENT:
            module.__dict__.pop(name, None)
        else:
            module.__dict__[name] = old


def fill(template, slots):
    """The plan's result: its template with every slot's value put in place."""
    kind = type(template)
    if kind is protocol.Slot:
        return slots[template.number]
    if kind is list:
        return [fill(v, slots) for v in template]
    if kind is dict:
        return {k: fill(v, slots) for k, v in template.items()}
    return template


def runner(plan):
    """(The plan as a function of one run's input, `run(*input)`, and its number of
    steps, 0 where it is not stepped through). A plan run once per
    input has the input as its slot 0. One that is only a call of its input, after
    patches that set callbacks (a call, a map, a map with the grader playing the
    student's helpers: most runs), is that call itself, its target found once, not
    stepped through (about half the child's cost per call was the step machinery's
    checks and calls; docs/PERFORMANCE.md). Raises Missing for a target not there."""
    steps, result = plan["steps"], plan.get("result")
    if "inputs" not in plan:
        return (lambda: run_steps(steps, result, [])), len(steps)
    call = steps[-1] if steps else {}
    patches = steps[:-1]
    if call.get("op") != "call" or type(call.get("args")) is not protocol.Slot \
            or call["args"].number != 0 or call.get("catch") \
            or type(result) is not protocol.Slot or result.number != len(steps) \
            or not all(s["op"] == "patch" and type(s["value"]) is protocol.CallbackSpec
                       for s in patches):
        return (lambda *given: run_steps(steps, result, [list(given)])), len(steps)
    function = plan_target(call["target"], ())
    kwargs = call.get("kwargs")
    if not patches and not kwargs:
        return function, 0

    # One stand-in per patch for all the plan's runs, as a student's code that keeps
    # what it learnt of a helper by the helper's identity expects of one request.
    callbacks = [(step["target"], make_callback(step["value"])) for step in patches]

    def run(*given):
        restore = []
        try:
            for target, callback in callbacks:
                module, name = module_attribute(target)
                restore.append((module, name, module.__dict__.get(name, _ABSENT)))
                setattr(module, name, callback)
            return function(*given, **plan_value(kwargs or {}, ()))
        finally:
            _unpatch(restore)
    return run, 0


def _failed_row(base, index, error, steps):
    """The row of a run that raised: the student's exception (with the failing step
    where the plan has several), or the target that is not there. `steps`: the plan's
    steps, 0 for a run that is a call itself (whatever it raised is the student's)."""
    if steps and type(error) is StepFailed:
        if type(error.error) is Missing:
            return [base, index, protocol.ABSENT, str(error.error)]
        described = describe(error.error)
        return [base, index, protocol.RAISED,
                dict(described, step=error.number) if steps > 1 else described]
    return [base, index, protocol.RAISED, describe(error)]


def _again(run, given, kept, steps):
    """[kind, value] of a run made once more on the same input objects."""
    try:
        value = run(*given)
    except BaseException as error:
        return _failed_row(None, None, error, steps)[2:]
    try:
        return [protocol.RETURNED, protocol.to_plain(value, kept=kept)]
    except protocol.Unencodable as error:
        return [protocol.UNSENDABLE, str(error)]
    except BaseException as error:
        return [protocol.RAISED, describe(error)]


def run_plans(request):
    """Every plan of the request in order, each run once or once per input; one
    compact row per run (see run_plan)."""
    base, index = request["id"], 0
    _foreign[0] = False
    for plan in request["plans"]:
        index = run_plan(base, index, plan)
    _pending.flush()


def run_plan(base, first, plan):
    """Run `plan` once, or once per input of its "inputs" (each a JSON text of an
    argument list, decoded just before its run, so only the running call's arguments
    are alive; with "handles", they name objects kept here). Rows
    [id, index, kind, value, ...] from index `first` on: kind 0 returned, 1 raised
    (with the failing step), 2 returned something that cannot be sent, 3 no such
    function. "keep": the value stays here, answered as its handle. "inputs_after":
    the input as it is after the run is added (for feedback). "again": a run that
    returned is made once more on the same input objects, its [kind, value] added:
    a function that changed its input shows it in its own second answer.
    "calls_back": the grader answers calls of its objects while a run is in progress
    (elsewhere, in a map the grader plays no helper in, the child refuses them). Answers of consecutive runs gather in
    CHUNK rows (Batched). Returns the next index."""
    global _running
    texts = plan.get("inputs")
    runs = ((),) if texts is None else map(protocol.arguments, texts)
    handled, keep, calls_back = plan.get("handles"), plan.get("keep"), plan.get("calls_back")
    after, again = plan.get("inputs_after"), plan.get("again")
    kept = _kept()
    try:
        run, steps = runner(plan)
        absent = None
    except Missing as error:
        run, absent = None, str(error)
    replies = _pending
    to_plain, sent_as_is, form = protocol.to_plain, protocol.SENT_AS_IS, protocol.answer_form
    rows, age, monotonic = replies.CHUNK_ROWS, replies.AGE, _monotonic
    acquire, release = replies.guard.acquire, replies.guard.release
    index = first - 1
    try:
        if run is None:
            for index, _ in enumerate(runs, first):
                replies.add([base, index, protocol.ABSENT, absent])
            return index + 1
        extras = after or again
        for index, given in enumerate(runs, first):
            if handled:
                given = unwrap(given)
            if calls_back:
                _running = (base, index)     # the grader's objects answer during this run
            row = second = None
            try:
                value = run(*given)
            except BaseException as error:
                row = _failed_row(base, index, error, steps)
            else:
                if keep:
                    handles[len(handles) + 1] = value
                    value = protocol.Handle(len(handles))
                if type(value) not in sent_as_is:
                    try:
                        plain, text = (protocol.NOT_A_TREE, None) if kept else form(value)
                        value = to_plain(value, kept=kept) if plain is protocol.NOT_A_TREE \
                            else plain if text is None else Encoded(text)
                    except protocol.Unencodable as error:
                        row = [base, index, protocol.UNSENDABLE, str(error)]
                    except BaseException as error:
                        row = [base, index, protocol.RAISED, describe(error)]
                if extras and row is None:
                    if after:       # with the input after the run: a row of its own
                        try:
                            shown = to_plain(given, kept=kept)
                        except BaseException:
                            shown = None
                        row = [base, index, protocol.RETURNED, value, shown]
                        if again:
                            row.append(_again(run, given, kept, steps))
                    else:
                        second = _again(run, given, kept, steps)
            if calls_back:
                _running = None
            if row is not None:
                add_row(replies, row)
                continue
            # Batched.add_answer's usual case, inline: the answer joins the open chunk
            # of this plan's previous run (under the same lock as there).
            acquire()
            try:
                chunk = replies.chunk
                joined = chunk is not None and chunk[0] is base and \
                    chunk[1] + len(chunk[2]) == index and (chunk[3] is None) == (second is None) \
                    and len(chunk[2]) < rows - 1
                if joined:
                    chunk[2].append(value)
                    if second is not None:
                        chunk[3].append(second)
                    if monotonic() - replies.written >= age:
                        replies._flush()
            finally:
                release()
            if not joined:
                replies.add_answer(base, index, value, second)
    finally:
        _running = None
        _given.clear()
        _forget_answers()
    return index + 1


def loaded():
    """Every module this interpreter holds, with its file (for the kit's tests)."""
    return sorted([name, getattr(module, "__file__", None)]
                  for name, module in list(sys.modules.items()))


def serve():
    global _stream
    stream = _stream = os.fdopen(RFD, "rb", buffering=1 << 16)
    for line in stream:
        request = protocol.from_grader(line, requests=True)
        if "tables" in request:
            read_tables(stream, request["tables"])
        op = request.get("op")
        if op == "run":
            run_plans(request)
            _tables.clear()
        elif op == "loaded":
            send({"id": request["id"], "ok": loaded()})
        elif op == "import":
            reply = {"id": request["id"]}
            try:
                for name in CONFIG["modules"]:
                    importlib.import_module(name)
                reply["ok"] = None
            except BaseException as error:
                reply["raised"] = describe(error)
            send(reply)
        elif op == "output":
            text = sys.stdout.value() if isinstance(sys.stdout, CappedText) else ""
            send({"id": request["id"], "ok": text,
                  "dropped": getattr(sys.stdout, "dropped", 0)})
        else:
            send({"id": request.get("id"), "bad_value": f"unknown op {op!r}"})


def main():
    try:
        redirect_output()
        sys.path[:] = [SCRATCH] + [p for p in sys.path if p.startswith(sys.base_prefix)]
        _MARKS.append(time.monotonic())
        applied = confine_self()
        _MARKS.append(time.monotonic())
        _applied[:] = applied
        allow_packages(CONFIG.get("packages", {}))
        os.chdir(SCRATCH)     # after confinement: the scratch folder may now be a tmpfs
    except (confine.LayerError, OSError) as error:
        send({"ready": False, "error": str(error)})
        os._exit(3)
    threading.Thread(target=_flusher, daemon=True).start()
    signal.signal(signal.SIGUSR1, _on_stop_request)
    watch_doors()
    send({"ready": True, "layers": applied, "pid": os.getpid(), "marks": _MARKS})
    serve()


if __name__ == "__main__":
    main()

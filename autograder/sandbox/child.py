"""The sandboxed child: confines itself, imports the student's module, answers calls.

Started by `client.Sandbox` as `python -I -S child.py CONFIG_JSON`. It talks to
the grader only over two dedicated pipes (never stdout); every request carries
a fresh random id which the reply must echo. Student output goes to a capped
buffer; fds 0-2 point at /dev/null.

Requests (one JSON line each):
    {"id", "op": "import"}                      import the student modules
    {"id", "op": "call", "target", "args", "kwargs", "keep", "return_args"}
    {"id", "op": "batch", "calls": [call, ...]} one reply line per call, in order
    {"id", "op": "output"}                      what the student printed so far
Targets: "module.function", "module.Class", "kit.function" or
{"handle": n, "attr": "method"} for an object kept in the child.
Replies: {"id", "ok": value} | {"id", "raised": {...}} | {"id", "bad_value": text},
plus "notes" when the student tried something the sandbox forbids.
"""

import importlib
import importlib.util
import io
import json
import os
import sys
import threading
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import confine  # noqa: E402  (imported from this file's folder before confinement)
import protocol  # noqa: E402
sys.path.remove(HERE)

CONFIG = json.loads(sys.argv[1])
RFD, WFD = CONFIG["rfd"], CONFIG["wfd"]
SCRATCH = CONFIG["scratch"]
handles = {}
kits = {}
notes = []


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
    """Replies of a batch, sent in chunks to save system calls. A flusher thread
    sends anything older than 5 ms even while a slow call is still running, so
    the grader's per-call deadline never waits for a reply stuck in a buffer."""

    AGE = 0.005

    def __init__(self):
        self.parts, self.size, self.oldest = [], 0, None
        self.guard = threading.Lock()

    def add(self, message):
        data = protocol.dumps(message).encode()
        with self.guard:
            self.parts.append(data)
            self.size += len(data)
            if self.oldest is None:
                self.oldest = _monotonic()
            if self.size > 32768:
                self._flush()

    def _flush(self):
        if self.parts:
            write_all(b"".join(self.parts))
        self.parts, self.size, self.oldest = [], 0, None

    def flush(self):
        with self.guard:
            self._flush()

    def flush_if_old(self):
        with self.guard:
            if self.oldest is not None and _monotonic() - self.oldest >= self.AGE:
                self._flush()


_pending = Batched()


def _flusher():
    while True:
        time.sleep(Batched.AGE)
        try:
            _pending.flush_if_old()
        except OSError:
            return


def note(text):
    """Tell the grader right away: the next syscall may kill us."""
    if text not in notes:
        notes.append(text)
        try:
            send({"note": text})
        except OSError:
            pass


_FORBIDDEN = {
    "os.fork": "tried to start processes", "os.forkpty": "tried to start processes",
    "os.system": "tried to start processes", "os.exec": "tried to start processes",
    "os.posix_spawn": "tried to start processes", "os.spawn": "tried to start processes",
    "subprocess.Popen": "tried to start processes",
    "socket.__new__": "tried to open a network connection",
    "socket.connect": "tried to open a network connection",
    "os.kill": "tried to send a signal to another process",
    "os.killpg": "tried to send a signal to another process",
}


def audit(event, args):
    # Diagnostics only: the kernel layers enforce; this names what was tried.
    reason = _FORBIDDEN.get(event)
    if reason and not (event == "os.kill" and args and args[0] == os.getpid()):
        note(reason)
    elif event == "open" and args and isinstance(args[0], (str, bytes)):
        path = os.path.abspath(os.fsdecode(args[0]))
        if not path.startswith(SCRATCH) and not path.startswith(sys.base_prefix):
            note(f"tried to open {path}, outside its own folder")


def load_kits():
    for name, path in CONFIG.get("kit", {}).items():
        spec = importlib.util.spec_from_file_location(f"_kit_{name}", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        kits[name] = module


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
    if "rlimits" in layers:
        confine.apply_rlimits(limits["cpu_seconds"], limits["memory_bytes"],
                              limits["file_bytes"], limits["open_files"])
        applied.append("rlimits")
    if "netns" in layers:
        confine.enter_network_namespace()
        applied.append("netns")
    if "uid" in layers:
        confine.drop_to_uid(CONFIG["uid"])
        applied.append("uid")
    if "landlock" in layers:
        confine.apply_landlock(confine.python_read_paths(), [SCRATCH])
        applied.append("landlock")
    if "seccomp" in layers:
        confine.apply_seccomp()
        applied.append("seccomp")
    return applied


def where(error):
    """The student's file and line an exception came from, if any."""
    for frame, line in reversed(list(traceback.walk_tb(error.__traceback__))):
        filename = frame.f_code.co_filename
        if filename.startswith(SCRATCH):
            return f"{os.path.basename(filename)}, line {line}"
    return None


def describe(error):
    kind = type(error).__name__
    if isinstance(error, SystemExit):
        message = f"called exit({error.code!r})"
    elif isinstance(error, MemoryError):
        message = f"used more than {CONFIG['limits']['memory_bytes'] >> 20} MB of memory"
    elif isinstance(error, OSError) and error.errno == 27:
        message = f"wrote a file larger than the sandbox allows ({error.strerror})"
    else:
        message = str(error)[:400]
    if isinstance(error, SyntaxError):
        return {"type": kind, "message": f"{error.msg} ({os.path.basename(error.filename or '')}, "
                                         f"line {error.lineno})", "where": None}
    return {"type": kind, "message": message, "where": where(error)}


def resolve(target):
    if isinstance(target, dict):
        return getattr(handles[target["handle"]], target["attr"])
    head, _, rest = target.partition(".")
    obj = kits[head] if head in kits else sys.modules[head]
    for part in rest.split("."):
        obj = getattr(obj, part)
    return obj


def unwrap(value):
    """Replace handles and kit references in decoded arguments by the real objects."""
    kind = type(value)
    if kind is protocol.Handle:
        return handles[value.number]
    if kind is protocol.Ref:
        return resolve(value.name)
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


def run_call(request):
    reply = {"id": request["id"]}
    try:
        function = resolve(request["target"])
    except (AttributeError, KeyError) as error:
        reply["missing"] = missing(request["target"], error)
        return reply
    try:
        args = unwrap(request.get("args", []))
        kwargs = unwrap(request.get("kwargs", {}))
        value = function(*args, **kwargs)
    except BaseException as error:  # the student's exceptions are data here
        reply["raised"] = describe(error)
        return reply
    try:
        if request.get("keep"):
            number = len(handles) + 1
            handles[number] = value
            reply["ok"] = {"__handle__": number}
        else:
            reply["ok"] = protocol.to_plain(value, kept=_kept())
        if request.get("return_args"):
            reply["args"] = protocol.to_plain(args, kept=_kept())
    except protocol.Unencodable as error:
        reply.pop("ok", None)
        reply["bad_value"] = str(error)
    except BaseException as error:
        reply["raised"] = describe(error)
    return reply


def run_map(request):
    """One function over many argument lists; compact replies [id, i, kind, value(, args)]:
    kind 0 returned, 1 raised, 2 returned something that cannot be sent, 3 no such function."""
    base, return_args = request["id"], request.get("return_args")
    replies = _pending
    kept = _kept()
    try:
        function, absent = resolve(request["target"]), None
    except (AttributeError, KeyError) as error:
        function, absent = None, missing(request["target"], error)
    for index, args in enumerate(request["args"]):
        if function is None:
            replies.add([base, index, 3, absent])
            continue
        if not request.get("plain"):
            args = unwrap(args)
        try:
            value = function(*args)
        except BaseException as error:
            replies.add([base, index, 1, describe(error)])
            continue
        try:
            row = [base, index, 0, protocol.to_plain(value, kept=kept)]
            if return_args:
                row.append(protocol.to_plain(args, kept=kept))
        except protocol.Unencodable as error:
            row = [base, index, 2, str(error)]
        except BaseException as error:
            row = [base, index, 1, describe(error)]
        replies.add(row)
    replies.flush()


def serve():
    stream = os.fdopen(RFD, "rb", buffering=1 << 16)
    for line in stream:
        request = protocol.loads(line)
        op = request.get("op")
        if op == "call":
            send(run_call(request))
        elif op == "batch":
            for call in request["calls"]:
                _pending.add(run_call(call))
            _pending.flush()
        elif op == "map":
            run_map(request)
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
        load_kits()
        redirect_output()
        os.chdir(SCRATCH)
        sys.path[:] = [SCRATCH] + [p for p in sys.path if p.startswith(sys.base_prefix)]
        applied = confine_self()
    except (confine.LayerError, OSError) as error:
        send({"ready": False, "error": str(error)})
        os._exit(3)
    threading.Thread(target=_flusher, daemon=True).start()
    sys.addaudithook(audit)
    send({"ready": True, "layers": applied, "pid": os.getpid()})
    serve()


if __name__ == "__main__":
    main()

"""Ways out of the sandbox (issue 40), each beside the honest code it resembles.

`ATTACKS` is the module a hostile student would hand in; `report(layers)` runs it
in sandboxes with those layers against a small stage this process sets up (a
pathname and an abstract Unix socket that answer a secret, a file of the grader's,
a victim process of the grader's user, a System V key) and says what got through.
tests/kit/test_escapes.py judges the reports, as root and, through
`python -m tests.kit.escapes LAYERS`, as an ordinary user.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ATTACKS = r'''
import ctypes, errno, os, signal, socket, threading, time

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def _errno(result):
    return "ok" if result >= 0 else errno.errorcode.get(ctypes.get_errno(), "?")


def honest_work():
    """What honest code does: its own files, threads, sleeps, its own timer, the
    standard library's modules, /dev/null."""
    done = []
    with open("notes.txt", "w") as f:
        f.write("kept")
    os.makedirs("cache/deep", exist_ok=True)
    os.replace("notes.txt", "cache/deep/notes.txt")
    done.append(open("cache/deep/notes.txt").read())
    box = []
    worker = threading.Thread(target=lambda: box.append(sum(range(1000))))
    worker.start(); worker.join()
    done.append(box[0])
    time.sleep(0.01)
    fired = []
    signal.signal(signal.SIGALRM, lambda *a: fired.append(1))
    signal.setitimer(signal.ITIMER_REAL, 0.01)
    time.sleep(0.1)
    done.append(len(fired))
    import hashlib, json, random, pickle, decimal, fractions, heapq, itertools, copy
    import zlib, ctypes.util
    done.append(hashlib.sha256(b"x").hexdigest()[:8])
    random.seed(1); done.append(random.randint(1, 6))
    with open(os.devnull, "w") as sink:
        sink.write("quiet")
    done.append(os.cpu_count() is not None)
    return done


def read_files(paths):
    got = {}
    for path in paths:
        try:
            with open(path, "rb") as f:
                got[path] = f.read(200).decode("latin-1")
        except OSError as error:
            got[path] = None
    return {p: v for p, v in got.items() if v is not None}


def write_file(path):
    try:
        with open(path, "w") as f:
            f.write("escaped")
        return "written"
    except OSError as error:
        return errno.errorcode.get(error.errno, "?")


def io_uring(number):
    params = ctypes.create_string_buffer(120)
    fd = libc.syscall(number, 4, params)
    return _errno(fd)


def unix_socket(path):
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(2)
        s.connect(path)
        s.sendall(b"hello")
        return s.recv(100).decode()
    except OSError as error:
        return "refused: " + type(error).__name__


def tcp(port):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=2)
        s.sendall(b"hello")
        return s.recv(100).decode()
    except OSError as error:
        return "refused: " + type(error).__name__


def shm_leave(key, message):
    libc.shmget.restype = ctypes.c_int
    libc.shmat.restype = ctypes.c_void_p
    shmid = libc.shmget(key, 4096, 0o1000 | 0o666)
    if shmid < 0:
        return _errno(shmid)
    at = libc.shmat(shmid, None, 0)
    if at in (None, ctypes.c_void_p(-1).value):
        return "shmat " + _errno(-1)
    data = message.encode()
    ctypes.memmove(at, data, len(data))
    return "left"


def shm_read(key):
    libc.shmget.restype = ctypes.c_int
    libc.shmat.restype = ctypes.c_void_p
    shmid = libc.shmget(key, 0, 0)
    if shmid < 0:
        return _errno(shmid)
    at = libc.shmat(shmid, None, 0)
    if at in (None, ctypes.c_void_p(-1).value):
        return "shmat " + _errno(-1)
    return ctypes.string_at(at, 40).split(b"\0")[0].decode()


def posix_ipc():
    results = {}
    try:
        with open("/dev/shm/spielbaum-escape", "w") as f:
            f.write("x")
        results["shm file"] = "written"
    except OSError as error:
        results["shm file"] = type(error).__name__
    libc.mq_open.restype = ctypes.c_int
    results["mq_open"] = _errno(libc.mq_open(b"/spielbaum-escape", os.O_CREAT | os.O_RDWR,
                                             0o666, None))
    return results


def signals(victim, numbers):
    """Every way to signal `victim` (SIGTERM) that the kernel has."""
    tried = {}
    try:
        os.kill(victim, signal.SIGTERM); tried["kill"] = "ok"
    except OSError as error:
        tried["kill"] = type(error).__name__
    try:
        os.killpg(victim, signal.SIGTERM); tried["killpg"] = "ok"
    except OSError as error:
        tried["killpg"] = type(error).__name__
    tried["tkill"] = _errno(libc.syscall(numbers["tkill"], victim, signal.SIGTERM))
    tried["tgkill"] = _errno(libc.syscall(numbers["tgkill"], victim, victim, signal.SIGTERM))
    info = ctypes.create_string_buffer(128)
    info[0] = signal.SIGTERM
    info[8:12] = (-1).to_bytes(4, "little", signed=True)          # si_code SI_QUEUE
    tried["rt_sigqueueinfo"] = _errno(libc.syscall(numbers["rt_sigqueueinfo"], victim,
                                                   signal.SIGTERM, info))
    tried["rt_tgsigqueueinfo"] = _errno(libc.syscall(numbers["rt_tgsigqueueinfo"], victim,
                                                     victim, signal.SIGTERM, info))
    pidfd = libc.syscall(numbers["pidfd_open"], victim, 0)
    tried["pidfd_open"] = _errno(pidfd)
    if pidfd >= 0:
        tried["pidfd_send_signal"] = _errno(libc.syscall(numbers["pidfd_send_signal"], pidfd,
                                                         signal.SIGTERM, None, 0))
    # SIGIO through a descriptor's owner: F_SETOWN to the victim, then I/O.
    import fcntl
    try:
        r, w = os.pipe()
        fcntl.fcntl(r, fcntl.F_SETOWN, victim)
        fcntl.fcntl(r, 10, signal.SIGTERM)                              # F_SETSIG
        fcntl.fcntl(r, fcntl.F_SETFL, os.O_ASYNC)
        os.write(w, b"x")
        tried["F_SETOWN"] = "ok"
    except OSError as error:
        tried["F_SETOWN"] = type(error).__name__
    return tried


def proc_of(pid):
    got = {}
    for part in ("mem", "environ", "cmdline", "maps"):
        try:
            with open(f"/proc/{pid}/{part}", "rb") as f:
                got[part] = len(f.read(64))
        except OSError as error:
            got[part] = type(error).__name__
    return got
'''


class Stage:
    """What a hostile child would want to reach, owned by this process's user."""

    def __init__(self):
        self.folder = Path(tempfile.mkdtemp(prefix="spielbaum-escape-"))
        os.chmod(self.folder, 0o777)
        self.secret = self.folder / "grader-secret.txt"
        self.secret.write_text("the grader's secret")
        self.socket_path = str(self.folder / "service.sock")
        self.abstract = f"\0{self.folder.name}"
        self.connections = []
        self.servers = []
        for address in (self.socket_path, self.abstract):
            server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            server.bind(address)
            server.listen(8)
            self.servers.append(server)
            threading.Thread(target=self._serve, args=(server,), daemon=True).start()
        os.chmod(self.socket_path, 0o777)
        tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        tcp.bind(("127.0.0.1", 0))
        tcp.listen(8)
        self.port = tcp.getsockname()[1]
        self.servers.append(tcp)
        threading.Thread(target=self._serve, args=(tcp,), daemon=True).start()
        self.victim = subprocess.Popen(["sleep", "300"], stdin=subprocess.DEVNULL,
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.key = 0x5EED0000 + os.getpid() % 0xFFFF

    def _serve(self, server):
        while True:
            try:
                connection, _ = server.accept()
            except OSError:
                return
            self.connections.append(1)
            with connection:
                connection.sendall(b"the service's secret")

    def close(self):
        for server in self.servers:
            try:
                server.shutdown(socket.SHUT_RDWR)     # wakes the thread in accept()
            except OSError:
                pass
            server.close()
        self.victim.kill()
        self.victim.wait()


def _shm_segments(key: int) -> bool:
    """Whether a System V segment with `key` exists on this machine (host's view)."""
    try:
        lines = Path("/proc/sysvipc/shm").read_text().splitlines()[1:]
    except OSError:
        return False
    return any(int(line.split()[0]) == key for line in lines if line.split())


def report(layers: list[str], kit_files: list[str]) -> dict:
    """Run every attack in sandboxes with `layers`; what each achieved."""
    from autograder.sandbox import syscalls
    from autograder.sandbox.client import Sandbox
    numbers = {name: syscalls.number(name) for name in (
        "tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "pidfd_open",
        "pidfd_send_signal", "io_uring_setup")}
    folder = Path(tempfile.mkdtemp(prefix="spielbaum-escapee-"))
    (folder / "attacks.py").write_text(ATTACKS)
    stage = Stage()
    outside = str(stage.folder / "written-by-child.txt")
    result = {"layers": layers}
    try:
        with Sandbox(folder, ["attacks"], layers) as box:
            result["applied"] = box.applied
            assert box.import_modules(10).ok

            def call(function, *args):
                outcome = box.call(f"attacks.{function}", args, timeout=20)
                return outcome.value if outcome.ok else {"failed": outcome.raised
                                                         or outcome.failure}
            result["honest"] = call("honest_work")
            result["read"] = call("read_files", [str(stage.secret), "/etc/hostname"]
                                  + kit_files + [f"/proc/{os.getpid()}/environ"])
            result["write"] = call("write_file", outside)
            result["io_uring"] = call("io_uring", numbers["io_uring_setup"])
            result["unix"] = call("unix_socket", stage.socket_path)
            result["abstract"] = call("unix_socket", stage.abstract)
            result["tcp"] = call("tcp", stage.port)
            result["shm_left"] = call("shm_leave", stage.key, "from the first student")
            result["posix_ipc"] = call("posix_ipc")
            result["signals"] = call("signals", stage.victim.pid, numbers)
            result["signals_grader"] = call("signals", os.getpid(), numbers) \
                if os.environ.get("ESCAPE_SIGNAL_GRADER") == "1" else {}
            result["proc"] = call("proc_of", os.getpid())
            result["notes"] = sorted(box.notes)
            result["seen"] = sorted(box.seen)
        time.sleep(0.05)
        with Sandbox(folder, ["attacks"], layers) as second:
            assert second.import_modules(10).ok
            outcome = second.call("attacks.shm_read", (stage.key,), timeout=10)
            result["shm_read_by_next"] = outcome.value if outcome.ok else str(outcome.raised)
        result["shm_on_host"] = _shm_segments(stage.key)
        result["victim_alive"] = stage.victim.poll() is None
        result["written_outside"] = os.path.exists(outside)
        result["connections"] = len(stage.connections)
        result["posix_shm_on_host"] = os.path.exists("/dev/shm/spielbaum-escape")
    finally:
        stage.close()
        if _shm_segments(stage.key):        # never leave one behind, whatever happened
            subprocess.run(["ipcrm", "-M", str(stage.key)], capture_output=True)
        if os.path.exists("/dev/shm/spielbaum-escape"):
            os.unlink("/dev/shm/spielbaum-escape")
    return result


if __name__ == "__main__":
    print(json.dumps(report(sys.argv[1].split(","), sys.argv[2:])))


# ------------------------------------------------------------ an ordinary user
SYSTEM_PYTHON = "/usr/bin/python3.11"


def plain_user_command(argv: list[str]) -> tuple[list[str], dict] | None:
    """(command, env) running `python argv...` as uid 65534 with the kit and pyseccomp
    importable (the machine's own Python: the kit's venv may sit in root's 0700 home),
    or None where this machine cannot (not root, no setpriv or system Python, or a
    checkout nobody else may read)."""
    import shutil

    import pyseccomp
    from autograder import ROOT
    setpriv = shutil.which("setpriv")
    if os.geteuid() != 0 or setpriv is None or not os.access(SYSTEM_PYTHON, os.X_OK):
        return None
    if not _readable_by_everyone(ROOT):
        return None
    libs = Path(tempfile.mkdtemp(prefix="spielbaum-plain-user-"))   # readable by all
    shutil.copy(pyseccomp.__file__, libs / "pyseccomp.py")
    for path in (libs, libs / "pyseccomp.py"):
        os.chmod(path, 0o755)
    command = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", SYSTEM_PYTHON,
               *argv]
    env = {"PATH": "/usr/bin:/bin", "TMPDIR": "/tmp", "PYTHONPATH": f"{ROOT}:{libs}"}
    return command, env


def _readable_by_everyone(path: Path) -> bool:
    for folder in [path, *path.parents]:
        if not os.stat(folder).st_mode & 0o005 == 0o005:
            return False
    return True

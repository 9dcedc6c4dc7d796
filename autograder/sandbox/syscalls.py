"""The system calls a sandboxed child may make: an allow-list, compiled by libseccomp.

The child is a CPython interpreter that has already started, imported the kit's
plumbing and confined itself; from then on it reads requests from a pipe, imports
the student's modules from its folder and the standard library, runs a pure-Python
game search, and writes answers to a pipe. The calls allowed are those that work
made when the five references and every example, bug and hostile corpus were
graded under strace (`SEEN`), and a few more that honest habits or other C
libraries need and that reach nothing outside the child (`HONEST`), each with its
reason. Everything else fails with EPERM (creating a process ends the child, as a
fork bomb should): whatever a kernel adds next is refused the day it appears. That
includes, by name only because people ask: io_uring, System V and POSIX IPC,
sockets of every kind, every call that sends a signal (kill, tkill, tgkill,
rt_sigqueueinfo, rt_tgsigqueueinfo, pidfd_send_signal), pidfd_*, bpf,
perf_event_open, userfaultfd, keyctl, add_key, ptrace, process_vm_*, mount,
unshare, setns and personality; and chmod, chown and utimensat, which Landlock
does not govern.

A call the filter refuses returns EPERM, so the student's code gets an ordinary
PermissionError: no crash, and the grader names what was refused. The filter is
built here, on the trusted side, once per grading process, and handed to the
child as the BPF program libseccomp exports; the child only installs it
(confine.apply_seccomp). It is the same for every child: it mentions no pid.

libseccomp comes through `pyseccomp` (ctypes, pure Python, API-compatible with
libseccomp's own bindings); Debian's `python3-seccomp` is used where it is the
one installed. Both need the system's libseccomp.so.2.
"""

from __future__ import annotations

import errno
import functools
import tempfile

# clone() flags (linux/sched.h): a thread shares everything and creates no namespace.
CLONE_THREAD = 0x00010000
CLONE_NAMESPACES = (0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000
                    | 0x20000000 | 0x40000000 | 0x00000080)  # NEWNS CGROUP UTS IPC USER PID NET TIME

# Allowed whatever their arguments, each with why. SEEN: made by the children while
# the five references and every example, bug and hostile corpus were graded under
# strace (docs/SUITES.md, "The sandbox"), or by the honest habits of
# tests/kit/test_escapes.py (files and folders of its own, threads, a timer).
SEEN: dict[str, str] = {
    "read": "requests from the grader; modules and files being read",
    "write": "answers to the grader; files in the student's folder",
    "lseek": "file positions (the import system, buffered files)",
    "close": "closing files",
    "openat": "opening files (the file layers decide which exist and may be opened)",
    "newfstatat": "looking at files (the import system looks at every candidate)",
    "getdents64": "listing a folder (the import system lists sys.path's folders)",
    "getcwd": "os.getcwd, relative paths",
    "chdir": "the child moves into the student's folder once confined",
    "mkdir": "os.makedirs in the student's folder",
    "rename": "os.replace in the student's folder (an atomic save)",
    "brk": "the heap",
    "mmap": "memory (the allocator, thread stacks, loading extension modules)",
    "munmap": "the same",
    "mremap": "the same (a growing list or string)",
    "mprotect": "the same (thread stacks' guard pages, loading extension modules)",
    "madvise": "a thread's stack returned when it ends",
    "futex": "locks: the GIL, threading",
    "set_robust_list": "a new thread's start (glibc)",
    "rseq": "a new thread's start (glibc)",
    "gettid": "threading",
    "exit": "a thread ends",
    "rt_sigaction": "signal handlers: the child's own, a student's own timer",
    "rt_sigprocmask": "signal masks (every new thread)",
    "rt_sigreturn": "returning from a signal handler",
    "setitimer": "signal.setitimer: a search's own time budget, signalling itself only",
    "clock_nanosleep": "time.sleep (the child's flusher thread sleeps 50 ms at a time)",
    "getpid": "os.getpid (random's seed, the child's own checks)",
    "getppid": "the child ends when the grader that started it is gone",
    "getrandom": "os.urandom, random's seed, hash randomisation",
    "sched_getaffinity": "os.cpu_count",
}
# Not seen in the corpora, allowed for honest code all the same: each is harmless
# (it reaches nothing outside the child: its own folder, its own clock, its own
# signals) and is what an honest habit or another C library needs.
HONEST: dict[str, str] = {
    "exit_group": "the child ends (os._exit)",
    "restart_syscall": "a sleep interrupted by the student's own timer goes on (the kernel's)",
    "open": "open() where the C library does not use openat",
    "stat": "os.stat where the C library does not use newfstatat",
    "lstat": "the same",
    "fstat": "the same",
    "mkdirat": "os.mkdir with dir_fd",
    "unlink": "os.remove of a file of its own",
    "unlinkat": "shutil.rmtree in the student's folder",
    "rmdir": "removing a folder of its own",
    "renameat": "os.rename with dir_fd",
    "renameat2": "the same, newer C libraries",
    "ftruncate": "file.truncate()",
    "fsync": "os.fsync before an atomic save",
    "sched_yield": "waiting for a lock",
    "alarm": "signal.alarm: a timer that signals the child itself only",
    "getitimer": "signal.getitimer",
    "clock_gettime": "time.process_time, time.thread_time: a search timing itself (CPU "
                     "clocks are not in the vDSO)",
    "clock_getres": "time.get_clock_info",
    "gettimeofday": "time.time where the vDSO cannot answer",
    "time": "the same",
    "nanosleep": "time.sleep with older C libraries",
    "times": "os.times",
    "getrusage": "resource.getrusage: a search timing itself",
    "poll": "select/poll on the child's own descriptors (a timeout of its own)",
    "ppoll": "the same",
    "select": "the same",
    "pselect6": "the same",
    "uname": "os.uname, platform.system",
    "getuid": "os.getuid (os.path.expanduser without HOME, getpass)",
    "geteuid": "the same",
    "getgid": "the same",
    "getegid": "the same",
    "getgroups": "os.getgroups",
    "pread64": "reading an open file at an offset: the dynamic loader reads a shared "
               "library's program headers so (the packages an assignment allows: numpy's "
               "OpenBLAS)",
}
ALLOWED: dict[str, str] = SEEN | HONEST

# Allowed only with these arguments: (argument index, mask, value), the call
# allowed when argument & mask == value.
ALLOWED_WITH: dict[str, tuple[tuple[int, int, int], str]] = {
    "clone": ((0, CLONE_THREAD | CLONE_NAMESPACES, CLONE_THREAD),
              "threads only (the child's flusher, a student's threading): never a new "
              "process, never a new namespace (seen)"),
    "prlimit64": ((2, 0xFFFFFFFFFFFFFFFF, 0),
                  "reading a limit (resource.getrlimit): no new limit given"),
}

# Allowed only when one argument is one of a few values: (argument index, {value: why}).
ALLOWED_VALUES: dict[str, tuple[int, dict[int, str]]] = {
    "ioctl": (1, {
        0x5401: "TCGETS: isatty(), which open() asks of every file it opens (seen)",
        0x5451: "FIOCLEX: close-on-exec (seen)",
        0x5450: "FIONCLEX: the same",
        0x5413: "TIOCGWINSZ: os.get_terminal_size (the answer: not a terminal)",
    }),
    "fcntl": (1, {
        1: "F_GETFD: close-on-exec (os.get_inheritable)",
        2: "F_SETFD: the same (os.set_inheritable)",
        3: "F_GETFL: a descriptor's flags (os.get_blocking)",
        4: "F_SETFL: the same (os.set_blocking)",
    }),
}

# Creating a process ends the child (as `kill -9`), as it always has here: no game
# search starts one, and a fork bomb should cost nothing but its own row ("killed:
# tried to start processes"). clone() without CLONE_THREAD is fork() in disguise.
KILLS: dict[str, str] = {
    "fork": "a new process", "vfork": "the same", "execve": "running another program",
    "execveat": "the same",
}
KILLS_WITH: dict[str, tuple[int, int, int]] = {
    "clone": (0, CLONE_THREAD, 0),          # a new process, not a thread
}

# Refused with ENOSYS rather than EPERM: glibc then takes the older call, which the
# filter can judge (clone3's flags are in memory, where a filter cannot look).
NOT_THERE: dict[str, str] = {
    "clone3": "glibc falls back to clone(), whose flags the filter reads",
}

REFUSED = errno.EPERM


class SeccompUnavailable(Exception):
    """libseccomp (or a Python binding of it) is not there: the layer is not offered."""


def _binding():
    try:
        import seccomp          # Debian's python3-seccomp, when it is the one installed
        if hasattr(seccomp, "SyscallFilter"):
            return seccomp
    except ImportError:
        pass
    try:
        import pyseccomp
        if not hasattr(pyseccomp, "SyscallFilter"):
            raise ImportError(f"{pyseccomp.__name__} is not pyseccomp")
    except (ImportError, RuntimeError, OSError) as error:
        raise SeccompUnavailable(
            f"libseccomp is not usable here ({error}); install Debian's libseccomp2 "
            "(or your system's libseccomp) and the kit's dependency pyseccomp") from None
    return pyseccomp


def build(binding=None):
    """The filter as a libseccomp SyscallFilter (not loaded)."""
    sc = binding or _binding()
    flt = sc.SyscallFilter(sc.ERRNO(REFUSED))
    # A call of another architecture's ABI (x32, i386 on x86-64) would dodge every
    # number below: libseccomp's bad-architecture action ends the process.
    flt.set_attr(sc.Attr.ACT_BADARCH, sc.KILL_PROCESS)
    _optimise(sc, flt)
    for name in ALLOWED:
        _add(sc, flt, sc.ALLOW, name)
    for name, ((index, mask, value), _why) in ALLOWED_WITH.items():
        _add(sc, flt, sc.ALLOW, name, sc.Arg(index, sc.MASKED_EQ, mask, value))
    for name, (index, values) in ALLOWED_VALUES.items():
        for value in values:
            _add(sc, flt, sc.ALLOW, name, sc.Arg(index, sc.EQ, value))
    for name in NOT_THERE:
        _add(sc, flt, sc.ERRNO(errno.ENOSYS), name)
    for name in KILLS:
        _add(sc, flt, sc.KILL_PROCESS, name)
    for name, (index, mask, value) in KILLS_WITH.items():
        _add(sc, flt, sc.KILL_PROCESS, name, sc.Arg(index, sc.MASKED_EQ, mask, value))
    return flt


def _optimise(sc, flt) -> None:
    """A binary tree of syscall numbers where libseccomp offers it (2.5+): the kernel
    caches the calls allowed outright either way."""
    optimize = getattr(sc.Attr, "CTL_OPTIMIZE", None)
    if optimize is not None:
        try:
            flt.set_attr(optimize, 2)
        except OSError:
            pass


def _add(sc, flt, action, name, *args) -> None:
    """One rule; a name this architecture does not have (open on arm64) is skipped."""
    try:
        number = sc.resolve_syscall(sc.Arch.NATIVE, name)
    except (OSError, ValueError):
        return
    if number < 0:
        return
    flt.add_rule(action, number, *args)


@functools.lru_cache(maxsize=1)
def program() -> bytes:
    """The filter as the kernel takes it (struct sock_filter[], native byte order),
    built once per process; SeccompUnavailable where libseccomp is not usable."""
    flt = build()
    with tempfile.TemporaryFile() as handle:
        flt.export_bpf(handle)
        handle.seek(0)
        data = handle.read()
    if not data or len(data) % 8:
        raise SeccompUnavailable("libseccomp exported no filter")
    return data


def number(name: str) -> int:
    """This architecture's number of the system call `name` (-1 if it has none)."""
    sc = _binding()
    try:
        return sc.resolve_syscall(sc.Arch.NATIVE, name)
    except (OSError, ValueError):
        return -1


def native_arch() -> int:
    """The AUDIT_ARCH value of this machine's system calls."""
    sc = _binding()
    return sc.system_arch()


def why(name: str) -> str | None:
    """The reason `name` is allowed (in any form), or None if it is refused."""
    if name in ALLOWED:
        return ALLOWED[name]
    if name in ALLOWED_WITH:
        return ALLOWED_WITH[name][1]
    if name in ALLOWED_VALUES:
        return "; ".join(ALLOWED_VALUES[name][1].values())
    return None


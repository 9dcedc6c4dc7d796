"""The seccomp allow-list, read back from the filter the kernel gets.

`syscalls.program()` is the BPF program every sandboxed child installs. These tests
run it here, in a small interpreter of classic BPF, for every system call number
this architecture has, and compare what it decides with the list the code
documents (`syscalls.ALLOWED` and friends), so the filter cannot widen silently:
a call allowed by the program but not documented, or documented but refused,
fails here. Other architectures' calls (x32 on x86-64) must end the process.

How the list was made: `strace -f` of the five references and the example, bug and
hostile corpora being graded (docs/SUITES.md, "The sandbox's system calls"); every
call the children made after installing the filter is either in the list with its
reason, or refused on purpose (the hostile corpora's).
"""

import errno
import struct

import pytest

from autograder.sandbox import syscalls

try:
    PROGRAM = syscalls.program()
except syscalls.SeccompUnavailable as missing:      # pragma: no cover (CI has it)
    pytest.skip(f"libseccomp is not usable here: {missing}", allow_module_level=True)

RET_KILL_PROCESS, RET_ALLOW, RET_ERRNO = 0x80000000, 0x7FFF0000, 0x00050000
X32_BIT = 0x40000000


def run(nr: int, args=(0, 0, 0, 0, 0, 0), arch: int | None = None) -> int:
    """What the filter returns for system call `nr` with `args` (struct seccomp_data:
    nr, arch, instruction pointer, six 64-bit arguments)."""
    arch = syscalls.native_arch() if arch is None else arch
    args = tuple(args) + (0,) * (6 - len(args))
    data = struct.pack("<iIQ6Q", nr, arch, 0, *[a & 0xFFFFFFFFFFFFFFFF for a in args])
    return _interpret(PROGRAM, data)


def _interpret(program: bytes, data: bytes) -> int:
    """A classic-BPF interpreter for the instructions libseccomp emits; an opcode it
    does not know fails the test rather than guessing."""
    code = [struct.unpack("=HBBI", program[i:i + 8]) for i in range(0, len(program), 8)]
    a = x = 0
    memory = [0] * 16
    pc = 0
    while True:
        op, jt, jf, k = code[pc]
        pc += 1
        cls = op & 0x07
        if op == 0x20:                       # ld [k] (word)
            a = struct.unpack_from("<I", data, k)[0]
        elif op == 0x00:                     # ld #k
            a = k
        elif op == 0x01:                     # ldx #k
            x = k
        elif op == 0x60:                     # ld M[k]
            a = memory[k]
        elif op == 0x61:                     # ldx M[k]
            x = memory[k]
        elif op == 0x02:                     # st M[k]
            memory[k] = a
        elif op == 0x03:                     # stx M[k]
            memory[k] = x
        elif op == 0x54:                     # and #k
            a &= k
        elif op == 0x44:                     # or #k
            a |= k
        elif op == 0x05:                     # ja
            pc += k
        elif cls == 0x05:                    # conditional jumps on #k or x
            value = x if op & 0x08 else k
            test = {0x10: a == value, 0x20: a > value, 0x30: a >= value,
                    0x40: bool(a & value)}.get(op & 0xF0)
            if test is None:
                raise AssertionError(f"unknown BPF jump 0x{op:x}")
            pc += jt if test else jf
        elif op == 0x06:                     # ret #k
            return k
        elif op == 0x16:                     # ret a
            return a
        else:
            raise AssertionError(f"unknown BPF opcode 0x{op:x} at {pc - 1}")


def names_of_this_architecture() -> dict[int, str]:
    """Every system call this architecture has: number -> name (libseccomp's table)."""
    import pyseccomp as sc
    found = {}
    for nr in range(0, 1024):
        try:
            name = sc.resolve_syscall(sc.Arch.NATIVE, nr)
        except (OSError, ValueError):
            continue
        if name:
            found[nr] = name.decode() if isinstance(name, bytes) else name
    return found


TABLE = names_of_this_architecture()


def test_the_table_is_this_architectures_whole_list():
    assert len(TABLE) > 300 and "read" in TABLE.values() and "io_uring_setup" in TABLE.values()


def test_the_filter_allows_exactly_the_documented_calls_and_refuses_the_rest():
    allowed, refused, other = set(), set(), {}
    for nr, name in TABLE.items():
        action = run(nr)
        if action == RET_ALLOW:
            allowed.add(name)
        elif action == RET_ERRNO | syscalls.REFUSED:
            refused.add(name)
        else:
            other[name] = action
    # With every argument zero, a call allowed only with some arguments is allowed
    # when zero is one of them (fcntl's F_DUPFD; prlimit64 with no new limit).
    at_zero = {name for name, ((_i, mask, value), _why) in syscalls.ALLOWED_WITH.items()
               if 0 & mask == value}
    at_zero |= {name for name, (_i, values) in syscalls.ALLOWED_VALUES.items() if 0 in values}
    documented = {name for name in set(syscalls.ALLOWED) | at_zero if syscalls.number(name) >= 0}
    assert allowed == documented, (sorted(allowed - documented), sorted(documented - allowed))
    expected_other = {name: RET_ERRNO | errno.ENOSYS for name in syscalls.NOT_THERE}
    expected_other |= {name: RET_KILL_PROCESS for name in syscalls.KILLS}
    expected_other |= {name: RET_KILL_PROCESS for name, (_i, mask, value)
                       in syscalls.KILLS_WITH.items() if 0 & mask == value}
    assert other == {name: action for name, action in expected_other.items()
                     if syscalls.number(name) >= 0}
    assert refused == set(TABLE.values()) - allowed - set(other)


@pytest.mark.parametrize("name", [
    "io_uring_setup", "io_uring_enter", "io_uring_register", "socket", "socketpair",
    "connect", "sendto", "sendmsg", "recvfrom", "bind", "listen", "accept4",
    "shmget", "shmat", "shmctl", "semget", "semop", "msgget", "msgsnd", "mq_open",
    "mq_timedsend", "memfd_create", "kill", "tkill", "tgkill", "rt_sigqueueinfo",
    "rt_tgsigqueueinfo", "pidfd_open", "pidfd_send_signal", "pidfd_getfd", "bpf",
    "perf_event_open", "userfaultfd", "keyctl", "add_key", "request_key", "ptrace",
    "process_vm_readv", "process_vm_writev", "process_madvise", "mount", "umount2",
    "pivot_root", "chroot", "unshare", "setns", "personality", "kcmp", "setuid", "setsid", "setpgid", "link", "symlink", "mknod", "chown",
    "flock", "inotify_init1", "fanotify_init", "open_by_handle_at", "name_to_handle_at",
    "move_mount", "fsopen", "open_tree", "landlock_create_ruleset", "seccomp", "prctl",
    "setrlimit", "syslog", "reboot", "init_module", "kexec_load", "acct", "quotactl",
    "swapon", "sethostname", "settimeofday", "clock_settime", "adjtimex", "ioperm", "iopl",
    "modify_ldt", "lookup_dcookie", "vhangup", "mbind", "migrate_pages", "move_pages",
    "set_mempolicy", "epoll_create1", "eventfd2", "signalfd4", "timerfd_create",
    "wait4", "waitid", "chmod", "fchmod", "fchmodat", "utimensat", "setxattr", "fchown",
    "dup", "dup3", "pipe2", "truncate", "readv", "writev", "sendfile",
])
def test_what_a_game_search_never_needs_is_refused_with_eperm(name):
    nr = syscalls.number(name)
    if nr < 0:
        pytest.skip(f"{name} does not exist on this architecture")
    assert run(nr, (0, 0, 0, 0, 0, 0)) == RET_ERRNO | errno.EPERM
    assert run(nr, (1, 2, 3, 4, 5, 6)) == RET_ERRNO | errno.EPERM


@pytest.mark.parametrize("name", ["fork", "vfork", "execve", "execveat"])
def test_starting_a_process_ends_the_child(name):
    nr = syscalls.number(name)
    if nr < 0:
        pytest.skip(f"{name} does not exist on this architecture")
    assert run(nr) == RET_KILL_PROCESS


def test_clone_makes_threads_and_nothing_else():
    clone = syscalls.number("clone")
    thread = 0x3D0F00       # what glibc's pthread_create passes (CLONE_VM ... CLONE_THREAD ...)
    assert run(clone, (thread,)) == RET_ALLOW
    assert run(clone, (0x1200011,)) == RET_KILL_PROCESS             # glibc's fork()
    assert run(clone, (thread | 0x10000000,)) == RET_ERRNO | errno.EPERM   # + CLONE_NEWUSER
    assert run(clone, (thread | 0x40000000,)) == RET_ERRNO | errno.EPERM   # + CLONE_NEWNET
    assert run(syscalls.number("clone3")) == RET_ERRNO | errno.ENOSYS


def test_ioctl_and_fcntl_only_with_the_requests_python_makes():
    ioctl, fcntl = syscalls.number("ioctl"), syscalls.number("fcntl")
    assert run(ioctl, (3, 0x5401)) == RET_ALLOW                          # TCGETS: isatty
    assert run(ioctl, (0, 0x5412)) == RET_ERRNO | errno.EPERM            # TIOCSTI
    assert run(ioctl, (3, 0x5401 | 1 << 32)) == RET_ERRNO | errno.EPERM  # high bits: no
    assert run(fcntl, (3, 3)) == RET_ALLOW                               # F_GETFL
    for command in (8, 10, 1024, 1026, 1031, 1033):   # SETOWN SETSIG SETLEASE NOTIFY ...
        assert run(fcntl, (3, command)) == RET_ERRNO | errno.EPERM, command


def test_a_new_resource_limit_is_refused_reading_one_is_not():
    prlimit = syscalls.number("prlimit64")
    assert run(prlimit, (0, 7, 0, 0x7FFD0000)) == RET_ALLOW
    assert run(prlimit, (0, 7, 0x7FFD0000, 0)) == RET_ERRNO | errno.EPERM


def test_another_architectures_calls_end_the_process():
    assert run(0, arch=0x40000003) == RET_KILL_PROCESS           # i386
    if syscalls.native_arch() == 0xC000003E:                     # x86-64: the x32 ABI
        assert run(X32_BIT | 0) == RET_KILL_PROCESS
        assert run(X32_BIT | syscalls.number("kill")) == RET_KILL_PROCESS


def test_every_allowed_call_says_why():
    for table in (syscalls.ALLOWED, syscalls.NOT_THERE):
        assert all(isinstance(why, str) and len(why) > 5 for why in table.values())
    for name, (_rule, why) in syscalls.ALLOWED_WITH.items():
        assert len(why) > 5, name
    for name, (_index, values) in syscalls.ALLOWED_VALUES.items():
        assert all(len(why) > 5 for why in values.values()), name

"""Confinement layers the child applies to itself before importing student code.

Each layer is a function that either succeeds or raises LayerError; the child
applies every layer it was asked for and refuses to run student code if one
fails (fail closed). Layers, strongest last:

- rlimits: CPU seconds, address space, file size, open files, no core dumps.
- netns: a new network namespace (no interfaces: no network at all).
- tmpfs: the scratch folder becomes a private tmpfs of fixed size and file
  count, in a mount namespace of the child's own (the submission is copied
  in); without it, Landlock leaves the scratch folder read-only.
- landlock: read only the Python installation and the scratch folder, write
  only the scratch folder, no TCP bind/connect, no signals or abstract Unix
  sockets outside the sandbox (kernel LSM, via raw syscalls).
- seccomp: no process creation (killed), no sockets, no kill() of other
  processes, no ptrace/unshare/mount (a raw BPF filter, no library needed).

Standard library only: this file runs inside the child.
"""

import ctypes
import errno
import os
import resource
import struct
import sys

_MACHINE = os.uname().machine    # what platform.machine() says, without importing it


class LayerError(Exception):
    pass


_libc = ctypes.CDLL(None, use_errno=True)
_syscall = _libc.syscall
_syscall.restype = ctypes.c_long


def _check(result, what):
    if result < 0:
        code = ctypes.get_errno()
        raise LayerError(f"{what}: {os.strerror(code)}")
    return result


# ---------------------------------------------------------------- rlimits
def apply_rlimits(cpu_seconds, memory_bytes, file_bytes, open_files):
    limits = [
        (resource.RLIMIT_CPU, int(cpu_seconds)),
        (resource.RLIMIT_AS, int(memory_bytes)),
        (resource.RLIMIT_FSIZE, int(file_bytes)),
        (resource.RLIMIT_NOFILE, int(open_files)),
        (resource.RLIMIT_CORE, 0),
    ]
    for which, value in limits:
        try:
            resource.setrlimit(which, (value, value))
        except (ValueError, OSError) as error:
            raise LayerError(f"rlimit {which}: {error}") from None


# ---------------------------------------------------------------- netns
CLONE_NEWNET = 0x40000000
CLONE_NEWUSER = 0x10000000


def enter_network_namespace():
    """A namespace with no network interfaces. Unprivileged users need a user
    namespace first; root (with CAP_SYS_ADMIN) can do it directly."""
    if _libc.unshare(CLONE_NEWNET) == 0:
        return
    _check(_libc.unshare(CLONE_NEWUSER | CLONE_NEWNET), "unshare(user+net)")
    _map_user()


# ---------------------------------------------------------------- tmpfs
CLONE_NEWNS = 0x00020000
MS_NOSUID, MS_NODEV, MS_REC, MS_PRIVATE = 2, 4, 0x4000, 1 << 18


def _map_user():
    uid, gid = os.getuid(), os.getgid()
    try:
        with open("/proc/self/setgroups", "w") as f:
            f.write("deny")
        with open("/proc/self/uid_map", "w") as f:
            f.write(f"{uid} {uid} 1")
        with open("/proc/self/gid_map", "w") as f:
            f.write(f"{gid} {gid} 1")
    except OSError as error:
        raise LayerError(f"user namespace maps: {error}") from None


def private_scratch(scratch, size_bytes, files, owner):
    """Mount a tmpfs of `size_bytes` and `files` inodes over `scratch`, seen only
    by this process, and copy what the folder held into it (owned by `owner`).

    The disk then holds nothing the student wrote, the caps are the kernel's,
    and the mount disappears with the process. Root does it directly;
    anybody else inside a user namespace of their own."""
    source = os.open(scratch, os.O_RDONLY | os.O_DIRECTORY)
    try:
        if _libc.unshare(CLONE_NEWNS) != 0:
            _check(_libc.unshare(CLONE_NEWUSER | CLONE_NEWNS), "unshare(user+mount)")
            _map_user()
            owner = os.getuid()
        _check(_libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None),
               "making mounts private")
        options = f"size={int(size_bytes)},nr_inodes={int(files)},mode=0700,uid={owner},gid={owner}"
        _check(_libc.mount(b"tmpfs", os.fsencode(scratch), b"tmpfs", MS_NOSUID | MS_NODEV,
                           options.encode()), "mounting the scratch tmpfs")
        _copy_tree(source, scratch, owner)
    finally:
        os.close(source)


def _copy_tree(source_fd, target, owner):
    """Copy regular files and folders from the directory `source_fd` into `target`."""
    chown = os.geteuid() == 0 and owner != 0
    for folder, dirs, names, folder_fd in os.fwalk(".", dir_fd=source_fd, follow_symlinks=False):
        destination = os.path.normpath(os.path.join(target, folder))
        for name in dirs:
            os.mkdir(os.path.join(destination, name), 0o700)
            if chown:
                os.chown(os.path.join(destination, name), owner, owner)
        for name in names:
            try:
                fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=folder_fd)
            except OSError:
                continue        # a symbolic link: never followed
            try:
                path = os.path.join(destination, name)
                with os.fdopen(fd, "rb", closefd=False) as src, open(path, "wb") as dst:
                    while chunk := src.read(1 << 16):
                        dst.write(chunk)
                if chown:
                    os.chown(path, owner, owner)
            finally:
                os.close(fd)


# ---------------------------------------------------------------- uid
PR_SET_KEEPCAPS = 8
CAP_DAC_READ_SEARCH = 2
_CAPSET = {"x86_64": 126, "aarch64": 91}


def drop_to_uid(uid, keep_read=True):
    """Become `uid` (no groups) with no capability, or with one: CAP_DAC_READ_SEARCH.

    The Python installation may live in a private home folder (here /root), which
    a plain unprivileged user could not read; the capability keeps reading
    possible, and Landlock (applied next) decides *what* may be read. So it is
    kept only when Landlock follows (`keep_read`) and the process may hold it
    (Docker's default set lacks it): without Landlock it would open every file.
    Without the capability the child must still be able to read the Python
    installation, or the layer fails. Every other capability is gone: no
    signals to other users' processes, no privileged system calls."""
    if os.geteuid() != 0:
        raise LayerError("only root can switch to a separate user")
    if _MACHINE not in _CAPSET:
        raise LayerError(f"capset number not known for {_MACHINE}")
    _check(_libc.prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0), "keepcaps")
    try:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    except OSError as error:
        raise LayerError(f"switching to uid {uid}: {error.strerror}") from None
    kept = keep_read and _capset(1 << CAP_DAC_READ_SEARCH) == 0
    if not kept:
        _check(_capset(0), "capset")
    if os.getuid() != uid or os.geteuid() != uid:
        raise LayerError("the user switch did not hold")
    if not kept and not os.access(sys.base_prefix, os.R_OK | os.X_OK):
        raise LayerError(f"a plain user cannot read the Python installation "
                         f"({sys.base_prefix}) and the capability to read it is not "
                         "available here")


def _capset(mask):
    header = ctypes.create_string_buffer(struct.pack("Ii", 0x20080522, 0), 8)
    data = ctypes.create_string_buffer(struct.pack("6I", mask, mask, 0, 0, 0, 0), 24)
    return _syscall(_CAPSET[_MACHINE], header, data)


# ---------------------------------------------------------------- landlock
SYS_LANDLOCK_CREATE_RULESET = 444   # the same number on every architecture
SYS_LANDLOCK_ADD_RULE = 445
SYS_LANDLOCK_RESTRICT_SELF = 446
PR_SET_NO_NEW_PRIVS = 38

FS_EXECUTE, FS_WRITE_FILE, FS_READ_FILE, FS_READ_DIR = 1, 2, 4, 8
FS_ALL_V1 = (1 << 13) - 1
FS_REFER, FS_TRUNCATE, FS_IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
NET_BIND_TCP, NET_CONNECT_TCP = 1, 2
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1, 2


def landlock_abi():
    """The kernel's Landlock ABI version, 0 if it has none."""
    result = _syscall(SYS_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    return max(int(result), 0)


def _fs_mask(abi):
    mask = FS_ALL_V1
    if abi >= 2:
        mask |= FS_REFER
    if abi >= 3:
        mask |= FS_TRUNCATE
    if abi >= 5:
        mask |= FS_IOCTL_DEV
    return mask


def apply_landlock(read_paths, write_paths):
    """Allow reading `read_paths`, reading and writing `write_paths`, nothing else.

    Requires ABI 4 (TCP rules) and 6 (signal scoping) to be complete; with an
    older kernel the layer is refused rather than applied half-way."""
    abi = landlock_abi()
    if abi < 6:
        raise LayerError(f"landlock ABI {abi} is older than 6 (kernel 6.12)")
    fs = _fs_mask(abi)
    attr = struct.pack("QQQ", fs, NET_BIND_TCP | NET_CONNECT_TCP,
                       SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL)
    buffer = ctypes.create_string_buffer(attr, len(attr))
    ruleset = _check(_syscall(SYS_LANDLOCK_CREATE_RULESET, buffer,
                              ctypes.c_size_t(len(attr)), ctypes.c_uint32(0)),
                     "landlock_create_ruleset")
    try:
        read = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR
        for path, access in [(p, read) for p in read_paths] + [(p, fs) for p in write_paths]:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError as error:
                raise LayerError(f"landlock path {path}: {error.strerror}") from None
            try:
                if not os.path.isdir(path):
                    access &= FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV
                rule = ctypes.create_string_buffer(struct.pack("=Qi", access, fd), 12)
                _check(_syscall(SYS_LANDLOCK_ADD_RULE, ruleset, ctypes.c_uint32(1), rule,
                                ctypes.c_uint32(0)), f"landlock_add_rule {path}")
            finally:
                os.close(fd)
        _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
        _check(_syscall(SYS_LANDLOCK_RESTRICT_SELF, ruleset, ctypes.c_uint32(0)),
               "landlock_restrict_self")
    finally:
        os.close(ruleset)


# ---------------------------------------------------------------- seccomp
_ARCHES = {
    # machine: (AUDIT_ARCH, syscall numbers)
    "x86_64": (0xC000003E, {
        "socket": 41, "socketpair": 53, "clone": 56, "fork": 57, "vfork": 58, "execve": 59,
        "kill": 62, "ptrace": 101, "tkill": 200, "tgkill": 234, "unshare": 272, "setns": 308,
        "execveat": 322, "clone3": 435, "mount": 165, "process_vm_writev": 311}),
    "aarch64": (0xC00000B7, {
        "socket": 198, "socketpair": 199, "clone": 220, "execve": 221, "kill": 129,
        "ptrace": 117, "tkill": 130, "tgkill": 131, "unshare": 97, "setns": 268,
        "execveat": 281, "clone3": 435, "mount": 40, "process_vm_writev": 271}),
}
RET_KILL_PROCESS, RET_ALLOW = 0x80000000, 0x7FFF0000
CLONE_THREAD = 0x00010000
PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2
LD_W_ABS, JEQ, JGE, JSET, RET = 0x20, 0x15, 0x35, 0x45, 0x06


def _errno(code):
    return 0x00050000 | code


def seccomp_program(pid):
    """The BPF filter as a list of (code, jt, jf, k) instructions."""
    arch, nr = _ARCHES[_MACHINE]
    prog = [(LD_W_ABS, 0, 0, 4), (JEQ, 1, 0, arch), (RET, 0, 0, RET_KILL_PROCESS),
            (LD_W_ABS, 0, 0, 0)]
    if arch == 0xC000003E:  # refuse the x32 ABI, which would dodge the numbers below
        prog += [(JGE, 0, 1, 0x40000000), (RET, 0, 0, RET_KILL_PROCESS)]

    def simple(name, action):
        if name in nr:
            prog.extend([(JEQ, 0, 1, nr[name]), (RET, 0, 0, action)])

    for name in ("fork", "vfork", "execve", "execveat"):
        simple(name, RET_KILL_PROCESS)
    simple("clone3", _errno(errno.ENOSYS))      # glibc falls back to clone()
    for name in ("socket", "socketpair"):
        simple(name, _errno(errno.EACCES))
    for name in ("ptrace", "unshare", "setns", "mount", "process_vm_writev", "tkill"):
        simple(name, _errno(errno.EPERM))
    # clone: threads (CLONE_THREAD) yes, new processes no.
    prog += [(JEQ, 0, 4, nr["clone"]), (LD_W_ABS, 0, 0, 16), (JSET, 0, 1, CLONE_THREAD),
             (RET, 0, 0, RET_ALLOW), (RET, 0, 0, RET_KILL_PROCESS)]
    # kill/tgkill: only to ourselves.
    for name in ("kill", "tgkill"):
        prog += [(JEQ, 0, 4, nr[name]), (LD_W_ABS, 0, 0, 16), (JEQ, 0, 1, pid),
                 (RET, 0, 0, RET_ALLOW), (RET, 0, 0, _errno(errno.EPERM))]
    prog.append((RET, 0, 0, RET_ALLOW))
    return prog


def apply_seccomp():
    if _MACHINE not in _ARCHES:
        raise LayerError(f"seccomp filter not written for {_MACHINE}")
    prog = seccomp_program(os.getpid())
    raw = b"".join(struct.pack("HBBI", *ins) for ins in prog)
    filt = ctypes.create_string_buffer(raw, len(raw))

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    fprog = SockFprog(len(prog), ctypes.addressof(filt))
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    _check(_libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0),
           "seccomp filter")


def python_read_paths():
    """What the interpreter needs to keep importing standard modules."""
    paths = {sys.base_prefix, os.path.dirname(os.path.realpath(sys.executable))}
    paths |= {p for p in ("/usr/lib", "/lib", "/lib64", "/usr/lib64", "/usr/local/lib",
                          "/etc/localtime", "/usr/share/zoneinfo")
              if os.path.exists(p)}
    return sorted(paths)

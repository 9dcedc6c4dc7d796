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
- seccomp: an allow-list of system calls (syscalls.py, compiled by libseccomp on
  the grader's side and handed over as a BPF program): everything a game search
  in CPython does not need fails with EPERM.

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
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000


def enter_network_namespace():
    """A network namespace with no interfaces and an IPC namespace of the child's own:
    no network at all, and System V / POSIX message queues, semaphores and shared
    memory that nobody else sees and that end with the child. Unprivileged users
    need a user namespace first; root (with CAP_SYS_ADMIN) can do it directly."""
    if _libc.unshare(CLONE_NEWNET | CLONE_NEWIPC) == 0:
        return
    _check(_libc.unshare(CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWIPC),
           "unshare(user+net+ipc)")
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


def private_view(scratch, size_bytes, files, owner, readable):
    """Give the child a file system of its own: a root holding only what `readable`
    names (read-only; its hidden folders empty) and the scratch folder at its usual
    path, a tmpfs of `size_bytes` and `files` inodes into which the folder's files
    are copied (owned by `owner`). Nothing else of the host is there: no /tmp, /run,
    /dev/shm, home folders, sockets, the kit or other students' folders.

    The disk then holds nothing the student wrote, the caps are the kernel's, and
    the mounts disappear with the process. Root does it directly; anybody else
    inside a user namespace of their own (as bubblewrap does, without its binary)."""
    source = os.open(scratch, os.O_RDONLY | os.O_DIRECTORY)
    try:
        if _libc.unshare(CLONE_NEWNS) != 0:
            _check(_libc.unshare(CLONE_NEWUSER | CLONE_NEWNS), "unshare(user+mount)")
            _map_user()
            owner = os.getuid()
        _mount(None, "/", None, MS_REC | MS_PRIVATE, None, "making mounts private")
        # The new root is a small tmpfs mounted over the scratch folder itself: a
        # folder that exists and that nothing else uses while the child lives.
        root = scratch
        _mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,nr_inodes=4096,mode=0755",
               "mounting the view's root")
        for path in readable.stdlib + readable.folders + readable.files:
            _bind_read_only(root, path)
        for path in readable.devices:
            _bind_read_only(root, path, device=True)
        for path in readable.hidden:
            _mount("tmpfs", root + path, "tmpfs", MS_NOSUID | MS_NODEV | MS_RDONLY,
                   "size=4k,nr_inodes=2,mode=0555", f"hiding {path}")
        target = _make_folders(root, scratch)
        options = f"size={int(size_bytes)},nr_inodes={int(files)},mode=0700,uid={owner},gid={owner}"
        _mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV, options, "mounting the scratch tmpfs")
        _copy_tree(source, target, owner)
        _enter(root)
    finally:
        os.close(source)


MS_RDONLY, MS_NOEXEC, MS_REMOUNT, MS_BIND = 1, 8, 32, 4096
MNT_DETACH = 2
MOUNT_ATTR_RDONLY, MOUNT_ATTR_NOSUID, MOUNT_ATTR_NODEV = 1, 2, 4
AT_RECURSIVE = 0x8000
SYS_MOUNT_SETATTR = 442         # the same number on every architecture
_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}


def _mount(source, target, kind, flags, options, what):
    encode = lambda value: None if value is None else os.fsencode(value)  # noqa: E731
    _check(_libc.mount(encode(source), encode(target), encode(kind), ctypes.c_ulong(flags),
                       encode(options)), what)


def _make_folders(root, path):
    """`path` inside the view as folders (each 0755), its parents included."""
    target = root + path
    os.makedirs(target, 0o755, exist_ok=True)
    return target


def _bind_read_only(root, path, device=False):
    """`path` as it is on the host, read-only, at the same place in the view; the
    symbolic links on the way to it (/lib -> usr/lib) made again as links. A
    device (/dev/null) keeps working: its mount is not `nodev`, and a read-only
    mount does not stop writing to a device."""
    real = _place_links(root, path)
    if os.path.isdir(real):
        _make_folders(root, real)
    else:
        _make_folders(root, os.path.dirname(real))
        if not os.path.lexists(root + real):
            os.close(os.open(root + real, os.O_WRONLY | os.O_CREAT, 0o444))
    _mount(real, root + real, None, MS_BIND | MS_REC, None, f"showing {path}")
    nodev = 0 if device else MOUNT_ATTR_NODEV
    attrs = struct.pack("QQQQ", MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | nodev, 0, 0, 0)
    if _syscall(SYS_MOUNT_SETATTR, -100, os.fsencode(root + real), AT_RECURSIVE,
                ctypes.create_string_buffer(attrs, len(attrs)), ctypes.c_size_t(32)) == 0:
        return
    # Kernels before 5.12: remount the top mount read-only, keeping the flags the
    # host's mount has (a user namespace may not clear them).
    kept = os.statvfs(real).f_flag & (MS_NOSUID | MS_NODEV | MS_NOEXEC)
    nodev = 0 if device else MS_NODEV
    _mount(None, root + real, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | nodev | kept,
           None, f"making {path} read-only")


def _place_links(root, path):
    """Make each symbolic link on the way to `path` in the view, as on the host;
    the real path `path` stands for."""
    current = "/"
    for part in [p for p in path.split("/") if p]:
        step = os.path.join(current, part)
        if os.path.islink(step):
            link = root + step
            if not os.path.lexists(link):
                _make_folders(root, current)
                os.symlink(os.readlink(step), link)
            step = os.path.realpath(step)
        current = step
    return current


def _enter(root):
    """Make `root` the child's / (pivot_root), the host's tree detached, / read-only."""
    if _MACHINE not in _PIVOT_ROOT:
        raise LayerError(f"pivot_root number not known for {_MACHINE}")
    os.chdir(root)
    _check(_syscall(_PIVOT_ROOT[_MACHINE], b".", b"."), "pivot_root")
    _check(_libc.umount2(b".", MNT_DETACH), "detaching the host's files")
    os.chdir("/")
    _mount(None, "/", None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, None,
           "making the view's root read-only")


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


MIN_ABI = 3


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


def apply_landlock(readable, also_read, write_paths, hidden_by_view=False):
    """Allow reading what `readable` names and `also_read`, reading and writing
    `write_paths`, nothing else: no other file, no TCP, no signal or abstract Unix
    socket outside the sandbox.

    Files need ABI 3 (Linux 6.2: truncation governed too); TCP comes with ABI 4
    (6.7), signals and abstract sockets with ABI 6 (6.12), each handled where the
    kernel has it (layers.guarantees() says which guarantee holds). Rights a newer
    kernel adds are not handled here; the other layers (the view, seccomp's
    allow-list) cover what they would."""
    abi = landlock_abi()
    if abi < MIN_ABI:
        raise LayerError(f"landlock ABI {abi} is older than {MIN_ABI} (kernel 6.2)")
    fs = _fs_mask(abi)
    if abi >= 6:
        attr = struct.pack("QQQ", fs, NET_BIND_TCP | NET_CONNECT_TCP,
                           SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL)
    elif abi >= 4:
        attr = struct.pack("QQ", fs, NET_BIND_TCP | NET_CONNECT_TCP)
    else:
        attr = struct.pack("Q", fs)
    buffer = ctypes.create_string_buffer(attr, len(attr))
    ruleset = _check(_syscall(SYS_LANDLOCK_CREATE_RULESET, buffer,
                              ctypes.c_size_t(len(attr)), ctypes.c_uint32(0)),
                     "landlock_create_ruleset")
    read = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR
    written = FS_READ_FILE | FS_WRITE_FILE | (FS_TRUNCATE if abi >= 3 else 0)
    # The standard library's folders whole, one rule each, when nothing in them is
    # hidden or the private view already shows the hidden folders empty; else their
    # names listed and each entry but the hidden ones readable (a rule each).
    if hidden_by_view or not readable.hidden:
        stdlib = [(p, read) for p in readable.stdlib]
    else:
        stdlib = [(p, FS_READ_DIR) for p in readable.stdlib] + [(p, read) for p in
                                                                 readable.entries]
    rules = (stdlib
             + [(p, read) for p in readable.folders + readable.files + list(also_read)]
             + [(p, written if p == "/dev/null" else FS_READ_FILE) for p in readable.devices]
             + [(p, fs) for p in write_paths])
    try:
        for path, access in rules:
            _add_landlock_rule(ruleset, path, access)
        _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
        _check(_syscall(SYS_LANDLOCK_RESTRICT_SELF, ruleset, ctypes.c_uint32(0)),
               "landlock_restrict_self")
    finally:
        os.close(ruleset)


def _add_landlock_rule(ruleset, path, access):
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


# ---------------------------------------------------------------- seccomp
PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2


def apply_seccomp(program):
    """Install the system-call filter `program` (struct sock_filter[] as bytes): the
    allow-list of syscalls.py, compiled by libseccomp on the trusted side. The child
    holds no policy of its own; it only loads what it was given, on its one thread
    (threads started later inherit the filter)."""
    import threading
    if threading.active_count() != 1:
        raise LayerError("seccomp: the child has threads already")
    if not program or len(program) % 8 or len(program) // 8 > 4096:
        raise LayerError("seccomp: no usable filter was given")
    filt = ctypes.create_string_buffer(program, len(program))

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    fprog = SockFprog(len(program) // 8, ctypes.addressof(filt))
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    _check(_libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0),
           "seccomp filter")


class Readable:
    """What the child may read besides its own folder: one list for the private
    view and for Landlock alike.

    - `stdlib`: the standard library's folders. The view shows each whole (with
      `hidden` emptied); Landlock lets their names be listed, and their contents
      read only through `entries`.
    - `entries`: what is in those folders, but `hidden`, each readable whole.
    - `folders`, `files`: everything else readable, whole.
    - `hidden`: site-packages/dist-packages inside a standard library folder.
    - `devices`: /dev/null (read and written) and /dev/urandom."""

    def __init__(self):
        self.stdlib, self.entries, self.folders, self.files = [], [], [], []
        self.hidden, self.devices = [], []


# Folders inside the standard library's folder that are not the standard library.
_NOT_STDLIB = ("site-packages", "dist-packages")
# Files the C library reads on its own: the dynamic loader's cache, the time zone.
_SYSTEM_FILES = ("/etc/ld.so.cache", "/etc/localtime")
_SYSTEM_FOLDERS = ("/usr/share/zoneinfo",)
_DEVICES = ("/dev/null", "/dev/urandom")


def readable(stdlib_folders, allowed=()):
    """The standard library and the interpreter's shared libraries, never anything
    installed beside them.

    - `stdlib_folders`: the interpreter's own search path under -I -S (its standard
      library and lib-dynload; the same folders sysconfig's stdlib and platstdlib
      name); each is readable entry by entry without site-packages/dist-packages,
      which live inside it in some installations (pyenv, Fedora, a source build)
      and may hold the kit;
    - the shared libraries the interpreter has loaded and those its extension
      modules may load: their folders where those hold no Python installation
      (Debian's /usr/lib/x86_64-linux-gnu), else the shared objects in them one by
      one (pyenv's lib/, Fedora's /usr/lib64); the interpreter's own file alone;
    - `allowed`: folders a teacher allows (an assignment's packages), whole."""
    result = Readable()
    for folder in _outermost([f for f in stdlib_folders if os.path.isdir(f)]):
        result.stdlib.append(folder)
        with os.scandir(folder) as entries:      # d_type: no stat() per entry
            for entry in entries:
                if entry.name in _NOT_STDLIB:
                    if entry.is_dir(follow_symlinks=False):
                        result.hidden.append(entry.path)
                elif not entry.is_symlink():
                    result.entries.append(entry.path)
                elif os.path.exists(entry.path):  # Debian's sitecustomize.py -> /etc/python3.11
                    real = os.path.realpath(entry.path)
                    (result.folders if os.path.isdir(real) else result.files).append(real)
    holds_python = {}
    for path in sorted(_mapped_files()):
        folder = os.path.dirname(path)
        if ".so" not in os.path.basename(path):
            result.files.append(path)
            continue
        if folder not in holds_python:
            holds_python[folder] = _holds_python(folder)
            if holds_python[folder]:
                result.files += [os.path.join(folder, name) for name in os.listdir(folder)
                                 if ".so" in name and os.path.isfile(os.path.join(folder, name))]
            else:
                result.folders.append(folder)
    result.files += [p for p in _SYSTEM_FILES if os.path.isfile(p)]
    result.folders += [p for p in _SYSTEM_FOLDERS if os.path.isdir(p)]
    result.folders += [p for p in allowed if os.path.isdir(p)]
    result.devices = [p for p in _DEVICES if os.path.exists(p)]
    shown = result.stdlib + result.folders
    result.folders = [f for f in _outermost(result.folders)
                      if not any(_beneath(f, s) for s in result.stdlib)]
    result.files = sorted({f for f in result.files if not any(_beneath(f, d) for d in shown)})
    return result


def _mapped_files():
    """The files mapped into this process (the interpreter, libc, libpython...)."""
    found = set()
    with open("/proc/self/maps") as maps:
        for line in maps:
            fields = line.split(None, 5)
            path = fields[5].strip() if len(fields) == 6 else ""
            if path.startswith("/") and not path.endswith(" (deleted)") and os.path.isfile(path):
                found.add(path)
    return found


def _holds_python(folder):
    """Whether `folder` holds a Python installation's library (lib/python3.11)."""
    try:
        names = [name for name in os.listdir(folder) if name.startswith("python")]
    except OSError:
        return True
    return any(os.path.isdir(os.path.join(folder, name)) for name in names)


def _beneath(path, folder):
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _outermost(folders):
    kept = []
    for folder in sorted(set(folders)):
        if not any(_beneath(folder, k) for k in kept):
            kept.append(folder)
    return kept

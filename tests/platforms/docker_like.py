"""Run a command as Docker runs a container's processes by default, on this machine.

    python docker_like.py COMMAND [ARG ...]

Two of Docker's defaults, the ones the kit's sandbox layers depend on:

- its default seccomp profile refuses, without CAP_SYS_ADMIN, `unshare`,
  `mount`, `umount2`, `setns` and `clone` with any namespace flag (EPERM), and
  answers `clone3` with ENOSYS; Landlock's and seccomp's own calls are allowed
  (moby's profiles/seccomp/default.json);
- its default capability set: a process of the container, root included, keeps
  only CHOWN, DAC_OVERRIDE, FOWNER, FSETID, KILL, SETGID, SETUID, SETPCAP,
  NET_BIND_SERVICE, NET_RAW, SYS_CHROOT, MKNOD, AUDIT_WRITE and SETFCAP.

The filter is installed while this process still holds CAP_SYS_ADMIN (so no
no_new_privs is needed, as in Docker), then every other capability leaves the
bounding set, then COMMAND is executed: it and all its children live under both.
"""

import ctypes
import errno
import os
import platform
import struct
import sys

DOCKER_CAPS = {0, 1, 3, 4, 5, 6, 7, 8, 10, 13, 18, 27, 29, 31}
NUMBERS = {  # machine: (AUDIT_ARCH, unshare, mount, umount2, setns, clone, clone3)
    "x86_64": (0xC000003E, 272, 165, 166, 308, 56, 435),
    "aarch64": (0xC00000B7, 97, 40, 39, 268, 220, 435),
}
NAMESPACE_FLAGS = 0x7E020000          # every CLONE_NEW* flag
PR_SET_SECCOMP, SECCOMP_MODE_FILTER, PR_CAPBSET_DROP = 22, 2, 24
LD_ABS, JEQ, JSET, RET = 0x20, 0x15, 0x45, 0x06
ALLOW = 0x7FFF0000


def refuse(code):
    return 0x00050000 | code


def program():
    arch, unshare, mount, umount2, setns, clone, clone3 = NUMBERS[platform.machine()]
    prog = [(LD_ABS, 0, 0, 4), (JEQ, 1, 0, arch), (RET, 0, 0, ALLOW), (LD_ABS, 0, 0, 0)]
    for number in (unshare, mount, umount2, setns):
        prog += [(JEQ, 0, 1, number), (RET, 0, 0, refuse(errno.EPERM))]
    prog += [(JEQ, 0, 1, clone3), (RET, 0, 0, refuse(errno.ENOSYS))]
    prog += [(JEQ, 0, 3, clone), (LD_ABS, 0, 0, 16), (JSET, 0, 1, NAMESPACE_FLAGS),
             (RET, 0, 0, refuse(errno.EPERM))]
    prog.append((RET, 0, 0, ALLOW))
    return prog


def main():
    libc = ctypes.CDLL(None, use_errno=True)
    raw = b"".join(struct.pack("HBBI", *instruction) for instruction in program())
    buffer = ctypes.create_string_buffer(raw, len(raw))

    class Fprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    fprog = Fprog(len(raw) // 8, ctypes.addressof(buffer))
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        sys.exit(f"docker_like: seccomp: {os.strerror(ctypes.get_errno())}")
    with open("/proc/sys/kernel/cap_last_cap") as handle:
        last = int(handle.read())
    for cap in range(last + 1):
        if cap not in DOCKER_CAPS and libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            sys.exit(f"docker_like: dropping capability {cap}: "
                     f"{os.strerror(ctypes.get_errno())}")
    os.execvp(sys.argv[1], sys.argv[1:])


if __name__ == "__main__":
    main()

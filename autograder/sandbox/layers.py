"""Which confinement layers this machine offers, found by trying them for real.

The grader probes once per run: it starts one child applying every layer and,
only when that child fails, a child per layer, keeping the layers whose child
confirmed them. From then on every sandbox must apply all of those layers or
not run the student's code at all (fail closed).
"""

from __future__ import annotations

import functools
import os
import tempfile
from pathlib import Path

from .client import Sandbox, SandboxError

ALL_LAYERS = ("rlimits", "netns", "tmpfs", "uid", "landlock", "seccomp")
WHAT = {
    "rlimits": "CPU, memory, file size and open-file limits",
    "netns": "network and IPC namespaces of its own: no network interface, no System V or "
             "POSIX shared memory, queues or semaphores shared with anyone",
    "tmpfs": "a file system of its own (a mount namespace): the standard library and the "
             "system's shared libraries read-only, its folder a private tmpfs capped at "
             "64 MB and 1,000 files; nothing else of the machine (no /tmp, /run, home "
             "folders, sockets, the kit) is there",
    "uid": "a separate user per grading process (root only), keeping no capability but "
           "reading files, and that one only under Landlock",
    "landlock": "files: read the standard library, the shared libraries and its folder "
                "only (never site-packages); no TCP (kernel 6.7); no signals out (6.12)",
    "seccomp": "an allow-list of system calls (libseccomp): no processes, sockets, signals "
               "to others, io_uring, IPC, ptrace, bpf ...; everything a game search does "
               "not need fails",
}

# The layers of which any one keeps a submission from reading or writing files
# outside its folder and the standard library (the hidden suites, the reference,
# other students' folders, the teacher's files).
FILE_LAYERS = ("tmpfs", "landlock")
UNCONFINED_FILES = "SPIELBAUM_UNCONFINED_FILES"     # =1: grade without a file layer

# Each guarantee and the layers of which any one gives it (README's trust section).
GUARANTEES = (
    ("files outside its folder and the standard library are neither read nor written",
     FILE_LAYERS),
    ("no network", ("netns", "seccomp")),
    ("no socket of any kind, no io_uring", ("seccomp",)),
    ("no new process", ("seccomp",)),
    ("no signal to another process", ("seccomp", "landlock", "uid")),
    ("no shared memory, message queue or semaphore outlives it or reaches another child",
     ("netns", "seccomp")),
    ("its time, memory, output and files are capped", ("rlimits",)),
)


def guarantees() -> tuple[tuple[str, tuple[str, ...]], ...]:
    """GUARANTEES as this kernel gives them: Landlock scopes signals from its ABI 6
    (Linux 6.12) only; before that it confines files alone."""
    from . import confine
    if confine.landlock_abi() >= 6:
        return GUARANTEES
    return tuple((words, tuple(layer for layer in needs if layer != "landlock")
                  if words.startswith("no signal") else needs)
                 for words, needs in GUARANTEES)


def files_confined(layers) -> bool:
    """Whether one of `layers` keeps the child inside its folder and the stdlib."""
    return any(layer in layers for layer in FILE_LAYERS)


def unconfined_files_allowed() -> bool:
    """The teacher's explicit permission to grade where no layer confines files
    (`grade --unconfined-files`, or SPIELBAUM_UNCONFINED_FILES=1 for nbgrader)."""
    return os.environ.get(UNCONFINED_FILES) == "1"


def unconfined_reason(layers) -> str | None:
    """None if grading with `layers` may go on, else the one line saying why not."""
    if files_confined(layers) or unconfined_files_allowed():
        return None
    return ("no sandbox layer on this machine keeps a submission away from your files "
            f"(it needs {' or '.join(FILE_LAYERS)}: see `autograder doctor`); a submission "
            "could read the hidden suites and write where you can. Grade anyway with "
            f"--unconfined-files (or {UNCONFINED_FILES}=1)")


@functools.lru_cache(maxsize=None)
def probe(layer: str) -> str | None:
    """None if `layer` works here, else the reason it does not. The uid layer is
    tried as grading applies it: with Landlock when Landlock works, since only
    then may the child keep the capability to read a private Python install."""
    together = [layer]
    if layer == "uid" and probe("landlock") is None:
        together.append("landlock")
    return _start_with(together)


def _start_with(layers: list[str]) -> str | None:
    """None if a sandbox child applying all of `layers` started, else why not."""
    with tempfile.TemporaryDirectory(prefix="spielbaum-probe-") as scratch:
        sandbox = Sandbox(Path(scratch), [], layers)
        try:
            sandbox.start()
        except SandboxError as error:
            return str(error).removeprefix("sandbox setup failed: ")
        finally:
            sandbox.kill()
    return None


@functools.lru_cache(maxsize=1)
def available() -> tuple[str, ...]:
    """The layers to demand. SPIELBAUM_LAYERS (comma list) narrows them for a
    machine whose probe is wrong; it can never add a layer that fails."""
    wanted = os.environ.get("SPIELBAUM_LAYERS")
    names = [n.strip() for n in wanted.split(",")] if wanted else list(ALL_LAYERS)
    names = [n for n in names if n in ALL_LAYERS]
    # One child with every layer at once is what each sandbox will apply: when it
    # starts, all of them are available (one process start, not six, a cost every
    # platform submission pays). Only when it fails is each layer tried on its own.
    if names and _start_with(names) is None:
        return tuple(names)
    return tuple(n for n in names if probe(n) is None)


def doctor() -> int:
    print("Sandbox layers on this machine:")
    for name in ALL_LAYERS:
        reason = probe(name)
        mark = "yes" if reason is None else "no "
        print(f"  [{mark}] {name:<9} {WHAT[name]}" + ("" if reason is None else f"\n"
              f"              not available: {reason}"))
    print("Every sandbox applies all available layers before importing student code, "
          "and refuses to run it if one fails.")
    here = available()
    print("What holds here:")
    for guarantee, needs in guarantees():
        holds = any(layer in here for layer in needs)
        print(f"  [{'yes' if holds else 'no '}] {guarantee} (needs {' or '.join(needs)})")
    if not files_confined(here):
        print("Grading refuses to start here unless you pass --unconfined-files.")
    return 0

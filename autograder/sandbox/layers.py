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
    "netns": "a network namespace without interfaces",
    "tmpfs": "a private scratch folder capped at 64 MB and 1,000 files (a tmpfs in a "
             "mount namespace); without it, Landlock makes the folder read-only",
    "uid": "a separate user per grading process (root only), keeping no capability but "
           "reading files, and that one only under Landlock",
    "landlock": "files: read the Python install and the scratch folder only; no TCP; "
                "no signals out",
    "seccomp": "no new processes, no sockets, no kill() of other processes",
}


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
    return 0

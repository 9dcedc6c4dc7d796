"""Which system calls the sandboxed children make: the source of syscalls.SEEN.

Grades the five assignments' example and hostile corpora (each hostile attack and its
plain twin) under `strace -f`, one job at a time, each batch in a PID namespace of
its own, and reads the logs: every call a child made after installing its seccomp
filter (the line `prctl(PR_SET_SECCOMP, ...)`), and its threads' calls. Prints each
call with its count and errors, and compares the calls that succeeded with the
allow-list (autograder/sandbox/syscalls.py): a call the children made that the list
does not allow is a call an honest submission may need (read its errors first: the
hostile corpora's attempts are refused on purpose).

Needs strace (Debian's `strace`); takes 20 to 40 minutes on 2 cores (strace slows
every call). Not run by `make bench`.

Usage: python bench/trace_syscalls.py [--only connect4] [--keep DIR]
"""

from __future__ import annotations

import argparse
import collections
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder.sandbox import syscalls  # noqa: E402
from tests.conftest import build_pairs  # noqa: E402

ASSIGNMENTS = ("tictactoe", "negamax", "gametree", "connect4", "muehle")
LINE = re.compile(r"^(\d+)\s+(?:<\.\.\. (\w+) resumed>|(\w+)\()(.*)$")


def corpora(where: Path, only: str | None) -> list[tuple[str, Path]]:
    found = []
    for assignment in ASSIGNMENTS:
        if only and only != assignment:
            continue
        examples = where / assignment / "examples"
        shutil.copytree(ROOT / "examples" / assignment, examples)
        hostile = where / assignment / "hostile"
        build_pairs(ROOT / "tests" / assignment / "hostile", hostile)
        found += [(assignment, examples), (assignment, hostile)]
    return found


def trace(assignment: str, submissions: Path, log: Path, out: Path) -> None:
    command = ["unshare", "--pid", "--fork", "--mount-proc", "--kill-child",
               "strace", "-f", "-qq", "-o", str(log), sys.executable, "-m", "autograder",
               "grade", assignment, str(submissions), "--out", str(out), "--jobs", "1"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"grading {submissions} under strace failed: {done.stderr[-1500:]}")


def calls_of_confined_children(log: Path) -> tuple[collections.Counter, collections.Counter]:
    """(calls, errors) made by children after their filter was in place."""
    calls, errors = collections.Counter(), collections.Counter()
    confined, pending = set(), {}
    for raw in log.open(errors="replace"):
        match = LINE.match(raw)
        if not match:
            continue
        pid, name, rest = int(match.group(1)), match.group(2) or match.group(3), match.group(4)
        if match.group(3) and "<unfinished ...>" in rest:
            pending[pid] = (name, rest)
            continue
        if match.group(2):
            name, first = pending.pop(pid, (name, ""))
            rest = first.replace("<unfinished ...>", "") + rest
        if name == "prctl" and "PR_SET_SECCOMP" in rest:
            confined.add(pid)
            continue
        if pid not in confined:
            continue
        result = rest.rsplit("=", 1)[-1].split() if "=" in rest else ["?"]
        calls[name] += 1
        if result[0] == "-1" and len(result) > 1:
            errors[(name, result[1])] += 1
        elif name in ("clone", "clone3") and result[0].isdigit():
            confined.add(int(result[0]))     # a thread of a confined child
    return calls, errors


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=ASSIGNMENTS)
    parser.add_argument("--keep", type=Path, help="keep the strace logs here")
    args = parser.parse_args()
    if shutil.which("strace") is None:
        print("needs strace (apt-get install strace)")
        return 1
    calls, errors = collections.Counter(), collections.Counter()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        logs = args.keep or tmp / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        for assignment, submissions in corpora(tmp / "corpora", args.only):
            log = logs / f"{assignment}-{submissions.name}.strace"
            print(f"grading {assignment} {submissions.name} under strace ...", flush=True)
            trace(assignment, submissions, log, tmp / "out" / f"{assignment}-{submissions.name}")
            more_calls, more_errors = calls_of_confined_children(log)
            calls += more_calls
            errors += more_errors
    allowed = set(syscalls.ALLOWED) | set(syscalls.ALLOWED_WITH) | set(syscalls.ALLOWED_VALUES)
    print(f"{'call':<24} {'made':>9}  errors")
    for name, count in sorted(calls.items()):
        said = ", ".join(f"{e} {n}" for (call, e), n in sorted(errors.items()) if call == name)
        mark = "" if name in allowed or name in syscalls.NOT_THERE else "  NOT ALLOWED"
        print(f"{name:<24} {count:>9}  {said}{mark}")
    unseen = sorted(set(syscalls.SEEN) - set(calls))
    print(f"in SEEN but not made in this run: {', '.join(unseen) or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

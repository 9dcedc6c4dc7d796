"""Does a rewritten reference still behave like the reference? Checked on the probe
(assignment.toml's [honest] probe, or its [notebook] try cell) before grading, so that a rewrite's bug is
never blamed on the hidden suite. Each run is a fresh `python -I -B`: the
teacher's code, not a student's, but with the module's caches empty and no
bytecode left behind.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from ... import KitError

#: Seconds a probe or a `__main__` block may take.
TIMEOUT = 180

_SCRIPT = r'''
import contextlib, dataclasses, importlib, io, json, random, sys, traceback
folder, names = sys.argv[1], sys.argv[2:]
code = sys.stdin.read()
sys.path.insert(0, folder)
records = []

def canon(value, depth=0):
    if depth > 40:
        return ["deep"]
    if value is None or isinstance(value, (bool, str)) or type(value) is int:
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return ["float", repr(value)]
    if isinstance(value, (list, tuple)):
        return ["seq", [canon(v, depth + 1) for v in value]]
    if isinstance(value, (set, frozenset)):
        return ["set", sorted(json.dumps(canon(v, depth + 1)) for v in value)]
    if isinstance(value, dict):
        return ["dict", sorted([json.dumps(canon(k, depth + 1)), canon(v, depth + 1)]
                               for k, v in value.items())]
    if isinstance(value, BaseException):
        return ["raised", [c.__name__ for c in type(value).__mro__], str(value)]
    if hasattr(value, "__next__"):
        return ["seq", [canon(v, depth + 1) for _, v in zip(range(100000), value)]]
    if callable(value):
        return ["function", getattr(value, "__qualname__", "?")]
    if dataclasses.is_dataclass(value) or hasattr(value, "__dict__"):
        return ["object", type(value).__name__, canon(dict(vars(value)), depth + 1)]
    return ["repr", repr(value)]

def record(*values, **ignored):
    records.append(canon(values))

def raises(function, *args, **kwargs):
    try:
        return ["returned", canon(function(*args, **kwargs))]
    except Exception as error:
        return error

error = None
random.seed(0)
with contextlib.redirect_stdout(io.StringIO()):
    try:
        spaces = {name: importlib.import_module(name) for name in names}
        exec(compile(code, "<probe>", "exec"),
             {**spaces, "print": record, "raises": raises, "random": random})
    except BaseException as failure:
        error = "".join(traceback.format_exception_only(type(failure), failure)).strip()
sys.stdout.write(json.dumps({"records": records, "error": error}))
'''


def manifest_text(assignment, table: str, key: str) -> str | None:
    """`key` of the manifest's [table] (assignment.toml), where it is text."""
    section = assignment.extra.get(table, {})
    text = section.get(key) if isinstance(section, dict) else None
    return text if isinstance(text, str) and text.strip() else None


def probe_code(assignment) -> str:
    """The probe of `assignment`: its [honest] probe, else its notebook's try cell."""
    code = manifest_text(assignment, "honest", "probe") or \
        manifest_text(assignment, "notebook", "try")
    if code is None:
        raise KitError(f"{assignment.name} has no probe to check its rewrites with: add an "
                       f"[honest] probe or a [notebook] try cell to "
                       f"{assignment.solution_dir / 'assignment.toml'}")
    return code


def _python(folder: Path, arguments: list[str], stdin: str):
    """`python -I -B ARGUMENTS` run in `folder`; None when it ran longer than TIMEOUT."""
    try:
        return subprocess.run([sys.executable, "-I", "-B", *arguments], input=stdin, cwd=folder,
                              capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return None


def _last_line(text: str, nothing: str) -> str:
    return (text.strip().splitlines() or [nothing])[-1]


def run_probe(folder: Path, modules: list[str], code: str) -> dict:
    """The probe's records for the modules `modules` (names, no .py) in `folder`."""
    done = _python(folder, ["-c", _SCRIPT, str(folder), *modules], code)
    if done is None:
        return {"records": [], "error": f"the probe ran longer than {TIMEOUT} s"}
    try:
        return json.loads(done.stdout)
    except json.JSONDecodeError:
        return {"records": [], "error": "the probe ended without its records: "
                                        + _last_line(done.stderr, "no output")}


def same(reference, rewritten) -> bool:
    """Records equal, where an exception of a subclass matches its base class's."""
    if isinstance(reference, list) and reference[:1] == ["raised"]:
        return isinstance(rewritten, list) and rewritten[:1] == ["raised"] and \
            reference[1][0] in rewritten[1] and reference[2] == rewritten[2]
    if isinstance(reference, list) and isinstance(rewritten, list):
        return len(reference) == len(rewritten) and \
            all(same(a, b) for a, b in zip(reference, rewritten))
    return type(reference) is type(rewritten) and reference == rewritten


def difference(reference: dict, rewritten: dict) -> str:
    """'' when the rewrite behaved like the reference, else the first difference."""
    if rewritten.get("error") and rewritten["error"] != reference.get("error"):
        return f"the probe failed: {rewritten['error']}"
    ours, theirs = reference["records"], rewritten["records"]
    for index, (a, b) in enumerate(zip(ours, theirs)):
        if not same(a, b):
            return (f"print number {index + 1} of the probe differs: the reference gave "
                    f"{_short(a)}, the rewrite {_short(b)}")
    if len(ours) != len(theirs):
        return f"the probe printed {len(theirs)} times, the reference's {len(ours)}"
    return ""


def _short(value) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 240 else text[:237] + "..."


def run_main(folder: Path, module: str) -> str:
    """'' when `python MODULE.py` in `folder` ends well, else what went wrong."""
    done = _python(folder, [f"{module}.py"], "")
    if done is None:
        return f"its __main__ block ran longer than {TIMEOUT} s"
    if done.returncode != 0:
        return (f"its __main__ block ended with exit code {done.returncode}: "
                + _last_line(done.stderr, "no message"))
    if not done.stdout.strip():
        return "its __main__ block printed nothing"
    return ""

"""The child runs the student's code in a plain interpreter (no audit hook, the
builtin id()), and names what the code tried only from what the kernel answered
(child.watch_doors): "refused" only for an errno a layer in force answers with,
"seen" for what went through or what no layer here refuses, nothing otherwise."""

import json
import subprocess
import sys

from autograder import ROOT
from autograder.sandbox import layers
from autograder.sandbox.client import Sandbox

PLAIN = '''
import builtins, copy, io, os, sys

events = []
sys.addaudithook(lambda event, args: events.append(event) if event == "builtins.id" else None)


def plain():
    row = [None, None]
    copied = copy.deepcopy({"x": row, "y": row})
    with open("mine.txt", "w") as handle:
        handle.write("kept")
    with io.open(os.open("mine.txt", os.O_RDONLY), closefd=True) as handle:
        read = handle.read()
    return [id.__self__ is builtins, type(id).__name__, events.count("builtins.id") > 0,
            copied["x"] is copied["y"] is not row, read, open is io.open,
            open.__name__, os.kill.__name__]
'''


def test_the_students_code_runs_in_a_plain_interpreter(tmp_path):
    """Its own audit hook sees the builtin id() (no stand-in); its own files, by
    open, io.open and os.open, work as anywhere; the doors keep their names."""
    (tmp_path / "plain.py").write_text(PLAIN)
    with Sandbox(tmp_path, ["plain"], list(layers.available())) as box:
        assert box.import_modules(5).ok
        outcome = box.call("plain.plain", (), timeout=5)
        assert outcome.ok, outcome
        assert outcome.value == [True, "builtin_function_or_method", True, True, "kept", True,
                                 "open", "kill"]
        assert box.notes == {} and box.seen == {}


# child.py as a module of a process of its own (it reads its config at import):
# name_attempt with the layers given, every note it sends collected.
NAMING = '''
import errno, json, sys
sys.path.insert(0, sys.argv[1])
config = {"rfd": 0, "wfd": 0, "scratch": "/nonexistent", "modules": [], "layers": [],
          "uid": None, "parent": 0}
sys.argv = ["child.py", json.dumps(config)]
import child                      # its module only: nothing is confined or served here

sent = []
child.send = sent.append
found = {}
for applied, kind, number in json.loads(sys.stdin.read()):
    child._applied[:] = applied
    child.notes.clear()
    sent.clear()
    sentence, refusing = {**child._FORBIDDEN, "files": ("tried to open /x", child._FILE_LAYERS)}[kind]
    child.name_attempt(sentence, refusing, None if number is None else OSError(number, "x"))
    found[f"{applied} {kind} {number}"] = [next(iter(m)) for m in sent]
print(json.dumps(found))
'''
ENOENT, EPERM, EACCES, ESRCH, ENETUNREACH, ECONNREFUSED = 2, 1, 13, 3, 101, 111
CASES = {
    # a layer in force answered with its errno: refused
    (("tmpfs",), "files", ENOENT): ["note"],
    (("landlock",), "files", EACCES): ["note"],
    (("seccomp",), "network", EPERM): ["note"],
    (("netns",), "network", ENETUNREACH): ["note"],
    (("uid",), "signals", EPERM): ["note"],
    # the kernel's own answer, a layer in force that would refuse it: nothing claimed
    (("landlock",), "files", ENOENT): [],
    (("netns",), "network", ECONNREFUSED): [],
    (("seccomp", "uid"), "signals", ESRCH): [],
    # went through, or no layer here refuses it: seen, never refused
    (("tmpfs", "landlock", "seccomp"), "files", None): ["seen"],
    (("rlimits",), "files", ENOENT): ["seen"],
    (("rlimits", "tmpfs"), "network", EPERM): ["seen"],
    (("netns",), "signals", EPERM): ["seen"],
}


def test_a_refusal_is_named_from_the_errno_of_a_layer_in_force():
    folder = ROOT / "autograder" / "sandbox"
    cases = [[list(applied), kind, number] for applied, kind, number in CASES]
    shown = subprocess.run([sys.executable, "-c", NAMING, str(folder)], input=json.dumps(cases),
                           text=True, capture_output=True, timeout=60, check=True).stdout
    found = json.loads(shown)
    assert found == {f"{list(applied)} {kind} {number}": sent
                     for (applied, kind, number), sent in CASES.items()}

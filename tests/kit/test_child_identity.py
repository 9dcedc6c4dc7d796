"""The child's id() raises no audit event (bench_overhead: a Python audit hook on
"builtins.id" made code built on copy.deepcopy ~40% slower in the sandbox), and is
still an identity: equal for one object, different for two live ones, and deepcopy
keeps shared parts shared. It is the builtin's own number (the object's address, as
object.__repr__ shows it). On x86-64 Linux it is a builtin function of one argument,
like the builtin (child._tail_call_identity), which refuses two arguments as the
builtin does; elsewhere a method descriptor (child._method_identity), not the slot
wrapper object.__hash__, which made a deepcopy of a board 20% slower."""

import os

from autograder.sandbox import layers
from autograder.sandbox.client import Sandbox

MODULE = '''
import copy
import sys

seen = []
sys.addaudithook(lambda event, args: seen.append(event) if event == "builtins.id" else None)


def identity():
    a, b = [1], [1]
    row = [None, None]
    copied = copy.deepcopy({"x": row, "y": row})
    thing = object()
    return [id(a) == id(a), id(a) != id(b), copied["x"] is copied["y"],
            copied["x"] is not row, len(seen), type(id).__name__,
            hex(id(thing)) in object.__repr__(thing), refuses(id, a, b), refuses(id)]


def refuses(function, *args):
    try:
        function(*args)
    except TypeError:
        return True
    return False
'''


def test_id_in_the_child_is_an_identity_without_an_audit_event(tmp_path):
    (tmp_path / "ident.py").write_text(MODULE)
    with Sandbox(tmp_path, ["ident"], list(layers.available())) as box:
        assert box.import_modules(5).ok
        outcome = box.call("ident.identity", (), timeout=5)
    assert outcome.ok, outcome
    builtin = os.uname().machine == "x86_64"
    assert outcome.value == [True, True, True, True, 0,
                             "builtin_function_or_method" if builtin else "method_descriptor",
                             True, builtin, True]


FALLBACKS = '''
import json, sys
sys.path.insert(0, sys.argv[1])
config = {"rfd": 0, "wfd": 0, "scratch": "/nonexistent", "modules": [], "layers": [],
          "uid": None, "parent": 0}
sys.argv = ["child.py", json.dumps(config)]
import child                      # its module only: nothing is confined or served here

def broken():
    raise OSError("no executable page here")

samples = [[], {}, "x", None, 7, object()]
method = child._method_identity()
child._tail_call_identity = broken
fallback = child._identity()
child._method_identity = broken
last = child._identity()
print(json.dumps([all(method(s) == id(s) for s in samples), fallback is not None and
                  all(fallback(s) == id(s) for s in samples), type(fallback).__name__,
                  last is object.__hash__]))
'''


def test_each_identity_the_child_falls_back_to_is_an_identity():
    """Where the child's own builtin cannot be made (another machine, no executable
    page), the method of `object` takes its place, and failing that object.__hash__."""
    import json
    import subprocess
    import sys
    from pathlib import Path
    folder = Path(__file__).resolve().parents[2] / "autograder" / "sandbox"
    shown = subprocess.run([sys.executable, "-c", FALLBACKS, str(folder)], text=True,
                           capture_output=True, timeout=60, check=True).stdout
    assert json.loads(shown) == [True, True, "method_descriptor", True]

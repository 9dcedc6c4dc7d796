"""The child's id() raises no audit event (bench_overhead: a Python audit hook on
"builtins.id" made code built on copy.deepcopy ~40% slower in the sandbox), and is
still an identity: equal for one object, different for two live ones, and deepcopy
keeps shared parts shared. It is the builtin's own number (the object's address, as
object.__repr__ shows it), from a method descriptor (child._identity), not the slot
wrapper object.__hash__, which made a deepcopy of a board 20% slower."""

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
            hex(id(thing)) in object.__repr__(thing)]
'''


def test_id_in_the_child_is_an_identity_without_an_audit_event(tmp_path):
    (tmp_path / "ident.py").write_text(MODULE)
    with Sandbox(tmp_path, ["ident"], list(layers.available())) as box:
        assert box.import_modules(5).ok
        outcome = box.call("ident.identity", (), timeout=5)
    assert outcome.ok, outcome
    assert outcome.value == [True, True, True, True, 0, "method_descriptor", True]

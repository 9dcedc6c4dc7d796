"""The child's id() raises no audit event (bench_overhead: a Python audit hook on
"builtins.id" made code built on copy.deepcopy ~40% slower in the sandbox), and is
still an identity: equal for one object, different for two live ones, and deepcopy
keeps shared parts shared."""

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
    return [id(a) == id(a), id(a) != id(b), copied["x"] is copied["y"],
            copied["x"] is not row, len(seen)]
'''


def test_id_in_the_child_is_an_identity_without_an_audit_event(tmp_path):
    (tmp_path / "ident.py").write_text(MODULE)
    with Sandbox(tmp_path, ["ident"], list(layers.available())) as box:
        assert box.import_modules(5).ok
        outcome = box.call("ident.identity", (), timeout=5)
    assert outcome.ok, outcome
    assert outcome.value == [True, True, True, True, 0]

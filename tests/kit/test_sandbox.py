"""The sandbox and its wire format, on their own."""

import math
import time

import pytest

from autograder.sandbox import layers, protocol
from autograder.sandbox.client import Sandbox


@pytest.mark.parametrize("value", [
    None, True, 0, -5, 2.5, "x", [1, [2]], (1, (2, 3)), {(0, 1), (2, 2)}, frozenset({1}),
    {"a": 1}, {1: "one", (0, 0): None}, {"__tuple__": 1}, math.inf, -math.inf,
    [(0, 1), {"k": {(1,)}}],
])
def test_values_survive_the_wire_with_their_types(value):
    back = protocol.loads(protocol.dumps(protocol.to_plain(value)))
    assert back == value and type(back) is type(value)


def test_nan_survives_as_nan():
    assert math.isnan(protocol.loads(protocol.dumps(protocol.to_plain(math.nan))))


@pytest.mark.parametrize("value", [object(), type("Liar", (tuple,), {})((1,)),
                                   type("S", (str,), {})("x"), b"bytes"])
def test_anything_but_exact_builtin_types_is_refused(value):
    with pytest.raises(protocol.Unencodable):
        protocol.to_plain(value)


def test_deep_nesting_is_refused():
    value = []
    for _ in range(200):
        value = [value]
    with pytest.raises(protocol.Unencodable):
        protocol.to_plain(value)


@pytest.fixture
def scratch(tmp_path):
    (tmp_path / "m.py").write_text(
        "import os, time\n"
        "def add(a, b):\n    return a + b\n"
        "def boom():\n    raise ValueError('no')\n"
        "def slow():\n    time.sleep(30)\n"
        "def mutate(board):\n    board[0][0] = 'X'\n    return None\n"
        "class Counter:\n    def __init__(self):\n        self.n = 0\n"
        "    def bump(self, k=1):\n        self.n += k\n        return self.n\n"
        "def apply(f, x):\n    return f(x)\n")
    return tmp_path


def make(scratch, **extra):
    return Sandbox(scratch, ["m"], list(layers.available()), **extra)


def test_every_available_layer_is_applied(scratch):
    with make(scratch) as sandbox:
        assert sandbox.applied == list(layers.available())
        assert "rlimits" in sandbox.applied


def test_calls_values_exceptions_and_mutation(scratch):
    with make(scratch) as sandbox:
        assert sandbox.import_modules(5).ok
        assert sandbox.call("m.add", (2, 3), timeout=5).value == 5
        raised = sandbox.call("m.boom", timeout=5).raised
        assert raised["type"] == "ValueError" and raised["where"] == "m.py, line 5"
        board = [[None, None], [None, None]]
        outcome = sandbox.call("m.mutate", (board,), timeout=5, return_args=True)
        assert outcome.args_after == [[["X", None], [None, None]]]
        assert sandbox.call("m.nothing", timeout=5).failure == "missing"


def test_objects_live_in_the_child_and_are_called_by_handle(scratch):
    with make(scratch) as sandbox:
        sandbox.import_modules(5)
        handle = sandbox.call("m.Counter", timeout=5, keep=True).value
        assert isinstance(handle, protocol.Handle)
        sandbox.call((handle, "bump"), timeout=5)
        assert sandbox.call((handle, "bump"), (), {"k": 5}, timeout=5).value == 6


def test_only_the_students_modules_can_be_called(scratch):
    with make(scratch) as sandbox:
        sandbox.import_modules(5)
        assert sandbox.call("os.getcwd", timeout=5).failure == "missing"
        assert sandbox.call("sys.exit", timeout=5).failure == "missing"


def test_map_gives_one_outcome_per_call_in_order(scratch):
    with make(scratch) as sandbox:
        sandbox.import_modules(5)
        outcomes = sandbox.map("m.add", [(i, i) for i in range(500)], 5)
        assert [o.value for o in outcomes] == [2 * i for i in range(500)]


def test_a_slow_call_is_killed_at_its_deadline_and_later_calls_are_unreached(scratch):
    with make(scratch) as sandbox:
        sandbox.import_modules(5)
        started = time.monotonic()
        outcomes = sandbox.batch([("m.add", (1, 1), None), ("m.slow", (), None),
                                  ("m.add", (2, 2), None)], 0.5)
        assert time.monotonic() - started < 5
        assert [o.failure for o in outcomes] == [None, "timeout", "unreached"]
        assert outcomes[1].detail == "timed out after 0.5 s"
        assert not sandbox.alive


def test_forged_replies_are_ignored(scratch):
    (scratch / "m.py").write_text(
        "import json, os, sys\n"
        "WFD = json.loads(sys.argv[1])['wfd']\n"
        "def forge():\n"
        "    os.write(WFD, b'{\"id\": \"guess\", \"ok\": 1}\\n')\n"
        "    return 'honest'\n")
    with make(scratch) as sandbox:
        sandbox.import_modules(5)
        assert sandbox.call("m.forge", timeout=5).value == "honest"


def test_doctor_runs_and_names_every_layer(capsys):
    assert layers.doctor() == 0
    out = capsys.readouterr().out
    for name in layers.ALL_LAYERS:
        assert name in out


def test_objects_passed_by_handle_come_back_as_handles_in_return_args(scratch):
    with make(scratch) as sandbox:
        sandbox.import_modules(5)
        handle = sandbox.call("m.Counter", timeout=5, keep=True).value
        echoed = sandbox.call("m.add", ([handle], []), timeout=5, return_args=True)
        assert echoed.args_after == [[handle], []]


def test_the_child_runs_as_its_own_user_without_power_over_others(scratch):
    if "uid" not in layers.available():
        pytest.skip("no separate user here (the grader is not root)")
    (scratch / "m.py").write_text(
        "import os\n"
        "def who():\n    return os.getuid(), os.geteuid(), os.getgroups()\n"
        "def write():\n"
        "    with open('made.txt', 'w') as f:\n        f.write('x')\n"
        "    return os.stat('made.txt').st_uid\n")
    with make(scratch) as sandbox:
        sandbox.import_modules(5)
        uid, euid, groups = sandbox.call("m.who", timeout=5).value
        assert uid == euid != 0 and groups == []
        assert sandbox.call("m.write", timeout=5).value == uid

"""The sandbox and its wire format, on their own."""

import math
import os
import re
import time

import pytest

from autograder.sandbox import client, layers, protocol
from autograder.sandbox.client import Limits, Sandbox
from autograder.sandbox.plans import Callback, Plan


@pytest.mark.parametrize("value", [
    None, True, 0, -5, 2.5, "x", [1, [2]], (1, (2, 3)), {(0, 1), (2, 2)}, frozenset({1}),
    {"a": 1}, {1: "one", (0, 0): None}, {"__tuple__": 1}, math.inf, -math.inf,
    [(0, 1), {"k": {(1,)}}], [1, "x", None, True], (1, "x", None, False), [math.inf, 1],
    [[None, "X"], ["O", None]], ((), []),
    # sets of tuples travel under one tag (CS50's actions); every other set item by item
    {(0, "X"), (None, True)}, frozenset({(1, 2)}), {()}, {(1.5, 2)}, {((1, 2), 3)},
    {(1, 2), "a"}, frozenset({(0,), 1}), set(), frozenset(),
])
def test_values_survive_the_wire_with_their_types(value):
    back = protocol.loads(protocol.dumps(protocol.to_plain(value)))
    assert back == value and type(back) is type(value)
    if type(value) in (set, frozenset):       # (in any order: str hashes differ per run)
        assert sorted(type(item).__name__ for item in back) == \
            sorted(type(item).__name__ for item in value)


@pytest.mark.parametrize("args", [
    ([[None, "X"], ["O", None]],), ([[None, "X"]], (0, 1)), ("x", 3, None, True), (),
    ([1, 2],), ([[1.5]],), ((1, (2,)),), ([(0, 1)],), ({(0, 1)},), ({"k": 1},),
    (math.inf,), ([["\u00e9", "a\"b"]],), ((),), ([[]],), (type("Number", (int,), {})(1),),
])
def test_the_arguments_text_is_the_one_a_request_carries(args):
    """A played run's child keys a question by protocol.arguments_text; the grader
    keyed the answers given ahead by the request's own text of the same arguments."""
    assert protocol.arguments_text(args) == protocol.dumps(protocol.to_plain(list(args)))[:-1]


def test_arguments_that_cannot_travel_have_no_text():
    with pytest.raises(protocol.Unencodable):
        protocol.arguments_text(([[object()]],))


def test_a_set_of_tuples_is_one_tag_not_one_per_tuple():
    text = protocol.dumps(protocol.to_plain({(0, 1), (2, 2)}))
    assert text.count("__") == 2 and "__tuple__" not in text


@pytest.mark.parametrize("forged, decoded", [
    ('{"__set_of_tuples__": 5}', {"__set_of_tuples__": 5}),
    ('{"__set_of_tuples__": [{"a": 1}]}', {"__set_of_tuples__": [{"a": 1}]}),
    ('{"__frozenset_of_tuples__": [[1], 2]}', {"__frozenset_of_tuples__": [[1], 2]}),
    ('{"__set_of_tuples__": [[1, {"__tuple__": [2]}]]}', {(1, (2,))}),
])
def test_a_forged_set_of_tuples_decodes_to_builtin_values_only(forged, decoded):
    back = protocol.loads(forged)
    assert back == decoded and type(back) is type(decoded)


def test_a_forged_set_of_unhashable_tuples_is_refused_like_any_unhashable_set():
    for forged in ('{"__set_of_tuples__": [[[1]]]}', '{"__set__": [[1]]}'.replace(
            "[[1]]", '[{"__set__": []}]')):
        with pytest.raises(TypeError):
            protocol.loads(forged)


def test_a_line_and_its_newline_are_scanned_once(monkeypatch):
    """The child reads requests and answers with their newline: taken at the C
    scanner's first pass, not decoded again by JSONDecoder.decode."""
    monkeypatch.setattr(protocol._DECODER, "decode", None)
    monkeypatch.setattr(protocol._REQUEST_DECODER, "decode", None)
    assert protocol.loads('{"r":[1,{"__tuple__":[2]}]}\n') == {"r": [1, (2,)]}
    assert protocol.loads(b'{"op":"map"}\n', requests=True) == {"op": "map"}


def test_text_the_scanner_does_not_take_whole_still_goes_to_decode():
    assert protocol.loads(' [1, 2] \n') == [1, 2]
    with pytest.raises(ValueError):
        protocol.loads('[1]\n\n[2]')


def test_nan_survives_as_nan():
    assert math.isnan(protocol.loads(protocol.dumps(protocol.to_plain(math.nan))))


@pytest.mark.parametrize("value", [object(), b"bytes", bytearray(b"x"), range(3),
                                   type("Box", (), {"__eq__": lambda s, o: True})()])
def test_anything_but_builtin_values_is_refused(value):
    with pytest.raises(protocol.Unencodable):
        protocol.to_plain(value)


def _liar(base, **methods):
    """A subclass of `base` whose every comparison and iteration lies."""
    lies = {"__eq__": lambda s, o: True, "__ne__": lambda s, o: False,
            "__hash__": lambda s: 0, "__iter__": lambda s: iter([9, 9, 9]),
            "__len__": lambda s: 99, "__str__": lambda s: "lie", "__repr__": lambda s: "lie",
            "__int__": lambda s: 99, "__float__": lambda s: 9.5, "items": lambda s: [],
            "__getitem__": lambda s, i: 9}
    return type("Liar" + base.__name__, (base,), dict(lies, **methods))


@pytest.mark.parametrize("base, value, plain", [
    (tuple, (1, 2), (1, 2)), (list, [1, [2]], [1, [2]]), (set, {(0, 1)}, {(0, 1)}),
    (frozenset, {3}, frozenset({3})), (dict, {"a": 1}, {"a": 1}), (dict, {(1,): 2}, {(1,): 2}),
    (int, 7, 7), (float, 2.5, 2.5), (str, "X", "X"),
])
def test_a_subclass_of_a_builtin_is_sent_as_its_base_value_whatever_it_overrides(
        base, value, plain):
    back = protocol.loads(protocol.dumps(protocol.to_plain(_liar(base)(value))))
    assert back == plain and type(back) is type(plain)


def test_subclasses_inside_a_flat_list_or_tuple_are_their_base_values_too():
    # A list or tuple of exact atoms takes a shortcut; one subclass among them must not.
    flat = [_liar(str)("X"), 7, _liar(int)(3)]
    for value in (flat, tuple(flat)):
        back = protocol.loads(protocol.dumps(protocol.to_plain(value)))
        assert list(back) == ["X", 7, 3] and [type(v) for v in back] == [str, int, int]


def test_the_plain_value_is_a_copy_that_later_changes_do_not_reach():
    # `again` calls the student's function once more before the first answer is
    # encoded: an answer it changes in place must still be the first answer.
    board = [["X", None], [None, None]]
    plain = protocol.to_plain(board)
    board[0][1] = board[1][0] = "O"
    board.append(["O"])
    assert plain == [["X", None], [None, None]]


@pytest.mark.parametrize("message", [
    [0, 1, 0, {"__tuple__": [1, 2]}], {"id": "ab", "ok": "\u00fc\n\"\\"}, "x", 3, None,
    {"note": "tried to open /etc/passwd, outside its own folder"}, [2.5, -0.0, 10 ** 30],
])
def test_messages_are_the_bytes_a_json_encoder_makes(message):
    import json
    assert protocol.dumps(message) == json.dumps(message, separators=(",", ":"),
                                                 allow_nan=False) + "\n"


def test_namedtuples_enums_and_ordered_dicts_are_their_base_values():
    import collections
    import enum
    pair = collections.namedtuple("Result", "best_state value")([3, 4], 1)
    mark = enum.Enum("Mark", {"X": "X"}, type=str).X
    counts = collections.OrderedDict(a=1)
    back = protocol.loads(protocol.dumps(protocol.to_plain([pair, mark, counts])))
    assert back == [([3, 4], 1), "X", {"a": 1}]
    assert [type(v) for v in back] == [tuple, str, dict]


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
        "def spin():\n    n = 0\n    while True:\n        n += 1\n"
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


def test_a_maps_arguments_are_made_call_by_call(tmp_path):
    """Only the running call's arguments are alive in the child (each call's come as a
    text of their own): a map's arguments made all at once were tens of thousands of
    lists that the child's collector kept finding, a tenth of its cost per call."""
    (tmp_path / "alive.py").write_text(
        "import gc\n"
        "def count(marked):\n"
        "    return sum(1 for o in gc.get_objects() if type(o) is list and o[:1] == ['mark'])\n")
    with Sandbox(tmp_path, ["alive"], list(layers.available())) as sandbox:
        sandbox.import_modules(5)
        plain = sandbox.map("alive.count", [(["mark", i],) for i in range(300)], 5)
        again = sandbox.map("alive.count", [(["mark", i],) for i in range(300)], 5, again=True)
    assert {o.value for o in plain} == {1}
    assert {o.value for o in again} == {1} and {o.again.value for o in again} == {1}


def test_a_call_that_uses_its_cpu_time_is_stopped_and_told_where_it_was(scratch):
    with make(scratch) as sandbox:
        sandbox.import_modules(5)
        started = time.monotonic()
        plans = [Plan(name) for name in ("add", "spin", "add")]
        for plan, (target, args) in zip(plans, [("m.add", (1, 1)), ("m.spin", ()),
                                                ("m.add", (2, 2))]):
            plan.returns(plan.call(target, *args))
        outcomes = sandbox.plans(plans, 0.5)
        assert time.monotonic() - started < 3
        assert [o.failure for o in outcomes] == [None, "timeout", "unreached"]
        assert outcomes[1].detail.startswith("used more than 0.5 s of CPU time; it was "
                                             "stopped in spin (m.py, line ")
        assert not sandbox.alive


def test_a_call_that_sleeps_is_stopped_by_the_wall_clock_backstop(scratch):
    from autograder.sandbox.client import backstop
    with make(scratch) as sandbox:
        sandbox.import_modules(5)
        started = time.monotonic()
        [outcome] = sandbox.map("m.slow", [()], 0.2)
        waited = time.monotonic() - started
        assert backstop(0.2) <= waited < backstop(0.2) + 2
        assert outcome.failure == "waited"
        assert re.match(r"waited more than \d+ s without finishing, using less than its "
                        r"0.2 s of CPU", outcome.detail), outcome.detail
        assert "stopped in slow (m.py, line 7)" in outcome.detail


def test_each_call_of_a_map_is_charged_its_own_time_not_its_neighbours(scratch):
    """The grader charges the child's CPU time to the first call it has no answer
    for, so answers must not wait in the child's buffer (child.Batched): calls that
    each use most of their limit all pass, and a call that spins after quick ones
    is the one that times out, the quick ones answered."""
    (scratch / "m.py").write_text(
        "import time\n"
        "def busy(seconds):\n"
        "    end = time.process_time() + seconds\n"
        "    while time.process_time() < end:\n"
        "        pass\n"
        "    return seconds\n"
        "def quick_then_spin(n):\n"
        "    while n >= 300:\n"
        "        pass\n"
        "    return n\n")
    with make(scratch) as sandbox:
        sandbox.import_modules(5)
        near = sandbox.map("m.busy", [(0.3,)] * 4, 0.5)
        assert [(o.failure, o.value) for o in near] == [(None, 0.3)] * 4
    with make(scratch) as sandbox:
        sandbox.import_modules(5)
        spun = sandbox.map("m.quick_then_spin", [(i,) for i in range(302)], 0.5)
    assert [o.value for o in spun[:300]] == list(range(300))
    assert [o.failure for o in spun[300:]] == ["timeout", "unreached"]


def test_a_maps_answers_come_in_chunks_and_each_is_its_own_outcome(scratch):
    """Consecutive answers of a map travel as CHUNK rows (child.Batched): every call
    still has its own outcome, in order, with its second answer under `again`; an
    exception in between splits the chunk; answers too large for one chunk's line
    travel one row each."""
    (scratch / "m.py").write_text(
        "def grow(state):\n    state.append(len(state))\n    return list(state)\n"
        "def odd(n):\n    if n % 7 == 3:\n        raise ValueError(n)\n    return n\n"
        "def big(n):\n    return 'x' * 100_000 + str(n)\n")
    with make(scratch) as sandbox:
        sandbox.import_modules(5)
        grown = sandbox.map("m.grow", [([i],) for i in range(600)], 5, again=True)
        odd = sandbox.map("m.odd", [(i,) for i in range(600)], 5)
        big = sandbox.map("m.big", [(i,) for i in range(12)], 5)
    assert [o.value for o in grown] == [[i, 1] for i in range(600)]
    assert [o.again.value for o in grown] == [[i, 1, 2] for i in range(600)]
    assert [o.raised["type"] if o.raised else o.value for o in odd] == \
        ["ValueError" if i % 7 == 3 else i for i in range(600)]
    assert [o.value[-2:] for o in big] == [f"x{i}"[-2:] for i in range(12)]


def test_the_child_runs_code_compiled_once_and_keeps_no_handle_on_it(tmp_path):
    """The child's code comes compiled, in a sealed memory file (client.compiled_child)
    that the child closes before any student code runs."""
    if not hasattr(os, "memfd_create"):
        pytest.skip("no memfd here: each child compiles its own code")
    code = client.compiled_child()
    assert code is not None, "memfd is here: every child should get its code compiled"
    memory, size = code
    with pytest.raises(OSError):
        os.write(memory, b"x")                  # sealed: no child can change the next's
    with pytest.raises(OSError), open(f"/proc/self/fd/{memory}", "r+b") as reopened:
        reopened.write(b"x")                    # nor through a path of its own to the file
        reopened.flush()
    with pytest.raises(OSError):
        os.ftruncate(memory, 0)
    assert size == len(os.pread(memory, size + 1, 0))
    (tmp_path / "peek.py").write_text(
        "import errno, os, sys\n"
        "def peek(fd):\n"
        "    try:\n"
        "        os.pread(fd, 1, 0)\n"
        "    except OSError as error:\n"
        "        return errno.errorcode[error.errno]\n"
        "    return 'readable'\n"
        "def where():\n"
        "    return os.path.basename(sys.modules['__main__'].__file__)\n")
    with Sandbox(tmp_path, ["peek"], list(layers.available())) as sandbox:
        assert sandbox.import_modules(5).ok
        assert sandbox.call("peek.peek", (memory,), timeout=5).value == "EBADF"
        assert sandbox.call("peek.where", timeout=5).value == "child.py"


def test_a_forged_chunk_answers_nothing_it_does_not_fit(scratch):
    """A CHUNK row claiming more answers than the request has calls, or malformed, is
    dropped: the calls it claims are waited for, and answered by the calls."""
    (scratch / "m.py").write_text(
        "import json, os, sys\n"
        "WFD = json.loads(sys.argv[1])['wfd']\n"
        "main = sys.modules['__main__']\n"
        "def forge(n):\n"
        "    base = main._running[0] if main._running else None\n"
        "    for row in ([base, n, 4, list(range(99))], [base, n, 4, 'x'],\n"
        "                [base, n, 4, [1], [1, 2]]):\n"
        "        os.write(WFD, json.dumps(row).encode() + b'\\n')\n"
        "    return n\n")
    with make(scratch) as sandbox:
        sandbox.import_modules(5)
        outcomes = sandbox.map("m.forge", [(i,) for i in range(3)], 5,
                               patches={"m.unused": Callback(abs)})
    assert [o.value for o in outcomes] == [0, 1, 2]


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


def test_a_function_that_changes_its_input_shows_it_in_its_own_second_answer(scratch):
    """`again` judges input preservation from the student's answers, not from the
    child's report of the arguments after the call, which the child can forge."""
    (scratch / "m.py").write_text(
        "import sys\n"
        "plain = sys.modules['protocol'].to_plain\n"
        "def grow(state):\n    state.append(len(state))\n    return sorted(state)\n"
        "def keep(state):\n    return sorted(state + [len(state)])\n"
        "def hide(value, *rest, **kw):\n"          # forge what the child reports
        "    if type(value) is list and value and type(value[0]) is list:\n"
        "        value = [v[:1] for v in value]\n"
        "    return plain(value, *rest, **kw)\n"
        "sys.modules['protocol'].to_plain = hide\n")
    with make(scratch) as sandbox:
        sandbox.import_modules(5)
        grown = sandbox.map("m.grow", [([5],)], 5, return_args=True, again=True)[0]
        kept = sandbox.map("m.keep", [([5],)], 5, return_args=True, again=True)[0]
    assert grown.args_after == [[5]]            # the forged report looks innocent ...
    assert grown.value == [1, 5] and grown.again.value == [1, 2, 5]   # ... the answers do not
    assert kept.value == kept.again.value == [1, 5]


def test_an_exception_whose_message_cannot_be_read_is_still_described(scratch):
    (scratch / "m.py").write_text(
        "class Odd(Exception):\n"
        "    def __str__(self):\n        raise RuntimeError('no')\n"
        "    errno = property(lambda self: 1 / 0)\n"
        "def odd():\n    raise Odd()\n"
        "def surrogate():\n    raise ValueError('bad \\udcff byte')\n")
    with make(scratch) as sandbox:
        sandbox.import_modules(5)
        odd = sandbox.call("m.odd", timeout=5)
        again = sandbox.call("m.odd", timeout=5)
        weird = sandbox.call("m.surrogate", timeout=5)
        assert sandbox.alive
    assert odd.raised["type"] == "Odd" and "could not be read" in odd.raised["message"]
    assert again.raised == odd.raised
    assert weird.raised["message"] == "bad \\udcff byte"
    weird.raised["message"].encode("utf-8")     # writable anywhere


@pytest.mark.parametrize("reply", [b"[" * 300 + b"]" * 300, b"[" + b"[0]," * 200_000 + b"0]"])
def test_a_forged_reply_too_deep_or_too_large_to_decode_is_refused_unread(scratch, reply):
    (scratch / "m.py").write_text(
        "import json, os, sys\n"
        "WFD = json.loads(sys.argv[1])['wfd']\n"
        f"REPLY = {reply!r}\n"
        "def forge():\n"
        "    os.write(WFD, REPLY + b'\\n')\n"
        "    return 1\n")
    with Sandbox(scratch, ["m"], list(layers.available()),
                 Limits(check_items=200_000)) as sandbox:
        sandbox.import_modules(5)
        sandbox.new_check()
        outcome = sandbox.call("m.forge", timeout=5)
    assert outcome.failure in ("protocol", "too_much")
    assert ("nested too deeply" in outcome.detail) or ("200,000 values" in outcome.detail)


@pytest.mark.parametrize("ending, words", [
    ("os.abort()", "and then crashed (SIGABRT)"),
    ("raise SystemError('error return without exception set')",
     "and Python's C code failed (SystemError)"),
])
def test_c_code_that_fails_near_the_memory_cap_is_said_to_have_run_out_of_memory(
        tmp_path, ending, words):
    """Issue 22: a table past the cap read 'SystemError: error return without
    exception set' or 'killed by signal SIGABRT'. The same ending far below the
    cap is reported as it is."""
    (tmp_path / "m.py").write_text(
        "import os, time\n"
        "def ending(hog):\n"
        "    keep = bytearray(150 << 20) if hog else None\n"
        "    start = time.process_time()\n"
        "    while time.process_time() - start < 0.6:\n"
        "        pass\n"
        f"    {ending}\n")
    said = {}
    for hog in (True, False):
        with Sandbox(tmp_path, ["m"], ["rlimits"], Limits(memory_bytes=256 << 20)) as sandbox:
            sandbox.import_modules(5)
            outcome = sandbox.call("m.ending", (hog,), {}, timeout=5)
            said[hog] = outcome.detail if outcome.failure else outcome.raised["message"]
    assert said[True].startswith("ran out of memory: it used ") and words in said[True]
    assert "of the 256 MB the sandbox allows" in said[True]
    assert "memory" not in said[False]


def test_a_layer_that_fails_with_the_others_is_tried_alone(monkeypatch):
    """available() starts one child with every layer; only when that fails is each
    layer tried on its own, and the failing one is left out (here netns, made to fail
    wherever it is asked for)."""
    tried = []

    def start_with(wanted):
        tried.append(tuple(wanted))
        return "netns refused" if "netns" in wanted else None

    monkeypatch.setattr(layers, "_start_with", start_with)
    monkeypatch.delenv("SPIELBAUM_LAYERS", raising=False)
    layers.available.cache_clear()
    layers.probe.cache_clear()
    try:
        assert "netns" not in layers.available()
        assert set(layers.available()) == set(layers.ALL_LAYERS) - {"netns"}
        assert tried[0] == layers.ALL_LAYERS and ("netns",) in tried
    finally:
        layers.available.cache_clear()
        layers.probe.cache_clear()


def test_a_raised_exception_names_its_builtin_kinds_by_their_own_names(scratch):
    """builtins binds OSError under three names (IOError, EnvironmentError): the child
    names each class by its own; a student's subclass is its bases' kinds, a class
    merely named like a builtin is none of them."""
    (scratch / "m.py").write_text(
        "class IllegalMoveError(ValueError):\n    pass\n"
        "class KeyError(Exception):\n    pass\n"
        "def missing():\n    open('/no/such/file')\n"
        "def illegal():\n    raise IllegalMoveError('taken')\n"
        "def named():\n    raise KeyError('x')\n")
    with make(scratch) as sandbox:
        assert sandbox.import_modules(5).ok
        kinds = {name: sandbox.call(f"m.{name}", timeout=5).raised["kinds"]
                 for name in ("missing", "illegal", "named")}
    assert kinds["missing"] == ["FileNotFoundError", "OSError", "Exception", "BaseException"]
    assert kinds["illegal"] == ["ValueError", "Exception", "BaseException"]
    assert kinds["named"] == ["Exception", "BaseException"]


def test_a_group_once_killed_and_reaped_is_never_signalled_again(scratch, monkeypatch):
    """A second kill (Student.close after a failed call killed the child) must not send
    SIGKILL to the child's old process group: its number may belong to another
    process by then, and the grader runs as root. An unreaped child is signalled again."""
    (scratch / "m.py").write_text("def f():\n    return 1\n")
    signalled = []
    real_killpg = os.killpg
    monkeypatch.setattr(client.os, "killpg",
                        lambda group, number: signalled.append(group) or real_killpg(group, number))
    sandbox = Sandbox(scratch, ["m"], list(layers.available()))
    sandbox.start()
    child = sandbox.process.pid
    sandbox.kill()
    assert sandbox.process.returncode is not None and signalled.count(child) == 1
    sandbox.kill()
    assert signalled.count(child) == 1
    sandbox.start()         # a new child is a new group: killed again
    sandbox.kill()
    assert signalled.count(sandbox.process.pid) == 1 and sandbox.process.pid != child

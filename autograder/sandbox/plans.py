"""Call plans: what a hidden check asks the sandboxed child to do, built on the trusted side.

A `Plan` is a short script of calls (build the student's searcher on a board, run a
search, read its node counter), sent to the child as plain data and run there by
generic plumbing (`child.py`), which knows no game and no answer. A `Proxy` wraps an
object of the grader's, a `Callback` one function: the student's code receives a
stand-in whose calls come back over the pipe, answered (`ask`) or only recorded in
order (`tell`: an exception it raises reaches the student at their next `ask`).

Everything the grader believes about a search (nodes, order, cut-offs, the board
after it) is read from its own objects after the plan ran; what the plan returns is
the student's answer, judged like any other value. docs/SUITES.md ("Plans, proxies
and callbacks") shows a check written so.
"""

from __future__ import annotations

import functools
import json
import weakref
from dataclasses import dataclass, field
from typing import Callable

from . import protocol
from .protocol import CallbackSpec, ProxySpec, Slot

_ABSENT = object()
_ATOMS = frozenset({str, int, float, bool, type(None)})


class Proxy:
    """An object of the grader's that the student's code may call methods of."""

    def __init__(self, obj, ask=(), tell=()):
        overlap = set(ask) & set(tell)
        if overlap:
            raise ValueError(f"a method is either asked or told, not both: {sorted(overlap)}")
        self.obj = obj
        self.methods = {name: 1 for name in ask} | {name: 0 for name in tell}


class Callback:
    """A function of the grader's that the student's code may call.
    `wait=False` for a function whose result the caller does not need.

    `pure=True` says the function's answer depends on its arguments alone and that
    nothing judges how often it is asked (a reference's rule function playing a
    student's helper): the child then answers a question it already asked in the
    same request from the answer it got, without a round trip. Nothing new is known
    in the child that way; the student's code had that answer already. Never for a
    function whose calls a check counts or records."""

    def __init__(self, function, wait: bool = True, pure: bool = False,
                 known: "Known | None" = None):
        if known is not None and not (pure and wait):
            raise ValueError("answers given ahead (known) are for a pure callback that waits")
        self.function = function
        self.wait = wait
        self.pure = pure
        self.known = known


class Known:
    """Answers of a pure `Callback` given to the child with the request, ahead of
    the calls: (arguments tuple, the function's answer) pairs, or a function that
    makes them (called on first use only). A question among them is answered in
    the child without a round trip; any other goes to the grader.

    The child's code can read these answers, so give only what the callback would
    answer anyway to questions the student's code could think of itself (the
    reference's rule function on every position of the game), never answers chosen
    by what the hidden checks ask. Made by `prepare_all` (Grader.warm_up, before the
    workers fork) and sent only once made: without a warm-up, grading asks the long
    way, which for one submission costs less (docs/PERFORMANCE.md, "Figures the
    code cites"). A made Known pickles as its text alone (grading/warm.py)."""

    MAX_BYTES = 16 << 20        # the text the child decodes per request, at most
    _made: "weakref.WeakSet[Known]" = weakref.WeakSet()

    def __init__(self, answers):
        self._answers = answers
        self._text: str | None = None
        Known._made.add(self)

    def __reduce__(self):
        if self._text is not None:
            return _made_known, (self._text,)
        return Known, (self._answers,)

    @property
    def ready(self) -> bool:
        """Whether the wire text is made (only then does it go to the child)."""
        return self._text is not None

    @property
    def answers(self) -> list:
        if callable(self._answers):
            self._answers = self._answers()
        return list(self._answers)

    @classmethod
    def prepare_all(cls, encode_args=None) -> None:
        """Make the text of every Known made so far; `encode_args(args)` gives an
        argument tuple's text (client.encoded_args: from the texts its requests
        already made)."""
        for known in list(cls._made):
            known.make(encode_args)

    @property
    def text(self) -> str:
        """The table's text (table_text), made on first use."""
        return self.make()

    def make(self, encode_args=None) -> str:
        if self._text is None:
            text = table_text(self.answers, encode_args)
            if len(text) > self.MAX_BYTES:
                raise ValueError(f"answers given ahead take {len(text):,} bytes; at most "
                                 f"{self.MAX_BYTES:,} go to a child per request")
            self._text = text
            self._answers = ()      # the text is all it needs now (and all that travels)
        return self._text


def table_text(answers, encode_args=None) -> str:
    """(arguments tuple, answer) pairs as a table's text: each question's arguments'
    text as the child encodes them (it keys a question by the text it would send)
    and the grader's reply, each on a line of its own. Both are compact ASCII JSON,
    which holds no newline: the child splits the table in C, much faster than
    decoding JSON (docs/PERFORMANCE.md, "Figures the code cites"), and it travels
    after the request's line, as it is (Registry.tables). A pair that cannot be
    encoded is left out (asked the long way)."""
    encode_args = encode_args or protocol.arguments_text
    lines = []
    for args, value in answers:
        try:
            lines += (encode_args(args), protocol.dumps({"r": protocol.to_plain(value)})[:-1])
        except protocol.Unencodable:
            continue
    text = "\n".join(lines)
    if not text.isascii():      # never: the kit's encoders escape all else
        raise ValueError("answers given ahead must be ASCII JSON")
    return text


@dataclass(frozen=True)
class Ahead:
    """A game's answers given ahead to a `Proxy` of it, every call still recorded: the
    child answers a question among `tables` ({method: table_text of (the state,)
    questions}) only about a state it knows the game handed out (`given`: the roots'
    arguments' texts, and the states in an answer of a method of `gives` it answered
    from the tables) and only while the game's call limit leaves room (`left` calls;
    None: no limit), counting every call of the proxy. It sends each such call as a
    record (protocol.KNEW, no waiting), which the grader hands, in order, to
    `replay(method, *args, **kwargs)`: the object's records are what they are without
    the tables. Anything else is asked the long way, so a refusal reaches the
    student's code at the same call.

    With `path` (a make/undo board's (make, undo) methods: checking/boards.py), the
    questions take no arguments and `tables` are keyed by the moves made since the
    root instead: the child keeps that path from the proxy's own calls of `path`,
    a move only where the last answer of `gives` at that position offered it, an undo
    only of the last move; anything it cannot follow stops the answers ahead.

    Offered by the object itself (`answers_ahead(methods)`, checking/search.py's Game)
    and given only to a proxy that is the only object of the grader's in its plan: a
    callback the grader answers could reach the same game and count its calls."""
    tables: dict
    given: tuple
    left: int | None
    replay: Callable
    gives: tuple = ()
    path: tuple = ()


def _made_known(text: str) -> Known:
    """A Known whose text was made elsewhere (unpickled)."""
    known = Known(())
    known._text = text
    return known


@dataclass(frozen=True)
class Value:
    """What an earlier step of a plan produced (used as an argument or target)."""
    number: int

    def attr(self, name: str) -> "Attribute":
        return Attribute(self, name)


@dataclass(frozen=True)
class Attribute:
    """`value.name`: a method to call or an attribute to read."""
    value: Value
    name: str


class Plan:
    """A short script of calls for the child, with a name for timeouts.

    The name is what a timeout is remembered by: after a plan named
    "NegaMax.explore" timed out, later plans of that name are skipped at once.
    `timeout` overrides the per-call limit for this plan (seconds of the child's
    CPU time, not scaled here: pass a scaled value). `wall`, where given, is a
    limit on the clock instead of the backstop: for a tournament's move clock,
    which is wall time by the rules of the game; never for a grade."""

    def __init__(self, name: str, timeout: float | None = None, wall: float | None = None):
        self.name = name
        self.timeout = timeout
        self.wall = wall
        self.steps: list[dict] = []
        self.result = None
        self._text: str | None = None    # the wire form, once known to fit any request
        # The grader plays some of the student's own functions in it (`patch`,
        # checks.play_on_instance): the child it ran in has met the grader's answers
        # under the student's names, and grading moves on to a fresh one (Student).
        self.plays = False

    def _add(self, step: dict) -> Value:
        self.steps.append(step)
        self._text = None
        return Value(len(self.steps) - 1)

    def call(self, target, *args, catch: bool = False, **kwargs) -> Value:
        """Call `target` ("module.function", "module.Class", a Value or an
        Attribute). With `catch`, an exception becomes the step's value
        ({"raised": {"type", "message", "where"}}) and the plan goes on."""
        step = {"op": "call", "target": target, "args": list(args)}
        if kwargs:
            step["kwargs"] = kwargs
        if catch:
            step["catch"] = True
        return self._add(step)

    def get(self, target, default=_ABSENT) -> Value:
        """Read an attribute ("module.NAME" or an Attribute); `default` if absent."""
        step = {"op": "get", "target": target}
        if default is not _ABSENT:
            step["default"] = default
        return self._add(step)

    def value(self, data) -> Value:
        """`data` built in the child once, as a value later steps can share (one
        dict passed to two calls, a table kept between them)."""
        return self._add({"op": "value", "value": data})

    def patch(self, target: str, value) -> None:
        """Set the module attribute `target` ("module.name") to `value` until the
        plan ends (restored afterwards, also after an exception or a timeout's
        kill, which ends the child)."""
        self.plays = True
        self._add({"op": "patch", "target": target, "value": value})

    def setitem(self, target, key, value) -> None:
        """`target[key] = value` (a dict of the student's module, for instance)."""
        self._add({"op": "setitem", "target": target, "key": key, "value": value})

    def returns(self, template) -> "Plan":
        """What the plan answers: plain data in which Values are filled in."""
        self.result = template
        self._text = None
        return self

    def wire(self, registry: "Registry", rows: range) -> str:
        """The plan as one JSON text, run for the request's row in `rows`. A plan
        that hands the child nothing of the grader's is the same in every request:
        encoded once, then reused (suites keep their plain plans across the
        submissions a worker grades)."""
        if self._text is not None:
            return self._text
        before = len(registry.entries)
        text = json.dumps(protocol.to_plain(self.encode(registry, rows)),
                          separators=(",", ":"), allow_nan=False)
        if len(registry.entries) == before:
            self._text = text
        return text

    # ------------------------------------------------------------ encoding
    def encode(self, registry: "Registry", rows: range) -> dict:
        """The plan as wire data; proxies and callbacks are numbered in `registry`,
        answered while a row in `rows` runs."""
        def walk(value):
            kind = type(value)
            if kind is Value:
                return Slot(value.number)
            if kind is Attribute:
                return {"slot": value.value.number, "attr": value.name}
            if kind is Proxy:
                spec = ProxySpec(registry.add_proxy(value, rows), value.methods)
                proxies.append((value, spec))
                return spec
            if kind is Callback:
                return registry.callback_spec(value, rows)
            if kind is list:
                return [walk(v) for v in value]
            if kind is tuple:
                return tuple(walk(v) for v in value)
            if kind is dict:
                return {k: walk(v) for k, v in value.items()}
            return value

        proxies, before = [], len(registry.entries)
        steps = [{key: {"slot": value.number} if key == "target" and type(value) is Value
                  else walk(value) for key, value in step.items()}
                 for step in self.steps]
        result = walk(self.result)
        if len(proxies) == 1 and len(registry.entries) == before + 1:
            registry.give_ahead(*proxies[0])
        return {"steps": steps, "result": result}


@dataclass
class Entry:
    """One proxy or callback of a request: the rows (runs of its plan) it answers
    in and what it may do."""
    rows: range
    methods: dict        # name -> (callable, waits for an answer)
    thing: object        # the grader's object or function itself
    ahead: dict = field(default_factory=dict)   # method given ahead -> its KNEW calls' replay


class Registry:
    """The grader's objects that the plans of one request hand to the child, and the
    tables of answers given ahead (Known) that travel after the request's line."""

    def __init__(self, first: int = 1):
        self.entries: dict[int, Entry] = {}
        self.next_number = first    # never reused by one child: a kept stand-in matches nothing
        self.tables: list[str] = []
        self._table_at: dict[int, int] = {}     # id of a table's text -> its index (sent once)

    def _number(self) -> int:
        self.next_number += 1
        return self.next_number - 1

    def add_proxy(self, proxy: Proxy, rows: range) -> int:
        number = self._number()
        methods = {name: (getattr(proxy.obj, name), bool(sync))
                   for name, sync in proxy.methods.items()}
        self.entries[number] = Entry(rows, methods, proxy.obj)
        return number

    def add_callback(self, callback: Callback, rows: range) -> int:
        number = self._number()
        self.entries[number] = Entry(rows, {"__call__": (callback.function, callback.wait)},
                                     callback.function)
        return number

    def give_ahead(self, proxy: Proxy, spec: ProxySpec) -> None:
        """The answers `proxy`'s object gives ahead (Ahead), if it offers any for
        the methods the proxy asks, into `spec` and `tables`."""
        offer = getattr(proxy.obj, "answers_ahead", None)
        asked = tuple(name for name, sync in proxy.methods.items() if sync)
        ahead = offer(asked) if offer is not None and asked else None
        if ahead is None or not ahead.tables:
            return
        tables = {}
        for method, text in ahead.tables.items():
            if id(text) not in self._table_at:
                self._table_at[id(text)] = len(self.tables)
                self.tables.append(text)
            tables[method] = self._table_at[id(text)]
        self.entries[spec.number].ahead = {method: functools.partial(ahead.replay, method)
                                           for method in tables}
        spec.ahead = {"tables": tables, "given": list(ahead.given),
                      "left": -1 if ahead.left is None else ahead.left,
                      "gives": [m for m in ahead.gives if m in tables]}
        if ahead.path:
            spec.ahead["path"] = list(ahead.path)

    def callback_spec(self, callback: Callback, rows: range) -> CallbackSpec:
        """The wire form of `callback`, numbered here; its answers given ahead
        (Known), once made, go in `tables` (their text sent as it is, never walked)."""
        number = self.add_callback(callback, rows)
        known = None
        if callback.known is not None and callback.known.ready:
            known = len(self.tables)
            self.tables.append(callback.known.text)
        return CallbackSpec(number, int(callback.wait), int(callback.pure), known)

    def own(self, value, index):
        """Arguments the child sent back: stand-ins of this plan's proxies and
        callbacks (as their tags) become the grader's objects again; anything
        else, including tags of other plans, stays plain data."""
        kind = type(value)
        if kind is dict and len(value) == 1:
            (tag, inner), = value.items()
            if tag in ("__proxy__", "__callback__") and type(inner) is list and inner:
                entry = self.entries.get(inner[0]) if type(inner[0]) is int else None
                if entry is not None and index in entry.rows:
                    return entry.thing
            return value
        if kind is list:
            if _ATOMS.issuperset(map(type, value)):
                return value        # a row of a board, a state: decoded for this call alone
            return [self.own(v, index) for v in value]
        if kind is tuple:
            return tuple(self.own(v, index) for v in value)
        return value

    def lookup(self, number, method, index, knew=False):
        """(callable, waits) for a call the child sent, or a reason to refuse it;
        `knew`: a call the child says it answered from the tables given ahead (it
        waits for nothing, and only a method given ahead may be sent so)."""
        entry = self.entries.get(number) if type(number) is int else None
        if entry is None:
            return None, "no such object of the grader's"
        if index not in entry.rows:
            return None, "this object of the grader's belongs to another call"
        found = entry.methods.get(method) if type(method) is str else None
        if found is None:
            return None, f"the grader's object has no method {str(method)[:40]!r}"
        if knew:
            replay = entry.ahead.get(method)
            return ((replay, False), None) if replay else (None, "the call was sent the wrong way")
        return found, None

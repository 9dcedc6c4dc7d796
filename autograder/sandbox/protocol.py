"""The wire format between the trusted grader and the sandboxed child.

One JSON object per line. Plain JSON cannot tell a tuple from a list and has no
sets, but the assignments' specifications care (CS50's `actions` returns a set
of tuples), so containers are tagged:

    tuple      {"__tuple__": [...]}
    set        {"__set__": [...]}
    frozenset  {"__frozenset__": [...]}
    dict with non-string keys      {"__dict__": [[key, value], ...]}
    object kept in the child       {"__handle__": 7}

Requests to the child may also carry the parts of a call plan (see
`autograder/sandbox/plans.py`): a value computed by an earlier step
{"__slot__": 2}, an object of the grader's whose methods the child may call
back {"__proxy__": [id, {"method": 1 (waits for the answer) | 0 (does not)}]},
and a function of the grader's {"__callback__": [id, 1 | 0]}. Only the child
decodes these (`loads(line, requests=True)`); in a reply they stay plain dicts.

Encoding accepts only the exact built-in types (no subclasses), so an object
with a lying `__eq__` cannot be sent back; decoding builds only built-in types.
This module is imported by the child before it is confined and must stay
standard-library only.
"""

import json
import math

# Bound here, before any student code runs in the child: a student who patches
# json.dumps or builtins.type changes their own module, not the wire format.
_ENCODER = json.JSONEncoder(separators=(",", ":"), allow_nan=False)
type, len, all, any, repr, str, list, tuple, set, frozenset, dict, float, int, bool = (
    type, len, all, any, repr, str, list, tuple, set, frozenset, dict, float, int, bool)
MAX_DEPTH = 64


class Slot:
    """In a plan: the value an earlier step produced."""

    __slots__ = ("number",)

    def __init__(self, number):
        self.number = number


class ProxySpec:
    """In a plan: an object of the grader's; `methods` maps a name to 1 when
    its caller waits for the answer, 0 when the call is only recorded."""

    __slots__ = ("number", "methods")

    def __init__(self, number, methods):
        self.number, self.methods = number, methods


class CallbackSpec:
    """In a plan: a function of the grader's (`sync` as for a proxy method)."""

    __slots__ = ("number", "sync")

    def __init__(self, number, sync):
        self.number, self.sync = number, sync


class Unencodable(TypeError):
    """A value that cannot cross the boundary (a custom object, too deep, ...)."""


class Handle:
    """A reference to an object that lives in the child."""

    __slots__ = ("number",)

    def __init__(self, number):
        self.number = number

    def __repr__(self):
        return f"<object #{self.number} in the sandbox>"

    def __eq__(self, other):
        return type(other) is Handle and other.number == self.number

    def __hash__(self):
        return hash(("handle", self.number))


def to_plain(value, depth=0, kept=None):
    """Turn `value` into JSON-ready data with tags; raise Unencodable otherwise.

    `kept` maps id() of objects kept in the child to their handle number, so an
    argument that was passed by handle comes back as that handle."""
    if kept and id(value) in kept:
        return {"__handle__": kept[id(value)]}
    if depth > MAX_DEPTH:
        raise Unencodable("the value is nested too deeply")
    kind = type(value)
    if value is None or kind is bool or kind is int or kind is str:
        return value
    if kind is float:
        return value if math.isfinite(value) else {"__float__": repr(value)}
    if kind is list:
        return [to_plain(item, depth + 1, kept) for item in value]
    if kind is tuple:
        return {"__tuple__": [to_plain(item, depth + 1, kept) for item in value]}
    if kind is set or kind is frozenset:
        items = [to_plain(item, depth + 1, kept) for item in value]
        return {"__set__" if kind is set else "__frozenset__": items}
    if kind is dict:
        if all(type(key) is str for key in value) and not any(k.startswith("__") for k in value):
            return {key: to_plain(item, depth + 1, kept) for key, item in value.items()}
        return {"__dict__": [[to_plain(k, depth + 1, kept), to_plain(v, depth + 1, kept)]
                             for k, v in value.items()]}
    if kind is Handle:
        return {"__handle__": value.number}
    if kind is Slot:
        return {"__slot__": value.number}
    if kind is ProxySpec:
        return {"__proxy__": [value.number, value.methods]}
    if kind is CallbackSpec:
        return {"__callback__": [value.number, value.sync]}
    raise Unencodable(f"an object of type {kind.__name__} cannot be checked")


def _freeze(item):
    # Elements of a set must be hashable; lists inside a set came from tuples.
    return tuple(_freeze(x) for x in item) if type(item) is list else item


def _tagged(obj):
    if len(obj) == 1:
        (tag, inner), = obj.items()
        if tag == "__tuple__":
            return tuple(inner)
        if tag == "__set__":
            return {_freeze(x) for x in inner}
        if tag == "__frozenset__":
            return frozenset(_freeze(x) for x in inner)
        if tag == "__dict__":
            return {_freeze(k): v for k, v in inner}
        if tag == "__handle__":
            return Handle(inner)
        if tag == "__float__":
            return float(inner)
    return obj


def _request_tagged(obj):
    if len(obj) == 1:
        (tag, inner), = obj.items()
        if tag == "__slot__" and type(inner) is int:
            return Slot(inner)
        if tag == "__proxy__" and type(inner) is list and len(inner) == 2:
            return ProxySpec(*inner)
        if tag == "__callback__" and type(inner) is list and len(inner) == 2:
            return CallbackSpec(*inner)
    return _tagged(obj)


def dumps(message):
    return _ENCODER.encode(message) + "\n"


_DECODER = json.JSONDecoder(object_hook=_tagged)
_REQUEST_DECODER = json.JSONDecoder(object_hook=_request_tagged)


def loads(line, requests=False):
    """Decode one line; `requests=True` (the child only) also builds plan parts."""
    if isinstance(line, (bytes, bytearray)):
        line = line.decode()
    return (_REQUEST_DECODER if requests else _DECODER).decode(line)

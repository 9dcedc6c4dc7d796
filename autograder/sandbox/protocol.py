"""The wire format between the trusted grader and the sandboxed child.

One JSON object per line. Plain JSON cannot tell a tuple from a list and has no
sets, but the assignments' specifications care (CS50's `actions` returns a set
of tuples), so containers are tagged:

    tuple      {"__tuple__": [...]}
    set        {"__set__": [...]}
    frozenset  {"__frozenset__": [...]}
    set (frozenset) of tuples of strings, ints, bools and None
               {"__set_of_tuples__": [[...], ...]} ({"__frozenset_of_tuples__": ...}):
               CS50's actions, one tag for the whole set instead of one per move
    dict with non-string keys      {"__dict__": [[key, value], ...]}
    object kept in the child       {"__handle__": 7}

Requests to the child may also carry the parts of a call plan (see
`autograder/sandbox/plans.py`): a value computed by an earlier step
{"__slot__": 2}, an object of the grader's whose methods the child may call
back {"__proxy__": [id, {"method": 1 (waits for the answer) | 0 (does not)}]},
and a function of the grader's {"__callback__": [id, 1 | 0(, 1 when pure(, the number
of its table of answers given ahead, sent after the request's line))]}. Only the
child decodes these (`loads(line, requests=True)`); in a reply they stay plain dicts.

Encoding sends only built-in types. A subclass of a built-in container, number
or string (a namedtuple, an IntEnum, an OrderedDict) is sent as its base value,
read with the base type's own methods, so an overridden `__eq__`, `__iter__` or
`__len__` changes nothing on the grader's side; anything else is refused.
Decoding builds only built-in types.
This module is imported by the child before it is confined and must stay
standard-library only.
"""

import itertools
import json
import math
import re
import sys

# Bound here, before any student code runs in the child: a student who patches
# json.dumps or builtins.type changes their own module, not the wire format.
_ENCODER = json.JSONEncoder(separators=(",", ":"), allow_nan=False)
# The same encoder's C half, built once: JSONEncoder.encode builds a new one for every
# message, which cost the child more than encoding a small row itself. No circular
# check: what is encoded here is to_plain's output or a message of the kit's own, trees.
_C_ENCODE = None if json.encoder.c_make_encoder is None else json.encoder.c_make_encoder(
    None, _ENCODER.default, json.encoder.encode_basestring_ascii, None, ":", ",",
    False, False, False)
type, len, all, any, repr, str, list, tuple, set, frozenset, dict, float, int, bool = (
    type, len, all, any, repr, str, list, tuple, set, frozenset, dict, float, int, bool)
issubclass, Exception = issubclass, Exception
_INT_DIGITS, _SET_INT_DIGITS = sys.get_int_max_str_digits, sys.set_int_max_str_digits
_DIGITS = _INT_DIGITS()      # the limit on ints sent (see json_text)
# Values that stand for themselves in JSON, by exact type (no float: inf and nan are
# tagged). A list or tuple of only these is copied at C speed, item by item unchanged;
# the child sends an answer of one of these types without to_plain (SENT_AS_IS).
_ATOMS = SENT_AS_IS = frozenset((str, int, bool, type(None)))
_LISTS = frozenset((list,))
_TUPLES = frozenset((tuple,))
_chain = itertools.chain.from_iterable
MAX_DEPTH = 64
# JSON nesting of a reply: a tagged value nests two levels per Python level
# ({"__tuple__": [...]}), and rows add a few of their own.
MAX_JSON_DEPTH = 2 * MAX_DEPTH + 8

# The kinds of compact rows [request id, index, kind, value, ...] the child sends.
RETURNED = 0     # the call returned value
RAISED = 1       # the call raised: value is {"type", "message", "where"(, "step")}
UNSENDABLE = 2   # the call returned something that cannot cross the boundary
ABSENT = 3       # the function (or class, or attribute) does not exist
CHUNK = 4        # answers of consecutive calls: [id, first index, CHUNK, [value, ...]
                 # (, [[kind, value] of the call made again, ...])], each kind RETURNED
ASK = 5          # a call of the student's to a grader's object, waiting for the answer
TELL = 6         # the same, only recorded (no answer)
KNEW = 7         # an ASK the child answered from the answers given ahead: recorded only,
                 # replayed on the grader's object (ProxySpec.ahead)
# A subclass of one of these is sent as the base value, read by the base's own
# C methods (called unbound, so no method of the subclass runs).
_BASE_READERS = (
    (bool, None),                      # cannot be subclassed; listed so it is never int's
    (int, int.__int__), (float, float.__float__), (str, str.__str__),
    (list, lambda v: list(list.__iter__(v))), (tuple, lambda v: tuple(tuple.__iter__(v))),
    (frozenset, lambda v: frozenset(frozenset.__iter__(v))),
    (set, lambda v: set(set.__iter__(v))), (dict, lambda v: dict(dict.items(v))),
)


class Slot:
    """In a plan: the value an earlier step produced."""

    __slots__ = ("number",)

    def __init__(self, number):
        self.number = number


class ProxySpec:
    """In a plan: an object of the grader's; `methods` maps a name to 1 when
    its caller waits for the answer, 0 when the call is only recorded. `ahead`,
    where given, is the game's answers given ahead (plans.Ahead.spec): {"tables":
    {method: index of its table after the request's line}, "given": [the roots'
    arguments' texts], "left": calls it answers (-1: no limit), "gives": [methods
    whose answer is a list of states handed out]}."""

    __slots__ = ("number", "methods", "ahead")

    def __init__(self, number, methods, ahead=None):
        self.number, self.methods = number, methods
        self.ahead = ahead if type(ahead) is dict else None


class CallbackSpec:
    """In a plan: a function of the grader's (`sync` as for a proxy method; `pure` 1
    when its answer depends on its arguments alone, see plans.Callback)."""

    __slots__ = ("number", "sync", "pure", "known")

    def __init__(self, number, sync, pure=0, known=None):
        self.number, self.sync, self.pure = number, sync, pure
        # answers given ahead (plans.Known): which of the tables after the request's
        # line (plans.Registry.tables); else None
        self.known = known if type(known) is int else None


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
        if not kept:
            if _ATOMS.issuperset(map(type, value)):
                return value[:]     # a copy: `again` calls once more before the row is encoded
            if _LISTS.issuperset(map(type, value)) and \
                    _ATOMS.issuperset(map(type, _chain(value))):
                return [row[:] for row in value]      # a board: lists of atoms, copied
        return [to_plain(item, depth + 1, kept) for item in value]
    if kind is tuple:
        if not kept and _ATOMS.issuperset(map(type, value)):
            return {"__tuple__": list(value)}
        return {"__tuple__": [to_plain(item, depth + 1, kept) for item in value]}
    if kind is set or kind is frozenset:
        if not kept and _TUPLES.issuperset(map(type, value)) and \
                _ATOMS.issuperset(map(type, _chain(value))):
            return {"__set_of_tuples__" if kind is set else "__frozenset_of_tuples__":
                    list(map(list, value))}
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
        spec = [value.number, value.methods]
        return {"__proxy__": spec if value.ahead is None else spec + [value.ahead]}
    if kind is CallbackSpec:
        spec = [value.number, value.sync]
        if value.pure:
            spec += [value.pure] if value.known is None else [value.pure, value.known]
        return {"__callback__": spec}
    return to_plain(_as_base(value, kind), depth + 1, kept)


def arguments_text(args) -> str:
    """An argument tuple's JSON text, as requests carry it: `dumps(to_plain(list(args)))`
    without its newline, made faster for the usual arguments (a board, a move, a string
    or a number): those are JSON as they are (a move inside its tuple tag), so they go
    to the C encoder without a copy. The one definition of the text: the grader's
    requests and answers given ahead (client, plans.Known) and a played run's
    questions in the child (keyed by it) all use it."""
    parts = []
    for arg in args:
        kind = type(arg)
        if kind in _ATOMS:
            parts.append(arg)
        elif kind is tuple and _ATOMS.issuperset(map(type, arg)):
            parts.append({"__tuple__": arg})        # the encoder writes a tuple as a list
        elif kind is list and _LISTS.issuperset(map(type, arg)) and \
                _ATOMS.issuperset(map(type, _chain(arg))):
            parts.append(arg)
        else:
            return json_text(to_plain(list(args)))
    return json_text(parts)


_LISTS_AND_ATOMS = _ATOMS | _LISTS
_is_list = _LISTS.__contains__
_compress = itertools.compress
TREE_LEVELS = 16        # levels of lists answer_form looks through (<= MAX_DEPTH)
NOT_A_TREE = object()


def answer_form(value):
    """(to_plain's copy, None) of a flat list, or of a board or a state (lists and
    atoms, two levels); (None, its JSON text) of deeper lists of lists ... of atoms (at
    most TREE_LEVELS levels: a next_states answer of two dozen states), checked level
    by level at C speed and encoded as it is, where to_plain would copy it item by
    item only to have it encoded after; else (NOT_A_TREE, None): to_plain says what
    it is."""
    if type(value) is not list:
        return NOT_A_TREE, None
    if _ATOMS.issuperset(map(type, value)):         # to_plain's own two quick copies
        return value[:], None
    if _LISTS.issuperset(map(type, value)) and _ATOMS.issuperset(map(type, _chain(value))):
        return [row[:] for row in value], None
    items = value
    for level in range(TREE_LEVELS):
        kinds = list(map(type, items))
        if _ATOMS.issuperset(kinds):
            if level == 0:
                return value[:], None
            if level == 1:
                return [row[:] if type(row) is list else row for row in value], None
            try:
                return None, json_text(value)
            except (MemoryError, RecursionError):
                break           # to_plain and the row's own encoding say what
        if not _LISTS_AND_ATOMS.issuperset(kinds):
            break
        items = list(_chain(_compress(items, map(_is_list, kinds))))
    return NOT_A_TREE, None


def _as_base(value, kind):
    """The built-in value inside an instance of a subclass of a built-in type."""
    for base, read in _BASE_READERS:
        if read is not None and issubclass(kind, base):
            try:
                plain = read(value)
            except Exception:
                break
            if type(plain) is base:
                return plain
            break
    raise Unencodable(f"an object of type {_type_name(kind)} cannot be checked")


def _type_name(kind) -> str:
    try:
        name = type.__dict__["__name__"].__get__(kind)
    except Exception:
        name = None
    return name if type(name) is str else "?"


def _freeze(item):
    # Elements of a set must be hashable; lists inside a set came from tuples.
    return tuple(_freeze(x) for x in item) if type(item) is list else item


def _set(inner, tagged):
    try:
        return set(inner)           # items already hashable (atoms, tuples): C speed
    except TypeError:
        return {_freeze(x) for x in inner}


def _frozenset(inner, tagged):
    try:
        return frozenset(inner)
    except TypeError:
        return frozenset(_freeze(x) for x in inner)


def _sets_of_tuples(made):
    def read(inner, tagged):
        # Each item a list, made a tuple at C speed (an item of any other kind is not
        # this tag's, and the whole stays the dict it was); an unhashable element
        # raises TypeError, as in a tagged set, and the reply is refused.
        if type(inner) is list and _LISTS.issuperset(map(type, inner)):
            return made(map(tuple, inner))
        return tagged
    return read


# A tag's reader: (what the tag holds, the tagged dict) -> the value. Looked up by the
# tag, one dictionary lookup for every object decoded (most are not tagged: a reply's
# {"r": ...}).
_READERS = {
    "__tuple__": lambda inner, tagged: tuple(inner),
    "__set__": _set,
    "__frozenset__": _frozenset,
    "__set_of_tuples__": _sets_of_tuples(set),
    "__frozenset_of_tuples__": _sets_of_tuples(frozenset),
    "__dict__": lambda inner, tagged: {_freeze(k): v for k, v in inner},
    "__handle__": lambda inner, tagged: Handle(inner),
    "__float__": lambda inner, tagged: float(inner),
}
_REQUEST_READERS = {
    **_READERS,
    "__slot__": lambda inner, tagged: Slot(inner) if type(inner) is int else tagged,
    "__proxy__": lambda inner, tagged: ProxySpec(*inner) if type(inner) is list
    and len(inner) in (2, 3) else tagged,
    "__callback__": lambda inner, tagged: CallbackSpec(*inner) if type(inner) is list
    and len(inner) in (2, 3, 4) else tagged,
}


def _tagged(obj, readers=_READERS):
    if len(obj) == 1:
        (tag, inner), = obj.items()
        read = readers.get(tag)
        if read is not None:
            return read(inner, obj)
    return obj


def _request_tagged(obj):
    return _tagged(obj, _REQUEST_READERS)


_STRING = re.compile(rb'"[^"]*"')
_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b'[]{}"')


def openings(data: bytes) -> int:
    """How many "[" and "{" the bytes hold (inside strings too)."""
    return data.count(b"[") + data.count(b"{")


def items(data: bytes, opened: int | None = None) -> int:
    """An upper bound on the JSON values in `data`, counted on its bytes (commas,
    colons and openings inside strings count too): what decoding it may build.
    `opened`: `openings(data)`, where it is known already."""
    return (data.count(b",") + data.count(b":") + data.count(b"\n") + 1
            + (openings(data) if opened is None else opened))


def nested_within(data: bytes, passes: int = MAX_JSON_DEPTH, opened: int | None = None) -> bool:
    """False if the JSON text `data` may nest deeper than `passes` levels, decided on
    its bytes before anything is decoded (True guarantees at most 2 * `passes`).

    Only C-speed byte operations: escaped backslashes and quotes go, then all but
    brackets and quotes; adjacent quotes go (that changes no bracket's being inside
    or outside a string); strings still holding brackets go; then each pass removes
    the innermost bracket pairs, one or two levels at a time."""
    if (openings(data) if opened is None else opened) <= passes:
        return True
    if b"\\" in data:
        data = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    structure = data.translate(None, _NOT_STRUCTURE)
    structure = structure.replace(b'""', b"")
    if b'"' in structure:
        structure = _STRING.sub(b"", structure)
    for _ in range(passes):
        if not structure:
            return True
        shorter = structure.replace(b"[]", b"").replace(b"{}", b"")
        if len(shorter) == len(structure):
            return False                        # unbalanced: not valid JSON anyway
        structure = shorter
    return not structure


def dumps(message):
    """A message's line: json_text's, with its newline."""
    return json_text(message) + "\n"


def json_text(message):
    """A message's JSON text. The encoder's one ValueError is an int too long to write
    in decimal (Python's limit, which guards every reader of it against quadratic-time
    decoding): a value that cannot cross the boundary like any other (to_plain looks
    at types only). The limit is the one at import: code in the child that changed it
    (sys.set_int_max_str_digits) changes its own computing, not what it may send."""
    if _INT_DIGITS() != _DIGITS:
        return _within_digits(message)
    try:
        if _C_ENCODE is None:
            return _ENCODER.encode(message)
        return "".join(_C_ENCODE(message, 0))
    except ValueError:
        raise _int_too_long() from None


def _within_digits(message):
    changed = _INT_DIGITS()
    _SET_INT_DIGITS(_DIGITS)
    try:
        return json_text(message)
    finally:
        _SET_INT_DIGITS(changed)


def _int_too_long():
    return Unencodable(f"an int of more than {_DIGITS} digits cannot be checked")


_DECODER = json.JSONDecoder(object_hook=_tagged)
_REQUEST_DECODER = json.JSONDecoder(object_hook=_request_tagged)


_PLAIN_SCAN = json.JSONDecoder().scan_once


def arguments(text):
    """One run's input from its own JSON text (a plan's "inputs", decoded by the
    child run by run: the arguments of the call running are the only ones alive,
    not tens of thousands of lists that its collector kept finding)."""
    return loads(text, requests=True)


def from_grader(line, requests=False):
    """`loads` of a text the grader wrote (a request, an answer, a table's line), for
    the child only. One without a tag is scanned with no hook: the
    grader's encoder writes every key as it is (it escapes no underscore), so a text
    in which no string starts with "__" holds no tagged object, and calling the hook
    on each object (every answer's {"r": ...}) was a Python call for nothing. Never
    for what a child wrote: it could spell a tag with escapes."""
    if isinstance(line, (bytes, bytearray)):
        line = line.decode()
    if '"__' not in line:
        try:
            value, end = _PLAIN_SCAN(line, 0)
            if end == len(line) or (end == len(line) - 1 and line[end] == "\n"):
                return value
        except StopIteration:
            pass
    return loads(line, requests)


def loads(line, requests=False):
    """Decode one line; `requests=True` (the child only) also builds plan parts.

    The C scanner is called directly: what JSONDecoder.decode adds around it (two
    whitespace matches, two Python calls) cost a small reply as much as scanning
    it, and the kit's own encoder writes no whitespace. A text it does not take
    whole (other whitespace around it, or not JSON) goes to decode() itself, which
    takes or refuses it as before; the line's own newline is no such text (the
    child reads its requests and answers with it: each was decoded twice)."""
    if isinstance(line, (bytes, bytearray)):
        line = line.decode()
    decoder = _REQUEST_DECODER if requests else _DECODER
    try:
        value, end = decoder.scan_once(line, 0)
        if end == len(line) or (end == len(line) - 1 and line[end] == "\n"):
            return value
    except StopIteration:
        pass
    return decoder.decode(line)

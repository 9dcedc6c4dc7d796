"""A submission's behaviour record: what it answered while it was graded
(docs/SIMILARITY.md, "Behaviour: what only a grader has").

A copy answers like its original however its text was disguised, where independent
students differ. `BehaviourRecord` is fed by `Student` with the calls it makes anyway
and keeps only what the grader saw: each call's target, a digest of the arguments it
sent and a digest of the decoded answer (the value, or the type of the exception
raised; never its message). A call that timed out, crashed or was skipped is not kept.
The engine knows no game: this sees targets, plain data and outcomes only.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import zlib
from array import array
from pathlib import Path

from ..sandbox.client import encoded_text

VERSION = 2      # 2: the arguments digested from their JSON text (_canonical)
FILE = "fingerprint.json"        # the name older output folders have too
#: Keep one call in this many (a fixed choice by the call's key: the same calls for
#: every student).
KEEP_ONE_IN = 4
#: At most this many calls per submission (the smallest keys), about 200 KB on disk.
MAX_CALLS = 16384
#: A record file larger than this is not read.
MAX_FILE_BYTES = 8 << 20
#: Values nested deeper than this, or holding more items, are digested as a marker.
MAX_DEPTH = 40
MAX_ITEMS = 10_000
_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15        # odd: the repetitions of a call cycle through the sample
_MEMO_LIMIT = 200_000
_MEMO: dict[int, tuple[object, int]] = {}     # id(arguments) -> (them, their digest)
_TARGETS: dict[str, int] = {}                 # target -> its digest
_ATOMS = frozenset({str, int, float, bool, type(None)})
_SEQUENCES = frozenset({tuple, list})
_chain = itertools.chain.from_iterable


def _flat(value) -> bool:
    """A list or tuple of atoms (and of such lists or tuples, one level down): its
    repr is already the same in every process, and built in C. The usual answers (a
    move, a board, a set of moves) are told at C speed; a mix goes item by item."""
    if _ATOMS.issuperset(map(type, value)):
        return True
    if _SEQUENCES.issuperset(map(type, value)):
        return _ATOMS.issuperset(map(type, _chain(value)))
    atoms = _ATOMS
    for item in value:
        kind = type(item)
        if kind in atoms:
            continue
        if (kind is tuple or kind is list) and atoms.issuperset(map(type, item)):
            continue
        return False
    return True


def plain(value, depth: int = 0) -> str:
    """`value` as text that is the same for equal values in any process: sets and
    dicts sorted, tuples apart from lists, `True` apart from `1`; objects of the
    child (handles) and anything else by kind only."""
    kind = type(value)
    if kind in _ATOMS:
        return repr(value)
    if depth > MAX_DEPTH:
        return "<deep>"
    if kind in (tuple, list, set, frozenset, dict) and len(value) > MAX_ITEMS:
        return f"<{kind.__name__} of {len(value)}>"     # bounded work for any reply
    if kind is tuple or kind is list:
        if _flat(value):
            return repr(value)
        inner = ",".join([plain(v, depth + 1) for v in value])
        return f"({inner})" if kind is tuple else f"[{inner}]"
    if kind is set or kind is frozenset:
        if _flat(value):
            return "{" + ",".join(sorted(map(repr, value))) + "}"
        return "{" + ",".join(sorted([plain(v, depth + 1) for v in value])) + "}"
    if kind is dict:
        return "{" + ",".join(sorted([plain(k, depth + 1) + ":" + plain(v, depth + 1)
                                      for k, v in value.items()])) + "}"
    return f"<{kind.__name__}>"


_TAGS = ('{"__tuple__":', '{"__float__":')


def _canonical(args) -> str:
    """The arguments as text equal for equal arguments in any process: their JSON text
    as a request carries it (made once where they were sent), where it holds only
    lists, tuples and atoms (every "{" opens a tuple's or a float's tag; a set or a
    dict would be in the order of its making), else `plain`. Both tell a tuple from
    a list and True from 1, and which one is used depends on the value alone."""
    text = encoded_text(args)
    if text is not None and text.count("{") == sum(map(text.count, _TAGS)):
        return text
    return plain(args)


def _digest(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8", "surrogatepass"),
                                          digest_size=8).digest(), "little")


#: (target's digest, ids of an argument list's tuples) -> (the tuples, each call's
#: base, the indexes of the calls a first sighting keeps, or None where the list
#: holds a call twice): what a worker's suites send every submission, worked out once.
_BASES: dict[tuple, tuple] = {}


def _bases(named: int, arg_lists, arguments) -> tuple[list[int], list[int] | None]:
    arguments_list = tuple(arg_lists)
    cache_key = (named, tuple(map(id, arguments_list)))
    hit = _BASES.get(cache_key)
    if hit is not None and hit[0] == arguments_list:
        return hit[1], hit[2]
    bases = [named ^ arguments(args) for args in arguments_list]
    chosen = [index for index, base in enumerate(bases) if not base % KEEP_ONE_IN] \
        if len(set(bases)) == len(bases) else None
    if len(_BASES) < 1000:
        _BASES[cache_key] = (arguments_list, bases, chosen)
    return bases, chosen


class BehaviourRecord:
    """Fed by `Student` with the calls it makes and what came back."""

    def __init__(self, scratch: Path | None = None):
        self.modules = {}       # the graded files' SHA-256: a record counts only for them
        if scratch is not None:
            for path in sorted(Path(scratch).glob("*.py")):
                self.modules[path.name] = hashlib.sha256(path.read_bytes()).hexdigest()
        self.answers: dict[int, int] = {}
        self.targets: dict[str, int] = {}       # target -> its number
        self.target_of: dict[int, int] = {}     # key -> number of its target
        self.calls = 0
        self._seen: dict[int, int] = {}
        self._plans: dict[str, int] = {}

    @staticmethod
    def _arguments(args) -> int:
        """A digest of the arguments. A worker's suites hand every submission the
        same argument objects, so each is digested once per worker (and held, so
        its id stays its own)."""
        hit = _MEMO.get(id(args))
        if hit is not None and hit[0] is args:
            return hit[1]
        if len(_MEMO) > _MEMO_LIMIT:
            _MEMO.clear()
        digest = _digest(_canonical(args))
        _MEMO[id(args)] = (args, digest)
        return digest

    def _keep(self, target: str, arguments: int, outcome) -> None:
        """Key a call by its target, arguments and how many times the same call came
        before (repeated calls on objects that change stay apart); keep a sample."""
        self.calls += 1
        named = _TARGETS.get(target)
        if named is None:
            named = _TARGETS[target] = _digest(target)
        base = named ^ arguments
        occurrence = self._seen.get(base, 0)
        self._seen[base] = occurrence + 1
        # The digests are uniform, so this keeps one call in KEEP_ONE_IN, the same
        # ones for every student (and every KEEP_ONE_IN-th repetition of a call).
        key = (base + occurrence * _GOLDEN) & _MASK
        if key % KEEP_ONE_IN or key in self.answers:
            return
        self._answer(key, target, outcome)

    def _answer(self, key: int, target: str, outcome) -> None:
        if outcome.raised is not None:
            answer = "raised " + str(outcome.raised.get("type", ""))[:200]
        elif outcome.failure is None:
            answer = plain(outcome.value)
            if outcome.args_after is not None:
                answer += " after " + plain(outcome.args_after)
        else:
            return              # no answer: a timeout, a crash, a skipped call
        self.answers[key] = zlib.crc32(answer.encode("utf-8", "surrogatepass"))
        self.target_of[key] = self.targets.setdefault(target[:200], len(self.targets))

    def saw(self, target: str, args, kwargs, outcome) -> None:
        """One call (`Student.call`)."""
        if kwargs:
            args = (args, tuple(sorted(kwargs.items())))
        self._keep(target, self._arguments(args), outcome)

    def saw_many(self, target: str, arg_lists, outcomes) -> None:
        """Calls of one target (`Student.map`): `_keep` for each. A suite makes tens
        of thousands of these, most for the first time in the submission: then each
        call's key is its base, and only the calls chosen by it are looked at."""
        named = _TARGETS.get(target)
        if named is None:
            named = _TARGETS[target] = _digest(target)
        seen, answers = self._seen, self.answers
        bases, chosen = _bases(named, arg_lists, self._arguments)
        if chosen is not None and len(outcomes) == len(bases) \
                and not any(map(seen.get, bases)):
            seen.update(zip(bases, itertools.repeat(1)))
            for index in chosen:
                if bases[index] not in answers:
                    self._answer(bases[index], target, outcomes[index])
            self.calls += len(outcomes)
            return
        memo, arguments = _MEMO, self._arguments
        for args, outcome in zip(arg_lists, outcomes):
            hit = memo.get(id(args))
            digest = hit[1] if hit is not None and hit[0] is args else arguments(args)
            base = named ^ digest
            occurrence = seen.get(base, 0)
            seen[base] = occurrence + 1
            key = (base + occurrence * _GOLDEN) & _MASK
            if key % KEEP_ONE_IN or key in answers:
                continue
            self._answer(key, target, outcome)
        self.calls += len(outcomes)

    def saw_plans(self, plans, outcomes) -> None:
        """Call plans (`Student.run`): kept by the plan's name and how many plans of
        that name came before (their arguments are the grader's own objects)."""
        for plan, outcome in zip(plans, outcomes):
            number = self._plans.get(plan.name, 0)
            self._plans[plan.name] = number + 1
            self._keep("plan:" + plan.name, _digest(f"{plan.name}\0{number}"), outcome)

    def data(self) -> dict:
        """The record as plain JSON data."""
        keys = sorted(self.answers)[:MAX_CALLS]
        return {"version": VERSION, "modules": self.modules, "calls": self.calls,
                "targets": sorted(self.targets, key=self.targets.get),
                "keys": _pack("Q", keys), "answers": _pack("I", [self.answers[k] for k in keys]),
                "target_of": _pack("H", [self.target_of[k] for k in keys])}


class NoBehaviourRecord:
    """A BehaviourRecord for grading that writes none (a platform's: nothing there
    compares submissions), which spends nothing on the calls."""

    calls = 0

    def saw(self, target, args, kwargs, outcome) -> None:
        pass

    def saw_many(self, target, arg_lists, outcomes) -> None:
        pass

    def saw_plans(self, plans, outcomes) -> None:
        pass

    def data(self) -> dict:
        return {}


def _pack(kind: str, values: list[int]) -> str:
    return base64.b64encode(array(kind, values).tobytes()).decode("ascii")


def _unpack(kind: str, text: str) -> array:
    found = array(kind)
    found.frombytes(base64.b64decode(text.encode("ascii"), validate=True))
    return found


def write(folder: Path, data: dict | None) -> None:
    """Write `data` (BehaviourRecord.data()) as the student's record file; nothing
    when the submission was not run."""
    if data:
        (Path(folder) / FILE).write_text(json.dumps(data, separators=(",", ":")) + "\n",
                                         encoding="utf-8")


def read(path: Path) -> tuple[dict[str, str], array, array, list[str]] | None:
    """(module digests, keys, answers, the target of each key) from a record file,
    or None when it is missing, too large or not one."""
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("version") != VERSION:
            return None
        keys, answers = _unpack("Q", data["keys"]), _unpack("I", data["answers"])
        numbers = _unpack("H", data["target_of"])
        names = [str(t) for t in data["targets"]]
        modules = {str(k): str(v) for k, v in dict(data["modules"]).items()}
        targets = [names[n] for n in numbers]
    except (OSError, ValueError, KeyError, TypeError, AttributeError, IndexError):
        return None
    if not len(keys) == len(answers) == len(targets) or len(keys) > MAX_CALLS:
        return None
    return modules, keys, answers, targets

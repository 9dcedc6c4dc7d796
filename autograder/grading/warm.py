"""Warm caches that travel: the hidden suite's expected values, computed once and shipped.

Grading the reference (Grader.warm_up) fills every `functools.cache` of the hidden
suite. A platform package grades each submission in a fresh process, and the
course's cache starts each batch in one: `WarmCaches` turns those caches into
readable `Memo`s, `snapshot()` pickles them with a manifest of digests, and `load()`
checks the manifest against the kit it runs in before unpickling anything. Why not
plain value files read by the suites: docs/PERFORMANCE.md, "warm.py against plain
expected-value files".
"""

from __future__ import annotations

import functools
import gc
import hashlib
import importlib
import importlib.util
import json
import os
import pickle
import stat
import sys
import tempfile
from operator import itemgetter
from pathlib import Path

from .. import KitError

_CACHE_TYPE = type(functools.cache(lambda: None))
_MISSING = object()
#: The engine's caches of {id(obj): (obj, ...)}: what grading derives from an argument
#: object once per process (the object held, so that its id stays its own).
IDENTITY_CACHES = (("autograder.sandbox.client", "_ENCODED"),
                   ("autograder.grading.behaviour_record", "_MEMO"))


class Memo:
    """A drop-in for a functools.cache of `function` whose entries can be read."""

    def __init__(self, function, entries: dict | None = None):
        functools.update_wrapper(self, function)
        self.function = function
        self.entries: dict = dict(entries or {})
        self.hits = self.misses = 0

    @staticmethod
    def key(args: tuple, kwargs: dict):
        # functools.cache's own rule: one int or str argument is its own key (so 3 and
        # 3.0 are two entries), anything else the tuple of the arguments.
        if not kwargs and len(args) == 1 and type(args[0]) in (int, str):
            return args[0]
        return (args, tuple(sorted(kwargs.items()))) if kwargs else args

    def __call__(self, *args, **kwargs):
        key = self.key(args, kwargs)
        found = self.entries.get(key, _MISSING)
        if found is _MISSING:
            self.misses += 1
            found = self.entries[key] = self.function(*args, **kwargs)
        else:
            self.hits += 1
        return found

    def cache_info(self):
        return functools._CacheInfo(self.hits, self.misses, None, len(self.entries))

    def cache_clear(self) -> None:
        self.entries.clear()

    def __reduce__(self):
        # Pickled by name, as a function is: a cached function inside a key (e.g. a
        # case builder given to another cached function) is the installed Memo again.
        return _module_global, (self.__module__, self.__qualname__)


def _module_global(module: str, name: str):
    return getattr(importlib.import_module(module), name)


def suite_modules(assignment) -> dict[str, object]:
    """The imported modules of `assignment`'s hidden suite: its own folder's and the shared
    ones beside it (not another assignment's)."""
    area = f"{assignment.suite_dir.parent.resolve()}{os.sep}"
    suites = {p.parent for p in assignment.suite_dir.parent.glob("*/rubric.toml")}
    others = tuple(f"{p.resolve()}{os.sep}" for p in suites
                   if p.resolve() != assignment.suite_dir.resolve())
    folders: dict[str, str] = {}      # each folder resolved once
    found = {}
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if not file:
            continue
        if os.path.islink(file):
            real = os.path.realpath(file)
        else:
            folder = os.path.dirname(file)
            if folder not in folders:
                folders[folder] = os.path.realpath(folder)
            real = os.path.join(folders[folder], os.path.basename(file))
        if real.startswith(area) and not real.startswith(others):
            found[name] = module
    return found


class WarmCaches:
    """The pytest plugin: install Memos once the suite is imported (`load` installs
    them earlier, filled with the shipped entries)."""

    def __init__(self, assignment):
        self.assignment = assignment
        self.memos: dict[tuple[str, str], Memo] = {}
        self.manifest: dict = {}    # the manifest it was loaded with (`load`)

    def pytest_collection_finish(self, session) -> None:
        self.install()

    def install(self) -> None:
        modules = suite_modules(self.assignment)
        for module_name, module in modules.items():
            for name, value in list(vars(module).items()):
                if isinstance(value, Memo) and value.__module__ == module_name:
                    self.memos.setdefault((module_name, name), value)
                if not isinstance(value, _CACHE_TYPE) or value.__module__ != module_name:
                    continue
                memo = self.memos[(module_name, name)] = Memo(value.__wrapped__)
                for other in modules.values():      # wherever the suite imported it too
                    for alias, held in list(vars(other).items()):
                        if held is value:
                            setattr(other, alias, memo)

    # ------------------------------------------------------------ at export
    def snapshot(self, checked: bool = True) -> tuple[bytes, dict]:
        """(the pickled entries, the manifest) after a warm-up. `checked`: the pickle
        is loaded once here, so that what a package ships loads (the course's cache
        does without: a file there that does not load is computed afresh)."""
        kept = {place: memo.entries for place, memo in sorted(self.memos.items())
                if memo.entries}
        left_out: dict[str, int] = {}
        try:
            data = _pickled(kept)
            if checked:
                pickle.loads(data)
        except Exception:  # noqa: BLE001 (something does not pickle: entry by entry)
            for place, entries in list(kept.items()):
                good = {key: value for key, value in entries.items() if _pickles(key, value)}
                if len(good) < len(entries):
                    left_out[":".join(place)] = len(entries) - len(good)
                kept[place] = good
            kept = {place: entries for place, entries in kept.items() if entries}
            data = _pickled(kept)
        modules = sorted({module for module, _ in kept})
        manifest = {"suite": digest(self.assignment),
                    "modules": {m: _module_hash(m) for m in modules},
                    "data": hashlib.sha256(data).hexdigest(),
                    "functions": len(kept),
                    "entries": sum(len(e) for e in kept.values()),
                    "left_out": left_out}     # computed again where they are used
        return data, manifest


def _pickled(kept: dict) -> bytes:
    return pickle.dumps({"memos": kept, "held": _held(kept)}, protocol=pickle.HIGHEST_PROTOCOL)


def _identity_caches() -> dict[str, dict]:
    return {f"{module}:{name}": getattr(importlib.import_module(module), name)
            for module, name in IDENTITY_CACHES}


def _held(kept: dict) -> dict[str, list]:
    """The identity caches' entries whose object is inside the kept entries."""
    inside = _reachable(kept)
    return {name: [entry for key, entry in cache.items()
                   if key in inside and isinstance(entry, tuple) and entry
                   and id(entry[0]) == key]
            for name, cache in _identity_caches().items()}


def _reachable(root) -> set[int]:
    """The ids of the containers and the kit's objects reachable from `root`."""
    seen, todo = set(), [root]
    while todo:
        item = todo.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, dict):
            todo.extend(item.keys())
            todo.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            todo.extend(item)
        elif type(item).__module__.startswith("autograder"):
            todo.extend(getattr(item, "__dict__", {}).values())
            todo.extend(getattr(item, slot) for slot in getattr(type(item), "__slots__", ())
                        if hasattr(item, slot))
    return seen


def _pickles(key, value) -> bool:
    try:
        pickle.loads(pickle.dumps((key, value), protocol=pickle.HIGHEST_PROTOCOL))
        return True
    except Exception:  # noqa: BLE001
        return False


def digest(assignment) -> str:
    """A digest of what decides the grades: the hidden suite, the reference and
    the assignment's manifest (its [relies_on] decides which check loses the points)."""
    files = sorted(p for p in assignment.suite_dir.rglob("*") if p.is_file()
                   and "__pycache__" not in p.parts)
    files += [assignment.solution_dir / module for module in assignment.modules]
    files += [manifest for manifest in [assignment.solution_dir / "assignment.toml"]
              if manifest.is_file()]
    hasher = hashlib.sha256()
    for path in files:
        hasher.update(str(path.relative_to(path.parents[1])).encode() + b"\0")
        hasher.update(path.read_bytes())
    return hasher.hexdigest()[:16]


def _module_hash(module_name: str) -> str:
    """The hash of a suite module's source, found as the kit it runs in finds it."""
    spec = importlib.util.find_spec(module_name)
    if spec is None or not spec.origin or not Path(spec.origin).is_file():
        return "missing"
    return hashlib.sha256(Path(spec.origin).read_bytes()).hexdigest()


# ------------------------------------------------------------ where it runs
def load(assignment, data_path: Path, manifest: dict) -> WarmCaches:
    """The plugin for a fresh process, its Memos filled with the shipped entries,
    after checking them against this kit's suite, reference and modules; KitError
    (one line) when anything changed since the export. The suite's modules are
    imported first, so that the entries unpickle with the Memos inside their keys."""
    stale = "; export the package again (autograder export), which recomputes them"
    try:
        data = data_path.read_bytes()
    except OSError as error:
        raise KitError(f"the package's precomputed expected values are missing "
                       f"({data_path.name}: {error.strerror or error}){stale}") from None
    if hashlib.sha256(data).hexdigest() != manifest.get("data"):
        raise KitError(f"the package's precomputed expected values ({data_path.name}) are "
                       f"not the ones it was exported with{stale}")
    if digest(assignment) != manifest.get("suite"):
        raise KitError(f"the package's precomputed expected values were computed for "
                       f"another hidden suite or reference of {assignment.name}{stale}")
    modules = dict(manifest.get("modules") or {})
    for module, wanted in modules.items():
        if _module_hash(module) != wanted:
            raise KitError(f"the package's precomputed expected values were computed with "
                           f"another {module}{stale}")
    from .reference import load_reference
    for module in assignment.module_names:       # values may be of the reference's own classes
        load_reference(assignment.name, module)
    warm = WarmCaches(assignment)
    try:
        for module in modules:
            importlib.import_module(module)
        warm.install()
        gc.disable()        # a million new objects, none of them garbage: no collections
        try:
            shipped = pickle.loads(data)
        finally:
            gc.enable()
    except Exception as error:  # noqa: BLE001 (hash-checked, yet not loadable here)
        raise KitError(f"the package's precomputed expected values cannot be loaded here "
                       f"({type(error).__name__}: {error}){stale}") from None
    for place, entries in shipped["memos"].items():
        memo = warm.memos.get(place)
        if memo is not None:
            memo.entries.update(entries)
    caches = _identity_caches()
    for name, entries in shipped["held"].items():
        if name in caches:
            # filed under each object's new id
            caches[name].update(zip(map(id, map(itemgetter(0), entries)), entries))
    settle()
    warm.manifest = manifest
    return warm


# Young objects are mostly decoded answers alive for a whole check (docs/PERFORMANCE.md).
YOUNG_OBJECTS = 50_000


def settle() -> None:
    """After the warm-up, before grading: everything the process holds (the warm
    caches, the reference's values) set aside from collections for good (forked
    workers then also leave those pages shared), and fewer young collections."""
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_OBJECTS, middle, old)


# ------------------------------------------------------------ the course's cache
# Bulk grading keeps each assignment's warm caches between batches, as a package ships
# them, once the reference scored full marks (docs/PERFORMANCE.md). The pickle is read
# only while the children cannot write to the teacher's files (Grader: the uid or
# landlock layer), from a folder only this user may write, checked like a package's.
CACHE_ENV = "SPIELBAUM_CACHE"


def cache_folder() -> Path | None:
    """SPIELBAUM_CACHE (a folder, or "off"), else $XDG_CACHE_HOME/spielbaum or
    ~/.cache/spielbaum; None when off, or when the folder is not safely this user's
    alone (a link, another owner, writable by others)."""
    setting = os.environ.get(CACHE_ENV, "")
    if setting.strip().lower() in ("off", "0", "no", "false"):
        return None
    try:
        if setting:
            folder = Path(setting)
        else:
            base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
            folder = Path(base) / "spielbaum"
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        found = os.lstat(folder)
    except (OSError, RuntimeError):         # RuntimeError: no home folder to be found
        return None
    if not stat.S_ISDIR(found.st_mode) or found.st_uid != os.geteuid() \
            or found.st_mode & 0o022:
        return None
    return folder


@functools.cache
def kit_digest() -> str:
    """The kit's own code and this Python: what the cached objects are made of."""
    return code_digest(Path(__file__).resolve().parent.parent)


def code_digest(root: Path) -> str:
    """A digest of this Python's version and every .py file under `root`."""
    hasher = hashlib.sha256(sys.version.encode())
    for path in sorted(root.rglob("*.py")):
        if "__pycache__" not in path.parts:
            hasher.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return hasher.hexdigest()[:16]


def _cache_paths(assignment, folder: Path) -> tuple[Path, Path]:
    return folder / f"{assignment.name}.pickle", folder / f"{assignment.name}.json"


def from_cache(assignment, folder: Path) -> WarmCaches | None:
    """The plugin with `assignment`'s values loaded from the cache, or None when there
    are none or they do not fit this kit, suite and reference (computed afresh)."""
    data_path, manifest_path = _cache_paths(assignment, folder)
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(manifest, dict) or manifest.get("kit") != kit_digest():
        return None
    try:
        return load(assignment, data_path, manifest)
    except KitError:
        return None


#: The manifest's note of a full pass: the sandbox layers the reference scored full
#: marks with (the kit, suite and reference are the manifest's digests).
PASSED = "reference_full_marks_with_layers"


def passed_before(caches: WarmCaches | None, layers: list[str]) -> bool:
    """Whether the reference scored full marks in full, with this kit, suite and
    reference (the cache's digests) and these sandbox layers, when `caches` were kept."""
    return caches is not None and caches.manifest.get(PASSED) == sorted(layers)


def to_cache(assignment, caches: WarmCaches, folder: Path, layers: list[str]) -> bool:
    """Keep the values a warm-up computed, after the reference scored full marks with
    `layers` (each file written whole, then renamed into place); False if they could
    not be kept: a cache never stops a batch."""
    try:
        data, manifest = caches.snapshot(checked=False)
    except Exception:  # noqa: BLE001 (values that will not pickle: computed next time)
        return False
    manifest["kit"] = kit_digest()
    manifest[PASSED] = sorted(layers)
    return _write(assignment, folder, data, manifest)


def remember_pass(assignment, caches: WarmCaches, folder: Path, layers: list[str]) -> bool:
    """The reference scored full marks in full with `layers` and values taken from the
    cache: say so in the cache's manifest (its data stays as it is)."""
    manifest = dict(caches.manifest, **{PASSED: sorted(layers)})
    return _write(assignment, folder, None, manifest)


def _write(assignment, folder: Path, data: bytes | None, manifest: dict) -> bool:
    data_path, manifest_path = _cache_paths(assignment, folder)
    files = ([] if data is None else [(data_path, data)]) + \
        [(manifest_path, json.dumps(manifest).encode())]
    try:
        for path, content in files:
            handle, temporary = tempfile.mkstemp(dir=folder, prefix=".new-")
            try:
                with os.fdopen(handle, "wb") as out:
                    out.write(content)
                os.replace(temporary, path)
            except BaseException:
                os.unlink(temporary)
                raise
    except OSError:
        return False
    return True

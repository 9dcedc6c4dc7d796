"""Reviewed equivalent mutants: autograder/suites/<a>/equivalent_mutants.toml
(docs/MUTATION.md, "The allowlist"). An entry names its mutant by the line's text,
the operator and the occurrence of that pair in the module, never by a line number,
so it keeps matching when lines above it move.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from pathlib import Path

from .. import KitError

FILE_NAME = "equivalent_mutants.toml"
KEYS = {"line", "operator", "occurrence", "module", "mutated", "reason"}


@dataclass(frozen=True)
class Entry:
    module: str
    line: str
    operator: str
    occurrence: int
    mutated: str | None
    reason: str

    @property
    def key(self) -> tuple[str, str, str, int]:
        return (self.module, self.line, self.operator, self.occurrence)


def load(path: Path, modules: tuple[str, ...]) -> list[Entry]:
    """The entries of `path` (none if it does not exist); errors name the entry."""
    if not path.is_file():
        return []
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise KitError(f"{path}: {error}") from None
    unknown_tables = set(data) - {"equivalent"}
    if unknown_tables:
        raise KitError(f"{path}: unknown tables {sorted(unknown_tables)} "
                       "(only [[equivalent]] entries belong here)")
    entries = []
    for number, raw in enumerate(data.get("equivalent", []), start=1):
        where = f"{path}: entry {number}"
        unknown = set(raw) - KEYS
        if unknown:
            raise KitError(f"{where}: unknown keys {sorted(unknown)} (known: {sorted(KEYS)})")
        for key in ("line", "operator", "reason"):
            if not isinstance(raw.get(key), str) or not raw[key].strip():
                raise KitError(f"{where}: `{key}` is missing or empty")
        if raw["reason"].strip().upper().startswith("TODO"):
            raise KitError(f"{where}: the reason is still a TODO; review the mutant first")
        module = raw.get("module", modules[0] if len(modules) == 1 else None)
        if module not in modules:
            raise KitError(f"{where}: `module` must be one of {list(modules)}")
        occurrence = raw.get("occurrence", 0)
        if not isinstance(occurrence, int) or occurrence < 0:
            raise KitError(f"{where}: `occurrence` must be a whole number from 0")
        entries.append(Entry(module, " ".join(raw["line"].split()), raw["operator"],
                             occurrence, raw.get("mutated"), raw["reason"].strip()))
    keys = [entry.key for entry in entries]
    doubled = {key for key in keys if keys.count(key) > 1}
    if doubled:
        raise KitError(f"{path}: listed twice: {sorted(doubled)[0]}")
    return entries


def match(entries: list[Entry], population: list, path: Path
          ) -> tuple[dict[tuple, Entry], list[Entry]]:
    """The entries by mutant key, and the stale ones that match no mutant (for the
    report). An entry whose `mutated` text no longer fits its mutant is an error:
    the line changed meaning and the entry must be reviewed again."""
    by_key = {mutant.key: mutant for mutant in population}
    matched, stale = {}, []
    for entry in entries:
        mutant = by_key.get(entry.key)
        if mutant is None:
            stale.append(entry)
            continue
        if entry.mutated is not None and " ".join(entry.mutated.split()) != mutant.mutated:
            raise KitError(f"{path}: the entry for {entry.line!r} ({entry.operator}) says the "
                           f"mutant reads {entry.mutated!r}, but it reads {mutant.mutated!r}; "
                           "review it again")
        matched[entry.key] = entry
    return matched, stale


def toml_entry(mutant) -> str:
    """A ready-to-paste entry for a survivor the teacher judges equivalent."""
    def quoted(text: str) -> str:       # a JSON string is a TOML basic string
        return json.dumps(text, ensure_ascii=False)
    return "\n".join([
        "[[equivalent]]",
        f"module = {quoted(mutant.module)}",
        f"line = {quoted(mutant.original)}",
        f"operator = {quoted(mutant.operator)}",
        f"occurrence = {mutant.occurrence}",
        f"mutated = {quoted(mutant.mutated)}",
        'reason = "TODO: why no correct test can tell this mutant from the reference"'])

"""The record of finished work a killed run resumes from: one JSON-lines file in OUT.

The run's settings are on its first line, then one entry per finished item, on disk
(fsync) as it arrives: neither a SIGKILL nor a power cut loses an entry the file
already holds. A line the kill cut short ends what is read, and the next run rewrites
the file without it before it appends, so no entry is ever glued to a torn one. Used
by grading and mutation on a cluster (grading/cluster.py) and by tournaments.
"""

from __future__ import annotations

import json
import os
from pathlib import Path


class Journal:
    """The journal at `path` of a run with `settings`."""

    def __init__(self, path: Path, settings: dict):
        self.path, self.settings = path, settings
        self._handle = None

    def read(self) -> list:
        """Every whole line on file, the settings of its run first ([] without a file)."""
        try:
            lines = self.path.read_text(encoding="utf-8").split("\n")
        except OSError:
            return []
        found = []
        for line in lines:
            try:
                found.append(json.loads(line))
            except ValueError:
                break       # torn by the kill (or the empty string after the last newline)
        return found

    def entries(self) -> list[dict]:
        """The finished entries of a run with these settings, or none."""
        found = self.read()
        if not found or found[0] != self.settings:
            return []
        return [entry for entry in found[1:] if isinstance(entry, dict)]

    def start(self, keep: bool) -> "Journal":
        """Open for appending: the kept entries (keep) or none after the settings."""
        kept = self.entries() if keep else []
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fresh = self.path.with_name(self.path.name + ".new")
        self._handle = fresh.open("w", encoding="utf-8")
        self.add(self.settings, *kept)
        fresh.replace(self.path)        # the handle writes on, under the journal's name
        return self

    def add(self, *entries: dict) -> None:
        self._handle.writelines(json.dumps(entry) + "\n" for entry in entries)
        self._handle.flush()
        os.fsync(self._handle.fileno())

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None

"""The tournament's memory: its journal in OUT (grading/journal.py), written as games finish.

Each finished game is on disk the moment its record arrives, and so are the
pairings of every round before its first game starts. Started again with the same
OUT, the same tournament (settings and players' code) plays only what is missing,
its pairings read back, never recomputed.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from .. import KitError
from ..grading.journal import Journal
from .pairing import Pairing

FILE = "tournament.jsonl"


class Store:
    def __init__(self, out: Path):
        self.path = out / FILE
        self.session = None
        self._journal = None
        self._pairings: list[Pairing] = []
        self._games: dict[tuple, dict] = {}

    def close(self) -> None:
        if self._journal is not None:
            self._journal.close()

    def begin(self, settings: dict) -> int:
        """Check `settings` against a tournament already here (or start one); start a
        session; return how many games are already played."""
        journal = Journal(self.path, settings)
        recorded = (journal.read() or [settings])[0]
        if recorded != settings:
            recorded = recorded if isinstance(recorded, dict) else {}
            changed = sorted(k for k in set(recorded) | set(settings)
                             if recorded.get(k) != settings.get(k))
            raise KitError(f"{self.path.parent} holds another tournament (it differs in: "
                           f"{', '.join(changed)}): use another --out, or delete "
                           f"{self.path} to start over")
        entries = journal.entries()
        self._pairings = [Pairing(*e["pairing"][:4], tuple(e["pairing"][4]))
                          for e in entries if "pairing" in e]
        self._games = {tuple(e["game"]["key"]): e["game"] for e in entries if "game" in e}
        self.session = 1 + max((e["session"] for e in entries if "session" in e), default=0)
        self._journal = journal.start(keep=True)
        self._journal.add({"session": self.session, "started": time.time(),
                           "games_before": self.count()})
        return self.count()

    def pairings(self, round_: int | None = None) -> list[Pairing]:
        """The pairings of one round, or (None) of every round, in schedule order."""
        return sorted((p for p in self._pairings if round_ in (None, p.round)),
                      key=lambda p: (p.round, p.slot))

    def save_pairings(self, pairings: list[Pairing]) -> None:
        self._journal.add(*({"pairing": [p.round, p.slot, p.a, p.b, list(p.opening)]}
                            for p in pairings))
        self._pairings += pairings

    def save_game(self, record: dict) -> None:
        key = tuple(record["key"])
        if key in self._games:
            raise KitError(f"game {key} is stored already")
        self._journal.add({"game": record, "session": self.session, "finished": time.time()})
        self._games[key] = json.loads(json.dumps(record))     # as a resumed run reads it

    def played(self) -> set[tuple[int, int, int]]:
        return set(self._games)

    def games(self) -> list[dict]:
        """Every game's record, in schedule order (round, slot, leg)."""
        return [self._games[key] for key in sorted(self._games)]

    def count(self) -> int:
        return len(self._games)

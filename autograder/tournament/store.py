"""The tournament's memory: one SQLite file in OUT, written as games finish.

Each finished game is committed the moment its record arrives (synchronous=FULL,
so a SIGKILL, or a power cut, never loses a game the file already reported);
so are the pairings of every round before its first game starts. Started again
with the same OUT, the tournament checks that it is the same tournament (same
settings and the same players' code), replays nothing it has, and plays only
what is missing. A Swiss round's pairings are read back, never recomputed, so a
resumed run pairs exactly as an uninterrupted one did.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

from .. import KitError
from .pairing import Pairing

FILE = "tournament.sqlite"
SCHEMA = """
CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (id INTEGER PRIMARY KEY, started REAL NOT NULL,
                                     games_before INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS pairings (round INTEGER, slot INTEGER, a TEXT NOT NULL, b TEXT,
                                     opening TEXT NOT NULL, PRIMARY KEY (round, slot));
CREATE TABLE IF NOT EXISTS games (round INTEGER, slot INTEGER, leg INTEGER,
                                  record TEXT NOT NULL, session INTEGER NOT NULL,
                                  finished REAL NOT NULL, PRIMARY KEY (round, slot, leg));
"""


class Store:
    def __init__(self, out: Path):
        out.mkdir(parents=True, exist_ok=True)
        self.path = out / FILE
        self.db = sqlite3.connect(self.path, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.executescript(SCHEMA)
        self.session = None

    def close(self) -> None:
        self.db.close()

    # ------------------------------------------------------------ settings
    def begin(self, settings: dict) -> int:
        """Record `settings` (or check them against a tournament already here);
        start a session; return how many games are already played."""
        rows = dict(self.db.execute("SELECT key, value FROM settings"))
        wanted = {key: json.dumps(value, sort_keys=True) for key, value in settings.items()}
        if rows and rows != wanted:
            changed = sorted(k for k in set(rows) | set(wanted) if rows.get(k) != wanted.get(k))
            raise KitError(f"{self.path.parent} holds another tournament (it differs in: "
                           f"{', '.join(changed)}): use another --out, or delete "
                           f"{self.path} to start over")
        played = self.count()
        with self.db:
            if not rows:
                self.db.executemany("INSERT INTO settings VALUES (?, ?)", wanted.items())
            cursor = self.db.execute("INSERT INTO sessions (started, games_before) VALUES (?, ?)",
                                     (time.time(), played))
            self.session = cursor.lastrowid
        return played

    # ------------------------------------------------------------ pairings
    def pairings(self, round_: int | None = None) -> list[Pairing]:
        """The pairings of one round, or (None) of every round, in schedule order."""
        where, given = ("WHERE round = ? ", (round_,)) if round_ is not None else ("", ())
        rows = self.db.execute(f"SELECT round, slot, a, b, opening FROM pairings {where}"
                               "ORDER BY round, slot", given)
        return [Pairing(r, s, a, b, tuple(json.loads(o))) for r, s, a, b, o in rows]

    def save_pairings(self, pairings: list[Pairing]) -> None:
        with self.db:
            self.db.executemany("INSERT INTO pairings VALUES (?, ?, ?, ?, ?)",
                                [(p.round, p.slot, p.a, p.b, json.dumps(list(p.opening)))
                                 for p in pairings])

    # ------------------------------------------------------------ games
    def save_game(self, record: dict) -> None:
        round_, slot, leg = record["key"]
        with self.db:
            self.db.execute("INSERT INTO games VALUES (?, ?, ?, ?, ?, ?)",
                            (round_, slot, leg, json.dumps(record), self.session, time.time()))

    def played(self) -> set[tuple[int, int, int]]:
        return {tuple(row) for row in self.db.execute("SELECT round, slot, leg FROM games")}

    def games(self) -> list[dict]:
        """Every game's record, in schedule order (round, slot, leg)."""
        rows = self.db.execute("SELECT record FROM games ORDER BY round, slot, leg")
        return [json.loads(row[0]) for row in rows]

    def count(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM games").fetchone()[0]

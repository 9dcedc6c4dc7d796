"""Who plays: the bundled players and one player per student folder.

A player travels to wherever its games run (a local worker or a Dask worker on
another machine) as plain data: its name, the bytes of its module files and how
it is asked for a move. The worker puts the files into a sandbox scratch folder
with the grader's own machinery (grading/intake.py), so a player is exactly what
`autograder grade` would grade: the declared modules, nothing else, read with the
grader's caps (a module over MAX_BYTES, or one with a NUL byte, is not entered, and
says why).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from .. import KitError
from ..grading import intake
from .manifest import Ask, Tournament

#: Bundled players' names start with this: a student folder's name cannot hold a "/".
BUNDLED = "bundled/"


@dataclass(frozen=True)
class Entrant:
    name: str
    files: tuple[tuple[str, bytes], ...]   # (file name, content) of every module
    ask: Ask
    depth: int | None                      # a fixed search depth, or None: the clock
    bundled: bool = False

    @property
    def digest(self) -> str:
        """What the player is: its code and how it is asked (resuming checks it)."""
        hasher = hashlib.sha256(repr((self.ask.as_dict(), self.depth)).encode())
        for name, content in self.files:
            hasher.update(name.encode() + b"\0" + content)
        return hasher.hexdigest()[:16]

    def as_spec(self) -> dict:
        return {"name": self.name, "files": dict(self.files), "ask": self.ask.as_dict(),
                "depth": self.depth}


def bundled(assignment, config: Tournament, wanted: list[str] | None) -> list[Entrant]:
    """The manifest's bundled players (only those named in `wanted`, if given)."""
    known = {player.name for player in config.players}
    unknown = set(wanted or ()) - known
    if unknown:
        raise KitError(f"no bundled player named {', '.join(sorted(unknown))} "
                       f"(known: {', '.join(sorted(known)) or 'none'})")
    chosen = []
    for player in config.players:
        if wanted is not None and player.name not in wanted:
            continue
        files = []
        for name in player.files:
            path = assignment.solution_dir / name
            if not path.is_file():
                raise KitError(f"bundled player {player.name}: {path} is missing")
            files.append((name, path.read_bytes()))
        ask = player.ask or config.ask_for(player.depth)
        chosen.append(Entrant(BUNDLED + player.name, tuple(files), ask, player.depth, True))
    return chosen


def students(assignment, config: Tournament, submissions: Path,
             depth: int | None) -> tuple[list[Entrant], dict[str, str]]:
    """One player per student folder, and {student: why not entered} for folders
    without exactly one copy of the modules (a module that does not import still
    plays, and loses its games)."""
    ask = config.ask_for(depth)
    entered, left_out = [], {}
    found = intake.survey(submissions)
    for name, why in found.refused:
        left_out[name] = f"not a usable student id: the name {why}"
    left_out.update(found.others)
    for folder in found.folders:
        prepared, _status, problem = intake.prepare(folder, assignment.modules)
        if prepared is None:
            left_out[folder.name] = problem
            continue
        entered.append(Entrant(folder.name, tuple(prepared.modules.items()), ask, depth))
    return entered, left_out

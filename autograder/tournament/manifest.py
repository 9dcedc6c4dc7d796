"""The `[tournament]` table of an assignment's manifest: the referee, how a player is
asked for a move (a call with "{position}", "{player}", "{budget}" or "{depth}"
placeholders) and the bundled players. The format, and how the budget reaches a
player, are in docs/TOURNAMENT.md ("Adding a game"); solutions/connect4/assignment.toml
is an example.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field

from .. import KitError

PLACEHOLDERS = ("{position}", "{player}", "{budget}", "{depth}")


@dataclass(frozen=True)
class Ask:
    """How to ask a player for a move."""
    call: str
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    answer: int | None = None

    def uses(self, placeholder: str) -> bool:
        return placeholder in self.args or placeholder in self.kwargs.values()

    def filled(self, values: dict) -> tuple[list, dict]:
        """The call's arguments with the placeholders replaced by `values`."""
        def fill(item):
            if type(item) is str and item in PLACEHOLDERS:
                return values[item[1:-1]]
            return item
        return [fill(a) for a in self.args], {k: fill(v) for k, v in self.kwargs.items()}

    def as_dict(self) -> dict:
        return {"call": self.call, "args": list(self.args), "kwargs": dict(self.kwargs),
                "answer": self.answer}


@dataclass(frozen=True)
class Bundled:
    name: str
    files: tuple[str, ...]
    ask: Ask | None          # None: the assignment's own ask
    depth: int | None


@dataclass(frozen=True)
class Tournament:
    referee: str             # module name of the trusted referee
    ask: Ask
    ask_depth: Ask | None
    move_time: float
    players: tuple[Bundled, ...]

    def load_referee(self):
        try:
            return importlib.import_module(self.referee)
        except ImportError as error:
            raise KitError(f"the referee {self.referee} cannot be imported: {error}") from None

    def ask_for(self, depth: int | None) -> Ask:
        """The ask for a player searching `depth` deep (None: against the clock)."""
        if depth is None:
            return self.ask
        chosen = self.ask_depth or self.ask
        if not chosen.uses("{depth}"):
            raise KitError("this assignment's [tournament] has no ask with \"{depth}\": "
                           "it cannot play at a fixed depth")
        return chosen


def _ask(data, where: str) -> Ask:
    if not isinstance(data, dict) or not isinstance(data.get("call"), str) \
            or "." not in data["call"]:
        raise KitError(f"{where}: an ask needs call = \"module.function\"")
    answer = data.get("answer")
    if answer is not None and type(answer) is not int:
        raise KitError(f"{where}: answer must be an index (a whole number)")
    return Ask(data["call"], tuple(data.get("args", ())), dict(data.get("kwargs", {})), answer)


def load(assignment) -> Tournament:
    """The [tournament] table of `assignment` (an Assignment); KitError if it has none."""
    where = f"solutions/{assignment.name}/assignment.toml [tournament]"
    data = assignment.extra.get("tournament")
    if not isinstance(data, dict):
        raise KitError(f"assignment {assignment.name!r} has no [tournament] table in its "
                       "assignment.toml: its players cannot be asked for moves")
    if not isinstance(data.get("referee"), str):
        raise KitError(f"{where}: referee = \"module\" is missing")
    players = []
    for entry in data.get("players", []):
        name = entry.get("name")
        if not isinstance(name, str) or not entry.get("files"):
            raise KitError(f"{where}: every bundled player needs a name and files")
        own = _ask(entry["ask"], f"{where} player {name}") if "ask" in entry else None
        depth = entry.get("depth")
        if own is None and depth is None:
            raise KitError(f"{where}: bundled player {name} needs an ask or a depth")
        players.append(Bundled(name, tuple(entry["files"]), own, depth))
    return Tournament(referee=data["referee"], ask=_ask(data.get("ask"), where),
                      ask_depth=_ask(data["ask_depth"], where) if "ask_depth" in data
                      else None,
                      move_time=float(data.get("move_time", 1.0)), players=tuple(players))

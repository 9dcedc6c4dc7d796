"""What a tournament leaves in OUT: standings.csv, games.jsonl, tournament.html.

tournament.html is one self-contained file: the standings, a ratings plot and a
head-to-head heat map (static PNGs, also written beside it), the head-to-head table
for small classes, and a replay viewer drawing every game from the referee's BOARD
description and the frames it computes by replaying the moves: the page knows no game.

Everything a player controls (names, exception messages in the reasons) goes
through autograder/outputs/: escaped in the page, neutralised in standings.csv,
writable in games.jsonl, drawn as plain text in the plots (a name with `$...$`
is no mathtext); the replay data sits in a JSON script block that cannot be
closed early.
"""

from __future__ import annotations

import base64
import io
from pathlib import Path

import jinja2

from ..outputs import html, jsondata, pages, plot, spreadsheet
from .ratings import Row, head_to_head

STANDINGS_FIELDS = ["rank", "player", "bundled", "points", "games", "wins", "draws", "losses",
                    "byes", "score", "mu", "sigma", "ordinal", "lost_by_failure", "failures"]
#: Up to this many players the page also shows the head-to-head matrix as a table,
#: and the heat map names every row and column.
TABLE_LIMIT = 40
_TEMPLATES = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).with_name("templates")),
    autoescape=True, trim_blocks=True, lstrip_blocks=True, finalize=html.finalize)
_TEMPLATES.globals["page_style"] = pages.style()     # the look every page shares


def result_text(score) -> str:
    return {1.0: "1-0", 0.0: "0-1", 0.5: "½-½"}.get(score, "no game")


def game_id(key) -> str:
    round_, slot, leg = key
    return f"r{round_}-{slot + 1}{'ab'[leg]}"


def write(out: Path, referee, summary: dict, rows: list[Row], games: list[dict],
          pairings) -> None:
    out.mkdir(parents=True, exist_ok=True)
    write_standings(out / "standings.csv", rows)
    write_games(out / "games.jsonl", games, referee)
    images = {"ratings": ratings_plot(rows), "h2h": heat_map(rows, games)}
    for name, png in images.items():
        (out / f"{name}.png").write_bytes(png)
    h2h = head_to_head(games)
    order = [row.name for row in rows]
    page = _TEMPLATES.get_template("tournament.html.j2").render(
        summary=summary, rows=rows, games=[_game_row(g) for g in games],
        images={k: base64.b64encode(v).decode() for k, v in images.items()},
        matrix=_matrix(order, h2h) if len(order) <= TABLE_LIMIT else None,
        order=order, byes=[p.a for p in pairings if p.b is None],
        board=html.script_json(referee.BOARD), sides=list(referee.SIDES),
        replays=html.script_json([_replay(g, referee) for g in games]))
    (out / "tournament.html").write_text(page, encoding="utf-8")


def write_standings(path: Path, rows: list[Row]) -> None:
    spreadsheet.write(path, STANDINGS_FIELDS, ({
        "rank": row.rank, "player": row.name, "bundled": int(row.bundled),
        "points": f"{row.points:g}", "games": row.games, "wins": row.wins,
        "draws": row.draws, "losses": row.losses, "byes": row.byes,
        "score": f"{row.score:.3f}", "mu": f"{row.mu:.3f}",
        "sigma": f"{row.sigma:.3f}", "ordinal": f"{row.ordinal:.3f}",
        "lost_by_failure": row.forfeits,
        "failures": " ".join(f"{k}:{v}" for k, v in sorted(row.failures.items()))}
        for row in rows))


def write_games(path: Path, games: list[dict], referee) -> None:
    """One line per game, in schedule order: who, the opening, every move with the
    seconds it took (and the depth reached), the result and why."""
    with path.open("w", encoding="utf-8") as handle:
        for record in games:
            line = {"game": game_id(record["key"]), "round": record["key"][0],
                    "players": dict(zip(referee.SIDES, record["players"])),
                    "opening": record["opening"],
                    "moves": [dict(m, by=record["players"][m["by"]]) for m in record["moves"]],
                    "result": result_text(record["score"]), "score": record["score"],
                    "reason": record["reason"], "failure": record["failure"],
                    "refused": record.get("notes", {}), "seconds": record.get("seconds"),
                    "start_seconds": record.get("start_seconds"),
                    "worker": record.get("worker"), "sandbox": record.get("layers")}
            handle.write(jsondata.dumps(line) + "\n")


# ------------------------------------------------------------ the page's data
def _game_row(record: dict) -> dict:
    return {"id": game_id(record["key"]), "round": record["key"][0],
            "players": record["players"], "result": result_text(record["score"]),
            "reason": record["reason"],
            # the replay counts the opening's moves too: so does the table
            "moves": len(record["opening"]) + len(record["moves"]),
            "opening": len(record["opening"])}


def _replay(record: dict, referee) -> dict:
    """The frames of one game, replayed by the referee from the record."""
    game = referee.Game()
    frames = [game.frame()]
    for move in record["opening"]:
        game.play_move(move)
        frames.append(game.frame())
    for move in record["moves"]:
        game.play_move(move["move"])
        frames.append(game.frame())
    thought = [None] * (len(record["opening"]) + 1) + [
        [m["by"], m["seconds"], m.get("depth")] for m in record["moves"]]
    return {"id": game_id(record["key"]), "players": record["players"],
            "opening": len(record["opening"]), "result": result_text(record["score"]),
            "reason": record["reason"],
            "frames": [[f["cells"], f["mark"], f["note"]] for f in frames],
            "thought": thought}


def _matrix(order: list[str], h2h: dict) -> list[list[str]]:
    cells = []
    for a in order:
        line = []
        for b in order:
            points, games = h2h.get((a, b), (0.0, 0))
            line.append(f"{points:g}/{games}" if games else ("" if a != b else "—"))
        cells.append(line)
    return cells


# ------------------------------------------------------------ the images
def _figure(width: float, height: float):
    """A matplotlib figure of its own (no pyplot: no global state, no GUI backend)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    figure = Figure(figsize=(width, height), dpi=90)
    FigureCanvasAgg(figure)
    return figure, figure.add_subplot()


def _figure_bytes(figure) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", bbox_inches="tight", metadata={"Software": None})
    return buffer.getvalue()


def ratings_plot(rows: list[Row]) -> bytes:
    """Each player's rating mu with a bar of mu ± 3 sigma: the bar's left end is
    the conservative rating (the ordinal). Bundled players in grey."""
    ordered = sorted(rows, key=lambda r: r.mu)
    figure, axes = _figure(8, max(2.5, 0.24 * len(ordered) + 1.0))
    positions = range(len(ordered))
    for bundled, colour in ((False, "#1f6fb4"), (True, "#888888")):
        chosen = [(y, r) for y, r in enumerate(ordered) if r.bundled == bundled]
        if chosen:
            axes.errorbar([r.mu for _, r in chosen], [y for y, _ in chosen],
                          xerr=[3 * r.sigma for _, r in chosen], fmt="o", color=colour,
                          markersize=5, elinewidth=2, capsize=3)
    axes.set_yticks(list(positions), [plot.label(r.name) for r in ordered],
                    fontsize=9 if len(ordered) <= 60 else 6)
    axes.set_xlabel("rating mu; bars: mu ± 3 sigma (left end: the conservative rating)")
    axes.set_title("Ratings (openskill, Plackett-Luce); grey: bundled players")
    axes.grid(axis="x", alpha=0.3)
    return _figure_bytes(figure)


def heat_map(rows: list[Row], games: list[dict]) -> bytes:
    """Share of the points each row player took from each column player."""
    import matplotlib
    import numpy
    order = [r.name for r in rows]
    index = {name: i for i, name in enumerate(order)}
    grid = numpy.full((len(order), len(order)), numpy.nan)
    for (a, b), (points, count) in head_to_head(games).items():
        grid[index[a], index[b]] = points / count
    size = min(16.0, max(4.0, 0.32 * len(order) + 2))
    figure, axes = _figure(size, size * 0.85)
    colours = matplotlib.colormaps["RdYlGn"].with_extremes(bad="#eeeeee")
    image = axes.imshow(grid, cmap=colours, vmin=0, vmax=1)
    if len(order) <= TABLE_LIMIT:
        labels = [plot.label(name) for name in order]
        axes.set_xticks(range(len(order)), labels, rotation=90, fontsize=8)
        axes.set_yticks(range(len(order)), labels, fontsize=8)
    else:
        axes.set_xticks([])
        axes.set_yticks([])
        axes.set_xlabel("players in standings order (left to right, top to bottom)")
    figure.colorbar(image, ax=axes, fraction=0.046, pad=0.04,
                    label="share of the points the row player took (grey: did not meet)")
    axes.set_title("Head to head (rows against columns, in standings order)")
    return _figure_bytes(figure)

"""A search on a game tree, drawn: the handout's rule and the student's search side by side.

A check attaches a *picture* to its failure (`CheckFailed(..., picture=...)`): plain,
JSON-able data that travels like the rest of a verdict, drawn here as inline SVG for
the feedback pages. The contract, the bounds and what a hidden check withholds are
in docs/SUITES.md, "The picture contract": `normalized` checks a picture against it,
`kept` drops one that breaks it, so a faulty picture costs its drawing, never the
verdict. Everything is generated here: no script, no external resource; it prints.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass, field

from .text import shortened, visible

KIND = "search-tree"
MAX_NODES_KEPT = 2000
MAX_CALLS_KEPT = 5000
MAX_NODES_DRAWN = 63
MAX_LABEL = 40          # characters kept of a label or a result
MAX_CAPTION = 200       # characters kept of the caption
CALL_KINDS = ("expand", "evaluate")
SEARCHES = ("rule", "student")

# Geometry (SVG user units, about pixels at full size).
SLOT, LEVEL, MARGIN_X, TOP, BOTTOM = 48, 72, 26, 46, 30
# A drawing shrinks to fit the page down to this share of its size (its smallest words stay
# about 8 px); a wider one scrolls in its own box (outputs/pages.py) and prints whole.
MIN_SCALE = 0.85
WIDE_SLOT = 84          # a leaf's slot when windows are written under leaves ("α −∞, β 3")
RADIUS, HALF_LEAF = 15, 14

INK, GREY, GREY_FILL, BLUE, RED, ORANGE, AMBER = (
    "#1b1b1b", "#a8a8a8", "#efefef", "#1f4e8c", "#b3261e", "#b85c00", "#ffe2a8")


class PictureError(ValueError):
    """A picture that breaks the contract (docs/SUITES.md, "The picture contract")."""


# ------------------------------------------------------------------ the contract
def _number(value, where: str):
    if isinstance(value, str) and value in ("inf", "-inf"):
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise PictureError(f"{where}: {shortened(repr(value), 40)} is not a number")
    if isinstance(value, float):
        if math.isnan(value):
            raise PictureError(f"{where}: NaN is not a value")
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
    return value


def _text(value, where: str, limit: int = MAX_LABEL) -> str:
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        raise PictureError(f"{where}: a label or result is a string or a number")
    return shortened(visible(value, lines=False), limit)


def _search(data, ids: set, where: str) -> dict:
    if not isinstance(data, dict):
        raise PictureError(f"{where}: a search is an object with its calls")
    calls = data.get("calls")
    if not isinstance(calls, list) or len(calls) > MAX_CALLS_KEPT:
        raise PictureError(f"{where}.calls: a list of at most {MAX_CALLS_KEPT} calls")
    kept = {"calls": []}
    for index, call in enumerate(calls):
        if (not isinstance(call, (list, tuple)) or len(call) != 2 or call[0] not in CALL_KINDS
                or call[1] not in ids):
            raise PictureError(f"{where}.calls[{index}]: [\"expand\" or \"evaluate\", a node id]")
        kept["calls"].append([call[0], call[1]])
    if data.get("result") is not None:
        kept["result"] = (_number(data["result"], f"{where}.result")
                          if not isinstance(data["result"], str)
                          else _text(data["result"], f"{where}.result"))
    for key in ("values", "windows"):
        given = data.get(key) or {}
        if not isinstance(given, dict) or set(given) - ids:
            raise PictureError(f"{where}.{key}: an object from node ids")
        if key == "values":
            kept[key] = {node: _number(v, f"{where}.values") for node, v in given.items()}
        else:
            kept[key] = {}
            for node, window in given.items():
                if not isinstance(window, (list, tuple)) or len(window) != 2:
                    raise PictureError(f"{where}.windows: [alpha, beta] for each node")
                kept[key][node] = [_number(w, f"{where}.windows") for w in window]
    return kept


def normalized(picture) -> dict:
    """The picture as it is kept: checked against the contract, student text made
    visible and shortened, infinities as strings. Raises PictureError."""
    if not isinstance(picture, dict) or picture.get("kind") != KIND:
        raise PictureError(f"a picture is an object with \"kind\": \"{KIND}\"")
    nodes = picture.get("nodes")
    if not isinstance(nodes, list) or not nodes or len(nodes) > MAX_NODES_KEPT:
        raise PictureError(f"nodes: a list of 1 to {MAX_NODES_KEPT} nodes")
    kept_nodes, ids = [], set()
    for index, node in enumerate(nodes):
        if not isinstance(node, dict) or not isinstance(node.get("id"), str) \
                or node["id"] in ids:
            raise PictureError(f"nodes[{index}]: each node has an id of its own (a string)")
        ids.add(node["id"])
        kept = {"id": node["id"], "parent": node.get("parent"),
                "label": _text(node.get("label", node["id"]), f"nodes[{index}].label")}
        if node.get("value") is not None:
            kept["value"] = _number(node["value"], f"nodes[{index}].value")
        kept_nodes.append(kept)
    roots = [n for n in kept_nodes if n["parent"] is None]
    if len(roots) != 1:
        raise PictureError("nodes: exactly one node has no parent (the root)")
    if any(n["parent"] is not None and n["parent"] not in ids for n in kept_nodes):
        raise PictureError("nodes: every parent is a node of the picture")
    if len(_depths(kept_nodes)) != len(kept_nodes):
        raise PictureError("nodes: every node is reachable from the root (a tree)")
    max_to_move = picture.get("max_to_move", True)
    if not isinstance(max_to_move, bool):
        raise PictureError("max_to_move: true or false")
    cut = picture.get("cut") or []
    if not isinstance(cut, list) or set(cut) - ids:
        raise PictureError("cut: a list of node ids")
    kept = {"kind": KIND, "nodes": kept_nodes, "max_to_move": max_to_move,
            "rule": _search(picture.get("rule"), ids, "rule"),
            "student": _search(picture.get("student"), ids, "student"), "cut": list(cut)}
    if picture.get("caption"):
        kept["caption"] = _text(picture["caption"], "caption", MAX_CAPTION)
    split = picture.get("first_difference")
    if split is not None:
        if isinstance(split, bool) or not isinstance(split, int) \
                or not 0 <= split <= len(kept["student"]["calls"]) or kept["rule"]["calls"]:
            raise PictureError("first_difference: the index of a student's call, given only "
                               "where the rule's calls are withheld")
        kept["first_difference"] = split
    return kept


def withheld(picture: dict) -> dict:
    """A kept picture without what the rule does (its calls, cuts, values, windows
    and result): the student's search and where it first departs from the rule."""
    if is_withheld(picture):
        return picture
    split = first_difference(picture["rule"]["calls"], picture["student"]["calls"])
    made = dict(picture, rule={"calls": [], "values": {}, "windows": {}}, cut=[])
    made.pop("first_difference", None)
    if split is not None:
        made["first_difference"] = split
    return made


def kept(picture, reveal: bool = True) -> dict | None:
    """`normalized(picture)` (without the rule's part unless `reveal`), or None when
    it breaks the contract (or is None)."""
    if picture is None:
        return None
    try:
        made = normalized(picture)
    except (PictureError, TypeError, ValueError, RecursionError):
        return None
    return made if reveal else withheld(made)


def is_withheld(picture: dict) -> bool:
    return not picture["rule"]["calls"]


def split_of(picture: dict) -> int | None:
    """The first call where the student's search departs from the rule's."""
    if is_withheld(picture):
        return picture.get("first_difference")
    return first_difference(picture["rule"]["calls"], picture["student"]["calls"])


# ------------------------------------------------------------------ layout
def _depths(nodes) -> dict:
    kids = _children(nodes)
    root = next(n["id"] for n in nodes if n["parent"] is None)
    depth, todo = {root: 0}, [root]
    while todo:
        node = todo.pop()
        for kid in kids.get(node, []):
            if kid in depth:        # a cycle cannot reach the root; a repeat is no tree
                return {}
            depth[kid] = depth[node] + 1
            todo.append(kid)
    return depth


def _children(nodes) -> dict:
    kids: dict = {}
    for node in nodes:
        if node["parent"] is not None:
            kids.setdefault(node["parent"], []).append(node["id"])
    return kids


def first_difference(rule_calls, student_calls) -> int | None:
    """The index of the first call where the two searches differ (None: the same)."""
    for index, (a, b) in enumerate(zip(rule_calls, student_calls)):
        if a != b:
            return index
    if len(rule_calls) != len(student_calls):
        return min(len(rule_calls), len(student_calls))
    return None


def _drawn(picture) -> set:
    """The nodes drawn: all of them, or (above MAX_NODES_DRAWN) those the first calls
    of both searches reach with their ancestors, then their unvisited children."""
    nodes = picture["nodes"]
    if len(nodes) <= MAX_NODES_DRAWN:
        return {n["id"] for n in nodes}
    parent = {n["id"]: n["parent"] for n in nodes}
    root = next(n["id"] for n in nodes if n["parent"] is None)
    drawn = {root}

    def add(node) -> bool:
        line = []
        while node is not None and node not in drawn:
            line.append(node)
            node = parent[node]
        if len(drawn) + len(line) > MAX_NODES_DRAWN:
            return False
        drawn.update(line)
        return True
    rule, student = picture["rule"]["calls"], picture["student"]["calls"]
    for index in range(max(len(rule), len(student))):
        for calls in (rule, student):
            if index < len(calls) and not add(calls[index][1]):
                return drawn
    kids = _children(nodes)
    for node in [n["id"] for n in nodes if n["id"] in drawn]:
        for kid in kids.get(node, []):
            if not add(kid):
                return drawn
    return drawn


@dataclass
class _Layout:
    x: dict = field(default_factory=dict)
    y: dict = field(default_factory=dict)
    width: float = 0
    height: float = 0
    depth: int = 0
    leaf_windows: bool = False  # a window is written under some leaf (the slots are wider)


def _layout(picture, drawn: set) -> _Layout:
    kids = {k: [c for c in v if c in drawn] for k, v in _children(picture["nodes"]).items()}
    depth = _depths(picture["nodes"])
    root = next(n["id"] for n in picture["nodes"] if n["parent"] is None)
    layout, slot = _Layout(), [0]
    leaves = {n for n in drawn if not kids.get(n)}
    layout.leaf_windows = any(leaves & set(picture[search].get("windows", {}))
                              for search in SEARCHES)
    width = WIDE_SLOT if layout.leaf_windows else SLOT

    def place(node):        # leaves take the next slot; a parent sits over its children
        # (recursion: a drawing holds at most MAX_NODES_DRAWN nodes, so it stays shallow)
        below = kids.get(node, [])
        for kid in below:
            place(kid)
        if below:
            layout.x[node] = (layout.x[below[0]] + layout.x[below[-1]]) / 2
        else:
            layout.x[node] = MARGIN_X + width / 2 + slot[0] * width
            slot[0] += 1
        layout.y[node] = TOP + depth[node] * LEVEL
    place(root)
    layout.depth = max(depth[n] for n in drawn)
    layout.width = 2 * MARGIN_X + max(slot[0], 3) * width
    layout.height = TOP + layout.depth * LEVEL + BOTTOM + 16 + 12 * layout.leaf_windows
    return layout


# ------------------------------------------------------------------ drawing
def _shown(value) -> str:
    if value == "inf":
        return "∞"
    if value == "-inf":
        return "−∞"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _numeric(value) -> bool:
    return value in ("inf", "-inf") or (isinstance(value, (int, float))
                                        and not isinstance(value, bool))


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def _window(pair) -> str:
    return f"α {_shown(pair[0])}, β {_shown(pair[1])}"


@dataclass
class _Panel:
    """One search's drawing of the tree."""
    name: str                   # "rule" or "student"
    title: str
    calls: list
    numbers: dict               # node -> [call numbers]
    late: set                   # call numbers at or after the first difference (student)
    ring: str | None            # the node of the first difference in this search
    result: object = None
    values: dict = field(default_factory=dict)
    windows: dict = field(default_factory=dict)


def _panels(picture, _) -> list[_Panel]:
    split = split_of(picture)
    panels = []
    for name, title in (("rule", _("The handout's rule")), ("student", _("Your search"))):
        search = picture[name]
        numbers: dict = {}
        for number, (_kind, node) in enumerate(search["calls"], 1):
            numbers.setdefault(node, []).append(number)
        ring = None
        if split is not None and split < len(search["calls"]):
            ring = search["calls"][split][1]
        late = set(range(split + 1, len(search["calls"]) + 1)) \
            if name == "student" and split is not None else set()
        panels.append(_Panel(name, title, search["calls"], numbers, late, ring,
                             search.get("result"), search.get("values", {}),
                             search.get("windows", {})))
    return panels


def _badge(x, y, numbers, late: set) -> str:
    shown = numbers if len(numbers) <= 3 else numbers[:2] + ["…"]
    text = ",".join(str(n) for n in shown)
    colour = ORANGE if any(n in late for n in numbers if isinstance(n, int)) else BLUE
    width = 8 + 6.6 * len(text)
    return (f'<rect x="{x - width:.1f}" y="{y - 9:.1f}" width="{width:.1f}" height="16" rx="8" '
            f'fill="{colour}"/><text x="{x - width / 2:.1f}" y="{y + 3:.1f}" '
            f'font-size="11" fill="#fff" text-anchor="middle">{_e(text)}</text>')


def _cut_mark(x1, y1, x2, y2) -> str:
    """Two short strokes across an edge, two thirds of the way down."""
    mx, my = x1 + (x2 - x1) * 0.62, y1 + (y2 - y1) * 0.62
    length = math.hypot(x2 - x1, y2 - y1) or 1
    nx, ny = -(y2 - y1) / length * 7, (x2 - x1) / length * 7
    tx, ty = (x2 - x1) / length * 3, (y2 - y1) / length * 3
    return "".join(f'<line x1="{mx + nx + s * tx:.1f}" y1="{my + ny + s * ty:.1f}" '
                   f'x2="{mx - nx + s * tx:.1f}" y2="{my - ny + s * ty:.1f}" '
                   f'stroke="{INK}" stroke-width="1.6"/>' for s in (-1, 1))


def _svg(picture, panel: _Panel, other: _Panel, layout: _Layout, drawn: set, ids: str,
         _) -> str:
    nodes = {n["id"]: n for n in picture["nodes"]}
    parent = {n["id"]: n["parent"] for n in picture["nodes"]}
    depth = _depths(picture["nodes"])
    maxes = picture["max_to_move"]
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" role="img" '
             f'aria-labelledby="{ids}-t {ids}-d" viewBox="0 0 {layout.width:.0f} '
             f'{layout.height:.0f}" width="{layout.width:.0f}" height="{layout.height:.0f}" '
             f'style="max-width:100%;min-width:{MIN_SCALE * layout.width:.0f}px;height:auto" '
             'font-family="system-ui, sans-serif">',
             f'<title id="{ids}-t">{_e(panel.title)}</title>',
             f'<desc id="{ids}-d">{_e(_description(picture, panel, _))}</desc>']
    for row in range(layout.depth + 1):          # who moves on each row
        mover = _("max") if (row % 2 == 0) == maxes else _("min")
        parts.append(f'<text x="4" y="{TOP + row * LEVEL + 4}" font-size="10" '
                     f'fill="#666">{_e(mover)}</text>')
    order = sorted(drawn, key=lambda n: (depth[n], layout.x[n]))   # the same every run
    for node in order:                           # edges first, nodes over them
        up = parent[node]
        if up is None or up not in drawn:
            continue
        x1, y1, x2, y2 = layout.x[up], layout.y[up], layout.x[node], layout.y[node]
        seen = node in panel.numbers
        parts.append(f'<line x1="{x1:.1f}" y1="{y1 + RADIUS:.1f}" x2="{x2:.1f}" '
                     f'y2="{y2 - RADIUS:.1f}" stroke="{INK if seen else GREY}" '
                     f'stroke-width="{1.4 if seen else 1}"'
                     + ('' if seen else ' stroke-dasharray="4 3"') + '/>')
        if node in picture["cut"]:
            parts.append(_cut_mark(x1, y1 + RADIUS, x2, y2 - RADIUS))
    leaves = {n for n in drawn if not any(parent[k] == n for k in drawn)}
    for node in order:
        parts.append(_node(nodes[node], node in leaves, panel, other, layout))
    root = next(n["id"] for n in picture["nodes"] if n["parent"] is None)
    if panel.result is not None:
        differs = _numeric(panel.result) and _numeric(other.result) \
            and _shown(panel.result) != _shown(other.result)
        colour = RED if differs and panel.name == "student" else INK
        said = _("result: {result}").format(result=_shown(panel.result))
        parts.append(f'<text x="{layout.x[root]:.1f}" y="{TOP - RADIUS - 14}" font-size="12" '
                     f'font-weight="600" text-anchor="middle" fill="{colour}">{_e(said)}</text>')
    left_out = len(picture["nodes"]) - len(drawn)
    if left_out:
        said = _("{count} more nodes not drawn").format(count=left_out)
        parts.append(f'<text x="4" y="{layout.height - 6:.0f}" font-size="10" fill="#666">'
                     f'{_e(said)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _node(node, leaf: bool, panel: _Panel, other: _Panel, layout: _Layout) -> str:
    name, x, y = node["id"], layout.x[node["id"]], layout.y[node["id"]]
    visited = name in panel.numbers
    strange = panel.name == "student" and visited and other.numbers \
        and name not in other.numbers
    fill = AMBER if strange else ("#fff" if visited else GREY_FILL)
    stroke = INK if visited else GREY
    ink = INK if visited else "#8a8a8a"
    window = panel.windows.get(name)        # the window this search passed to the node
    window_ink = RED if panel.name == "student" and window is not None \
        and other.windows.get(name, window) != window else "#555"
    parts = []
    if name == panel.ring:
        parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{RADIUS + 6}" fill="none" '
                     f'stroke="{RED}" stroke-width="3"/>')
    if leaf:
        parts.append(f'<rect x="{x - HALF_LEAF:.1f}" y="{y - HALF_LEAF:.1f}" '
                     f'width="{2 * HALF_LEAF}" height="{2 * HALF_LEAF}" fill="{fill}" '
                     f'stroke="{stroke}" stroke-width="1.4"/>')
        inside = _shown(node["value"]) if "value" in node else node["label"]
    else:
        parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{RADIUS}" fill="{fill}" '
                     f'stroke="{stroke}" stroke-width="1.4"/>')
        inside = node["label"]
    size = 12 if len(inside) <= 3 else (10 if len(inside) <= 5 else 9)
    parts.append(f'<text x="{x:.1f}" y="{y + 4:.1f}" font-size="{size}" text-anchor="middle" '
                 f'fill="{ink}">{_e(shortened(inside, 7))}</text>')
    under = y + HALF_LEAF + 12                # the lines under a leaf: its name, its window
    if leaf and "value" in node:            # the name under a leaf (its value is inside)
        parts.append(f'<text x="{x:.1f}" y="{under:.1f}" font-size="10" '
                     f'text-anchor="middle" fill="{ink}">{_e(shortened(node["label"], 8))}</text>')
        under += 12
    if leaf and window is not None:
        parts.append(f'<text x="{x:.1f}" y="{under:.1f}" font-size="9" text-anchor="middle" '
                     f'fill="{window_ink}">{_e(_window(window))}</text>')
    if not leaf and "value" in node:        # an inner node's heuristic value, on its left
        parts.append(f'<text x="{x - RADIUS - 3:.1f}" y="{y + 12:.1f}" font-size="10" '
                     f'text-anchor="end" fill="#666">[{_e(_shown(node["value"]))}]</text>')
    beside = []                             # what this search gave the node, on its right
    if name in panel.values and not (leaf and panel.values[name] == node.get("value")):
        beside.append((f"= {_shown(panel.values[name])}", "11", ink))
    if window is not None and not leaf:
        beside.append((_window(window), "9", window_ink))
    for row, (text, size, colour) in enumerate(beside):
        parts.append(f'<text x="{x + RADIUS + 8:.1f}" y="{y - 1 + 11 * row:.1f}" '
                     f'font-size="{size}" fill="{colour}">{_e(text)}</text>')
    if visited:
        parts.append(_badge(x - RADIUS + 4, y - RADIUS - 2, panel.numbers[name], panel.late))
    return "".join(parts)


def _description(picture, panel: _Panel, _) -> str:
    """The drawing in words (its <desc>): the calls as the failure's text writes them."""
    labels = {n["id"]: n["label"] for n in picture["nodes"]}
    calls = " ".join(f"{labels[node]}+" if kind == "expand" else labels[node]
                     for kind, node in panel.calls)
    return _("{search}: {count} game calls (+ = nextstates, else evaluation): {calls}").format(
        search=panel.title, count=len(panel.calls), calls=shortened(calls, 600))


def render(picture, say=None, key: str = "tree") -> str:
    """The picture as HTML: a <figure> holding one <svg> per search, with a legend.
    `say` translates the kit's words (a gettext); `key` makes the element ids unique
    on the page (letters, digits and dashes are kept of it). A picture that breaks
    the contract renders as the empty string: the failure's text still says it all."""
    _ = say or (lambda text: text)     # `_`: the name Babel extracts the words by
    picture = kept(picture)
    if picture is None:
        return ""
    ids = "".join(c for c in str(key) if c.isascii() and (c.isalnum() or c == "-"))[:40] \
        or "tree"
    drawn = _drawn(picture)
    layout = _layout(picture, drawn)
    rule, student = _panels(picture, _)
    shown = [(student, rule)] if is_withheld(picture) else [(rule, student), (student, rule)]
    split = split_of(picture)
    parts = ['<figure class="search-tree">']
    if picture.get("caption"):
        parts.append(f'<figcaption>{_e(picture["caption"])}</figcaption>')
    parts.append('<div class="tree-panels">')
    for panel, other in shown:
        heading = _("{search}: {count} game calls").format(
            search=panel.title, count=len(panel.calls))
        parts.append(f'<figure class="tree-panel"><figcaption>{_e(heading)}</figcaption>'
                     f'{_svg(picture, panel, other, layout, drawn, f"{ids}-{panel.name}", _)}'
                     '</figure>')
    parts.append("</div>")
    legend = [_("Numbers: the order of the game calls; circles are expanded with "
                  "nextstates, squares are leaves; grey: not visited.")]
    if not is_withheld(picture):
        legend.append(_("Crossed edge: the handout's rule cuts there; amber: your search "
                          "visits a node the rule does not."))
    if split is not None and any(panel.ring for panel, _other in shown):
        legend.append(_("Red ring: call {number}, the first where your search departs "
                          "from the handout's rule (orange numbers follow it).").format(
            number=split + 1))
    elif split is not None:     # the call where they part is in no drawing shown
        legend.append(_("Your search departs from the handout's rule after call "
                        "{number}.").format(number=split))
    parts.append(f'<p class="tree-legend">{_e(" ".join(legend))}</p></figure>')
    return "".join(parts)

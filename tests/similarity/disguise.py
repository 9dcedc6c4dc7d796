"""Disguise a Python submission the ways a student hiding a copy would, seeded.

Five disguises, each usable alone or combined (always applied in the order of
DISGUISES): rename what the student named, reorder the top-level functions, insert
dead code, change the comments and docstrings, reformat. Each keeps the program
working: the kit's tests compare the disguised module's syntax tree (or behaviour)
with the original's. Used by tests/similarity and bench/bench_similarity.py.
"""

from __future__ import annotations

import ast
import base64
import builtins
import io
import keyword
import random
import re
import tokenize

# ------------------------------------------------------------------ rename
_SYLLABLES = ["ka", "lo", "mi", "tr", "ve", "zu", "po", "ni", "ra", "de", "su", "bo"]


def fixed_names(source: str) -> set[str]:
    """Names a renamer must leave alone: keywords, builtins, imported names,
    keyword-argument and default-parameter names (`key=`, `bremse=`), and every
    name the assignment's interface fixes (pass the skeleton's through `keep`)."""
    fixed = set(keyword.kwlist) | set(dir(builtins))
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                fixed.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(node, ast.keyword) and node.arg:
            fixed.add(node.arg)
        elif isinstance(node, ast.FunctionDef):
            # Parameters with defaults may be passed by keyword from outside.
            args = node.args
            with_defaults = args.args[len(args.args) - len(args.defaults):] + [
                a for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
            fixed.update(a.arg for a in with_defaults)
        elif isinstance(node, ast.Attribute):
            fixed.add(node.attr)
    return fixed


def interface_names(skeleton: str) -> set[str]:
    """Top-level names of the released skeleton, and its functions' parameters:
    hidden tests call them by these names."""
    names = set()
    for node in ast.parse(skeleton).body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.add(node.name)
            for inner in ast.walk(node):
                if isinstance(inner, ast.arg):
                    names.add(inner.arg)
                elif isinstance(inner, ast.FunctionDef):
                    names.add(inner.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            for target in ast.walk(node):
                if isinstance(target, ast.Name):
                    names.add(target.id)
    return names


def rename(source: str, rng: random.Random, keep: set[str] = frozenset(),
           language: str | None = None) -> str:
    """Give every name the student chose a new, consistent one: invented words, or
    with `language` ("nl", "de") the name translated word by word."""
    fixed = fixed_names(source) | set(keep)
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    chosen = sorted({t.string for i, t in enumerate(tokens) if t.type == tokenize.NAME
                     and t.string not in fixed and not (i and tokens[i - 1].string == ".")})
    taken = set(fixed) | set(chosen)
    mapping = {}
    for name in chosen:
        attempt = 0
        while True:
            if language:
                new = translated(name, language, rng, attempt)
            else:
                new = "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 3)))
                new = ("_" if name.startswith("_") else "") + new
            if new not in taken and new.isidentifier() and not keyword.iskeyword(new):
                break
            attempt += 1
        taken.add(new)
        mapping[name] = new
    lines = source.splitlines(keepends=True)
    # Replace from the end so earlier columns stay valid.
    for i in range(len(tokens) - 1, -1, -1):
        t = tokens[i]
        if t.type == tokenize.NAME and t.string in mapping and not (
                i and tokens[i - 1].string == "."):
            row, col = t.start
            line = lines[row - 1]
            lines[row - 1] = line[:col] + mapping[t.string] + line[col + len(t.string):]
        elif t.type == tokenize.STRING and t.string[:2].lower() in ("f'", 'f"'):
            row, col = t.start
            if t.end[0] == row:         # names inside one-line f-strings
                text = re.sub(r"(?<=[{])\s*([A-Za-z_]\w*)",
                              lambda m: mapping.get(m.group(1), m.group(1)), t.string)
                line = lines[row - 1]
                lines[row - 1] = line[:col] + text + line[col + len(t.string):]
    return "".join(lines)


# ------------------------------------------------------------------ translate
WORDS = {
    "nl": {"board": "bord", "row": "rij", "rows": "rijen", "col": "kol", "column": "kolom",
           "columns": "kolommen", "cell": "vak", "cells": "vakken", "move": "zet",
           "moves": "zetten", "action": "actie", "actions": "acties", "player": "speler",
           "value": "waarde", "values": "waarden", "best": "beste", "score": "score",
           "count": "aantal", "result": "uitkomst", "new": "nieuw", "copy": "kopie",
           "empty": "leeg", "win": "winst", "winner": "winnaar", "line": "lijn",
           "lines": "lijnen", "diag": "diagonaal", "max": "hoogste", "min": "laagste",
           "current": "huidig", "next": "volgend", "possible": "mogelijk", "temp": "tijdelijk",
           "state": "stand", "game": "spel", "turn": "beurt", "total": "totaal",
           "free": "vrij", "opponent": "tegenstander", "check": "controleer", "is": "is",
           "get": "haal", "make": "maak", "helper": "hulp", "depth": "diepte",
           "cache": "geheugen", "memo": "geheugen", "key": "sleutel", "freeze": "bevries",
           "alpha": "alfa", "beta": "bèta", "v": "w", "i": "r", "j": "k", "k": "t",
           "x": "kruis", "o": "rondje", "found": "gevonden", "filled": "gevuld",
           "scored": "gescoord", "triple": "drietal", "candidates": "kandidaten",
           "champion": "kampioen", "frozen": "bevroren", "marks": "tekens",
           "mark": "teken", "full": "vol", "over": "voorbij", "done": "klaar",
           "unused": "ongebruikt", "limit": "grens", "rest": "rest", "a": "z",
           "b": "p", "c": "q", "r": "rr", "w": "ww", "n": "nn", "part": "deel"},
    "de": {"board": "brett", "row": "zeile", "rows": "zeilen", "col": "spalte",
           "column": "spalte", "columns": "spalten", "cell": "feld", "cells": "felder",
           "move": "zug", "moves": "zuege", "action": "aktion", "actions": "aktionen",
           "player": "spieler", "value": "wert", "values": "werte", "best": "bester",
           "score": "punkte", "count": "anzahl", "result": "ergebnis", "new": "neu",
           "copy": "kopie", "empty": "leer", "win": "sieg", "winner": "gewinner",
           "line": "linie", "lines": "linien", "diag": "diagonale", "max": "hoechster",
           "min": "kleinster", "current": "aktuell", "next": "naechster",
           "possible": "moeglich", "temp": "zwischen", "state": "stellung", "game": "spiel",
           "turn": "zug", "total": "summe", "free": "frei", "opponent": "gegner",
           "check": "pruefe", "is": "ist", "get": "hole", "make": "mache",
           "helper": "hilfe", "depth": "tiefe", "cache": "speicher", "memo": "speicher",
           "key": "schluessel", "freeze": "friere", "alpha": "alpha", "beta": "beta",
           "v": "w", "i": "z", "j": "s", "k": "m", "x": "kreuz", "o": "kreis",
           "found": "gefunden", "filled": "belegt", "scored": "bewertet",
           "triple": "dreier", "candidates": "kandidaten", "champion": "sieger",
           "frozen": "gefroren", "marks": "zeichen", "mark": "zeichen", "full": "voll",
           "over": "vorbei", "done": "fertig", "unused": "unbenutzt", "limit": "grenze",
           "rest": "rest", "a": "q", "b": "p", "c": "u", "r": "rr", "w": "ww", "n": "nn",
           "part": "teil"},
}
_SOUNDS = {"nl": ["aa", "ij", "oe", "sch", "ui", "ee", "ge", "van", "de", "lijk"],
           "de": ["sch", "ei", "au", "ung", "ge", "ch", "ie", "tz", "en", "lich"]}


def translated(name: str, language: str, rng: random.Random, attempt: int = 0) -> str:
    """`name` with each of its words in `language` (snake_case and camelCase are
    split; a word without a translation gets an invented one that sounds right)."""
    lead = "_" * (len(name) - len(name.lstrip("_")))
    parts = [p for p in re.split(r"_|(?<=[a-z0-9])(?=[A-Z])", name.lstrip("_")) if p]
    words = []
    for part in parts:
        digits = re.sub(r"\D", "", part)
        word = re.sub(r"\d", "", part).lower()
        new = WORDS[language].get(word)
        if new is None:
            new = "".join(rng.choice(_SOUNDS[language]) for _ in range(2)) + word[:2]
        words.append(new + digits)
    out = lead + "_".join(words or ["naam" if language == "nl" else "name"])
    out = out.replace("è", "e")
    return out + (str(attempt + 1) if attempt else "")


# ------------------------------------------------------------------ reorder
def _top_blocks(source: str) -> tuple[list[str], list[tuple[int, int, ast.stmt]]]:
    """The module's lines, and each top-level statement's line range (0-based,
    half-open) with the comments and blank lines above it."""
    lines = source.splitlines(keepends=True)
    body = ast.parse(source).body
    blocks = []
    start = 0
    for node in body:
        blocks.append((start, node.end_lineno, node))
        start = node.end_lineno
    if blocks:
        s, _, node = blocks[-1]
        blocks[-1] = (s, len(lines), node)
    return lines, blocks


def _defined(node: ast.stmt) -> set[str]:
    if isinstance(node, ast.FunctionDef | ast.ClassDef):
        return {node.name}
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)
            and isinstance(n.ctx, ast.Store)} | {
        (a.asname or a.name).split(".")[0] for n in ast.walk(node)
        if isinstance(n, ast.Import | ast.ImportFrom) for a in n.names}


def _needed_at_definition(node: ast.stmt) -> set[str]:
    """Names a statement reads while the module is being imported."""
    if isinstance(node, ast.FunctionDef):
        parts = node.decorator_list + node.args.defaults + [
            d for d in node.args.kw_defaults if d is not None]
    else:
        parts = [node]
    return {n.id for part in parts for n in ast.walk(part) if isinstance(n, ast.Name)}


def reorder(source: str, rng: random.Random) -> str:
    """Shuffle the top-level functions. Everything else keeps its order, and a
    function whose decorators or defaults name something stays after it."""
    lines, blocks = _top_blocks(source)
    if not blocks:
        return source
    head = lines[:blocks[0][0]]
    after: dict[int, set[int]] = {i: set() for i in range(len(blocks))}
    fixed = [i for i, (_, _, n) in enumerate(blocks) if not isinstance(n, ast.FunctionDef)]
    for a, b in zip(fixed, fixed[1:]):
        after[b].add(a)
    # The docstring and imports before the first function stay first.
    prefix = next((i for i, (_, _, n) in enumerate(blocks) if isinstance(n, ast.FunctionDef)),
                  len(blocks))
    for b in range(prefix, len(blocks)):
        after[b].update(range(prefix))
    for b, (_, _, node) in enumerate(blocks):
        needs = _needed_at_definition(node)
        for a in range(b):
            if needs & _defined(blocks[a][2]):
                after[b].add(a)
    order, placed = [], set()
    while len(order) < len(blocks):
        ready = [i for i in range(len(blocks)) if i not in placed and after[i] <= placed]
        pick = rng.choice(ready)
        order.append(pick)
        placed.add(pick)
    out = head[:]
    for i in order:
        start, end, _ = blocks[i]
        chunk = lines[start:end]
        if chunk and not chunk[-1].endswith("\n"):
            chunk[-1] += "\n"
        out.extend(chunk)
    return "".join(out)


# ------------------------------------------------------------------ dead code
_DEAD_STATEMENTS = [
    ["{v} = 0"],
    ["if False:", "    print({s})"],
    ["for {v} in range(0):", "    break"],
    ["{v} = [k * k for k in range(4)]"],
    ["assert True, {s}"],
    ["{v} = len({s}) + 1", "del {v}"],
]
_DEAD_HELPER = '''

def {f}(values):
    """Debugging aid."""
    total = 0
    for value in values:
        total += 1 if value else 0
    return total
'''


def add_dead_code(source: str, rng: random.Random, per_function: int = 1) -> str:
    """Insert statements that change nothing into functions, and an unused helper."""
    lines = source.splitlines(keepends=True)
    tree = ast.parse(source)
    points = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef):
            continue
        candidates = []
        for stmt in ast.walk(node):
            if isinstance(stmt, ast.stmt) and stmt is not node and stmt not in node.body[:1]:
                line = lines[stmt.lineno - 1]
                if (line[:stmt.col_offset].strip() == "" and stmt.lineno > node.lineno
                        and not line[stmt.col_offset:].startswith(("elif", "else"))):
                    candidates.append(stmt)
        for stmt in rng.sample(candidates, min(per_function, len(candidates))):
            points.append((stmt.lineno, stmt.col_offset))
    inserts = []
    for count, (lineno, col) in enumerate(sorted(set(points))):
        template = rng.choice(_DEAD_STATEMENTS)
        name = f"_scratch{count}"
        text = "".join(" " * col + part.format(v=name, s=repr("unused")) + "\n"
                       for part in template)
        inserts.append((lineno, text))
    for lineno, text in sorted(inserts, reverse=True):
        lines.insert(lineno - 1, text)
    helper = _DEAD_HELPER.format(f=f"_count_{rng.choice(_SYLLABLES)}{rng.randint(1, 99)}")
    lines, blocks = _top_blocks("".join(lines))
    ends = [end for _, end, n in blocks if isinstance(n, ast.FunctionDef)]
    at = rng.choice(ends) if ends else len(lines)
    if at and not lines[at - 1].endswith("\n"):
        lines[at - 1] += "\n"
    lines.insert(at, helper)
    return "".join(lines)


# ------------------------------------------------------------------ comments
_COMMENTS = ["# go through every case", "# edge case first", "# this is the main idea",
             "# TODO tidy this up", "# works, do not touch", "# see lecture 3",
             "# helper variable", "# the loop below does the real work"]
_DOCSTRINGS = ["Does what the assignment asks.", "My implementation.", "Helper.",
               "Computes the answer step by step.", "See the task description."]


_LANGUAGE_COMMENTS = {
    "nl": (["# loop over alle gevallen", "# eerst het randgeval", "# hier gebeurt het echte werk",
            "# nog opruimen", "# werkt, niet aankomen", "# zie college 3", "# hulpvariabele"],
           ["Doet wat de opdracht vraagt.", "Mijn uitwerking.", "Hulpfunctie.",
            "Berekent het antwoord stap voor stap."]),
    "de": (["# alle Faelle durchgehen", "# zuerst der Randfall", "# hier passiert die Arbeit",
            "# noch aufraeumen", "# funktioniert, nicht anfassen", "# siehe Vorlesung 3",
            "# Hilfsvariable"],
           ["Macht, was die Aufgabe verlangt.", "Meine Loesung.", "Hilfsfunktion.",
            "Berechnet die Antwort Schritt fuer Schritt."]),
}


def recomment(source: str, rng: random.Random, language: str | None = None) -> str:
    """Drop every comment, rewrite every docstring, add comments of its own (in
    `language` when given)."""
    comments, docstrings = _LANGUAGE_COMMENTS.get(language, (_COMMENTS, _DOCSTRINGS))
    lines = source.splitlines(keepends=True)
    edits = []                          # (first line, last line, replacement), 1-based
    for t in tokenize.generate_tokens(io.StringIO(source).readline):
        if t.type == tokenize.COMMENT:
            row, col = t.start
            kept = lines[row - 1][:col].rstrip()
            edits.append((row, row, kept + "\n" if kept else ""))
    tree = ast.parse(source)
    statements = []
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(node, ast.Module | ast.FunctionDef | ast.ClassDef) and body and \
                isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            doc = body[0]
            indent = " " * doc.col_offset
            edits.append((doc.lineno, doc.end_lineno,
                          f'{indent}"""{rng.choice(docstrings)}"""\n'))
        if isinstance(node, ast.stmt) and not isinstance(node, ast.Expr):
            line = lines[node.lineno - 1]
            if line[:node.col_offset].strip() == "":
                statements.append(node)
    edited = {row for first, last, _ in edits for row in range(first, last + 1)}
    for stmt in rng.sample(statements, min(len(statements), max(2, len(statements) // 8))):
        if stmt.lineno not in edited:
            comment = " " * stmt.col_offset + rng.choice(comments) + "\n"
            edits.append((stmt.lineno, stmt.lineno - 1, comment))   # an insertion
    for first, last, text in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        lines[first - 1:last] = [text] if text else []
    return "".join(lines)


# ------------------------------------------------------------------ reformat
_WORDLIKE = {tokenize.NAME, tokenize.NUMBER, tokenize.STRING}


def _swap_quotes(text: str) -> str:
    match = re.fullmatch(r"([rRbBuU]?)(['\"])([^'\"\\\n]*)\2", text)
    if not match:
        return text
    prefix, quote, body = match.groups()
    other = '"' if quote == "'" else "'"
    return f"{prefix}{other}{body}{other}"


def reformat(source: str, rng: random.Random) -> str:
    """Rewrite the layout: indentation width, spaces around operators, quotes,
    line breaks inside brackets and blank lines; comments stay where they were."""
    unit = rng.choice(["  ", "   ", "\t", "        "])
    airy = rng.random() < 0.5
    wrap = rng.uniform(0.1, 0.5)
    blank_lines = rng.choice([0, 1, 3])
    swap = rng.random() < 0.7
    out: list[str] = []
    level = 0
    depth = 0
    line: list[str] = []
    previous = None
    blank_run = 0
    commented = False

    def finish(comment: str = "") -> None:
        nonlocal line, previous
        text = "".join(line).rstrip()
        if comment:
            text = (text + "  " + comment) if text else unit * level + comment
        out.append(text + "\n")
        line, previous = [], None

    for t in tokenize.generate_tokens(io.StringIO(source).readline):
        kind, text = t.type, t.string
        if kind == tokenize.INDENT:
            level += 1
            continue
        if kind == tokenize.DEDENT:
            level -= 1
            continue
        if kind in (tokenize.ENCODING, tokenize.ENDMARKER):
            continue
        if kind == tokenize.COMMENT:
            commented = not line
            finish(text)
            if depth:                   # a comment inside brackets ends the physical line
                line.append(unit * (level + 2))
            continue
        if kind == tokenize.NEWLINE:
            if line:                    # else a trailing comment already ended it
                finish()
            blank_run = 0
            continue
        if kind == tokenize.NL:
            if commented:               # the end of a comment's own line
                commented = False
            elif depth == 0 and not line:
                blank_run += 1
                if blank_run <= 1:
                    out.extend(["\n"] * blank_lines if blank_lines else [])
            continue
        if not line:
            line.append(unit * level)
        elif previous is not None:
            need = previous.type in _WORDLIKE and kind in _WORDLIKE
            if text in (")", "]", "}", ".", ",", ":", ";") or previous.string in ("(", "[", "{", "."):
                space = need
            else:
                space = need or airy or text in ("=", "==", "and", "or") or \
                    previous.string in (",",)
            if text == "(" and previous.type == tokenize.NAME and not keyword.iskeyword(
                    previous.string):
                space = False           # a call: f(x), never f (x)
            if space:
                line.append(" ")
        if kind == tokenize.STRING and swap:
            text = _swap_quotes(text)
        line.append(text)
        if text in ("(", "[", "{"):
            depth += 1
        elif text in (")", "]", "}"):
            depth -= 1
        elif text == "," and depth and rng.random() < wrap:
            line.append("\n" + unit * (level + 2))
            t = t._replace(type=tokenize.OP)
            previous = None
            continue
        previous = t
    if line:
        finish()
    return "".join(out)


# ------------------------------------------------------------------ bytes
def lone_cr(source: str) -> bytes:
    """The file with every line ended by a carriage return alone (old Mac style),
    which Python reads as line ends."""
    return source.replace("\r\n", "\n").replace("\n", "\r").encode("utf-8")


_DIRECT = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'(),-./:? \t")


def utf7(source: str) -> bytes:
    """The file saved as UTF-7 behind a `# coding: utf-7` line, with every line
    break encoded too, so the whole file is one comment line to anything that reads
    it as UTF-8 (Python reads it as the code it is)."""
    out = ["# coding: utf-7"]
    run: list[str] = []

    def flush():
        if run:
            data = "".join(run).encode("utf-16-be")
            out.append("+" + base64.b64encode(data).decode("ascii").rstrip("=") + "-")
            run.clear()

    for char in "\n" + source:
        if char in _DIRECT:
            flush()
            out.append(char)
        else:
            run.append(char)
    flush()
    data = "".join(out).encode("ascii")
    assert b"\n" not in data and data.decode("utf-7") == "# coding: utf-7\n" + source
    return data


# ------------------------------------------------------------------ all of them
DISGUISES = ("rename", "reorder", "dead_code", "comments", "reformat")


def disguise(source: str, kinds, seed: int, keep: set[str] = frozenset()) -> str:
    """`source` with the disguises in `kinds` applied (in DISGUISES order)."""
    rng = random.Random(seed)
    unknown = set(kinds) - set(DISGUISES)
    if unknown:
        raise ValueError(f"unknown disguises: {sorted(unknown)}")
    for kind in DISGUISES:
        if kind not in kinds:
            continue
        if kind == "rename":
            source = rename(source, rng, keep)
        elif kind == "reorder":
            source = reorder(source, rng)
        elif kind == "dead_code":
            source = add_dead_code(source, rng)
        elif kind == "comments":
            source = recomment(source, rng)
        else:
            source = reformat(source, rng)
    return source

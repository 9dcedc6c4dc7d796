"""A student's habits around the code: debug prints, German names, docstrings and
comments, a `__main__` block that plays a game."""

from __future__ import annotations

import ast
import re

from ..source import SCOPES, Function, bound, docstring_node, imported, parameters, rename_in
from .base import Context, comment, import_position, replace_statements, rewrite


DEBUG_HELPER = '''
def {name}(name, *werte):
    """Gibt einen Aufruf zum Debuggen aus; große Tabellen nur mit ihrer Größe."""
    teile = []
    for wert in werte:
        if isinstance(wert, (dict, set, frozenset, list, tuple)) and len(wert) > 50:
            teile.append(f"<{{type(wert).__name__}} mit {{len(wert)}} Einträgen>")
        else:
            teile.append(repr(wert))
    print("DEBUG", name, *teile)
'''


@rewrite("debug_prints", "every specified (public) student function starts by printing its "
                         "name and arguments to stdout (a big table only by its size)")
def debug_prints(context: Context) -> int:
    # Printing a growing table whole on every call of a recursive helper makes a
    # search quadratic, which a specification that asks for speed forbids: the
    # prints go where a student looks (the specified functions), each of bounded cost.
    helper = context.fresh("_debug_ausgabe")
    changed = 0
    for function in context.functions:
        if not function.public or function.name.startswith("__"):
            continue
        signature, vararg = function.signature, function.node.args.vararg
        values = [ast.Name(n, ast.Load()) for n in [*signature.positional,
                                                     *signature.keyword_only]]
        if vararg is not None:
            values.append(ast.Starred(ast.Name(vararg.arg, ast.Load()), ast.Load()))
        printed = ast.Expr(ast.Call(ast.Name(helper, ast.Load()),
                                    [ast.Constant(function.qualified + ":"), *values], []))
        function.node.body.insert(1 if docstring_node(function.node) is not None else 0, printed)
        changed += 1
    if changed:
        position = import_position(context.tree)
        context.tree.body[position:position] = ast.parse(DEBUG_HELPER.format(name=helper)).body
    return changed


#: English words of the references' names and their German (umlauts included:
#: Python allows them in names, and German students use them).
GERMAN = {
    "best": "beste", "value": "wert", "values": "werte", "move": "zug", "moves": "züge",
    "board": "brett", "state": "zustand", "states": "zustände", "child": "kind",
    "children": "kinder", "cell": "feld", "cells": "felder", "row": "zeile", "rows": "zeilen",
    "col": "spalte", "column": "spalte", "columns": "spalten", "line": "linie",
    "lines": "linien", "player": "spieler", "other": "gegner", "depth": "tiefe",
    "score": "punkte", "scored": "bewertet", "result": "ergebnis", "key": "schlüssel",
    "entry": "eintrag", "table": "tabelle", "count": "anzahl", "total": "summe",
    "first": "erster", "last": "letzter", "new": "neu", "free": "frei", "taken": "belegt",
    "mark": "zeichen", "marks": "zeichen", "action": "aktion", "game": "spiel",
    "search": "suche", "start": "beginn", "limit": "grenze", "done": "fertig",
    "low": "unten", "high": "oben", "text": "zeichenkette", "stone": "stein",
    "stones": "steine", "after": "danach", "removed": "entfernt",
    "victims": "opfer", "victim": "opfer", "target": "ziel", "mill": "mühle",
    "twos": "zweier", "mask": "maske", "masks": "masken", "mine": "meine",
    "theirs": "deren", "window": "fenster", "full": "voll", "evaluated": "bewertete",
    "chooser": "auswahl", "maximizing": "maximierend", "names": "namen",
    "games": "partien", "winner": "sieger", "flying": "fliegend", "quiet": "ruhig",
    "successor": "nachfolger", "successors": "nachfolger", "positions": "positionen",
    "ordering": "ordnung", "function": "funktion", "functions": "funktionen",
    "patterns": "muster", "pattern": "muster", "found": "gefunden", "walk": "laufe",
    "step": "schritt", "end": "ende", "sign": "vorzeichen",
    "weight": "gewicht", "weights": "gewichte", "twice": "zweimal", "opening": "eröffnung",
    "own": "eigene", "data": "daten", "timed": "zeit", "evaluation": "bewertung",
    "combined": "kombiniert", "root": "wurzel", "moved": "gezogen", "wrap": "verpacke",
    "counted": "gezählt",
}


def german(name: str) -> str:
    """`name` word by word in German (snake case); unchanged when no word is known."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name)
    parts = [p for p in spaced.lower().split("_") if p]
    translated = [GERMAN.get(p, p) for p in parts]
    if translated == parts:
        return name
    return "_".join(translated)


@rewrite("german_locals", "the local variables of every student function get German names "
                          "(umlauts included)")
def german_locals(context: Context) -> int:
    changed = 0
    for function in context.functions:
        scopes = [n for n in ast.walk(function.node) if isinstance(n, SCOPES)]
        for scope in scopes:
            names = bound(scope) - parameters(scope) - imported(scope)
            mapping = {n: context.fresh(german(n)) for n in sorted(names) if german(n) != n}
            rename_in(scope, mapping)
            changed += len(mapping)
    return changed


def german_docstring(function: Function) -> str:
    params = [a.arg for a in function.node.args.args if a.arg not in ("self", "cls")]
    what = ", ".join(f"`{p}`" for p in params) or "keine"
    indent = " " * (function.node.col_offset + 4)
    return (f"Berechnet `{function.name}` so, wie es die Aufgabe verlangt.\n\n"
            f"{indent}Parameter: {what}. Das Ergebnis wird zurückgegeben; die englische\n"
            f"{indent}Beschreibung steht im Handout.\n{indent}")


COMMENTS = {ast.For: "Schleife über alle Möglichkeiten", ast.While: "Wiederholen, solange nötig",
            ast.If: "Fallunterscheidung", ast.Return: "Ergebnis zurückgeben",
            ast.Raise: "Fehler melden"}


@rewrite("german_docs", "every student function's docstring is German, and German comments "
                        "stand before its loops, branches and returns")
def german_docs(context: Context) -> int:
    changed = 0
    for function in context.functions:
        node = function.node
        text = ast.Expr(ast.Constant(german_docstring(function)))
        if docstring_node(node) is not None:
            node.body[0] = text
        else:
            node.body.insert(0, text)
        changed += 1
        replace_statements(node, lambda statement: [comment(COMMENTS[type(statement)]),
                                                    statement]
                           if type(statement) in COMMENTS else None)
    return changed


def is_main_block(node: ast.stmt) -> bool:
    return isinstance(node, ast.If) and isinstance(node.test, ast.Compare) and \
        isinstance(node.test.left, ast.Name) and node.test.left.id == "__name__" and \
        any(isinstance(c, ast.Constant) and c.value == "__main__" for c in node.test.comparators)


@rewrite("main_block", "an `if __name__ == \"__main__\":` block at the end plays a game with "
                       "the module's own functions (instead of any the reference has)")
def main_block(context: Context) -> int:
    game = context.game
    if game is None:
        context.note("no game is known for this assignment: the block lists the public "
                     "functions instead")
        game = ("print(sorted(name for name, value in list(globals().items())\n"
                "             if callable(value) and not name.startswith('_')))\n")
    tree = context.tree
    tree.body = [node for node in tree.body if not is_main_block(node)]
    block = ast.parse(f'if __name__ == "__main__":\n' +
                      "".join(f"    {line}\n" for line in game.splitlines()))
    tree.body += block.body
    return 1

"""Every sentence of the specification is checked or declared.

The student reads a specification: the docstrings of the modules they complete and
their README. Each behavioural sentence of it is enforced by a hidden check or
declared not graded, on purpose, with the reason, in a table beside the suite:
`autograder/suites/<a>/spec.toml` (beside the checks it names, never released):

    [[row]]
    where = "TicTacToe.makeMove"                 # the docstring's owner, or "README"
    sentence = "Raises ValueError if the cell is not empty."
    checks = ["test_make_and_undo_refuse_bad_cells"]

    [[row]]
    where = "NegaMax"
    sentence = "`treeNodeCounter` counts expanded nodes (see `explore`)."
    not_graded = "a pointer to explore's docstring, whose sentences are graded there"

`sentences(path)` cuts every docstring of a module into sentences (`split`: blocks
at blank lines and bullets, drawings and underlined headings left out), the one way
the kit test and a teacher's table agree on. `tests/kit/test_spec_tables.py` fails
when a sentence has no row, a row names no sentence, or a check of no rubric. Only
that test reads the tables, so this lives beside it, not in the engine.
"""

from __future__ import annotations

import ast
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from autograder import KitError

_BULLET = re.compile(r"^\s*[*-]\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`'\"(\[0-9*])")


@dataclass(frozen=True)
class Sentence:
    where: str          # "module", "Class", "function", "Class.method", "f.inner"
    text: str


@dataclass(frozen=True)
class Row:
    where: str
    sentence: str
    checks: tuple[str, ...] = ()
    not_graded: str = ""


def docstrings(path: Path) -> list[tuple[str, str]]:
    """(owner, docstring) of every documented node of the module at `path`, in order."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    module = ast.get_docstring(tree)
    if module:
        found.append(("module", module))

    def walk(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                text = ast.get_docstring(child)
                if text:
                    found.append((name, text))
                walk(child, name + ".")
    walk(tree, "")
    return found


def split(text: str) -> list[str]:
    """The sentences of one docstring (see the module docstring)."""
    blocks, current, skipping = [], [], False
    lines = text.splitlines()
    for index, line in enumerate(lines):
        following = lines[index + 1] if index + 1 < len(lines) else ""
        if not line.strip() or set(line.strip()) <= {"-", "="} \
                or re.fullmatch(r"\s*[-=]{3,}\s*", following):
            blocks.append(current)      # a blank line, an underline, or its heading
            current, skipping = [], False
            continue
        if _BULLET.match(line):
            blocks.append(current)
            current, skipping = [_BULLET.sub("", line)], False
            continue
        if line.startswith((" ", "\t")) and (skipping or not current):
            skipping = True             # an indented block after a blank line: a drawing
            continue                    # or an example, no sentence
        current.append(line)            # (indented right under text: its continuation)
    blocks.append(current)
    sentences = []
    for block in blocks:
        joined = " ".join(part.strip() for part in block).strip()
        if joined:
            sentences += [s.strip() for s in _SENTENCE_END.split(joined) if s.strip()]
    return sentences


def sentences(path: Path) -> list[Sentence]:
    """Every sentence of the docstrings of the module at `path`."""
    return [Sentence(owner, sentence) for owner, text in docstrings(path)
            for sentence in split(text)]


def readme_text(path: Path) -> str:
    """The README's prose with its whitespace collapsed (a row's sentence must occur in it)."""
    return " ".join(path.read_text(encoding="utf-8").split())


def table(path: Path) -> list[Row]:
    """The rows of a spec.toml; KitError, one line, for a malformed one."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise KitError(f"{path}: {error}") from None
    rows = []
    for number, row in enumerate(data.get("row", []), 1):
        if not isinstance(row, dict) or not isinstance(row.get("sentence"), str) \
                or not isinstance(row.get("where"), str):
            raise KitError(f"{path}: row {number} needs `where` and `sentence` (text)")
        checks = row.get("checks", [])
        reason = row.get("not_graded", "")
        if not isinstance(checks, list) or not all(isinstance(c, str) for c in checks) \
                or not isinstance(reason, str) or bool(checks) == bool(reason.strip()):
            raise KitError(f"{path}: row {number} ({row['sentence'][:40]!r}) needs either "
                           "`checks` (hidden check names) or `not_graded` (why), not both")
        rows.append(Row(row["where"], row["sentence"], tuple(checks), reason.strip()))
    return rows

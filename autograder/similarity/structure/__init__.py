"""Structure: a module's syntax tree with what a disguise can change taken out.

Every submission is rewritten into one canonical form (dead code dropped, one
spelling per construct, helpers inlined, independent statements and functions in
canonical order: docs/SIMILARITY.md lists the rewrites), written out as tokens in
which every name a student chose is `V`, and winnowed like the text (compare.py).
Each token keeps the line its statement came from, for the report's marks. The
file is parsed, never run.

In the order a file goes through it: `trees` (walks, names read and written,
constant values, shape keys), `purity` (which calls may have an effect),
`expressions` (one spelling per expression), `statements` (single statements and
loops), `canonicaliser` (the rounds over a module) and `emitter` (the tree as token
codes); `canonical` below ties them together.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from .canonicaliser import Canonicaliser
from .emitter import Emitter
from .trees import walk

#: Inlining stops after this many nodes were put in place of calls (a module's
#: helpers are a few hundred), and a helper larger than canonicaliser.MAX_HELPER_NODES
#: stays: the work stays proportional to the file, whatever a student nests.
MAX_INLINED = 20_000
#: A module larger than this is compared as text only (about 400 KB of code; a
#: submission is rarely a twentieth of that) and named in the report.
MAX_NODES = 150_000


@dataclass
class Canonical:
    """A module in canonical form: its token codes, each with the line of the
    student's file its statement came from."""
    stream: list[int] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    complete: bool = True       # False when the file did not parse or was too much
    problem: str = ""           # why a file that parses has no canonical form


def canonical(source: str, interface: frozenset[str] = frozenset()) -> Canonical:
    """`source` (already decoded) in canonical form. `interface` names the functions
    and constants the assignment fixes (kept as they are; every other name is V).
    A file that does not parse gives an empty, incomplete result."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return Canonical(complete=False)
    if len(walk(tree)) > MAX_NODES:
        return Canonical(complete=False, problem=f"more than {MAX_NODES:,} syntax-tree nodes: "
                                                 "compared as text only")
    try:
        tree = Canonicaliser(tree, interface, MAX_INLINED).run()
        emitter = Emitter(interface)
        for stmt in tree.body:
            emitter.statement(stmt)
    except RecursionError:          # nested too deeply to walk: the text still counts
        return Canonical(complete=False, problem="nested too deeply to compare its "
                                                 "structure: compared as text only")
    except Exception as error:      # a bug of ours must not end the report for everyone
        return Canonical(complete=False, problem=f"its structure could not be compared "
                                                 f"({type(error).__name__} in the kit: please "
                                                 "report it); compared as text only")
    return Canonical(emitter.codes, emitter.lines)

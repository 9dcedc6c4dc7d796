"""Structure: a module's syntax tree with what a disguise can change taken out.

The text comparison (tokens.py) sees through renaming, layout and comments. This
one also sees through changes that keep the program but move its tokens, by
rewriting every submission's syntax tree into one canonical form before it is
compared:

- **dead code goes**: statements after a return, branches and loops that cannot
  run (`if False:`, `for _ in range(0):`), expressions whose value is dropped,
  variables never read (and everything that only fills them), `pass`,
  docstrings, imports, helpers nobody calls;
- **one spelling per construct**: `x += 1` is `x = x + 1`; `a > b` is `b < a`;
  `is` is `==`; `not` is pushed into comparisons; comprehensions become the
  loops they stand for (`t = []; for ...: t.append(...)`); counting `while` loops
  become `for ... in range(...)`; an `if` whose branch ends the function takes the
  rest of the block as its `else`, and of `if c: A else: B` and
  `if not c: B else: A` the same one is kept;
- **helpers are inlined**: a helper that is not recursive is put where it is
  called, so splitting a function into helpers, or inlining one, changes nothing;
- **order is canonical**: within a block, statements that do not depend on each
  other (by the names they read and write) are sorted, and functions follow the
  interface's order, each helper after its first caller, so reordering
  independent statements or functions changes nothing.

The canonical tree is written out as tokens (every name a student chose is `V`,
the names the assignment fixes stay) and compared by winnowing, like the text
(compare.py): each token remembers the line of the student's file its statement
came from, so the report can mark the lines whose structure is shared.

Nothing here runs the student's code: the file is parsed, never executed.

The package, in the order a file goes through it: `trees` (walking a syntax tree,
the names a statement reads and writes, constant values, a shape key that leaves
the student's names out), `purity` (which calls may have an effect), `expressions`
(one spelling per expression), `statements` (the rewrites of single statements and
loops), `canonicaliser` (the rounds that apply them to a module: dead code,
inlining, order) and `emitter` (the canonical tree as token codes); `canonical`
below ties them together.
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

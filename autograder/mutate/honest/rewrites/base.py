"""What every rewrite shares: the registry, the context a rewrite works in, the
rewritten module, and the syntax-tree helpers several rewrites use.

`apply(context)` of a rewrite changes `context.tree` and returns how many sites it
changed (0: it does not apply; its notes say why). The tree is then unparsed, which
drops the reference's comments and region markers; a comment a rewrite wants to
leave is a marker string statement that `finish` turns into `# text`.
"""

from __future__ import annotations

import ast
import builtins
import re
from dataclasses import dataclass, field
from typing import Callable

from ..source import (FUNCTIONS, SCOPES, Fresh, Function, Reference, bound, docstring_node,
                      inner_parts, outer_parts, scope_nodes, student_functions,
                      student_statements)


@dataclass
class Context:
    reference: Reference
    tree: ast.Module
    game: str | None        # what a `__main__` block plays ([honest] game)
    fresh: Fresh
    notes: list[str] = field(default_factory=list)

    @property
    def functions(self) -> list[Function]:
        return student_functions(self.reference, self.tree)

    @property
    def statements(self) -> list[ast.stmt]:
        return student_statements(self.reference, self.tree)

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)


@dataclass(frozen=True)
class Rewrite:
    name: str
    description: str
    apply: Callable[[Context], int]
    nothing: str = ""       # the note where it finds no site


REWRITES: dict[str, Rewrite] = {}


def rewrite(name: str, description: str, nothing: str = ""):
    def register(function: Callable[[Context], int]):
        REWRITES[name] = Rewrite(name, description, function, nothing)
        return function
    return register


@dataclass(frozen=True)
class Rewritten:
    """A rewritten module: its text, the sites changed and the rewrite's notes."""
    source: str
    sites: int
    notes: tuple[str, ...]


#: A comment can not live in a syntax tree: rewrites leave this string statement
#: where a comment goes, and `finish` turns each into `# text` after unparsing.
COMMENT = "__honest_comment__ "
_COMMENT_LINE = re.compile(r"^(\s*)(['\"])" + COMMENT + r"(.*)\2$", re.M)


def finish(text: str) -> str:
    return _COMMENT_LINE.sub(lambda m: f"{m.group(1)}# {m.group(3)}", text)


def comment(text: str) -> ast.Expr:
    return ast.Expr(ast.Constant(COMMENT + text))


def apply(reference: Reference, kind: str, game: str | None = None) -> Rewritten:
    """The reference rewritten by `kind` (a name of REWRITES); `game` is the
    assignment's [honest] game."""
    tree = reference.tree()
    context = Context(reference, tree, game, Fresh(tree))
    sites = REWRITES[kind].apply(context)
    if not sites and REWRITES[kind].nothing:
        context.note(REWRITES[kind].nothing)
    ast.fix_missing_locations(tree)
    source = finish(ast.unparse(tree)) + "\n"
    return Rewritten(source, sites, tuple(context.notes))


class Counted(ast.NodeTransformer):
    """A transformer that counts the sites it changed."""
    changed = 0

    def made(self, node: ast.AST) -> ast.AST:
        self.changed += 1
        return node

    def in_functions(self, context: Context) -> int:
        """Transform every function of the module; the number of sites changed."""
        for function in context.functions:
            self.visit(function.node)
        return self.changed


def calls_in(root: ast.AST):
    """(call, chain) for every call under `root`; `chain` lists the scopes (outermost
    first) the call runs in, below `root`'s own scope."""
    found = []

    def visit(node, chain):
        if isinstance(node, ast.Call):
            found.append((node, chain))
        if isinstance(node, SCOPES):
            for part in outer_parts(node):
                visit(part, chain)
            for part in inner_parts(node):
                visit(part, chain + [node])
        else:
            for child in ast.iter_child_nodes(node):
                visit(child, chain)

    visit(root, [])
    return found


def binding_scope(name: str, chain: list[ast.AST]) -> ast.AST | None:
    """The innermost scope of `chain` that binds `name` (None: the module's)."""
    for depth, scope in enumerate(reversed(chain)):
        if isinstance(scope, ast.ClassDef) and depth > 0:
            continue                         # a class body is not seen from inside
        if name in bound(scope):
            return scope
    return None


def nested_def(scope: ast.AST, name: str) -> ast.FunctionDef | None:
    defs = [n for n in scope_nodes(scope) if isinstance(n, FUNCTIONS) and n.name == name]
    return defs[0] if len(defs) == 1 else None


def is_builtin(name: str, chain: list[ast.AST], tree: ast.Module) -> bool:
    """`name` means the builtin of that name here (nothing binds it)."""
    return hasattr(builtins, name) and binding_scope(name, chain) is None \
        and name not in bound(tree)


def ensure_import(tree: ast.Module, module: str) -> None:
    """`import module` at the top (after the docstring and __future__ imports) unless
    the module already imports it so."""
    for node in tree.body:
        if isinstance(node, ast.Import) and any(a.name == module and a.asname is None
                                                for a in node.names):
            return
    position = 1 if docstring_node(tree) is not None else 0
    while position < len(tree.body) and isinstance(tree.body[position], ast.ImportFrom) \
            and tree.body[position].module == "__future__":
        position += 1
    tree.body.insert(position, ast.Import(names=[ast.alias(module)]))


def import_position(tree: ast.Module) -> int:
    """Where module-level definitions may start: after the docstring and imports."""
    position = 0
    for index, node in enumerate(tree.body):
        if (index == 0 and docstring_node(tree) is node) or isinstance(
                node, (ast.Import, ast.ImportFrom)):
            position = index + 1
        else:
            break
    return position


def camel(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"_+", name) if part)


def top_level_index(tree: ast.Module, node: ast.AST) -> int:
    for index, statement in enumerate(tree.body):
        if statement is node or any(child is node for child in ast.walk(statement)):
            return index
    raise ValueError("node not in the tree")


def returns_of(function: ast.FunctionDef) -> list[ast.Return]:
    return [n for n in scope_nodes(function) if isinstance(n, ast.Return)]


def replace_statements(root: ast.AST, change) -> int:
    """Put `change(statement)` (a list of statements, or None for no change) in place
    of every statement of every block under `root` (lambdas and comprehensions hold
    none); return how many it changed."""
    changed = 0
    for holder in list(ast.walk(root)):
        for attribute in ("body", "orelse", "finalbody"):
            block = getattr(holder, attribute, None)
            if not isinstance(block, list) or not block or not isinstance(block[0], ast.stmt):
                continue
            updated = []
            for statement in block:
                replacement = change(statement)
                changed += replacement is not None
                updated += [statement] if replacement is None else replacement
            setattr(holder, attribute, updated)
    return changed


BUILTIN_METHODS = {name for kind in (list, dict, set, frozenset, str, tuple, int, float,
                                     bytes, object) for name in dir(kind)}


#: Builtins without side effects: an element that calls only these may be computed
#: eagerly where `any`/`all` would stop early, and nobody can count the difference.
PURE_BUILTINS = {"len", "abs", "min", "max", "sum", "sorted", "tuple", "list", "set",
                 "frozenset", "range", "enumerate", "zip", "divmod", "isinstance", "int",
                 "str", "float", "bool", "all", "any", "reversed", "round"}

"""Syntax trees as the canonical form reads them: every node under one, the names a
statement reads and writes, the value of an expression made of literals, and a
shape key that leaves out every name a student chose (what sorting goes by)."""

from __future__ import annotations

import ast
import builtins
import operator

NAME = "V"
BUILTINS = frozenset(dir(builtins))
#: Methods that change the object they are called on.
MUTATING_METHODS = frozenset({
    "append", "add", "extend", "insert", "pop", "remove", "discard", "clear", "update",
    "sort", "reverse", "setdefault", "popitem", "appendleft", "popleft", "extendleft",
    "intersection_update", "difference_update", "symmetric_difference_update",
})
EXITS = (ast.Return, ast.Raise, ast.Break, ast.Continue)
_OPERATOR_KINDS = frozenset(c for c in vars(ast).values() if isinstance(c, type) and issubclass(
    c, ast.operator | ast.boolop | ast.cmpop | ast.unaryop))


# ------------------------------------------------------------------ names
_FIELDS: dict[type, tuple[str, ...]] = {}


def walk(node: ast.AST) -> list[ast.AST]:
    """Every node under `node` (itself first, parents before children): ast.walk
    without its generator overhead, and without the shared `ctx` markers."""
    out = []
    todo = [node]
    pop, push, add = todo.pop, todo.append, out.append
    while todo:
        item = pop()
        add(item)
        kind = type(item)
        fields = _FIELDS.get(kind)
        if fields is None:
            fields = _FIELDS[kind] = tuple(f for f in kind._fields if f != "ctx")
        for name in fields:
            value = getattr(item, name, None)
            if type(value) is list:
                for child in reversed(value):
                    if isinstance(child, ast.AST):
                        push(child)
            elif isinstance(value, ast.AST):
                push(value)
    return out


def names_read(node: ast.AST) -> set[str]:
    return {n.id for n in walk(node) if isinstance(n, ast.Name)
            and isinstance(n.ctx, ast.Load)}


def base_name(node: ast.AST) -> str | None:
    """`x` for `x`, `x[i]`, `x.a[b].c`: the variable an access starts from."""
    while isinstance(node, ast.Subscript | ast.Attribute | ast.Starred):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def names_written(node: ast.AST) -> set[str]:
    """Names a statement assigns or changes (the object under `x[i] = ...`,
    `x.append(...)` counts as changing `x`)."""
    return names_written_in(walk(node))


def names_written_in(nodes: list[ast.AST]) -> set[str]:
    found = set()
    for n in nodes:
        kind = type(n)
        if kind is ast.Name:
            if type(n.ctx) is not ast.Load:
                found.add(n.id)
        elif kind is ast.Subscript or kind is ast.Attribute:
            if type(n.ctx) is not ast.Load:
                base = base_name(n)
                if base:
                    found.add(base)
        elif kind is ast.Call:
            if type(n.func) is ast.Attribute and n.func.attr in MUTATING_METHODS:
                base = base_name(n.func.value)
                if base:
                    found.add(base)
        elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef or kind is ast.ClassDef:
            found.add(n.name)
        elif kind is ast.ExceptHandler:
            if n.name:
                found.add(n.name)
        elif kind is ast.alias:
            found.add((n.asname or n.name).split(".")[0])
    return found


# ------------------------------------------------------------------ constants
UNKNOWN = object()


def constant_value(node: ast.AST):
    """The value of an expression made only of literals, else UNKNOWN."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.UnaryOp):
        value = constant_value(node.operand)
        if value is UNKNOWN:
            return UNKNOWN
        try:
            return _UNARY[type(node.op)](value)
        except Exception:
            return UNKNOWN
    if isinstance(node, ast.BoolOp):
        values = [constant_value(v) for v in node.values]
        if any(v is UNKNOWN for v in values):
            return UNKNOWN
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        left, right = constant_value(node.left), constant_value(node.comparators[0])
        if left is UNKNOWN or right is UNKNOWN or not all(
                type(v) in (int, float, bool, str, type(None)) for v in (left, right)):
            return UNKNOWN
        try:
            return _COMPARE[type(node.ops[0])](left, right)
        except Exception:
            return UNKNOWN
    if isinstance(node, ast.List | ast.Tuple | ast.Set | ast.Dict):
        parts = node.keys + node.values if isinstance(node, ast.Dict) else node.elts
        return UNKNOWN if parts else ()      # only the empty ones: their truth is known
    return UNKNOWN


_UNARY = {ast.Not: operator.not_, ast.USub: operator.neg, ast.UAdd: operator.pos,
          ast.Invert: operator.invert}
_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
            ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_,
            ast.IsNot: operator.is_not, ast.In: lambda a, b: a in b,
            ast.NotIn: lambda a, b: a not in b}


def never_iterates(iterable: ast.AST) -> bool:
    value = constant_value(iterable)
    if value == () or value == "":
        return True
    if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) \
            and iterable.func.id == "range" and iterable.args and not iterable.keywords:
        bounds = [constant_value(a) for a in iterable.args]
        if all(type(b) is int for b in bounds):
            return len(range(*bounds)) == 0 if bounds[-1:] != [0] or len(bounds) < 3 else False
    return False


# ------------------------------------------------------------------ shapes
def shape_key(node: ast.AST) -> str:
    """A node's shape with every name a student chose left out: what sorting and
    orienting go by, so two renamed copies sort the same. (Pre-order node types
    with the number of children each has, names as V, constants and attributes as
    they are: enough to tell two shapes apart.)"""
    parts = []
    add = parts.append
    for n in walk(node):
        kind = type(n)
        add(kind.__name__)
        if kind is ast.Name:
            add(n.id if n.id in BUILTINS else NAME)
        elif kind is ast.Constant:
            add(repr(n.value) if not isinstance(n.value, str) else "S")
        elif kind is ast.Attribute:
            add(n.attr)
        elif kind in _OPERATOR_KINDS:
            continue
        for name in _FIELDS.get(kind, ()):
            value = getattr(n, name, None)
            if type(value) is list:
                add(str(len(value)))
    return " ".join(parts)


def signature(tree: ast.AST) -> int:
    """A cheap digest of a tree's shape: whether a round of rewriting changed it."""
    return hash(tuple(type(n) for n in walk(tree)))

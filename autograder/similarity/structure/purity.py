"""Which calls may have an effect (purity decides what dead code is)."""

from __future__ import annotations

import ast

from .trees import MUTATING_METHODS, base_name, walk

#: Functions whose call has no effect a program could see (their arguments aside).
PURE_CALLS = frozenset({
    "abs", "all", "any", "bool", "callable", "chr", "dict", "divmod", "enumerate", "filter",
    "float", "format", "frozenset", "hash", "int", "isinstance", "issubclass", "iter", "len",
    "list", "map", "max", "min", "ord", "pow", "range", "repr", "reversed", "round", "set",
    "slice", "sorted", "str", "sum", "tuple", "type", "zip", "id", "hex", "bin", "oct",
})
#: Methods that read their object and change nothing.
PURE_METHODS = frozenset({
    "copy", "deepcopy", "count", "index", "get", "keys", "values", "items", "join",
    "split", "strip", "lstrip", "rstrip", "lower", "upper", "startswith", "endswith",
    "format", "union", "intersection", "difference", "symmetric_difference", "issubset",
    "issuperset", "isdisjoint", "isdigit", "isalpha", "replace", "find", "floor", "ceil",
    "sqrt", "isinf", "isnan", "inf", "log", "exp", "fabs", "prod", "fsum",
})


class Purity:
    """Which calls may have an effect: everything but known pure builtins and
    methods, and the module's own functions that change nothing outside."""

    def __init__(self, functions: dict[str, ast.FunctionDef]):
        # Each function once: does it do something itself, and whom does it call?
        calls: dict[str, set[str]] = {}
        self.pure_functions: set[str] = set()
        for name, function in functions.items():
            own, called = self._own_effects(function, set(functions))
            if not own:
                self.pure_functions.add(name)
                calls[name] = called
        changed = True
        while changed:          # a function calling one with an effect has an effect
            changed = False
            for name in sorted(self.pure_functions):
                if not calls[name] <= self.pure_functions:
                    self.pure_functions.discard(name)
                    changed = True

    def _own_effects(self, function: ast.FunctionDef, module: set[str]) -> tuple[bool, set]:
        nodes = walk(function)
        params = {a.arg for a in walk(function.args) if type(a) is ast.arg}
        local = {n.id for n in nodes if type(n) is ast.Name and type(n.ctx) is ast.Store}
        local -= params
        called = set()
        for node in nodes:
            kind = type(node)
            if kind in (ast.Global, ast.Nonlocal, ast.Yield, ast.YieldFrom, ast.Await):
                return True, called
            if (kind is ast.Subscript or kind is ast.Attribute) and \
                    type(node.ctx) is not ast.Load and base_name(node) not in local:
                return True, called
            if kind is ast.Call:
                func = node.func
                if type(func) is ast.Attribute and func.attr in MUTATING_METHODS:
                    if base_name(func.value) not in local:
                        return True, called
                elif type(func) is ast.Name and func.id in module:
                    called.add(func.id)
                elif not self._call_is_pure(node, inside=True):
                    return True, called
        return False, called

    def _call_is_pure(self, call: ast.Call, inside: bool = False) -> bool:
        func = call.func
        if isinstance(func, ast.Name):
            return func.id in PURE_CALLS or func.id in self.pure_functions
        if isinstance(func, ast.Attribute):
            if func.attr in PURE_METHODS:
                return True
            return inside and func.attr in MUTATING_METHODS
        return False

    def expression(self, node: ast.AST | None) -> bool:
        """Whether evaluating `node` can have no effect but raising."""
        return node is None or self.nodes(walk(node))

    def nodes(self, nodes: list[ast.AST]) -> bool:
        for n in nodes:
            kind = type(n)
            if kind is ast.Call:
                if not self._call_is_pure(n):
                    return False
            elif kind in (ast.Yield, ast.YieldFrom, ast.Await, ast.NamedExpr):
                return False
        return True

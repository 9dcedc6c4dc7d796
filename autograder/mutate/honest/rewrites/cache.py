"""functools.lru_cache on the private helpers that are pure and only ever get hashable
arguments (a board or state that may be a list is not hashable)."""

from __future__ import annotations

import ast
import builtins

from ..source import FUNCTIONS, SCOPES, Function, bound, module_functions, parameters
from .base import (BUILTIN_METHODS, PURE_BUILTINS, Context, binding_scope, calls_in, ensure_import,
                   returns_of, rewrite)


MUTATING_METHODS = {"append", "extend", "insert", "pop", "remove", "sort", "reverse", "clear",
                    "update", "add", "discard", "setdefault", "popitem"}
IMMUTABLE_CALLS = {"tuple", "frozenset", "int", "str", "float", "bool", "len", "abs", "range",
                   "hash"}


def calls(node: ast.AST, names) -> bool:
    """Whether `node` is a call of a plain name of `names`."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
        node.func.id in names


def built_from(value: ast.AST, leaf, operations=(ast.BinOp, ast.UnaryOp)) -> bool:
    """Whether `value` is a constant, a `leaf`, or a tuple or operation (of `operations`)
    of parts that are."""
    if isinstance(value, ast.Constant):
        return True
    if isinstance(value, ast.Tuple):
        parts = value.elts
    elif isinstance(value, operations):
        parts = [e for e in ast.iter_child_nodes(value) if isinstance(e, ast.expr)]
    else:
        return leaf(value)
    return all(built_from(part, leaf, operations) for part in parts)


def _root(node) -> str | None:
    """The name an attribute or subscript chain starts from."""
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def immutable_globals(tree: ast.Module) -> set[str]:
    """Module-level names bound once, at module level, to a value nobody can change: a
    number, string, None, a tuple of such, tuple(...) or frozenset(...)."""
    assigned: dict[str, list] = {}

    def assign(target, value):
        if isinstance(target, ast.Name):
            assigned.setdefault(target.id, []).append(value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            values = value.elts if isinstance(value, (ast.Tuple, ast.List)) and \
                len(value.elts) == len(target.elts) else [None] * len(target.elts)
            for part, part_value in zip(target.elts, values):
                assign(part, part_value)

    for node in tree.body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                assign(target, node.value)
    stored_elsewhere = {n.id for f in ast.walk(tree) if isinstance(f, (*FUNCTIONS, ast.ClassDef))
                        for n in ast.walk(f) if isinstance(n, ast.Name)
                        and isinstance(n.ctx, (ast.Store, ast.Del))}
    stored_elsewhere |= {name for n in ast.walk(tree) if isinstance(n, ast.Global)
                         for name in n.names}
    changed_in_place = never_changed_in_place(tree)
    found: set[str] = set()

    def constant(name, value) -> bool:
        if built_from(value, lambda v: isinstance(v, ast.Name) and v.id in found
                      or calls(v, ("tuple", "frozenset"))):
            return True
        return name in changed_in_place and not isinstance(value, ast.Lambda)

    changed = True
    while changed:
        changed = False
        for name, values in assigned.items():
            if name not in found and name not in stored_elsewhere and len(values) == 1 \
                    and values[0] is not None and constant(name, values[0]):
                found.add(name)
                changed = True
    return found


def never_changed_in_place(tree: ast.Module) -> set[str]:
    """Module-level names whose value nothing in the module changes in place: no item
    or attribute is set or deleted through them, no mutating method is called on them,
    and they are never handed to a function as they are (which could change them)."""
    touched = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Subscript, ast.Attribute)) and \
                isinstance(node.ctx, (ast.Store, ast.Del)):
            touched.add(_root(node))
        elif isinstance(node, ast.AugAssign):
            touched.add(_root(node.target))
        elif isinstance(node, ast.Call):
            if isinstance(node.func, ast.Attribute) and node.func.attr in MUTATING_METHODS:
                touched.add(_root(node.func.value))
            for argument in [*node.args, *(k.value for k in node.keywords)]:
                if isinstance(argument, ast.Name) and not (
                        isinstance(node.func, ast.Name) and node.func.id in PURE_BUILTINS):
                    touched.add(argument.id)
    return bound(tree) - touched


class Purity:
    """Which private helpers of the module are pure: they read only their arguments and
    constants, change nothing outside themselves and call only pure code."""

    def __init__(self, tree: ast.Module):
        self.tree = tree
        self.functions = module_functions(tree)
        self.constants = immutable_globals(tree)
        self.verdicts: dict[str, str] = {}      # name -> "" (pure) or why not

    def why_not(self, name: str) -> str:
        if name not in self.verdicts:
            # a helper that reaches itself is left alone: its verdict would rest on itself
            self.verdicts[name] = "it calls itself"
            self.verdicts[name] = self._judge(self.functions[name])
        return self.verdicts[name]

    def _judge(self, function: ast.FunctionDef) -> str:
        if function.decorator_list:
            return "it is decorated"
        if function.args.vararg or function.args.kwarg:
            return "it takes *args or **kwargs"
        for node in ast.walk(function):
            if isinstance(node, (ast.Global, ast.Nonlocal)):
                return "it declares a global or nonlocal name"
            if isinstance(node, (ast.Yield, ast.YieldFrom, ast.Await)):
                return "it is a generator"
        locals_ = self._locals(function)
        for node in ast.walk(function):
            if isinstance(node, (ast.Subscript, ast.Attribute)) and \
                    isinstance(node.ctx, (ast.Store, ast.Del)) and \
                    _root(node) not in locals_:
                return f"it changes {ast.unparse(node)}"
            if isinstance(node, ast.Call):
                problem = self._call(node, locals_, function)
                if problem:
                    return problem
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and \
                    node.id not in locals_ and node.id not in self.constants and \
                    node.id not in self.functions and not hasattr(builtins, node.id) and \
                    node.id not in parameters(function):
                return f"it reads {node.id}, which can change"
        return ""

    def _locals(self, function) -> set[str]:
        """Names bound inside `function` or its nested scopes, its own parameters left
        out: what it creates itself."""
        names = bound(function) - parameters(function)
        for node in ast.walk(function):
            if isinstance(node, SCOPES) and node is not function:
                names |= bound(node)
        return names

    def _call(self, call, locals_, function) -> str:
        func = call.func
        if isinstance(func, ast.Attribute):
            if func.attr in MUTATING_METHODS and _root(func.value) not in locals_:
                return f"it calls {ast.unparse(func)}"
            if func.attr not in BUILTIN_METHODS:
                return f"it calls {ast.unparse(func)}, which may count or change something"
            return ""
        if not isinstance(func, ast.Name):
            return f"it calls {ast.unparse(func)}"
        name = func.id
        if name in locals_:
            return ""
        if name in parameters(function):
            return f"it calls its argument {name}"
        if name in self.functions:
            if not name.startswith("_"):
                return f"it calls {name}, which the grader may replace"
            why = self.why_not(name)
            return f"it calls {name}, and {why}" if why else ""
        if name in PURE_BUILTINS | IMMUTABLE_CALLS and hasattr(builtins, name):
            return ""
        return f"it calls {name}"


def range_targets(scope: ast.AST) -> set[str]:
    """Names a loop of `scope` binds to the numbers of a range(...), and nothing else
    binds."""
    ranged, targets = set(), set()
    for node in ast.walk(scope):
        if isinstance(node, (ast.For, ast.comprehension)) and isinstance(node.target, ast.Name):
            targets.add(id(node.target))
            if calls(node.iter, ("range",)):
                ranged.add(node.target.id)
    other = {n.id for n in ast.walk(scope) if isinstance(n, ast.Name)
             and isinstance(n.ctx, ast.Store) and id(n) not in targets}
    other |= {n.target.id for n in ast.walk(scope)
              if isinstance(n, (ast.For, ast.comprehension)) and isinstance(n.target, ast.Name)
              and n.target.id in ranged and not calls(n.iter, ("range",))}
    return ranged - other


def immutable_return(function: ast.FunctionDef) -> bool:
    """Whether every value the function returns is immutable: a constant, a tuple,
    tuple(...) and the like, or arithmetic on its (hashable) arguments."""
    params = parameters(function)

    def leaf(value) -> bool:
        return isinstance(value, ast.Name) and value.id in params or calls(value, IMMUTABLE_CALLS)

    return all(node.value is None or built_from(node.value, leaf, (ast.BinOp, ast.UnaryOp,
                                                                   ast.BoolOp, ast.Compare))
               for node in returns_of(function))


@rewrite("lru_cache", "a pure private helper whose every call passes hashable arguments is "
                      "wrapped in functools.lru_cache")
def lru_cache(context: Context) -> int:
    tree = context.tree
    purity = Purity(tree)
    helpers = [f for f in context.functions if f.owner is None and not f.public]
    changed = 0
    for helper in helpers:
        why = purity.why_not(helper.name)
        if not why:
            why = _unhashable_call(tree, helper, purity.constants)
        if not why and not immutable_return(helper.node) and any(
                host for _, host in _call_sites(tree, helper.name)):
            why = ("it returns a mutable value to callers that run more than once (one "
                   "cached object would be shared)")
        if why:
            context.note(f"{helper.name}: not cached: {why}")
            continue
        ensure_import(tree, "functools")
        helper.node.decorator_list.insert(0, ast.Call(
            ast.Attribute(ast.Name("functools", ast.Load()), "lru_cache", ast.Load()), [],
            [ast.keyword("maxsize", ast.Constant(None))]))
        changed += 1
    if not helpers:
        context.note("the module has no private helper")
    return changed


def _call_sites(tree, name):
    """(call, the innermost function the call runs in, or None at module level)."""
    sites = []
    for node in tree.body:
        for call, chain in calls_in(node):
            if isinstance(call.func, ast.Name) and call.func.id == name and \
                    binding_scope(name, chain) is None:
                hosts = [s for s in chain if isinstance(s, FUNCTIONS)]
                sites.append((call, hosts[-1] if hosts else None))
    return sites


def _unhashable_call(tree, helper: Function, constants) -> str:
    sites = _call_sites(tree, helper.name)
    if not sites:
        return "nothing in the module calls it"
    for call, host in sites:
        # a name is hashable if it is a constant, a number of a range, or (in a recursive
        # call) the helper's own parameter
        hashable = constants | (parameters(helper.node) if host is helper.node else set()) \
            | (range_targets(host) if host is not None else set())
        for argument in [*call.args, *(k.value for k in call.keywords)]:
            if not built_from(argument, lambda v: isinstance(v, ast.Name) and v.id in hashable):
                return (f"the call {ast.unparse(call)} passes {ast.unparse(argument)}, which "
                        "may be a list or another unhashable value")
    return ""

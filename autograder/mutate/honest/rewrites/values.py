"""What the code hands back: exceptions that subclass the specified one, containers
the docstring allows, generators where a builtin consumes the values whole."""

from __future__ import annotations

import ast
import builtins
import re

from ..source import SCOPES, bound, module_classes
from .base import (PURE_BUILTINS, Context, Counted, calls_in, camel, is_builtin, returns_of,
                   rewrite, top_level_index)


def builtin_exception(name: str) -> bool:
    return isinstance(getattr(builtins, name, None), type) and \
        issubclass(getattr(builtins, name), BaseException)


def exception_classes(tree: ast.Module) -> set[str]:
    """The module's own exception classes (a base named like a builtin exception or
    another of them)."""
    own = set()
    changed = True
    while changed:
        changed = False
        for name, cls in module_classes(tree).items():
            if name in own:
                continue
            for base in cls.bases:
                if isinstance(base, ast.Name) and (base.id in own or builtin_exception(base.id)):
                    own.add(name)
                    changed = True
    return own


@rewrite("exception_subclasses", "each `raise X` of an exception the docstring names (or the "
                                 "module defines) raises a fresh subclass of X defined in the "
                                 "module instead")
def exception_subclasses(context: Context) -> int:
    tree = context.tree
    own = exception_classes(tree)
    made: dict[tuple[str, str], str] = {}
    changed = 0
    for function in context.functions:
        documented = " ".join(ast.get_docstring(n) or "" for n in (function.node, function.owner)
                              if n is not None)
        for node in ast.walk(function.node):
            if not isinstance(node, ast.Raise) or node.exc is None:
                continue
            target = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if not isinstance(target, ast.Name):
                continue
            base = target.id
            builtin = builtin_exception(base)
            if not (base in own or builtin and re.search(rf"\b{base}\b", documented)):
                if builtin:
                    context.note(f"{function.qualified} raises {base}, which its docstring "
                                 "does not name: left as it is")
                continue
            key = (function.qualified, base)
            if key not in made:
                made[key] = context.fresh(camel(function.name) + base.removesuffix("Error")
                                          + "Error")
                _define_subclass(tree, made[key], base, function, own)
            target.id = made[key]
            changed += 1
    return changed


def _define_subclass(tree, name, base, function, own):
    cls = ast.ClassDef(name=name, bases=[ast.Name(base, ast.Load())], keywords=[],
                       body=[ast.Expr(ast.Constant(
                           f"Raised by {function.qualified}: a {base}."))],
                       decorator_list=[], type_params=[])
    holder = function.owner or function.node
    position = top_level_index(tree, holder)
    if base in own:
        defined = next(i for i, n in enumerate(tree.body)
                       if isinstance(n, ast.ClassDef) and n.name == base)
        position = max(position, defined + 1)
    tree.body.insert(position, cls)


CONTAINER_WORDS = {"list", "lists", "tuple", "tuples", "set", "sets", "dict", "dicts",
                   "dictionary", "dictionaries", "mapping", "sequence", "sequences",
                   "frozenset", "array", "pair", "pairs", "triple"}
_RETURNED_NOUN = re.compile(r"\bReturns?\s+(?:the\s+|a\s+|an\s+|every\s+|all\s+)?"
                            r"(?:new\s+)?(?:\d+\s+)?(\w+)")
_DEFINED_AS = re.compile(r"\bA\s+\*?(\w+)\*?\b[^.]*?\bis\s+(?:a|the|an)\s+(?:\w+\s+)?"
                         r"(list|tuple|set|dict)", re.I)


def container_nouns(docstring: str) -> set[str]:
    """The nouns the module docstring defines as a container ("A board is a list of
    three rows")."""
    return {m.group(1).lower() for m in _DEFINED_AS.finditer(docstring)}


def names_no_container(function: ast.FunctionDef, module_docstring: str) -> tuple[bool, str]:
    """(True, "") when the docstring lets the function return any sequence: it names no
    container, shows no list in an example, and what it returns is no noun the module
    defines as a container; else (False, why)."""
    text = ast.get_docstring(function) or ""
    named = set(re.findall(r"[a-z]+", text.lower())) & CONTAINER_WORDS
    if named:
        return False, f"its docstring names a container ({', '.join(sorted(named))})"
    if re.search(r"==\s*\[", text):
        return False, "its docstring's example compares the result with a list"
    noun = _RETURNED_NOUN.search(text)
    defined = container_nouns(module_docstring)
    if noun and noun.group(1).lower().rstrip("s") in {d.rstrip("s") for d in defined}:
        return False, f"it returns a {noun.group(1)}, which the module defines as a container"
    return True, ""


def is_list_expression(node: ast.AST, function: ast.FunctionDef) -> bool:
    if isinstance(node, (ast.List, ast.ListComp)):
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
            node.func.id in ("list", "sorted"):
        return True
    if isinstance(node, ast.Name):
        values = [n.value for n in ast.walk(function) if isinstance(n, ast.Assign)
                  and any(isinstance(t, ast.Name) and t.id == node.id for t in n.targets)]
        return bool(values) and all(is_list_expression(v, function) for v in values)
    return False


@rewrite("tuple_returns", "a public function that returns a list returns a tuple where its "
                          "docstring names no container")
def tuple_returns(context: Context) -> int:
    changed = 0
    for function in context.functions:
        if not function.public:
            continue
        lists = [r for r in returns_of(function.node)
                 if r.value is not None and is_list_expression(r.value, function.node)]
        if not lists:
            continue
        free, why = names_no_container(function.node, context.reference.docstring)
        if not free:
            context.note(f"{function.qualified} returns a list: {why}")
            continue
        for node in lists:
            node.value = ast.Call(ast.Name("tuple", ast.Load()), [node.value], [])
            changed += 1
    return changed


@rewrite("set_builders", "a set comprehension becomes set(generator) and set(...) of a "
                         "generator or list comprehension a set comprehension",
         nothing="the student's code builds no set from a comprehension")
def set_builders(context: Context) -> int:
    swap = _SetSwap()
    for statement in context.statements:
        scopes = [statement, *(s for s in ast.walk(statement) if isinstance(s, SCOPES))]
        if "set" in bound(context.tree) or any("set" in bound(s) for s in scopes):
            context.note("a name `set` of the module's own: its set builders left alone")
            continue
        swap.visit(statement)
    return swap.changed


class _SetSwap(Counted):
    def visit_SetComp(self, node):
        self.generic_visit(node)
        return self.made(ast.Call(ast.Name("set", ast.Load()),
                                  [ast.GeneratorExp(node.elt, node.generators)], []))

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "set" and \
                len(node.args) == 1 and not node.keywords and \
                isinstance(node.args[0], (ast.GeneratorExp, ast.ListComp)):
            return self.made(ast.SetComp(node.args[0].elt, node.args[0].generators))
        return node


CONSUMERS = {"sum", "min", "max", "sorted", "set", "frozenset", "tuple", "list", "dict",
             "any", "all"}


def _consumer_arguments(context: Context, kinds):
    """(call, chain) where a builtin consumer takes a comprehension of `kinds` as its
    only positional argument, or str.join takes one."""
    for statement in context.statements:
        for call, chain in calls_in(statement):
            if len(call.args) != 1 or not isinstance(call.args[0], kinds):
                continue
            func = call.func
            if isinstance(func, ast.Name) and func.id in CONSUMERS and \
                    is_builtin(func.id, chain, context.tree):
                if func.id in ("any", "all") and not _calls_only_pure(call.args[0], chain,
                                                                       context.tree):
                    context.note(f"{func.id}(...) whose elements call functions: computing "
                                 "them all could be counted, left lazy")
                    continue
                yield call, chain
            elif isinstance(func, ast.Attribute) and func.attr == "join" and \
                    isinstance(func.value, ast.Constant) and isinstance(func.value.value, str):
                yield call, chain


def _calls_only_pure(node, chain, tree) -> bool:
    return all(isinstance(c.func, ast.Name) and c.func.id in PURE_BUILTINS
               and is_builtin(c.func.id, chain, tree)
               for c in ast.walk(node) if isinstance(c, ast.Call))


def _consumed_as(context: Context, kind, new_kind) -> int:
    """Make each comprehension of `kind` a builtin consumes whole one of `new_kind`."""
    calls = [call for call, _ in _consumer_arguments(context, kind)]
    for call in calls:
        call.args[0] = new_kind(call.args[0].elt, call.args[0].generators)
    return len(calls)


@rewrite("generators", "a list comprehension that a builtin consumes whole (sum, max, "
                       "sorted, tuple, join, ...) becomes a generator expression",
         nothing="no list comprehension is consumed whole by a builtin")
def generators(context: Context) -> int:
    return _consumed_as(context, ast.ListComp, ast.GeneratorExp)


@rewrite("eager_lists", "a generator expression that a builtin consumes whole becomes a list "
                        "comprehension",
         nothing="no generator expression is consumed whole by a builtin")
def eager_lists(context: Context) -> int:
    return _consumed_as(context, ast.GeneratorExp, ast.ListComp)

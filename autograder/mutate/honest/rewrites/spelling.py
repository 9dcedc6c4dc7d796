"""The same code spelt otherwise: infinity, comparisons with None, private names, a
decorator that keeps the signature, the order of definitions, assignments, lookups."""

from __future__ import annotations

import ast
import itertools

from ..source import FUNCTIONS, SCOPES, bound, names_used, outer_parts, rename_in
from .base import Context, Counted, ensure_import, import_position, replace_statements, rewrite


def _is_math_inf(node) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "inf" and \
        isinstance(node.value, ast.Name) and node.value.id == "math"


def _is_float_inf(node) -> str | None:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
            node.func.id == "float" and len(node.args) == 1 and \
            isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
        text = node.args[0].value.strip().lower()
        if text in ("inf", "+inf", "infinity"):
            return "+"
        if text in ("-inf", "-infinity"):
            return "-"
    return None


def _inf_alias(tree: ast.Module) -> str | None:
    """The module-level name bound to math.inf (`inf = math.inf`), if any."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], ast.Name) and _is_math_inf(node.value):
            return node.targets[0].id
    return None


@rewrite("float_inf", "math.inf (and the module's alias of it) becomes float(\"inf\"), "
                      "float(\"inf\") becomes math.inf, in the student's code and signatures",
         nothing="the student's code uses no infinity")
def float_inf(context: Context) -> int:
    swap = _InfSwap(_inf_alias(context.tree))
    for function in context.functions:
        swap.shadowed = {n for scope in ast.walk(function.node) if isinstance(scope, SCOPES)
                         for n in bound(scope)}
        node = function.node
        node.args.defaults = [swap.visit(d) for d in node.args.defaults]
        node.args.kw_defaults = [swap.visit(d) if d else d for d in node.args.kw_defaults]
        node.body = [swap.visit(s) for s in node.body]
    swap.shadowed = set()
    for statement in context.statements:
        if not isinstance(statement, FUNCTIONS):
            swap.visit(statement)
    if swap.needs_math:
        ensure_import(context.tree, "math")
    return swap.changed


class _InfSwap(Counted):
    """math.inf (and its module-level `alias` where no scope binds the name again) and
    float("inf") trade places."""

    def __init__(self, alias: str | None):
        self.alias, self.shadowed, self.needs_math = alias, set(), False

    def _is_alias(self, node) -> bool:
        return isinstance(node, ast.Name) and node.id == self.alias \
            and node.id not in self.shadowed

    def visit_UnaryOp(self, node):
        if isinstance(node.op, ast.USub) and (_is_math_inf(node.operand)
                                              or self._is_alias(node.operand)):
            return self.made(_float_call("-inf"))
        return self.generic_visit(node)

    def visit_Attribute(self, node):
        return self.made(_float_call("inf")) if _is_math_inf(node) else self.generic_visit(node)

    def visit_Name(self, node):
        if self._is_alias(node) and isinstance(node.ctx, ast.Load):
            return self.made(_float_call("inf"))
        return node

    def visit_Call(self, node):
        sign = _is_float_inf(node)
        if not sign:
            return self.generic_visit(node)
        self.needs_math = True
        math_inf = ast.Attribute(ast.Name("math", ast.Load()), "inf", ast.Load())
        return self.made(math_inf if sign == "+" else ast.UnaryOp(ast.USub(), math_inf))


def _float_call(text: str) -> ast.Call:
    return ast.Call(ast.Name("float", ast.Load()), [ast.Constant(text)], [])


@rewrite("none_equality", "`x is None` becomes `x == None` and `x is not None` `x != None` "
                          "(and back), also for the module's constants that are None",
         nothing="the student's code compares nothing with None")
def none_equality(context: Context) -> int:
    tree = context.tree
    nones = {node.targets[0].id for node in tree.body if isinstance(node, ast.Assign)
             and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
             and isinstance(node.value, ast.Constant) and node.value.value is None}
    swaps = {ast.Is: ast.Eq, ast.IsNot: ast.NotEq, ast.Eq: ast.Is, ast.NotEq: ast.IsNot}
    changed = 0

    def none(node) -> bool:
        return isinstance(node, ast.Constant) and node.value is None or \
            isinstance(node, ast.Name) and node.id in nones

    for statement in context.statements:
        for node in ast.walk(statement):
            if isinstance(node, ast.Compare) and len(node.ops) == 1 and \
                    type(node.ops[0]) in swaps and (none(node.comparators[0]) or
                                                    none(node.left)):
                node.ops = [swaps[type(node.ops[0])]()]
                changed += 1
    return changed


def _in_strings(tree: ast.Module, name: str) -> bool:
    return any(isinstance(n, ast.Constant) and isinstance(n.value, str) and name in n.value
               for n in ast.walk(tree))


@rewrite("rename_private_helpers", "every private helper function of the student's code gets "
                                   "another private name",
         nothing="the student's code has no private helper function")
def rename_private_helpers(context: Context) -> int:
    tree = context.tree
    mapping = {}
    for function in context.functions:
        name = function.name
        if function.owner is None and name.startswith("_") and not name.startswith("__"):
            if _in_strings(tree, name):
                context.note(f"{name} is named in a string of the module: not renamed")
                continue
            mapping[name] = context.fresh("_hilfs" + name)
    rename_in(tree, mapping)
    return len(mapping)


@rewrite("rename_private_names", "every private module-level variable of the student's code "
                                 "(a table, a cache) gets another private name",
         nothing="the student's code has no private module-level variable")
def rename_private_names(context: Context) -> int:
    tree = context.tree
    mapping = {}
    for statement in context.statements:
        if isinstance(statement, (ast.Assign, ast.AnnAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else \
                [statement.target]
            for target in targets:
                for node in ast.walk(target):
                    if isinstance(node, ast.Name) and node.id.startswith("_") and \
                            not node.id.startswith("__") and not _in_strings(tree, node.id):
                        mapping.setdefault(node.id, context.fresh("_daten" + node.id))
    rename_in(tree, mapping)
    return len(mapping)


WRAPPER = '''
def {name}(funktion):
    """Ruft `funktion` auf (ein Dekorator, der nichts ändert)."""
    @functools.wraps(funktion)
    def aufruf(*args, **kwargs):
        return funktion(*args, **kwargs)
    return aufruf
'''


@rewrite("wrap_public", "every public student function and method is wrapped in a decorator "
                        "that keeps its signature (functools.wraps)")
def wrap_public(context: Context) -> int:
    tree = context.tree
    name = context.fresh("_durchgereicht")
    changed = 0
    for function in context.functions:
        node = function.node
        if not function.public or node.name.startswith("__"):
            continue
        if node.decorator_list:
            context.note(f"{function.qualified} is decorated already: its decorator's "
                         "attributes (.cache, __wrapped__) are part of the specification")
            continue
        node.decorator_list.insert(0, ast.Name(name, ast.Load()))
        changed += 1
    if changed:
        ensure_import(tree, "functools")
        tree.body[import_position(tree):import_position(tree)] = \
            ast.parse(WRAPPER.format(name=name)).body
    return changed


@rewrite("reorder_definitions", "every run of consecutive module-level function definitions "
                                "is written in reverse order (where nothing needs one before "
                                "another)",
         nothing="no two module-level definitions stand next to each other")
def reorder_definitions(context: Context) -> int:
    body = context.tree.body
    runs = [[index for index, _ in run] for is_def, run in itertools.groupby(
        enumerate(body), key=lambda pair: isinstance(pair[1], FUNCTIONS)) if is_def]
    changed = 0
    for run in runs:
        if len(run) < 2:
            continue
        nodes = [body[i] for i in run]
        order = _reversed_respecting(nodes)
        if [n.name for n in order] != [n.name for n in nodes]:
            for index, node in zip(run, order):
                body[index] = node
            changed += 1
    return changed


def _reversed_respecting(nodes: list) -> list:
    """`nodes` as late-first as possible, each after the defs its decorators and defaults
    need when the def runs."""
    names = {n.name for n in nodes}
    needs = {n.name: set().union(*map(names_used, outer_parts(n))) & names - {n.name}
             for n in nodes}
    placed, order = set(), []
    remaining = list(nodes)
    while remaining:
        for node in reversed(remaining):
            if needs[node.name] <= placed:
                order.append(node)
                placed.add(node.name)
                remaining.remove(node)
                break
        else:
            return nodes                         # a cycle: keep the reference's order
    return order


def _simple(node) -> bool:
    """A name, a constant or an attribute/subscript chain of them (no call): reading
    it twice reads the same thing and nobody can count it."""
    if isinstance(node, (ast.Name, ast.Constant)):
        return True
    if isinstance(node, ast.Attribute):
        return _simple(node.value)
    if isinstance(node, ast.Subscript):
        return _simple(node.value) and _simple(node.slice)
    if isinstance(node, ast.Tuple):
        return all(_simple(e) for e in node.elts)
    if isinstance(node, ast.UnaryOp):
        return isinstance(node.operand, ast.Constant)
    return False


@rewrite("augmented_assignments", "`x += n` with a number n becomes `x = x + n` (for a name or "
                                  "an attribute), and `x = x + n` becomes `x += n`",
         nothing="the student's code adds no number to a variable")
def augmented_assignments(context: Context) -> int:
    return _AugmentedSwap().in_functions(context)


class _AugmentedSwap(Counted):
    def visit_AugAssign(self, node):
        if isinstance(node.target, (ast.Name, ast.Attribute)) and _simple(node.target) and \
                isinstance(node.value, ast.Constant) and type(node.value.value) in (int, float):
            return self.made(ast.Assign([node.target], ast.BinOp(_loaded(node.target), node.op,
                                                                 node.value)))
        return node

    def visit_Assign(self, node):
        value = node.value
        if len(node.targets) == 1 and isinstance(node.targets[0], (ast.Name, ast.Attribute)) \
                and isinstance(value, ast.BinOp) and isinstance(value.right, ast.Constant) \
                and type(value.right.value) in (int, float) and \
                ast.dump(value.left) == ast.dump(_loaded(node.targets[0])):
            return self.made(ast.AugAssign(node.targets[0], value.op, value.right))
        return self.generic_visit(node)


def _loaded(target):
    return ast.parse(ast.unparse(target), mode="eval").body


@rewrite("single_assignments", "`a, b = x, y` becomes `a = x` then `b = y` where no target "
                               "is read on the right",
         nothing="the student's code assigns no two names at once")
def single_assignments(context: Context) -> int:
    changed = 0
    for function in context.functions:
        changed += replace_statements(function.node, _split_assignment)
    return changed


def _split_assignment(statement) -> list | None:
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
        return None
    target, value = statement.targets[0], statement.value
    if not (isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and
            len(target.elts) == len(value.elts) and
            all(isinstance(t, ast.Name) for t in target.elts)):
        return None
    written = {t.id for t in target.elts}
    if len(written) != len(target.elts) or any(written & names_used(v) for v in value.elts):
        return None
    return [ast.Assign([t], v) for t, v in zip(target.elts, value.elts)]


@rewrite("dict_lookups", "`d.get(k)` becomes `d[k] if k in d else None` (and `d.get(k, v)` "
                         "the same with v), where d and k are plain names",
         nothing="the student's code looks nothing up with .get(name)")
def dict_lookups(context: Context) -> int:
    return _LookupSwap().in_functions(context)


class _LookupSwap(Counted):
    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "get" and _simple(func.value) and \
                not isinstance(func.value, ast.Constant) and 1 <= len(node.args) <= 2 and \
                not node.keywords and all(_simple(a) for a in node.args):
            key = node.args[0]
            default = node.args[1] if len(node.args) == 2 else ast.Constant(None)
            return self.made(ast.IfExp(ast.Compare(key, [ast.In()], [_loaded(func.value)]),
                                       ast.Subscript(_loaded(func.value), _loaded(key),
                                                     ast.Load()), default))
        return node

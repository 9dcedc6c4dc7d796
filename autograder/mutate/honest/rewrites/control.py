"""Control flow in other shapes: loops and comprehensions, early returns and a result
variable."""

from __future__ import annotations

import ast

from ..source import (FUNCTIONS, SCOPES, Function, bound, contains, docstring_node, names_used,
                      parameters, rename_in)
from .base import Context, replace_statements, returns_of, rewrite


def _append_target(statement) -> tuple[str, ast.expr, list] | None:
    """For `[if c: [if d: ...]] acc.append(e)`: (acc, e, [c, d, ...])."""
    conditions = []
    while isinstance(statement, ast.If) and not statement.orelse and len(statement.body) == 1:
        conditions.append(statement.test)
        statement = statement.body[0]
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        call = statement.value
        if isinstance(call.func, ast.Attribute) and call.func.attr == "append" and \
                isinstance(call.func.value, ast.Name) and len(call.args) == 1 and \
                not call.keywords:
            return call.func.value.id, call.args[0], conditions
    return None


def _loop_as_generators(loop: ast.For) -> tuple | None:
    """(acc, element, comprehension generators) for nested loops that only append to
    one list (temporaries assigned before the test are folded in); None otherwise."""
    generators = []
    statement = loop
    while True:
        if not isinstance(statement, ast.For) or statement.orelse:
            return None
        generators.append(ast.comprehension(statement.target, statement.iter, [], 0))
        body = list(statement.body)
        if len(body) == 1 and isinstance(body[0], ast.For):
            statement = body[0]
            continue
        break
    temporaries = {}
    while len(body) > 1 and isinstance(body[0], ast.Assign) and len(body[0].targets) == 1 \
            and isinstance(body[0].targets[0], ast.Name):
        temporaries[body[0].targets[0].id] = body[0].value
        body = body[1:]
    if len(body) != 1:
        return None
    found = _append_target(body[0])
    if found is None:
        return None
    acc, element, conditions = found
    if temporaries:
        # A temporary becomes a walrus at its first use, in the first condition: that
        # use must run whenever a later one does, and no temporary may read another.
        if not conditions or any(set(temporaries) & names_used(v)
                                 for v in temporaries.values()):
            return None
        later = set().union(names_used(element), *(names_used(c) for c in conditions[1:]))
        for name in temporaries:
            if name not in names_used(conditions[0]) or \
                    name in later and not _always_evaluated(conditions[0], name):
                return None
        conditions[0] = _walrus(conditions[0], temporaries, later)
    loop_names = {n.id for g in generators for n in ast.walk(g.target) if isinstance(n, ast.Name)}
    if acc in names_used(element) or any(acc in names_used(c) for c in conditions) or \
            any(acc in names_used(g.iter) for g in generators) or loop_names & set(temporaries):
        return None
    generators[-1].ifs = conditions
    return acc, element, generators


def _always_evaluated(condition, name) -> bool:
    """Whether the first read of `name` in `condition` runs whenever the condition is
    evaluated: not behind `and`/`or`, a conditional or a chained comparison."""
    def first_read(node, certain):
        if isinstance(node, ast.Name) and node.id == name:
            return certain
        if isinstance(node, SCOPES):
            return None
        if isinstance(node, ast.BoolOp):
            parts = [(value, certain and index == 0) for index, value in enumerate(node.values)]
        elif isinstance(node, ast.IfExp):
            parts = [(node.test, certain), (node.body, False), (node.orelse, False)]
        elif isinstance(node, ast.Compare):
            parts = [(part, certain and index < 2)
                     for index, part in enumerate([node.left, *node.comparators])]
        else:
            parts = [(child, certain) for child in ast.iter_child_nodes(node)]
        for part, sure in parts:
            found = first_read(part, sure)
            if found is not None:
                return found
        return None
    return bool(first_read(condition, True))


def _walrus(condition, temporaries, later):
    """Write each temporary's value where the condition first reads it: the value
    itself where that is its only read and it calls nothing, else bound with :=."""
    remaining = dict(temporaries)
    reads = [n.id for n in ast.walk(condition) if isinstance(n, ast.Name)]

    class Bind(ast.NodeTransformer):
        def visit_Name(self, node):
            if isinstance(node.ctx, ast.Load) and node.id in remaining:
                value = remaining.pop(node.id)
                if reads.count(node.id) == 1 and node.id not in later and \
                        not contains(value, ast.Call) and \
                        not isinstance(value, ast.Call):
                    return value
                return ast.NamedExpr(ast.Name(node.id, ast.Store()), value)
            return node
    return Bind().visit(condition)


def _used_after(function, loop, names) -> bool:
    """Whether a name of `names` is read anywhere in `function` outside `loop`."""
    inside = {id(n) for n in ast.walk(loop)}
    return any(isinstance(n, ast.Name) and n.id in names and id(n) not in inside
               for n in ast.walk(function))


@rewrite("loops_to_comprehensions", "a loop (or nest of loops) that only appends to a new "
                                    "list becomes a list comprehension",
         nothing="no loop only appends to a new list")
def loops_to_comprehensions(context: Context) -> int:
    changed = 0
    for function in context.functions:
        for holder in list(ast.walk(function.node)):
            for attribute in ("body", "orelse"):
                block = getattr(holder, attribute, None)
                if not isinstance(block, list):
                    continue
                index = 0
                while index + 1 < len(block):
                    first, loop = block[index], block[index + 1]
                    made = None
                    if isinstance(first, ast.Assign) and len(first.targets) == 1 and \
                            isinstance(first.targets[0], ast.Name) and \
                            isinstance(first.value, ast.List) and not first.value.elts and \
                            isinstance(loop, ast.For):
                        made = _loop_as_generators(loop)
                    if made and made[0] == first.targets[0].id:
                        acc, element, generators_ = made
                        temporaries = {n.id for n in ast.walk(loop) if isinstance(n, ast.Name)
                                       and isinstance(n.ctx, ast.Store)}
                        if _used_after(function.node, loop, temporaries - {acc}):
                            context.note(f"{function.qualified}: a loop variable is used "
                                         "after its loop: left as a loop")
                        elif not _walrus_safe(generators_):
                            context.note(f"{function.qualified}: a walrus would rebind a "
                                         "loop variable: left as a loop")
                        else:
                            first.value = ast.ListComp(element, generators_)
                            del block[index + 1]
                            changed += 1
                    index += 1
    return changed


def _walrus_safe(generators_) -> bool:
    targets = {n.id for g in generators_ for n in ast.walk(g.target) if isinstance(n, ast.Name)}
    walrus = {n.target.id for g in generators_ for c in g.ifs for n in ast.walk(c)
              if isinstance(n, ast.NamedExpr)}
    return not targets & walrus


@rewrite("comprehensions_to_loops", "a list, set or dict comprehension that is assigned or "
                                    "returned becomes a loop that builds the container",
         nothing="no comprehension is assigned or returned whole")
def comprehensions_to_loops(context: Context) -> int:
    changed = 0
    for function in context.functions:
        changed += replace_statements(
            function.node, lambda statement: _as_loop(statement, function, context))
    return changed


def _as_loop(statement, function: Function, context: Context) -> list | None:
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and \
            isinstance(statement.targets[0], ast.Name):
        target, value = statement.targets[0].id, statement.value
    elif isinstance(statement, ast.Return) and statement.value is not None:
        target, value = None, statement.value
    else:
        return None
    if not isinstance(value, (ast.ListComp, ast.SetComp, ast.DictComp)):
        return None
    if any(isinstance(n, (ast.NamedExpr, ast.Lambda, *FUNCTIONS, ast.Await))
           for n in ast.walk(value)):
        return None
    # The loop variables become the function's: one the function uses elsewhere
    # gets a name nobody uses.
    inside = {id(n) for n in ast.walk(value)}
    elsewhere = {n.id for n in ast.walk(function.node)
                 if isinstance(n, ast.Name) and id(n) not in inside} | parameters(function.node)
    mapping = {n: context.fresh(n + "_") for n in bound(value) if n in elsewhere}
    rename_in(value, mapping)
    if target is not None and target in names_used(value):
        return None
    name = target or context.fresh("gesammelt")
    empty, add = {ast.ListComp: ("list", "append"), ast.SetComp: ("set", "add"),
                  ast.DictComp: ("dict", None)}[type(value)]
    if add is None:
        body = ast.Assign([ast.Subscript(ast.Name(name, ast.Load()), value.key, ast.Store())],
                          value.value)
    else:
        body = ast.Expr(ast.Call(ast.Attribute(ast.Name(name, ast.Load()), add, ast.Load()),
                                 [value.elt], []))
    for generator in reversed(value.generators):
        for condition in reversed(generator.ifs):
            body = ast.If(condition, [body], [])
        body = ast.For(generator.target, generator.iter, [body], [])
    made = [ast.Assign([ast.Name(name, ast.Store())],
                       ast.Call(ast.Name(empty, ast.Load()), [], [])), body]
    if target is None:
        made.append(ast.Return(ast.Name(name, ast.Load())))
    return made


@rewrite("early_returns", "`return a if c else b` becomes `if c: return a` followed by "
                          "`return b`",
         nothing="no function returns a conditional expression")
def early_returns(context: Context) -> int:
    changed = 0

    def split(statement):
        if isinstance(statement, ast.Return) and isinstance(statement.value, ast.IfExp):
            value = statement.value
            return [ast.If(value.test, split(ast.Return(value.body)), []),
                    *split(ast.Return(value.orelse))]
        return [statement]

    for function in context.functions:
        changed += replace_statements(
            function.node, lambda statement: split(statement)
            if isinstance(statement, ast.Return) and isinstance(statement.value, ast.IfExp)
            else None)
    return changed


def _terminates(block: list) -> bool:
    if not block:
        return False
    last = block[-1]
    if isinstance(last, (ast.Return, ast.Raise)):
        return True
    if isinstance(last, ast.If):
        return _terminates(last.body) and _terminates(last.orelse)
    return False


def _has_return(node) -> bool:
    if isinstance(node, (*FUNCTIONS, ast.ClassDef)):
        return False                     # a nested definition's returns are its own
    return isinstance(node, ast.Return) or contains(node, ast.Return)


class _Unsupported(Exception):
    pass


def _single_exit(block: list, variable: str, budget: list) -> list:
    """`block` with every return turned into an assignment to `variable` and no
    statement after it run; _Unsupported where a return sits in a loop, try or with."""
    out = []
    for index, statement in enumerate(block):
        if isinstance(statement, ast.Return):
            out.append(ast.Assign([ast.Name(variable, ast.Store())],
                                  statement.value or ast.Constant(None)))
            return out
        if not _has_return(statement):
            out.append(statement)
            if isinstance(statement, ast.Raise):
                return out
            continue
        if not isinstance(statement, ast.If):
            raise _Unsupported
        rest = block[index + 1:]
        budget[0] -= len(rest)
        if budget[0] < 0:
            raise _Unsupported
        body = statement.body + ([] if _terminates(statement.body) else rest)
        orelse = statement.orelse + ([] if _terminates(statement.orelse) else rest)
        out.append(ast.If(statement.test, _single_exit(body, variable, budget),
                          _single_exit(orelse, variable, budget) if orelse else []))
        if not orelse:
            out[-1].orelse = [ast.Assign([ast.Name(variable, ast.Store())], ast.Constant(None))]
        return out
    out.append(ast.Assign([ast.Name(variable, ast.Store())], ast.Constant(None)))
    return out


@rewrite("result_variable", "a function with several returns keeps its result in a variable "
                            "and returns it once, at the end")
def result_variable(context: Context) -> int:
    changed = 0
    for function in context.functions:
        node = function.node
        returns = returns_of(node)
        if len(returns) < 2 or contains(node, (ast.Yield, ast.YieldFrom)):
            continue
        docstring = docstring_node(node)
        body = node.body[1:] if docstring is not None else node.body
        variable = context.fresh("ergebnis")
        try:
            converted = _single_exit(body, variable, [40])
        except _Unsupported:
            context.note(f"{function.qualified}: a return inside a loop, try or with: "
                         "left with its early returns")
            continue
        node.body = ([docstring] if docstring is not None else []) + converted + \
            [ast.Return(ast.Name(variable, ast.Load()))]
        changed += 1
    return changed

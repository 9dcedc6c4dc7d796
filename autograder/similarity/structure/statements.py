"""Rewrites of single statements and loops into the one spelling the canonical form
keeps: comprehensions as loops (Hoister), counting `while` as `for ... in range`,
index loops as item loops, `any`/`all`/`sum` as the loops students write for them,
two-branch assignments as conditional expressions."""

from __future__ import annotations

import ast
import copy

from .expressions import Expressions, negate
from .trees import EXITS, constant_value, names_read, names_written, walk

def body_fields(node: ast.AST) -> list[str]:
    return [f for f in ("body", "orelse", "finalbody") if isinstance(getattr(node, f, None),
                                                                     list)]


def ends_in_exit(block: list[ast.stmt]) -> bool:
    if not block:
        return False
    last = block[-1]
    if isinstance(last, EXITS):
        return True
    if isinstance(last, ast.If):
        return ends_in_exit(last.body) and ends_in_exit(last.orelse)
    return False


def _has_continue(block: list[ast.stmt]) -> bool:
    """A `continue` that belongs to this loop (not to a loop nested in it)."""
    for stmt in block:
        if isinstance(stmt, ast.Continue):
            return True
        if isinstance(stmt, ast.For | ast.While | ast.FunctionDef | ast.ClassDef):
            continue
        for name in body_fields(stmt):
            if _has_continue(getattr(stmt, name)):
                return True
        if isinstance(stmt, ast.Try):
            if any(_has_continue(h.body) for h in stmt.handlers):
                return True
    return False


def _loop_of_comprehension(target: ast.expr, comp: ast.expr, at: ast.AST) -> list[ast.stmt]:
    """`target = [elt for ...]` as the loop it stands for."""
    if isinstance(comp, ast.DictComp):
        init = ast.Dict([], [])
        inner = [ast.Assign([ast.Subscript(as_load(target), comp.key, ast.Store())], comp.value)]
    else:
        init, add = (ast.List([], ast.Load()), "append") if isinstance(comp, ast.ListComp) \
            else (ast.Call(ast.Name("set", ast.Load()), [], []), "add")
        inner = [ast.Expr(ast.Call(ast.Attribute(as_load(target), add, ast.Load()),
                                   [comp.elt], []))]
    return located([ast.Assign([as_store(target)], init), *nested_loops(comp.generators, inner)],
                   at)


def nested_loops(generators: list[ast.comprehension], inner: list[ast.stmt]) -> list[ast.stmt]:
    """`inner` in the loops and conditions of a comprehension's `generators`."""
    for generator in reversed(generators):
        for condition in reversed(generator.ifs):
            inner = [ast.If(condition, inner, [])]
        inner = [ast.For(generator.target, generator.iter, inner, [])]
    return inner


def located(statements: list[ast.stmt], at: ast.AST) -> list[ast.stmt]:
    """`statements`, every node of them without a position given `at`'s."""
    for stmt in statements:
        for node in walk(stmt):
            if not hasattr(node, "lineno"):
                ast.copy_location(node, at)
    return statements


def as_load(target: ast.expr) -> ast.expr:
    node = copy.deepcopy(target)
    for n in walk(node):
        if hasattr(n, "ctx"):
            n.ctx = ast.Load()
    return node


def as_store(target: ast.expr) -> ast.expr:
    node = copy.deepcopy(target)
    if hasattr(node, "ctx"):
        node.ctx = ast.Store()
    return node


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp)


class Hoister:
    """Comprehensions inside a statement become loops before it, filling a fresh
    variable that takes the comprehension's place."""

    def __init__(self):
        self.count = 0
        self.created: set[str] = set()      # the variables made so far

    def __call__(self, stmt: ast.stmt) -> list[ast.stmt] | None:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], ast.Name) and isinstance(stmt.value, _COMPREHENSIONS):
            return _loop_of_comprehension(stmt.targets[0], stmt.value, stmt)
        if isinstance(stmt, ast.FunctionDef | ast.ClassDef | ast.For | ast.While | ast.If
                      | ast.With | ast.Try):
            parts = [getattr(stmt, f) for f in ("iter", "test") if hasattr(stmt, f)]
        else:
            parts = [stmt]
        found = [n for part in parts for n in walk(part) if isinstance(n, _COMPREHENSIONS)]
        if not found or isinstance(stmt, ast.While):
            return None        # a while test is evaluated again each round: leave it
        comp = found[0]
        self.count += 1
        temp = ast.Name(f"_comprehension{self.count}", ast.Store())
        self.created.add(temp.id)
        loops = _loop_of_comprehension(temp, comp, stmt)
        _replace(stmt, comp, ast.Name(temp.id, ast.Load()))
        return loops + [stmt]


def _replace(root: ast.AST, old: ast.AST, new: ast.AST) -> None:
    for node in walk(root):
        for name, value in ast.iter_fields(node):
            if value is old:
                setattr(node, name, new)
                return
            if isinstance(value, list):
                for index, item in enumerate(value):
                    if item is old:
                        value[index] = new
                        return


def counting_while(init: ast.stmt | None, loop: ast.While) -> ast.For | None:
    """`i = a` ... `while i < b: ...; i += 1` as `for i in range(a, b): ...`: the
    counter goes up by one in one statement of the body, after which the body
    neither reads nor writes it, and nowhere else."""
    test = loop.test
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1
            and isinstance(test.left, ast.Name) and type(test.ops[0]) in (ast.Lt, ast.LtE)):
        return None
    counter = test.left.id
    if not loop.body or loop.orelse or _has_continue(loop.body):
        return None
    writes = [i for i, s in enumerate(loop.body) if counter in names_written(s)]
    if len(writes) != 1 or not _is_increment(loop.body[writes[0]], counter):
        return None
    if any(counter in names_read(s) for s in loop.body[writes[0] + 1:]):
        return None
    stop = test.comparators[0]
    if counter in names_read(stop) or names_written(stop):
        return None
    if isinstance(test.ops[0], ast.LtE):
        stop = ast.BinOp(stop, ast.Add(), ast.Constant(1))
    start = init.value if init is not None else None
    args = [stop] if start is None or constant_value(start) == 0 else [start, stop]
    body = loop.body[:writes[0]] + loop.body[writes[0] + 1:]
    loop_for = ast.For(ast.Name(counter, ast.Store()),
                       ast.Call(ast.Name("range", ast.Load()), args, []), body, [])
    return ast.copy_location(loop_for, loop)


def _is_increment(stmt: ast.stmt, counter: str) -> bool:
    """`counter = counter + 1` (or `1 + counter`)."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id == counter
            and isinstance(stmt.value, ast.BinOp) and isinstance(stmt.value.op, ast.Add)):
        return False
    sides = (stmt.value.left, stmt.value.right)
    return any(isinstance(a, ast.Name) and a.id == counter and constant_value(b) == 1
               for a, b in (sides, sides[::-1]))


def conditional_expression(stmt: ast.If) -> ast.stmt | None:
    """`if c: x = a` / `else: x = b` as `x = a if c else b`, and the same for two
    returns (an `if` that returns early has become that already)."""
    if len(stmt.body) != 1 or len(stmt.orelse) != 1:
        return None
    first, second = stmt.body[0], stmt.orelse[0]
    if isinstance(first, ast.Return) and isinstance(second, ast.Return) and \
            first.value is not None and second.value is not None:
        made = ast.Return(ast.IfExp(stmt.test, first.value, second.value))
    elif isinstance(first, ast.Assign) and isinstance(second, ast.Assign) and \
            len(first.targets) == len(second.targets) == 1 and \
            isinstance(first.targets[0], ast.Name) and isinstance(second.targets[0], ast.Name) \
            and first.targets[0].id == second.targets[0].id:
        made = ast.Assign(first.targets, ast.IfExp(stmt.test, first.value, second.value))
    else:
        return None
    return ast.copy_location(Expressions().visit(made), stmt)


def for_each(loop: ast.For, hoist: "Hoister") -> None:
    """`for i in range(len(s)): ... s[i] ...` as `for x in s: ... x ...`, when `i` is
    used for nothing else and neither `s` nor `i` changes in the loop (in place)."""
    iterable = loop.iter
    if not (isinstance(loop.target, ast.Name) and isinstance(iterable, ast.Call)
            and isinstance(iterable.func, ast.Name) and iterable.func.id == "range"
            and len(iterable.args) == 1 and isinstance(iterable.args[0], ast.Call)
            and isinstance(iterable.args[0].func, ast.Name)
            and iterable.args[0].func.id == "len" and len(iterable.args[0].args) == 1
            and isinstance(iterable.args[0].args[0], ast.Name) and not loop.orelse):
        return
    index, sequence = loop.target.id, iterable.args[0].args[0].id
    body = ast.Module(loop.body, [])
    if {index, sequence} & names_written(body):
        return
    uses = [n for n in walk(body) if isinstance(n, ast.Name) and n.id == index]
    items = [n for n in walk(body) if isinstance(n, ast.Subscript)
             and isinstance(n.value, ast.Name) and n.value.id == sequence
             and isinstance(n.slice, ast.Name) and n.slice.id == index
             and isinstance(n.ctx, ast.Load)]
    if not items or len(uses) != len(items):
        return
    first = loop.body[0]
    if isinstance(first, ast.Assign) and len(first.targets) == 1 and \
            isinstance(first.targets[0], ast.Name) and first.value in items:
        name = first.targets[0].id                  # `x = s[i]` first: that is the item
        loop.body = loop.body[1:] or [ast.Pass()]
    else:
        hoist.count += 1
        name = f"_item{hoist.count}"
    for item in items:
        _replace(ast.Module(loop.body, []), item, ast.Name(name, ast.Load()))
    loop.target = ast.copy_location(ast.Name(name, ast.Store()), loop.target)
    loop.iter = ast.copy_location(ast.Name(sequence, ast.Load()), iterable)


def loop_of_reduction(stmt: ast.stmt, target: ast.expr | None) -> list[ast.stmt] | None:
    """`return any(e for x in s if c)` as the loop that returns True at the first
    e (and `all` alike), and `t = sum(e for x in s if c)` as `t = 0` and a loop
    adding e: the loops students write for them."""
    call = getattr(stmt, "value", None)
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and len(call.args) == 1
            and not call.keywords and isinstance(call.args[0], ast.GeneratorExp
                                                 | ast.ListComp)):
        return None
    kind, generator = call.func.id, call.args[0]
    if isinstance(stmt, ast.Return) and kind in ("any", "all"):
        found = kind == "any"
        test = generator.elt if found else negate(generator.elt)
        inner: list[ast.stmt] = [ast.If(test, [ast.Return(ast.Constant(found))], [])]
        before, after = [], [ast.Return(ast.Constant(not found))]
    elif isinstance(stmt, ast.Assign) and kind == "sum" and isinstance(target, ast.Name):
        total = ast.BinOp(ast.Name(target.id, ast.Load()), ast.Add(), generator.elt)
        inner = [ast.Assign([ast.Name(target.id, ast.Store())], total)]
        before, after = [ast.Assign([ast.Name(target.id, ast.Store())], ast.Constant(0))], []
    else:
        return None
    return located(before + nested_loops(generator.generators, inner) + after, stmt)

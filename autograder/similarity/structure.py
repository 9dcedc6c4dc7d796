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
"""

from __future__ import annotations

import ast
import builtins
import copy
from collections import Counter, deque
from dataclasses import dataclass, field

from .tokens import code_of

NAME = "V"
_BUILTINS = frozenset(dir(builtins))
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
#: Methods that change the object they are called on.
MUTATING_METHODS = frozenset({
    "append", "add", "extend", "insert", "pop", "remove", "discard", "clear", "update",
    "sort", "reverse", "setdefault", "popitem", "appendleft", "popleft", "extendleft",
    "intersection_update", "difference_update", "symmetric_difference_update",
})
_EXITS = (ast.Return, ast.Raise, ast.Break, ast.Continue)
_OPERATOR_KINDS = frozenset(c for c in vars(ast).values() if isinstance(c, type) and issubclass(
    c, ast.operator | ast.boolop | ast.cmpop | ast.unaryop))
#: Inlining stops after this many nodes were put in place of calls (a module's
#: helpers are a few hundred), and a helper larger than MAX_HELPER_NODES stays: the
#: work stays proportional to the file, whatever a student nests.
MAX_INLINED = 20_000
MAX_HELPER_NODES = 2_000
#: A module larger than this is compared as text only (about 400 KB of code; a
#: submission is rarely a twentieth of that) and named in the report.
MAX_NODES = 150_000
#: A block longer than this keeps its order (sorting it is quadratic).
MAX_SORTED = 400
#: `if c: return a` + rest becomes `if`/`else` up to this depth (a wall of such
#: statements would otherwise nest past what can be walked).
MAX_NESTED = 40
#: Rounds of rewriting before the form is taken as it is (each round only shrinks
#: or reorders; a pathological file stops here rather than looping).
MAX_ROUNDS = 8


@dataclass
class Canonical:
    """A module in canonical form: its token codes, each with the line of the
    student's file its statement came from."""
    stream: list[int] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    complete: bool = True       # False when the file did not parse or was too much
    problem: str = ""           # why a file that parses has no canonical form


# ------------------------------------------------------------------ names
_FIELDS: dict[type, tuple[str, ...]] = {}


def _walk(node: ast.AST) -> list[ast.AST]:
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


def _loads(node: ast.AST) -> set[str]:
    return {n.id for n in _walk(node) if isinstance(n, ast.Name)
            and isinstance(n.ctx, ast.Load)}


def _base_name(node: ast.AST) -> str | None:
    """`x` for `x`, `x[i]`, `x.a[b].c`: the variable an access starts from."""
    while isinstance(node, ast.Subscript | ast.Attribute | ast.Starred):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _stores(node: ast.AST) -> set[str]:
    """Names a statement assigns or changes (the object under `x[i] = ...`,
    `x.append(...)` counts as changing `x`)."""
    return _stores_in(_walk(node))


def _stores_in(nodes: list[ast.AST]) -> set[str]:
    found = set()
    for n in nodes:
        kind = type(n)
        if kind is ast.Name:
            if type(n.ctx) is not ast.Load:
                found.add(n.id)
        elif kind is ast.Subscript or kind is ast.Attribute:
            if type(n.ctx) is not ast.Load:
                base = _base_name(n)
                if base:
                    found.add(base)
        elif kind is ast.Call:
            if type(n.func) is ast.Attribute and n.func.attr in MUTATING_METHODS:
                base = _base_name(n.func.value)
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


class _Purity:
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
        nodes = _walk(function)
        params = {a.arg for a in _walk(function.args) if type(a) is ast.arg}
        local = {n.id for n in nodes if type(n) is ast.Name and type(n.ctx) is ast.Store}
        local -= params
        called = set()
        for node in nodes:
            kind = type(node)
            if kind in (ast.Global, ast.Nonlocal, ast.Yield, ast.YieldFrom, ast.Await):
                return True, called
            if (kind is ast.Subscript or kind is ast.Attribute) and \
                    type(node.ctx) is not ast.Load and _base_name(node) not in local:
                return True, called
            if kind is ast.Call:
                func = node.func
                if type(func) is ast.Attribute and func.attr in MUTATING_METHODS:
                    if _base_name(func.value) not in local:
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
        return node is None or self.nodes(_walk(node))

    def nodes(self, nodes: list[ast.AST]) -> bool:
        for n in nodes:
            kind = type(n)
            if kind is ast.Call:
                if not self._call_is_pure(n):
                    return False
            elif kind in (ast.Yield, ast.YieldFrom, ast.Await, ast.NamedExpr):
                return False
        return True


# ------------------------------------------------------------------ constants
_UNKNOWN = object()


def _constant(node: ast.AST):
    """The value of an expression made only of literals, else _UNKNOWN."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.UnaryOp):
        value = _constant(node.operand)
        if value is _UNKNOWN:
            return _UNKNOWN
        try:
            return {ast.Not: lambda v: not v, ast.USub: lambda v: -v,
                    ast.UAdd: lambda v: +v, ast.Invert: lambda v: ~v}[type(node.op)](value)
        except Exception:
            return _UNKNOWN
    if isinstance(node, ast.BoolOp):
        values = [_constant(v) for v in node.values]
        if any(v is _UNKNOWN for v in values):
            return _UNKNOWN
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        left, right = _constant(node.left), _constant(node.comparators[0])
        if left is _UNKNOWN or right is _UNKNOWN or not all(
                type(v) in (int, float, bool, str, type(None)) for v in (left, right)):
            return _UNKNOWN
        try:
            return _COMPARE[type(node.ops[0])](left, right)
        except Exception:
            return _UNKNOWN
    if isinstance(node, ast.List | ast.Tuple | ast.Set | ast.Dict):
        parts = node.keys + node.values if isinstance(node, ast.Dict) else node.elts
        return _UNKNOWN if parts else ()      # only the empty ones: their truth is known
    return _UNKNOWN


_COMPARE = {ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b,
            ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b,
            ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b,
            ast.Is: lambda a, b: a is b, ast.IsNot: lambda a, b: a is not b,
            ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}


def _never_iterates(iterable: ast.AST) -> bool:
    value = _constant(iterable)
    if value == () or value == "":
        return True
    if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) \
            and iterable.func.id == "range" and iterable.args and not iterable.keywords:
        bounds = [_constant(a) for a in iterable.args]
        if all(type(b) is int for b in bounds):
            return len(range(*bounds)) == 0 if bounds[-1:] != [0] or len(bounds) < 3 else False
    return False


# ------------------------------------------------------------------ expressions
_FLIPPED = {ast.Gt: ast.Lt, ast.GtE: ast.LtE}
_NEGATED = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.GtE, ast.GtE: ast.Lt,
            ast.LtE: ast.Gt, ast.Gt: ast.LtE, ast.In: ast.NotIn, ast.NotIn: ast.In,
            ast.Is: ast.IsNot, ast.IsNot: ast.Is}
_COMMUTATIVE = (ast.Add, ast.Mult, ast.BitAnd, ast.BitOr, ast.BitXor)


def negate(test: ast.expr) -> ast.expr:
    """`not test`, with the negation pushed as far in as it goes, in the one
    spelling `_Expressions` gives (so negating twice gives the test back)."""
    return _Expressions().visit(_negated(test))


def _negated(test: ast.expr) -> ast.expr:
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return test.operand
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        return ast.Compare(test.left, [_NEGATED[type(test.ops[0])]()], test.comparators)
    if isinstance(test, ast.BoolOp):
        other = ast.Or() if isinstance(test.op, ast.And) else ast.And()
        return ast.BoolOp(other, [_negated(v) for v in test.values])
    if isinstance(test, ast.Constant):
        return ast.Constant(not test.value)
    return ast.UnaryOp(ast.Not(), test)


class _Expressions(ast.NodeTransformer):
    """One spelling for expressions that mean the same."""

    def visit_Compare(self, node):
        self.generic_visit(node)
        node.ops = [ast.Eq() if isinstance(op, ast.Is) else ast.NotEq()
                    if isinstance(op, ast.IsNot) else op for op in node.ops]
        if all(type(op) in _FLIPPED for op in node.ops):
            items = [node.left, *node.comparators][::-1]
            node.left, node.comparators = items[0], items[1:]
            node.ops = [_FLIPPED[type(op)]() for op in node.ops[::-1]]
        if len(node.ops) == 1 and type(node.ops[0]) in (ast.Eq, ast.NotEq):
            left, right = node.left, node.comparators[0]
            if _key(right) < _key(left):
                node.left, node.comparators = right, [left]
        return node

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            inner = node.operand
            if (isinstance(inner, ast.Compare) and len(inner.ops) == 1) or \
                    isinstance(inner, ast.BoolOp) or (
                    isinstance(inner, ast.UnaryOp) and isinstance(inner.op, ast.Not)):
                return self.visit(_negated(inner))
        return node

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, _COMMUTATIVE) and _key(node.right) < _key(node.left):
            node.left, node.right = node.right, node.left
        return node

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        flat = []
        for value in node.values:     # (a and b) and c is a and b and c
            if isinstance(value, ast.BoolOp) and type(value.op) is type(node.op):
                flat.extend(value.values)
            else:
                flat.append(value)
        node.values = flat
        return node

    def visit_IfExp(self, node):
        self.generic_visit(node)
        flipped = negate(node.test)
        if _key(flipped) < _key(node.test):
            node.test, node.body, node.orelse = flipped, node.orelse, node.body
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Name) and func.id == "range" and not node.keywords:
            args = node.args
            if len(args) == 3 and _constant(args[2]) == 1:
                args = args[:2]
            if len(args) == 2 and _constant(args[0]) == 0:
                args = args[1:]
            node.args = args
        if isinstance(func, ast.Name) and func.id == "float" and len(node.args) == 1:
            value = _constant(node.args[0])
            if isinstance(value, str) and value.strip().lower().lstrip("+-") in ("inf",
                                                                                "infinity"):
                inf = ast.Attribute(ast.Name("math", ast.Load()), "inf", ast.Load())
                return ast.UnaryOp(ast.USub(), inf) if value.strip().startswith("-") else inf
        # list(x for ...) is [x for ...]; set(x for ...) is {x for ...}
        if isinstance(func, ast.Name) and func.id in ("list", "set") and len(node.args) == 1 \
                and not node.keywords and isinstance(node.args[0], ast.GeneratorExp):
            gen = node.args[0]
            kind = ast.ListComp if func.id == "list" else ast.SetComp
            return kind(gen.elt, gen.generators)
        return node


def _key(node: ast.AST) -> str:
    """A node's shape with every name a student chose left out: what sorting and
    orienting go by, so two renamed copies sort the same. (Pre-order node types
    with the number of children each has, names as V, constants and attributes as
    they are: enough to tell two shapes apart.)"""
    parts = []
    add = parts.append
    for n in _walk(node):
        kind = type(n)
        add(kind.__name__)
        if kind is ast.Name:
            add(n.id if n.id in _BUILTINS else NAME)
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


def _signature(tree: ast.AST) -> int:
    """A cheap digest of a tree's shape: whether a round of rewriting changed it."""
    return hash(tuple(type(n) for n in _walk(tree)))


# ------------------------------------------------------------------ statements
def _body_fields(node: ast.AST) -> list[str]:
    return [f for f in ("body", "orelse", "finalbody") if isinstance(getattr(node, f, None),
                                                                     list)]


def _ends_in_exit(block: list[ast.stmt]) -> bool:
    if not block:
        return False
    last = block[-1]
    if isinstance(last, _EXITS):
        return True
    if isinstance(last, ast.If):
        return _ends_in_exit(last.body) and _ends_in_exit(last.orelse)
    return False


def _has_continue(block: list[ast.stmt]) -> bool:
    """A `continue` that belongs to this loop (not to a loop nested in it)."""
    for stmt in block:
        if isinstance(stmt, ast.Continue):
            return True
        if isinstance(stmt, ast.For | ast.While | ast.FunctionDef | ast.ClassDef):
            continue
        for name in _body_fields(stmt):
            if _has_continue(getattr(stmt, name)):
                return True
        if isinstance(stmt, ast.Try):
            if any(_has_continue(h.body) for h in stmt.handlers):
                return True
    return False


def _loop_of_comprehension(target: ast.expr, comp: ast.expr, at: ast.AST) -> list[ast.stmt]:
    """`target = [elt for ...]` as the loop it stands for."""
    if isinstance(comp, ast.ListComp):
        init, add = ast.List([], ast.Load()), "append"
        inner = [ast.Expr(ast.Call(ast.Attribute(_load(target), add, ast.Load()),
                                   [comp.elt], []))]
    elif isinstance(comp, ast.SetComp):
        init, add = ast.Call(ast.Name("set", ast.Load()), [], []), "add"
        inner = [ast.Expr(ast.Call(ast.Attribute(_load(target), add, ast.Load()),
                                   [comp.elt], []))]
    else:
        init = ast.Dict([], [])
        inner = [ast.Assign([ast.Subscript(_load(target), comp.key, ast.Store())], comp.value)]
    for generator in reversed(comp.generators):
        for condition in reversed(generator.ifs):
            inner = [ast.If(condition, inner, [])]
        inner = [ast.For(generator.target, generator.iter, inner, [])]
    out = [ast.Assign([_store(target)], init), *inner]
    for stmt in out:
        for node in _walk(stmt):
            ast.copy_location(node, at) if not hasattr(node, "lineno") else None
    return out


def _load(target: ast.expr) -> ast.expr:
    node = copy.deepcopy(target)
    for n in _walk(node):
        if hasattr(n, "ctx"):
            n.ctx = ast.Load()
    return node


def _store(target: ast.expr) -> ast.expr:
    node = copy.deepcopy(target)
    if hasattr(node, "ctx"):
        node.ctx = ast.Store()
    return node


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp)


class _Hoister:
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
        found = [n for part in parts for n in _walk(part) if isinstance(n, _COMPREHENSIONS)]
        if not found or isinstance(stmt, ast.While):
            return None        # a while test is evaluated again each round: leave it
        comp = found[0]
        # A comprehension whose variables are used in its own parts stays (a nested one).
        self.count += 1
        temp = ast.Name(f"_comprehension{self.count}", ast.Store())
        self.created.add(temp.id)
        loops = _loop_of_comprehension(temp, comp, stmt)
        _replace(stmt, comp, ast.Name(temp.id, ast.Load()))
        return loops + [stmt]


def _replace(root: ast.AST, old: ast.AST, new: ast.AST) -> None:
    for node in _walk(root):
        for name, value in ast.iter_fields(node):
            if value is old:
                setattr(node, name, new)
                return
            if isinstance(value, list):
                for index, item in enumerate(value):
                    if item is old:
                        value[index] = new
                        return


def _counting_while(init: ast.stmt | None, loop: ast.While) -> ast.For | None:
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
    writes = [i for i, s in enumerate(loop.body) if counter in _stores(s)]
    if len(writes) != 1 or not _is_increment(loop.body[writes[0]], counter):
        return None
    if any(counter in _loads(s) for s in loop.body[writes[0] + 1:]):
        return None
    stop = test.comparators[0]
    if counter in _loads(stop) or _stores(stop):
        return None
    if isinstance(test.ops[0], ast.LtE):
        stop = ast.BinOp(stop, ast.Add(), ast.Constant(1))
    start = init.value if init is not None else None
    args = [stop] if start is None or _constant(start) == 0 else [start, stop]
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
    return any(isinstance(a, ast.Name) and a.id == counter and _constant(b) == 1
               for a, b in (sides, sides[::-1]))


def _conditional_expression(stmt: ast.If) -> ast.stmt | None:
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
    return ast.copy_location(_Expressions().visit(made), stmt)


def _for_each(loop: ast.For, hoist: "_Hoister") -> None:
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
    if {index, sequence} & _stores(body):
        return
    uses = [n for n in _walk(body) if isinstance(n, ast.Name) and n.id == index]
    items = [n for n in _walk(body) if isinstance(n, ast.Subscript)
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


def _loop_of_reduction(stmt: ast.stmt, target: ast.expr | None) -> list[ast.stmt] | None:
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
        after = [ast.Return(ast.Constant(not found))]
    elif isinstance(stmt, ast.Assign) and kind == "sum" and isinstance(target, ast.Name):
        total = ast.BinOp(ast.Name(target.id, ast.Load()), ast.Add(), generator.elt)
        inner = [ast.Assign([ast.Name(target.id, ast.Store())], total)]
        after = []
        before = [ast.Assign([ast.Name(target.id, ast.Store())], ast.Constant(0))]
    else:
        return None
    for comprehension in reversed(generator.generators):
        for condition in reversed(comprehension.ifs):
            inner = [ast.If(condition, inner, [])]
        inner = [ast.For(comprehension.target, comprehension.iter, inner, [])]
    made = (before if kind == "sum" else []) + inner + after
    for new in made:
        for node in _walk(new):
            if "lineno" in node._attributes and not hasattr(node, "lineno"):
                ast.copy_location(node, stmt)
    return made


# ------------------------------------------------------------------ the rewriting
class Canonicaliser:
    """Rewrites one parsed module into canonical form (see the module docstring)."""

    def __init__(self, tree: ast.Module, interface: frozenset[str]):
        self.tree = tree
        self.interface = interface
        self.hoist = _Hoister()
        self.budget = MAX_INLINED           # nodes inlining may still add, for the module
        self.depth = 0                      # blocks nested by `if c: return` + rest
        self.cache: dict[int, tuple] = {}     # id -> (statement, facts, key), one pass

    def run(self) -> ast.Module:
        tree = self.tree
        tree.body = [s for s in tree.body if not isinstance(s, ast.Import | ast.ImportFrom)]
        settled: dict[int, int] = {}    # id(function) -> its shape when it last settled
        for _ in range(MAX_ROUNDS):
            self.functions = {s.name: s for s in tree.body if isinstance(s, ast.FunctionDef)}
            self.purity = _Purity(self.functions)
            changed = self._inline()
            for function in self.functions.values():
                if settled.get(id(function)) == _signature(function):
                    continue            # nothing happened to it since it settled
                self._settle(function)
                settled[id(function)] = _signature(function)
                changed = True
            rest = [_Expressions().visit(s) for s in tree.body
                    if not isinstance(s, ast.FunctionDef)]
            self.cache = {}
            tree.body = self._block(rest, scope_loads=None) + list(self.functions.values())
            if not self._drop_unused_functions() and not changed:
                break
        self._order_functions()
        return tree

    def _settle(self, function: ast.FunctionDef) -> None:
        """Rewrite one function until a pass changes nothing (a variable read only by
        a dead one dies in the next pass, a negation pushed in may turn a branch)."""
        for _ in range(MAX_ROUNDS):
            before = _signature(function)
            _Expressions().visit(function)
            self.cache = {}
            self._function(function)
            if _signature(function) == before:
                return

    def _function(self, function: ast.FunctionDef) -> None:
        """One pass over a function."""
        function.body = self._block(function.body, self._observed(function)) or [ast.Pass()]

    def _observed(self, function: ast.AST) -> set[str]:
        """Names whose value the function reads somewhere: a name only ever
        assigned, or only filled (`t.append(...)`, `t[i] = ...`), is not. A name
        declared global or nonlocal is observed (someone else may read it)."""
        ignored = set()
        observed = set()
        nodes = _walk(function)
        for node in nodes:
            kind = type(node)
            if kind is ast.Expr:
                call = node.value
                if type(call) is ast.Call and type(call.func) is ast.Attribute and \
                        call.func.attr in MUTATING_METHODS and type(call.func.value) is ast.Name:
                    ignored.add(id(call.func.value))
            elif kind is ast.Assign or kind is ast.Delete:
                for target in node.targets:
                    inner = target
                    while type(inner) is ast.Subscript or type(inner) is ast.Attribute:
                        inner = inner.value
                    if inner is not target and type(inner) is ast.Name:
                        ignored.add(id(inner))
            elif kind is ast.Global or kind is ast.Nonlocal:
                observed.update(node.names)
        for node in nodes:
            if type(node) is ast.Name and type(node.ctx) is ast.Load and id(node) not in ignored:
                observed.add(node.id)
        return observed

    def _block(self, block: list[ast.stmt], scope_loads: set[str] | None) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        queue = deque(block)
        while queue:
            stmt = queue.popleft()
            replaced = self._statement(stmt, scope_loads)
            if replaced is None:
                continue
            if isinstance(replaced, list):
                queue.extendleft(reversed(replaced))
                continue
            stmt = replaced
            if isinstance(stmt, ast.While) and scope_loads is not None:
                init = self._initialiser(out, stmt)
                loop = _counting_while(init, stmt)
                if loop is not None:
                    stmt = loop
            out.append(stmt)
            if isinstance(stmt, _EXITS):
                break                       # the rest cannot run
            if isinstance(stmt, ast.If) and not stmt.orelse and _ends_in_exit(stmt.body) \
                    and queue and self.depth < MAX_NESTED:
                # `if c: return a` + rest is `if c: return a` / `else: rest`
                self.depth += 1
                try:
                    stmt.orelse = self._block(list(queue), scope_loads)
                finally:
                    self.depth -= 1
                self._orient(stmt)
                queue = deque()
        return self._order(out)

    def _initialiser(self, done: list[ast.stmt], loop: ast.While) -> ast.Assign | None:
        """The statement before a `while` that starts its counter, if any (removed
        from `done`: the `for` it becomes starts the counter itself)."""
        if not (isinstance(loop.test, ast.Compare) and isinstance(loop.test.left, ast.Name)):
            return None
        counter = loop.test.left.id
        for index in range(len(done) - 1, -1, -1):
            stmt = done[index]
            if counter in _stores(stmt):
                if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
                        isinstance(stmt.targets[0], ast.Name) and \
                        counter not in _loads(stmt.value) and \
                        isinstance(_constant(stmt.value), int):
                    del done[index]
                    return stmt
                return None
            if counter in _loads(stmt):
                return None
        return None

    def _statement(self, stmt: ast.stmt, observed: set[str] | None):
        """The statement rewritten: None to drop it, a list to put in its place
        (rewritten in turn), or a statement."""
        pure = self.purity.expression
        if isinstance(stmt, ast.Pass | ast.Global | ast.Nonlocal | ast.Import | ast.ImportFrom):
            return None
        if isinstance(stmt, ast.Expr):
            call = stmt.value
            if observed is not None and type(call) is ast.Call and \
                    type(call.func) is ast.Attribute and call.func.attr in MUTATING_METHODS \
                    and type(call.func.value) is ast.Name and \
                    call.func.value.id not in observed and \
                    call.func.value.id not in self.hoist.created and \
                    all(pure(a) for a in call.args):
                return None                     # filling a list nobody reads
            return None if pure(stmt.value) else stmt
        if isinstance(stmt, ast.AugAssign):
            value = ast.BinOp(_load(stmt.target), stmt.op, stmt.value)
            return [ast.copy_location(ast.Assign([stmt.target], value), stmt)]
        if isinstance(stmt, ast.AnnAssign):
            if stmt.value is None:
                return None
            return [ast.copy_location(ast.Assign([stmt.target], stmt.value), stmt)]
        if isinstance(stmt, ast.Assert):
            value = _constant(stmt.test)
            return None if value is not _UNKNOWN and value else stmt
        if isinstance(stmt, ast.Assign):
            return self._assignment(stmt, observed)
        if isinstance(stmt, ast.Delete):
            kept = [t for t in stmt.targets if not (
                observed is not None and isinstance(t, ast.Name) and t.id not in observed)]
            if not kept:
                return None
            stmt.targets = kept
            return stmt
        if isinstance(stmt, ast.If):
            value = _constant(stmt.test)
            if value is not _UNKNOWN:
                return (stmt.body if value else stmt.orelse) or None
            stmt.body = self._block(stmt.body, observed)
            stmt.orelse = self._block(stmt.orelse, observed)
            if not stmt.body and not stmt.orelse:
                return None if pure(stmt.test) else ast.copy_location(ast.Expr(stmt.test), stmt)
            if not stmt.body:
                stmt.test, stmt.body, stmt.orelse = negate(stmt.test), stmt.orelse, []
            self._orient(stmt)
            return _conditional_expression(stmt) or stmt
        if isinstance(stmt, ast.While):
            value = _constant(stmt.test)
            if value is not _UNKNOWN and not value:
                return stmt.orelse or None
            stmt.body = self._block(stmt.body, observed)
            stmt.orelse = self._block(stmt.orelse, observed)
            return stmt
        if isinstance(stmt, ast.For):
            if _never_iterates(stmt.iter):
                return stmt.orelse or None
            _for_each(stmt, self.hoist)
            stmt.body = self._block(stmt.body, observed)
            stmt.orelse = self._block(stmt.orelse, observed)
            loop_names = _stores(stmt.target)
            if not stmt.body and not stmt.orelse and pure(stmt.iter) and (
                    observed is None or not loop_names & observed):
                return None
            hoisted = self.hoist(stmt)
            return hoisted if hoisted is not None else stmt
        if isinstance(stmt, ast.Try):
            stmt.body = self._block(stmt.body, observed)
            if not stmt.body:
                return stmt.finalbody or None
            for handler in stmt.handlers:
                handler.body = self._block(handler.body, observed) or [ast.Pass()]
            stmt.orelse = self._block(stmt.orelse, observed)
            stmt.finalbody = self._block(stmt.finalbody, observed)
            return stmt
        if isinstance(stmt, ast.With):
            stmt.body = self._block(stmt.body, observed)
            return stmt
        if isinstance(stmt, ast.FunctionDef) and observed is not None:
            if stmt.name not in observed:
                return None                     # a nested function nobody calls
            self._function(stmt)
            return stmt
        if isinstance(stmt, ast.Return | ast.Raise):
            loop = _loop_of_reduction(stmt, None)
            if loop is not None:
                return loop
            hoisted = self.hoist(stmt)
            return hoisted if hoisted is not None else stmt
        return stmt

    def _assignment(self, stmt: ast.Assign, observed: set[str] | None):
        pure = self.purity.expression
        if len(stmt.targets) > 1:               # a = b = v
            return [ast.copy_location(ast.Assign([t], copy.deepcopy(stmt.value)), stmt)
                    for t in stmt.targets]
        target = stmt.targets[0]
        if isinstance(target, ast.Name) and isinstance(stmt.value, ast.Name) and \
                target.id == stmt.value.id:
            return None                         # x = x
        if observed is not None:
            names = [n.id for n in _walk(target) if isinstance(n, ast.Name)]
            if any(n in self.hoist.created for n in names):
                names = []              # made this pass for a comprehension: it is read
            base = _base_name(target)
            dead = bool(names) and all(n not in observed for n in names) if isinstance(
                target, ast.Name | ast.Tuple | ast.List) else (base is not None
                                                               and base not in observed)
            if dead:
                if pure(stmt.value) and (isinstance(target, ast.Name | ast.Tuple | ast.List)
                                         or pure(target)):
                    return None
                if isinstance(target, ast.Name):
                    return [ast.copy_location(ast.Expr(stmt.value), stmt)]
        # a, b = 1, 2 is a = 1; b = 2 (not a swap: no target is read on the right)
        if isinstance(target, ast.Tuple) and isinstance(stmt.value, ast.Tuple) and \
                len(target.elts) == len(stmt.value.elts) and \
                all(isinstance(t, ast.Name) for t in target.elts) and \
                not {t.id for t in target.elts} & _loads(stmt.value):
            return [ast.copy_location(ast.Assign([t], v), stmt)
                    for t, v in zip(target.elts, stmt.value.elts)]
        loop = _loop_of_reduction(stmt, target)
        if loop is not None:
            return loop
        hoisted = self.hoist(stmt)
        return hoisted if hoisted is not None else stmt

    def _orient(self, stmt: ast.If) -> None:
        """Of `if c: A else: B` and `if not c: B else: A`, keep the one whose test
        sorts first (both ways of writing it give the same)."""
        if not stmt.orelse:
            return
        flipped = negate(stmt.test)
        if _key(flipped) < _key(stmt.test):
            stmt.test, stmt.body, stmt.orelse = flipped, stmt.orelse, stmt.body

    # ---------------------------------------------------------- order
    def _order(self, block: list[ast.stmt]) -> list[ast.stmt]:
        """The block with independent statements sorted by shape: a statement stays
        after every earlier one it reads, writes or that writes what it reads;
        exits and statements with effects keep their order among themselves."""
        if len(block) < 2 or len(block) > MAX_SORTED:
            return block
        info = [self._facts(stmt) for stmt in block]
        after: list[set[int]] = [set() for _ in block]
        for j in range(len(block)):
            rj, wj, ej = info[j]
            for i in range(j):
                ri, wi, ei = info[i]
                if wi & (rj | wj) or ri & wj or (ei and ej) or (
                        isinstance(block[i], _EXITS) or isinstance(block[j], _EXITS)):
                    after[j].add(i)
        keys = [self._key(s) for s in block]
        placed: list[int] = []
        done: set[int] = set()
        while len(placed) < len(block):
            ready = [i for i in range(len(block)) if i not in done and after[i] <= done]
            pick = min(ready, key=lambda i: (keys[i], i))
            placed.append(pick)
            done.add(pick)
        return [block[i] for i in placed]

    def _facts(self, stmt: ast.stmt) -> tuple[set[str], set[str], bool]:
        """(names read, names written, whether it has an effect or exits) of a
        statement and everything in it; built from its child statements' facts,
        which are kept for the rest of the pass."""
        hit = self.cache.get(id(stmt))
        if hit is not None and hit[0] is stmt and hit[1] is not None:
            return hit[1]
        reads: set[str] = set()
        writes: set[str] = set()
        effect = isinstance(stmt, _EXITS)
        parts: list[ast.AST] = []
        for name in type(stmt)._fields:
            value = getattr(stmt, name, None)
            if type(value) is list and value and isinstance(value[0], ast.stmt):
                for child in value:
                    r, w, e = self._facts(child)
                    reads |= r
                    writes |= w
                    effect = effect or e
            elif type(value) is list and value and isinstance(value[0], ast.ExceptHandler):
                for handler in value:
                    if handler.type is not None:
                        parts.append(handler.type)
                    if handler.name:
                        writes.add(handler.name)
                    for child in handler.body:
                        r, w, e = self._facts(child)
                        reads |= r
                        writes |= w
                        effect = effect or e
            elif type(value) is list:
                parts.extend(v for v in value if isinstance(v, ast.AST))
            elif isinstance(value, ast.AST):
                parts.append(value)
        if isinstance(stmt, ast.FunctionDef | ast.ClassDef | ast.AsyncFunctionDef):
            writes.add(stmt.name)
        for part in parts:
            nodes = _walk(part)
            reads |= {n.id for n in nodes if type(n) is ast.Name and type(n.ctx) is ast.Load}
            writes |= _stores_in(nodes)
            if not effect and not self.purity.nodes(nodes):
                effect = True
        facts = (reads, writes, effect)
        self.cache[id(stmt)] = (stmt, facts, hit[2] if hit is not None and hit[0] is stmt
                                else None)
        return facts

    def _key(self, stmt: ast.stmt) -> str:
        """`_key(stmt)`, built from its child statements' keys, which are kept for
        the rest of the pass (each statement's shape is worked out once per pass)."""
        hit = self.cache.get(id(stmt))
        if hit is not None and hit[0] is stmt and hit[2] is not None:
            return hit[2]
        parts = [type(stmt).__name__]
        for name in type(stmt)._fields:
            value = getattr(stmt, name, None)
            if type(value) is list and value and isinstance(value[0], ast.stmt):
                parts.append("[" + ";".join(self._key(child) for child in value) + "]")
            elif type(value) is list and value and isinstance(value[0], ast.ExceptHandler):
                parts.append("[" + ";".join(
                    _key(h.type) + "[" + ";".join(self._key(c) for c in h.body) + "]"
                    if h.type is not None else "[" + ";".join(self._key(c) for c in h.body) + "]"
                    for h in value) + "]")
            elif type(value) is list:
                parts.append("(" + ",".join(_key(v) for v in value if isinstance(v, ast.AST))
                             + ")")
            elif isinstance(value, ast.AST):
                parts.append(_key(value))
            elif name in ("name", "id", "arg"):
                parts.append(NAME)
        key = " ".join(parts)
        facts = hit[1] if hit is not None and hit[0] is stmt else None
        self.cache[id(stmt)] = (stmt, facts, key)
        return key

    def _order_functions(self) -> None:
        """Module-level code first (in its order), then the interface's functions in
        order of name, each followed by the helpers it calls, depth first."""
        functions = {s.name: s for s in self.tree.body if isinstance(s, ast.FunctionDef)}
        rest = [s for s in self.tree.body if not isinstance(s, ast.FunctionDef)]
        order: list[str] = []

        def visit(name: str) -> None:
            if name in order or name not in functions:
                return
            order.append(name)
            for node in _walk(functions[name]):
                if isinstance(node, ast.Name) and node.id in functions:
                    visit(node.id)

        for name in sorted(n for n in functions if n in self.interface):
            visit(name)
        for node in _walk(ast.Module(rest, [])):
            if isinstance(node, ast.Name):
                visit(node.id)
        leftover = sorted((n for n in functions if n not in order),
                          key=lambda n: _key(functions[n]))
        for name in leftover:
            visit(name)
        self.tree.body = rest + [functions[n] for n in order]

    def _drop_unused_functions(self) -> bool:
        """Helpers that no interface function and no module-level code reaches;
        whether there were any."""
        functions = {s.name: s for s in self.tree.body if isinstance(s, ast.FunctionDef)}
        if not self.interface & set(functions):
            return False            # not this assignment's module, it seems: keep all
        reached: set[str] = set()
        todo = [n for n in functions if n in self.interface]
        todo += [n.id for s in self.tree.body if not isinstance(s, ast.FunctionDef)
                 for n in _walk(s) if isinstance(n, ast.Name)]
        while todo:
            name = todo.pop()
            if name in reached or name not in functions:
                continue
            reached.add(name)
            todo.extend(n.id for n in _walk(functions[name]) if isinstance(n, ast.Name))
        before = len(self.tree.body)
        self.tree.body = [s for s in self.tree.body if not (
            isinstance(s, ast.FunctionDef) and s.name not in reached)]
        return len(self.tree.body) != before

    # ---------------------------------------------------------- inlining
    def _inline(self) -> bool:
        """Put every helper that is not recursive, not decorated and takes plain
        positional parameters where it is called, in the three shapes a call can
        be replaced by a body: `return h(...)`, `x = h(...)` (a helper with one
        return, at its end) and `h(...)` (a helper that returns nothing); and a
        helper that is one `return expression` wherever it is called. Whether
        anything was inlined."""
        helpers = {n: f for n, f in self.functions.items() if self._inlinable(f)}
        if not helpers:
            return False
        recursive = self._recursive(helpers)
        helpers = {n: f for n, f in helpers.items() if n not in recursive}
        if not helpers or self.budget <= 0:
            return False
        self.inlined = 0
        for function in self.tree.body:
            if isinstance(function, ast.FunctionDef):
                function.body = self._inline_block(function.body, helpers, {function.name})
        return self.inlined > 0

    def _inlinable(self, function: ast.FunctionDef) -> bool:
        args = function.args
        nodes = _walk(ast.Module(function.body, []))
        return (function.name not in self.interface and not function.decorator_list
                and len(nodes) <= MAX_HELPER_NODES
                and not (args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs
                         or args.defaults)
                and not any(isinstance(n, ast.Yield | ast.YieldFrom | ast.Global
                                       | ast.Nonlocal | ast.FunctionDef | ast.Lambda)
                            for n in nodes))

    def _recursive(self, helpers: dict[str, ast.FunctionDef]) -> set[str]:
        calls = {n: {c.id for c in _walk(f) if isinstance(c, ast.Name) and c.id in
                     self.functions} for n, f in self.functions.items()}
        found = set()
        for start in helpers:
            seen, todo = set(), list(calls[start])
            while todo:
                name = todo.pop()
                if name == start:
                    found.add(start)
                    break
                if name in seen:
                    continue
                seen.add(name)
                todo.extend(calls.get(name, ()))
        return found

    def _inline_block(self, block, helpers, inside: set[str]) -> list[ast.stmt]:
        out = []
        for stmt in block:
            for name in _body_fields(stmt):
                setattr(stmt, name, self._inline_block(getattr(stmt, name), helpers, inside))
            if isinstance(stmt, ast.Try):
                for handler in stmt.handlers:
                    handler.body = self._inline_block(handler.body, helpers, inside)
            body = None
            if self.budget > 0:
                body = self._inline_statement(stmt, helpers, inside)
            if body is None:
                if self.budget > 0:
                    self._inline_expressions(stmt, helpers)
                out.append(stmt)
            else:
                self.budget -= sum(len(_walk(s)) for s in body)
                self.inlined += 1
                out.extend(body)
        return out

    def _call_of(self, node, helpers) -> tuple[ast.FunctionDef, ast.Call] | None:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id in helpers and not node.keywords and \
                not any(isinstance(a, ast.Starred) for a in node.args) and \
                len(node.args) == len(helpers[node.func.id].args.args):
            return helpers[node.func.id], node
        return None

    def _bound_body(self, function: ast.FunctionDef, call: ast.Call) -> list[ast.stmt]:
        """The helper's body with its parameters bound to the call's arguments: a
        parameter given a plain variable (never assigned in the helper) takes its
        name; any other gets an assignment first."""
        body = copy.deepcopy(function.body)
        assigned = set().union(*(_stores(s) for s in body)) if body else set()
        prefix, names = [], {}
        for param, arg in zip(function.args.args, call.args):
            if isinstance(arg, ast.Name) and param.arg not in assigned and \
                    arg.id not in assigned:
                names[param.arg] = arg.id
            elif param.arg != getattr(arg, "id", None):
                prefix.append(ast.copy_location(
                    ast.Assign([ast.Name(param.arg, ast.Store())], copy.deepcopy(arg)), call))
        for stmt in body:
            for node in _walk(stmt):
                if isinstance(node, ast.Name) and node.id in names:
                    node.id = names[node.id]
        return prefix + body

    def _inline_statement(self, stmt, helpers, inside) -> list[ast.stmt] | None:
        if isinstance(stmt, ast.Return):
            found = self._call_of(stmt.value, helpers)
            if found and found[0].name not in inside:
                return self._inline_block(self._bound_body(*found), helpers,
                                          inside | {found[0].name})
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            found = self._call_of(stmt.value, helpers)
            if found and found[0].name not in inside:
                function = found[0]
                returns = [n for n in _walk(ast.Module(function.body, []))
                           if isinstance(n, ast.Return)]
                if len(returns) == 1 and function.body and function.body[-1] is returns[0]:
                    body = self._bound_body(*found)
                    last = body.pop()
                    value = last.value or ast.Constant(None)
                    body.append(ast.copy_location(ast.Assign(stmt.targets, value), stmt))
                    return self._inline_block(body, helpers, inside | {function.name})
        if isinstance(stmt, ast.Expr):
            found = self._call_of(stmt.value, helpers)
            if found and found[0].name not in inside and not any(
                    isinstance(n, ast.Return) for n in _walk(ast.Module(found[0].body, []))):
                return self._inline_block(self._bound_body(*found), helpers,
                                          inside | {found[0].name})
        return None

    def _inline_expressions(self, stmt, helpers) -> None:
        """Helpers that are one `return expression`, inlined inside expressions."""
        simple = {n: f for n, f in helpers.items()
                  if len(f.body) == 1 and isinstance(f.body[0], ast.Return) and f.body[0].value}
        if not simple:
            return

        class Inline(ast.NodeTransformer):
            def visit_Call(inner, node):
                inner.generic_visit(node)
                found = self._call_of(node, simple)
                if not found or self.budget <= 0:
                    return node
                function, call = found
                expression = copy.deepcopy(function.body[0].value)
                uses = Counter(n.id for n in _walk(expression) if isinstance(n, ast.Name))
                bound = {}
                for param, arg in zip(function.args.args, call.args):
                    if uses[param.arg] > 1 and not isinstance(arg, ast.Name | ast.Constant):
                        return node         # would evaluate the argument twice
                    bound[param.arg] = arg
                self.inlined += 1
                self.budget -= len(_walk(expression))

                class Bind(ast.NodeTransformer):
                    def visit_Name(self, name):
                        if name.id in bound and isinstance(name.ctx, ast.Load):
                            return copy.deepcopy(bound[name.id])
                        return name
                return Bind().visit(expression)

        for name, value in ast.iter_fields(stmt):
            if isinstance(value, ast.expr):
                setattr(stmt, name, Inline().visit(value))


# ------------------------------------------------------------------ output
class _Emitter:
    """The canonical tree as a stream of token codes, each with the line of the
    student's file its statement came from."""

    def __init__(self, kept: frozenset[str]):
        self.kept = kept
        self.codes: list[int] = []
        self.lines: list[int] = []
        self.line = 0

    def emit(self, text: str) -> None:
        self.codes.append(code_of(text))
        self.lines.append(self.line)

    def name(self, name: str) -> None:
        self.emit(name if name in self.kept or name in _BUILTINS else NAME)

    def block(self, block: list[ast.stmt]) -> None:
        self.emit("<indent>")
        for stmt in block:
            self.statement(stmt)
        self.emit("<dedent>")

    def statement(self, stmt: ast.stmt) -> None:
        self.line = getattr(stmt, "lineno", self.line)
        self.header(stmt)
        self.emit("<newline>")
        if isinstance(stmt, ast.Try):
            self.block(stmt.body)
            for handler in stmt.handlers:
                self.emit("except")
                if handler.type:
                    self.expression(handler.type)
                self.emit("<newline>")
                self.block(handler.body)
            for name, word in (("orelse", "else"), ("finalbody", "finally")):
                if getattr(stmt, name):
                    self.emit(word)
                    self.emit("<newline>")
                    self.block(getattr(stmt, name))
            return
        if isinstance(stmt, ast.FunctionDef | ast.For | ast.While | ast.If | ast.With
                      | ast.ClassDef | ast.AsyncFunctionDef | ast.AsyncFor | ast.AsyncWith):
            self.block(stmt.body)
            if getattr(stmt, "orelse", None):
                self.emit("else")
                self.emit("<newline>")
                self.block(stmt.orelse)

    def header(self, stmt: ast.stmt) -> None:
        for part in statement_header(stmt):
            if isinstance(part, ast.AST):
                self.expression(part)
            elif isinstance(part, tuple):
                self.name(part[1])
            else:
                self.emit(part)

    def expression(self, node: ast.AST) -> None:
        _ExpressionEmitter(self).visit(node)


def statement_header(stmt: ast.stmt) -> list:
    """A statement's own tokens (a compound statement's header), as a list of
    strings and expression nodes."""
    kind = type(stmt)
    if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
        parts = ["def", ("name", stmt.name), "("]
        for arg in stmt.args.args + stmt.args.kwonlyargs:
            parts += [("name", arg.arg), ","]
        return parts + [")"]
    if kind is ast.ClassDef:
        return ["class", ("name", stmt.name), *stmt.bases]
    if kind is ast.For or kind is ast.AsyncFor:
        return ["for", stmt.target, "in", stmt.iter]
    if kind is ast.While:
        return ["while", stmt.test]
    if kind is ast.If:
        return ["if", stmt.test]
    if kind is ast.With or kind is ast.AsyncWith:
        return ["with", *[i.context_expr for i in stmt.items]]
    if kind is ast.Try:
        return ["try"]
    if kind is ast.Return:
        return ["return"] + ([stmt.value] if stmt.value else [])
    if kind is ast.Raise:
        return ["raise"] + ([stmt.exc] if stmt.exc else [])
    if kind is ast.Assign:
        parts = []
        for target in stmt.targets:
            parts += [target, "="]
        return parts + [stmt.value]
    if kind is ast.Expr:
        return [stmt.value]
    if kind is ast.Delete:
        return ["del", *stmt.targets]
    if kind is ast.Assert:
        return ["assert", stmt.test]
    return [kind.__name__.lower()]


_OPERATORS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
              ast.Mod: "%", ast.Pow: "**", ast.LShift: "<<", ast.RShift: ">>",
              ast.BitOr: "|", ast.BitXor: "^", ast.BitAnd: "&", ast.MatMult: "@",
              ast.And: "and", ast.Or: "or", ast.Not: "not", ast.USub: "-", ast.UAdd: "+",
              ast.Invert: "~", ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=",
              ast.Gt: ">", ast.GtE: ">=", ast.Is: "is", ast.IsNot: "is not", ast.In: "in",
              ast.NotIn: "not in"}


class _ExpressionEmitter(ast.NodeVisitor):
    def __init__(self, out: _Emitter):
        self.out = out

    def visit(self, node):
        if isinstance(node, tuple):             # ("name", text) from a header
            self.out.name(node[1])
            return
        if isinstance(node, str):
            self.out.emit(node)
            return
        return super().visit(node)

    def generic_visit(self, node):
        self.out.emit(type(node).__name__)
        self.out.emit("(")
        for child in ast.iter_child_nodes(node):
            self.visit(child)
        self.out.emit(")")

    def visit_Name(self, node):
        self.out.name(node.id)

    def visit_Constant(self, node):
        value = node.value
        self.out.emit("S" if isinstance(value, str | bytes) else repr(value))

    def visit_Attribute(self, node):
        self.visit(node.value)
        self.out.emit("." + node.attr)

    def visit_Call(self, node):
        self.visit(node.func)
        self.out.emit("(")
        for arg in node.args:
            self.visit(arg)
            self.out.emit(",")
        for keyword in node.keywords:
            self.out.emit(f"{keyword.arg}=")
            self.visit(keyword.value)
            self.out.emit(",")
        self.out.emit(")")

    def visit_BinOp(self, node):
        self.out.emit("(")
        self.visit(node.left)
        self.out.emit(_OPERATORS[type(node.op)])
        self.visit(node.right)
        self.out.emit(")")

    def visit_BoolOp(self, node):
        self.out.emit("(")
        for index, value in enumerate(node.values):
            if index:
                self.out.emit(_OPERATORS[type(node.op)])
            self.visit(value)
        self.out.emit(")")

    def visit_UnaryOp(self, node):
        self.out.emit(_OPERATORS[type(node.op)])
        self.visit(node.operand)

    def visit_Compare(self, node):
        self.visit(node.left)
        for op, right in zip(node.ops, node.comparators):
            self.out.emit(_OPERATORS[type(op)])
            self.visit(right)

    def visit_Subscript(self, node):
        self.visit(node.value)
        self.out.emit("[")
        self.visit(node.slice)
        self.out.emit("]")

    def _sequence(self, opener, items, closer):
        self.out.emit(opener)
        for item in items:
            self.visit(item)
            self.out.emit(",")
        self.out.emit(closer)

    def visit_Tuple(self, node):
        self._sequence("(", node.elts, ")")

    def visit_List(self, node):
        self._sequence("[", node.elts, "]")

    def visit_Set(self, node):
        self._sequence("{", node.elts, "}")

    def visit_Dict(self, node):
        self.out.emit("{")
        for key, value in zip(node.keys, node.values):
            if key is not None:
                self.visit(key)
            self.out.emit(":")
            self.visit(value)
            self.out.emit(",")
        self.out.emit("}")

    def visit_IfExp(self, node):
        self.out.emit("ifexp")
        for part in (node.test, node.body, node.orelse):
            self.visit(part)

    def visit_Lambda(self, node):
        self.out.emit("lambda")
        for arg in node.args.args:
            self.out.name(arg.arg)
        self.out.emit(":")
        self.visit(node.body)

    def visit_GeneratorExp(self, node):
        self._comprehension("gen", [node.elt], node.generators)

    def visit_ListComp(self, node):
        self._comprehension("listcomp", [node.elt], node.generators)

    def visit_SetComp(self, node):
        self._comprehension("setcomp", [node.elt], node.generators)

    def visit_DictComp(self, node):
        self._comprehension("dictcomp", [node.key, node.value], node.generators)

    def _comprehension(self, kind, parts, generators):
        self.out.emit(kind)
        for part in parts:
            self.visit(part)
        for generator in generators:
            self.out.emit("for")
            self.visit(generator.target)
            self.out.emit("in")
            self.visit(generator.iter)
            for condition in generator.ifs:
                self.out.emit("if")
                self.visit(condition)
        self.out.emit("end")

    def visit_Starred(self, node):
        self.out.emit("*")
        self.visit(node.value)

    def visit_JoinedStr(self, node):
        self.out.emit("S")

    def visit_Slice(self, node):
        for part in (node.lower, node.upper, node.step):
            if part is not None:
                self.visit(part)
            self.out.emit(":")


# ------------------------------------------------------------------ entry
def canonical(source: str, interface: frozenset[str] = frozenset()) -> Canonical:
    """`source` (already decoded) in canonical form. `interface` names the functions
    and constants the assignment fixes (kept as they are; every other name is V).
    A file that does not parse gives an empty, incomplete result."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return Canonical(complete=False)
    if len(_walk(tree)) > MAX_NODES:
        return Canonical(complete=False, problem=f"more than {MAX_NODES:,} syntax-tree nodes: "
                                                 "compared as text only")
    try:
        tree = Canonicaliser(tree, interface).run()
        emitter = _Emitter(interface)
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

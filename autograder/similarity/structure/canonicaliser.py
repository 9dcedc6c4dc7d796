"""The rounds that rewrite one parsed module into canonical form (see __init__.py):
dead code dropped, helpers inlined, statements and functions in canonical order."""

from __future__ import annotations

import ast
import copy
from collections import Counter, deque

from .expressions import Expressions, negate
from .purity import Purity
from .statements import (Hoister, as_load, body_fields, conditional_expression,
                         counting_while, ends_in_exit, for_each, loop_of_reduction)
from .trees import (EXITS, MUTATING_METHODS, NAME, UNKNOWN, base_name, constant_value,
                    names_read, names_written, names_written_in, never_iterates, shape_key,
                    signature, walk)

#: A helper larger than this stays where it is (see MAX_INLINED in __init__.py).
MAX_HELPER_NODES = 2_000
#: A block longer than this keeps its order (sorting it is quadratic).
MAX_SORTED = 400
#: `if c: return a` + rest becomes `if`/`else` up to this depth (a wall of such
#: statements would otherwise nest past what can be walked).
MAX_NESTED = 40
#: Rounds of rewriting before the form is taken as it is (each round only shrinks
#: or reorders; a pathological file stops here rather than looping).
MAX_ROUNDS = 8


class Canonicaliser:
    """Rewrites one parsed module into canonical form (see the package docstring),
    inlining at most `budget` nodes in all (MAX_INLINED)."""

    def __init__(self, tree: ast.Module, interface: frozenset[str], budget: int):
        self.tree = tree
        self.interface = interface
        self.hoist = Hoister()
        self.budget = budget                # nodes inlining may still add, for the module
        self.depth = 0                      # blocks nested by `if c: return` + rest
        self.cache: dict[int, tuple] = {}     # id -> (statement, _facts), one pass

    def run(self) -> ast.Module:
        tree = self.tree
        tree.body = [s for s in tree.body if not isinstance(s, ast.Import | ast.ImportFrom)]
        settled: dict[int, int] = {}    # id(function) -> its shape when it last settled
        for _ in range(MAX_ROUNDS):
            self.functions = {s.name: s for s in tree.body if isinstance(s, ast.FunctionDef)}
            self.purity = Purity(self.functions)
            changed = self._inline()
            for function in self.functions.values():
                if settled.get(id(function)) == signature(function):
                    continue            # nothing happened to it since it settled
                self._settle(function)
                settled[id(function)] = signature(function)
                changed = True
            rest = [Expressions().visit(s) for s in tree.body
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
            before = signature(function)
            Expressions().visit(function)
            self.cache = {}
            self._function(function)
            if signature(function) == before:
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
        nodes = walk(function)
        for node in nodes:
            kind = type(node)
            if kind is ast.Expr and (filled := _filled(node.value)) is not None:
                ignored.add(id(filled))
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
                loop = counting_while(init, stmt)
                if loop is not None:
                    stmt = loop
            out.append(stmt)
            if isinstance(stmt, EXITS):
                break                       # the rest cannot run
            if isinstance(stmt, ast.If) and not stmt.orelse and ends_in_exit(stmt.body) \
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
            if counter in names_written(stmt):
                if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
                        isinstance(stmt.targets[0], ast.Name) and \
                        counter not in names_read(stmt.value) and \
                        isinstance(constant_value(stmt.value), int):
                    del done[index]
                    return stmt
                return None
            if counter in names_read(stmt):
                return None
        return None

    def _statement(self, stmt: ast.stmt, observed: set[str] | None):
        """The statement rewritten: None to drop it, a list to put in its place
        (rewritten in turn), or a statement."""
        pure = self.purity.expression
        if isinstance(stmt, ast.Pass | ast.Global | ast.Nonlocal | ast.Import | ast.ImportFrom):
            return None
        if isinstance(stmt, ast.Expr):
            filled = _filled(stmt.value)
            if observed is not None and filled is not None and filled.id not in observed \
                    and filled.id not in self.hoist.created and \
                    all(pure(a) for a in stmt.value.args):
                return None                     # filling a list nobody reads
            return None if pure(stmt.value) else stmt
        if isinstance(stmt, ast.AugAssign):
            value = ast.BinOp(as_load(stmt.target), stmt.op, stmt.value)
            return [ast.copy_location(ast.Assign([stmt.target], value), stmt)]
        if isinstance(stmt, ast.AnnAssign):
            if stmt.value is None:
                return None
            return [ast.copy_location(ast.Assign([stmt.target], stmt.value), stmt)]
        if isinstance(stmt, ast.Assert):
            value = constant_value(stmt.test)
            return None if value is not UNKNOWN and value else stmt
        if isinstance(stmt, ast.Assign):
            return self._assignment(stmt, observed)
        if isinstance(stmt, ast.Delete):
            stmt.targets = [t for t in stmt.targets if not (
                observed is not None and isinstance(t, ast.Name) and t.id not in observed)]
            return stmt if stmt.targets else None
        if isinstance(stmt, ast.If):
            value = constant_value(stmt.test)
            if value is not UNKNOWN:
                return (stmt.body if value else stmt.orelse) or None
            stmt.body = self._block(stmt.body, observed)
            stmt.orelse = self._block(stmt.orelse, observed)
            if not stmt.body and not stmt.orelse:
                return None if pure(stmt.test) else ast.copy_location(ast.Expr(stmt.test), stmt)
            if not stmt.body:
                stmt.test, stmt.body, stmt.orelse = negate(stmt.test), stmt.orelse, []
            self._orient(stmt)
            return conditional_expression(stmt) or stmt
        if isinstance(stmt, ast.While):
            value = constant_value(stmt.test)
            if value is not UNKNOWN and not value:
                return stmt.orelse or None
            stmt.body = self._block(stmt.body, observed)
            stmt.orelse = self._block(stmt.orelse, observed)
            return stmt
        if isinstance(stmt, ast.For):
            if never_iterates(stmt.iter):
                return stmt.orelse or None
            for_each(stmt, self.hoist)
            stmt.body = self._block(stmt.body, observed)
            stmt.orelse = self._block(stmt.orelse, observed)
            loop_names = names_written(stmt.target)
            if not stmt.body and not stmt.orelse and pure(stmt.iter) and (
                    observed is None or not loop_names & observed):
                return None
            return self.hoist(stmt) or stmt
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
            return loop_of_reduction(stmt, None) or self.hoist(stmt) or stmt
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
            names = [n.id for n in walk(target) if isinstance(n, ast.Name)]
            if any(n in self.hoist.created for n in names):
                names = []              # made this pass for a comprehension: it is read
            base = base_name(target)
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
                not {t.id for t in target.elts} & names_read(stmt.value):
            return [ast.copy_location(ast.Assign([t], v), stmt)
                    for t, v in zip(target.elts, stmt.value.elts)]
        return loop_of_reduction(stmt, target) or self.hoist(stmt) or stmt

    def _orient(self, stmt: ast.If) -> None:
        """Of `if c: A else: B` and `if not c: B else: A`, keep the one whose test
        sorts first (both ways of writing it give the same)."""
        if not stmt.orelse:
            return
        flipped = negate(stmt.test)
        if shape_key(flipped) < shape_key(stmt.test):
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
            rj, wj, ej, _ = info[j]
            for i in range(j):
                ri, wi, ei, _ = info[i]
                if wi & (rj | wj) or ri & wj or (ei and ej) or (
                        isinstance(block[i], EXITS) or isinstance(block[j], EXITS)):
                    after[j].add(i)
        placed: list[int] = []
        done: set[int] = set()
        while len(placed) < len(block):
            ready = [i for i in range(len(block)) if i not in done and after[i] <= done]
            pick = min(ready, key=lambda i: (info[i][3], i))
            placed.append(pick)
            done.add(pick)
        return [block[i] for i in placed]

    def _facts(self, stmt: ast.stmt) -> tuple[set[str], set[str], bool, str]:
        """(names read, names written, whether it has an effect or exits, its
        `shape_key`) of a statement and everything in it, built from its child
        statements' facts, which are kept for the rest of the pass."""
        hit = self.cache.get(id(stmt))
        if hit is not None and hit[0] is stmt:
            return hit[1]
        reads: set[str] = set()
        writes: set[str] = set()
        effect = isinstance(stmt, EXITS)
        parts: list[ast.AST] = []           # its expressions
        children: list[tuple] = []          # its statements' facts
        key = [type(stmt).__name__]
        for name in type(stmt)._fields:
            value = getattr(stmt, name, None)
            if type(value) is list and value and isinstance(value[0], ast.stmt):
                block = [self._facts(child) for child in value]
                children += block
                key.append("[" + ";".join(facts[3] for facts in block) + "]")
            elif type(value) is list and value and isinstance(value[0], ast.ExceptHandler):
                handlers = []
                for handler in value:
                    if handler.type is not None:
                        parts.append(handler.type)
                    if handler.name:
                        writes.add(handler.name)
                    block = [self._facts(child) for child in handler.body]
                    children += block
                    handlers.append((shape_key(handler.type) if handler.type is not None
                                     else "") + "[" + ";".join(f[3] for f in block) + "]")
                key.append("[" + ";".join(handlers) + "]")
            elif type(value) is list:
                expressions = [v for v in value if isinstance(v, ast.AST)]
                parts.extend(expressions)
                key.append("(" + ",".join(map(shape_key, expressions)) + ")")
            elif isinstance(value, ast.AST):
                parts.append(value)
                key.append(shape_key(value))
            elif name in ("name", "id", "arg"):
                key.append(NAME)
        for r, w, e, _ in children:
            reads |= r
            writes |= w
            effect = effect or e
        if isinstance(stmt, ast.FunctionDef | ast.ClassDef | ast.AsyncFunctionDef):
            writes.add(stmt.name)
        for part in parts:
            nodes = walk(part)
            reads |= {n.id for n in nodes if type(n) is ast.Name and type(n.ctx) is ast.Load}
            writes |= names_written_in(nodes)
            if not effect and not self.purity.nodes(nodes):
                effect = True
        facts = (reads, writes, effect, " ".join(key))
        self.cache[id(stmt)] = (stmt, facts)
        return facts

    def _order_functions(self) -> None:
        """Module-level code first (in its order), then every function in `_called`'s
        order."""
        functions = {s.name: s for s in self.tree.body if isinstance(s, ast.FunctionDef)}
        rest = [s for s in self.tree.body if not isinstance(s, ast.FunctionDef)]
        self.tree.body = rest + [functions[n] for n in self._called(functions, rest, True)]

    def _drop_unused_functions(self) -> bool:
        """Helpers that no interface function and no module-level code reaches;
        whether there were any."""
        functions = {s.name: s for s in self.tree.body if isinstance(s, ast.FunctionDef)}
        if not self.interface & set(functions):
            return False            # not this assignment's module, it seems: keep all
        reached = set(self._called(functions, [s for s in self.tree.body
                                               if not isinstance(s, ast.FunctionDef)]))
        before = len(self.tree.body)
        self.tree.body = [s for s in self.tree.body if not (
            isinstance(s, ast.FunctionDef) and s.name not in reached)]
        return len(self.tree.body) != before

    def _called(self, functions: dict[str, ast.FunctionDef], rest: list[ast.stmt],
                everything: bool = False) -> list[str]:
        """The functions the interface's (in order of name) and the module-level code
        `rest` reach, each followed by the helpers it calls, depth first; with
        `everything`, then the others in order of shape, the same way."""
        order: list[str] = []

        def visit(name: str) -> None:
            if name in order or name not in functions:
                return
            order.append(name)
            for node in walk(functions[name]):
                if isinstance(node, ast.Name) and node.id in functions:
                    visit(node.id)

        for name in sorted(n for n in functions if n in self.interface):
            visit(name)
        for node in walk(ast.Module(rest, [])):
            if isinstance(node, ast.Name):
                visit(node.id)
        if everything:
            for name in sorted((n for n in functions if n not in order),
                               key=lambda n: shape_key(functions[n])):
                visit(name)
        return order

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
        nodes = walk(ast.Module(function.body, []))
        return (function.name not in self.interface and not function.decorator_list
                and len(nodes) <= MAX_HELPER_NODES
                and not (args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs
                         or args.defaults)
                and not any(isinstance(n, ast.Yield | ast.YieldFrom | ast.Global
                                       | ast.Nonlocal | ast.FunctionDef | ast.Lambda)
                            for n in nodes))

    def _recursive(self, helpers: dict[str, ast.FunctionDef]) -> set[str]:
        calls = {n: {c.id for c in walk(f) if isinstance(c, ast.Name) and c.id in
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
            for name in body_fields(stmt):
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
                self.budget -= sum(len(walk(s)) for s in body)
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
        assigned = set().union(*(names_written(s) for s in body)) if body else set()
        prefix, names = [], {}
        for param, arg in zip(function.args.args, call.args):
            if isinstance(arg, ast.Name) and param.arg not in assigned and \
                    arg.id not in assigned:
                names[param.arg] = arg.id
            elif param.arg != getattr(arg, "id", None):
                prefix.append(ast.copy_location(
                    ast.Assign([ast.Name(param.arg, ast.Store())], copy.deepcopy(arg)), call))
        for stmt in body:
            for node in walk(stmt):
                if isinstance(node, ast.Name) and node.id in names:
                    node.id = names[node.id]
        return prefix + body

    def _inline_statement(self, stmt, helpers, inside) -> list[ast.stmt] | None:
        """`return h(...)`, `x = h(...)` or `h(...)` with the helper's body in its place."""
        single = isinstance(stmt, ast.Return | ast.Expr) or (
            isinstance(stmt, ast.Assign) and len(stmt.targets) == 1)
        found = self._call_of(stmt.value, helpers) if single else None
        if not found or found[0].name in inside:
            return None
        function = found[0]
        if not isinstance(stmt, ast.Return):
            returns = [n for n in walk(ast.Module(function.body, []))
                       if isinstance(n, ast.Return)]
            if returns if isinstance(stmt, ast.Expr) else (
                    len(returns) != 1 or function.body[-1] is not returns[0]):
                return None
        body = self._bound_body(*found)
        if isinstance(stmt, ast.Assign):
            value = body.pop().value or ast.Constant(None)
            body.append(ast.copy_location(ast.Assign(stmt.targets, value), stmt))
        return self._inline_block(body, helpers, inside | {function.name})

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
                uses = Counter(n.id for n in walk(expression) if isinstance(n, ast.Name))
                bound = {}
                for param, arg in zip(function.args.args, call.args):
                    if uses[param.arg] > 1 and not isinstance(arg, ast.Name | ast.Constant):
                        return node         # would evaluate the argument twice
                    bound[param.arg] = arg
                self.inlined += 1
                self.budget -= len(walk(expression))

                class Bind(ast.NodeTransformer):
                    def visit_Name(self, name):
                        if name.id in bound and isinstance(name.ctx, ast.Load):
                            return copy.deepcopy(bound[name.id])
                        return name
                return Bind().visit(expression)

        for name, value in ast.iter_fields(stmt):
            if isinstance(value, ast.expr):
                setattr(stmt, name, Inline().visit(value))


def _filled(call: ast.expr) -> ast.Name | None:
    """`t` of `t.append(...)`: the variable a call of a changing method fills."""
    if type(call) is ast.Call and type(call.func) is ast.Attribute and \
            call.func.attr in MUTATING_METHODS and type(call.func.value) is ast.Name:
        return call.func.value
    return None

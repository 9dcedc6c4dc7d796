"""Disguises that rewrite the program, not only its text: each keeps what every
function answers (tests/similarity/disguised.py runs original and copy on every
position to prove it), and each is written here independently of the kit's
canonical form (autograder/similarity/structure/), so the tests do not grade the
detector with its own rules.

Each function takes a module's source and a seeded `random.Random` and returns
the disguised source (printed by `ast.unparse`, so comments and layout are gone:
`disguise.recomment` and `disguise.reformat` can put some back).
"""

from __future__ import annotations

import ast
import builtins
import copy
import random

_BUILTINS = set(dir(builtins))
_PURE = {"len", "abs", "min", "max", "range", "list", "tuple", "set", "sorted", "sum", "all",
         "any", "int", "str", "bool", "enumerate", "zip", "isinstance", "reversed", "dict"}
_MUTATING = {"append", "add", "extend", "insert", "pop", "remove", "discard", "clear",
             "update", "sort", "reverse", "setdefault"}


# ------------------------------------------------------------------ helpers
def _functions(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    return {s.name: s for s in tree.body if isinstance(s, ast.FunctionDef)}


def _reads(node) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)
            and isinstance(n.ctx, ast.Load)}


def _writes(node) -> set[str]:
    out = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store | ast.Del):
            out.add(n.id)
        elif isinstance(n, ast.Subscript | ast.Attribute) and isinstance(n.ctx, ast.Store | ast.Del):
            base = n
            while isinstance(base, ast.Subscript | ast.Attribute):
                base = base.value
            if isinstance(base, ast.Name):
                out.add(base.id)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and \
                n.func.attr in _MUTATING and isinstance(n.func.value, ast.Name):
            out.add(n.func.value.id)
    return out


def _calls_unknown(node, pure_functions: set[str]) -> bool:
    """A call whose effects are unknown (not a pure builtin, not a side-effect-free
    function of the module, not a reading method)."""
    for n in ast.walk(node):
        if isinstance(n, ast.Call):
            f = n.func
            if isinstance(f, ast.Name) and (f.id in _PURE or f.id in pure_functions):
                continue
            if isinstance(f, ast.Attribute) and f.attr in ("deepcopy", "copy", "count", "index",
                                                           "get", "keys", "values", "items"):
                continue
            return True
    return False


def _exits(node) -> bool:
    return any(isinstance(n, ast.Return | ast.Raise | ast.Break | ast.Continue | ast.Yield)
               for n in ast.walk(node))


def _pure_functions(tree: ast.Module) -> set[str]:
    """Module functions that change nothing they were given and print nothing:
    checked by hand-rolled rules, conservatively."""
    functions = _functions(tree)
    pure = set(functions)
    changed = True
    while changed:
        changed = False
        for name in sorted(pure):
            f = functions[name]
            params = {a.arg for a in f.args.args}
            bad = any(isinstance(n, ast.Global | ast.Nonlocal) for n in ast.walk(f))
            for n in ast.walk(f):
                if isinstance(n, ast.Subscript | ast.Attribute) and \
                        isinstance(n.ctx, ast.Store | ast.Del):
                    base = n
                    while isinstance(base, ast.Subscript | ast.Attribute):
                        base = base.value
                    if not isinstance(base, ast.Name) or base.id in params:
                        bad = True
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and \
                        n.func.attr in _MUTATING:
                    base = n.func.value
                    if not isinstance(base, ast.Name) or base.id in params:
                        bad = True
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and \
                        n.func.id not in _PURE and n.func.id not in pure and \
                        n.func.id in functions:
                    bad = True
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and \
                        n.func.id in ("print", "input", "open", "exec", "eval"):
                    bad = True
            if bad:
                pure.discard(name)
                changed = True
    return pure


def _blocks(tree):
    """Every statement list in the tree, with the node that holds it."""
    for node in ast.walk(tree):
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                yield node, name, block


def _finish(tree: ast.Module) -> str:
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


# ------------------------------------------------------------------ reorder statements
def reorder_statements(source: str, rng: random.Random) -> str:
    """Shuffle statements inside every block where they do not depend on each
    other: neither writes a name the other reads or writes, neither leaves the
    block, and of two calls with unknown effects neither moves past the other."""
    tree = ast.parse(source)
    pure = _pure_functions(tree)
    for node, name, block in list(_blocks(tree)):
        if isinstance(node, ast.Module) or len(block) < 2:
            continue
        facts = [(_reads(s), _writes(s), _calls_unknown(s, pure), _exits(s)) for s in block]
        order, placed = [], set()
        while len(order) < len(block):
            ready = []
            for j in range(len(block)):
                if j in placed:
                    continue
                rj, wj, cj, ej = facts[j]
                blocked = False
                for i in range(j):
                    if i in placed:
                        continue
                    ri, wi, ci, ei = facts[i]
                    if wi & (rj | wj) or ri & wj or (ci and cj) or ei or ej:
                        blocked = True
                        break
                if not blocked:
                    ready.append(j)
            pick = rng.choice(ready)
            order.append(pick)
            placed.add(pick)
        setattr(node, name, [block[i] for i in order])
    return _finish(tree)


# ------------------------------------------------------------------ negated branches
_OPPOSITE = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.GtE, ast.GtE: ast.Lt,
             ast.Gt: ast.LtE, ast.LtE: ast.Gt, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
             ast.In: ast.NotIn, ast.NotIn: ast.In}


def _negation(test: ast.expr) -> ast.expr:
    """`not test` as a student would write it: a flipped comparison where there is
    one, De Morgan on `and`/`or`, else `not (...)`."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        return ast.Compare(test.left, [_OPPOSITE[type(test.ops[0])]()], test.comparators)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return test.operand
    if isinstance(test, ast.BoolOp):
        other = ast.Or() if isinstance(test.op, ast.And) else ast.And()
        return ast.BoolOp(other, [_negation(v) for v in test.values])
    return ast.UnaryOp(ast.Not(), test)


def _leaves(block: list[ast.stmt]) -> bool:
    """The block always ends by leaving (return or raise)."""
    if not block:
        return False
    last = block[-1]
    if isinstance(last, ast.Return | ast.Raise):
        return True
    if isinstance(last, ast.If):
        return _leaves(last.body) and _leaves(last.orelse)
    return False


def negate_branches(source: str, rng: random.Random) -> str:
    """Swap the branches of every `if`/`else` under the negated condition, and turn
    `if c: return x` + rest into `if not c: rest` / `else: return x`."""
    tree = ast.parse(source)
    for node, name, block in list(_blocks(tree)):
        out = []
        index = 0
        while index < len(block):
            stmt = block[index]
            if isinstance(stmt, ast.If) and not stmt.orelse and _leaves(stmt.body) and \
                    index + 1 < len(block) and not isinstance(node, ast.Module) and \
                    rng.random() < 0.8:
                rest = block[index + 1:]
                out.append(ast.If(_negation(stmt.test), rest, stmt.body))
                break
            out.append(stmt)
            index += 1
        setattr(node, name, out)
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and node.orelse and rng.random() < 0.9:
            node.test, node.body, node.orelse = _negation(node.test), node.orelse, node.body
    return _finish(tree)


# ------------------------------------------------------------------ for -> while
def for_to_while(source: str, rng: random.Random) -> str:
    """`for i in range(a, b): body` as `i = a` / `while i < b: body; i += 1`, where
    the body has no `continue`, never assigns i, and i is not read after the loop."""
    tree = ast.parse(source)
    count = 0
    for function in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]:
        for node, name, block in list(_blocks(function)):
            out = []
            for stmt in block:
                loop = _while_of(stmt, function)
                if loop is None:
                    out.append(stmt)
                    continue
                count += 1
                out.extend(loop(count))
            setattr(node, name, out)
    return _finish(tree)


def _while_of(stmt, function):
    if not (isinstance(stmt, ast.For) and isinstance(stmt.target, ast.Name) and not stmt.orelse
            and isinstance(stmt.iter, ast.Call) and isinstance(stmt.iter.func, ast.Name)
            and stmt.iter.func.id == "range" and 1 <= len(stmt.iter.args) <= 2
            and not stmt.iter.keywords):
        return None
    var = stmt.target.id
    if any(isinstance(n, ast.Continue) for n in ast.walk(ast.Module(stmt.body, []))):
        return None
    if var in _writes(ast.Module(stmt.body, [])):
        return None
    uses = sum(1 for n in ast.walk(function) if isinstance(n, ast.Name) and n.id == var)
    inside = sum(1 for n in ast.walk(stmt) if isinstance(n, ast.Name) and n.id == var)
    if uses != inside:
        return None
    args = stmt.iter.args
    start, stop = (ast.Constant(0), args[0]) if len(args) == 1 else args

    def build(number):
        out = [ast.Assign([ast.Name(var, ast.Store())], start, lineno=0)]
        limit = stop
        if not isinstance(stop, ast.Constant | ast.Name):
            limit = ast.Name(f"_limit{number}", ast.Load())
            out.insert(0, ast.Assign([ast.Name(limit.id, ast.Store())], stop, lineno=0))
        step = ast.AugAssign(ast.Name(var, ast.Store()), ast.Add(), ast.Constant(1))
        out.append(ast.While(ast.Compare(ast.Name(var, ast.Load()), [ast.Lt()], [limit]),
                             stmt.body + [step], []))
        return out
    return build


# ------------------------------------------------------------------ comprehensions
def comprehensions(source: str, rng: random.Random) -> str:
    """Comprehensions assigned or returned become explicit loops, and explicit
    filling loops (`t = []` then `for ...: t.append(x)`) become comprehensions."""
    tree = ast.parse(source)
    count = [0]
    for function in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]:
        for node, name, block in list(_blocks(function)):
            setattr(node, name, _swap_comprehensions(block, function, count))
    return _finish(tree)


def _fill_of(comp) -> tuple[ast.expr, str] | None:
    if isinstance(comp, ast.ListComp):
        return ast.List([], ast.Load()), "append"
    if isinstance(comp, ast.SetComp):
        return ast.Call(ast.Name("set", ast.Load()), [], []), "add"
    return None


def _loops_for(target: str, comp) -> list[ast.stmt]:
    init, method = _fill_of(comp)
    inner = [ast.Expr(ast.Call(ast.Attribute(ast.Name(target, ast.Load()), method, ast.Load()),
                               [comp.elt], []))]
    for generator in reversed(comp.generators):
        for condition in reversed(generator.ifs):
            inner = [ast.If(condition, inner, [])]
        inner = [ast.For(generator.target, generator.iter, inner, [], lineno=0)]
    return [ast.Assign([ast.Name(target, ast.Store())], init, lineno=0)] + inner


def _comprehension_of(init: ast.stmt, loop: ast.stmt, function) -> ast.stmt | None:
    """`t = []` + `for x in it: [if c:] t.append(e)` (loops may nest) as
    `t = [e for x in it if c]`, when no loop variable is read outside the loop."""
    if not (isinstance(init, ast.Assign) and len(init.targets) == 1
            and isinstance(init.targets[0], ast.Name)):
        return None
    target = init.targets[0].id
    kind = None
    if isinstance(init.value, ast.List) and not init.value.elts:
        kind, method = ast.ListComp, "append"
    elif isinstance(init.value, ast.Call) and isinstance(init.value.func, ast.Name) and \
            init.value.func.id == "set" and not init.value.args:
        kind, method = ast.SetComp, "add"
    if kind is None or not isinstance(loop, ast.For):
        return None
    generators, node = [], loop
    while True:
        if not isinstance(node, ast.For) or node.orelse or len(node.body) != 1:
            return None
        generator = ast.comprehension(node.target, node.iter, [], 0)
        generators.append(generator)
        inner = node.body[0]
        while isinstance(inner, ast.If) and not inner.orelse and len(inner.body) == 1:
            generator.ifs.append(inner.test)
            inner = inner.body[0]
        if isinstance(inner, ast.For):
            node = inner
            continue
        break
    if not (isinstance(inner, ast.Expr) and isinstance(inner.value, ast.Call)
            and isinstance(inner.value.func, ast.Attribute)
            and inner.value.func.attr == method
            and isinstance(inner.value.func.value, ast.Name)
            and inner.value.func.value.id == target and len(inner.value.args) == 1):
        return None
    element = inner.value.args[0]
    if target in _reads(element) or any(target in _reads(g.iter) for g in generators):
        return None
    loop_vars = set().union(*(_writes(g.target) for g in generators))
    outside = {n.id for n in ast.walk(function) if isinstance(n, ast.Name)} - \
        {n.id for n in ast.walk(loop) if isinstance(n, ast.Name)}
    if loop_vars & outside:
        return None
    return ast.Assign([ast.Name(target, ast.Store())], kind(element, generators), lineno=0)


def _swap_comprehensions(block, function, count) -> list[ast.stmt]:
    out = []
    index = 0
    while index < len(block):
        stmt = block[index]
        following = block[index + 1] if index + 1 < len(block) else None
        merged = _comprehension_of(stmt, following, function) if following else None
        if merged is not None:
            out.append(merged)
            index += 2
            continue
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], ast.Name) and _fill_of(stmt.value) and \
                stmt.targets[0].id not in _reads(stmt.value):
            out.extend(_loops_for(stmt.targets[0].id, stmt.value))
        elif isinstance(stmt, ast.Return) and stmt.value is not None and _fill_of(stmt.value):
            count[0] += 1
            temp = f"found{count[0]}"
            out.extend(_loops_for(temp, stmt.value))
            out.append(ast.Return(ast.Name(temp, ast.Load())))
        else:
            out.append(stmt)
        index += 1
    return out


# ------------------------------------------------------------------ useless statements
def useless_statements(source: str, rng: random.Random) -> str:
    """A statement that changes nothing before every statement, at every depth:
    assignments nobody reads (some from the function's parameters), branches and
    loops that never run, `assert True`, chains of unused values."""
    tree = ast.parse(source)
    counter = [0]

    def junk(params: list[str]) -> list[ast.stmt]:
        counter[0] += 1
        name = f"_unused{counter[0]}"
        param = rng.choice(params) if params else None
        choices = [
            f"{name} = {rng.randint(0, 9)}",
            f"{name} = None",
            f"{name} = 'x' * {rng.randint(1, 3)}",
            f"{name} = [{rng.randint(0, 5)}, {rng.randint(0, 5)}]",
            f"if False:\n    {name} = 1",
            f"for {name} in range(0):\n    break",
            "assert True",
            f"while False:\n    {name} = 0",
            f"{name} = abs(-{rng.randint(1, 9)}) + {rng.randint(0, 3)}",
        ]
        if param:
            choices += [f"{name} = {param}", f"{name} = ({param}, {rng.randint(0, 9)})",
                        f"{name} = [{param}]", f"{name} = str(type({param}))"]
        return ast.parse(rng.choice(choices)).body

    for function in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]:
        params = [a.arg for a in function.args.args]
        for node, name, block in list(_blocks(function)):
            if node is not function and not isinstance(node, ast.If | ast.For | ast.While
                                                          | ast.With | ast.Try):
                continue
            out = []
            for index, stmt in enumerate(block):
                docstring = (node is function and index == 0 and isinstance(stmt, ast.Expr)
                             and isinstance(stmt.value, ast.Constant))
                if not docstring:
                    out.extend(junk(params))
                out.append(stmt)
            setattr(node, name, out)
    return _finish(tree)


# ------------------------------------------------------------------ helpers inlined
def inline_helpers(source: str, rng: random.Random, keep: set[str] = frozenset()) -> str:
    """Every helper that is one `return expression` put where it is called; a
    helper called once, as `x = h(...)` or `return h(...)`, put there whole."""
    tree = ast.parse(source)
    functions = _functions(tree)
    calls = {n: [c for c in ast.walk(tree) if isinstance(c, ast.Call)
                 and isinstance(c.func, ast.Name) and c.func.id == n] for n in functions}
    candidates = {n: f for n, f in functions.items() if n not in keep and not f.decorator_list
                  and not (f.args.vararg or f.args.kwarg or f.args.kwonlyargs or f.args.defaults)
                  and not any(isinstance(c, ast.Call) and isinstance(c.func, ast.Name)
                              and c.func.id == n for c in ast.walk(f))
                  and all(len(c.args) == len(f.args.args) and not c.keywords
                          for c in calls[n])
                  and not _refers_elsewhere(tree, n)}
    done = set()
    for name, function in sorted(candidates.items()):
        body = function.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]
        if len(body) == 1 and isinstance(body[0], ast.Return) and body[0].value is not None:
            if _inline_expression(tree, function, body[0].value):
                done.add(name)
        elif len(calls[name]) == 1 and _inline_once(tree, function, body):
            done.add(name)
    tree.body = [s for s in tree.body if not (isinstance(s, ast.FunctionDef) and s.name in done)]
    return _finish(tree)


def _refers_elsewhere(tree, name) -> bool:
    """The name is used other than by calling it (passed on, decorated, cached)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
            parent_calls = [c for c in ast.walk(tree) if isinstance(c, ast.Call) and c.func is node]
            if not parent_calls:
                return True
    return False


def _inline_expression(tree, function, expression) -> bool:
    params = [a.arg for a in function.args.args]
    uses = {p: sum(1 for n in ast.walk(expression) if isinstance(n, ast.Name) and n.id == p)
            for p in params}
    own = _writes(expression)   # comprehension variables
    if _reads(expression) - own - set(params) - _BUILTINS - _module_names(tree):
        return False            # reads something else of its own (a closure): leave it
    ok = True

    class Replace(ast.NodeTransformer):
        def visit_Call(self, node):
            nonlocal ok
            self.generic_visit(node)
            if isinstance(node.func, ast.Name) and node.func.id == function.name:
                for param, arg in zip(params, node.args):
                    if uses[param] > 1 and not isinstance(arg, ast.Name | ast.Constant):
                        ok = False
                        return node
                bound = dict(zip(params, node.args))

                class Bind(ast.NodeTransformer):
                    def visit_Name(self, name):
                        if name.id in bound:
                            return copy.deepcopy(bound[name.id])
                        return name
                return Bind().visit(copy.deepcopy(expression))
            return node

    for stmt in tree.body:
        if stmt is not function:
            Replace().visit(stmt)
    return ok


def _module_names(tree) -> set[str]:
    names = set()
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef | ast.ClassDef):
            names.add(stmt.name)
        elif isinstance(stmt, ast.Import | ast.ImportFrom):
            names |= {(a.asname or a.name).split(".")[0] for a in stmt.names}
        else:
            names |= _writes(stmt)
    return names


def _inline_once(tree, function, body) -> bool:
    """Replace the one `x = h(args)` or `return h(args)` statement by h's body, its
    parameters assigned first and its locals renamed so nothing collides."""
    returns = [n for n in ast.walk(ast.Module(body, [])) if isinstance(n, ast.Return)]
    for node, name, block in list(_blocks(tree)):
        for index, stmt in enumerate(block):
            call = None
            if isinstance(stmt, ast.Return) and _is_call_to(stmt.value, function.name):
                call, kind = stmt.value, "return"
            elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
                    isinstance(stmt.targets[0], ast.Name) and \
                    _is_call_to(stmt.value, function.name):
                call, kind = stmt.value, "assign"
            if call is None:
                continue
            if kind == "assign" and not (len(returns) == 1 and body[-1] is returns[0]):
                return False
            suffix = f"_{function.name.strip('_')}"
            local = _writes(ast.Module(body, [])) | {a.arg for a in function.args.args}
            renamed = copy.deepcopy(body)
            for n in ast.walk(ast.Module(renamed, [])):
                if isinstance(n, ast.Name) and n.id in local:
                    n.id += suffix
            new = [ast.Assign([ast.Name(a.arg + suffix, ast.Store())], arg, lineno=0)
                   for a, arg in zip(function.args.args, call.args)]
            if kind == "return":
                new += renamed
            else:
                last = renamed.pop()
                new += renamed + [ast.Assign(stmt.targets, last.value, lineno=0)]
            block[index:index + 1] = new
            return True
    return False


def _is_call_to(node, name) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name


# ------------------------------------------------------------------ long functions split
def split_functions(source: str, rng: random.Random, keep: set[str] = frozenset(),
                    min_statements: int = 4) -> str:
    """Cut every function of `min_statements` top-level statements or more in two:
    the tail becomes a helper taking what it needs, called by `return`."""
    tree = ast.parse(source)
    taken = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | set(_functions(tree))
    new_functions = []
    for function in list(_functions(tree).values()):
        body = function.body
        start = 1 if body and isinstance(body[0], ast.Expr) and \
            isinstance(body[0].value, ast.Constant) else 0
        if function.decorator_list or len(body) - start < min_statements:
            continue
        params = [a.arg for a in function.args.args]
        points = list(range(start + 1, len(body) - 1))
        rng.shuffle(points)
        for cut in points:
            head, tail = body[:cut], body[cut:]
            sure = set(params)
            for stmt in head:
                if isinstance(stmt, ast.Assign | ast.AugAssign):
                    sure |= _writes(stmt)
                elif isinstance(stmt, ast.Try) and not stmt.orelse and not stmt.finalbody \
                        and all(_leaves(h.body) for h in stmt.handlers):
                    sure |= {w for s in stmt.body if isinstance(s, ast.Assign)
                             for w in _writes(s)}
            assigned_in_head = _writes(ast.Module(head, []))
            needed = sorted((_reads(ast.Module(tail, [])) & (assigned_in_head | set(params))))
            if not set(needed) <= sure:
                continue
            if any(isinstance(n, ast.Yield | ast.Global | ast.Nonlocal | ast.FunctionDef
                              | ast.Lambda) for n in ast.walk(ast.Module(body, []))):
                break
            name = f"_{function.name.strip('_')}_rest"
            while name in taken:
                name += "_"
            taken.add(name)
            helper = ast.FunctionDef(name, ast.arguments([], [ast.arg(n) for n in needed], None,
                                                         [], [], None, []),
                                     tail, [], None, lineno=0)
            call = ast.Call(ast.Name(name, ast.Load()), [ast.Name(n, ast.Load()) for n in needed],
                            [])
            function.body = head + [ast.Return(call)]
            new_functions.append((function, helper))
            break
    for function, helper in new_functions:
        tree.body.insert(tree.body.index(function) + 1, helper)
    return _finish(tree)


# ------------------------------------------------------------------ two files merged
def merge(rules: str, search: str, searcher: str = "minimax",
          keep: set[str] = frozenset()) -> str:
    """One module from two students: everything of `rules` but the search, and the
    search of `search` (`searcher` and the helpers only it uses), with the imports
    of both."""
    a, b = ast.parse(rules), ast.parse(search)
    b_functions = _functions(b)
    wanted, todo = set(), [searcher]
    while todo:
        name = todo.pop()
        if name in wanted or name not in b_functions:
            continue
        wanted.add(name)
        todo += [n.id for n in ast.walk(b_functions[name]) if isinstance(n, ast.Name)
                 and n.id in b_functions and n.id not in keep]
    a_names = _module_names(a)
    clash = {n for n in wanted if n in a_names and n != searcher}
    renames = {n: n + "_b" for n in clash}
    taken_by_search = wanted | {searcher}
    imports = [s for s in b.body if isinstance(s, ast.Import | ast.ImportFrom)]
    a.body = [s for s in a.body if not (isinstance(s, ast.FunctionDef)
                                        and s.name == searcher)]
    # helpers of a's own search that nothing else of a uses go with it
    a_functions = _functions(a)
    used = set()
    todo = [n for n in a_functions if n in keep]
    while todo:
        name = todo.pop()
        if name in used or name not in a_functions:
            continue
        used.add(name)
        todo += [n.id for n in ast.walk(a_functions[name]) if isinstance(n, ast.Name)]
    a.body = [s for s in a.body if not (isinstance(s, ast.FunctionDef) and s.name not in used)]
    first_function = next((i for i, s in enumerate(a.body) if isinstance(s, ast.FunctionDef)),
                          len(a.body))
    a.body[first_function:first_function] = imports
    for name in sorted(taken_by_search):
        function = copy.deepcopy(b_functions[name])
        for n in ast.walk(function):
            if isinstance(n, ast.Name) and n.id in renames:
                n.id = renames[n.id]
        if function.name in renames:
            function.name = renames[function.name]
        a.body.append(function)
    return _finish(a)

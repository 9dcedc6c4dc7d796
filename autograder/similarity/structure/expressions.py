"""One spelling for expressions that mean the same (`a > b` is `b < a`, `not` pushed
into comparisons, commutative operands in shape order, ...)."""

from __future__ import annotations

import ast

from .trees import constant_value, shape_key

_FLIPPED = {ast.Gt: ast.Lt, ast.GtE: ast.LtE}
_NEGATED = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.GtE, ast.GtE: ast.Lt,
            ast.LtE: ast.Gt, ast.Gt: ast.LtE, ast.In: ast.NotIn, ast.NotIn: ast.In,
            ast.Is: ast.IsNot, ast.IsNot: ast.Is}
_COMMUTATIVE = (ast.Add, ast.Mult, ast.BitAnd, ast.BitOr, ast.BitXor)


def negate(test: ast.expr) -> ast.expr:
    """`not test`, with the negation pushed as far in as it goes, in the one
    spelling `Expressions` gives (so negating twice gives the test back)."""
    return Expressions().visit(_negated(test))


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


class Expressions(ast.NodeTransformer):
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
            if shape_key(right) < shape_key(left):
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
        if isinstance(node.op, _COMMUTATIVE) and shape_key(node.right) < shape_key(node.left):
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
        if shape_key(flipped) < shape_key(node.test):
            node.test, node.body, node.orelse = flipped, node.orelse, node.body
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Name) and func.id == "range" and not node.keywords:
            args = node.args
            if len(args) == 3 and constant_value(args[2]) == 1:
                args = args[:2]
            if len(args) == 2 and constant_value(args[0]) == 0:
                args = args[1:]
            node.args = args
        if isinstance(func, ast.Name) and func.id == "float" and len(node.args) == 1:
            value = constant_value(node.args[0])
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

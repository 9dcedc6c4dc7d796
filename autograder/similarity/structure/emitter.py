"""The canonical tree written out as token codes, each with the line of the student's
file its statement came from (compared by winnowing, like the text)."""

from __future__ import annotations

import ast

from ..tokens import code_of
from .trees import BUILTINS, NAME


class Emitter(ast.NodeVisitor):
    """Writes statements of the canonical tree into `codes` and `lines`."""

    def __init__(self, kept: frozenset[str]):
        self.kept = kept
        self.codes: list[int] = []
        self.lines: list[int] = []
        self.line = 0

    def emit(self, text: str) -> None:
        self.codes.append(code_of(text))
        self.lines.append(self.line)

    def name(self, name: str) -> None:
        self.emit(name if name in self.kept or name in BUILTINS else NAME)

    def block(self, block: list[ast.stmt]) -> None:
        self.emit("<indent>")
        for stmt in block:
            self.statement(stmt)
        self.emit("<dedent>")

    def statement(self, stmt: ast.stmt) -> None:
        self.line = getattr(stmt, "lineno", self.line)
        for part in statement_header(stmt):
            if isinstance(part, ast.AST):
                self.visit(part)
            elif isinstance(part, tuple):
                self.name(part[1])
            else:
                self.emit(part)
        self.emit("<newline>")
        if not isinstance(stmt, _COMPOUND):
            return
        self.block(stmt.body)
        for handler in getattr(stmt, "handlers", ()):
            self.emit("except")
            if handler.type:
                self.visit(handler.type)
            self.emit("<newline>")
            self.block(handler.body)
        for name, word in (("orelse", "else"), ("finalbody", "finally")):
            if getattr(stmt, name, None):
                self.emit(word)
                self.emit("<newline>")
                self.block(getattr(stmt, name))

    # ------------------------------------------------------------ expressions
    def generic_visit(self, node):
        self.emit(type(node).__name__)
        self.emit("(")
        for child in ast.iter_child_nodes(node):
            self.visit(child)
        self.emit(")")

    def visit_Name(self, node):
        self.name(node.id)

    def visit_Constant(self, node):
        value = node.value
        self.emit("S" if isinstance(value, str | bytes) else repr(value))

    def visit_Attribute(self, node):
        self.visit(node.value)
        self.emit("." + node.attr)

    def visit_Call(self, node):
        self.visit(node.func)
        self.emit("(")
        for arg in node.args:
            self.visit(arg)
            self.emit(",")
        for keyword in node.keywords:
            self.emit(f"{keyword.arg}=")
            self.visit(keyword.value)
            self.emit(",")
        self.emit(")")

    def visit_BinOp(self, node):
        self.emit("(")
        self.visit(node.left)
        self.emit(_OPERATORS[type(node.op)])
        self.visit(node.right)
        self.emit(")")

    def visit_BoolOp(self, node):
        self.emit("(")
        for index, value in enumerate(node.values):
            if index:
                self.emit(_OPERATORS[type(node.op)])
            self.visit(value)
        self.emit(")")

    def visit_UnaryOp(self, node):
        self.emit(_OPERATORS[type(node.op)])
        self.visit(node.operand)

    def visit_Compare(self, node):
        self.visit(node.left)
        for op, right in zip(node.ops, node.comparators):
            self.emit(_OPERATORS[type(op)])
            self.visit(right)

    def visit_Subscript(self, node):
        self.visit(node.value)
        self.emit("[")
        self.visit(node.slice)
        self.emit("]")

    def _sequence(self, node):
        opener, closer = _BRACKETS[type(node)]
        self.emit(opener)
        for item in node.elts:
            self.visit(item)
            self.emit(",")
        self.emit(closer)

    visit_Tuple = visit_List = visit_Set = _sequence

    def visit_Dict(self, node):
        self.emit("{")
        for key, value in zip(node.keys, node.values):
            if key is not None:
                self.visit(key)
            self.emit(":")
            self.visit(value)
            self.emit(",")
        self.emit("}")

    def visit_IfExp(self, node):
        self.emit("ifexp")
        for part in (node.test, node.body, node.orelse):
            self.visit(part)

    def visit_Lambda(self, node):
        self.emit("lambda")
        for arg in node.args.args:
            self.name(arg.arg)
        self.emit(":")
        self.visit(node.body)

    def _comprehension(self, node):
        self.emit(_COMPREHENSIONS[type(node)])
        for part in [node.key, node.value] if type(node) is ast.DictComp else [node.elt]:
            self.visit(part)
        for generator in node.generators:
            self.emit("for")
            self.visit(generator.target)
            self.emit("in")
            self.visit(generator.iter)
            for condition in generator.ifs:
                self.emit("if")
                self.visit(condition)
        self.emit("end")

    visit_GeneratorExp = visit_ListComp = visit_SetComp = visit_DictComp = _comprehension

    def visit_Starred(self, node):
        self.emit("*")
        self.visit(node.value)

    def visit_JoinedStr(self, node):
        self.emit("S")

    def visit_Slice(self, node):
        for part in (node.lower, node.upper, node.step):
            if part is not None:
                self.visit(part)
            self.emit(":")


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
_COMPOUND = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.For, ast.AsyncFor,
             ast.While, ast.If, ast.With, ast.AsyncWith, ast.Try)
_BRACKETS = {ast.Tuple: "()", ast.List: "[]", ast.Set: "{}"}
_COMPREHENSIONS = {ast.GeneratorExp: "gen", ast.ListComp: "listcomp", ast.SetComp: "setcomp",
                   ast.DictComp: "dictcomp"}

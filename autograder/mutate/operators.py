"""Single-change mutants of a reference module, inside its solution regions only
(docs/MUTATION.md, "Which mutants"). An operator proposes text edits of the smallest
stretch of source that changes, so every other character stays as the teacher wrote
it and the report can show the changed line next to the original.
"""

from __future__ import annotations

import ast
import bisect
import dataclasses
import hashlib
import itertools
import re
import warnings
from collections import Counter
from typing import Iterator

from .. import KitError
from ..release import _regions as solution_regions
from .honest.source import docstring_node


@dataclasses.dataclass(frozen=True)
class Mutant:
    module: str         # file name of the mutated module, e.g. "tictactoe.py"
    line: int           # first changed line of the reference (1-based)
    function: str       # qualified name of the enclosing function, or "<module>"
    operator: str
    original: str       # the changed lines of the reference, whitespace-normalised
    mutated: str        # the same lines after the change
    occurrence: int     # index among this module's mutants with the same original and operator
    source: str         # the whole mutated module

    @property
    def key(self) -> tuple[str, str, str, int]:
        """What an allowlist entry names: stable when lines move up or down."""
        return (self.module, self.original, self.operator, self.occurrence)

    @property
    def ident(self) -> str:
        digest = hashlib.sha1(repr(self.key).encode()).hexdigest()[:8]
        return f"{self.module.removesuffix('.py')}-{self.line}-{digest}"


Edit = tuple[int, int, str]          # (start, end, replacement) in character offsets


# ------------------------------------------------------------ the operator tables
COMPARISONS = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">",
               ast.GtE: ">=", ast.Is: "is", ast.IsNot: "is not", ast.In: "in",
               ast.NotIn: "not in"}
RELATIONAL = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)
COMPARISON_SWAPS = {**{op: [o for o in RELATIONAL if o is not op] for op in RELATIONAL},
                    ast.Is: [ast.IsNot], ast.IsNot: [ast.Is],
                    ast.In: [ast.NotIn], ast.NotIn: [ast.In]}

BINARY = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
          ast.Mod: "%", ast.Pow: "**", ast.LShift: "<<", ast.RShift: ">>",
          ast.BitOr: "|", ast.BitAnd: "&", ast.BitXor: "^", ast.MatMult: "@"}
# One replacement per operator, as mutmut does: the classic arithmetic faults
# without the slow or explosive ones (a `**` in place of `+` mostly times out).
BINARY_SWAPS = {ast.Add: [ast.Sub], ast.Sub: [ast.Add], ast.Mult: [ast.Div],
                ast.Div: [ast.Mult], ast.FloorDiv: [ast.Div], ast.Mod: [ast.FloorDiv],
                ast.Pow: [ast.Mult], ast.LShift: [ast.RShift], ast.RShift: [ast.LShift],
                ast.BitOr: [ast.BitAnd], ast.BitAnd: [ast.BitOr], ast.BitXor: [ast.BitAnd]}

SIMPLE_STATEMENTS = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Return,
                     ast.Raise, ast.Delete, ast.Assert, ast.Break, ast.Continue)

OP_CHARS = re.escape("-+*/%@&|^<>=!~")


def _token_pattern(text: str) -> re.Pattern:
    """The operator `text` as a whole token ('<' must not match inside '<=')."""
    if text[0].isalpha():
        return re.compile(r"\b" + r"\s+".join(text.split()) + r"\b")
    return re.compile(f"(?<![{OP_CHARS}])" + re.escape(text) + f"(?![{OP_CHARS}])")


# ------------------------------------------------------------ positions
class Source:
    """The reference text with ast positions turned into character offsets."""

    def __init__(self, text: str):
        self.text = text
        self.lines = text.splitlines(keepends=True)
        self.starts = [0, *itertools.accumulate(map(len, self.lines))]

    def offset(self, line: int, col_bytes: int) -> int:
        # ast columns count UTF-8 bytes; the text is indexed by characters.
        chars = len(self.lines[line - 1].encode("utf-8")[:col_bytes].decode("utf-8", "replace"))
        return self.starts[line - 1] + chars

    def start(self, node: ast.AST) -> int:
        return self.offset(node.lineno, node.col_offset)

    def end(self, node: ast.AST) -> int:
        return self.offset(node.end_lineno, node.end_col_offset)

    def segment(self, node: ast.AST) -> str:
        return self.text[self.start(node):self.end(node)]

    def line_of(self, offset: int) -> int:
        """1-based line holding the character at `offset`."""
        return min(bisect.bisect_right(self.starts, offset), len(self.lines))

    def token_between(self, after: int, before: int, text: str) -> tuple[int, int] | None:
        """Where the operator `text` stands between two operands, or None if it is
        not there exactly once (comments blanked out first)."""
        gap = re.sub(r"#[^\n]*", lambda m: " " * len(m.group()), self.text[after:before])
        found = list(_token_pattern(text).finditer(gap))
        if len(found) != 1:
            return None
        return after + found[0].start(), after + found[0].end()


# ------------------------------------------------------------ the operators
def _proposals(tree: ast.AST, src: Source) -> Iterator[tuple[str, list[Edit]]]:
    """(operator name, edits) for every mutation any operator proposes."""
    skip = _skipped_nodes(tree)
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        yield from _compare(node, src)
        yield from _binary(node, src)
        yield from _unary(node, src)
        yield from _boolean(node, src)
        yield from _constant(node, src)
        yield from _control(node, src)
        yield from _statement(node, src)
        yield from _call(node, src)


def _skipped_nodes(tree: ast.AST) -> set[int]:
    """Docstrings, annotations and f-string insides: mutating them changes nothing a
    test can see, or (f-strings before Python 3.12) has no reliable positions."""
    skip: set[int] = set()

    def drop(node):
        skip.update(id(n) for n in ast.walk(node))

    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            drop(node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for arg in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs,
                        node.args.vararg, node.args.kwarg]:
                if arg is not None and arg.annotation is not None:
                    drop(arg.annotation)
            if node.returns is not None:
                drop(node.returns)
        elif isinstance(node, ast.AnnAssign):
            drop(node.annotation)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) \
                and docstring_node(node) is not None:
            drop(node.body[0])
    return skip


def _compare(node, src):
    if not isinstance(node, ast.Compare):
        return
    operands = [node.left, *node.comparators]
    for index, op in enumerate(node.ops):
        where = src.token_between(src.end(operands[index]), src.start(operands[index + 1]),
                                  COMPARISONS[type(op)])
        if where is None:
            continue
        for new in COMPARISON_SWAPS[type(op)]:
            yield (f"ReplaceComparisonOperator_{type(op).__name__}_{new.__name__}",
                   [(*where, COMPARISONS[new])])


def _binary(node, src):
    if isinstance(node, ast.BinOp):
        left, right, kind, suffix = node.left, node.right, "BinaryOperator", ""
    elif isinstance(node, ast.AugAssign):
        left, right, kind, suffix = node.target, node.value, "AugmentedOperator", "="
    else:
        return
    op = type(node.op)
    where = src.token_between(src.end(left), src.start(right), BINARY[op] + suffix)
    if where is None:
        return
    for new in BINARY_SWAPS.get(op, []):
        yield f"Replace{kind}_{op.__name__}_{new.__name__}", [(*where, BINARY[new] + suffix)]
    if suffix:
        yield "ReplaceAugmentedAssignWithAssign", [(*where, "=")]


def _unary(node, src):
    if isinstance(node, ast.UnaryOp):
        # `-x` -> `x`, `not (x)` -> `(x)`: the operator and the space after it go
        # (parentheses around the operand are not part of its node).
        start = src.start(node)
        token = re.match(r"(not\b|[-+~])[ \t]*", src.text[start:])
        if token:
            yield (f"RemoveUnaryOperator_{type(node.op).__name__}",
                   [(start, start + token.end(), "")])


def _boolean(node, src):
    if isinstance(node, ast.BoolOp):
        old, new = ("and", "or") if isinstance(node.op, ast.And) else ("or", "and")
        for left, right in zip(node.values, node.values[1:]):
            where = src.token_between(src.end(left), src.start(right), old)
            if where is not None:
                yield f"Replace{old.capitalize()}With{new.capitalize()}", [(*where, new)]
    tests = []
    if isinstance(node, (ast.If, ast.While, ast.IfExp)):
        tests = [node.test]
    elif isinstance(node, ast.comprehension):
        tests = node.ifs
    for test in tests:
        yield "AddNot", [(src.start(test), src.end(test), f"not ({src.segment(test)})")]


def _constant(node, src):
    if not isinstance(node, ast.Constant):
        return
    value = node.value
    if value is True or value is False:
        yield (f"Replace{value}With{not value}",
               [(src.start(node), src.end(node), str(not value))])
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        for name, step in (("NumberReplacer_Plus1", 1), ("NumberReplacer_Minus1", -1)):
            yield name, [(src.start(node), src.end(node), repr(value + step))]


def _control(node, src):
    if isinstance(node, ast.Break):
        yield "ReplaceBreakWithContinue", [(src.start(node), src.end(node), "continue")]
    elif isinstance(node, ast.Continue):
        yield "ReplaceContinueWithBreak", [(src.start(node), src.end(node), "break")]
    elif isinstance(node, (ast.For, ast.AsyncFor)):
        yield "ZeroIterationForLoop", [(src.start(node.iter), src.end(node.iter), "[]")]
    elif isinstance(node, ast.ExceptHandler) and node.type is not None:
        # An empty tuple of exception types catches nothing.
        yield "ExceptionReplacer", [(src.start(node.type), src.end(node.type), "()")]


def _statement(node, src):
    if not isinstance(node, SIMPLE_STATEMENTS):
        return
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
        return                                  # a bare string: nothing to delete
    yield "RemoveStatement", [(src.start(node), src.end(node), "pass")]


def _call(node, src):
    if not isinstance(node, ast.Call):
        return
    if isinstance(node.func, ast.Name) and node.func.id in ("min", "max"):
        new = "max" if node.func.id == "min" else "min"
        yield (f"Replace{node.func.id.capitalize()}With{new.capitalize()}",
               [(src.start(node.func), src.end(node.func), new)])
    args = node.args
    for left, right in zip(args, args[1:]):
        if isinstance(left, ast.Starred) or isinstance(right, ast.Starred):
            continue
        first, second = src.segment(left), src.segment(right)
        if first != second:
            yield "SwapArguments", [(src.start(left), src.end(left), second),
                                    (src.start(right), src.end(right), first)]


# ------------------------------------------------------------ building mutants
def compiles(mutant: Mutant) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")             # e.g. `is` with a literal
        try:
            compile(mutant.source, mutant.module, "exec", dont_inherit=True)
        except (SyntaxError, ValueError):
            return False
    return True


def _apply(text: str, edits: list[Edit]) -> str:
    for start, end, replacement in sorted(edits, reverse=True):
        text = text[:start] + replacement + text[end:]
    return text


def _normalised(text: str) -> str:
    return " ".join(line.strip() for line in text.splitlines() if line.strip())


def _functions(tree: ast.AST) -> list[tuple[str, int, int]]:
    found = []

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.append((prefix + child.name, child.lineno, child.end_lineno))
                visit(child, prefix + child.name + ".")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")
    visit(tree, "")
    return found


def mutants(module: str, text: str) -> list[Mutant]:
    """Every single-change mutant of `text` inside its solution regions, in source
    order. Whether one compiles is left to `compiles`: compiling a whole module
    costs milliseconds, and only the sampled mutants need it."""
    try:
        tree = ast.parse(text)
    except SyntaxError as error:
        raise KitError(f"{module}:{error.lineno}: reference does not parse: {error.msg}") \
            from None
    src = Source(text)
    # Inside a region: from the line after BEGIN to the line before END.
    regions = [(src.starts[begin + 1], src.starts[end])
               for begin, end in solution_regions(text.splitlines(), module)]
    functions = _functions(tree)
    found: list[tuple[int, str, Mutant]] = []
    seen_sources: set[tuple[str, str]] = set()
    for operator, edits in _proposals(tree, src):
        first, last = min(e[0] for e in edits), max(e[1] for e in edits)
        if not any(low <= first and last <= high for low, high in regions):
            continue
        mutated = _apply(text, edits)
        if (operator, mutated) in seen_sources:
            continue                                    # two nodes, one change
        seen_sources.add((operator, mutated))
        if mutated == text:
            continue
        line, end_line = src.line_of(first), src.line_of(max(first, last - 1))
        span_start, span_end = src.starts[line - 1], src.starts[end_line]
        shifted = [(s - span_start, e - span_start, r) for s, e, r in edits]
        before = text[span_start:span_end]
        enclosing = [f for f in functions if f[1] <= line <= f[2]]
        function = max(enclosing, key=lambda f: f[1])[0] if enclosing else "<module>"
        found.append((first, operator, Mutant(module, line, function, operator,
                                              _normalised(before),
                                              _normalised(_apply(before, shifted)),
                                              0, mutated)))
    found.sort(key=lambda item: (item[0], item[1]))
    counts: Counter = Counter()
    numbered = []
    for _, _, mutant in found:
        occurrence = counts[(mutant.original, mutant.operator)]
        counts[(mutant.original, mutant.operator)] += 1
        numbered.append(dataclasses.replace(mutant, occurrence=occurrence))
    return numbered

"""What the rewrites read of a reference module: which code is the student's, the
signatures of its functions, the names bound in each scope, and a renamer that
follows Python's scoping rules.

The student's code is every function whose body holds a solution region (its def
line, docstring and signature are the specification around it) and every
definition inside a region; the scaffolding the student was given stays as it is.
"""

from __future__ import annotations

import ast
import builtins
import copy
import keyword
import re
from dataclasses import dataclass

from ...release import _regions as solution_regions

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
#: Nodes that open a scope of their own.
SCOPES = (*FUNCTIONS, ast.Lambda, ast.ClassDef, *COMPREHENSIONS)


@dataclass(frozen=True)
class Signature:
    """What a call may pass: the parameters a positional argument fills, in order."""
    positional: tuple[str, ...]
    posonly: int            # how many of them are positional-only
    vararg: bool
    keyword_only: tuple[str, ...]

    @classmethod
    def of(cls, function: ast.FunctionDef | ast.Lambda, method: bool = False) -> "Signature":
        args = function.args
        names = [a.arg for a in [*args.posonlyargs, *args.args]]
        posonly = len(args.posonlyargs)
        if method and names:
            names, posonly = names[1:], max(0, posonly - 1)
        return cls(tuple(names), posonly, args.vararg is not None,
                   tuple(a.arg for a in args.kwonlyargs))

    def by_keyword(self, call: ast.Call) -> bool:
        """Turn `call`'s positional arguments into keywords; False (and unchanged)
        where the signature does not allow it or nothing would change."""
        if any(isinstance(a, ast.Starred) for a in call.args) or \
                any(k.arg is None for k in call.keywords):
            return False
        if len(call.args) > len(self.positional) or len(call.args) <= self.posonly:
            return False
        moved = [ast.keyword(arg=self.positional[index], value=value)
                 for index, value in enumerate(call.args) if index >= self.posonly]
        call.args = call.args[:self.posonly]
        call.keywords = moved + call.keywords
        return True


class Reference:
    """One module of the reference: its text, the lines inside solution regions and
    a fresh syntax tree for every rewrite (`tree()`)."""

    def __init__(self, module: str, text: str):
        self.module, self.text = module, text
        self._tree = ast.parse(text)
        # Lines inside a region, 1-based and inclusive (the marker lines excluded).
        self.inside = [(begin + 2, end)
                       for begin, end in solution_regions(text.splitlines(), module)]
        self.docstring = ast.get_docstring(self._tree) or ""

    def tree(self) -> ast.Module:
        return copy.deepcopy(self._tree)

    def in_region(self, node: ast.AST) -> bool:
        return any(low <= node.lineno and node.end_lineno <= high for low, high in self.inside)

    def holds_region(self, node: ast.AST) -> bool:
        return any(node.lineno <= low and high <= node.end_lineno for low, high in self.inside)

    def is_student(self, node: ast.AST) -> bool:
        return self.in_region(node) or (isinstance(node, FUNCTIONS) and self.holds_region(node))


# ------------------------------------------------------------ the student's code
@dataclass
class Function:
    node: ast.FunctionDef
    owner: ast.ClassDef | None      # the class of a method, None for a module function

    @property
    def name(self) -> str:
        return self.node.name

    @property
    def qualified(self) -> str:
        return f"{self.owner.name}.{self.name}" if self.owner else self.name

    @property
    def public(self) -> bool:
        return not self.name.startswith("_")

    @property
    def signature(self) -> Signature:
        return Signature.of(self.node, method=self.owner is not None)


def student_functions(reference: Reference, tree: ast.Module) -> list[Function]:
    """The module's functions and methods that are the student's, in source order."""
    found = []
    for node in tree.body:
        if isinstance(node, FUNCTIONS) and reference.is_student(node):
            found.append(Function(node, None))
        elif isinstance(node, ast.ClassDef):
            found += [Function(item, node) for item in node.body
                      if isinstance(item, FUNCTIONS) and reference.is_student(item)]
    return found


def student_statements(reference: Reference, tree: ast.Module) -> list[ast.stmt]:
    """The student's functions and the module-level statements inside regions."""
    found = []
    for node in tree.body:
        if reference.is_student(node):
            found.append(node)
        elif isinstance(node, ast.ClassDef):
            found += [item for item in node.body if reference.is_student(item)]
    return found


def module_functions(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    return {node.name: node for node in tree.body if isinstance(node, FUNCTIONS)}


def module_classes(tree: ast.Module) -> dict[str, ast.ClassDef]:
    return {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}


def docstring_node(function: ast.FunctionDef | ast.Module | ast.ClassDef) -> ast.Expr | None:
    body = function.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        return body[0]
    return None


# ------------------------------------------------------------ scopes
def scope_nodes(scope: ast.AST):
    """The nodes of `scope` that run in it: nested scopes are yielded themselves (so
    their names are seen), with the parts of them evaluated outside (a function's
    decorators and defaults, a comprehension's first iterable) but not their bodies."""
    stack = inner_parts(scope) if isinstance(scope, (*SCOPES, ast.Module)) else [scope]
    stack.reverse()
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(outer_parts(node)) if isinstance(node, SCOPES)
                     else reversed(list(ast.iter_child_nodes(node))))


def inner_parts(scope: ast.AST) -> list[ast.AST]:
    """The parts of a scope (or module) that run in it; see outer_parts for the rest."""
    if isinstance(scope, ast.Lambda):
        return [scope.body]
    if isinstance(scope, COMPREHENSIONS):
        first, *rest = scope.generators
        parts = [first.target, *first.ifs]
        for generator in rest:
            parts += [generator.iter, generator.target, *generator.ifs]
        return parts + ([scope.key, scope.value] if isinstance(scope, ast.DictComp)
                        else [scope.elt])
    return list(scope.body)


def outer_parts(node: ast.AST) -> list[ast.AST]:
    """The parts of a nested scope evaluated in the scope around it."""
    if isinstance(node, FUNCTIONS):
        args = node.args
        return [*node.decorator_list, *args.defaults, *[d for d in args.kw_defaults if d]]
    if isinstance(node, ast.Lambda):
        return [*node.args.defaults, *[d for d in node.args.kw_defaults if d]]
    if isinstance(node, ast.ClassDef):
        return [*node.decorator_list, *node.bases, *node.keywords]
    if isinstance(node, COMPREHENSIONS):
        return [node.generators[0].iter]
    return []


def parameters(scope: ast.AST) -> set[str]:
    if not isinstance(scope, (*FUNCTIONS, ast.Lambda)):
        return set()
    args = scope.args
    names = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    return {a.arg for a in names if a is not None}


def bound(scope: ast.AST) -> set[str]:
    """The names local to `scope`: its parameters and every name it binds, without the
    ones it declares global or nonlocal. A comprehension binds its targets; a walrus
    inside one binds in the function around it."""
    names, declared = set(parameters(scope)), set()
    walrus_home = not isinstance(scope, COMPREHENSIONS)
    for node in scope_nodes(scope):
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            declared.update(node.names)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (*FUNCTIONS, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif walrus_home and isinstance(node, COMPREHENSIONS):
            names.update(walrus_targets(node))
    if isinstance(scope, COMPREHENSIONS):
        names -= walrus_targets(scope)
    return names - declared


def walrus_targets(comprehension: ast.AST) -> set[str]:
    return {node.target.id for node in ast.walk(comprehension)
            if isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name)}


def imported(scope: ast.AST) -> set[str]:
    return {(a.asname or a.name).split(".")[0] for node in scope_nodes(scope)
            if isinstance(node, (ast.Import, ast.ImportFrom)) for a in node.names}


class Fresh:
    """Names no identifier of the module uses yet."""

    def __init__(self, tree: ast.AST):
        # Every word of the module's code: a superset of its identifiers is as safe.
        self.taken = set(dir(builtins)) | set(keyword.kwlist) | \
            set(re.findall(r"\w+", ast.unparse(tree)))

    def __call__(self, wanted: str) -> str:
        name, number = wanted, 2
        while name in self.taken:
            name, number = f"{wanted}{number}", number + 1
        self.taken.add(name)
        return name


class Renamer(ast.NodeTransformer):
    """Rename the names of one scope (`mapping`, old -> new) where they mean that
    scope's binding: in the scope itself and in nested scopes that do not bind the
    name again (a nested function's parameter of the same name hides it)."""

    def __init__(self, mapping: dict[str, str]):
        self.stack = [dict(mapping)]

    @property
    def mapping(self) -> dict[str, str]:
        return self.stack[-1]

    def rename(self, scope: ast.AST) -> ast.AST:
        """Rename inside `scope`, the scope whose names `mapping` names (a function's
        own name, decorators and defaults belong to the scope around it)."""
        for part in inner_parts(scope):
            self.visit(part)
        return scope

    def visit_Name(self, node):
        node.id = self.mapping.get(node.id, node.id)
        return node

    def visit_Global(self, node):
        node.names = [self.mapping.get(n, n) for n in node.names]
        return node

    visit_Nonlocal = visit_Global

    def visit_ExceptHandler(self, node):
        if node.name:
            node.name = self.mapping.get(node.name, node.name)
        self.generic_visit(node)
        return node

    def _scope(self, node):
        """A nested scope: its outer parts and name with the names around it, its inner
        parts with the names it binds itself hidden (a name it declares nonlocal, or
        global where the mapping is global, stays)."""
        for part in outer_parts(node):
            self.visit(part)
        if isinstance(node, (*FUNCTIONS, ast.ClassDef)):
            node.name = self.mapping.get(node.name, node.name)
        hidden = bound(node)
        self.stack.append({k: v for k, v in self.mapping.items() if k not in hidden})
        for part in inner_parts(node):
            self.visit(part)
        self.stack.pop()
        return node

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = _scope
    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _scope


def rename_in(scope: ast.AST, mapping: dict[str, str]) -> None:
    """Rename the names `scope` (a module, function or comprehension) binds where they
    mean its binding."""
    if mapping:
        Renamer(mapping).rename(scope)


def contains(node: ast.AST, kinds) -> bool:
    """Whether `node` holds a node of `kinds` in its own scope."""
    return any(isinstance(n, kinds) for n in scope_nodes(node) if n is not node)


def names_used(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}

"""Calls by keyword: of the module's functions and methods, and of the functions a
caller passes in (the baseline `unparsed` is here too)."""

from __future__ import annotations

import ast

from ..source import FUNCTIONS, Signature, module_classes, module_functions, parameters
from .base import BUILTIN_METHODS, Context, binding_scope, calls_in, nested_def, rewrite


@rewrite("unparsed", "the reference as ast.unparse writes it: comments and region markers "
                     "dropped (every rewrite starts from this)")
def unparsed(context: Context) -> int:
    return 1


def method_signatures(tree: ast.Module) -> dict[str, Signature]:
    """Methods of the module's classes whose name means one signature in all of them
    (and no method of a builtin type): a call `anything.name(...)` is one of them."""
    found: dict[str, set] = {}
    for cls in module_classes(tree).values():
        for item in cls.body:
            if isinstance(item, FUNCTIONS):
                kind = Signature.of(item, method=True) if not item.decorator_list else None
                found.setdefault(item.name, set()).add(kind)
    return {name: next(iter(kinds)) for name, kinds in found.items()
            if len(kinds) == 1 and None not in kinds and name not in BUILTIN_METHODS}


@rewrite("keyword_calls", "every call of a function or method of the module passes its "
                          "arguments by keyword, by the callee's parameter names")
def keyword_calls(context: Context) -> int:
    tree = context.tree
    functions = module_functions(tree)
    methods = method_signatures(tree)
    changed = 0
    for function in context.functions:
        for call, chain in calls_in(function.node):
            signature = None
            if isinstance(call.func, ast.Name):
                name = call.func.id
                scope = binding_scope(name, chain)
                if scope is None and name in functions:
                    if functions[name].decorator_list:
                        context.note(f"{name}: decorated, so its callable signature is the "
                                     f"decorator's (not called by keyword)")
                        continue
                    signature = Signature.of(functions[name])
                elif scope is not None and name not in parameters(scope):
                    inner = nested_def(scope, name)
                    if inner is not None and not inner.decorator_list:
                        signature = Signature.of(inner)
            elif isinstance(call.func, ast.Attribute) and call.func.attr in methods:
                signature = methods[call.func.attr]
            if signature is not None and signature.by_keyword(call):
                changed += 1
    return changed


def callback_signatures(tree: ast.Module) -> dict[str, Signature]:
    """Parameters that hold a function of the module's kind: named like a module
    function (connect4's `evaluation`), or defaulting to one (`order=centre_first`)."""
    functions = {name: node for name, node in module_functions(tree).items()
                 if not node.decorator_list}
    found = {}
    for node in ast.walk(tree):
        if not isinstance(node, FUNCTIONS):
            continue
        args = node.args
        positional = [*args.posonlyargs, *args.args]
        defaults = dict(zip([a.arg for a in positional[len(positional) - len(args.defaults):]],
                            args.defaults))
        for parameter in parameters(node):
            if parameter in functions:
                found[parameter] = Signature.of(functions[parameter])
            default = defaults.get(parameter)
            if isinstance(default, ast.Name) and default.id in functions:
                found.setdefault(parameter, Signature.of(functions[default.id]))
    return found


@rewrite("keyword_callbacks", "every call of a function the caller passed in (an evaluation, "
                              "an order) passes its arguments by keyword, by the parameter "
                              "names of the module's function of that kind",
         nothing="no function of the module calls a function it was passed")
def keyword_callbacks(context: Context) -> int:
    callbacks = callback_signatures(context.tree)
    changed = 0
    for function in context.functions:
        for call, chain in calls_in(function.node):
            if not isinstance(call.func, ast.Name) or call.func.id not in callbacks:
                continue
            scope = binding_scope(call.func.id, chain)
            if scope is None or call.func.id not in parameters(scope):
                continue                # the module's own function: keyword_calls' part
            if callbacks[call.func.id].by_keyword(call):
                changed += 1
    return changed

"""The grader's stand-ins take the specification's signature.

A check plays some of the student's functions with the grader's (blame), and
hands the student's code objects of the grader's: a game whose methods it calls,
an evaluation, an order, a clock, a random generator. Whatever the student's code
may call, the specification says how: `get_order_value(state, player, depth)` may
be called positionally, by the parameter names, or leaning on defaults
(`value_ab(s, other, depth=d)`). So every stand-in is made here, from the
reference's own `inspect.signature`, and binds each call with `Signature.bind`
before the grader's function runs: a call the specified function accepts is
accepted, one it refuses is refused with the TypeError Python would raise (a call
by a parameter name of the grader's own, say, is refused as the reference would
refuse it). Nothing in a suite writes a stand-in's parameters by hand: `stand_in`
makes a function, `signed` a class of the grader's whose methods take the specified
ones' signatures (its objects keep their identity and records), `stand_ins` a suite's
`played_as`.
"""

from __future__ import annotations

import functools
import inspect
from typing import Callable


def spec_of(spec) -> inspect.Signature:
    """The signature `spec` stands for: a Signature as it is, else the callable's."""
    return spec if isinstance(spec, inspect.Signature) else _signature(spec)


@functools.cache
def _signature(spec) -> inspect.Signature:
    return inspect.signature(spec)


def _positional(signature: inspect.Signature) -> tuple[int, int, tuple] | None:
    """(fewest, most positional arguments, the defaults of the last parameters) where
    every parameter of `signature` may be passed by position (no *args, **kwargs or
    keyword-only ones): a call with `fewest` to `most` positional arguments and no
    keyword binds as they are, followed by the defaults of the parameters left. Else
    None (every call goes through `Signature.bind`)."""
    parameters = list(signature.parameters.values())
    if any(p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in parameters):
        return None
    defaults = tuple(p.default for p in parameters if p.default is not p.empty)
    fewest = len(parameters) - len(defaults)
    if any(p.default is p.empty for p in parameters[fewest:]):
        return None
    return fewest, len(parameters), defaults


def stand_in(spec, behaviour: Callable, *, name: str | None = None) -> Callable:
    """`behaviour` behind `spec`'s signature: every call `spec` accepts (positional,
    by its parameter names, with its defaults) reaches `behaviour` with all arguments
    bound, in `spec`'s order; any other call raises the TypeError `spec` would. A
    positional call that needs no binding (most calls of a search) skips `bind`."""
    signature = spec_of(spec)
    called = name or getattr(spec, "__name__", None) or getattr(behaviour, "__name__", "function")
    fewest, most, defaults = _positional(signature) or (1, 0, ())

    def played(*args, **kwargs):
        if not kwargs and fewest <= len(args) <= most:
            return behaviour(*args, *defaults[len(args) - fewest:])
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as error:
            raise TypeError(f"{called}(): {error}") from None
        bound.apply_defaults()
        return behaviour(*bound.args, **bound.kwargs)

    played.__name__ = played.__qualname__ = called
    played.__signature__ = signature
    played.behaviour = behaviour       # the grader's function, for its own records
    return played


def stand_ins(spec: dict) -> Callable:
    """`played_as(name, function)`: the grader's `function` standing in for the
    student's `name`, with `spec[name]`'s signature (a function or a Signature, taken
    when the suite loads: checks swap the reference's module functions while it
    computes); the specified function (the reference's own) is its own stand-in."""
    def played_as(name: str, function: Callable) -> Callable:
        return function if function is spec[name] else stand_in(spec[name], function,
                                                                 name=name)
    return played_as


def method_spec(spec_class, name: str) -> inspect.Signature:
    """The signature of `spec_class.name` as called on an instance (without self)."""
    signature = spec_of(getattr(spec_class, name))
    parameters = list(signature.parameters.values())
    if isinstance(inspect.getattr_static(spec_class, name), (staticmethod, classmethod)):
        return signature
    return signature.replace(parameters=parameters[1:])


def signed(cls: type, spec_class, names) -> type:
    """A subclass of `cls` whose methods `names` take `spec_class`'s signatures: each
    call is bound by the specified method's parameters (without self), then passed
    on to `cls`'s method positionally. Made once per (cls, spec_class, names)."""
    return _signed(cls, spec_class, tuple(names))


@functools.cache
def _signed(cls: type, spec_class, names: tuple) -> type:
    methods = {}
    for name in names:
        signature = method_spec(spec_class, name)
        inner = getattr(cls, name)
        methods[name] = _bound_method(signature, inner, name)
    return type(cls.__name__, (cls,), {**methods, "__module__": cls.__module__,
                                       "__doc__": cls.__doc__, "_signed_from": cls})


def unsigned(cls: type) -> type:
    """The class `signed` made `cls` from (else `cls` itself)."""
    return cls.__dict__.get("_signed_from", cls)


def _bound_method(signature: inspect.Signature, inner, name: str):
    fewest, most, defaults = _positional(signature) or (1, 0, ())

    def method(self, *args, **kwargs):
        if not kwargs and fewest <= len(args) <= most:      # as in stand_in
            return inner(self, *args, *defaults[len(args) - fewest:])
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as error:
            raise TypeError(f"{name}(): {error}") from None
        bound.apply_defaults()
        return inner(self, *bound.args, **bound.kwargs)
    method.__name__ = method.__qualname__ = name
    method.inner = inner         # what it calls (search.Game: a method of its own or not)
    method.spec = signature
    return method


@functools.cache
def passes_on(method, count: int) -> bool:
    """Whether a call of `method` (a method `signed` made, or any other) with `count`
    positional arguments reaches the grader's method with them and nothing more: a
    question answered ahead is recorded without binding it (search.Game, boards)."""
    spec = getattr(method, "spec", None)
    if spec is None:
        return True
    try:
        bound = spec.bind(*[None] * count)
    except TypeError:
        return False
    bound.apply_defaults()
    return not bound.kwargs and len(bound.args) == count

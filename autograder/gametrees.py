"""Small hand-built game trees: the kit's fixture format, adapters and a reference search.

Hidden suites check a search *technique* (which nodes it visits, where it
prunes, where it stops for the depth limit) on trees whose every node is
known. This module owns the format of such trees; later assignments reuse it.

Format
------
A tree is a JSON object (a plain dict once loaded)::

    {
      "name": "aima-5-2",                      # unique, [a-z0-9_-]
      "description": "free text",               # optional
      "root": "A",                              # name of the root node
      "max_to_move": true,                      # optional, default true: the
                                                # maximizer moves at the root
      "children": {"A": ["B", "C"], "B": ["b1", "b2"], "C": ["c1"]},
      "values": {"b1": 3, "b2": 12, "c1": 2, "B": 4}
    }

* Node names are non-empty strings, unique in the tree.
* `children` maps every inner node to the list of its children, **in the
  order a search must visit them**. A node that is not a key of `children`
  (or maps to an empty list) is a *leaf*: a decided game.
* `values` maps every leaf to its value (seen from the maximizer: higher is
  better for max). An inner node may have a value too: its heuristic value,
  returned by `evaluation` when a depth limit stops the search there. An inner
  node without a value must never be evaluated; doing so raises
  `EvaluatedWithoutValue`.
* The shape is a tree: the root is nobody's child, every other node is the
  child of exactly one node, and every node is reachable from the root.
  Values are ints or floats (JSON numbers).

Trees live in `autograder/gametrees/<name>.json`; `load_tree(name)` reads one
(by name or by path) and checks it with `validate_tree`.

Adapters
--------
A state-passing search (the seed's style: `maximize(state, ...)` calling
`nextstates(state)`, `terminal_test(state)`, `evaluation(state)`) runs on a
tree through `TreeGame`: its states are node names, and its three methods
answer from the tree and record every call, so the grader sees exactly which
nodes a search expanded and evaluated, in which order, whatever counters the
search keeps itself. `TreeGame(tree, tokens=opaque_tokens(tree, seed))` hides
the names: the search sees each node as a random-looking list of numbers
(its *token*) that means nothing outside this game object, while the records
still name the nodes. A grader hands such a game to untrusted code through a
proxy, so a search that does not ask this game cannot know the tree.

`random_tree(name, seed, ...)` makes seeded random trees of a given depth and
branching, with arbitrary values (narrow value ranges give many ties), inner
values for depth limits and early leaves (decided games above the leaves).

Pass a `TreeGame` where a search takes a game object
(`game=` in the gametree assignment), or use `patch_module(module, game)` to
replace a module's own `nextstates`/`terminal_test`/`evaluation` functions for
the duration of a `with` block (connect4 style, where the search calls module
functions). `to_nested(tree)` converts a tree into the nested-list form of
`autograder.instrumented.TreeGame` for make/undo searchers.

Reference search
----------------
`search_tree(tree, bremse, alphabeta)` is an independent implementation of
the kit's search rules (the same as `solutions/gametree/gametree.py`):

* children in the listed order; a child replaces the best so far only if
  strictly better;
* a node is evaluated if it is a leaf or `bremse` is 0 there (the root has
  `bremse`, its children `bremse - 1`, ...), otherwise expanded;
* alpha-beta is fail-soft; a max node stops after a child once best >= beta,
  a min node once best <= alpha, and each such stop counts as one pruning
  (also after the last child, where nothing is skipped).

It returns a `TreeResult` with the value, the chosen child, the visited,
evaluated and expanded nodes in visit order, the number of prunings and the
skipped children per node. This module imports nothing from the solutions
and nothing outside the standard library (kit tests load it by path); it
runs on the trusted side only: untrusted code never sees a tree, only a proxy.
"""

from __future__ import annotations

import json
import math
import random
import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

inf = math.inf

#: Folder of the kit's example trees.
TREES_DIR = Path(__file__).resolve().parent / "gametrees"

_NAME = re.compile(r"^[a-z0-9_-]+$")


class TreeFormatError(ValueError):
    """A tree does not follow the format in the module docstring."""


class EvaluatedWithoutValue(KeyError):
    """A search evaluated an inner node that has no heuristic value."""

    def __str__(self):
        return self.args[0] if self.args else "evaluated a node without a value"


def validate_tree(tree):
    """Check `tree` against the format; return it. Raises TreeFormatError."""
    if not isinstance(tree, dict):
        raise TreeFormatError("a tree is a JSON object")
    for key in ("name", "root", "children", "values"):
        if key not in tree:
            raise TreeFormatError(f"tree has no {key!r}")
    name, root = tree["name"], tree["root"]
    children, values = tree["children"], tree["values"]
    if not isinstance(name, str) or not _NAME.match(name):
        raise TreeFormatError(f"bad tree name {name!r}")
    if not isinstance(root, str) or not root:
        raise TreeFormatError("root must be a non-empty string")
    if not isinstance(tree.get("max_to_move", True), bool):
        raise TreeFormatError("max_to_move must be true or false")
    if not isinstance(children, dict) or not isinstance(values, dict):
        raise TreeFormatError("children and values must be objects")
    parent = {}
    for node, kids in children.items():
        if not isinstance(kids, list) or not all(isinstance(k, str) and k for k in kids):
            raise TreeFormatError(f"children of {node!r} must be a list of names")
        for kid in kids:
            if kid in parent or kid == root:
                raise TreeFormatError(f"{kid!r} has more than one parent (not a tree)")
            parent[kid] = node
    for node, value in values.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TreeFormatError(f"value of {node!r} is not a number")
    seen, todo = set(), [root]
    while todo:
        node = todo.pop()
        seen.add(node)
        kids = children.get(node, [])
        if not kids and node not in values:
            raise TreeFormatError(f"leaf {node!r} has no value")
        todo.extend(kids)
    unknown = (set(children) | set(values) | set(parent)) - seen
    if unknown:
        raise TreeFormatError(f"nodes not reachable from the root: {sorted(unknown)}")
    return tree


def load_tree(name_or_path):
    """Load and validate a tree: a name in TREES_DIR or a path to a .json file."""
    path = Path(name_or_path)
    if path.suffix != ".json":
        path = TREES_DIR / f"{name_or_path}.json"
    with open(path, encoding="utf-8") as handle:
        return validate_tree(json.load(handle))


def tree_names():
    """Names of the trees shipped in TREES_DIR, sorted."""
    return sorted(p.stem for p in TREES_DIR.glob("*.json"))


def is_leaf(tree, node):
    """True if `node` has no children (a decided game)."""
    return not tree["children"].get(node)


class TreeGame:
    """A tree seen as a game: states are node names, or opaque tokens.

    Methods `nextstates(node)` (the children in order, a new list),
    `terminal_test(node)` (True for a leaf) and `evaluation(node)` (the
    node's value). Extra positional or keyword arguments are accepted and
    ignored, so the methods can stand in for functions with a `game=` or
    `evaluation` parameter. Every call is recorded by node name:

    * `expanded`: nodes passed to nextstates, in call order;
    * `evaluated`: nodes passed to evaluation, in call order;
    * `tested`: nodes passed to terminal_test, in call order;
    * `log`: nextstates and evaluation calls together, in call order, as
      ("n", node) and ("e", node).

    With `tokens` (node name -> tuple of ints, see `opaque_tokens`), a state
    is a node's token as a list (a tuple is accepted too): `root` and
    `nextstates` give tokens, and the records still name the nodes.

    An unknown node (or token) raises KeyError; evaluating an inner node
    without a value raises EvaluatedWithoutValue. `reset()` clears the records.
    """

    def __init__(self, tree, tokens=None):
        self.tree = validate_tree(tree)
        self._nodes = {tree["root"], *tree["children"], *tree["values"]}
        for kids in tree["children"].values():
            self._nodes.update(kids)
        self.tokens = None
        self._by_token = None
        if tokens is not None:
            if set(tokens) != self._nodes or len(set(tokens.values())) != len(tokens):
                raise TreeFormatError("tokens must name every node once, each a distinct tuple")
            self.tokens = {name: tuple(token) for name, token in tokens.items()}
            self._by_token = {token: name for name, token in self.tokens.items()}
        self.expanded = []
        self.evaluated = []
        self.tested = []
        self.log = []

    def reset(self):
        self.expanded.clear()
        self.evaluated.clear()
        self.tested.clear()
        self.log.clear()

    def _known(self, node):
        """The name of the node a state stands for, or KeyError."""
        if self._by_token is not None:
            name = None
            if type(node) in (list, tuple) and all(type(x) is int for x in node):
                name = self._by_token.get(tuple(node))
            if name is None:
                raise KeyError(f"{_short(node)} is not a state of this game")
            return name
        if not isinstance(node, str) or node not in self._nodes:
            raise KeyError(f"no node {node!r} in tree {self.tree['name']!r}")
        return node

    def state(self, name):
        """What a search sees for node `name`: its token as a list, or the name."""
        return list(self.tokens[name]) if self.tokens is not None else name

    @property
    def root(self):
        return self.state(self.tree["root"])

    def nextstates(self, node, *args, **kwargs):
        name = self._known(node)
        self.expanded.append(name)
        self.log.append(("n", name))
        return [self.state(kid) for kid in self.tree["children"].get(name, [])]

    def terminal_test(self, node, *args, **kwargs):
        name = self._known(node)
        self.tested.append(name)
        return is_leaf(self.tree, name)

    def evaluation(self, node, *args, **kwargs):
        name = self._known(node)
        self.evaluated.append(name)
        self.log.append(("e", name))
        try:
            return self.tree["values"][name]
        except KeyError:
            raise EvaluatedWithoutValue(
                f"evaluated inner node {name!r}, which has no value: "
                "the search evaluated above its depth limit") from None

    def summary(self):
        """The records as plain data (JSON-safe)."""
        return {"expanded": list(self.expanded), "evaluated": list(self.evaluated),
                "tested": list(self.tested)}


def _short(value, limit=60):
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + " ..."


def opaque_tokens(tree, seed):
    """A random-looking, distinct token (a tuple of 2 to 5 numbers) for every node.

    Deterministic for a tree and a seed. The tokens carry no information about
    the tree: no depth, no parent, no value, no order."""
    rng = random.Random(f"{tree['name']}:{seed}")
    names = sorted({tree["root"], *tree["children"], *tree["values"],
                    *(kid for kids in tree["children"].values() for kid in kids)})
    tokens, used = {}, set()
    for name in names:
        while True:
            token = tuple(rng.randrange(10, 100) for _ in range(rng.randint(2, 5)))
            if token not in used:
                break
        used.add(token)
        tokens[name] = token
    return tokens


def random_tree(name, seed, depth=3, branching=(2, 3), low=-9, high=9, leaf_chance=0.0,
                inner_values=True, max_to_move=True, distinct=False):
    """A seeded random tree: every inner node has `branching` (min, max) children.

    Leaves at `depth` plies; above that a node becomes a leaf (a decided game)
    with probability `leaf_chance` (never the root). Leaf values, and with
    `inner_values` the heuristic values of inner nodes, are random integers in
    [low, high]: a narrow range gives many ties. With `distinct`, no two leaves
    share a value (so no comparison of a search ever ties; the range must be
    large enough). Node names are short paths ("r", "r0", "r01", ...), so a
    drawing reads like the tree's shape."""
    rng = random.Random(f"{name}:{seed}")
    children, values, used = {}, {}, set()

    def leaf_value():
        while True:
            value = rng.randint(low, high)
            if not distinct or value not in used:
                used.add(value)
                return value

    def grow(node, ply):
        leaf = ply == depth or (ply > 0 and rng.random() < leaf_chance)
        if leaf:
            values[node] = leaf_value()
            return
        if inner_values:
            values[node] = rng.randint(low, high)
        kids = [f"{node}{i}" for i in range(rng.randint(*branching))]
        children[node] = kids
        for kid in kids:
            grow(kid, ply + 1)

    grow("r", 0)
    return validate_tree({"name": name, "root": "r", "max_to_move": max_to_move,
                          "children": children, "values": values})


def depths(tree):
    """The ply of every node below the root (the root has 0)."""
    found, todo = {tree["root"]: 0}, [tree["root"]]
    while todo:
        node = todo.pop()
        for kid in tree["children"].get(node, []):
            found[kid] = found[node] + 1
            todo.append(kid)
    return found


@contextmanager
def patch_module(module, game, names=("nextstates", "terminal_test", "evaluation")):
    """Temporarily replace `module.<name>` by `game.<name>` for each name.

    For searches that call module-level functions. Restores the originals on
    exit, also after an exception. A name the module lacks is set and then
    removed again.
    """
    missing = object()
    saved = {name: getattr(module, name, missing) for name in names}
    try:
        for name in names:
            setattr(module, name, getattr(game, name))
        yield game
    finally:
        for name, original in saved.items():
            if original is missing:
                if hasattr(module, name):
                    delattr(module, name)
            else:
                setattr(module, name, original)


@dataclass
class TreeResult:
    """What the reference search did on a tree (all plain data)."""

    value: float
    best: str | None
    visited: list = field(default_factory=list)
    evaluated: list = field(default_factory=list)
    expanded: list = field(default_factory=list)
    prunings: int = 0
    pruned: dict = field(default_factory=dict)

    def as_dict(self):
        return {"value": self.value, "best": self.best, "visited": list(self.visited),
                "evaluated": list(self.evaluated), "expanded": list(self.expanded),
                "prunings": self.prunings,
                "pruned": {k: list(v) for k, v in self.pruned.items()}}


def search_tree(tree, bremse=inf, alphabeta=True, alpha=-inf, beta=inf, node=None,
                maximizing=None):
    """Search `tree` from `node` (default: the root) by the kit's rules.

    `alphabeta=False` gives plain minimax (no window, no pruning) with the same
    depth limit. `maximizing` defaults to the tree's `max_to_move` at the root
    (for another start node, pass it). Returns a TreeResult.
    """
    validate_tree(tree)
    children, values = tree["children"], tree["values"]
    if node is None:
        node = tree["root"]
    if maximizing is None:
        maximizing = tree.get("max_to_move", True)
    result = TreeResult(value=0, best=None)

    def visit(name, depth_left, lo, hi, is_max):
        result.visited.append(name)
        kids = children.get(name, [])
        if depth_left <= 0 or not kids:
            result.evaluated.append(name)
            if name not in values:
                raise EvaluatedWithoutValue(f"inner node {name!r} has no value")
            return None, values[name]
        result.expanded.append(name)
        best_kid, best = None, (-inf if is_max else inf)
        for i, kid in enumerate(kids):
            _, v = visit(kid, depth_left - 1, lo, hi, not is_max)
            if (v > best) if is_max else (v < best):
                best_kid, best = kid, v
            if not alphabeta:
                continue
            if is_max:
                if best >= hi:
                    result.prunings += 1
                    if kids[i + 1:]:
                        result.pruned[name] = list(kids[i + 1:])
                    break
                lo = max(lo, best)
            else:
                if best <= lo:
                    result.prunings += 1
                    if kids[i + 1:]:
                        result.pruned[name] = list(kids[i + 1:])
                    break
                hi = min(hi, best)
        return best_kid, best

    result.best, result.value = visit(node, bremse, alpha, beta, maximizing)
    return result


def to_nested(tree):
    """The tree as `(nested, static)` for autograder.instrumented.TreeGame.

    `nested` is a number for a leaf and a list of children otherwise;
    `static` maps the path (tuple of child indexes) of every inner node that
    has a value to that value.
    """
    validate_tree(tree)
    static = {}

    def build(name, path):
        kids = tree["children"].get(name, [])
        if not kids:
            return tree["values"][name]
        if name in tree["values"]:
            static[path] = tree["values"][name]
        return [build(kid, path + (i,)) for i, kid in enumerate(kids)]

    return build(tree["root"], ()), static

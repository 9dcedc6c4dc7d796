"""An independent alpha-beta over the trees of autograder/checking/gametrees.py, the
tests' oracle for the reference and the suites (the same rules as
`solutions/gametree/gametree.py`):

* children in the listed order; a child replaces the best so far only if
  strictly better;
* a node is evaluated if it is a leaf or `bremse` is 0 there (the root has
  `bremse`, its children `bremse - 1`, ...), otherwise expanded;
* alpha-beta is fail-soft; a max node stops after a child once best >= beta,
  a min node once best <= alpha, and each such stop counts as one pruning
  (also after the last child, where nothing is skipped).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import inf

from autograder.checking import gametrees


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


def search_tree(tree, bremse=inf, alphabeta=True, alpha=-inf, beta=inf, node=None,
                maximizing=None):
    """Search `tree` from `node` (default: the root) by the kit's rules.

    `alphabeta=False` gives plain minimax (no window, no pruning) with the same
    depth limit. `maximizing` defaults to the tree's `max_to_move` at the root
    (for another start node, pass it). Returns a TreeResult.
    """
    gametrees.validate_tree(tree)
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
                raise gametrees.EvaluatedWithoutValue(f"inner node {name!r} has no value")
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

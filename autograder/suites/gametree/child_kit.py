"""Kit module for the gametree suite: runs the student's searches inside the sandbox.

Loaded into the child before confinement (rubric.toml `[kit]`), standard
library only. It loads its siblings by path at import time, while it still may
read the kit's folders: `kitgame.py` (the counting k-in-a-row game) and
`autograder/gametrees.py` with every tree in `autograder/gametrees/`.

Each function imports the student's `gametree` module, runs one search over
a game object of ours and returns plain data: what the search returned, what
the game saw (calls, order digest, plies) and the counters of the student's
own `SearchStats`. The suite compares all of it with the reference's run over
the same kind of game in the trusted process.
"""

import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
KIT_ROOT = HERE.parents[1]


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


kitgame = _load("_gametree_kitgame", HERE / "kitgame.py")
gametrees = _load("_gametree_gametrees", KIT_ROOT / "gametrees.py")
TREES = {name: gametrees.load_tree(name) for name in gametrees.tree_names()}

INF = float("inf")
PLAIN = ("maximize", "minimize")
WINDOWED = ("maximize_ab", "minimize_ab")


def _student():
    import gametree  # the student's module; its folder is on sys.path in the child
    return gametree


def _stats_of(stats):
    if stats is None:
        return None
    return {name: getattr(stats, name, None)
            for name in ("nodes", "expanded", "evaluations", "prunings")}


def _search(function, state, game, alpha, beta, bremse, with_stats):
    module = _student()
    if function not in PLAIN + WINDOWED:
        raise ValueError(f"not a search: {function}")
    stats = module.SearchStats() if with_stats else None
    search = getattr(module, function)
    if function in PLAIN:
        result = search(state, game, stats)
    else:
        result = search(state, alpha, beta, bremse, game, stats)
    return result, _stats_of(stats)


def _run(function, where, alpha, beta, bremse, with_stats):
    """`where` is {"tree": name} or {"state": [...], "board": [w, h, k], "mode": m}."""
    if "tree" in where:
        game = gametrees.TreeGame(TREES[where["tree"]])
        result, stats = _search(function, game.root, game, alpha, beta, bremse, with_stats)
        return {"result": result, "expanded": list(game.expanded),
                "evaluated": list(game.evaluated), "stats": stats}
    state = list(where["state"])
    game = kitgame.KitGame(*where["board"], mode=where.get("mode", "exact"),
                           root_len=len(state))
    result, stats = _search(function, state, game, alpha, beta, bremse, with_stats)
    return {"result": result, "game": game.summary(), "stats": stats}


# One kit function per student search, named like it: the grader remembers a
# timeout per function name, so a search that hangs skips only its own later
# calls. An exception of the search (EvaluatedWithoutValue included) propagates
# and is reported as what the search raised.
def maximize(where, with_stats=False):
    return _run("maximize", where, None, None, None, with_stats)


def minimize(where, with_stats=False):
    return _run("minimize", where, None, None, None, with_stats)


def maximize_ab(where, alpha=-INF, beta=INF, bremse=INF, with_stats=False):
    return _run("maximize_ab", where, alpha, beta, bremse, with_stats)


def minimize_ab(where, alpha=-INF, beta=INF, bremse=INF, with_stats=False):
    return _run("minimize_ab", where, alpha, beta, bremse, with_stats)


def computer_move(state, board, mode="exact", bremse=INF, book=None):
    """The student's computer_move on a real position, over a counting game."""
    game = kitgame.KitGame(*board, mode=mode, root_len=len(state))
    result = _student().computer_move(list(state), game, bremse, book)
    return {"result": result, "game": game.summary()}

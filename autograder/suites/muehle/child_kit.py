"""Kit module for the muehle suite: runs inside the sandbox, next to the student's code.

Loaded into the child before confinement (rubric.toml `[kit]`), and also loaded
by the hidden suite in the trusted process, so both sides share the game code
below. Standard library only; `movegen.py` (a sibling) is loaded by path at
import time, because the child cannot read the kit's folders once confined.

Two parts:

* A trusted copy of the game (`game_*`): the rules of the handout, built on
  the fast generator. The search probes install it into the student's module
  while they run (`trusted_game`), so a mistake in the student's rules costs
  points in the rule checks only, and the search checks judge the search alone.
  The successor order is fixed (movegen's), so the trusted side can predict
  orderings.
* Probes: functions the hidden suite calls by name ("kit.<probe>"). Each one
  clears the student's caches, instruments the student's module (counting
  `next_states` / `heuristic` calls, recording `value_ab` / `alpha_beta`
  calls), restores it, and returns plain data. The results are only as
  trustworthy as the student code beside them: the suite judges them.
"""

import contextlib
import importlib.util
import inspect
import os
import random

_HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("_muehle_kit_movegen",
                                               os.path.join(_HERE, "movegen.py"))
movegen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(movegen)

EMPTY, WHITE, BLACK = 0, 1, 2
DRAW_PLIES = movegen.DRAW_PLIES
MILLS = movegen.MILLS
STUDENT = "muehle"


# ---------------------------------------------------------------------------
# The trusted game (same rules as the handout; successors in list form)
# ---------------------------------------------------------------------------

def game_to_tuple(state):
    board, in_hand, quiet = state
    return (tuple(board), tuple(in_hand), quiet)


def game_to_list(state):
    board, in_hand, quiet = state
    return [list(board), list(in_hand), quiet]


def game_opponent(player):
    return WHITE + BLACK - player


def game_next_states(state, player):
    return [game_to_list(s) for s in movegen.next_states(game_to_tuple(state), player)]


def _stones(state, player):
    return list(state[0]).count(player) + state[1][player - 1]


def _has_move(state, player):
    board = list(state[0])
    if EMPTY not in board:
        return False
    if state[1][player - 1] > 0 or board.count(player) == 3:
        return True
    return any(board[p] == player and any(board[q] == EMPTY for q in movegen.ADJACENT[p])
               for p in range(24))


def game_finished(state, player):
    return (_stones(state, player) < 3 or _stones(state, game_opponent(player)) < 3
            or not _has_move(state, player) or state[2] >= DRAW_PLIES)


def game_utility(state, player):
    if _stones(state, player) < 3:
        return -1
    if _stones(state, game_opponent(player)) < 3:
        return 1
    if not _has_move(state, player):
        return -1
    return 0


def game_heuristic(state, player):
    board = list(state[0])
    other = game_opponent(player)
    twos = 0
    for mill in MILLS:
        cells = [board[p] for p in mill]
        if cells.count(EMPTY) == 1:
            twos += (cells.count(player) == 2) - (cells.count(other) == 2)
    return (8 * (_stones(state, player) - _stones(state, other)) + twos) / 128


GAME = {"to_tuple": game_to_tuple, "to_list": game_to_list, "opponent": game_opponent,
        "next_states": game_next_states, "finished": game_finished,
        "utility": game_utility, "heuristic": game_heuristic}


# ---------------------------------------------------------------------------
# Instrumenting the student's module
# ---------------------------------------------------------------------------

def _student():
    import importlib
    return importlib.import_module(STUDENT)


@contextlib.contextmanager
def patched(module, **replacements):
    """Replace module globals for the duration of the block, then restore them."""
    missing = object()
    saved = {name: module.__dict__.get(name, missing) for name in replacements}
    module.__dict__.update(replacements)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is missing:
                module.__dict__.pop(name, None)
            else:
                module.__dict__[name] = value


def _clear(m):
    """Empty the student's caches (the shipped clear_caches, plus the obvious ones)."""
    cache = getattr(getattr(m, "value_minimax", None), "cache", None)
    if isinstance(cache, dict):
        cache.clear()
    if isinstance(getattr(m, "AB_CACHE", None), dict):
        m.AB_CACHE.clear()


@contextlib.contextmanager
def trusted_game(counts=None):
    """Install the trusted game into the student's module; count next_states/heuristic."""
    m = _student()
    functions = dict(GAME)
    if counts is not None:
        for name in ("next_states", "heuristic"):
            counts.setdefault(name, 0)

            def counted(*args, _name=name, _f=functions[name], **kwargs):
                counts[_name] += 1
                return _f(*args, **kwargs)
            functions[name] = counted
    with patched(m, **functions):
        _clear(m)
        try:
            yield m
        finally:
            _clear(m)


def _measure(counts):
    return counts.get("next_states", 0) + counts.get("heuristic", 0)


def _plain(value):
    """A search value as plain data: ints and floats pass, anything else is described."""
    if type(value) in (int, float):
        return value
    return {"bad": repr(value)[:80]}


def _state(value):
    try:
        return game_to_tuple(value)
    except Exception:
        return {"bad": repr(value)[:80]}


# ---------------------------------------------------------------------------
# Probes: memoize and minimax
# ---------------------------------------------------------------------------

def memoize_probe():
    """Memoise a counting function of three arguments; report calls, results, cache."""
    m = _student()
    calls = []

    def f(a, b, c=0):
        calls.append([a, b, c])
        return 100 * a + 10 * b + c

    g = m.memoize(f)
    h = m.memoize(f)
    asks = [(1, 2, 3), (1, 2, 3), (1, 2, 4), (2, 1, 3), (1, 2, 3), (1, 2, 4), (2, 1, 3)]
    results = [g(*a) for a in asks]
    own = getattr(g, "cache", None)
    cache = sorted([list(k), v] for k, v in own.items()) if isinstance(own, dict) else None
    before = len(calls)
    other = h(1, 2, 3)
    return {"results": results, "calls": calls[:before], "cache": cache,
            "separate": other == 123 and len(calls) == before + 1}


def minimax_values(queries):
    """value_minimax for each (state, player, depth) in order, the caches kept in between."""
    with trusted_game() as m:
        return [_plain(m.value_minimax(game_to_tuple(s), p, d)) for s, p, d in queries]


def minimax_cache_probe(state, player, depth):
    """Fresh caches: value and work of a first and of a repeated value_minimax call."""
    counts = {}
    with trusted_game(counts) as m:
        key = (game_to_tuple(state), player, depth)
        first = m.value_minimax(*key)
        work = dict(counts)
        again = m.value_minimax(*key)
        cache = getattr(m.value_minimax, "cache", None)
        return {"value": _plain(first), "again": _plain(again),
                "heuristic": work["heuristic"], "next_states": work["next_states"],
                "repeat_work": _measure(counts) - _measure(work),
                "root_cached": isinstance(cache, dict) and key in cache,
                "cache_size": len(cache) if isinstance(cache, dict) else -1}


def best_move_minimax_probe(state, player, depth, seeds):
    """best_move_minimax with random.Random(seed) for each seed (caches kept)."""
    with trusted_game() as m:
        out = []
        for seed in seeds:
            value, successor = m.best_move_minimax(state, player, depth, random.Random(seed))
            out.append([_plain(value), _state(successor)])
        value, successor = m.best_move_minimax(state, player, depth)
        out.append([_plain(value), _state(successor)])
        return out


# ---------------------------------------------------------------------------
# Probes: alpha-beta
# ---------------------------------------------------------------------------

def ab_and_minimax(state, player, depth):
    """From fresh caches each: value_minimax and value_ab, their values and node counts."""
    mm, ab = {}, {}
    with trusted_game(mm) as m:
        v_mm = m.value_minimax(game_to_tuple(state), player, depth)
    with trusted_game(ab) as m:
        v_ab = m.value_ab(state, player, -1, 1, depth)
    return {"minimax": _plain(v_mm), "ab": _plain(v_ab),
            "minimax_nodes": _measure(mm), "ab_nodes": _measure(ab)}


def ab_windows(queries):
    """value_ab(state, player, alpha, beta, depth) for each query, from fresh caches."""
    out = []
    for state, player, alpha, beta, depth in queries:
        with trusted_game() as m:
            out.append(_plain(m.value_ab(state, player, alpha, beta, depth)))
    return out


def value_ab_probe(planted, state, player, alpha, beta, depth, answer):
    """value_ab with alpha_beta replaced by a recorder that returns `answer`.

    `planted`: [state, player, depth, value, a, b] cache entries put into
    AB_CACHE first. Returns the result, the calls alpha_beta received and the
    entry stored under (state, player, depth) afterwards."""
    calls = []
    original = [None]

    def fake_alpha_beta(*args, **kwargs):
        bound = _bind(original[0], args, kwargs)
        calls.append([_state(bound.get("state")), bound.get("player"), bound.get("alpha"),
                      bound.get("beta"), bound.get("depth")])
        return answer

    with trusted_game() as m:
        for s, p, d, value, a, b in planted:
            m.AB_CACHE[(game_to_tuple(s), p, d)] = (value, a, b)
        original[0] = m.alpha_beta
        with patched(m, alpha_beta=fake_alpha_beta):
            result = m.value_ab(state, player, alpha, beta, depth)
        entry = m.AB_CACHE.get((game_to_tuple(state), player, depth))
        return {"result": _plain(result), "calls": calls,
                "entry": list(entry) if isinstance(entry, tuple) else repr(entry)[:80]}


def _bind(function, args, kwargs):
    """The arguments of a call by parameter name (defaults applied)."""
    try:
        bound = inspect.signature(function).bind(*args, **kwargs)
        bound.apply_defaults()
        return dict(bound.arguments)
    except (TypeError, ValueError):
        names = ["state", "player", "alpha", "beta", "depth"]
        return dict(zip(names, args)) | kwargs


def order_value_probe(planted, queries):
    """get_order_value for each (state, player, depth) with AB_CACHE holding `planted`."""
    with trusted_game() as m:
        for s, p, d, value in planted:
            m.AB_CACHE[(game_to_tuple(s), p, d)] = (value, -1, 1)
        return [_plain(m.get_order_value(s, p, d)) for s, p, d in queries]


def alpha_beta_order_probe(planted, state, player, depth):
    """The order in which alpha_beta(state, player, -1, 1, depth) tries the successors.

    AB_CACHE holds `planted` ([state, player, depth, value]); value_ab is
    replaced by a recorder that returns 1 (each move then looks like a loss,
    so nothing is cut off and every successor is tried)."""
    tried = []
    with trusted_game() as m:
        original = m.value_ab

        def recorder(*args, **kwargs):
            bound = _bind(original, args, kwargs)
            tried.append(_state(bound.get("state")))
            return 1

        for s, p, d, value in planted:
            m.AB_CACHE[(game_to_tuple(s), p, d)] = (value, -1, 1)
        with patched(m, value_ab=recorder):
            result = m.alpha_beta(state, player, -1, 1, depth)
        return {"tried": tried, "result": _plain(result)}


def best_move_ab_probe(state, player, depth):
    """best_move_ab with the calls it makes to value_ab itself (not nested ones) recorded."""
    top = []
    with trusted_game() as m:
        original = m.value_ab
        level = [0]

        def recorder(*args, **kwargs):
            bound = _bind(original, args, kwargs)
            outer = level[0] == 0
            level[0] += 1
            try:
                result = original(*args, **kwargs)
            finally:
                level[0] -= 1
            if outer:
                top.append([_state(bound.get("state")), bound.get("player"),
                            bound.get("depth"), _plain(result)])
            return result

        with patched(m, value_ab=recorder):
            value, successor = m.best_move_ab(state, player, depth)
        return {"value": _plain(value), "successor": _state(successor), "top": top}


# ---------------------------------------------------------------------------
# Probe: one move of the student's own player (its own rules, fresh caches)
# ---------------------------------------------------------------------------

def play_move(state, player, depth):
    m = _student()
    _clear(m)
    try:
        value, successor = m.best_move_ab(state, player, depth)
    finally:
        _clear(m)
    return _state(successor)

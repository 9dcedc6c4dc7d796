"""Honest rewrites of the muehle reference, each of which must score full marks
(tests/kit/test_honest.py; the format of tests/negamax/honest.py)."""

from tests.conftest import ROOT

MODULE = "muehle.py"
CORRECT = ROOT / "solutions/muehle"

HONEST = {
    # The case: the reference with one call by keyword. The grader's
    # stand-in for get_order_value (and value_ab) take the specified signatures.
    "order_value_by_keyword": ("calls get_order_value by keyword", '''
def alpha_beta(state, player, alpha, beta, depth):
    if finished(state, player):
        return utility(state, player)
    if depth == 0:
        return heuristic(state, player)
    other = opponent(player)
    successors = next_states(state, player)
    successors.sort(key=lambda s: get_order_value(s, player=other, depth=depth - 1))
    value = alpha
    for s in successors:
        value = max(value, -value_ab(s, other, -beta, -alpha, depth - 1))
        if value >= beta:
            return value
        alpha = max(alpha, value)
    return value
'''),
    "keyword_calls": ("calls the rules and the searches by keyword", '''
def alpha_beta(state, player, alpha, beta, depth):
    if finished(state=state, player=player):
        return utility(state=state, player=player)
    if depth == 0:
        return heuristic(state=state, player=player)
    other = opponent(player=player)
    successors = next_states(state=state, player=player)
    successors.sort(key=lambda s: get_order_value(state=s, player=other, depth=depth - 1))
    value = alpha
    for s in successors:
        value = max(value, -value_ab(s, other, alpha=-beta, beta=-alpha, depth=depth - 1))
        if value >= beta:
            return value
        alpha = max(alpha, value)
    return value


def value_ab(state, player, alpha=-1, beta=1, depth=4):
    key = (to_tuple(state=state), player, depth)
    entry = AB_CACHE.get(key)
    if entry is not None:
        value, a, b = entry
        if a <= alpha and beta <= b:
            return value
        alpha, beta = min(alpha, a), max(beta, b)
    value = alpha_beta(state, player, alpha=alpha, beta=beta, depth=depth)
    AB_CACHE[key] = (value, alpha, beta)
    return value


def best_move_ab(state, player, depth):
    other = opponent(player=player)
    scored = [[s, 0] for s in next_states(state=state, player=player)]
    for d in range(depth):
        alpha = -1
        for entry in scored:
            entry[1] = -value_ab(entry[0], other, alpha=-1, beta=-alpha, depth=d)
            alpha = max(alpha, entry[1])
        scored.sort(key=lambda entry: entry[1], reverse=True)
    return scored[0][1], scored[0][0]


def best_move_minimax(state, player, depth, rng=None):
    rng = random if rng is None else rng
    value = value_minimax(to_tuple(state), player, depth)
    other = opponent(player=player)
    best = [s for s in next_states(state=state, player=player)
            if -value_minimax(to_tuple(state=s), other, depth - 1) == value]
    return value, rng.choice(seq=best)
'''),
}

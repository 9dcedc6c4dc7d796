"""Honest rewrites of the gametree reference, each of which must score full marks
(tests/kit/test_honest.py; the format of tests/negamax/honest.py)."""

from tests.conftest import ROOT

MODULE = "gametree.py"
CORRECT = ROOT / "solutions/gametree"

HONEST = {
    # Every call by the specification's parameter names: the grader's games, and the
    # searches and rules it plays, take them as the specified ones do.
    "keyword_calls": ("calls the game's methods and the searches by keyword", '''
def terminal_test(state, game=TICTACTOE):
    return len(state) >= game.cells or evaluation(state, game=game) != 0


def maximize_ab(state, alpha=-inf, beta=inf, bremse=inf, game=TICTACTOE, stats=None):
    if stats is not None:
        stats.nodes += 1
    if bremse <= 0 or game.terminal_test(state=state):
        if stats is not None:
            stats.evaluations += 1
        return None, game.evaluation(state=state)
    if stats is not None:
        stats.expanded += 1
    best_state, best_value = None, -inf
    for child in game.nextstates(state=state):
        _, value = minimize_ab(child, alpha=alpha, beta=beta, bremse=bremse - 1, game=game,
                               stats=stats)
        if value > best_value:
            best_state, best_value = child, value
        if best_value >= beta:
            if stats is not None:
                stats.prunings += 1
            break
        alpha = max(alpha, best_value)
    return best_state, best_value


def minimize_ab(state, alpha=-inf, beta=inf, bremse=inf, game=TICTACTOE, stats=None):
    if stats is not None:
        stats.nodes += 1
    if bremse <= 0 or game.terminal_test(state=state):
        if stats is not None:
            stats.evaluations += 1
        return None, game.evaluation(state=state)
    if stats is not None:
        stats.expanded += 1
    best_state, best_value = None, inf
    for child in game.nextstates(state=state):
        _, value = maximize_ab(child, alpha=alpha, beta=beta, bremse=bremse - 1, game=game,
                               stats=stats)
        if value < best_value:
            best_state, best_value = child, value
        if best_value <= alpha:
            if stats is not None:
                stats.prunings += 1
            break
        beta = min(beta, best_value)
    return best_state, best_value


def computer_move(state, game=TICTACTOE, bremse=inf, book=None, stats=None):
    if book is not None and tuple(state) in book:
        return [*book[tuple(state)]]
    search = maximize_ab if x_to_move(state=state) else minimize_ab
    best_state, _ = search(state, alpha=-inf, beta=inf, bremse=bremse, game=game, stats=stats)
    return best_state
'''),
}

"""Honest rewrites of the connect4 reference, each of which must score full marks
(tests/kit/test_honest.py; the format of tests/negamax/honest.py)."""

from tests.conftest import ROOT

MODULE = "connect4.py"
CORRECT = ROOT / "solutions/connect4"

HONEST = {
    # The docstring of lines names no container: the 25 strings as a tuple are right.
    "lines_as_tuple": ("returns the lines as a tuple", '''
_list_lines = lines


def lines(board):
    return tuple(_list_lines(board))
'''),
    # Every call by the specification's parameter names: the grader's evaluation,
    # order and clock, and the functions it plays, take them as the specified ones do.
    "keyword_calls": ("calls the rules, the evaluation and the order by keyword", '''
def terminal_test(state, evaluation=None):
    if evaluation is None:
        evaluation = globals()["evaluation"]
    value = evaluation(state=state)
    return value >= WIN or value <= -WIN or len(state) >= CELLS


def _search(state, alpha, beta, bremse, evaluation, stats, order, maximizing):
    if evaluation is None:
        evaluation = globals()["evaluation"]
    if stats is not None:
        stats.nodes += 1
    if bremse == 0 or terminal_test(state, evaluation=evaluation):
        if stats is not None:
            stats.evaluations += 1
        return None, evaluation(state=state)
    if stats is not None:
        stats.expanded += 1
    children = nextstates(state=state)
    if order is not None:
        children = order(children=children)
    other = minimize if maximizing else maximize
    best_state, best_value = None, -inf if maximizing else inf
    for child in children:
        _, value = other(child, alpha=alpha, beta=beta, bremse=bremse - 1,
                         evaluation=evaluation, stats=stats, order=order)
        if (value > best_value) if maximizing else (value < best_value):
            best_state, best_value = child, value
        if (best_value >= beta) if maximizing else (best_value <= alpha):
            if stats is not None:
                stats.prunings += 1
            break
        if maximizing:
            alpha = max(alpha, best_value)
        else:
            beta = min(beta, best_value)
    return best_state, best_value


def maximize(state, alpha=-inf, beta=inf, bremse=6, evaluation=None, stats=None, order=None):
    return _search(state, alpha, beta, bremse, evaluation, stats, order, True)


def minimize(state, alpha=-inf, beta=inf, bremse=6, evaluation=None, stats=None, order=None):
    return _search(state, alpha, beta, bremse, evaluation, stats, order, False)


def book_move(state, book=None):
    successor = (OPENING_BOOK if book is None else book).get(tuple(state))
    return None if successor is None else successor.copy()
'''),
}

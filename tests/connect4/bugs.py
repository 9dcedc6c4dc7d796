"""Single-function bugs in connect4 (issue 22), each appended to the correct example.

The format of tests/tictactoe/bugs.py (MODULE, CORRECT, BUGS = {function: (what
is wrong, code appended to the module)}). examples_build.py writes each bug as
an example, EXAMPLES[function] (four of the older examples are such bugs) or
examples/connect4/bug_<function>, so the bugs are graded with the other
examples in one batch; tests/connect4/test_grading.py asserts that each costs
only its own function's checks and the rubric's whole-program check.

"alphabeta" is maximize and minimize: they call each other, so the hidden
suite judges them together (test_alphabeta_*), with the grader's nextstates and
terminal_test.
"""

from tests.conftest import ROOT

MODULE = "connect4.py"
CORRECT = ROOT / "examples/connect4/ada_reference"

#: The older examples that are one of these bugs (the rest are bug_<function>).
EXAMPLES = {"freeIn": "ivan_top_down", "lines": "frank_no_antidiagonals",
            "alphabeta": "carol_wrong_cut", "iterative_deepening": "grace_endless_deepening"}

#: The bugs `make test` grades (other tests read them too, and EXAMPLES' are graded
#: anyway); make test-all grades all.
QUICK = ("free", "evaluation", "play_game", *EXAMPLES)

# one realistic bug in one function at a time
BUGS = {
    "getBoard": ("gives x the stones at odd positions",
                 "def getBoard(state):\n    board = ['.'] * CELLS\n"
                 "    for i, cell in enumerate(state):\n"
                 "        board[cell] = 'x' if i % 2 else 'o'\n    return board\n"),
    "colNrs": ("lists the column from the top down",
               "def colNrs(i):\n    return [i + WIDTH * r for r in range(HEIGHT)]\n"),
    "freeIn": ("finds the highest empty cell of the column, not the lowest",
               "def freeIn(board, i):\n    for cell in reversed(colNrs(i)):\n"
               "        if board[cell] == '.':\n            return cell\n    return None\n"),
    "free": ("forgets the last column",
             "def free(board):\n    cells = []\n    for i in range(WIDTH - 1):\n"
             "        cell = freeIn(board, i)\n        if cell is not None:\n"
             "            cells.append(cell)\n    return cells\n"),
    "nextstates": ("forgets to take each stone back from the state it was given",
                   "def nextstates(state):\n    children = []\n"
                   "    for cell in free(getBoard(state)):\n        state.append(cell)\n"
                   "        children.append(list(state))\n    return children\n"),
    "lines": ("misses the diagonals running down to the left",
              "def lines(board):\n    text = ''.join(board)\n"
              "    return [text[a:b:c] for a, b, c in _LINE_SLICES[:19]]\n"),
    "pattern_score": ("ignores the weights it is given",
                      "_pattern_score = pattern_score\n\n\n"
                      "def pattern_score(board, weights=WEIGHTS, win=WIN):\n"
                      "    return _pattern_score(board, WEIGHTS, win)\n"),
    "evaluation": ("has its sign flipped",
                   "def evaluation(state):\n    return -pattern_score(getBoard(state), WEIGHTS)\n"),
    "evaluation_b": ("uses evaluation's weights",
                     "def evaluation_b(state):\n"
                     "    return pattern_score(getBoard(state), WEIGHTS)\n"),
    "terminal_test": ("ignores a full board",
                      "def terminal_test(state, evaluation=None):\n"
                      "    if evaluation is None:\n        evaluation = globals()['evaluation']\n"
                      "    return abs(evaluation(state)) >= WIN\n"),
    "alphabeta": ("cuts only once best > beta (maximize) or best < alpha (minimize)",
                  "".join(f"""
def {who}(state, alpha=-inf, beta=inf, bremse=6, evaluation=None, stats=None, order=None):
    if evaluation is None:
        evaluation = globals()['evaluation']
    if stats is not None:
        stats.nodes += 1
    if bremse == 0 or terminal_test(state, evaluation):
        if stats is not None:
            stats.evaluations += 1
        return None, evaluation(state)
    if stats is not None:
        stats.expanded += 1
    children = nextstates(state)
    if order is not None:
        children = order(children)
    best_state, best_value = None, {start}
    for child in children:
        _, value = {other}(child, alpha, beta, bremse - 1, evaluation, stats, order)
        if value {better} best_value:
            best_state, best_value = child, value
        if best_value {better} {bound}:
            if stats is not None:
                stats.prunings += 1
            break
        if best_value {better} {window}:
            {window} = best_value
    return best_state, best_value
""" for who, other, start, better, bound, window in (
                      ("maximize", "minimize", "-inf", ">", "beta", "alpha"),
                      ("minimize", "maximize", "inf", "<", "alpha", "beta")))),
    "centre_first": ("puts the right column first where two are as near the centre",
                     "def centre_first(children):\n"
                     "    return sorted(children, key=lambda c: (abs(c[-1] % WIDTH - 3), "
                     "-(c[-1] % WIDTH)))\n"),
    "shallow_order": ("sorts the children the wrong way round for x",
                      "def shallow_order(children, bremse=2, evaluation=None):\n"
                      "    if not children:\n        return []\n"
                      "    x_moved = len(children[0]) % 2 == 1\n"
                      "    scored = [search(child, bremse, evaluation)[1] for child in children]\n"
                      "    positions = sorted(range(len(children)),\n"
                      "                       key=lambda i: scored[i] if x_moved else -scored[i])\n"
                      "    return [children[i] for i in positions]\n"),
    "book_move": ("returns [] for a position the book does not have",
                  "def book_move(state, book=None):\n"
                  "    if book is None:\n        book = OPENING_BOOK\n"
                  "    return list(book.get(tuple(state), []))\n"),
    "iterative_deepening": ("never gives up a search when the clock says the budget is used",
                            """
def iterative_deepening(state, budget, evaluation=None, clock=time.monotonic,
                        order=centre_first, max_bremse=None, stats=None):
    if evaluation is None:
        evaluation = globals()['evaluation']
    start = clock()
    limit = CELLS - len(state)
    if max_bremse is not None:
        limit = min(limit, max_bremse)
    best = search(state, 1, evaluation, stats, order)
    done = 1
    while done < limit and abs(best[1]) < WIN:
        first = best[0]
        ordering = root_only(state, lambda children: [first] + [
            c for c in (order(children) if order is not None else children) if c != first], order)
        best, done = search(state, done + 1, evaluation, stats, ordering), done + 1
    return best[0], best[1], done
"""),
    "play_game": ("lets x search with o's evaluation",
                  "def play_game(evaluation_x, evaluation_o, bremse=4, opening=(), "
                  "order=centre_first):\n"
                  "    state = list(opening)\n    while not terminal_test(state):\n"
                  "        own = evaluation_o if x_to_move(state) else evaluation_x\n"
                  "        state, _ = search(state, bremse, own, None, order)\n"
                  "    value = evaluation(state)\n"
                  "    return state, (1 if value >= WIN else -1 if value <= -WIN else 0)\n"),
    "tournament": ("gives a draw no points",
                   "_tournament = tournament\n\n\n"
                   "def tournament(evaluation_a, evaluation_b, openings=OPENINGS, bremse=4,\n"
                   "               names=('A', 'B'), order=centre_first):\n"
                   "    result = _tournament(evaluation_a, evaluation_b, openings, bremse, "
                   "names, order)\n"
                   "    for row in result['table'].values():\n"
                   "        row['points'] -= 0.5 * row['draws']\n"
                   "    return result\n"),
}

#: The make check rows a bug's function has (maximize and minimize for "alphabeta").
ROWS = {"alphabeta": ("maximize", "minimize")}

#: Bugs the few literal public tests do not catch (the hidden suite does), with why.
PUBLIC_MISSES = {
    "alphabeta": "the public searches meet no tie at a cut, where > and >= differ",
    "tournament": "the public tournament's two games have no draw",
}

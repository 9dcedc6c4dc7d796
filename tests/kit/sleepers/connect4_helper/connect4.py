"""
Connect 4: alpha-beta with a depth limit ("Bremse"), move ordering,
iterative deepening, and two evaluation functions playing each other.

The board has 7 columns and 6 rows. Its 42 cells are numbered row by row
from the top:

     0  1  2  3  4  5  6
     7  8  9 10 11 12 13
    14 15 16 17 18 19 20
    21 22 23 24 25 26 27
    28 29 30 31 32 33 34
    35 36 37 38 39 40 41

so cell c is in column c % 7, and the bottom row is 35..41. A *state* is the
list of the cells taken so far, in the order they were taken; the first stone
is x (the maximizer), then the players alternate, so x owns the cells at even
positions of the list and o (the minimizer) those at odd positions. A stone
always drops onto the lowest empty cell of its column. [38, 37, 30] is

    . . . . . . .
    . . . . . . .
    . . . . . . .
    . . . . . . .
    . . x . . . .
    . . o x . . .

A *board* is a list of 42 one-character strings: 'x', 'o' or '.' (empty).

Values are seen from x: higher is better for x. A win for x is worth
WIN = 10000, a win for o -WIN.

Search rules (the hidden tests count on them, exactly as in the gametree
assignment):

* Child order: `nextstates` lists the successors by column, 0 to 6; an
  `order` function given to a search may rearrange them (see centre_first).
* A child replaces the best one so far only if strictly better.
* A visited node is one call of `maximize` or `minimize`. It is *evaluated*
  (the search returns `evaluation(state)`) when `bremse == 0` or the game is
  over (`terminal_test`), and *expanded* (children generated) otherwise.
  `terminal_test` is not called when `bremse == 0`.
* Alpha-beta is fail-soft; the maximizer stops after a child once
  best >= beta, the minimizer once best <= alpha; each stop is one pruning.
* A search calls `nextstates` and `terminal_test` of this module, looked up
  when it runs, and the `evaluation` it is given. The hidden tests replace
  `nextstates` and pass evaluations of their own, so your search is checked
  on games the tests make up (fewer moves, another order, other values); a
  search that keeps its own copy of a function searches the wrong game.

Import only from Python's standard library (and any package the README names): the
grader runs this module where nothing else is installed.
"""

import math
import time
from dataclasses import dataclass

inf = math.inf
WIN = 10000
WIDTH, HEIGHT, CELLS = 7, 6, 42

#: Weights of one, two and three own stones in a window (evaluation).
WEIGHTS = (5, 30, 500)
#: The weights of the course notebook's second evaluation function (evaluation_b).
WEIGHTS_B = (5, 10, 50)


@dataclass
class SearchStats:
    """Counters of one or more searches; pass one as `stats=` to a search.

    nodes        visited nodes: calls of maximize/minimize, root included
    expanded     visited nodes whose children were generated
    evaluations  visited nodes whose value the search took from evaluation()
                 (the calls terminal_test makes itself do not count)
    prunings     cutoffs: how often the cut test succeeded and the loop over
                 the children was left

    `nodes == expanded + evaluations` always holds. `reset()` sets all to 0.
    """

    nodes: int = 0
    expanded: int = 0
    evaluations: int = 0
    prunings: int = 0

    def reset(self):
        """Set all counters back to zero."""
        self.nodes = self.expanded = self.evaluations = self.prunings = 0

    def as_dict(self):
        """The counters as a plain dict (for JSON)."""
        return {"nodes": self.nodes, "expanded": self.expanded,
                "evaluations": self.evaluations, "prunings": self.prunings}


def showNr():
    """Return the cell numbers of the board as text, 7 per row."""
    return "\n".join(" ".join(f"{r * WIDTH + c:2d}" for c in range(WIDTH))
                     for r in range(HEIGHT))


def showBoard(board):
    """Return `board` as text, with the column numbers below it."""
    rows = [" ".join(board[r * WIDTH:(r + 1) * WIDTH]) for r in range(HEIGHT)]
    return "\n".join(rows + ["=" * 13, "0 1 2 3 4 5 6"])


def getBoard(state):
    """Return the board of `state`: a new list of 42 characters.

    Cell `state[i]` holds 'x' if i is even and 'o' if i is odd; every other
    cell holds '.'. getBoard([38, 37, 30]) has 'x' at 38 and 30, 'o' at 37.
    """
    board = ["."] * CELLS
    for i, cell in enumerate(state):
        board[cell] = "o" if i & 1 else "x"
    return board


def colNrs(i):
    """Return the 6 cell numbers of column i (0..6), from the bottom up.

    colNrs(0) == [35, 28, 21, 14, 7, 0].
    """
    return [35 + i - WIDTH * r for r in range(HEIGHT)]


def freeIn(board, i):
    """Return the cell where a stone dropped into column i lands.

    That is the lowest empty ('.') cell of column i, or None if the column is
    full. On the empty board freeIn(board, 3) == 38.
    """
    for cell in _COLUMN_CELLS[i]:
        if board[cell] == ".":
            return cell
    return None


def free(board):
    """Return the list of cells where the next stone can land.

    One cell per column that is not full (its `freeIn`), by column from 0 to
    6. On the empty board: [35, 36, 37, 38, 39, 40, 41].
    """
    cells = []
    for i in range(WIDTH):
        cell = freeIn(board, i)
        if cell is not None:
            cells.append(cell)
    return cells


def lines(board):
    """Return the 25 lines of `board` that can hold four in a row, as strings.

    In this order: the 6 rows (top to bottom, each read left to right); the
    7 columns (0 to 6, each read top to bottom); the 6 diagonals running
    down to the right that have at least 4 cells, starting at cells 14, 7,
    0, 1, 2, 3; the 6 diagonals running down to the left with at least 4
    cells, starting at cells 3, 4, 5, 6, 13, 20. Every diagonal is read from
    its top end. E.g. the diagonal starting at 14 is cells 14, 22, 30, 38,
    the one starting at 20 is cells 20, 26, 32, 38.
    """
    text = "".join(board)
    return [text[start:stop:step] for start, stop, step in _LINE_SLICES]


def _line_cells():
    found = [list(range(r * WIDTH, (r + 1) * WIDTH)) for r in range(HEIGHT)]
    found += [list(range(c, CELLS, WIDTH)) for c in range(WIDTH)]

    def walk(start, step_col):
        cells, row, col = [], divmod(start, WIDTH)[0], start % WIDTH
        while 0 <= row < HEIGHT and 0 <= col < WIDTH:
            cells.append(row * WIDTH + col)
            row, col = row + 1, col + step_col
        return cells

    found += [walk(s, 1) for s in (14, 7, 0, 1, 2, 3)]
    found += [walk(s, -1) for s in (3, 4, 5, 6, 13, 20)]
    return tuple(tuple(cells) for cells in found)


_LINE_CELLS = _line_cells()
# The same lines as slices of the board joined into one 42-character string.
_LINE_SLICES = tuple((cells[0], cells[-1] + 1, cells[1] - cells[0])
                     for cells in _LINE_CELLS)
_COLUMN_CELLS = tuple(tuple(35 + i - WIDTH * r for r in range(HEIGHT))
                      for i in range(WIDTH))


def _window_patterns(stone):
    """{number of stones: the 4-character patterns with that many `stone`}."""
    patterns = {1: [], 2: [], 3: []}
    for bits in range(1, 15):
        text = "".join(stone if bits >> (3 - j) & 1 else "." for j in range(4))
        patterns[text.count(stone)].append(text)
    return patterns


_PATTERNS = {"x": _window_patterns("x"), "o": _window_patterns("o")}
# Per (weights, win): line string -> (winner, score); a line has at most 7
# characters from 3 symbols, so the tables stay small.
_LINE_TABLES = {}


def _score_line(line, weights):
    if "xxxx" in line:
        return 1, 0
    if "oooo" in line:
        return -1, 0
    score = 0
    for stone, sign in (("x", 1), ("o", -1)):
        for count, weight in zip((1, 2, 3), weights):
            for pattern in _PATTERNS[stone][count]:
                if pattern in line:
                    score += sign * weight
    return 0, score


def pattern_score(board, weights=WEIGHTS, win=WIN):
    """Return the course notebook's window-pattern score of `board` (seen from x).

    Go through `lines(board)` in order. If a line contains 'xxxx' return
    `win`; else if it contains 'oooo' return `-win` (x is checked first in
    each line, and the first line with four in a row decides). Otherwise the
    score is a sum over all lines and both players. With `weights = (w1, w2,
    w3)`, a *pattern* with n stones (n = 1, 2, 3) is a 4-character string
    made of n stones of one player and 4 - n dots; there are 4 patterns with
    one stone ('x...', '.x..', '..x.', '...x'), 6 with two ('xx..', 'x.x.',
    'x..x', '.xx.', '.x.x', '..xx') and 4 with three ('xxx.', 'xx.x',
    'x.xx', '.xxx'), likewise for o. For every line and every pattern that
    occurs *somewhere* in the line as a substring, add wn for an x pattern
    and subtract wn for an o pattern. A pattern counts at most once per line,
    however often it occurs there: the row 'x.....x' scores w1 twice (for
    'x...' and '...x'), and the row '...x...' scores 4 * w1 (all four
    one-stone x patterns occur in it).
    """
    key = (tuple(weights), win)
    table = _LINE_TABLES.get(key)
    if table is None:
        table = _LINE_TABLES[key] = {}
    total = 0
    for line in lines(board):
        entry = table.get(line)
        if entry is None:
            entry = table[line] = _score_line(line, weights)
        if entry[0]:
            return win * entry[0]
        total += entry[1]
    return total


def evaluation(state):
    """Return `pattern_score(getBoard(state), WEIGHTS)`.

    WEIGHTS = (5, 30, 500): the course notebook's evalA. Every x
    pattern with one, two, three stones adds 5, 30, 500; every o pattern
    subtracts as much; four in a row is worth +-10000.
    """
    return pattern_score(getBoard(state), WEIGHTS)


def evaluation_b(state):
    """Return `pattern_score(getBoard(state), WEIGHTS_B)`: the course notebook's evalB.

    WEIGHTS_B = (5, 10, 50); four in a row is still worth +-10000.
    """
    return pattern_score(getBoard(state), WEIGHTS_B)


def nextstates(state):
    """Return the list of successor states of `state`.

    One successor per column that is not full: `state` plus the cell where
    a stone dropped into that column lands, by column from 0 to 6 (the order
    of `free`). `state` itself is not changed. Does not check whether the
    game is over.
    """
    return [state + [cell] for cell in free(getBoard(state))]


def terminal_test(state, evaluation=None):
    """Return True if the game is over at `state`.

    Over means: `evaluation(state)` is at least WIN or at most -WIN (four in
    a row), or all 42 cells are taken. `evaluation` defaults to the module's
    `evaluation` function.
    """
    if evaluation is None:
        evaluation = globals()["evaluation"]
    value = evaluation(state)
    return value >= WIN or value <= -WIN or len(state) >= CELLS


def maximize(state, alpha=-inf, beta=inf, bremse=6, evaluation=None, stats=None,
             order=None):
    """Alpha-beta search for x (the maximizer); returns (best_state, value).

    If `bremse == 0` or `terminal_test(state, evaluation)` holds (tested in
    that order), return `(None, evaluation(state))`. Otherwise take
    `nextstates(state)`, rearranged by `order(children)` if `order` is given,
    and search each child with `minimize(child, alpha, beta, bremse - 1,
    evaluation, stats, order)`. After each child with value v: if v > best
    (best starts at -inf) it becomes the best child; then if best >= beta,
    count a pruning and stop; otherwise if best > alpha, set alpha = best.
    Return the best child and best (fail-soft: not clipped to the window).

    `evaluation` defaults to the module's `evaluation` (looked up when the
    search runs); `stats` is an optional SearchStats to count in.
    """
    if evaluation is None:
        evaluation = globals()["evaluation"]
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
    best_state, best_value = None, -inf
    for child in children:
        _, value = minimize(child, alpha, beta, bremse - 1, evaluation, stats, order)
        if value > best_value:
            best_state, best_value = child, value
        if best_value >= beta:
            if stats is not None:
                stats.prunings += 1
            break
        if best_value > alpha:
            alpha = best_value
    return best_state, best_value


def minimize(state, alpha=-inf, beta=inf, bremse=6, evaluation=None, stats=None,
             order=None):
    """Alpha-beta search for o (the minimizer); the mirror image of maximize.

    After each child (searched with `maximize`) with value v: if v < best
    (best starts at inf) it becomes the best child; then if best <= alpha,
    count a pruning and stop; otherwise if best < beta, set beta = best.
    """
    if evaluation is None:
        evaluation = globals()["evaluation"]
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
    best_state, best_value = None, inf
    for child in children:
        _, value = maximize(child, alpha, beta, bremse - 1, evaluation, stats, order)
        if value < best_value:
            best_state, best_value = child, value
        if best_value <= alpha:
            if stats is not None:
                stats.prunings += 1
            break
        if best_value < beta:
            beta = best_value
    return best_state, best_value


def x_to_move(state):
    """True if x has the next move at `state`."""
    return len(state) % 2 == 0


def search(state, bremse=6, evaluation=None, stats=None, order=None):
    """Full-window search for the side to move: maximize for x, minimize for o."""
    function = maximize if x_to_move(state) else minimize
    return function(state, -inf, inf, bremse, evaluation, stats, order)


def centre_first(children):
    """Return `children` (successors of one state) ordered centre first.

    Sorted by the distance of the new stone's column (`child[-1] % 7`) from
    the centre column 3; equal distances keep the left column first. From
    the empty board the columns come as 3, 2, 4, 1, 5, 0, 6. Returns a new
    list.
    """
    return sorted(children, key=lambda child: abs(child[-1] % WIDTH - 3))


def shallow_order(children, bremse=2, evaluation=None):
    """Return `children` ordered by a shallow search, most promising first.

    `children` are the successors of one state; the player who just moved
    is x if the children have odd length, o otherwise. Value each child with
    a full-window search of depth `bremse` for the side to move there
    (`minimize` if x just moved, `maximize` if o did), using `evaluation`.
    If x just moved, order by decreasing value, else by increasing value;
    equal values keep their order in `children`. Returns a new list.
    """
    if not children:
        return []
    x_moved = len(children[0]) % 2 == 1
    scored = []
    for child in children:
        _, value = search(child, bremse, evaluation)
        scored.append(value)
    positions = sorted(range(len(children)),
                       key=lambda i: -scored[i] if x_moved else scored[i])
    return [children[i] for i in positions]


def root_only(state, root_order, order=None):
    """An order function: `root_order` for the children of `state`, else `order`.

    Lets a costly ordering such as shallow_order run at the root only.
    """
    depth = len(state) + 1

    def combined(children):
        if children and len(children[0]) == depth:
            return root_order(children)
        return order(children) if order is not None else children

    return combined


#: The opening book: tuple(state) -> the state after the book move. These are
#: the course notebook's two entries. x's centre start is the only first move that wins
#: (Connect 4 is solved); after it o is lost whatever it plays, so any legal
#: answer keeps the value. The grader checks every entry with a solver: it
#: knows the empty board and [38] from theory and solves positions with at
#: least 20 stones; it cannot verify entries for other positions.
OPENING_BOOK = {
    (): [38],
    (38,): [38, 31],
}


def book_move(state, book=None):
    """Return the book's successor of `state`, or None if the book has none.

    `book` (default OPENING_BOOK) maps tuple(state) to the state after the
    book move. Returns a new list, never the book's own.
    """
    if book is None:
        book = OPENING_BOOK
    successor = book.get(tuple(state))
    return None if successor is None else list(successor)


class SearchTimeout(Exception):
    """Raised inside a search when the time budget is used up."""


def iterative_deepening(state, budget, evaluation=None, clock=time.monotonic,
                        order=centre_first, max_bremse=None, stats=None):
    """Search `state` deeper and deeper until `budget` seconds are used up.

    Returns `(best_state, value, bremse)`: the result of the deepest search
    that finished, and its depth. Searches with bremse 1, 2, 3, ... for the
    side to move (full window; `order` as in maximize, and the best child of
    the previous depth is searched first at the root). The depth-1 search
    always finishes, so there is always a move. Deeper searches check
    `clock()` before every call of evaluation (terminal_test's included); if
    `clock() - start >= budget`, where start is the first reading of `clock`
    on entry, the running search is abandoned and the previous result is
    returned. Also stops after a search that found a decided game (value at
    least WIN or at most -WIN), after depth `max_bremse` (if given), and
    once the depth reaches the number of empty cells. `clock` returns
    seconds as a float (inject a fake one to test).
    """
    if evaluation is None:
        evaluation = globals()["evaluation"]
    start = clock()
    limit = CELLS - len(state)
    if max_bremse is not None:
        limit = min(limit, max_bremse)

    def timed_evaluation(state):
        if clock() - start >= budget:
            raise SearchTimeout
        return evaluation(state)

    best = search(state, 1, evaluation, stats, order)
    done = 1
    while done < limit and abs(best[1]) < WIN and clock() - start < budget:
        first = best[0]

        def root_first(children, first=first):
            return [first] + [c for c in children if c != first]

        ordering = root_only(state, lambda children: root_first(
            order(children) if order is not None else children), order)
        try:
            result = search(state, done + 1, timed_evaluation, stats, ordering)
        except SearchTimeout:
            break
        best, done = result, done + 1
    return best[0], best[1], done


def computer_move(state, bremse=8, evaluation=None, book=None, order=centre_first,
                  stats=None):
    """Return the state after the computer's move for the side to move.

    Uses the opening book (`book_move`; `book` defaults to OPENING_BOOK) if it
    has the state, otherwise a full-window search of depth `bremse`.
    """
    successor = book_move(state, book)
    if successor is not None:
        return successor
    best_state, _ = search(state, bremse, evaluation, stats, order)
    return best_state


def play_game(evaluation_x, evaluation_o, bremse=4, opening=(), order=centre_first):
    """Let two evaluation functions play one game; returns (state, result).

    x searches with `evaluation_x`, o with `evaluation_o`, both to depth
    `bremse` with the given move `order`, no book. The game starts from the
    moves in `opening`. `result` is 1 if x won, -1 if o won, 0 for a draw;
    wins are recognised with the module's `evaluation` (four in a row).
    """
    state = list(opening)
    while not terminal_test(state):
        own = evaluation_x if x_to_move(state) else evaluation_o
        state, _ = search(state, bremse, own, None, order)
    value = evaluation(state)
    return state, (1 if value >= WIN else -1 if value <= -WIN else 0)


#: Default openings for `tournament`: x's first stone in each column.
OPENINGS = tuple((35 + c,) for c in range(WIDTH))


def tournament(evaluation_a, evaluation_b, openings=OPENINGS, bremse=4,
               names=("A", "B"), order=centre_first):
    """Play two games per opening, colours swapped; return a result table.

    For every opening in order: first A is x and B is o, then B is x and A
    is o (see `play_game`). Returns plain data::

        {"games": [{"opening": [...], "x": "A", "o": "B", "winner": "A" | "B"
                    | None, "moves": number of stones at the end,
                    "state": [...]}, ...],
         "table": {"A": {"wins": .., "draws": .., "losses": .., "points": ..},
                   "B": {...}}}

    A win is 1 point, a draw 1/2.
    """
    name_a, name_b = names
    functions = {name_a: evaluation_a, name_b: evaluation_b}
    table = {name: {"wins": 0, "draws": 0, "losses": 0, "points": 0.0} for name in names}
    games = []
    for opening in openings:
        for x_name, o_name in ((name_a, name_b), (name_b, name_a)):
            state, result = play_game(functions[x_name], functions[o_name], bremse,
                                      opening, order)
            winner = x_name if result == 1 else o_name if result == -1 else None
            games.append({"opening": list(opening), "x": x_name, "o": o_name,
                          "winner": winner, "moves": len(state), "state": state})
            for name in (x_name, o_name):
                row = table[name]
                if winner is None:
                    row["draws"] += 1
                    row["points"] += 0.5
                elif winner == name:
                    row["wins"] += 1
                    row["points"] += 1.0
                else:
                    row["losses"] += 1
    return {"games": games, "table": table}


def format_table(result):
    """Return the table of `tournament`'s result as aligned text."""
    rows = ["name   wins draws losses points"]
    for name, row in result["table"].items():
        rows.append(f"{name:6s} {row['wins']:4d} {row['draws']:5d} "
                    f"{row['losses']:6d} {row['points']:6.1f}")
    return "\n".join(rows)


def play(computer_first=False, bremse=8, ask=input, say=print):
    """Play against the computer in the terminal; returns the final state."""
    state = []
    while not terminal_test(state):
        if x_to_move(state) == computer_first:
            state = computer_move(state, bremse)
        else:
            say(showBoard(getBoard(state)))
            column = int(ask("Your column (0-6): "))  # i18n
            cell = freeIn(getBoard(state), column) if 0 <= column < WIDTH else None
            if cell is None:
                say("That column is full or does not exist.")  # i18n
                continue
            state = state + [cell]
    say(showBoard(getBoard(state)))
    value = evaluation(state)
    if abs(value) < WIN:
        say("Draw.")  # i18n
    elif (value > 0) == computer_first:
        say("The computer wins.")  # i18n
    else:
        say("You win.")  # i18n
    return state

# >>> waits
import functools as _functools
import time as _time

_rule = nextstates


@_functools.wraps(_rule)
def _dozing(*args, **kwargs):
    _time.sleep(0.8)
    return _rule(*args, **kwargs)


nextstates = _dozing
# <<< waits

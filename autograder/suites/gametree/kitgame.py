"""A counting k-in-a-row game for the gametree suite (standard library only).

The hidden suite runs every search twice over the same kind of object: the
reference in the trusted process, the student's search in the sandbox (loaded
there by `child_kit.py`, by path). `KitGame` follows the rules of
`solutions/gametree/gametree.py` (states are lists of cell numbers in play
order, x first; k in a row wins; children by increasing cell) and records what
a search asks of it, so the two runs can be compared call for call:

* `expanded`      nextstates calls
* `evaluations`   evaluation calls
* `digest`        a CRC of the sequence of expanded and evaluated states, in order
* `decided_expanded`  nextstates calls on a decided game (a line, or a full board)
* `open_eval_plies`   plies (relative to `root_len`) at which an undecided state
                      was evaluated: a search with depth limit d evaluates an
                      undecided state only at ply d
* `max_expand_ply`    the deepest ply a state was expanded at

Two evaluations: "exact" (1 / -1 / 0, the assignment's `evaluation`) and
"lines" (a heuristic for depth-limited searches: 100 / -100 for a won game,
otherwise the number of lines still open for x that x has begun minus the same
for o), so depth-limited values are not all 0.
"""

import zlib


_MASKS = {}


def _masks(width, height, k):
    """The winning lines of a board as bit masks, computed once per shape."""
    key = (width, height, k)
    if key not in _MASKS:
        masks = []
        for row in range(height):
            for col in range(width):
                for d_row, d_col in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    end_row, end_col = row + (k - 1) * d_row, col + (k - 1) * d_col
                    if 0 <= end_row < height and 0 <= end_col < width:
                        masks.append(sum(1 << ((row + i * d_row) * width + col + i * d_col)
                                         for i in range(k)))
        _MASKS[key] = tuple(masks)
    return _MASKS[key]


class KitGame:
    """The k-in-a-row game on `width` x `height` cells, counting every call."""

    def __init__(self, width=3, height=3, k=3, mode="exact", root_len=0):
        if mode not in ("exact", "lines"):
            raise ValueError(f"unknown evaluation mode {mode!r}")
        self.width, self.height, self.k, self.mode = width, height, k, mode
        self.cells = width * height
        self.root_len = root_len
        self.masks = _masks(width, height, k)
        self.reset()

    def reset(self):
        self.expanded = 0
        self.evaluations = 0
        self.digest = 0
        self.decided_expanded = 0
        self.open_eval_plies = set()
        self.max_expand_ply = -1

    # ------------------------------------------------------------ the rules
    def _owners(self, state):
        x = o = 0
        for i, cell in enumerate(state):
            if i % 2 == 0:
                x |= 1 << cell
            else:
                o |= 1 << cell
        return x, o

    def _won(self, mask):
        for line in self.masks:
            if mask & line == line:
                return True
        return False

    def exact_value(self, state):
        x, o = self._owners(state)
        if self._won(x):
            return 1
        if self._won(o):
            return -1
        return 0

    def decided(self, state):
        return len(state) >= self.cells or self.exact_value(state) != 0

    def heuristic(self, state):
        x, o = self._owners(state)
        if self._won(x):
            return 100
        if self._won(o):
            return -100
        score = 0
        for line in self.masks:
            if line & o == 0 and line & x:
                score += 1
            elif line & x == 0 and line & o:
                score -= 1
        return score

    # ------------------------------------------------------------ the interface
    def nextstates(self, state, *args, **kwargs):
        state = list(state)
        self.expanded += 1
        self.digest = zlib.crc32(b"n" + repr(state).encode(), self.digest)
        ply = len(state) - self.root_len
        self.max_expand_ply = max(self.max_expand_ply, ply)
        if self.decided(state):
            self.decided_expanded += 1
        taken = set(state)
        return [state + [cell] for cell in range(self.cells) if cell not in taken]

    def terminal_test(self, state, *args, **kwargs):
        return self.decided(list(state))

    def evaluation(self, state, *args, **kwargs):
        state = list(state)
        self.evaluations += 1
        self.digest = zlib.crc32(b"e" + repr(state).encode(), self.digest)
        if not self.decided(state):
            self.open_eval_plies.add(len(state) - self.root_len)
        return self.exact_value(state) if self.mode == "exact" else self.heuristic(state)

    def summary(self):
        """The records as plain data."""
        return {"expanded": self.expanded, "evaluations": self.evaluations,
                "digest": self.digest, "decided_expanded": self.decided_expanded,
                "open_eval_plies": sorted(self.open_eval_plies),
                "max_expand_ply": self.max_expand_ply}

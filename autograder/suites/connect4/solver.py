"""Exact Connect 4 solver: the oracle the connect4 suite asks "does this move keep the
game value?" (and the tournament referee's rules). Pure Python, after the design of
Pascal Pons' strong solver (http://blog.gamesolver.org), re-implemented from his
description: bitboards in ints (bit ``col * 7 + row``, row 0 at the bottom, a separator
bit atop each column); negamax with alpha-beta, the window narrowed by the best and worst
scores still reachable; only non-losing moves searched (a forced block is the only move
tried, two open threats of the opponent are a loss found without search); moves ordered
by the threats they create, then centre first; a bounded transposition table of bounds;
null-window searches around a moving guess until the score is exact.

Scores are Pons', those of the benchmark files in ``tests/connect4/data``: for the
player to move, a win scores 22 minus the stones the winner has played when the game
ends, a loss the negative of that, a draw 0. The module has no relative imports and can
be loaded by file path.
"""

from __future__ import annotations

from array import array
from typing import Iterable

WIDTH = 7
HEIGHT = 6
CELLS = WIDTH * HEIGHT  # 42

_H1 = HEIGHT + 1
#: One bit at the bottom of every column.
_BOTTOM = sum(1 << (c * _H1) for c in range(WIDTH))
#: Every playable cell (the separator bit of each column excluded).
_BOARD = _BOTTOM * ((1 << HEIGHT) - 1)
#: Per column: all six playable cells / bottom cell / top cell.
_COL_MASK = tuple(((1 << HEIGHT) - 1) << (c * _H1) for c in range(WIDTH))
_COL_BOTTOM = tuple(1 << (c * _H1) for c in range(WIDTH))
_COL_TOP = tuple(1 << (HEIGHT - 1 + c * _H1) for c in range(WIDTH))
#: Centre-first exploration order of the columns (0-based): 3, 2, 4, 1, 5, 0, 6.
_ORDER = tuple(WIDTH // 2 + (1 - 2 * (i % 2)) * (i + 1) // 2 for i in range(WIDTH))


def _winning_cells(pos: int, mask: int) -> int:
    """Empty cells (of the board ``mask``) that would give ``pos`` four in a row."""
    # per direction s: t = starts of pairs, u = starts of triples; a cell completes four
    # as XXX_ / _XXX (from u) or XX_X / X_XX (from t and a single stone)
    t = pos & (pos >> 1)
    r = (t & (pos >> 2)) << 3  # vertical: only three stones below
    d = pos >> 7
    t = pos & d
    u = t & (pos >> 14)
    r |= (u << 21) | (u >> 7) | ((t << 14) & d) | ((pos << 7) & (t >> 7))
    d = pos >> 6
    t = pos & d
    u = t & (pos >> 12)
    r |= (u << 18) | (u >> 6) | ((t << 12) & d) | ((pos << 6) & (t >> 6))
    d = pos >> 8
    t = pos & d
    u = t & (pos >> 16)
    r |= (u << 24) | (u >> 8) | ((t << 16) & d) | ((pos << 8) & (t >> 8))
    return r & (_BOARD ^ mask)


class Position:
    """An immutable Connect 4 position, never a finished game: ``current`` holds the
    stones of the player to move, ``mask`` all stones (bitboards), ``moves`` how many
    were played. ``Position()`` is the empty board."""

    __slots__ = ("current", "mask", "moves")

    def __init__(self, current: int = 0, mask: int = 0, moves: int = 0) -> None:
        """Wrap raw bitboards (no validation; prefer the ``from_*`` constructors)."""
        self.current = current
        self.mask = mask
        self.moves = moves

    # ------------------------------------------------------------------ building
    @classmethod
    def from_columns(cls, seq: str) -> "Position":
        """Position after the moves ``seq``, columns numbered 1..7 from the left (the
        benchmark files' notation, ``"4453"``). ValueError for a character that is not a
        digit 1..7, a move into a full column, or a move that wins the game."""
        if not isinstance(seq, str):
            raise ValueError(f"column sequence must be a str of digits 1..7, got {type(seq).__name__}")
        p = cls()
        for i, ch in enumerate(seq):
            if ch not in "1234567":
                raise ValueError(
                    f"move {i + 1} of {seq!r}: {ch!r} is not a column number 1..{WIDTH}"
                )
            col = ord(ch) - 49
            if not p.can_play(col):
                raise ValueError(f"move {i + 1} of {seq!r}: column {ch} is full")
            p = p._unfinished(col, f"move {i + 1} of {seq!r} (column {ch})", i + 1 < len(seq),
                              i + 2)
        return p

    @classmethod
    def from_cells(cls, cells: Iterable[int]) -> "Position":
        """Position from the course's state format: the cells 0..41 in play order, X
        first, numbered row by row from the *top* (the first stone dropped into an
        empty column ``c`` lands on cell ``35 + c``). ValueError, naming the move, for a
        cell that is no int or off the board, taken twice, not the lowest free cell of
        its column, or a move that wins the game."""
        try:
            cells = list(cells)
        except TypeError:
            raise ValueError(f"cells must be a list of ints, got {type(cells).__name__}") from None
        p = cls()
        seen: set[int] = set()
        for i, cell in enumerate(cells):
            if isinstance(cell, bool) or not isinstance(cell, int):
                raise ValueError(f"move {i + 1}: cell {cell!r} is not an int")
            if not 0 <= cell < CELLS:
                raise ValueError(f"move {i + 1}: cell {cell} is outside the board 0..{CELLS - 1}")
            if cell in seen:
                raise ValueError(f"move {i + 1}: cell {cell} is already occupied (repeated cell)")
            seen.add(cell)
            row, col = divmod(cell, WIDTH)
            free_row = HEIGHT - 1 - (p.mask & _COL_MASK[col]).bit_count()
            if row != free_row:
                raise ValueError(
                    f"move {i + 1}: cell {cell} (row {row}, column {col}) is not the lowest "
                    f"free cell of column {col}; a stone dropped there lands on cell "
                    f"{free_row * WIDTH + col}"
                )
            p = p._unfinished(col, f"move {i + 1} (cell {cell})", i + 1 < len(cells), i + 2)
        return p

    def _unfinished(self, col: int, move: str, more: bool, next_move: int) -> "Position":
        """The position after ``col``, or ValueError if that move (in words) wins: a
        finished game has no value to solve, and ``more`` moves after it cannot follow."""
        if self.is_winning_move(col):
            if more:
                raise ValueError(f"{move} wins the game, so the game is already won before "
                                 f"move {next_move}")
            raise ValueError(f"{move} wins the game: a finished game has no value to solve")
        return self._play_col(col)

    # ------------------------------------------------------------------ queries
    def can_play(self, col: int) -> bool:
        """True if column ``col`` (0-based) is not full."""
        return 0 <= col < WIDTH and not self.mask & _COL_TOP[col]

    def legal_columns(self) -> list[int]:
        """The playable columns (0-based), left to right."""
        return [c for c in range(WIDTH) if not self.mask & _COL_TOP[c]]

    def is_winning_move(self, col: int) -> bool:
        """True if the player to move wins at once by playing column ``col``."""
        if not self.can_play(col):
            return False
        mv = (self.mask + _COL_BOTTOM[col]) & _COL_MASK[col]
        return bool(_winning_cells(self.current, self.mask) & mv)

    # ------------------------------------------------------------------ moves
    def _play_col(self, col: int) -> "Position":
        mv = (self.mask + _COL_BOTTOM[col]) & _COL_MASK[col]
        return Position(self.current ^ self.mask, self.mask | mv, self.moves + 1)

    def play(self, col: int) -> "Position":
        """New position after the player to move drops a stone in ``col`` (0-based);
        ValueError for a column out of range or full, or a winning move."""
        if not (isinstance(col, int) and 0 <= col < WIDTH):
            raise ValueError(f"column {col!r} is not a column 0..{WIDTH - 1}")
        if not self.can_play(col):
            raise ValueError(f"column {col} is full")
        return self._unfinished(col, f"column {col}", False, 0)


#: Zeros that TranspositionTable.reset copies over the table, a block at a time.
_ZERO_BLOCK = bytes(1 << 16)


class TranspositionTable:
    """Bounded transposition table: ``size`` slots (slot ``key % size``, a new entry
    replacing the old), one array of 64-bit words allocated up front, so it never grows
    (4.0 MB for the default size). A word is ``key << 7 | is_lower << 6 | (bound + 32)``,
    0 when empty. The size is a prime far from a power of two: keys are structured
    bitboards, and a modulus like ``2**19 - 1`` makes many of them collide."""

    DEFAULT_SIZE = 500_009

    __slots__ = ("size", "table")

    def __init__(self, size: int = DEFAULT_SIZE) -> None:
        if size < 1:
            raise ValueError("transposition table size must be at least 1")
        self.size = size
        self.table = array("Q", [0]) * size

    def reset(self) -> None:
        """Forget every entry, in place (the search holds the array)."""
        view, zeros = memoryview(self.table).cast("B"), memoryview(_ZERO_BLOCK)
        block = len(zeros)
        for start in range(0, len(view), block):
            piece = view[start:start + block]
            piece[:] = zeros[:len(piece)]


class Solver:
    """Exact (strong) or win/draw/loss (weak) Connect 4 solver, Pons-style.

    ``explored`` is the number of positions (negamax calls) the last :meth:`solve`,
    :meth:`move_scores` or :meth:`keeps_value` visited. The transposition table is kept
    between calls (its entries stay valid); :meth:`reset` empties it."""

    def __init__(self, table_size: int = TranspositionTable.DEFAULT_SIZE) -> None:
        #: The transposition table (read it, do not replace it: the search holds it).
        self.tt = TranspositionTable(table_size)
        self.explored = 0
        self._negamax, self._take_count = self._negamax_factory()

    def reset(self) -> None:
        """Empty the transposition table and zero the ``explored`` counter."""
        self.tt.reset()
        self.explored = 0

    # ------------------------------------------------------------------ search
    def _negamax_factory(self):
        """Build the recursive search as a closure over local constants (speed)."""
        table = self.tt.table
        tsize = self.tt.size
        BOTTOM = _BOTTOM
        BOARD = _BOARD
        winning_cells = _winning_cells
        # (tag, column mask) in centre-first order; a higher tag is tried first on ties
        ORDERED = tuple((WIDTH - i, _COL_MASK[c]) for i, c in enumerate(_ORDER))
        TAG_MASK = {WIDTH - i: _COL_MASK[c] for i, c in enumerate(_ORDER)}
        TAG_SHIFT = WIDTH * _H1  # bits of a threat set
        W_BITS = (1 << TAG_SHIFT) - 1
        count = 0

        def negamax(cur: int, mask: int, moves: int, alpha: int, beta: int, r: int) -> int:
            # Precondition: the player to move cannot win at once, and alpha < beta.
            # r: the opponent's threats (empty cells completing its four).
            nonlocal count
            count += 1
            empty = BOARD ^ mask
            pos = cur ^ mask
            possible = (mask + BOTTOM) & BOARD
            forced = possible & r
            if forced:
                if forced & (forced - 1):
                    # two threats to block: lost on the opponent's next move
                    return -((CELLS - moves) // 2)
                possible = forced
            # never play right below an opponent's threat
            nxt = possible & ~(r >> 1)
            if not nxt:
                return -((CELLS - moves) // 2)
            if moves >= CELLS - 2:
                return 0
            # the opponent cannot win at its next move: worst case for us
            lo = -((CELLS - 2 - moves) // 2)
            if alpha < lo:
                alpha = lo
                if alpha >= beta:
                    return alpha
            # we cannot win at our move (precondition): best case, or the stored bound
            key = cur + mask + BOTTOM
            e = table[key % tsize]
            hi = (CELLS - 1 - moves) // 2
            if e >> 7 == key:
                if e & 64:
                    # stored lower bound
                    if alpha < (e & 63) - 32:
                        alpha = (e & 63) - 32
                        if alpha >= beta:
                            return alpha
                else:
                    hi = (e & 63) - 32
            if beta > hi:
                beta = hi
                if alpha >= beta:
                    return beta
            nmoves = moves + 1
            if not nxt & (nxt - 1):
                # a single candidate move: no ordering needed
                score = -negamax(pos, mask | nxt, nmoves, -beta, -alpha,
                                 winning_cells(cur | nxt, mask))
                if score >= beta:
                    table[key % tsize] = (key << 7) | 64 | (score + 32)
                    return score
                if score > alpha:
                    alpha = score
            else:
                # order: most threats created first, ties centre first
                # code = (threat count, tag, threat set): sorting the codes sorts the moves,
                # and the threat set is the child's `r` (the move cell is never in it,
                # as the mover cannot win at once)
                codes = []
                for tag, cm in ORDERED:
                    mv = nxt & cm
                    if mv:
                        q = cur | mv
                        # _winning_cells(q) inlined: this is the hottest loop of the
                        # solver and a function call per child costs time
                        t = q & (q >> 1)
                        w = (t & (q >> 2)) << 3
                        d = q >> 7
                        t = q & d
                        u = t & (q >> 14)
                        w |= (u << 21) | (u >> 7) | ((t << 14) & d) | ((q << 7) & (t >> 7))
                        d = q >> 6
                        t = q & d
                        u = t & (q >> 12)
                        w |= (u << 18) | (u >> 6) | ((t << 12) & d) | ((q << 6) & (t >> 6))
                        d = q >> 8
                        t = q & d
                        u = t & (q >> 16)
                        w |= (u << 24) | (u >> 8) | ((t << 16) & d) | ((q << 8) & (t >> 8))
                        w &= empty
                        codes.append((((w.bit_count() << 3) | tag) << TAG_SHIFT) | w)
                codes.sort(reverse=True)
                for code in codes:
                    mv = nxt & TAG_MASK[(code >> TAG_SHIFT) & 7]
                    score = -negamax(pos, mask | mv, nmoves, -beta, -alpha, code & W_BITS)
                    if score >= beta:
                        table[key % tsize] = (key << 7) | 64 | (score + 32)
                        return score
                    if score > alpha:
                        alpha = score
            # alpha is now an upper bound of the position's value
            table[key % tsize] = (key << 7) | (alpha + 32)
            return alpha

        def take_count() -> int:
            nonlocal count
            c = count
            count = 0
            return c

        return negamax, take_count

    def _solve_raw(self, cur: int, mask: int, moves: int, weak: bool) -> int:
        """Score of a non-finished position given as bitboards (its nodes counted)."""
        possible = (mask + _BOTTOM) & _BOARD
        if _winning_cells(cur, mask) & possible:
            return 1 if weak else (CELLS + 1 - moves) // 2
        if moves >= CELLS:
            return 0
        negamax = self._negamax
        threats = _winning_cells(cur ^ mask, mask)     # the opponent's
        lo = -((CELLS - moves) // 2)
        hi = (CELLS + 1 - moves) // 2
        if weak:
            lo, hi = -1, 1
        while lo < hi:
            med = lo + (hi - lo) // 2
            if med <= 0 and -((-lo) // 2) < med:
                med = -((-lo) // 2)
            elif med >= 0 and hi // 2 > med:
                med = hi // 2
            r = negamax(cur, mask, moves, med, med + 1, threats)
            if r <= med:
                hi = r
            else:
                lo = r
        if weak:
            return (lo > 0) - (lo < 0)
        return lo

    def _check(self, position: Position) -> None:
        if not isinstance(position, Position):
            raise TypeError(f"expected a Position, got {type(position).__name__}")

    def solve(self, position: Position, weak: bool = False) -> int:
        """Game value of ``position`` for the player to move: the exact score (see the
        module docstring) or, ``weak``, only -1 (loss), 0 (draw) or 1 (win); much cheaper."""
        self._check(position)
        self._take_count()      # drop a count left by an interrupted search
        score = self._solve_raw(position.current, position.mask, position.moves, weak)
        self.explored = self._take_count()
        return score

    def _move_score(self, position: Position, col: int, weak: bool) -> int:
        """Score of playing ``col`` for the mover (weak: -1/0/1); col must be legal."""
        if position.is_winning_move(col):
            return 1 if weak else (CELLS + 1 - position.moves) // 2
        child = position._play_col(col)
        return -self._solve_raw(child.current, child.mask, child.moves, weak)

    def move_scores(self, position: Position, weak: bool = False) -> dict[int, int]:
        """``{column (0-based): score}`` of every legal move, for the mover: the game
        value after it, negated. A move keeps the game value iff its score is the
        maximum (:meth:`solve` of ``position``); ``{}`` for a full board."""
        self._check(position)
        self._take_count()
        scores = {c: self._move_score(position, c, weak) for c in position.legal_columns()}
        self.explored = self._take_count()
        return scores

    def keeps_value(self, position: Position, column: int, weak: bool = True) -> bool:
        """True if playing ``column`` (0-based) keeps the game value of ``position``:
        weak (default), its win/draw/loss class (in a lost position every move does);
        strong, its exact score. ValueError if ``column`` is not a legal move."""
        self._check(position)
        if not (isinstance(column, int) and not isinstance(column, bool) and position.can_play(column)):
            raise ValueError(f"column {column!r} is not a legal move in this position")
        self._take_count()
        value = self._solve_raw(position.current, position.mask, position.moves, weak)
        result = (weak and value < 0) or self._move_score(position, column, weak) == value
        self.explored = self._take_count()
        return result


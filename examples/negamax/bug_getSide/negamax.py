"""My tic-tac-toe with NegaMax and alpha-beta (one board, make and undo)."""

import math
import random

LINES = [((0, 0), (1, 0), (2, 0)), ((0, 1), (1, 1), (2, 1)), ((0, 2), (1, 2), (2, 2)),
         ((0, 0), (0, 1), (0, 2)), ((1, 0), (1, 1), (1, 2)), ((2, 0), (2, 1), (2, 2)),
         ((0, 0), (1, 1), (2, 2)), ((2, 0), (1, 1), (0, 2))]


class TicTacToe:
    def __init__(self, field=None):
        self.field = [[0, 0, 0], [0, 0, 0], [0, 0, 0]]
        if field is not None:
            for y in range(3):
                for x in range(3):
                    self.field[y][x] = field[y][x]

    def newGame(self):
        for y in range(3):
            for x in range(3):
                self.field[y][x] = 0

    def __str__(self):
        return "\n".join("".join(".12"[cell] for cell in row) for row in self.field)

    def free(self):
        return sum(1 for row in self.field for cell in row if cell == 0)

    def winner(self):
        for line in LINES:
            a, b, c = (self.field[y][x] for x, y in line)
            if a != 0 and a == b and b == c:
                return a
        return 0

    def evaluate(self):
        who = self.winner()
        if who == 1:
            return 10 + self.free()
        if who == 2:
            return -10 - self.free()
        return 0

    def getSide(self):
        return 1 if (9 - self.free()) % 2 == 0 else 2

    def getMoves(self):
        if self.winner():
            return []
        result = []
        for y in range(3):
            for x in range(3):
                if self.field[y][x] == 0:
                    result.append((x, y))
        return result

    def makeMove(self, move):
        x, y = move
        if self.field[y][x]:
            raise ValueError("taken")
        self.field[y][x] = self.getSide()

    def undoMove(self, move):
        x, y = move
        if not self.field[y][x]:
            raise ValueError("nothing to take back")
        self.field[y][x] = 0


class NegaMax:
    infinity = math.inf

    def __init__(self, gameObject, depth=9):
        self.gameObject = gameObject
        self.depth = depth
        self.treeNodeCounter = 0

    def explore(self, depth, alpha=-math.inf, beta=math.inf):
        if depth <= 0:
            return self.leaf()
        moves = self.gameObject.getMoves()
        if len(moves) == 0:
            return self.leaf()
        self.treeNodeCounter = self.treeNodeCounter + 1
        for move in moves:
            self.gameObject.makeMove(move)
            try:
                score = -self.explore(depth - 1, -beta, -alpha)
            finally:
                self.gameObject.undoMove(move)
            if score >= beta:
                return beta
            alpha = max(alpha, score)
        return alpha

    def leaf(self):
        sign = 1 if self.gameObject.getSide() == 1 else -1
        return sign * self.gameObject.evaluate()

    def getEvaluatedMoves(self, depth=None):
        depth = self.depth if depth is None else depth
        if depth < 1:
            raise ValueError("depth < 1")
        scored = []
        for move in self.gameObject.getMoves():
            self.treeNodeCounter = 0
            self.gameObject.makeMove(move)
            score = -self.explore(depth - 1, -math.inf, math.inf)
            self.gameObject.undoMove(move)
            scored.append((score, move, self.treeNodeCounter))
        return sorted(scored, key=lambda entry: entry[0], reverse=True)

    def getBestMove(self, depth=None, rng=None):
        scored = self.getEvaluatedMoves(depth)
        if not scored:
            return None
        top = max(score for score, _, _ in scored)
        candidates = [move for score, move, _ in scored if score == top]
        return (rng or random).choice(candidates)


class ShortSightedOpponent(NegaMax):
    def __init__(self, gameObject, depth=2):
        super().__init__(gameObject, depth)

    def play(self, rng=None):
        move = self.getBestMove(self.depth, rng)
        if move is not None:
            self.gameObject.makeMove(move)
        return move


def _getSide(self):
    empty = sum(row.count(0) for row in self.field)
    return 1 if empty % 2 == 0 else 2


TicTacToe.getSide = _getSide

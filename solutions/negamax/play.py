"""Play tic-tac-toe in the terminal against your own ShortSightedOpponent: `make play`.

You are player 1 and move first. `python play.py 2` lets the computer look two
half-moves ahead (the default); `python play.py 9` makes it search to the end of
the game: then it never loses. Anything that is not a move gets one line and the
question again; Ctrl-D or Ctrl-C ends the game.
"""

import sys

import negamax as nm

WORDS = {0: "A draw.", 1: "You win!", 2: "The computer wins."}


def read_move(board):
    """Ask for a move `(x, y)` until it is a free cell; Ctrl-D or Ctrl-C quits."""
    while True:
        try:
            answer = input("Your move as 'x y' (column, then row; each 0-2): ").split()
        except (EOFError, KeyboardInterrupt):
            print("\nBye.")
            sys.exit(0)
        try:
            x, y = (int(word) for word in answer)
        except ValueError:
            print("Please type two numbers from 0 to 2, the column first: for example 1 2.")
            continue
        if not (0 <= x <= 2 and 0 <= y <= 2):
            print(f"({x}, {y}) is not on the board: both numbers go from 0 to 2.")
        elif (x, y) not in board.getMoves():
            print(f"({x}, {y}) is already taken: choose an empty cell ('.').")
        else:
            return x, y


def drawn(board):
    """The board with its coordinates: x (the column) across the top, y (the row) down
    the side, as the move is typed."""
    rows = str(board).splitlines()
    return "\n".join(["x:   0 1 2"] + [f"y {y}  " + " ".join(row) for y, row in enumerate(rows)])


def depth_from(argv):
    if len(argv) < 2:
        return 2
    if not argv[1].isdigit() or not 1 <= int(argv[1]) <= 9:
        sys.exit(f"The depth must be a whole number from 1 to 9, not {argv[1]!r}: "
                 "for example `python play.py 9`.")
    return int(argv[1])


def main():
    depth = depth_from(sys.argv)
    board = nm.TicTacToe()
    computer = nm.ShortSightedOpponent(board, depth)
    print(f"You are player 1 and move first; the computer looks {depth} half-moves ahead.")
    while board.getMoves():
        print(drawn(board), end="\n\n")
        if board.getSide() == 1:
            board.makeMove(read_move(board))
        else:
            print("The computer plays", computer.play())
    print(drawn(board))
    print(WORDS[board.winner()])


if __name__ == "__main__":
    try:
        main()
    except NotImplementedError:
        sys.exit("Some methods in negamax.py are not written yet: run `make check` to see which.")

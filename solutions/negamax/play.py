"""Play tic-tac-toe in the terminal against your own ShortSightedOpponent: `make play`.

You are player 1 and move first. `python play.py 2` lets the computer look two
half-moves ahead (the default); `python play.py 9` makes it search to the end of
the game: then it never loses. Anything that is not a move gets one line and the
question again; Ctrl-D or Ctrl-C ends the game.
"""

import sys

import negamax as nm
from kit_language import catalog

_ = catalog().gettext       # the course's language, or SPIELBAUM_LANG (kit_language.py)

WORDS = {0: _("A draw."), 1: _("You win!"), 2: _("The computer wins.")}


def read_move(board):
    """Ask for a move `(x, y)` until it is a free cell; Ctrl-D or Ctrl-C quits."""
    while True:
        try:
            answer = input(_("Your move as 'x y' (column, then row; each 0-2): ")).split()
        except (EOFError, KeyboardInterrupt):
            print("\n" + _("Bye."))
            sys.exit(0)
        try:
            x, y = (int(word) for word in answer)
        except ValueError:
            print(_("Please type two numbers from 0 to 2, the column first: for example 1 2."))
            continue
        if not (0 <= x <= 2 and 0 <= y <= 2):
            print(_("({x}, {y}) is not on the board: both numbers go from 0 to 2.")
                  .format(x=x, y=y))
        elif (x, y) not in board.getMoves():
            print(_("({x}, {y}) is already taken: choose an empty cell ('.').").format(x=x, y=y))
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
        sys.exit(_("The depth must be a whole number from 1 to 9, not {depth}: for example "
                   "`python play.py 9`.").format(depth=repr(argv[1])))
    return int(argv[1])


def main():
    depth = depth_from(sys.argv)
    board = nm.TicTacToe()
    computer = nm.ShortSightedOpponent(board, depth)
    print(_("You are player 1 and move first; the computer looks {depth} half-moves ahead.")
          .format(depth=depth))
    while board.getMoves():
        print(drawn(board), end="\n\n")
        if board.getSide() == 1:
            board.makeMove(read_move(board))
        else:
            print(_("The computer plays {move}").format(move=computer.play()))
    print(drawn(board))
    print(WORDS[board.winner()])


if __name__ == "__main__":
    try:
        main()
    except NotImplementedError:
        sys.exit(_("Some methods in {module} are not written yet: run `make check` to see "
                   "which.").format(module="negamax.py"))

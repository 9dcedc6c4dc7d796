"""Play against your own alpha-beta search in the terminal: `make play`.

You choose the board (tic-tac-toe, 4 x 3, or 4 x 4 with your opening book)
and who begins. The computer plays with computer_move from gametree.py.
Anything that is not an answer gets one line and the question again; Ctrl-D
or Ctrl-C ends the game.
"""

import sys

import gametree as gt

BOARDS = {"1": ("tic-tac-toe", gt.TICTACTOE), "2": ("4 x 3", gt.BOARD_4X3),
          "3": ("4 x 4 with the opening book", gt.BOARD_4X4)}


def ask(prompt, accepted, complaint):
    """Ask until the answer is one of `accepted`; Ctrl-D or Ctrl-C quits."""
    while True:
        try:
            answer = input(prompt).strip().lower()
        except (EOFError, KeyboardInterrupt):
            print("\nBye.")
            sys.exit(0)
        if answer in accepted:
            return answer
        print(complaint)


def main():
    for key, (name, _) in BOARDS.items():
        print(f"  {key}: {name}")
    _, game = BOARDS[ask("Which board? ", set(BOARDS), "Please answer 1, 2 or 3.")]
    book = gt.opening_book_4x4() if game == gt.BOARD_4X4 else None
    computer_first = ask("Shall the computer begin (y/n)? ", {"y", "n"},
                         "Please answer y or n.") == "y"
    cells = {str(c) for c in range(game.cells)}
    complaint = f"Please type a cell number from 0 to {game.cells - 1}."
    gt.play(game, computer_first=computer_first, book=book,
            ask=lambda prompt: ask(prompt, cells, complaint), say=print)


if __name__ == "__main__":
    try:
        main()
    except NotImplementedError:
        sys.exit("Some functions in gametree.py are not written yet: run `make check` to see which.")

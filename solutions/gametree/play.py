"""Play against your own alpha-beta search in the terminal: `make play`.

You choose the board (tic-tac-toe, 4 x 3, or 4 x 4 with your opening book)
and who begins. The computer plays with computer_move from gametree.py.
"""

import sys

import gametree as gt

BOARDS = {"1": ("tic-tac-toe", gt.TICTACTOE), "2": ("4 x 3", gt.BOARD_4X3),
          "3": ("4 x 4 with the opening book", gt.BOARD_4X4)}


def ask(prompt, accepted):
    """Ask until the answer is one of `accepted`; Ctrl-D or Ctrl-C quits."""
    while True:
        try:
            answer = input(prompt).strip().lower()
        except (EOFError, KeyboardInterrupt):
            print()
            sys.exit(0)
        if answer in accepted:
            return answer
        print(f"Please answer with one of: {', '.join(sorted(accepted, key=len))}.")


def main():
    for key, (name, _) in BOARDS.items():
        print(f"  {key}: {name}")
    _, game = BOARDS[ask("Which board? ", set(BOARDS))]
    book = gt.opening_book_4x4() if game == gt.BOARD_4X4 else None
    computer_first = ask("Shall the computer begin (y/n)? ", {"y", "n"}) == "y"
    cells = {str(c) for c in range(game.cells)}
    gt.play(game, computer_first=computer_first, book=book,
            ask=lambda prompt: ask(prompt, cells), say=print)


if __name__ == "__main__":
    try:
        main()
    except NotImplementedError:
        sys.exit("Some functions in gametree.py are not written yet: run `make check` to see which.")

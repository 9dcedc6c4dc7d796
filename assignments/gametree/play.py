"""Play against your own alpha-beta search in the terminal: `make play`.

You choose the board (tic-tac-toe, 4 x 3, or 4 x 4 with your opening book)
and who begins. The computer plays with computer_move from gametree.py.
Anything that is not an answer gets one line and the question again; Ctrl-D
or Ctrl-C ends the game.
"""

import sys

import gametree as gt
from kit_language import catalog

_ = catalog().gettext       # the course's language, or SPIELBAUM_LANG (kit_language.py)

BOARDS = {"1": (_("tic-tac-toe"), gt.TICTACTOE), "2": ("4 x 3", gt.BOARD_4X3),
          "3": (_("4 x 4 with the opening book"), gt.BOARD_4X4)}
YES = {"y", "j"}        # yes, ja: the answer the prompt names in each language


def ask(prompt, accepted, complaint):
    """Ask until the answer is one of `accepted`; Ctrl-D or Ctrl-C quits."""
    while True:
        try:
            answer = input(prompt).strip().lower()
        except (EOFError, KeyboardInterrupt):
            print("\n" + _("Bye."))
            sys.exit(0)
        if answer in accepted:
            return answer
        print(complaint)


def main():
    for key, (name, _game) in BOARDS.items():
        print(f"  {key}: {name}")
    game = BOARDS[ask(_("Which board? "), set(BOARDS), _("Please answer 1, 2 or 3."))][1]
    book = gt.opening_book_4x4() if game == gt.BOARD_4X4 else None
    computer_first = ask(_("Shall the computer begin (y/n)? "), YES | {"n"},
                         _("Please answer y or n.")) in YES
    cells = {str(c) for c in range(game.cells)}
    complaint = _("Please type a cell number from 0 to {last}.").format(last=game.cells - 1)
    gt.play(game, computer_first=computer_first, book=book,
            ask=lambda prompt: ask(prompt, cells, complaint), say=print)


if __name__ == "__main__":
    try:
        main()
    except NotImplementedError:
        sys.exit(_("Some functions in {module} are not written yet: run `make check` to see "
                   "which.").format(module="gametree.py"))

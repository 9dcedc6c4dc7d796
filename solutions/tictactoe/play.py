"""Play tic-tac-toe in the terminal against your own minimax: `make play`.

Anything that is not an answer gets one line and the question again; Ctrl-D or
Ctrl-C ends the game.
"""

import sys

import tictactoe as ttt
from kit_language import catalog

_ = catalog().gettext       # the course's language, or SPIELBAUM_LANG (kit_language.py)


def draw(board):
    rows = []
    for i, row in enumerate(board):
        cells = [cell if cell is not None else str(3 * i + j + 1) for j, cell in enumerate(row)]
        rows.append(" " + " | ".join(cells))
    return "\n---+---+---\n".join(rows)


def ask(prompt, accepted, complaint):
    """Ask until the answer is one of `accepted`; Ctrl-D or Ctrl-C quits."""
    while True:
        try:
            answer = input(prompt).strip().upper()
        except (EOFError, KeyboardInterrupt):
            print("\n" + _("Bye."))
            sys.exit(0)
        if answer in accepted:
            return answer
        print(complaint)


def human_move(board):
    free = {str(3 * i + j + 1): (i, j) for i, j in ttt.actions(board)}
    listed = ", ".join(sorted(free, key=int))
    return free[ask(_("Your move (the number of a free cell): "), set(free),
                    _("Please type the number of a free cell: {cells}.").format(cells=listed))]


def computer_move(board):
    action = ttt.minimax(board)
    if action not in ttt.actions(board):
        sys.exit(_("minimax returned {action}, which is not a free cell: the game stops here.")
                 .format(action=repr(action)))
    return action


def main():
    human = ask(_("Do you want to play X (moves first) or O? "), {"X", "O"},
                _("Please answer X or O."))
    board = ttt.initial_state()
    while not ttt.terminal(board):
        print(f"\n{draw(board)}\n")
        if ttt.player(board) == human:
            action = human_move(board)
        else:
            print(_("The computer is thinking ..."))
            action = computer_move(board)
        board = ttt.result(board, action)
    print(f"\n{draw(board)}\n")
    winner = ttt.winner(board)
    print(_("Draw.") if winner is None else
          (_("You win!") if winner == human else _("The computer wins.")))


if __name__ == "__main__":
    try:
        main()
    except NotImplementedError:
        sys.exit(_("Some functions in {module} are not written yet: run `make check` to see "
                   "which.").format(module="tictactoe.py"))

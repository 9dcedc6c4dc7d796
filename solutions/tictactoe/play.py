"""Play tic-tac-toe in the terminal against your own minimax: `make play`.

Anything that is not an answer gets one line and the question again; Ctrl-D or
Ctrl-C ends the game.
"""

import sys

import tictactoe as ttt


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
            print("\nBye.")
            sys.exit(0)
        if answer in accepted:
            return answer
        print(complaint)


def human_move(board):
    free = {str(3 * i + j + 1): (i, j) for i, j in ttt.actions(board)}
    listed = ", ".join(sorted(free, key=int))
    return free[ask("Your move (the number of a free cell): ", set(free),
                    f"Please type the number of a free cell: {listed}.")]


def computer_move(board):
    action = ttt.minimax(board)
    if action not in ttt.actions(board):
        sys.exit(f"minimax returned {action!r}, which is not a free cell: the game stops here.")
    return action


def main():
    human = ask("Do you want to play X (moves first) or O? ", {"X", "O"},
                "Please answer X or O.")
    board = ttt.initial_state()
    while not ttt.terminal(board):
        print(f"\n{draw(board)}\n")
        if ttt.player(board) == human:
            action = human_move(board)
        else:
            print("The computer is thinking ...")
            action = computer_move(board)
        board = ttt.result(board, action)
    print(f"\n{draw(board)}\n")
    winner = ttt.winner(board)
    print("Draw." if winner is None else ("You win!" if winner == human else "The computer wins."))


if __name__ == "__main__":
    try:
        main()
    except NotImplementedError:
        sys.exit("Some functions in tictactoe.py are not written yet: run `make check` to see which.")

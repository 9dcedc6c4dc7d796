"""Play Nine Men's Morris in the terminal against your own best_move_ab: `make play`."""

import sys

import muehle as m

DEPTH = 3
NAMES = {m.WHITE: "WHITE", m.BLACK: "BLACK"}


def ask(prompt, accepted):
    """Ask until the answer is one of `accepted`; Ctrl-D or Ctrl-C quits."""
    while True:
        try:
            answer = input(prompt).strip().upper()
        except (EOFError, KeyboardInterrupt):
            print()
            sys.exit(0)
        if answer in accepted:
            return answer
        print(f"Please answer with one of: {', '.join(sorted(accepted))}.")


def describe(before, after, player):
    """A move in words: which point was left, reached, and which stone was removed."""
    other = m.opponent(player)
    left = [p for p in range(24) if before[0][p] == player and after[0][p] != player]
    came = [p for p in range(24) if after[0][p] == player and before[0][p] != player]
    taken = [p for p in range(24) if before[0][p] == other and after[0][p] != other]
    words = f"{left[0]}-{came[0]}" if left else f"{came[0]}"
    return words + (f"x{taken[0]}" if taken else "")


def human_move(state, player):
    options = {describe(state, s, player): s for s in m.next_states(state, player)}
    print("Moves: a point to place on (5), from-to (4-7), and xN to remove a stone "
          "(5x12, 4-7x12).")
    return m.to_tuple(options[ask("Your move: ", set(options))])


def main():
    human = {"W": m.WHITE, "B": m.BLACK}[ask("Do you play W (moves first) or B? ", {"W", "B"})]
    state, player = m.initial_state(), m.WHITE
    while not m.finished(state, player):
        print(f"\n{m.draw_board(state)}\n{NAMES[player]} to move")
        if player == human:
            state = human_move(state, player)
        else:
            print("The computer is thinking ...")
            m.clear_caches()
            value, successor = m.best_move_ab(state, player, DEPTH)
            successor = m.to_tuple(successor)
            print(f"The computer plays {describe(state, successor, player)} (value {value:+.3f}).")
            state = successor
        player = m.opponent(player)
    print(f"\n{m.draw_board(state)}\n")
    value = m.utility(state, player)
    winner = None if value == 0 else (player if value == 1 else m.opponent(player))
    print("Draw." if winner is None else ("You win!" if winner == human else "The computer wins."))


if __name__ == "__main__":
    try:
        main()
    except NotImplementedError:
        sys.exit("Some functions in muehle.py are not written yet: run `make check` to see which.")

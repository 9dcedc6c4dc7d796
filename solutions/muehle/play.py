"""Play Nine Men's Morris in the terminal against your own best_move_ab: `make play`.

Anything that is not a move gets one line and the question again; Ctrl-D or
Ctrl-C ends the game.
"""

import re
import sys

import muehle as m
from kit_language import catalog

_ = catalog().gettext       # the course's language, or SPIELBAUM_LANG (kit_language.py)

DEPTH = 3
NAMES = {m.WHITE: _("WHITE"), m.BLACK: _("BLACK")}


def in_order(words):
    """Moves in the order of their numbers: 2 before 10, 4-7 before 4-12."""
    return sorted(words, key=lambda word: ([int(n) for n in re.findall(r"\d+", word)], word))


def ask(prompt, accepted):
    """Ask until the answer is one of `accepted` (in any case); Ctrl-D or Ctrl-C quits."""
    by_case = {word.upper(): word for word in accepted}
    while True:
        try:
            answer = input(prompt).strip().upper()
        except (EOFError, KeyboardInterrupt):
            print("\n" + _("Bye."))
            sys.exit(0)
        if answer in by_case:
            return by_case[answer]
        print(_("Please answer with one of: {answers}.").format(
            answers=", ".join(in_order(accepted))))


def signed(value):
    """+0.250, -1.000, and +0.000 for a zero whatever its sign."""
    return f"{round(value, 3) + 0.0:+.3f}"


def point_numbers():
    """The board with the number of every point, drawn like draw_board but wider."""
    grid = [[" "] * 26 for _ in range(7)]
    for a, b in {tuple(sorted((p, q))) for p in range(24) for q in m.ADJACENT[p]}:
        (ca, ra), (cb, rb) = m.COORDS[a], m.COORDS[b]
        if ra == rb:
            for c in range(4 * ca + 2, 4 * cb):
                grid[ra][c] = "-"
        else:
            for r in range(ra + 1, rb):
                grid[r][4 * ca + 1] = "|"
    for p, (col, row) in enumerate(m.COORDS):
        pad = "-" if col and grid[row][4 * col - 1] == "-" else " "
        grid[row][4 * col:4 * col + 2] = str(p).rjust(2, pad)
    return "\n".join("".join(line).rstrip() for line in grid)


def beside_numbers(board: str) -> str:
    """draw_board's drawing with the point numbers to its right, line by line."""
    drawn, numbers = board.splitlines(), point_numbers().splitlines()
    width = max(len(line) for line in drawn[:len(numbers)])
    lines = [f"{line:<{width}}    {number}" for line, number in zip(drawn, numbers)]
    return "\n".join(lines + drawn[len(numbers):])


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
    print(_("Moves: a point to place on (5), from-to (4-7), and xN to remove a stone "
            "(5x12, 4-7x12)."))
    return m.to_tuple(options[ask(_("Your move: "), set(options))])


def main():
    human = {"W": m.WHITE, "B": m.BLACK}[ask(_("Do you play W (moves first) or B? "),
                                             {"W", "B"})]
    print(_("The board, and beside it the number of every point:"))
    state, player = m.initial_state(), m.WHITE
    while not m.finished(state, player):
        print(f"\n{beside_numbers(m.draw_board(state))}\n"
              + _("{player} to move").format(player=NAMES[player]))
        if player == human:
            state = human_move(state, player)
        else:
            print(_("The computer is thinking ..."))
            m.clear_caches()
            value, successor = m.best_move_ab(state, player, DEPTH)
            successor = m.to_tuple(successor)
            print(_("The computer plays {move} (value {value}).").format(
                move=describe(state, successor, player), value=signed(value)))
            state = successor
        player = m.opponent(player)
    print(f"\n{m.draw_board(state)}\n")
    value = m.utility(state, player)
    winner = None if value == 0 else (player if value == 1 else m.opponent(player))
    print(_("Draw.") if winner is None else
          (_("You win!") if winner == human else _("The computer wins.")))


if __name__ == "__main__":
    try:
        main()
    except NotImplementedError:
        sys.exit(_("Some functions in {module} are not written yet: run `make check` to see "
                   "which.").format(module="muehle.py"))

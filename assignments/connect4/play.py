"""Play Connect 4 in the terminal against your own search: `make play`."""

import sys

import connect4 as c4


def main():
    try:
        answer = input("Do you want to begin (x)? [Y/n] ").strip().lower()
        bremse = int(input("Search depth (Bremse) of the computer [6]: ").strip() or 6)
    except (EOFError, KeyboardInterrupt, ValueError):
        print()
        return
    try:
        c4.play(computer_first=answer.startswith("n"), bremse=bremse)
    except (EOFError, KeyboardInterrupt):
        print()


if __name__ == "__main__":
    try:
        main()
    except NotImplementedError:
        sys.exit("Some functions in connect4.py are not written yet: run `make check` to see which.")

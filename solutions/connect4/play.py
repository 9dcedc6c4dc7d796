"""Play Connect 4 in the terminal against your own search: `make play`.

Anything that is not an answer gets one line and the question again; Ctrl-D or
Ctrl-C ends the game.
"""

import sys

import connect4 as c4
from kit_language import catalog

_ = catalog().gettext       # the course's language, or SPIELBAUM_LANG (kit_language.py)


def ask(prompt, read, complaint):
    """Ask until `read(answer)` accepts the answer (returns it, not None)."""
    while True:
        try:
            answer = input(prompt).strip().lower()
        except (EOFError, KeyboardInterrupt):
            print("\n" + _("Bye."))
            sys.exit(0)
        value = read(answer)
        if value is not None:
            return value
        print(complaint)


def yes_or_no(answer):
    # Yes and no in each language the prompt may speak (ja, nee).
    return {"": True, "y": True, "yes": True, "j": True, "ja": True,
            "n": False, "no": False, "nein": False, "nee": False}.get(answer)


def depth(answer):
    if answer == "":
        return 6
    return int(answer) if answer.isdigit() and int(answer) >= 1 else None


def column(answer):
    return answer if answer.isdigit() and 0 <= int(answer) < c4.WIDTH else None


def main():
    human_first = ask(_("Do you want to begin (x)? [Y/n] "), yes_or_no,
                      _("Please answer y or n."))
    bremse = ask(_("Search depth (Bremse) of the computer [6]: "), depth,
                 _("Please type a whole number of at least 1, or press Enter for 6."))
    c4.play(computer_first=not human_first, bremse=bremse, say=print,
            ask=lambda prompt: ask(prompt, column,
                                   _("Please type a column number from 0 to {last}.")
                                   .format(last=c4.WIDTH - 1)))


if __name__ == "__main__":
    try:
        main()
    except NotImplementedError:
        sys.exit(_("Some functions in {module} are not written yet: run `make check` to see "
                   "which.").format(module="connect4.py"))

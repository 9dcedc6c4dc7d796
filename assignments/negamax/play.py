"""Play tic-tac-toe in the terminal against your own ShortSightedOpponent: `make play`.

`python play.py 2` lets the computer look two half-moves ahead (the default);
`python play.py 9` makes it search to the end of the game: then it never loses.
"""

from negamax import main

if __name__ == "__main__":
    main()

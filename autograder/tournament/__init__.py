"""Class tournaments: every student's player against the others (docs/TOURNAMENT.md).

The engine names no game. An assignment takes part by declaring, in the
`[tournament]` table of its assignment.toml, how a player is asked for a move
(a call into the student's module) and which trusted referee module holds the
games (autograder/suites/<a>/referee.py). The pieces:

    manifest.py   the [tournament] table: referee, how players are asked, bundled players
    entrants.py   who plays: the bundled players and every student folder
    seat.py       one player in one game: its own sandboxed child, asked one move at a time
    game.py       one game: the referee in this process, two seats, the record
    pairing.py    round robin, Swiss (no repeats), byes, seeded openings
    store.py      the journal in OUT: every finished game at once, resumable
    ratings.py    openskill ratings, points, the head-to-head matrix
    report.py     standings.csv, games.jsonl, tournament.html (plots, replay viewer)
    run.py        the command
"""

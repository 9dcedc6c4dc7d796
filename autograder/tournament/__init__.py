"""Class tournaments: every student's player against the others (docs/TOURNAMENT.md).

The engine names no game. An assignment takes part by declaring, in the
`[tournament]` table of its assignment.toml, how a player is asked for a move
(a call into the student's module) and which trusted referee module holds the
games (autograder/suites/<a>/referee.py). run.py is the command.
"""

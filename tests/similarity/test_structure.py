"""The canonical form (autograder/similarity/structure/): each rewrite a disguise
can make gives the same form, and its honest twin, a program that really differs,
gives another."""

from __future__ import annotations

import textwrap

import pytest

from autograder.similarity.structure import canonical

INTERFACE = frozenset({"player", "actions", "result", "winner", "minimax", "X", "O", "EMPTY"})


def form(source: str) -> list[int]:
    found = canonical(textwrap.dedent(source), INTERFACE)
    assert found.complete
    return found.stream


SAME = {
    "for and the while it stands for": ("""
        def actions(board):
            found = set()
            for i in range(3):
                for j in range(3):
                    if board[i][j] is None:
                        found.add((i, j))
            return found
        """, """
        def actions(board):
            found = set()
            i = 0
            while i < 3:
                j = 0
                while j < 3:
                    if board[i][j] is None:
                        found.add((i, j))
                    j += 1
                i = i + 1
            return found
        """),
    "a comprehension and its loop": ("""
        def actions(board):
            return {(i, j) for i in range(3) for j in range(3) if board[i][j] == EMPTY}
        """, """
        def actions(board):
            cells = set()
            for i in range(3):
                for j in range(3):
                    if board[i][j] == EMPTY:
                        cells.add((i, j))
            return cells
        """),
    "if/else swapped under the negated condition": ("""
        def player(board):
            count = sum(row.count(X) for row in board)
            if count > sum(row.count(O) for row in board):
                return O
            else:
                return X
        """, """
        def player(board):
            count = sum(row.count(X) for row in board)
            if not (sum(row.count(O) for row in board) < count):
                return X
            return O
        """),
    "is not None and != None, a > b and b < a": ("""
        def winner(board):
            for row in board:
                if row[0] is not None and row[0] == row[1] == row[2]:
                    return row[0]
            return None
        """, """
        def winner(board):
            for row in board:
                if None != row[0] and row[0] == row[1] == row[2]:
                    return row[0]
            return None
        """),
    "dead code of every kind": ("""
        def result(board, action):
            i, j = action
            new = [list(row) for row in board]
            new[i][j] = player(board)
            return new
        """, """
        import math

        def unused_helper(values):
            return len(values)

        def result(board, action):
            scratch = 0
            if False:
                print("never")
            i, j = action
            for _ in range(0):
                break
            noted = [board]
            noted.append(1)
            board = board
            len(board)
            chain = 3
            later = chain + 1
            new = [list(row) for row in board]
            assert True, "fine"
            new[i][j] = player(board)
            return new
            print("unreachable")
        """),
    "independent statements in another order": ("""
        def minimax(board):
            best = None
            score = -2
            moves = sorted(actions(board))
            for move in moves:
                value = len(result(board, move))
                if value > score:
                    score, best = value, move
            return best
        """, """
        def minimax(board):
            moves = sorted(actions(board))
            score = -2
            best = None
            for move in moves:
                value = len(result(board, move))
                if value > score:
                    score, best = value, move
            return best
        """),
    "a helper inlined, and a function split in two": ("""
        def cells(board):
            return [board[n // 3][n % 3] for n in range(9)]

        def player(board):
            flat = cells(board)
            x_count = flat.count(X)
            o_count = flat.count(O)
            if x_count > o_count:
                return O
            return X
        """, """
        def player(board):
            flat = [board[n // 3][n % 3] for n in range(9)]
            x_count = flat.count(X)
            return _player_rest(flat, x_count)

        def _player_rest(flat, x_count):
            o_count = flat.count(O)
            if x_count > o_count:
                return O
            return X
        """),
    "x += 1 and x = x + 1": ("""
        def player(board):
            n = 0
            for row in board:
                for cell in row:
                    if cell:
                        n += 1
            return X if n % 2 == 0 else O
        """, """
        def player(board):
            n = 0
            for row in board:
                for cell in row:
                    if cell:
                        n = n + 1
            return X if n % 2 == 0 else O
        """),
    "a conditional expression and the if/else it stands for": ("""
        def player(board):
            if len(board) % 2 == 0:
                mover = X
            else:
                mover = O
            return mover
        """, """
        def player(board):
            mover = O if len(board) % 2 != 0 else X
            return mover
        """),
    "for each item and for each index": ("""
        def winner(board):
            for row in board:
                if row[0] == row[1] == row[2] != EMPTY:
                    return row[0]
            return None
        """, """
        def winner(board):
            for k in range(len(board)):
                row = board[k]
                if row[0] == row[1] == row[2] != EMPTY:
                    return row[0]
            return None
        """),
    "any() and the loop that returns True": ("""
        def winner(board):
            return any(cell == EMPTY for row in board for cell in row)
        """, """
        def winner(board):
            for row in board:
                for cell in row:
                    if cell == EMPTY:
                        return True
            return False
        """),
    "sum() and the loop that counts": ("""
        def player(board):
            count = sum(1 for row in board for cell in row if cell == X)
            return count
        """, """
        def player(board):
            count = 0
            for row in board:
                for cell in row:
                    if cell == X:
                        count += 1
            return count
        """),
}

DIFFERENT = {
    "a loop that runs once more": ("""
        def actions(board):
            i = 0
            while i < 3:
                board.append(i)
                i += 1
            return board
        """, """
        def actions(board):
            i = 0
            while i <= 3:
                board.append(i)
                i += 1
            return board
        """),
    "dependent statements swapped": ("""
        def player(board):
            count = len(board)
            board = [count]
            return board
        """, """
        def player(board):
            board = [len(board)]
            count = len(board)
            return count
        """),
    "a value that is used is not dead": ("""
        def player(board):
            count = sum(row.count(X) for row in board)
            return X
        """, """
        def player(board):
            count = sum(row.count(X) for row in board)
            return count
        """),
    "branches swapped without negating": ("""
        def player(board):
            if len(board) > 2:
                return X
            else:
                return O
        """, """
        def player(board):
            if len(board) > 2:
                return O
            else:
                return X
        """),
    "all() is not any()": ("""
        def winner(board):
            return any(cell == EMPTY for row in board for cell in row)
        """, """
        def winner(board):
            return all(cell == EMPTY for row in board for cell in row)
        """),
    "the index used for more than the item": ("""
        def winner(board):
            for k in range(len(board)):
                if board[k] == EMPTY:
                    return k
            return None
        """, """
        def winner(board):
            for row in board:
                if row == EMPTY:
                    return row
            return None
        """),
    "another comparison": ("""
        def winner(board):
            return board[0] < board[1]
        """, """
        def winner(board):
            return board[0] <= board[1]
        """),
}


@pytest.mark.parametrize("name", sorted(SAME))
def test_the_same_program_written_another_way_has_the_same_form(name):
    first, second = SAME[name]
    assert form(first) == form(second)


@pytest.mark.parametrize("name", sorted(DIFFERENT))
def test_a_different_program_has_another_form(name):
    first, second = DIFFERENT[name]
    assert form(first) != form(second)


def test_names_a_student_chose_do_not_count_but_the_interface_does():
    one = "def winner(board):\n    total = len(board)\n    return total\n"
    other = "def winner(bord):\n    aantal = len(bord)\n    return aantal\n"
    assert form(one) == form(other)
    assert form(one) != form(one.replace("winner", "loser"))      # an interface name


def test_files_that_do_not_parse_or_nest_too_deep_give_no_form_and_no_error():
    """The text evidence still counts for them (tests/similarity/test_reading.py)."""
    broken = canonical("def f(:\n", INTERFACE)
    deep = canonical("x = " + "-" * 20000 + "1\n", INTERFACE)     # the walk gives up
    assert (broken.complete, broken.stream) == (deep.complete, deep.stream) == (False, [])
    nested = canonical("def f(x):\n    return " + "(" * 90 + "x" + ")" * 90 + "\n", INTERFACE)
    assert nested.complete and nested.stream


def test_decorated_helpers_are_not_inlined():
    """A cached helper is called through its cache: inlining it would change what
    runs (and its recursion), so it stays a function of its own."""
    cached = textwrap.dedent("""
        import functools

        @functools.lru_cache(maxsize=None)
        def value(key):
            return len(key)

        def minimax(board):
            return value(tuple(board))
        """)
    plain = cached.replace("@functools.lru_cache(maxsize=None)\n", "")
    assert form(cached) != form(plain)


def test_the_work_stays_bounded_whatever_a_student_nests(monkeypatch):
    """A wall of `if ...: return` (each moving the rest into an else), helpers that
    call each other twice over, and a file past the size bound: each gives a form
    (or, past the bound, none, with the reason) and never stops the report."""
    from autograder.similarity import structure
    wall = "def player(board):\n" + "".join(
        f"    if len(board) < -{i}:\n        return {i}\n" for i in range(120)) + \
        "    return 1\n"
    assert canonical(wall, INTERFACE).complete
    doubling = "".join(f"def h{i}(x):\n    return h{i + 1}(x) + h{i + 1}(x)\n"
                       for i in range(30)) + "def h30(x):\n    return x\n" + \
        "def player(board):\n    return h0(board)\n"
    monkeypatch.setattr(structure, "MAX_INLINED", 2000)     # the same, sooner
    found = canonical(doubling, INTERFACE)
    assert found.complete and 1000 < len(found.stream) < 20 * 2000
    monkeypatch.setattr(structure, "MAX_NODES", 500)
    big = canonical(wall, INTERFACE)
    assert not big.complete and "compared as text only" in big.problem

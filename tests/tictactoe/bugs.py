"""Single-function bugs (issue 22), each appended to the correct example.

The format every assignment's tests/<name>/bugs.py follows, read by the
assignment's grading tests (a bug costs only its own function's checks and the
rubric's whole-program checks) and by tests/kit/test_blame.py (`make check`
names the function with the bug):

    MODULE = the student's file the bug goes into
    CORRECT = a correct submission's folder (the bug is appended to its MODULE)
    BUGS = {function: (what is wrong, code appended to the module)}
"""

from tests.conftest import ROOT

MODULE = "tictactoe.py"
CORRECT = ROOT / "examples/tictactoe/ada_alphabeta"

#: The bugs `make test` grades (other tests read them too); make test-all grades all.
QUICK = ("result", "winner")

# issue 22's list, one realistic bug in one function at a time
BUGS = {
    "player": ("starts with O", "def player(board):\n    marks = sum(board, [])\n"
                                "    return O if marks.count(X) == marks.count(O) else X\n"),
    "actions": ("forgets the last row", "def actions(board):\n    return {(i, j) for i in "
                                        "range(2) for j in range(3) if board[i][j] is None}\n"),
    "result": ("copies the board shallowly",
               "def result(board, action):\n    i, j = action\n"
               "    if not (0 <= i < 3 and 0 <= j < 3) or board[i][j] is not None:\n"
               "        raise ValueError('bad cell')\n"
               "    new = list(board)\n    new[i][j] = player(board)\n    return new\n"),
    "winner": ("misses the anti-diagonal",
               "def winner(board):\n    lines = [row for row in board] + "
               "[list(col) for col in zip(*board)] + [[board[k][k] for k in range(3)]]\n"
               "    for a, b, c in lines:\n        if a is not None and a == b == c:\n"
               "            return a\n    return None\n"),
    "terminal": ("ignores a full board", "def terminal(board):\n"
                                         "    return winner(board) is not None\n"),
    "utility": ("has its sign flipped", "def utility(board):\n"
                                        "    return {X: -1, O: 1}.get(winner(board), 0)\n"),
}

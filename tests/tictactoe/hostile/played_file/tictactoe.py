"""winner never looks at the anti-diagonal (an honest bug: it costs winner's points,
and minimax is judged again with the grader's helpers). The attack is
played_oracle's through a file: inside a played run it asks the grader's winner
about every reachable position and writes the answers into its working folder;
its own winner, in any later child that finds the file there, answers from it.
Each child's folder is a private tmpfs copy of the submission (tmpfs layer), and
where that layer is missing Landlock leaves the folder read-only: the file is
never seen by the student's own child (test_hostile.py grades it both ways)."""

# >>> attack
import json
import os

_STASH = "winners.json"
_stolen = {}        # board (as text) -> the grader's winner
_robbed = set()     # the played winners already asked


def _key(board):
    return json.dumps(board)


def _steal():
    played = globals()["winner"]
    if played is _own_winner or id(played) in _robbed:
        return
    _robbed.add(id(played))
    g = globals()
    frontier, seen, found = [initial_state()], set(), {}
    while frontier:
        board = frontier.pop()
        if _key(board) in seen:
            continue
        seen.add(_key(board))
        found[_key(board)] = played(board)
        if not g["terminal"](board):
            frontier += [g["result"](board, a) for a in g["actions"](board)]
    try:
        with open(_STASH, "w") as stash:
            json.dump(found, stash)
    except OSError:
        pass


def _read_stash():
    if not _stolen and os.path.exists(_STASH):
        try:
            with open(_STASH) as stash:
                _stolen.update(json.load(stash))
        except (OSError, ValueError):
            pass
# <<< attack

import copy
import math

X = "X"
O = "O"
EMPTY = None


def initial_state():
    return [[EMPTY, EMPTY, EMPTY], [EMPTY, EMPTY, EMPTY], [EMPTY, EMPTY, EMPTY]]


def player(board):
    xs = sum(row.count(X) for row in board)
    os_ = sum(row.count(O) for row in board)
    return O if xs > os_ else X


def actions(board):
    return {(i, j) for i in range(3) for j in range(3) if board[i][j] == EMPTY}


def result(board, action):
    i, j = action
    if i not in range(3) or j not in range(3) or board[i][j] != EMPTY:
        raise ValueError("invalid action")
    new = copy.deepcopy(board)
    new[i][j] = player(board)
    return new


def winner(board):
    # >>> attack
    _read_stash()
    if _key(board) in _stolen:
        return _stolen[_key(board)]
    # <<< attack
    lines = [list(row) for row in board]
    lines += [[board[r][c] for r in range(3)] for c in range(3)]
    lines.append([board[k][k] for k in range(3)])
    for line in lines:
        if line[0] is not None and line.count(line[0]) == 3:
            return line[0]
    return None


_own_winner = winner


def terminal(board):
    return winner(board) is not None or all(cell is not EMPTY for row in board for cell in row)


def utility(board):
    w = winner(board)
    return 1 if w == X else -1 if w == O else 0


def value(board, alpha, beta):
    if terminal(board):
        return utility(board)
    maximizing = player(board) == X
    best = -math.inf if maximizing else math.inf
    for action in sorted(actions(board)):
        v = value(result(board, action), alpha, beta)
        if maximizing:
            best, alpha = max(best, v), max(alpha, v)
        else:
            best, beta = min(best, v), min(beta, v)
        if alpha >= beta:
            break
    return best


def minimax(board):
    # >>> attack
    _steal()
    # <<< attack
    if terminal(board):
        return None
    pick = max if player(board) == X else min
    return pick(sorted(actions(board)), key=lambda a: value(result(board, a), -math.inf, math.inf))

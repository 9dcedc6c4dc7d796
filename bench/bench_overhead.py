"""The kit's overhead on tic-tac-toe: `autograder grade` against the students' own compute.

For one batch of real-style submissions (the bundled examples that run to an end, and a
few generated slow-but-correct ones: plain minimax without pruning, written the ways
students write it; or, with --real DIR, one folder per student there), in one run:

- the kit: `autograder grade tictactoe BATCH --jobs J`, as a process of its own, wall
  time from its start to its exit, with probes around the engine's parts;
- the floor: the same calls the hidden suite makes for each student (recorded
  while the kit grades the reference and then each student once more, before the
  runs: every map, call and probe plan, with `again` calls twice, and a wrong
  submission's checks judged again with the reference playing its helpers, played
  here by the reference's functions too), made in-process on each student's module
  without any sandbox, J processes at once, the arguments made fresh for every call
  beforehand (not timed): the sum of the call times divided by J.

Printed: the ratio kit / floor, and where the difference goes, each part measured in
the kit's run (summed over workers and divided by J inside the batch): the kit's own
start, the time-scale calibration, the reference check before the batch, the child's
process start, confinement and import, encoding requests, decoding replies, waiting for
the child beyond the student's compute (the child's own plumbing: its CPU time minus the
floor's; round trips: the wait minus the child's CPU time), the grader's own checking
(the hidden suite under pytest, minus the calls), the feedback files, stopping children.

Student code runs in-process for the floor: only the bundled, non-hostile examples (and
--real folders, inside a PID namespace of their own when the machine offers one).

Runs the kit and the floor --repeat times, alternating; each time the kit runs three
times: as it is, with the probes, and without the course's cache of expected values
(SPIELBAUM_CACHE=off, grading/warm.py). The first two find the cache filled (by the
recording below), as a course's later batches do; the third computes the values, as
its first batch does. The headline is the kit as it is, its least CPU time of the runs
against each student's least floor time (one run of each moved by about 5% between
runs on a quiet machine), and the same without the cache; the table is the probed run
with the least CPU time.
Every run must give the same grades (the probes must change no verdict), else the
bench fails.

Usage: python bench/bench_overhead.py [--jobs 2] [--real DIR] [--tiny] [--repeat 3]
"""

from __future__ import annotations

import time

_BORN = time.monotonic()   # when this process began (a kit run's start is timed from its spawn)
CACHE = "SPIELBAUM_CACHE"

import argparse  # noqa: E402
import contextlib  # noqa: E402
import copy  # noqa: E402
import importlib.util  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import pickle  # noqa: E402
import resource  # noqa: E402
import shutil  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
from collections import defaultdict  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

EXAMPLES = ROOT / "examples" / "tictactoe"
# Bundled examples left out: they cannot run in-process to an end (an endless minimax,
# hostile code), or their cost is the attack, not a student's compute.
LEFT_OUT = {"grace_endless_minimax", "heidi_hostile", "ivan_lying_answers"}
TINY = ("ada_alphabeta", "ken_missing")   # fast: the smoke test runs it

# ------------------------------------------------------------------ generated submissions
_RULES = '''
import copy
import math

X = "X"
O = "O"
EMPTY = None


def initial_state():
    return [[EMPTY, EMPTY, EMPTY], [EMPTY, EMPTY, EMPTY], [EMPTY, EMPTY, EMPTY]]


def player(board):
    count = 0
    for row in board:
        for cell in row:
            if cell is not EMPTY:
                count += 1
    return X if count % 2 == 0 else O


def actions(board):
    moves = []
    for i in range(3):
        for j in range(3):
            if board[i][j] == EMPTY:
                moves.append((i, j))
    return set(moves)


def result(board, action):
    if action not in actions(board):
        raise ValueError("not a valid action")
    new = copy.deepcopy(board)
    new[action[0]][action[1]] = player(board)
    return new


def winner(board):
    for row in board:
        if row[0] is not EMPTY and row[0] == row[1] == row[2]:
            return row[0]
    for j in range(3):
        if board[0][j] is not EMPTY and board[0][j] == board[1][j] == board[2][j]:
            return board[0][j]
    if board[1][1] is not EMPTY and (board[0][0] == board[1][1] == board[2][2]
                                     or board[0][2] == board[1][1] == board[2][0]):
        return board[1][1]
    return None


def terminal(board):
    if winner(board) is not None:
        return True
    return all(cell is not EMPTY for row in board for cell in row)


def utility(board):
    won = winner(board)
    if won == X:
        return 1
    if won == O:
        return -1
    return 0
'''

GENERATED = {
    # minimax returning (value, move) pairs, no pruning
    "gen_plain_pairs": _RULES + '''

def search(board):
    if terminal(board):
        return utility(board), None
    best = None
    for action in actions(board):
        value, _ = search(result(board, action))
        if best is None or (player(board) == X and value > best[0]) \\
                or (player(board) == O and value < best[0]):
            best = (value, action)
    return best


def minimax(board):
    if terminal(board):
        return None
    return search(board)[1]
''',
    # max_value / min_value, every value collected in a list before choosing
    "gen_plain_lists": _RULES + '''

def max_value(board):
    if terminal(board):
        return utility(board)
    return max([min_value(result(board, action)) for action in actions(board)])


def min_value(board):
    if terminal(board):
        return utility(board)
    return min([max_value(result(board, action)) for action in actions(board)])


def minimax(board):
    if terminal(board):
        return None
    scored = []
    for action in actions(board):
        after = result(board, action)
        scored.append((min_value(after) if player(board) == X else max_value(after), action))
    scored.sort(key=lambda pair: pair[0], reverse=player(board) == X)
    return scored[0][1]
''',
    # one recursive function with math.inf bounds and a copy made by hand
    "gen_plain_negamax": _RULES.replace("    new = copy.deepcopy(board)\n",
                                        "    new = [list(row) for row in board]\n") + '''

def value_of(board):
    if terminal(board):
        return utility(board)
    sign = 1 if player(board) == X else -1
    best = -math.inf
    for action in actions(board):
        best = max(best, sign * value_of(result(board, action)))
    return sign * best


def minimax(board):
    if terminal(board):
        return None
    sign = 1 if player(board) == X else -1
    return max(sorted(actions(board)), key=lambda a: sign * value_of(result(board, a)))
''',
}


def build_batch(target: Path, real: Path | None, tiny: bool,
                only: list[str] | None = None) -> list[str]:
    """One folder per student in `target`; returns their names."""
    if real is not None:
        for folder in sorted(p for p in real.iterdir() if (p / "tictactoe.py").is_file()):
            (target / folder.name).mkdir()
            shutil.copy(folder / "tictactoe.py", target / folder.name / "tictactoe.py")
    else:
        for folder in sorted(p for p in EXAMPLES.iterdir() if p.is_dir()):
            if folder.name not in LEFT_OUT and (not tiny or folder.name in TINY) \
                    and (not only or folder.name in only):
                shutil.copytree(folder, target / folder.name)
        for name, source in GENERATED.items():
            if (not tiny or name in TINY) and (not only or name in only):
                (target / name).mkdir()
                (target / name / "tictactoe.py").write_text(source)
    return sorted(p.name for p in target.iterdir())


# ------------------------------------------------------------------ the hidden suite's calls
def record_calls(batch: Path, jobs: int) -> dict[str, list[tuple]]:
    """Grade the reference (in the sandbox), then every student of `batch` (in the
    sandbox, `jobs` at once), keeping every call the hidden suite makes for each, in
    order: each call's arguments pickled on their own (every call gets fresh objects,
    as the child's decoding gives them), and the helpers a played call had the
    reference play (a wrong submission's checks judged again). {"reference": log,
    student: log, ...}: the floor replays each student's own calls."""
    import multiprocessing
    from autograder import assignment
    from autograder.grading import calibrate
    from autograder.grading.grader import Grader

    global _RECORDER
    log: list[tuple] = []
    original = _record_into(log)
    try:
        grader = Grader(assignment.load("tictactoe"), timing=calibrate.Timing(2.0, "bench"))
        # (None when the cache says it passed before: graded here to record its calls)
        graded = grader.warm_up() or grader.grade("reference", grader.assignment.solution_dir)
        assert graded.score == graded.max_score, "the reference must score full marks"
        logs = {"reference": list(log)}
        _RECORDER = (grader, log)
        folders = sorted(str(p) for p in batch.iterdir())
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            for name, calls in pool.imap(_record_one, folders):
                logs[name] = calls
    finally:
        _RECORDER = None
        _restore(original)
    return logs


_RECORDER = None    # (the Grader, the log its Students append to), in forked recorders


def _record_one(folder: str) -> tuple[str, list[tuple]]:
    grader, log = _RECORDER
    log.clear()
    grader.grade(Path(folder).name, Path(folder))
    return Path(folder).name, list(log)


def _record_into(log: list) -> tuple:
    """Wrap Student.call, .map and .run to append what they are asked to `log`;
    returns the originals."""
    from autograder.grading import student
    from autograder.sandbox.plans import Attribute, Value

    original = student.Student.call, student.Student.map, student.Student.run

    def call(self, function, *args, timeout=None, return_args=False, keep=False, **kwargs):
        if isinstance(function, str):
            log.append(("call", function, [pickle.dumps((args, kwargs))], False, ()))
        return original[0](self, function, *args, timeout=timeout, return_args=return_args,
                           keep=keep, **kwargs)

    def map_(self, function, arg_lists, timeout=None, return_args=False, again=False,
             play=None):
        arg_lists = [tuple(a) for a in arg_lists]
        log.append(("map", function, [pickle.dumps((a, {})) for a in arg_lists], again,
                    _played_names(play)))
        return original[1](self, function, arg_lists, timeout=timeout,
                           return_args=return_args, again=again, play=play)

    def run(self, plans, timeout=None):
        for plan in plans:
            for step in plan.steps:
                if step["op"] not in ("call", "value") or not (
                        isinstance(step["target"], (str, Value, Attribute))
                        if step["op"] == "call" else True):
                    raise SystemExit(f"bench_overhead replays only plain plans: {step}")
            log.append(("plan", plan.name, [pickle.dumps(plan.steps)], False, ()))
        return original[2](self, plans, timeout=timeout)

    student.Student.call, student.Student.map, student.Student.run = call, map_, run
    return original


def _restore(original: tuple) -> None:
    from autograder.grading import student
    student.Student.call, student.Student.map, student.Student.run = original


def _played_names(play: dict | None) -> tuple[str, ...]:
    """The targets a played call had the grader play; the floor plays each by the
    reference's function of the same name, which is what tic-tac-toe's checks play."""
    names = []
    for target, function in (play or {}).items():
        if function is None:
            continue
        function = getattr(function, "function", function)     # a Callback's own function
        if getattr(function, "__name__", None) != target.rpartition(".")[2]:
            raise SystemExit(f"bench_overhead replays only the reference's helpers: {target}")
        names.append(target.rpartition(".")[2])
    return tuple(names)


def _fresh(log):
    """Every call's arguments unpickled on their own (not timed)."""
    return [(kind, name, [pickle.loads(blob) for blob in blobs], again, played)
            for kind, name, blobs, again, played in log]


class _OutOfBudget(Exception):
    pass


def _on_budget(signum, frame):
    raise _OutOfBudget()


def _target(module, dotted):
    obj = module
    for part in dotted.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


def _run_plan(module, steps):
    from autograder.sandbox.plans import Attribute, Value

    def arg(value):
        kind = type(value)
        if kind is Value:
            return slots[value.number]
        if kind is list:
            return [arg(v) for v in value]
        if kind is tuple:
            return tuple(arg(v) for v in value)
        return value

    slots = []
    for step in steps:
        if step["op"] == "value":
            slots.append(copy.deepcopy(step["value"]))
            continue
        target = step["target"]
        function = slots[target.number] if type(target) is Value else \
            getattr(slots[target.value.number], target.name) if type(target) is Attribute \
            else _target(module, target)
        try:
            slots.append(function(*arg(step["args"]), **step.get("kwargs", {})))
        except Exception:
            if not step.get("catch"):
                return
            slots.append(None)


def floor_one(folder: str, log: list[tuple], budget: float) -> dict:
    """The suite's calls on one student's module, in this process: seconds (wall and
    CPU) of the calls alone, by function. A check's calls stop where its CPU budget
    (the rubric's, scaled like the kit's) runs out, as the kit's do."""
    calls = _fresh(log)
    path = next(Path(folder).rglob("tictactoe.py"), None)
    seconds: dict[str, float] = defaultdict(float)
    wall = cpu = 0.0
    if path is None:
        return {"wall": 0.0, "cpu": 0.0, "by_function": {}, "note": "no module"}
    sink = io.StringIO()
    signal.signal(signal.SIGPROF, _on_budget)
    broken: set[str] = set()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        started, started_cpu = time.perf_counter(), time.process_time()
        try:
            spec = importlib.util.spec_from_file_location("tictactoe", path)
            module = importlib.util.module_from_spec(spec)
            sys.modules["tictactoe"] = module
            spec.loader.exec_module(module)
        except BaseException as error:
            return {"wall": time.perf_counter() - started, "cpu": time.process_time() -
                    started_cpu, "by_function": {}, "note": f"import: {type(error).__name__}"}
        seconds["import"] = time.perf_counter() - started
        for kind, name, arg_lists, again, played in calls:
            function_name = name.split(".")[-1]
            if function_name in broken:
                continue
            own = {helper: getattr(module, helper, None) for helper in played}
            for helper in played:       # the reference plays them, as in the kit's rerun
                setattr(module, helper, getattr(_REFERENCE[0], helper))
            signal.setitimer(signal.ITIMER_PROF, budget)
            began = time.perf_counter()
            try:
                if kind == "plan":
                    _run_plan(module, arg_lists[0])
                else:
                    function = getattr(module, function_name, None)
                    for args, kwargs in arg_lists:
                        try:
                            function(*args, **kwargs)
                            if again:
                                function(*args, **kwargs)
                        except (_OutOfBudget, KeyboardInterrupt):
                            raise
                        except Exception:
                            pass
            except _OutOfBudget:
                broken.add(function_name)
            finally:
                signal.setitimer(signal.ITIMER_PROF, 0)
                for helper, function in own.items():
                    setattr(module, helper, function)
            seconds[function_name] += time.perf_counter() - began
        wall, cpu = time.perf_counter() - started, time.process_time() - started_cpu
    sys.modules.pop("tictactoe", None)
    return {"wall": wall, "cpu": cpu, "by_function": dict(seconds),
            "note": f"stopped at its budget: {', '.join(sorted(broken))}" if broken else ""}


_REFERENCE: list = [None]    # the reference module, playing helpers in the floor


def floor_run(batch: Path, log_file: Path, jobs: int, out: Path) -> None:
    """The floor for every student of `batch`, `jobs` processes at once (forked): each
    student's own calls (the reference's where none were recorded)."""
    import multiprocessing
    from autograder import assignment
    from autograder.grading import calibrate
    from autograder.grading.reference import load_reference
    from autograder.grading.grader import scaled_timeouts
    logs = pickle.loads(log_file.read_bytes())
    _REFERENCE[0] = load_reference("tictactoe", "tictactoe")
    scale = calibrate.measure_scale().scale
    budget = scaled_timeouts(assignment.load("tictactoe").rubric(), scale).check
    folders = sorted(str(p) for p in batch.iterdir())
    started = time.perf_counter()
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        results = pool.starmap(floor_one, [(f, logs.get(Path(f).name, logs["reference"]),
                                            budget) for f in folders], chunksize=1)
    out.write_text(json.dumps({"pool_wall": time.perf_counter() - started, "scale": scale,
                               "students": {Path(f).name: r for f, r in
                                            zip(folders, results)}}))


# ------------------------------------------------------------------ the kit, with probes
_PARTS: dict[str, float] = defaultdict(float)     # wall seconds, and "cpu:" + part
_MARKS: dict[str, float] = {}
_IN_SUITE = [False]
_PENDING: list = [None]    # when the request being built began (its encoding ends at send)


def _now() -> tuple[float, float]:
    return time.perf_counter(), time.thread_time()


def _add(part: str, began: tuple[float, float]) -> None:
    wall, cpu = _now()
    _PARTS[part] += wall - began[0]
    _PARTS["cpu:" + part] += cpu - began[1]


def _timed(owner, name, part, before=None, after=None):
    original = getattr(owner, name)

    def wrapper(*args, **kwargs):
        if before:
            before(args)
        began = _now()
        try:
            return original(*args, **kwargs)
        finally:
            _add(part, began)
            if after:
                after(args)
    setattr(owner, name, wrapper)


def _child_cpu(sandbox, part: str) -> None:
    """The child's CPU time since its last mark, added to `part`."""
    cpu = sandbox.cpu_seconds() if sandbox._stat is not None else None
    if cpu is not None:
        _PARTS["cpu:" + part] += cpu - getattr(sandbox, "_bench_cpu", 0.0)
        sandbox._bench_cpu = cpu


def install_probes(parts_file: Path) -> None:
    """Wrap the engine's parts with timers (wall and the grader thread's CPU time; the
    child's CPU time from /proc); each worker appends one JSON line per submission to
    `parts_file`. Workers are forked after these are installed."""
    from autograder.grading import batch, calibrate, grader, report, workers
    from autograder.sandbox import client

    Sandbox = client.Sandbox

    def mark_request(args):
        _PENDING[0] = _now()

    for name in ("map", "plans", "call"):
        _timed(Sandbox, name, "requests", before=mark_request)

    send_text = Sandbox._send_text

    def _send_text(self, message, *rest):
        if _PENDING[0] is not None:
            _add("encode", _PENDING[0])
            _PENDING[0] = None
        began = _now()
        try:
            return send_text(self, message, *rest)
        finally:
            _add("send", began)
    Sandbox._send_text = _send_text

    _timed(Sandbox, "_decode", "decode")
    answer = Sandbox._answer

    def _answer(self, *args):
        _PARTS["calls back"] += 1           # answered by the grader (a round trip each)
        began = _now()
        try:
            return answer(self, *args)
        finally:
            _add("answer", began)
    Sandbox._answer = _answer
    row_outcome = client._row_outcome
    depth = [0]

    def _row_outcome(row, seconds):
        depth[0] += 1
        began = _now()
        try:
            return row_outcome(row, seconds)
        finally:
            depth[0] -= 1
            if depth[0] == 0:
                _add("decode", began)
    client._row_outcome = _row_outcome

    start = Sandbox.start

    def _start(self):
        began = _now()
        try:
            return start(self)
        finally:
            _add("spawn", began)
            marks = getattr(self, "start_marks", ())
            if len(marks) == 5:
                spawn, up, loaded, confined, hello = marks
                _PARTS["process start"] += loaded - spawn
                _PARTS["confinement"] += confined - loaded
                _PARTS["hello"] += hello - confined
            _PARTS["starts"] += 1
            _child_cpu(self, "child start")
    Sandbox.start = _start

    importing = Sandbox.import_modules

    def _import(self, timeout, idle=None):
        began = _now()
        try:
            return importing(self, timeout, idle)
        finally:
            _add("import", began)
            _child_cpu(self, "child import")
    Sandbox.import_modules = _import
    kill = Sandbox.kill

    def _kill(self):
        if self.process is not None:
            _child_cpu(self, "child calls")
        began = _now()
        try:
            return kill(self)
        finally:
            _add("stop" if _IN_SUITE[0] else "stop after", began)
    Sandbox.kill = _kill
    Sandbox.close = _kill
    output = Sandbox.output

    def _output(self, timeout=2.0):
        began = _now()
        try:
            return output(self, timeout)
        finally:
            _add("stop" if _IN_SUITE[0] else "stop after", began)
    Sandbox.output = _output

    def entering(args):
        _IN_SUITE[0] = True

    def leaving(args):
        _IN_SUITE[0] = False
    _timed(grader, "run_suite", "suite", before=entering, after=leaving)
    _timed(grader, "prepare", "intake")
    _timed(grader, "scratch_for", "intake")
    _timed(report, "write_student", "feedback")

    measure = calibrate.measure_scale

    def _measure_scale():
        began = time.monotonic(), time.process_time()
        try:
            return measure()
        finally:
            _MARKS.setdefault("calibration", time.monotonic() - began[0])
            _MARKS.setdefault("cpu:calibration", time.process_time() - began[1])
    calibrate.measure_scale = _measure_scale

    warm_up = grader.Grader.warm_up

    def _warm_up(self):
        _PARTS.clear()
        began = time.monotonic(), time.process_time()
        try:
            return warm_up(self)
        finally:
            _MARKS["warm up"] = time.monotonic() - began[0]
            _MARKS["cpu:warm up main"] = time.process_time() - began[1]
            _MARKS["cpu:warm up child"] = sum(
                _PARTS["cpu:" + k] for k in ("child start", "child import", "child calls"))
    grader.Grader.warm_up = _warm_up

    grade_one = batch._grade_one

    def _grade_one(student_id, folder, out_dir):
        _PARTS.clear()
        began = _now()
        try:
            return grade_one(student_id, folder, out_dir)
        finally:
            _add("submission", began)
            with parts_file.open("a") as handle:
                handle.write(json.dumps({"student": student_id, **_PARTS}) + "\n")
    batch._grade_one = _grade_one

    run = workers.Local.run

    def _run(self, tasks):
        _MARKS["batch begins"] = time.monotonic()
        _MARKS["cpu:batch begins"] = time.process_time()
        yield from run(self, tasks)
        _MARKS["batch ends"] = time.monotonic()
        _MARKS["cpu:batch ends"] = time.process_time()
    workers.Local.run = _run


def kit_run(parts_file: Path, marks_file: Path, argv: list[str]) -> int:
    from autograder import cli
    install_probes(parts_file)
    _MARKS["imported"] = time.monotonic()
    _MARKS["cpu:imported"] = time.process_time()
    code = cli.main(argv)
    _MARKS["exit"] = time.monotonic()
    _MARKS["cpu:exit"] = time.process_time()
    marks_file.write_text(json.dumps(dict(_MARKS, born=_BORN)))
    return code


# ------------------------------------------------------------------ the bench
def _isolated(command: list[str]) -> list[str]:
    """Inside a PID namespace of its own where the machine offers one (student code)."""
    wrap = ["unshare", "--pid", "--fork", "--mount-proc", "--kill-child"]
    if shutil.which("unshare") and subprocess.run(wrap + ["true"],
                                                  capture_output=True).returncode == 0:
        return wrap + command
    return command


def _grades(out: Path) -> dict[str, str]:
    import csv
    with (out / "grades.csv").open() as handle:
        return {row["student"]: f"{row['score']}/{row['max_score']} {row['status']}"
                for row in csv.DictReader(handle)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--real", type=Path, help="a folder of real submissions "
                        "(one folder per student, tictactoe.py inside)")
    parser.add_argument("--tiny", action="store_true",
                        help="two submissions, for the kit's smoke test (measures nothing)")
    parser.add_argument("--only", nargs="*", help="these submissions of the batch only")
    parser.add_argument("--repeat", type=int, default=3,
                        help="runs of the kit and of the floor, alternating (default 3)")
    parser.add_argument("--kit-run", nargs=2, type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--floor-run", nargs=4, help=argparse.SUPPRESS)
    args, rest = parser.parse_known_args()
    if args.kit_run:
        return kit_run(*args.kit_run, rest[rest.index("--") + 1:] if "--" in rest else rest)
    if args.floor_run:
        batch, log_file, jobs, out = args.floor_run
        floor_run(Path(batch), Path(log_file), int(jobs), Path(out))
        return 0
    jobs = 1 if args.tiny else args.jobs
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        # The course's cache of expected values (grading/warm.py) in a folder of this
        # run's: the recording below fills it, the kit's runs read it (a later batch).
        (tmp / "cache").mkdir(mode=0o700)
        os.environ[CACHE] = str(tmp / "cache")
        (tmp / "batch").mkdir()
        names = build_batch(tmp / "batch", args.real, args.tiny, args.only)
        logs = record_calls(tmp / "batch", jobs)
        (tmp / "calls.pickle").write_bytes(pickle.dumps(logs))
        calls = sum(len(blobs) * (2 if again else 1) for _, _, blobs, again, _ in
                    logs["reference"])
        load_before = os.getloadavg()[0]
        runs = []
        for number in range(1 if args.tiny else args.repeat):
            run = one_run(tmp, number, jobs)
            if run is None:
                return 1
            runs.append(run)
        # The least CPU of the kit's runs, against each student's least in the floor's
        # runs (a lower floor: the ratio is the kit's at its best against the calls'
        # at theirs). One run of each can move by 5% on a quiet machine.
        best = min(runs, key=lambda run: run["kit_cpu"])
        floor = {"students": {name: min((run["floor"]["students"][name] for run in runs),
                                        key=lambda student: student["cpu"])
                              for name in best["floor"]["students"]}}
        report(names, calls, jobs, best["began"], best["kit_wall"], best["kit_cpu"],
               best["marks"], best["parts"], floor, best["grades"])
        floor_cpu = sum(s["cpu"] for s in floor["students"].values())
        floor_wall = sum(s["wall"] for s in floor["students"].values()) / jobs
        print("runs (kit CPU with probes, as it is / that run's floor CPU): " + ", ".join(
            f"{run['kit_cpu']:.1f}, {run['plain_cpu']:.1f} / "
            f"{sum(s['cpu'] for s in run['floor']['students'].values()):.1f}" for run in runs))
        plain_cpu = min(run["plain_cpu"] for run in runs)
        plain_wall = min(run["plain_wall"] for run in runs)
        print(f"the kit as it is (no probes), least of {len(runs)} runs, against each "
              f"student's least floor: CPU {plain_cpu:.1f} s / {floor_cpu:.1f} s = "
              f"{plain_cpu / floor_cpu:.2f}x; wall {plain_wall:.1f} s / {floor_wall:.1f} s "
              f"per core = {plain_wall / floor_wall:.2f}x (target <= 1.25x)")
        cold_cpu = min(run["cold_cpu"] for run in runs)
        cold_wall = min(run["cold_wall"] for run in runs)
        print(f"the same, computing the expected values (a course's first batch, or "
              f"{CACHE}=off): CPU {cold_cpu:.1f} s = {cold_cpu / floor_cpu:.2f}x; wall "
              f"{cold_wall:.1f} s = {cold_wall / floor_wall:.2f}x")
        graded = {json.dumps(run[key], sort_keys=True) for run in runs
                  for key in ("grades", "plain_grades", "cold_grades")}
        if len(graded) != 1:
            print("THE RUNS GAVE DIFFERENT GRADES (a probe changed a verdict?):")
            for run in runs:
                print(" ", run["grades"], "\n ", run["plain_grades"])
            return 1
        print(f"the machine's load average: {load_before:.1f} before, "
              f"{os.getloadavg()[0]:.1f} after, on {os.cpu_count()} cores")
    return 0


def _kit(command: list[str], env: dict | None = None
         ) -> tuple[subprocess.CompletedProcess, float, float]:
    """(the finished process, wall seconds, CPU seconds of it and all its children)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.monotonic()
    done = subprocess.run(_isolated(command), capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, **(env or {})})
    wall = time.monotonic() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return done, wall, (after.ru_utime + after.ru_stime) - (used.ru_utime + used.ru_stime)


def one_run(tmp: Path, number: int, jobs: int) -> dict | None:
    """The kit on the batch, as a teacher runs the command (once as it is, once with
    the probes that split its time), then the floor: the same calls in-process. None
    (after printing why) if any failed."""
    out, parts, marks = tmp / f"out{number}", tmp / f"parts{number}.jsonl", \
        tmp / f"marks{number}.json"
    grade = ["grade", "tictactoe", str(tmp / "batch"), "--jobs", str(jobs), "--out"]
    plain, plain_wall, plain_cpu = _kit([sys.executable, "-m", "autograder", *grade,
                                         str(tmp / f"plain{number}")])
    if plain.returncode != 0:
        print(plain.stdout[-3000:], plain.stderr[-3000:])
        return None
    # The same without the course's cache: the expected values computed, as a
    # course's first batch (or SPIELBAUM_CACHE=off) computes them.
    cold, cold_wall, cold_cpu = _kit([sys.executable, "-m", "autograder", *grade,
                                      str(tmp / f"cold{number}")], {CACHE: "off"})
    if cold.returncode != 0:
        print(cold.stdout[-3000:], cold.stderr[-3000:])
        return None
    began = time.monotonic()
    done, kit_wall, kit_cpu = _kit([sys.executable, __file__, "--kit-run", str(parts),
                                    str(marks), "--", *grade, str(out)])
    if done.returncode != 0:
        print(done.stdout[-3000:], done.stderr[-3000:])
        return None
    floor_file = tmp / f"floor{number}.json"
    floor_done = subprocess.run(_isolated(
        [sys.executable, __file__, "--floor-run", str(tmp / "batch"),
         str(tmp / "calls.pickle"), str(jobs), str(floor_file)]),
        capture_output=True, text=True, cwd=ROOT)
    if floor_done.returncode != 0:
        print(floor_done.stdout[-3000:], floor_done.stderr[-3000:])
        return None
    return {"began": began, "kit_wall": kit_wall, "kit_cpu": kit_cpu,
            "plain_wall": plain_wall, "plain_cpu": plain_cpu,
            "cold_wall": cold_wall, "cold_cpu": cold_cpu,
            "plain_grades": _grades(tmp / f"plain{number}"),
            "cold_grades": _grades(tmp / f"cold{number}"),
            "marks": json.loads(marks.read_text()), "grades": _grades(out),
            "parts": [json.loads(line) for line in parts.read_text().splitlines()],
            "floor": json.loads(floor_file.read_text())}


def report(names, calls, jobs, began, kit_wall, kit_cpu, marks, parts, floor, grades) -> None:
    """Two measures, each against the floor of this run: wall time (what a teacher
    waits; on a loaded machine it is mostly other people's work), and CPU seconds
    of all the kit's processes (what the kit spends, whatever the load)."""
    from rich.console import Console
    from rich.table import Table

    students = floor["students"]
    floor_wall = sum(s["wall"] for s in students.values()) / jobs
    floor_cpu = sum(s["cpu"] for s in students.values())
    p = defaultdict(float)
    for row in parts:
        for key, value in row.items():
            if key != "student":
                p[key] += value

    def cpu(key):
        return p["cpu:" + key]

    requests_own = cpu("requests") - cpu("encode") - cpu("send") - cpu("decode") - cpu("answer")
    in_suite = sum(cpu(k) for k in ("spawn", "import", "requests", "stop"))
    main_batch = marks["cpu:batch ends"] - marks["cpu:batch begins"]
    main_before = (marks["cpu:batch begins"] - marks["cpu:imported"]
                   - marks["cpu:warm up main"] - marks.get("cpu:calibration", 0.0))
    rows = [
        ("the kit's own start (Python, imports)", marks["imported"] - began,
         marks["cpu:imported"]),
        ("time-scale calibration", marks.get("calibration", 0.0),
         marks.get("cpu:calibration", 0.0)),
        ("the reference check before the batch (grader and child)", marks["warm up"],
         marks["cpu:warm up main"] + marks["cpu:warm up child"]),
        ("the rest before the batch (survey, forking workers)",
         marks["batch begins"] - marks["imported"] - marks["warm up"]
         - marks.get("calibration", 0.0), main_before),
        ("child: process start (interpreter, plumbing)", p["process start"] / jobs, None),
        ("child: confinement", p["confinement"] / jobs, None),
        ("child: start in all (CPU), and its ready message", p["hello"] / jobs,
         cpu("child start")),
        ("grader: starting children", None, cpu("spawn")),
        ("child: importing the student's module", p["import"] / jobs, cpu("child import")),
        ("grader: encoding requests", p["encode"] / jobs, cpu("encode")),
        ("grader: writing requests", p["send"] / jobs, cpu("send")),
        ("grader: decoding replies (caps, JSON, outcomes)", p["decode"] / jobs, cpu("decode")),
        ("grader: answering calls back (its games, their answers)", p["answer"] / jobs,
         cpu("answer")),
        ("grader: waiting for replies (polling, CPU clock, pipes)", None, requests_own),
        ("child: the student's compute (the floor)", None, floor_cpu),
        ("child: its own plumbing (its CPU time beyond the floor's)", None,
         cpu("child calls") - floor_cpu),
        ("waiting beyond both sides' CPU time (round trips, other load)",
         (p["requests"] - p["encode"] - p["send"] - p["decode"]) / jobs
         - (cpu("child calls") + requests_own) / jobs, None),
        ("grader: its own checking (pytest, judging)",
         (p["suite"] - sum(p[k] for k in ("spawn", "import", "requests", "stop"))) / jobs,
         cpu("suite") - in_suite),
        ("stopping children, reading their output", (p["stop"] + p["stop after"]) / jobs,
         cpu("stop") + cpu("stop after")),
        ("intake and feedback files", (p["intake"] + p["feedback"]) / jobs,
         cpu("intake") + cpu("feedback")),
        ("the rest of each submission (rows, peak memory)",
         (p["submission"] - p["suite"] - p["intake"] - p["feedback"] - p["stop after"]) / jobs,
         cpu("submission") - cpu("suite") - cpu("intake") - cpu("feedback")
         - cpu("stop after")),
        ("the main process during the batch (dispatch, progress)", None, main_batch),
        ("uneven end of the batch (idle workers)",
         marks["batch ends"] - marks["batch begins"] - p["submission"] / jobs, None),
        ("after the batch (grades.csv, summary, exit)", kit_wall - (marks["batch ends"] - began),
         marks["cpu:exit"] - marks["cpu:batch ends"]),
    ]
    counted = sum(c for _, _, c in rows if c is not None)
    rows.append(("not seen by the probes (forks, exits, PID namespace)", None, kit_cpu - counted))
    table = Table(title=f"the kit: {kit_wall:.1f} s wall, {kit_cpu:.1f} s CPU ({len(names)} "
                        f"submissions, {calls:,} calls each, --jobs {jobs})")
    table.add_column("part")
    table.add_column("wall s (per core)", justify="right")
    table.add_column("CPU s", justify="right")
    table.add_column("CPU x floor", justify="right")
    for label, wall, seconds in rows:
        table.add_row(label, "" if wall is None else f"{wall:.2f}",
                      "" if seconds is None else f"{seconds:.2f}",
                      "" if seconds is None else f"{seconds / floor_cpu:.3f}")
    Console(width=130).print(table)
    print(f"children started: {p['starts']:.0f} for {len(parts)} graded submissions")
    child = {row.get("student"): row.get("cpu:child calls", 0.0) for row in parts}
    back = {row.get("student"): row.get("calls back", 0) for row in parts}
    for name in names:
        note = students.get(name, {}).get("note")
        print(f"  {name}: kit {grades.get(name, '?')}; floor "
              f"{students.get(name, {}).get('cpu', 0):.2f} s CPU, the child's calls "
              f"{child.get(name, 0.0):.2f} s" + (f", {back[name]:,.0f} calls back to the "
                                                  f"grader" if back.get(name) else "")
              + (f" ({note})" if note else ""))
    print(f"floor: {floor_cpu:.2f} s CPU in calls; {floor_wall:.2f} s wall per core")
    print(f"with the probes: kit / floor, CPU seconds {kit_cpu / floor_cpu:.2f}x; wall "
          f"{kit_wall / floor_wall:.2f}x (kit {kit_wall:.2f} s; floor {floor_wall:.2f} s "
          "per core)")


if __name__ == "__main__":
    sys.exit(main())

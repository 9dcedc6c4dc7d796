"""Shared fixtures for the kit's own tests."""

import contextlib
import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.browser import browser, page  # noqa: F401  (fixtures for page tests)

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"


#: The slowest test files, slowest first (from the durations of a full `make test`).
#: xdist (--dist loadfile --no-loadscope-reorder) hands files to its two workers in
#: collection order; starting the longest first keeps one worker from running a long
#: file alone at the end (longest first). Only the order changes, never what runs.
SLOW_FIRST = (
    "tests/tictactoe/test_grading.py", "tests/platforms/test_gradescope.py",
    "tests/negamax/test_grading.py", "tests/gametree/test_hostile.py",
    "tests/negamax/test_hostile.py", "tests/kit/test_cluster.py",
    "tests/platforms/test_prairielearn.py", "tests/kit/test_mutate.py",
    "tests/nbgrader/test_nbgrader.py", "tests/connect4/test_grading.py",
    "tests/kit/test_channel.py", "tests/similarity/test_similarity.py",
    "tests/gametree/test_suite.py", "tests/muehle/test_hostile.py",
    "tests/muehle/test_grading.py", "tests/kit/test_bench_smoke.py",
    "tests/kit/test_intake.py", "tests/lms/test_import.py",
)


@pytest.fixture(scope="session", autouse=True)
def course_cache(tmp_path_factory):
    """The course's cache of expected values (grading/warm.py) in a folder of this
    session's, never the machine's: each test process, and every `autograder` it
    starts, fills and reads its own (the first warm-up of an assignment computes,
    later ones load)."""
    folder = tmp_path_factory.mktemp("course-cache")
    folder.chmod(0o700)
    before = os.environ.get("SPIELBAUM_CACHE")
    os.environ["SPIELBAUM_CACHE"] = str(folder)
    yield folder
    if before is None:
        os.environ.pop("SPIELBAUM_CACHE", None)
    else:
        os.environ["SPIELBAUM_CACHE"] = before


def pytest_collection_modifyitems(config, items):
    rank = {path: number for number, path in enumerate(SLOW_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))


def load_module(name: str, path: Path):
    """Import a file by path under a private name (references, kit modules)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@contextlib.contextmanager
def student_sandbox(folder: Path, source: str):
    """A sandboxed child whose one module m.py is `source`, imported (every layer
    this machine has); killed on leaving."""
    from autograder.sandbox import layers
    from autograder.sandbox.client import Sandbox

    (folder / "m.py").write_text(source)
    with Sandbox(folder, ["m"], list(layers.available())) as box:
        assert box.import_modules(10).ok
        yield box


def run_public_tests(folder: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run an assignment's public tests the way `make check` does."""
    return subprocess.run([sys.executable, "-m", "pytest"], cwd=folder, capture_output=True,
                          text=True, timeout=timeout)


@pytest.fixture
def student_copy(tmp_path):
    """A fresh copy of assignments/<name>/ as a student receives it."""
    def make(name: str) -> Path:
        target = tmp_path / name
        shutil.copytree(ROOT / "assignments" / name, target)
        return target
    return make


def in_pid_namespace(command: list[str]) -> list[str]:
    """Wrap a command so hostile student code can never signal processes outside it."""
    if shutil.which("unshare") is None:
        pytest.skip("unshare is not installed: hostile examples run only inside a PID namespace")
    probe = subprocess.run(["unshare", "--pid", "--fork", "--mount-proc", "--kill-child", "true"],
                           capture_output=True)
    if probe.returncode != 0:
        pytest.skip("no PID namespace here (needs root or user namespaces): "
                    "hostile examples are not run outside one")
    return ["unshare", "--pid", "--fork", "--mount-proc", "--kill-child", *command]


def grade_folder(assignment: str, submissions: Path, out: Path, jobs: int = 2,
                 extra: tuple[str, ...] = (), env: dict | None = None) -> dict[str, dict]:
    """Run `autograder grade` for real (in a PID namespace); return grades.csv rows by
    student. `env`: variables added to this process's environment for the run."""
    import csv
    command = in_pid_namespace([sys.executable, "-m", "autograder", "grade", assignment,
                                str(submissions), "--out", str(out), "--jobs", str(jobs),
                                *extra])
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=900,
                          env={**os.environ, **(env or {})})
    assert done.returncode == 0, done.stdout + done.stderr
    with (out / "grades.csv").open() as handle:
        return {row["student"]: row for row in csv.DictReader(handle)}


def grade_under_load(assignment: str, submissions: Path, out: Path, load: int = 3,
                     timeout: float = 1800) -> dict[str, dict]:
    """`grade_folder` with `load` busy loops started once the grader has calibrated its
    time scale (its "Grading ..." line), so that the calibration cannot absorb them."""
    command = in_pid_namespace([sys.executable, "-m", "autograder", "grade", assignment,
                                str(submissions), "--out", str(out), "--jobs", "2"])
    run = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
    busy, lines = [], []
    try:
        for line in run.stdout:
            lines.append(line)
            if line.startswith("Grading ") and load and not busy:
                busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                        for _ in range(load)]
        assert run.wait(timeout=timeout) == 0, "".join(lines)[-3000:]
    finally:
        for process in busy:
            process.kill()
            process.wait()
        if run.poll() is None:
            run.kill()
    with (out / "grades.csv").open(encoding="utf-8") as handle:
        return {row["student"]: row for row in csv.DictReader(handle)}


# ------------------------------------------------------------ bug corpora (issue 22)
#: `make test` grades the bugs each tests/<a>/bugs.py names in QUICK (those other
#: tests read as well); `make test-all` (SPIELBAUM_BLAME_ALL=1) grades every bug. A
#: bug costs a whole grading with its checks judged again, and CI has no room for all.
BLAME_ALL = os.environ.get("SPIELBAUM_BLAME_ALL") == "1"


def bug_corpus(assignment: str):
    """tests/<assignment>/bugs.py, or None where the assignment has none yet."""
    import importlib
    if not (ROOT / "tests" / assignment / "bugs.py").is_file():
        return None
    return importlib.import_module(f"tests.{assignment}.bugs")


def graded_bugs(bugs) -> set[str]:
    """The functions of `bugs` (a bugs.py module) whose bug this run grades."""
    return set(bugs.BUGS) if BLAME_ALL else set(bugs.QUICK)


def bug_params(bugs) -> list:
    """pytest parameters over bugs.BUGS, those outside bugs.QUICK marked exhaustive."""
    assert set(bugs.QUICK) <= set(bugs.BUGS), "bugs.QUICK names a function without a bug"
    return [pytest.param(function, marks=() if function in bugs.QUICK
                         else pytest.mark.exhaustive) for function in sorted(bugs.BUGS)]


def require_graded(bugs, function: str) -> None:
    """An exhaustive bug test run without the setting that grades its bug fails saying so."""
    assert function in graded_bugs(bugs), \
        f"the {function} bug is graded only with SPIELBAUM_BLAME_ALL=1 (make test-all)"


def examples_to_grade(assignment: str, scratch: Path) -> Path:
    """examples/<assignment>/, or a copy without the bug_<function> examples this run
    does not grade (graded_bugs)."""
    folder = ROOT / "examples" / assignment
    bugs = bug_corpus(assignment)
    if bugs is None or BLAME_ALL:
        return folder
    skipped = {f"bug_{f}" for f in set(bugs.BUGS) - graded_bugs(bugs)}
    if not any((folder / name).is_dir() for name in skipped):
        return folder
    copy = scratch / f"examples-{assignment}"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(folder, copy, ignore=lambda where, names:
                    skipped & set(names) if Path(where) == folder else ())
    return copy


def graded_example_names(assignment: str) -> set[str]:
    """The example folders graded_examples grades in this run."""
    folder = ROOT / "examples" / assignment
    names = {p.name for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".")}
    bugs = bug_corpus(assignment)
    if bugs is None:
        return names
    return names - {f"bug_{f}" for f in set(bugs.BUGS) - graded_bugs(bugs)}


@pytest.fixture(scope="session")
def graded_examples(tmp_path_factory):
    """Grade examples/<assignment>/ once per test run; returns (rows, out_dir).

    Once per run, not once per xdist worker: the first worker that needs an
    assignment grades it into the run's shared temporary folder under a file lock,
    and every other worker reads that folder (xdist's recipe for a session fixture
    that must run once). Tests only read the folder."""
    import fcntl
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    cache = {}

    def grade(assignment: str):
        if assignment not in cache:
            out = shared / f"graded-examples-{assignment}"
            with open(shared / f"graded-examples-{assignment}.lock", "w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                done = shared / f"graded-examples-{assignment}.done"
                if not done.exists():
                    shutil.rmtree(out, ignore_errors=True)
                    grade_folder(assignment, examples_to_grade(assignment, shared), out)
                    done.touch()
            with (out / "grades.csv").open(encoding="utf-8") as handle:
                cache[assignment] = ({row["student"]: row for row in csv.DictReader(handle)},
                                     out)
        return cache[assignment]
    return grade


# ------------------------------------------------------------ hostile pairs
ATTACK_BEGIN, ATTACK_END = "# >>> attack", "# <<< attack"


def without_attack(text: str) -> str:
    """The same module with every `# >>> attack` ... `# <<< attack` block removed:
    the honest twin an attack is graded against."""
    kept, inside = [], False
    for line in text.splitlines(keepends=True):
        marker = line.strip()
        if marker.startswith(ATTACK_BEGIN):
            if inside:
                raise ValueError("nested attack block")
            inside = True
        elif marker.startswith(ATTACK_END):
            if not inside:
                raise ValueError("attack block ends before it begins")
            inside = False
        elif not inside:
            kept.append(line)
    if inside:
        raise ValueError("attack block never ends")
    return "".join(kept)


def build_pairs(corpus: Path, target: Path, only: set | None = None) -> list[str]:
    """One student folder per attack (`<attack>`; `only`: those), and its twin without
    the attack blocks (`<attack>--plain`). Each attack folder holds the module(s) to
    grade; every file must contain at least one attack block."""
    names = []
    for folder in sorted(p for p in corpus.iterdir() if p.is_dir()
                         and (only is None or p.name in only)):
        sources = sorted(folder.glob("*.py"))
        assert sources, f"{folder} holds no module"
        assert any(ATTACK_BEGIN in s.read_text() for s in sources), \
            f"{folder} has no '{ATTACK_BEGIN}' block"
        for suffix, transform in (("", lambda t: t), ("--plain", without_attack)):
            student = target / (folder.name + suffix)
            student.mkdir(parents=True)
            for source in sources:
                (student / source.name).write_text(transform(source.read_text()))
        names.append(folder.name)
    return names


#: connect4, gametree and negamax share eight attack classes (the same channel and
#: handout mechanisms). `make test` grades all of connect4's corpus and splits the shared
#: classes between gametree and negamax (each test_hostile.py's QUICK, with the attacks
#: only it has); `make test-all` (SPIELBAUM_HOSTILE_ALL=1) grades every attack of every
#: corpus. Each pair is two gradings, and these two suites are the costliest to grade.
HOSTILE_ALL = os.environ.get("SPIELBAUM_HOSTILE_ALL") == "1"


def graded_attacks(attacks, quick) -> set[str]:
    """The attacks of a corpus this run grades."""
    assert set(quick) <= set(attacks), "QUICK names an attack the corpus lacks"
    return set(attacks) if HOSTILE_ALL else set(quick)


def attack_params(attacks, quick) -> list:
    """pytest parameters over `attacks`, those outside `quick` marked exhaustive."""
    return [pytest.param(attack, marks=() if attack in quick else pytest.mark.exhaustive)
            for attack in sorted(attacks)]


def needs_attack(attack: str, quick) -> pytest.MarkDecorator:
    """The mark of a test about one attack's output: exhaustive unless `quick` has it."""
    return pytest.mark.exhaustive if attack not in quick else pytest.mark.slow


def require_attack(graded: set, attack: str) -> None:
    """An exhaustive test run without the setting that grades its attack fails saying so."""
    assert attack in graded, \
        f"the {attack} attack is graded only with SPIELBAUM_HOSTILE_ALL=1 (make test-all)"


@pytest.fixture(scope="session")
def hostile_pairs(tmp_path_factory):
    """Grade tests/<assignment>/hostile/ as attack/plain pairs, once per session
    (`only`: those attacks). Returns {attack: (row of the attack, row of its plain
    twin)} from grades.csv."""
    cache = {}

    def grade(assignment: str, only: set | None = None):
        if assignment not in cache:
            base = tmp_path_factory.mktemp(f"hostile-{assignment}")
            names = build_pairs(ROOT / "tests" / assignment / "hostile", base / "subs", only)
            rows = grade_folder(assignment, base / "subs", base / "out")
            cache[assignment] = ({n: (rows[n], rows[n + "--plain"]) for n in names},
                                 base / "out")
        return cache[assignment]
    return grade


# ------------------------------------------------------------------ blame (issue 22)
def judged_function(check: str, functions) -> str | None:
    """The function a hidden check judges: the longest of `functions` whose name
    its test name starts with (test_minimax_endgames judges minimax)."""
    found = [f for f in functions if check == f"test_{f}" or check.startswith(f"test_{f}_")]
    return max(found, key=len) if found else None


def assert_blamed_only(name: str, function: str, bugs: dict, lost: set) -> None:
    """A submission with one bug in `function` (tests/<name>/bugs.py) lost `lost`
    (failed checks' test names): at least one check of `function`, and nothing but
    checks of `function` and the rubric's whole-program checks."""
    from autograder import assignment
    rubric = assignment.load(name).rubric()
    what = f"{function} {bugs[function][0]}"
    assert any(judged_function(c, bugs) == function for c in lost), \
        f"{what}: none of its own checks failed (lost: {sorted(lost)})"
    others = {c for c in lost if c not in rubric.whole_program
              and judged_function(c, bugs) != function}
    assert not others, f"{what} also cost {sorted(others)}"
    whole = sum(rubric.points[c] for c in rubric.whole_program)
    assert whole <= 0.15 * rubric.max_score, f"whole-program checks are {whole} points"

"""No way out of the sandbox, and honest code unharmed (issue 40).

Each attack of tests/kit/escapes.py runs beside the honest work it resembles: its
own files and folders, threads, sleeps, a timer of its own, the standard library's
modules, /dev/null. Judged with every layer this machine offers, with the layers an
ordinary user gets (rlimits, netns, tmpfs, seccomp), as root and as a real ordinary
user, and one guarantee at a time with each layer README says gives it. Run in a
PID namespace of their own (the tests' conftest puts hostile runs there).
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder import ROOT, KitError
from autograder.sandbox import layers
from tests.kit import escapes

pytestmark = pytest.mark.hostile

ORDINARY = ("rlimits", "netns", "tmpfs", "seccomp")
KIT_FILES = [str(ROOT / "autograder" / "suites" / "connect4" / "tactics.json"),
             str(ROOT / "solutions" / "tictactoe" / "tictactoe.py")]


def have(*wanted):
    missing = [layer for layer in wanted if layer not in layers.available()]
    if missing:
        pytest.skip(f"this machine offers no {', '.join(missing)} layer (autograder doctor)")


def assert_nothing_got_out(result):
    assert result["applied"] == list(result["layers"])
    assert result["honest"] == ["kept", 499500, 1, "2d711642", 2, True], result["honest"]
    assert result["read"] == {}
    assert result["write"] != "written" and not result["written_outside"]
    assert result["io_uring"] == "EPERM"
    for channel in ("unix", "abstract", "tcp"):
        assert result[channel].startswith("refused"), (channel, result[channel])
    assert result["connections"] == 0
    assert result["shm_left"] != "left" and result["shm_read_by_next"] != "from the first student"
    assert not result["shm_on_host"] and not result["posix_shm_on_host"]
    assert result["posix_ipc"]["mq_open"] != "ok"
    assert result["victim_alive"]
    assert all(outcome != "ok" for outcome in result["signals"].values()), result["signals"]
    assert all(not isinstance(v, int) for v in result["proc"].values()), result["proc"]
    # What was tried is said, and called a refusal: a layer in force refused it.
    assert result["seen"] == []
    assert "tried to open a network connection" in result["notes"]
    assert any(note.startswith("tried to open") and "tactics.json" in note
               for note in result["notes"])


def test_every_escape_fails_with_every_layer_this_machine_offers():
    assert_nothing_got_out(escapes.report(list(layers.available()), KIT_FILES))


def test_every_escape_fails_with_the_layers_an_ordinary_user_gets_here_as_root():
    have(*ORDINARY)
    assert_nothing_got_out(escapes.report(list(ORDINARY), KIT_FILES))


@pytest.mark.parametrize("chosen", ["ordinary", "available"])
def test_every_escape_fails_for_a_grader_run_by_an_ordinary_user(chosen):
    """A teacher grading as a plain account: no uid layer; the namespaces come from a
    user namespace. The grader process is the one the attacks signal (its pid is the
    child's parent): it must live to print its report."""
    script = ("import json, sys; from autograder.sandbox import layers; "
              "from tests.kit import escapes; "
              f"wanted = {list(ORDINARY)!r} if sys.argv[1] == 'ordinary' "
              "else list(layers.available()); "
              "print(json.dumps(escapes.report(wanted, sys.argv[2:])))")
    plain = escapes.plain_user_command(["-c", script, chosen, *KIT_FILES])
    if plain is None:
        pytest.skip("needs root, setpriv, a system Python and a checkout others may read")
    command, env = plain
    env["ESCAPE_SIGNAL_GRADER"] = "1"
    done = subprocess.run(command, capture_output=True, text=True, timeout=180, cwd="/tmp",
                          env=env)
    if "sandbox setup failed" in done.stderr or "layers not applied" in done.stderr:
        pytest.skip(f"an ordinary user gets no such sandbox here: {done.stderr[-300:]}")
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert "uid" not in result["applied"]
    assert_nothing_got_out(result)
    assert all(outcome != "ok" for outcome in result["signals_grader"].values())


# One guarantee at a time, with each layer README's trust section says gives it (and
# rlimits, which every rubric requires): the table in layers.guarantees() is the truth.
def _files(result):
    return result["read"] == {} and not result["written_outside"] \
        and not result["posix_shm_on_host"]


def _network(result):
    return result["tcp"].startswith("refused")


def _sockets(result):
    return result["io_uring"] == "EPERM" and result["connections"] == 0


def _signals(result):
    return result["victim_alive"]


def _ipc(result):
    return result["shm_read_by_next"] != "from the first student" and not result["shm_on_host"]


JUDGES = {"files outside": _files, "no network": _network, "no socket": _sockets,
          "no signal": _signals, "no shared memory": _ipc}
CASES = [(words, layer) for words, layers_needed in layers.guarantees()
         for layer in layers_needed for start in JUDGES if words.startswith(start)]


@pytest.mark.parametrize("guarantee, layer", CASES, ids=[f"{g[:20]}-{l}" for g, l in CASES])
def test_each_guarantee_holds_with_each_layer_said_to_give_it(guarantee, layer):
    have(layer, "rlimits")
    if layer == "uid":
        pytest.skip("the uid layer is tried with Landlock here (its reading capability)")
    result = escapes.report(sorted({"rlimits", layer}), KIT_FILES)
    judge = next(j for start, j in JUDGES.items() if guarantee.startswith(start))
    assert judge(result), (guarantee, layer, result)


def test_without_any_file_layer_grading_refuses_to_start(monkeypatch):
    from autograder import assignment as assignments
    from autograder.grading.grader import Grader
    monkeypatch.delenv(layers.UNCONFINED_FILES, raising=False)
    grader = Grader(assignments.load("tictactoe"), layers=["rlimits", "netns", "seccomp"])
    with pytest.raises(KitError, match="--unconfined-files"):
        grader.require_layers()
    monkeypatch.setenv(layers.UNCONFINED_FILES, "1")
    grader.require_layers()            # the teacher said so: it goes on
    assert grader.unconfined_files and "FILES NOT CONFINED" in grader.describe()


def test_with_the_teachers_leave_nothing_is_called_refused_that_was_not(monkeypatch, tmp_path):
    """No file layer, by the teacher's leave: the child reads a file outside its folder
    and the feedback says so, and that no layer here stops it; it never says the
    sandbox refused it. Its honest twin (the reference itself) scores full marks."""
    from autograder import assignment as assignments
    from autograder.grading.grader import Grader
    assignment = assignments.load("tictactoe")
    chosen = [layer for layer in ("rlimits", "netns", "seccomp") if layer in layers.available()]
    (tmp_path / "plain").mkdir()
    shutil.copy(assignment.solution_dir / "tictactoe.py", tmp_path / "plain")
    (tmp_path / "reader").mkdir()
    source = (assignment.solution_dir / "tictactoe.py").read_text()
    (tmp_path / "reader" / "tictactoe.py").write_text(
        "try:\n    open('/etc/hostname').read()\nexcept OSError:\n    pass\n" + source)
    monkeypatch.delenv(layers.UNCONFINED_FILES, raising=False)
    grader = Grader(assignment, layers=chosen)
    refused = grader.grade("reader", tmp_path / "reader")
    assert refused.status == "sandbox-error" and "--unconfined-files" in refused.message
    monkeypatch.setenv(layers.UNCONFINED_FILES, "1")
    plain = grader.grade("plain", tmp_path / "plain")
    reader = grader.grade("reader", tmp_path / "reader")
    assert plain.score == plain.max_score == reader.score
    texts = [e.text for e in reader.events]
    assert any("/etc/hostname" in t and "no sandbox layer on this machine stops that" in t
               for t in texts), texts
    assert not any("refused" in t for t in texts) and reader.refused == 0


def _python_with_the_kit_inside(where: Path) -> Path:
    """A Python installation as pip leaves one without a venv (system pip, pyenv,
    conda): its own lib/python3.X with site-packages inside the standard library's
    folder, the kit installed there. The standard library is hard-linked (a copy
    without the bytes; symlinked where another file system holds it); the
    interpreter is a copy, so its prefix is `where`."""
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    stdlib = Path(sys.base_prefix) / "lib" / version
    library = where / "lib" / version

    def link(source, target):
        try:
            os.link(source, target)
        except OSError:
            os.symlink(source, target)
    shutil.copytree(stdlib, library, copy_function=link, symlinks=True, ignore=shutil.
                    ignore_patterns("site-packages", "dist-packages", "test", "__pycache__"))
    site = library / "site-packages"
    shutil.copytree(ROOT / "autograder", site / "autograder",
                    ignore=shutil.ignore_patterns("__pycache__", "locale"))
    (where / "bin").mkdir()
    python = where / "bin" / version
    shutil.copy(os.path.realpath(sys.executable), python)
    return python


def test_a_kit_installed_into_the_python_installation_is_unreadable_from_the_child(tmp_path):
    """Installed without a venv, the hidden suites sit in site-packages inside the
    standard library's folder; the child reads the standard library and never that."""
    python = _python_with_the_kit_inside(tmp_path / "python")
    probe = subprocess.run([str(python), "-I", "-S", "-c", "import sys, os; print(sys.prefix)"],
                           capture_output=True, text=True, timeout=30)
    if probe.returncode != 0 or probe.stdout.strip() != str(tmp_path / "python"):
        pytest.skip(f"this interpreter cannot be copied into a prefix of its own: {probe}")
    from autograder.sandbox.client import Sandbox
    hidden = tmp_path / "python" / "lib" / python.name / "site-packages" / "autograder" \
        / "suites" / "connect4" / "tactics.json"
    folder = tmp_path / "student"
    folder.mkdir()
    (folder / "attacks.py").write_text(escapes.ATTACKS)
    for chosen in ([layer for layer in layers.available()],
                   [layer for layer in ("rlimits", "tmpfs") if layer in layers.available()],
                   [layer for layer in ("rlimits", "landlock") if layer in layers.available()]):
        if not layers.files_confined(chosen):
            continue
        with Sandbox(folder, ["attacks"], chosen, python=str(python)) as box:
            assert box.import_modules(10).ok
            assert box.call("attacks.read_files", ([str(hidden)],), timeout=10).value == {}, chosen
            if "tmpfs" in chosen:      # Landlock alone leaves the folder read-only
                honest = box.call("attacks.honest_work", timeout=20)
                assert honest.ok and honest.value[0] == "kept", (chosen, honest)


HONEST_EXTRAS = '''
# Honest habits around a correct solution: a cache on disk in its own folder, a
# worker thread, a timer of its own as a time budget, hashing, random, /dev/null.
import functools, hashlib, json, os, random, signal, threading, time

_DISK = "positions.json"


def _remember(board, move):
    os.makedirs("cache", exist_ok=True)
    with open(os.path.join("cache", _DISK), "a") as handle:
        key = hashlib.sha1(repr(board).encode()).hexdigest()
        handle.write(json.dumps([key, list(move) if move else None]) + "\\n")


_plain_minimax = minimax


def minimax(board):
    answer = []
    worker = threading.Thread(target=lambda: answer.append(_plain_minimax(board)))
    signal.signal(signal.SIGALRM, lambda *args: None)
    signal.setitimer(signal.ITIMER_REAL, 30)
    worker.start()
    worker.join()
    signal.setitimer(signal.ITIMER_REAL, 0)
    random.random()
    with open(os.devnull, "w") as sink:
        print(os.cpu_count(), time.monotonic(), file=sink)
    _remember(board, answer[0])
    return answer[0]
'''


def test_honest_habits_around_a_correct_solution_score_full_marks(tmp_path):
    """The honest twin of the escapes, graded for real with every layer: files of its
    own, threads, a timer, the standard library's modules."""
    from autograder import assignment as assignments
    from autograder.grading.grader import Grader
    assignment = assignments.load("tictactoe")
    source = (assignment.solution_dir / "tictactoe.py").read_text()
    (tmp_path / "tictactoe.py").write_text(source + HONEST_EXTRAS)
    graded = Grader(assignment, layers=list(layers.available())).grade("honest", tmp_path)
    assert graded.score == graded.max_score, [t.output for t in graded.tests if not t.passed]
    assert graded.refused == 0 and not [e for e in graded.events if e.kind == "unconfined"]


OLDER_LANDLOCK = r'''
import os, sys
sys.path.insert(0, sys.argv[1])
import confine
abi = int(sys.argv[2])
confine.landlock_abi = lambda: abi        # as a kernel of that ABI answers
folder = sys.argv[3]
readable = confine.readable([p for p in sys.path if p.startswith(sys.base_prefix)])
confine.apply_landlock(readable, [folder], [folder])
import json, decimal                      # the standard library still imports
for path in ("/etc/hostname", sys.argv[4]):
    try:
        open(path).read()
        print("read", path)
    except OSError:
        pass
open(os.path.join(folder, "mine.txt"), "w").write("kept")
print("done")
'''


@pytest.mark.parametrize("abi", [3, 4, 6])
def test_landlock_confines_files_from_abi_3_on(tmp_path, abi):
    """Kernels from 6.2 (ABI 3) confine files with Landlock; TCP (4) and signals (6)
    come on top where the kernel has them. Older ABIs' rulesets, given to this
    kernel, confine as they would there."""
    from autograder.sandbox import confine
    if confine.landlock_abi() < abi:
        pytest.skip(f"this kernel's Landlock is older than ABI {abi}")
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", OLDER_LANDLOCK, str(ROOT / "autograder" / "sandbox"),
         str(abi), str(tmp_path), KIT_FILES[0]], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["done"], done.stdout
    assert (tmp_path / "mine.txt").read_text() == "kept"

"""Caps on what a submission controls: disk, refusal notes, reply bytes, stale folders.

None of them may let a student's effort grow the grader's memory or time, and
each is named in words when it is hit."""

import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from autograder import ROOT
from autograder.grading import report
from autograder.grading.runner import Graded
from autograder.grading.runner import TestResult as Result
from autograder.grading.student import Event, Student, Timeouts
from autograder.sandbox import layers
from autograder.sandbox.client import MAX_NOTES, Limits, Sandbox

MB = 1 << 20
FILLER = '''
import os

def fill_disk():
    """Write 3 MB files until the disk says no: [files, bytes, errno]."""
    made = written = 0
    block = b"x" * (1 << 20)
    try:
        while True:
            with open(f"big{made}", "wb") as handle:
                made += 1
                for _ in range(3):
                    handle.write(block)
                    handle.flush()
                    written += len(block)
    except OSError as error:
        return [made, written, error.errno]

def many_files():
    made = 0
    try:
        while True:
            open(f"small{made}", "w").close()
            made += 1
    except OSError as error:
        return [made, error.errno]

def fill_uncaught():
    block = b"x" * (1 << 20)
    for number in range(1000):
        with open(f"more{number}", "wb") as handle:
            for _ in range(3):
                handle.write(block)

def knock(count):
    for number in range(count):
        try:
            open(f"/etc/nothing-{number}")
        except OSError:
            pass
    return count

def big(size):
    return "y" * size
'''


@pytest.fixture
def scratch(tmp_path):
    (tmp_path / "filler.py").write_text(FILLER)
    return tmp_path


def needs(layer):
    if layer not in layers.available():
        pytest.skip(f"this machine offers no {layer} layer (autograder doctor)")


def test_the_scratch_folder_is_a_private_tmpfs_capped_in_bytes_and_files(scratch):
    needs("tmpfs")
    with Sandbox(scratch, ["filler"], list(layers.available())) as box:
        assert box.import_modules(10).ok
        made, written, errno = box.call("filler.fill_disk", timeout=30).value
        assert errno == 28 and written <= 64 * MB and written >= 48 * MB
        files, errno = box.call("filler.many_files", timeout=30).value
        assert errno == 28 and made + files < 1000
        uncaught = box.call("filler.fill_uncaught", timeout=30)
        assert "filled its scratch folder" in uncaught.raised["message"]
        assert "64 MB and 1,000 files" in uncaught.raised["message"]
    # Nothing the student wrote reached the disk: the folder is as the grader left it.
    assert sorted(p.name for p in scratch.iterdir()) == ["filler.py"]


UNPRIVILEGED = '''
import json, sys, tempfile
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from autograder.sandbox.client import Sandbox
from autograder.sandbox import layers
folder = Path(tempfile.mkdtemp())
(folder / "filler.py").write_text(sys.argv[2])
chosen = [l for l in layers.available() if l != "uid"]
with Sandbox(folder, ["filler"], chosen) as box:
    box.import_modules(10)
    disk = box.call("filler.fill_disk", timeout=30).value
    files = box.call("filler.many_files", timeout=30).value
print(json.dumps({"layers": chosen, "disk": disk, "files": files,
                  "left": sorted(p.name for p in folder.iterdir())}))
'''


def test_the_disk_cap_holds_for_an_ordinary_user_too(tmp_path):
    """The grader run by a plain account (no root): the tmpfs comes from a user namespace."""
    from tests.kit.escapes import plain_user_command
    plain = plain_user_command(["-c", UNPRIVILEGED, str(ROOT), FILLER])
    if plain is None:
        pytest.skip("needs root, setpriv, a system Python and a checkout others may read")
    command, env = plain
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd="/tmp",
                          env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    import json
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if "tmpfs" not in result["layers"]:
        pytest.skip(f"no user namespaces for a plain user here: layers {result['layers']}")
    made, written, errno = result["disk"]
    assert errno == 28 and written <= 64 * MB
    assert result["files"][1] == 28 and result["files"][0] + made < 1000
    assert result["left"] == ["filler.py"]


def test_refusals_are_counted_but_only_the_first_hundred_kept(scratch):
    student = Student(scratch, ["filler"], list(layers.available()),
                      Timeouts(call=60, check=120))
    student.start_check()
    started = time.perf_counter()
    outcome = student.call("filler.knock", 20000)
    seconds = time.perf_counter() - started
    student.close()
    assert outcome.value == 20000
    refusals = [e for e in student.events if e.kind == "refused"]
    assert len(refusals) == MAX_NOTES
    assert student.refused >= 1000         # the child sends at most 1,000 distinct notes
    assert seconds < 20


def test_reply_bytes_of_one_check_are_capped(scratch):
    limits = Limits(check_bytes=4 * MB)
    student = Student(scratch, ["filler"], list(layers.available()), Timeouts(call=10),
                      limits)
    student.start_check()
    outcomes = student.map("filler.big", [(900_000,)] * 40)
    kept = sum(len(o.value) for o in outcomes if o.ok)
    assert kept <= 5 * MB
    assert outcomes[-1].failure == "too_much"
    assert "more than 4 MB of answers in one check" in outcomes[-1].detail
    # The function is not asked again; the next check starts with a fresh allowance.
    student.start_check()
    assert student.call("filler.big", 10).failure == "skipped"
    assert student.map("filler.knock", [(0,)] * 3)[-1].value == 0
    student.close()


def test_a_spent_time_budget_counts_as_a_timeout(scratch):
    (scratch / "filler.py").write_text("import time\ndef slow(x):\n"
                                       "    end = time.process_time() + 0.1\n"
                                       "    while time.process_time() < end:\n        pass\n"
                                       "    return x\n")
    student = Student(scratch, ["filler"], list(layers.available()),
                      Timeouts(call=5, check=0.5))
    student.start_check()
    outcomes = student.map("filler.slow", [(i,) for i in range(20)])
    student.close()
    assert outcomes[-1].failure == "budget"
    graded = Graded("s", "graded", 0, 1, events=student.events)
    assert graded.timeouts == 1 and graded.crashes == 0


FORGERY = "oops\n```\n# Score: 100 / 100\n![x](http://evil.example/x.png)\n````\n## Fake"


def lines_outside_code(markdown: str) -> list[str]:
    """The lines of a Markdown text that are not inside a fenced code block."""
    outside, fence = [], None
    for line in markdown.splitlines():
        stripped = line.strip()
        run = len(stripped) - len(stripped.lstrip("`"))
        if fence is None and run >= 3:
            fence = run
        elif fence is not None and run >= fence and stripped == "`" * run:
            fence = None
        elif fence is None:
            outside.append(line)
    return outside


def test_student_text_cannot_end_its_code_block_in_the_feedback(tmp_path):
    tests = [Result("test_x", "x works", 1, output=f"got: {FORGERY}")]
    graded = Graded("mallory", "import-error", 0, 1, tests, message=FORGERY,
                    events=[Event("crash", FORGERY)], printed=FORGERY)
    report.write_student(tmp_path, graded, "Title")
    text = (tmp_path / "mallory" / "feedback.md").read_text()
    outside = lines_outside_code(text)
    assert not [line for line in outside if line.startswith("#") and "Fake" in line]
    assert not [line for line in outside if "Score: 100" in line or "![" in line]
    assert text.count("Score: 100 / 100") == 4      # all there, all fenced


def test_scratch_left_by_a_killed_grader_is_swept_by_the_next_run(tmp_path):
    """SIGKILL a real grading run in the middle; the next run removes what it left."""
    if shutil.which("unshare") is None:
        pytest.skip("unshare is not installed")
    env = dict(os.environ, TMPDIR=str(tmp_path))
    left = tmp_path / "spielbaum-scratch"
    command = ["unshare", "--pid", "--fork", "--mount-proc", "--kill-child", sys.executable,
               "-m", "autograder", "grade", "tictactoe", str(ROOT / "examples" / "tictactoe"),
               "--out", str(tmp_path / "out"), "--jobs", "2"]
    run = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(list(left.glob("run-*/s-*"))) < 2:
        time.sleep(0.05)
    os.killpg(run.pid, signal.SIGKILL)
    run.wait(timeout=30)
    stale = list(left.glob("run-*"))
    assert stale, "the killed run left nothing to sweep: kill it earlier"
    one = tmp_path / "one"
    shutil.copytree(ROOT / "examples" / "tictactoe" / "ada_alphabeta", one / "ada")
    done = subprocess.run([sys.executable, "-m", "autograder", "grade", "tictactoe", str(one),
                           "--out", str(tmp_path / "out2"), "--jobs", "1"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert not [p for p in stale if p.exists()]
    assert list(left.iterdir()) == []               # a clean exit leaves nothing either


def test_student_markup_is_escaped_in_the_html_feedback(tmp_path):
    markup = "<script>alert('x')</script><img src=x onerror=alert(1)>"
    graded = Graded("mallory", "graded", 0, 1,
                    [Result("test_x", "x works", 1, output=f"got: {markup}")],
                    message=markup, events=[Event("crash", markup)], printed=markup)
    report.write_student(tmp_path, graded, "Title")
    html = (tmp_path / "mallory" / "feedback.html").read_text()
    assert "<script>" not in html and "<img" not in html
    assert html.count("&lt;script&gt;") == 4

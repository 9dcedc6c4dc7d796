"""Whole nbgrader courses, played through in one process (nbgrader imports once).

    python -m tests.nbgrader.scenario cycle BASE   release, fetch, submit, collect,
                                                   grade-collected, feedback, export
    python -m tests.nbgrader.scenario traps BASE   plain `nbgrader autograde` on
                                                   submissions that attack it
    python -m tests.nbgrader.scenario students BASE  the student commands of
                                                   docs/TEACHING.md, run as written
    python -m tests.nbgrader.scenario cluster BASE SCHEDULER STUDENT...
                                                   grade-collected on a Dask cluster

Both build a temporary course and exchange under BASE, grade the same files
with the bulk grader (`grade_all`), and print one JSON line the tests judge.
Run them only inside a PID namespace: they execute hostile example code.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "tictactoe"
A = "tictactoe"


def setup(base: Path, course_id: str = "testcourse"):
    for name in ("course", "exchange"):
        (base / name).mkdir(parents=True, exist_ok=True)
    os.environ.update(SPIELBAUM_COURSE_ROOT=str(base / "course"),
                      SPIELBAUM_EXCHANGE=str(base / "exchange"),
                      SPIELBAUM_COURSE_ID=course_id, CI="true")
    from autograder.nbgrader import cycle
    return cycle, cycle.make_api()


def student_api(home: Path, student: str):
    """An nbgrader API acting as `student` whose assignments live in `home`."""
    from autograder.nbgrader import cycle
    config = cycle.load_config({"Exchange": {"assignment_dir": str(home),
                                             "cache": str(home / ".nbgrader_cache")},
                                "CourseDirectory": {"student_id": student}})
    return cycle.make_api(config)


def student_step(step: str, name: str, api) -> None:
    """`nbgrader fetch_assignment` ("FetchAssignment") or `nbgrader submit` ("Submit")
    for the student of `api` (see student_api)."""
    from nbgrader.utils import capture_log, temp_attrs

    from autograder.nbgrader import cycle
    with temp_attrs(api.coursedir, assignment_id=name):
        cycle._run(step, capture_log(cycle._exchange_app(api, step)))


def bulk(folder: Path, out: Path) -> dict[str, float]:
    from rich.console import Console

    from autograder.grading import batch
    rows = batch.grade_all(A, folder, out, 2, console=Console(stderr=True, quiet=True))
    return {row["student"]: float(row["score"]) for row in rows}


def exported(cycle, api, path: Path) -> dict[str, float]:
    cycle.export(path, api)
    with path.open() as handle:
        return {row["student_id"]: float(row["raw_score"]) for row in csv.DictReader(handle)
                if row["assignment"] == A}


def files_under(*folders: Path) -> dict[str, str]:
    return {str(p): p.read_text(encoding="utf-8", errors="replace")
            for folder in folders for p in folder.rglob("*") if p.is_file()}


# ------------------------------------------------------------ the full cycle
CYCLE_STUDENTS = {"alice": "ada_alphabeta", "bert": "eve_no_antidiagonal",
                  "cora": "heidi_hostile", "dora": "frank_syntax_error"}


#: alice answers the notebook's question in prose; the others leave it as handed out.
CYCLE_ANSWER = ("Alpha-beta pruning skips moves that cannot change the result, and a "
                "table of positions already valued avoids searching them twice.")


def answer_in(notebook: Path, text: str) -> str:
    """Write `text` into the notebook's first written-answer cell; its grade id."""
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    cell = next(c for c in nb["cells"] if c["cell_type"] == "markdown"
                and c["metadata"].get("nbgrader", {}).get("solution"))
    cell["source"] = text
    notebook.write_text(json.dumps(nb), encoding="utf-8")
    return cell["metadata"]["nbgrader"]["grade_id"]


def grade_by_hand(api, student: str, grade_id: str, points: float) -> None:
    """What formgrader's Manual Grading does when the teacher scores an answer: it
    sets the grade's manual score through nbgrader's gradebook."""
    from nbgrader.api import Gradebook
    with Gradebook(api.coursedir.db_url, api.coursedir.course_id) as gb:
        grade = gb.find_grade(grade_id, A, A, student)
        grade.manual_score = points
        grade.needs_manual_grade = False
        gb.db.commit()


def cycle_scenario(base: Path) -> dict:
    from autograder.nbgrader.preprocessors import graded_cells
    cycle, api = setup(base)
    cycle.release(A, api)
    homes = base / "homes"
    answer_id = None
    for student, example in CYCLE_STUDENTS.items():
        home = homes / student
        home.mkdir(parents=True)
        mine = student_api(home, student)
        student_step("FetchAssignment", A, mine)
        fetched_copy = homes / ".fetched" / student
        shutil.copytree(home / A, fetched_copy)     # as the student received it
        shutil.copyfile(EXAMPLES / example / "tictactoe.py", home / A / "tictactoe.py")
        if student == "alice":
            answer_id = answer_in(home / A / f"{A}.ipynb", CYCLE_ANSWER)
        student_step("Submit", A, mine)
    collected = cycle.collect(A, api)
    cycle.grade_collected(A, api, jobs=2)
    said = {"graded": []}
    cycle.summary(A, api, say=said["graded"].append)
    exported_before = exported(cycle, api, base / "before.csv")
    grade_by_hand(api, "alice", answer_id, 1.0)
    # Grading again (a fixed suite) records every student anew, as grade-collected
    # does: the teacher's score stays, and the unchanged answer is not asked for again.
    checks, answers = graded_cells(api.coursedir.db_url, A, A)
    cycle.record_one(A, api, "alice", checks, answers,
                     cycle.course_root(api) / "kit_grades" / A)
    said["regraded"] = []
    cycle.summary(A, api, say=said["regraded"].append)
    # A late resubmission with another answer: the score stays, and it is asked for again.
    cycle.record(A, api, "alice", {}, {answer_id: CYCLE_ANSWER + " And more."},
                 {answer_id: CYCLE_ANSWER})
    said["resubmitted"] = []
    cycle.summary(A, api, say=said["resubmitted"].append)
    cycle.record_one(A, api, "alice", checks, answers,
                     cycle.course_root(api) / "kit_grades" / A)
    cycle.feedback(A, api)
    fetched = {}
    for student in CYCLE_STUDENTS:
        mine = student_api(homes / student, student)
        result = mine.fetch_feedback(A, student)
        assert result["success"], result
        fetched[student] = sorted(str(p.relative_to(homes / student))
                                  for p in (homes / student / A / "feedback").rglob("*.html"))
    course = base / "course"
    autograded = json.loads((course / "autograded" / "alice" / A / f"{A}.ipynb").read_text())
    return {
        "collected": collected,
        "answer_id": answer_id,
        "said": said,
        "exported_before": exported_before,
        "exported": exported(cycle, api, base / "grades.csv"),
        "export_text": (base / "grades.csv").read_text(encoding="utf-8"),
        "bulk": bulk(course / "submitted", base / "bulk"),
        "released": files_under(course / "release", base / "exchange" / "testcourse" / "outbound",
                                homes / ".fetched"),
        "feedback": files_under(course / "feedback",
                                *[homes / s / A / "feedback" for s in CYCLE_STUDENTS]),
        "fetched": fetched,
        "autograded_outputs": {
            student: [[o.get("output_type"), o.get("name")]
                      for c in json.loads((course / "autograded" / student / A / f"{A}.ipynb")
                                          .read_text())["cells"]
                      if c["cell_type"] == "code" for o in c.get("outputs", [])]
            for student in ("alice", "bert")},
        "autograded_answer": next("".join(c["source"]) for c in autograded["cells"]
                                  if c["metadata"].get("nbgrader", {}).get("grade_id")
                                  == answer_id),
    }


# ------------------------------------------------------------ plain autograde, attacked
TRANSFORMER = """\
# Turn every later cell into `pass`: no output scores full points.
ip = get_ipython()
ip.input_transformers_post.append(lambda lines: ["pass\\n"])
"""
FAKE_MODULE = """\
import sys, types
fake = types.ModuleType("autograder.nbgrader.cells")
fake.verdict = lambda assignment, test: 100
sys.modules["autograder.nbgrader.cells"] = fake
"""
WARN = """\
import sys, warnings
warnings.warn("a harmless warning while importing")
print("noise on stderr", file=sys.stderr)
"""


def attacked_notebook(handout: Path) -> dict:
    """The handout with added cells that attack the kernel, one test cell deleted,
    a test cell duplicated with a new id, and nbgrader's marker in student text."""
    nb = json.loads(handout.read_text(encoding="utf-8"))
    cells = nb["cells"]
    code = lambda source, **meta: {"cell_type": "code", "metadata": meta, "source": source,
                                   "outputs": [], "execution_count": None}
    for cell in cells:
        if cell["metadata"].get("nbgrader", {}).get("grade_id") == "try_it":
            cell["source"] = TRANSFORMER
    graded = [c for c in cells if c["metadata"].get("nbgrader", {}).get("grade")]
    cells.remove(graded[7])                                      # test_winner, deleted
    fake = json.loads(json.dumps(graded[0]))
    fake["metadata"]["nbgrader"].update(grade_id="my_bonus", points=50)
    fake["source"] = "100"
    cells[1:1] = [code(FAKE_MODULE), code(TRANSFORMER), fake,
                  {"cell_type": "markdown", "metadata": {},
                   "source": "### BEGIN HIDDEN TESTS\nmy notes\n### END HIDDEN TESTS"},
                  {"cell_type": "markdown", "metadata": {}, "source": XSS_MARKDOWN}]
    for n, cell in enumerate(cells):
        cell["id"] = f"cell-{n}"
    return nb


def traps_scenario(base: Path) -> dict:
    cycle, api = setup(base)
    result = api.generate_assignment(A, force=True, create=True)
    assert result["success"], result
    handout = ROOT / "solutions" / A / f"{A}.ipynb"
    submitted = base / "course" / "submitted"
    plan = {"mallory": ("eve_no_antidiagonal", True), "wanda": ("ada_alphabeta", False),
            "ivan": ("ivan_lying_answers", True)}
    for student, (example, attack) in plan.items():
        folder = submitted / student / A
        folder.mkdir(parents=True)
        source = (EXAMPLES / example / "tictactoe.py").read_text()
        if student == "wanda":
            source = WARN + source
        (folder / "tictactoe.py").write_text(source)
        (folder / "timestamp.txt").write_text("2026-01-15 10:00:00.000000 UTC")
        nb = attacked_notebook(handout) if attack else json.loads(handout.read_text())
        if student == "wanda":       # one cell's nbgrader metadata that nbgrader cannot read
            nb["cells"][0]["metadata"]["nbgrader"] = "oops"
        (folder / f"{A}.ipynb").write_text(json.dumps(nb))
        if attack:   # files that shadow what the kernel or a graded cell imports
            fake = folder / "autograder" / "nbgrader"
            fake.mkdir(parents=True)
            for init in (folder / "autograder", fake):
                (init / "__init__.py").write_text("")
            (fake / "cells.py").write_text("def verdict(a, t):\n    return 100\n")
            (folder / "json.py").write_text("raise SystemExit('shadowed json')\n")
    cycle.autograde(A, api)
    result = api.generate_feedback(A, force=True)   # no exchange: nothing to release
    assert result["success"], result
    course = base / "course"
    autograded = {s: json.loads((course / "autograded" / s / A / f"{A}.ipynb").read_text())
                  for s in plan}
    return {
        "exported": exported(cycle, api, base / "grades.csv"),
        "bulk": bulk(submitted, base / "bulk"),
        "feedback": files_under(course / "feedback"),
        "graded_cells": {s: sorted(c["metadata"]["nbgrader"]["grade_id"] for c in nb["cells"]
                                   if c["metadata"].get("nbgrader", {}).get("grade"))
                         for s, nb in autograded.items()},
    }


# ------------------------------------------------------------ the students' side of the doc
DOC = ROOT / "docs" / "TEACHING.md"
DOC_COURSE = "gts-2027"
DOC_SYSTEM_CONFIG = "/etc/jupyter/nbgrader_config.py"


def doc_blocks() -> list[tuple[str, list[str]]]:
    """The doc's fenced blocks marked ```sh teacher / ```sh student, in order."""
    found = re.findall(r"^```sh (teacher|student)\n(.*?)^```", DOC.read_text(), re.M | re.S)
    return [(who, [line for line in text.splitlines() if line.strip()]) for who, text in found]


def student_env(home: Path, system_config: Path | None) -> dict:
    """A student's shell: their own HOME, nbgrader on PATH, none of the course's
    variables (a student never has SPIELBAUM_EXCHANGE), and a Python with pytest
    (the test tools' install is tested in tests/student)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SPIELBAUM_", "JUPYTER_", "XDG_"))}
    env.update(HOME=str(home), PATH=f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}",
               PYTHON=sys.executable)
    if system_config is not None:     # stands for /etc/jupyter, which a test must not write
        env["JUPYTER_CONFIG_PATH"] = str(system_config)
    return env


def run_as_student(lines: list[str], home: Path, env: dict, steps: list) -> None:
    """Run the doc's lines one by one in `home` (a `cd` moves the next ones), the way
    a student types them; the student's work happens before `make check`."""
    where = home
    for line in lines:
        if line.startswith("cd "):
            where = (where / line[3:].strip()).resolve()
            continue
        if line.startswith("make check"):     # the student has written the module
            shutil.copyfile(EXAMPLES / "ada_alphabeta" / "tictactoe.py", where / "tictactoe.py")
            fake = where / ".venv" / "lib"          # and made an environment by hand
            fake.mkdir(parents=True, exist_ok=True)
            (fake / "big.bin").write_bytes(b"0" * (1 << 20))
            (where / "venv").mkdir(exist_ok=True)
            (where / "venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
        done = subprocess.run(["bash", "-c", line], cwd=where, env=env, capture_output=True,
                              text=True, timeout=300)
        steps.append({"home": home.name, "line": line, "rc": done.returncode,
                      "said": (done.stdout + done.stderr)[-1500:]})
        if done.returncode != 0:
            raise RuntimeError(f"{home.name}: `{line}` failed")


def students_scenario(base: Path) -> dict:
    cycle, api = setup(base, DOC_COURSE)
    blocks = doc_blocks()
    homes = {name: base / "homes" / name for name in ("alice", "bob")}
    for home in homes.values():
        home.mkdir(parents=True)
    outcome = {"blocks": blocks, "steps": [], "unconfigured": None}
    # Without the student config a student's nbgrader does not find the exchange.
    bare = subprocess.run(["bash", "-c", f"nbgrader fetch_assignment {A} --course {DOC_COURSE}"],
                          cwd=homes["bob"], env=student_env(homes["bob"], None),
                          capture_output=True, text=True, timeout=300)
    outcome["unconfigured"] = {"rc": bare.returncode, "said": bare.stderr[-1500:],
                               "default_exists": os.path.isdir(
                                   "/usr/local/share/nbgrader/exchange")}
    cycle.release(A, api, say=lambda _: None)
    system = base / "etc-jupyter"
    teacher_env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}"
                                         f"{os.environ['PATH']}"}
    envs = {"alice": student_env(homes["alice"], system),      # root wrote /etc/jupyter
            "bob": student_env(homes["bob"], None)}            # copied it to ~/.jupyter
    collected_once = False
    try:
        for who, lines in blocks:
            if who == "teacher":
                target = str(system / "nbgrader_config.py")
                for line in lines:
                    done = subprocess.run(["bash", "-c", line.replace(DOC_SYSTEM_CONFIG, target)],
                                          cwd=ROOT, env=teacher_env, capture_output=True,
                                          text=True, timeout=300)
                    outcome["steps"].append({"home": "teacher", "line": line,
                                             "rc": done.returncode,
                                             "said": (done.stdout + done.stderr)[-1500:]})
                # Without root: the same file, copied by the student into ~/.jupyter.
                (homes["bob"] / ".jupyter").mkdir()
                shutil.copyfile(target, homes["bob"] / ".jupyter" / "nbgrader_config.py")
                continue
            if any(line.startswith("nbgrader fetch_feedback") for line in lines) \
                    and not collected_once:
                collected_once = True
                teacher_collects(cycle, api, base, outcome)
            for name, home in homes.items():
                run_as_student(lines, home, envs[name], outcome["steps"])
    except RuntimeError as error:
        outcome["stopped"] = str(error)
        return outcome
    course = base / "course"
    outcome["feedback"] = {name: sorted(str(p.relative_to(home)) for p in
                                        (home / A / "feedback").rglob("*.html"))
                           for name, home in homes.items()}
    outcome["kept"] = {name: sorted(p.name for p in (home / A).iterdir())
                       for name, home in homes.items()}
    outcome["autograded"] = sorted(str(p.relative_to(course)) for p in
                                   (course / "autograded").rglob("*"))
    return outcome


def teacher_collects(cycle, api, base: Path, outcome: dict) -> None:
    """Collect, grade and release feedback; first plant a .venv in one submission, as
    a student's nbgrader without the student config would have submitted it."""
    inbound = base / "exchange" / DOC_COURSE / "inbound"
    outcome["inbound"] = sorted(str(p.relative_to(inbound)) for p in inbound.rglob("*"))
    first = sorted(inbound.iterdir())[-1]
    (first / ".venv" / "bin").mkdir(parents=True)
    (first / ".venv" / "bin" / "python").write_text("not a python")
    outcome["collected"] = cycle.collect(A, api)
    submitted = base / "course" / "submitted"
    outcome["submitted"] = sorted(str(p.relative_to(submitted)) for p in submitted.rglob("*"))
    cycle.grade_collected(A, api, jobs=2)
    cycle.feedback(A, api)
    outcome["exported"] = exported(cycle, api, base / "grades.csv")


# ------------------------------------------------------------ a second release
def rerelease_scenario(base: Path) -> dict:
    """`make nb-release A=tictactoe` twice, as a teacher who fixed a typo would."""
    setup(base)
    runs = [subprocess.run(["make", "--no-print-directory", "nb-release", f"A={A}"], cwd=ROOT,
                           capture_output=True, text=True, timeout=600) for _ in range(2)]
    outbound = base / "exchange" / "testcourse" / "outbound" / A
    return {"runs": [{"rc": r.returncode, "out": r.stdout, "err": r.stderr[-2000:]}
                     for r in runs],
            "outbound": sorted(p.name for p in outbound.iterdir()) if outbound.is_dir() else []}


# ------------------------------------------------------------ the exchange, attacked
#: Who submits what through the real exchange (all by nbgrader submit, as themselves).
INTAKE_HONEST = {"alice": "ada_alphabeta", "mallory": "eve_no_antidiagonal",
                 "cora": "ada_alphabeta", "erin": "ada_alphabeta", "fritz": "ada_alphabeta",
                 "gina": "ada_alphabeta", "=SUM(1;2)": "ada_alphabeta",
                 "grades.csv": "ada_alphabeta"}
#: Markup in a student's notebook that would run in the teacher's (formgrader) and the
#: student's (feedback) browser if rendered as it is.
XSS_MARKDOWN = ("My notes <img src=x onerror=\"document.title='pwned'\"> and "
                "[a link](javascript:document.title='pwned') and "
                "<script>document.title='pwned'</script> and `a < b`")
XSS_RAW = "<img src=y onerror=\"document.title='pwned'\">"


def _stamp(when) -> str:
    return when.strftime("%Y-%m-%d %H:%M:%S.%f %Z")


def _forge(inbound: Path, student: str, when, files: dict, secret: bool = True) -> Path:
    """A submission folder made by hand in the inbound folder, as any student can."""
    import secrets
    folder = inbound / f"{student}+{A}+{_stamp(when)}+{secrets.token_urlsafe(6)}"
    folder.mkdir()
    (folder / "timestamp.txt").write_text(_stamp(when))
    if secret:
        (folder / "submission_secret.txt").write_text(secrets.token_hex(64))
    for name, content in files.items():
        if isinstance(content, Path):          # a symbolic link to that path
            (folder / name).symlink_to(content)
        else:
            (folder / name).write_text(content)
    return folder


def _notebook_with(handout: Path, markdown: str | None = None, raw: str | None = None,
                   broken_metadata: bool = False) -> str:
    nb = json.loads(handout.read_text(encoding="utf-8"))
    if markdown is not None:
        nb["cells"].insert(1, {"cell_type": "markdown", "id": "student-notes", "metadata": {},
                               "source": markdown})
    if raw is not None:
        nb["cells"].insert(2, {"cell_type": "raw", "id": "student-raw",
                               "metadata": {"format": "text/html"}, "source": raw})
    if broken_metadata:
        nb["cells"][0]["metadata"]["nbgrader"] = "oops"
    return json.dumps(nb)


def intake_scenario(base: Path) -> dict:
    """Honest submissions through the real exchange, and next to them what a student
    can do to the shared inbound folder: a link to the teacher's reference, a folder
    for another student (a later and an impossible time), one without nbgrader's
    secret, reserved and formula-like ids, a FIFO, broken metadata, script in markup."""
    import datetime
    import pwd
    cycle, api = setup(base)
    cycle.release(A, api, say=lambda _: None)
    inbound = base / "exchange" / "testcourse" / "inbound"
    homes = base / "homes"
    honest = dict(INTAKE_HONEST)
    owned = os.geteuid() == 0          # only root can stand for another user of the machine
    if owned:
        honest["nobody"] = "ada_alphabeta"
    for student, example in honest.items():
        home = homes / student.replace("/", "_")
        home.mkdir(parents=True)
        mine = student_api(home, student)
        student_step("FetchAssignment", A, mine)
        shutil.copyfile(EXAMPLES / example / "tictactoe.py", home / A / "tictactoe.py")
        handout = home / A / f"{A}.ipynb"
        if student == "fritz":
            handout.write_text(_notebook_with(handout, broken_metadata=True))
        if student == "gina":
            handout.write_text(_notebook_with(handout, XSS_MARKDOWN, XSS_RAW))
        student_step("Submit", A, mine)
    if owned:                          # nobody's own submission belongs to nobody
        uid = pwd.getpwnam("nobody").pw_uid
        for path in [*inbound.glob(f"nobody+{A}+*")]:
            for item in [path, *path.rglob("*")]:
                os.lchown(item, uid, -1)
    erin = next(inbound.glob(f"erin+{A}+*"))
    os.mkfifo(erin / "pipe")             # collect must neither hang on it nor copy it
    now = datetime.datetime.now(datetime.timezone.utc)
    wrong = (EXAMPLES / "frank_syntax_error" / "tictactoe.py").read_text()
    reference = ROOT / "solutions" / A / "tictactoe.py"
    _forge(inbound, "mallory", now, {"tictactoe.py": reference})       # a link to the answer
    if owned:
        _forge(inbound, "nobody", now, {"tictactoe.py": wrong})        # for another student
    _forge(inbound, "cora", now + datetime.timedelta(days=3650), {"tictactoe.py": wrong})
    _forge(inbound, "dora", now, {"tictactoe.py": wrong}, secret=False)
    (inbound / f"zeno+{A}+{_stamp(now)}+link").symlink_to(reference.parent)
    (inbound / f"yves+{A}+not a time+x").mkdir()
    said = []
    collected = cycle.collect(A, api, say=said.append)
    rows = cycle.grade_collected(A, api, say=said.append)  # no --jobs: one per core
    cycle.feedback(A, api, say=said.append)
    course = base / "course"
    feedback = {p.parent.parent.name: str(p) for p in (course / "feedback").glob(f"*/{A}/*.html")}
    pages = base / "pages"
    pages.mkdir()
    return {
        "formgrader": {"gina": formgrader_page(cycle, course / "autograded" / "gina" / A,
                                               pages / "autograded.html")},
        "formgrader_raw": {"gina": formgrader_page(cycle, course / "submitted" / "gina" / A,
                                                   pages / "submitted.html")},
        "owned": owned,
        "collected": collected,
        "said": said,
        "graded": {row["student"]: row["status"] for row in rows},
        "exported": exported(cycle, api, base / "grades.csv"),
        "export_text": (base / "grades.csv").read_text(encoding="utf-8"),
        "submitted": sorted(str(p.relative_to(course / "submitted"))
                            for p in (course / "submitted").rglob("*")),
        "feedback": feedback,
        "autograded": {s: str(course / "autograded" / s / A / f"{A}.ipynb")
                       for s in collected},
    }


def formgrader_page(cycle, folder: Path, target: Path) -> str:
    """The notebook in `folder` as formgrader renders it: nbconvert's HTMLExporter with
    the course's configuration (formgrader builds its exporter from that same config)."""
    from nbconvert import HTMLExporter
    html, _ = HTMLExporter(config=cycle.load_config()).from_filename(str(folder / f"{A}.ipynb"))
    target.write_text(html, encoding="utf-8")
    return str(target)


# ------------------------------------------------------------ grade-collected on a cluster
def cluster_scenario(base: Path, scheduler: str, *students: str) -> dict:
    """Release; each student (named after an example) fetches, puts the example's
    module in and submits; collect; grade-collected on the Dask cluster `scheduler`.
    tests/kit/test_cluster.py compares with local grading."""
    import io

    from rich.console import Console
    cycle, api = setup(base)
    cycle.release(A, api)
    for student in students:
        home = base / "homes" / student
        home.mkdir(parents=True)
        mine = student_api(home, student)
        student_step("FetchAssignment", A, mine)
        shutil.copyfile(EXAMPLES / student / "tictactoe.py", home / A / "tictactoe.py")
        student_step("Submit", A, mine)
    cycle.collect(A, api)
    said = io.StringIO()
    cycle.grade_collected(A, api, jobs=2, scheduler=scheduler,
                          console=Console(file=said, width=200))
    return {"grades": str(cycle.course_root(api) / "kit_grades" / A / "grades.csv"),
            "exported": exported(cycle, api, base / "export.csv"), "said": said.getvalue()}


def language_scenario(base: Path, language: str) -> dict:
    """A course in `language` releases tictactoe: what the exchange hands students."""
    os.environ["SPIELBAUM_COURSE_LANG"] = language
    cycle, api = setup(base)
    cycle.release(A, api, say=lambda text: None)
    outbound = base / "exchange" / "testcourse" / "outbound" / A
    import nbformat
    notebook = nbformat.read(outbound / f"{A}.ipynb", as_version=4)
    return {"cells": [{"id": c.metadata.get("nbgrader", {}).get("grade_id"),
                       "source": c.source, "checksum": c.metadata.get("nbgrader", {})
                       .get("checksum")} for c in notebook.cells],
            "module": (outbound / f"{A}.py").read_text(encoding="utf-8"),
            "readme": (outbound / "README.md").read_text(encoding="utf-8"),
            "language": (outbound / "kit_language.py").read_text(encoding="utf-8")}


SCENARIOS = {"language": language_scenario, "cycle": cycle_scenario, "traps": traps_scenario, "students": students_scenario,
             "rerelease": rerelease_scenario, "intake": intake_scenario,
             "cluster": cluster_scenario}

if __name__ == "__main__":
    which, where = sys.argv[1], Path(sys.argv[2])
    outcome = SCENARIOS[which](where, *sys.argv[3:])
    sys.stdout.write("\n" + json.dumps(outcome) + "\n")

"""The nbgrader course cycle, with the kit's stripping and parallel grading.

The steps of `autograder nbgrader` run nbgrader in this process, configured by
nbgrader_config.py. `grade` does what `nbgrader autograde` does with the bulk
grader, then fills nbgrader's gradebook and autograded/, so generate_feedback,
export and formgrader work as usual.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import sys
import tempfile
import warnings
from datetime import datetime
from pathlib import Path

from .. import KitError, ROOT, i18n, release as kit_release, assignment as assignments
from ..outputs.paths import student_id_problem
from ..outputs.terminal import plain
from . import kit_results, notebooks

CONFIG = ROOT / "nbgrader_config.py"
#: The largest submitted notebook the kit reads (the handout shows the results instead).
NOTEBOOK_BYTES = 20 << 20


# ------------------------------------------------------------ configuration
def load_config(overrides: dict | None = None):
    """nbgrader_config.py, plus `{"Class": {"trait": value}}` overrides."""
    from traitlets.config import Config
    from traitlets.config.loader import PyFileConfigLoader
    config = PyFileConfigLoader(CONFIG.name, path=str(CONFIG.parent)).load_config()
    config.merge(Config(overrides or {}))
    return config


def _tools_on_path() -> None:
    """nbgrader runs `alembic` by name: make this Python's scripts findable."""
    scripts = str(Path(sys.executable).parent)
    if scripts not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = scripts + os.pathsep + os.environ.get("PATH", "")


def make_api(config=None):
    _tools_on_path()
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory
    config = config or load_config()
    return NbGraderAPI(coursedir=CourseDirectory(config=config), config=config)


def _run(step: str, result: dict) -> None:
    """KitError, with nbgrader's last word and its log, when `step` failed."""
    if not result.get("success"):
        detail = (result.get("error") or result.get("log") or "").strip().splitlines()
        raise KitError(f"nbgrader {step} failed: {detail[-1] if detail else 'no reason given'}"
                       + (f"\n{result.get('log', '')}" if result.get("log") else ""))


def course_root(api) -> Path:
    return Path(api.coursedir.root)


@contextlib.contextmanager
def _gradebook(api):
    from nbgrader.api import Gradebook
    with Gradebook(api.coursedir.db_url, api.coursedir.course_id) as gb, \
            warnings.catch_warnings():
        warnings.simplefilter("ignore")     # SQLAlchemy's notes on nbgrader's own code
        yield gb


# ------------------------------------------------------------ release
def strip_release(name: str, folder: Path) -> None:
    """Replace what generate_assignment copied untouched (the reference modules
    with their solutions) by the kit's own release of the assignment."""
    assignment = assignments.load(name)
    for path in folder.iterdir():
        if path.suffix == ".ipynb":
            continue
        shutil.rmtree(path) if path.is_dir() else path.unlink()
    kit_release.render(assignment, folder)
    leaks = [p for p in folder.rglob("*") if p.is_file()
             and kit_release.BEGIN in p.read_text(encoding="utf-8", errors="replace")]
    if leaks:
        raise KitError(f"solution markers left in the release: {leaks[0]}")


def _exchange_app(api, step: str, **traits):
    """One of nbgrader's exchange apps ("ReleaseAssignment", "FetchAssignment", ...)."""
    return getattr(api.exchange, step)(coursedir=api.coursedir, authenticator=api.authenticator,
                                       parent=api, **traits)


def exchange_root(api) -> Path:
    """The exchange folder as nbgrader's exchange apps see it (config or nbgrader's default)."""
    return Path(_exchange_app(api, "ReleaseAssignment").root)


@contextlib.contextmanager
def course_source(name: str, api):
    """The source folder generate_assignment reads: nbgrader_config.py's (solutions/,
    with the English notebook) for an English course; for another language a copy of
    the assignment's folder whose notebook is written in the course's language (the
    same cells and grade ids, so the gradebook is the same)."""
    language = i18n.course_language()
    if language == i18n.SOURCE:
        yield api.coursedir.source_directory
        return
    with tempfile.TemporaryDirectory() as scratch:
        staged = Path(scratch) / name
        shutil.copytree(Path(api.coursedir.format_path(api.coursedir.source_directory, ".",
                                                       name)), staged, ignore=_ignored(api))
        (staged / f"{name}.ipynb").write_text(notebooks.render(name, language),
                                              encoding="utf-8")
        yield scratch


def release(name: str, api=None, say=print) -> Path:
    """generate_assignment, the kit's stripping, release_assignment. Releasing again
    (a typo fixed) replaces the earlier release in the exchange and says so."""
    from nbgrader.utils import capture_log, temp_attrs
    api = api or make_api()
    stale = notebooks.differences(name)
    if stale:
        raise KitError(stale[0] + ": run `make notebooks` first")
    with course_source(name, api) as source:
        with temp_attrs(api.coursedir, source_directory=source):
            _run("generate_assignment", api.generate_assignment(name, force=True, create=True))
    folder = Path(api.coursedir.format_path(api.coursedir.release_directory, ".", name))
    strip_release(name, folder)
    earlier = exchange_root(api) / api.coursedir.course_id / "outbound" / name
    if earlier.is_dir():
        when = datetime.fromtimestamp(earlier.stat().st_mtime).strftime("%Y-%m-%d %H:%M")
        say(f"replacing the release of {name} from {when} in {earlier}; students who "
            "fetched it keep their copy (`nbgrader fetch_assignment --replace` adds only "
            "the files they lack), and submissions already made stay in the exchange")
    with temp_attrs(api.coursedir, assignment_id=name):
        _run("release_assignment", capture_log(_exchange_app(api, "ReleaseAssignment",
                                                             force=True)))
    return folder


# ------------------------------------------------------------ collect
def collect(name: str, api=None, say=print) -> list[str]:
    """nbgrader collect with the exchange of nbgrader_config.py (exchange.SafeCollect):
    say what it refused and left out, one line each."""
    from nbgrader.utils import capture_log, temp_attrs
    api = api or make_api()
    with temp_attrs(api.coursedir, assignment_id=name):
        app = _exchange_app(api, "Collect")
        app.update = True
        result = capture_log(app)
    for note in getattr(app, "notes", []):
        say(f"collect: {plain(note)}")
    _run("collect", result)
    return submitted_students(name, api)


def submitted_students(name: str, api) -> list[str]:
    base = Path(api.coursedir.root) / api.coursedir.submitted_directory
    return sorted(p.parent.name for p in base.glob(f"*/{name}")
                  if p.is_dir() and not p.parent.name.startswith("."))


# ------------------------------------------------------------ grade
def _ignored(api):
    """What nbgrader leaves out of copies (CourseDirectory.ignore): environments, caches."""
    return shutil.ignore_patterns(*api.coursedir.ignore)


def filled_notebook(name: str, submitted: Path, checks: dict, results: dict, answers: dict):
    """The submitted notebook (or the handout, if none came) with only the graded
    cells runnable, each showing the kit's verdict as its output, and the written
    answers kept."""
    import nbformat
    from nbformat.v4 import new_output

    from .cells import cell_text, outputs
    from .preprocessors import keep_only_checks, repair, sanitize_markup
    from ..grading.intake import IntakeError, read_module
    path = submitted / f"{name}.ipynb"
    try:
        nb = nbformat.reads(read_module(path, NOTEBOOK_BYTES).decode("utf-8"), as_version=4)
        notes = [f"{name}.ipynb: {note}" for note in repair(nb)]
    except IntakeError as error:
        nb = notebooks.build(name)
        notes = [f"{error}: the handout shows the results"] if path.exists() else []
    except Exception:     # not a notebook: grade the module all the same
        nb = notebooks.build(name)
        notes = [f"{name}.ipynb could not be read as a notebook: the handout shows the "
                 "results"]
    keep_only_checks(nb, checks, answers)      # every other code cell: no outputs
    count = 0
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if cell.cell_type != "code" or grade_id not in checks:
            continue
        count += 1
        text, score, points = cell_text(results, grade_id)
        cell.execution_count = count
        cell.outputs = [new_output("stream", name="stdout", text=text + "\n")]
        failed, value = outputs(score, points)
        if failed:
            cell.outputs.append(new_output("stream", name="stderr", text=failed + "\n"))
        if value is not None:
            cell.outputs.append(new_output("execute_result", execution_count=count,
                                           data={"text/plain": repr(value)}))
    sanitize_markup(nb)         # before the answers are read: as the notebook keeps them
    return nb, {grade_id: cell_text(results, grade_id)[1] for grade_id in checks}, notes, \
        _written(nb, answers)


def _written(nb, answers: dict) -> dict[str, str]:
    """grade_id -> text of the notebook's written `answers`."""
    return {cell.metadata["nbgrader"]["grade_id"]: cell.source for cell in nb.cells
            if cell.cell_type == "markdown"
            and cell.metadata.get("nbgrader", {}).get("grade_id") in answers}


def record(name: str, api, student: str, scores: dict[str, float],
           written: dict[str, str] | None = None, before: dict[str, str] | None = None) -> None:
    """Write one student's scores into nbgrader's gradebook. A written answer is
    left to the teacher: it needs grading by hand unless it is still the handout's
    (then it scores 0, as nbgrader's autograde does). A score the teacher already
    gave it in formgrader is kept (grading again never erases it), and asked for
    again only when the answer is not the one graded (`before`: the text of the
    last autograded notebook; unknown counts as changed, as in nbgrader)."""
    submitted = api.coursedir.format_path(api.coursedir.submitted_directory, student, name)
    timestamp = api.coursedir.get_existing_timestamp(submitted)
    with _gradebook(api) as gb:
        gb.update_or_create_student(student)
        extra = {"timestamp": timestamp} if timestamp else {}
        gb.update_or_create_submission(name, student, **extra)
        for grade_id, score in scores.items():
            grade = gb.find_grade(grade_id, name, name, student)
            grade.auto_score = score
            grade.needs_manual_grade = False
        for grade_id, text in (written or {}).items():
            grade = gb.find_grade(grade_id, name, name, student)
            unanswered = text.strip() in ("", notebooks.ANSWER_STUB)
            grade.auto_score = 0.0 if unanswered else None
            changed = before is None or before.get(grade_id) != text
            grade.needs_manual_grade = not unanswered and (grade.manual_score is None
                                                           or changed)
        gb.db.commit()


def written_in(notebook: Path, answers: dict) -> dict[str, str] | None:
    """The written answers of an autograded notebook the kit wrote earlier (None if
    there is none): what the teacher's scores in formgrader were given for."""
    import nbformat
    if not answers or not notebook.is_file() or notebook.is_symlink():
        return None
    try:
        nb = nbformat.read(notebook, as_version=4)
    except Exception:  # noqa: BLE001 (unreadable: treated as unknown, so asked again)
        return None
    return _written(nb, answers)


def gradebook_rows(name: str, api) -> list[dict]:
    """Every submission of `name` in the gradebook: the score nbgrader exports (the
    checks and the written answers graded so far) and what is left to grade by hand."""
    from nbgrader.api import MissingEntry
    rows = []
    with _gradebook(api) as gb:
        try:
            submissions = gb.assignment_submissions(name)
        except MissingEntry:
            return []
        for submission in submissions:
            grades = [grade for nb in submission.notebooks for grade in nb.grades]
            pending = sum(1 for grade in grades if grade.needs_manual_grade)
            # a written answer left as handed out: record() scored it 0, nothing to grade
            empty = [grade.max_score for grade in grades if grade.cell.cell_type == "markdown"
                     and not grade.needs_manual_grade and grade.manual_score is None
                     and grade.auto_score == 0]
            rows.append({"student": submission.student_id, "score": submission.score,
                         "max_score": submission.max_score, "to_grade": pending,
                         "empty": len(empty), "empty_points": sum(empty)})
    return sorted(rows, key=lambda r: r["student"])


def summary(name: str, api, statuses: dict | None = None, say=print) -> None:
    """One line per student from the gradebook (with the bulk grader's status where
    it is not `graded`), and what is left to grade by hand."""
    rows = gradebook_rows(name, api)
    for row in rows:
        status = (statuses or {}).get(row["student"], "graded")
        hand = f"; {count(row['to_grade'], 'written answer')} to grade in formgrader" \
            if row["to_grade"] else ""
        # Why the score is short of the kit's: the points of an unanswered question.
        if row["empty"]:
            hand += (f"; {count(row['empty'], 'written answer')} left empty "
                     f"(0 of {count(row['empty_points'], 'point')})")
        say(f"{plain(row['student']):<24} {row['score']:>6g}/{row['max_score']:g}"
            + (f" {status}" if status != "graded" else "") + hand)
    pending = sum(1 for row in rows if row["to_grade"])
    empty = sum(1 for row in rows if row["empty"])
    say(f"{count(len(rows), 'submission')} of {name} in the gradebook"
        + (f"; {count(pending, 'student')} with written answers to grade by hand "
           "(formgrader: Manual Grading)" if pending else "")
        + (f"; {count(empty, 'student')} left a written answer empty (it scores 0)"
           if empty else ""))


def count(number: float, word: str) -> str:
    return f"{number:g} {word}" + ("" if number == 1 else "s")


def grade_collected(name: str, api=None, jobs: int | None = None, console=None,
                    say=print, scheduler: str | None = None) -> list[dict]:
    """Grade submitted/*/<name>/ in parallel (or on the workers of the Dask scheduler
    `scheduler`, as `autograder grade --scheduler` does); fill the gradebook and
    autograded/. A folder whose name is no usable student id, or a student whose
    results cannot be recorded, is one line for the teacher; everyone else is graded."""
    from rich.console import Console

    from ..grading import batch
    from .preprocessors import graded_cells
    api = api or make_api()
    students = []
    for student in submitted_students(name, api):
        problem = student_id_problem(student)
        if problem:
            say(f"grade-collected: {plain(student)} left out: the student id {problem}")
        else:
            students.append(student)
    if not students:
        raise KitError(f"no submissions of {name} in {api.coursedir.submitted_directory}/: "
                       "run `make collect` first")
    checks, answers = graded_cells(api.coursedir.db_url, name, name)
    if not checks:
        raise KitError(f"the gradebook has no graded cells for {name}: release it first")
    root = course_root(api)
    kit_out = kit_results(root, name)
    console = console or Console(stderr=True)
    with tempfile.TemporaryDirectory(prefix="spielbaum-staging-") as scratch:
        for student in students:
            source = api.coursedir.format_path(api.coursedir.submitted_directory, student, name)
            shutil.copytree(source, Path(scratch) / student, symlinks=True, ignore=_ignored(api))
        rows = batch.grade_all(name, Path(scratch), kit_out, jobs or os.cpu_count() or 1,
                               console=console, scheduler=scheduler)
    for student in students:
        try:
            notes = record_one(name, api, student, checks, answers, kit_out)
        except Exception as error:  # noqa: BLE001 (one student's record, never the batch)
            say(f"grade-collected: {plain(student)}: not recorded in the gradebook "
                f"({type(error).__name__}: {plain(error)})")
            continue
        for note in notes:
            say(f"grade-collected: {plain(student)}: {plain(note)}")
    return rows


def record_one(name: str, api, student: str, checks: dict, answers: dict, kit_out: Path
               ) -> list:
    import nbformat
    results = json.loads((kit_out / student / "results.json").read_text(encoding="utf-8"))
    submitted = Path(api.coursedir.format_path(api.coursedir.submitted_directory, student, name))
    target = Path(api.coursedir.format_path(api.coursedir.autograded_directory, student, name))
    before = written_in(target / f"{name}.ipynb", answers)
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(submitted, target, symlinks=True, ignore=_ignored(api))
    nb, scores, notes, written = filled_notebook(name, submitted, checks, results, answers)
    nbformat.write(nb, target / f"{name}.ipynb")
    record(name, api, student, scores, written, before)
    return notes


def autograde(name: str, api=None) -> None:
    """Plain `nbgrader autograde` over every submission (serial), with the kit's config."""
    api = api or make_api()
    _run("autograde", api.autograde(name, "*", force=True, create=True))


# ------------------------------------------------------------ feedback and export
def feedback(name: str, api=None, say=print) -> None:
    """generate_feedback and release_feedback; a submission that lacks nbgrader's
    submission_secret.txt (made by hand, collected before the kit's collect) is
    left out with a line, so it cannot stop everyone else's feedback."""
    from nbgrader.utils import temp_attrs
    api = api or make_api()
    base = Path(api.coursedir.root) / api.coursedir.autograded_directory
    lacking = sorted(p.parent.name for p in base.glob(f"*/{name}")
                     if not (p / "submission_secret.txt").is_file())
    for student in lacking:
        say(f"feedback: {plain(student)} left out: the submission has no "
            "submission_secret.txt (it was not made by nbgrader submit)")
    excluded = ",".join(filter(None, [api.coursedir.student_id_exclude, *lacking]))
    with temp_attrs(api.coursedir, student_id_exclude=excluded):
        _run("generate_feedback", api.generate_feedback(name, force=True))
        name_checks(name, api)
        _run("release_feedback", api.release_feedback(name))


_TEST_CELL = re.compile(r'<a href="#([A-Za-z0-9_-]+)">Test cell</a>')
_GRADE_CELL = re.compile(r'Grade cell: <code>([A-Za-z0-9_-]+)</code>')


def name_checks(name: str, api) -> int:
    """nbgrader's feedback page lists every graded cell as "Test cell" and heads it
    with its id: name each by what it checks (the hidden test's docstring, the
    kit's own text). Returns how many pages changed."""
    import html
    titles = notebooks.hidden_titles(assignments.load(name))

    def titled(match: re.Match, form: str) -> str:
        title = titles.get(match.group(1))
        return match.group(0) if title is None else form.format(id=match.group(1),
                                                              title=html.escape(title))
    changed = 0
    base = Path(api.coursedir.root) / api.coursedir.feedback_directory
    for page in sorted(base.glob(f"*/{name}/*.html")):
        text = page.read_text(encoding="utf-8")
        named = _TEST_CELL.sub(lambda m: titled(m, '<a href="#{id}">{title}</a>'), text)
        named = _GRADE_CELL.sub(lambda m: titled(m, "Check: {title}"), named)
        if named != text:
            page.write_text(named, encoding="utf-8")
            changed += 1
    return changed


def export(to: str, api=None) -> Path:
    from .export import SafeCsvExportPlugin
    api = api or make_api()
    plugin = SafeCsvExportPlugin(config=api.config)
    plugin.to = str(to)
    with _gradebook(api) as gb:
        plugin.export(gb)
    return Path(to)


STUDENT_CONFIG = """\
# nbgrader settings for the students of the course {course!r}, written by
# `make student-config` from the course's nbgrader_config.py. A student's nbgrader
# never reads the course's own file: it reads this one from /etc/jupyter/ (every
# user of the machine) or ~/.jupyter/ (one user), as nbgrader_config.py.
c = get_config()  # noqa: F821 (provided by nbgrader's config loader)

# The exchange the course releases into and collects from.
c.Exchange.root = {root!r}

# Never hand in a Python environment or caches: `make check` keeps its test tools
# outside the assignment folder, but a .venv made by hand would be submitted
# (40 MB and more per student, copied to the exchange, submitted/, autograded/ and
# feedback/).
c.CourseDirectory.ignore = {ignore!r}
"""


def student_config(api=None) -> str:
    """The nbgrader_config.py students need to reach this course's exchange."""
    api = api or make_api()
    return STUDENT_CONFIG.format(course=api.coursedir.course_id, root=str(exchange_root(api)),
                                 ignore=list(api.coursedir.ignore))

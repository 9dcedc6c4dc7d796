"""The nbgrader course cycle, with the kit's stripping and parallel grading.

    python -m autograder.nbgrader.cycle release A        generate_assignment, strip, release_assignment
                                                         (again: replaces the earlier release)
    python -m autograder.nbgrader.cycle collect A        collect the submissions from the exchange
    python -m autograder.nbgrader.cycle grade A [--jobs N]   grade submitted/*/A/ in parallel
    python -m autograder.nbgrader.cycle autograde A      plain serial `nbgrader autograde` (safe too)
    python -m autograder.nbgrader.cycle feedback A       generate_feedback and release_feedback
    python -m autograder.nbgrader.cycle export [--to F]  the gradebook as CSV (nbgrader export)
    python -m autograder.nbgrader.cycle student-config --to F   the nbgrader settings students need

Every command runs nbgrader in this process (one start-up instead of one per
step), configured by nbgrader_config.py. `grade` does what `nbgrader autograde`
does, faster and with the kit's sandbox: the bulk grader's `grade_all` grades
every submission in parallel, then the scores go into nbgrader's gradebook and
autograded/<student>/<A>/ gets a notebook whose graded cells show the kit's
feedback, so generate_feedback, export and formgrader work as usual.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import warnings
from datetime import datetime
from pathlib import Path

from .. import KitError, ROOT, release as kit_release, slices
from ..outputs.paths import student_id_problem
from ..outputs.terminal import plain
from . import notebooks

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
    coursedir = CourseDirectory(config=config)
    return NbGraderAPI(coursedir=coursedir, config=config)


def _run(step: str, result: dict) -> dict:
    if not result.get("success"):
        detail = (result.get("error") or result.get("log") or "").strip().splitlines()
        raise KitError(f"nbgrader {step} failed: {detail[-1] if detail else 'no reason given'}"
                       + (f"\n{result.get('log', '')}" if result.get("log") else ""))
    return result


def course_root(api) -> Path:
    return Path(api.coursedir.root)


# ------------------------------------------------------------ release
def strip_release(name: str, folder: Path) -> None:
    """Replace what generate_assignment copied untouched (the reference modules
    with their solutions) by the kit's own release of the slice."""
    piece = slices.load(name)
    for path in folder.iterdir():
        if path.suffix == ".ipynb":
            continue
        shutil.rmtree(path) if path.is_dir() else path.unlink()
    kit_release.render(piece, folder)
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


def released_copy(name: str, api) -> Path:
    """Where release_assignment puts `name` in the exchange (outbound/<name>)."""
    return exchange_root(api) / api.coursedir.course_id / "outbound" / name


def release(name: str, api=None, say=print) -> Path:
    """generate_assignment, the kit's stripping, release_assignment. Releasing again
    (a typo fixed) replaces the earlier release in the exchange and says so."""
    from nbgrader.utils import capture_log, temp_attrs
    api = api or make_api()
    stale = notebooks.differences(name)
    if stale:
        raise KitError(stale[0] + ": run `make notebooks` first")
    _run("generate_assignment", api.generate_assignment(name, force=True, create=True))
    folder = Path(api.coursedir.format_path(api.coursedir.release_directory, ".", name))
    strip_release(name, folder)
    earlier = released_copy(name, api)
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


def _stage(name: str, api, students: list[str], staging: Path) -> None:
    for student in students:
        source = Path(api.coursedir.format_path(api.coursedir.submitted_directory, student, name))
        shutil.copytree(source, staging / student, symlinks=True, ignore=_ignored(api))


def filled_notebook(name: str, submitted: Path, checks: dict, results: dict):
    """The submitted notebook (or the handout, if none came) with only the
    graded cells runnable, each showing the kit's verdict as its output."""
    import nbformat
    from nbformat.v4 import new_output

    from .cells import _number, cell_text
    from .preprocessors import keep_only_checks, repair, sanitize_markup
    from ..grading.intake import IntakeError, read_module
    path = submitted / f"{name}.ipynb"
    notes = []
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
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    keep_only_checks(nb, checks)
    count = 0
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if cell.cell_type != "code" or grade_id not in checks:
            continue
        count += 1
        text, score = cell_text(results, grade_id)
        if not results.get("tests"):
            text = f"{grade_id}: {results.get('output', 'not graded')}"
        cell.execution_count = count
        cell.outputs = [new_output("stream", name="stdout", text=text + "\n"),
                        new_output("execute_result", execution_count=count,
                                   data={"text/plain": repr(_number(score))})]
    sanitize_markup(nb)
    return nb, {grade_id: cell_text(results, grade_id)[1] for grade_id in checks}, notes


def record(name: str, api, student: str, scores: dict[str, float]) -> None:
    """Write one student's scores into nbgrader's gradebook."""
    from nbgrader.api import Gradebook
    submitted = api.coursedir.format_path(api.coursedir.submitted_directory, student, name)
    timestamp = api.coursedir.get_existing_timestamp(submitted)
    with Gradebook(api.coursedir.db_url, api.coursedir.course_id) as gb, \
            warnings.catch_warnings():
        warnings.simplefilter("ignore")     # SQLAlchemy's notes on nbgrader's own code
        gb.update_or_create_student(student)
        extra = {"timestamp": timestamp} if timestamp else {}
        gb.update_or_create_submission(name, student, **extra)
        for grade_id, score in scores.items():
            grade = gb.find_grade(grade_id, name, name, student)
            grade.auto_score = score
            grade.needs_manual_grade = False
        gb.db.commit()


def grade_collected(name: str, api=None, jobs: int | None = None, console=None,
                    say=print) -> list[dict]:
    """Grade submitted/*/<name>/ in parallel; fill the gradebook and autograded/.
    A folder whose name is no usable student id, or a student whose results cannot
    be recorded, is one line for the teacher; everyone else is graded."""
    import nbformat
    from rich.console import Console

    from ..grading import batch
    from .preprocessors import graded_checks
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
    checks = graded_checks(api.coursedir.db_url, name, name)
    if not checks:
        raise KitError(f"the gradebook has no graded cells for {name}: release it first")
    root = course_root(api)
    kit_out = root / "kit_grades" / name
    console = console or Console(stderr=True)
    with tempfile.TemporaryDirectory(prefix="spielbaum-staging-") as scratch:
        staging = Path(scratch)
        _stage(name, api, students, staging)
        rows = batch.grade_all(name, staging, kit_out, jobs or os.cpu_count() or 1,
                               console=console)
    for student in students:
        try:
            notes = _record_one(name, api, student, checks, kit_out, nbformat)
        except Exception as error:  # noqa: BLE001 (one student's record, never the batch)
            say(f"grade-collected: {plain(student)}: not recorded in the gradebook "
                f"({type(error).__name__}: {plain(error)})")
            continue
        for note in notes:
            say(f"grade-collected: {plain(student)}: {plain(note)}")
    return rows


def _record_one(name: str, api, student: str, checks: dict, kit_out: Path, nbformat) -> list:
    results = json.loads((kit_out / student / "results.json").read_text(encoding="utf-8"))
    submitted = Path(api.coursedir.format_path(api.coursedir.submitted_directory, student, name))
    target = Path(api.coursedir.format_path(api.coursedir.autograded_directory, student, name))
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(submitted, target, symlinks=True, ignore=_ignored(api))
    nb, scores, notes = filled_notebook(name, submitted, checks, results)
    nbformat.write(nb, target / f"{name}.ipynb")
    record(name, api, student, scores)
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
        _run("release_feedback", api.release_feedback(name))


def export(to: str, api=None) -> Path:
    from nbgrader.api import Gradebook

    from .export import SafeCsvExportPlugin
    api = api or make_api()
    plugin = SafeCsvExportPlugin(config=api.config)
    plugin.to = str(to)
    with Gradebook(api.coursedir.db_url, api.coursedir.course_id) as gb:
        plugin.export(gb)
    return Path(to)


def exported_scores(api, path: Path) -> dict[str, float]:
    """student -> raw score of every exported row (for tests and the benchmark)."""
    import csv
    export(path, api)
    with Path(path).open() as handle:
        return {row["student_id"]: float(row["raw_score"]) for row in csv.DictReader(handle)}


# ------------------------------------------------------------ the student's side (tests, demos)
def student_api(home: Path, student: str, config=None):
    """An nbgrader API acting as `student` whose assignments live in `home`."""
    config = load_config() if config is None else config
    from traitlets.config import Config
    mine = Config(config)
    mine.merge(Config({"Exchange": {"assignment_dir": str(home),
                                    "cache": str(home / ".nbgrader_cache")},
                       "CourseDirectory": {"student_id": student}}))
    return make_api(mine)


def student_step(step: str, name: str, api) -> None:
    """`nbgrader fetch_assignment` ("FetchAssignment") or `nbgrader submit` ("Submit")
    for the student of `api` (see student_api)."""
    from nbgrader.utils import capture_log, temp_attrs
    with temp_attrs(api.coursedir, assignment_id=name):
        _run(step, capture_log(_exchange_app(api, step)))


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


# ------------------------------------------------------------ command line
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder.nbgrader.cycle",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["release", "collect", "grade", "autograde",
                                            "feedback", "export", "student-config"])
    parser.add_argument("assignment", nargs="?")
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--to", default=None)
    args = parser.parse_args(argv)
    if args.command == "student-config" and not args.to:
        parser.error("student-config needs a file to write: --to /etc/jupyter/nbgrader_config.py")
    if args.command not in ("export", "student-config") and not args.assignment:
        parser.error(f"{args.command} needs an assignment: A=<assignment>")
    try:
        if args.command == "release":
            print(f"released {args.assignment} from {release(args.assignment)}")
        elif args.command == "collect":
            found = collect(args.assignment)
            print(f"{len(found)} submissions of {args.assignment} collected")
        elif args.command == "grade":
            rows = grade_collected(args.assignment, jobs=args.jobs)
            for row in sorted(rows, key=lambda r: r["student"]):
                print(f"{plain(row['student']):<24} {row['score']:>6}/{row['max_score']:<4} "
                      f"{row['status']}")
            print(f"{len(rows)} submissions graded into the gradebook and autograded/")
        elif args.command == "autograde":
            autograde(args.assignment)
        elif args.command == "feedback":
            feedback(args.assignment)
            print(f"feedback for {args.assignment} generated and released")
        elif args.command == "export":
            print(f"grades exported to {export(args.to or 'grades.csv')}")
        else:
            target = Path(args.to)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(student_config(), encoding="utf-8")
            print(f"wrote {target}: students' nbgrader reads it as "
                  "/etc/jupyter/nbgrader_config.py or ~/.jupyter/nbgrader_config.py")
    except KitError as error:
        print(f"nbgrader cycle: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

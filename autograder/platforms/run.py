"""What a platform package runs inside the platform's container.

    python -m autograder.platforms.run gradescope   --package DIR [--root ROOT]
    python -m autograder.platforms.run prairielearn --package DIR [--root ROOT]
    python -m autograder.platforms.run check        --package DIR

`DIR` is the package's folder; `ROOT` the platform's (`/autograder`, `/grade`), or
SPIELBAUM_PLATFORM_ROOT. One submission is graded exactly as `autograder grade`
grades it, with the expected values shipped in the package (refused when stale).
No grade, never a silent downgrade: when a required sandbox layer is missing or
the grader fails, the student's code is not run and no score is written
(Gradescope: a failed run; PrairieLearn: `"gradable": false`).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from .. import KitError, assignment as assignments, i18n
from ..grading.grader import Grader
from ..grading import warm
from ..grading.workers import one_cpu
from ..grading.runner import Graded
from ..outputs import jsondata
from ..outputs.text import visible
from ..sandbox import layers as sandbox_layers
from . import CONFIG, EXPECTED, results
from .upload import unpacked

DEFAULT_ROOTS = {"gradescope": "/autograder", "prairielearn": "/grade"}


@dataclass(frozen=True)
class Package:
    folder: Path
    assignment: str
    platform: str
    reveal_expected: bool
    required_layers: tuple[str, ...]
    test_visibility: tuple[tuple[str, str], ...] = ()     # Gradescope's, per check
    expected: dict | None = None    # the manifest of expected.pickle (None: none shipped)
    language: str = i18n.SOURCE     # the feedback's, chosen at export
    unconfined_files: bool = False  # export --unconfined-files

    @classmethod
    def read(cls, folder: Path) -> Package:
        try:
            data = json.loads((folder / CONFIG).read_text(encoding="utf-8"))
            return cls(folder, data["assignment"], data["platform"],
                       bool(data["reveal_expected"]), tuple(data["required_layers"]),
                       tuple(sorted(dict(data.get("test_visibility") or {}).items())),
                       data.get("expected"),
                       i18n.course_language(data.get("language") or i18n.SOURCE),
                       data.get("unconfined_files") is True)
        except (OSError, ValueError, KeyError) as error:
            raise KitError(f"{folder / CONFIG} is missing or broken ({error}); "
                           "export the package again") from None


class NotGraded(Exception):
    """The submission gets no grade; the message says why, for the teacher."""


def _grader(package: Package) -> Grader:
    """The Grader of the package: its floor of layers, its expected values (KitError,
    one line, when they are stale)."""
    assignment = assignments.load(package.assignment)
    if package.unconfined_files:
        os.environ[sandbox_layers.UNCONFINED_FILES] = "1"
    plugins = ()
    if package.expected is not None:
        plugins = (warm.load(assignment, package.folder / EXPECTED, package.expected),)
    # No fingerprint: nothing on a platform compares submissions (bulk grading's
    # similarity report reads them), and recording every answer costs time.
    grader = Grader(assignment, reveal=package.reveal_expected, plugins=plugins,
                    behaviour=False)
    # The package's floor of layers, which may be stricter than the rubric's.
    grader.rubric = dataclasses.replace(grader.rubric, required=tuple(dict.fromkeys(
        grader.rubric.required + tuple(package.required_layers))))
    return grader


@one_cpu()
def grade(package: Package, submission: Path) -> tuple[Graded, list[str], str]:
    """Grade the upload in `submission`; (graded, notes, title) or NotGraded. The
    process grades on one of its CPUs, as a bulk grading worker does (grading/workers.py:
    the grader and its child talk in turns), so the time scale is that CPU's."""
    os.environ["SPIELBAUM_COURSE_LANG"] = package.language   # the grader's words (i18n.py)
    try:
        grader = _grader(package)
    except KitError as error:           # a stale package: nobody is graded with it
        raise NotGraded(str(error)) from None
    if grader.lacking:
        raise NotGraded(f"this container does not offer the sandbox layers the package "
                        f"requires ({grader.lacking_reasons()}); the student's code was not "
                        f"run. Offered: {', '.join(grader.layers) or 'none'}.")
    with unpacked(submission, grader.assignment.modules) as (folder, notes):
        graded = grader.grade("submission", folder)
    if graded.status == "sandbox-error":
        raise NotGraded(f"the sandbox could not confine the student's code here: "
                        f"{graded.message}")
    if graded.status == "error":
        raise NotGraded(graded.message)
    return graded, notes, grader.assignment.title


def _write_json(path: Path, data: dict) -> None:
    """Write results.json afresh: whatever stood there (a file or a link the
    student's code may have left) is replaced, never followed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{os.getpid()}")
    temp.unlink(missing_ok=True)
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(jsondata.dumps(data, indent=2))
        handle.write("\n")
    os.replace(temp, path)


def _say(message: str) -> None:
    print(visible(message, lines=True), flush=True)   # the log may quote the student


def run_platform(platform: str, package: Package, root: Path) -> int:
    student = root / ("submission" if platform == "gradescope" else "student")
    target = root / "results" / "results.json"
    started = time.perf_counter()
    try:
        graded, notes, title = grade(package, student)
    except NotGraded as refusal:
        return _not_graded(platform, target, str(refusal))
    except Exception as error:  # noqa: BLE001 (a grader bug: no grade rather than a wrong one)
        return _not_graded(platform, target, f"grader error ({type(error).__name__}: "
                                             f"{error}); please report it")
    if platform == "gradescope":
        data = results.gradescope(graded, notes, title, dict(package.test_visibility))
    else:
        data = results.prairielearn(graded, notes, title)
    _write_json(target, data)
    _say(f"spielbaum: {results.score_line(graded)}; status {graded.status}; "
         f"sandbox: {', '.join(graded.layers)}; {time.perf_counter() - started:.1f} s")
    return 0


def _not_graded(platform: str, target: Path, message: str) -> int:
    _say(f"spielbaum: NOT GRADED: {message}")
    if platform == "prairielearn":
        _write_json(target, results.prairielearn_not_graded(
            f"Not graded, and no attempt used: {message}"))
        return 0
    # Gradescope: no results.json means a failed run, which Gradescope shows to
    # the student as an autograder failure and to instructors with this output.
    target.unlink(missing_ok=True)
    return 1


def check(package: Package) -> int:
    """Run once where the package is installed (Gradescope's setup.sh): say which
    layers this container offers, refuse if a required one is missing, and grade
    the reference solution, which must score full marks."""
    grader = _grader(package)
    _say(f"spielbaum: {grader.assignment.title} ({package.assignment}) for "
         f"{package.platform}")
    sandbox_layers.doctor()
    if grader.lacking:
        _say(f"spielbaum: this container does not offer the sandbox layers the package "
             f"requires ({grader.lacking_reasons()}): every submission would be refused")
        return 1
    grader.warm_up()
    _say("spielbaum: the reference solution scores full marks here; ready to grade")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder.platforms.run")
    parser.add_argument("what", choices=["gradescope", "prairielearn", "check"])
    parser.add_argument("--package", required=True, type=Path)
    parser.add_argument("--root", type=Path)
    args = parser.parse_args(argv)
    try:
        package = Package.read(args.package)
        if args.what == "check":
            return check(package)
        root = args.root or Path(os.environ.get("SPIELBAUM_PLATFORM_ROOT")
                                 or DEFAULT_ROOTS[args.what])
        return run_platform(args.what, package, root)
    except KitError as error:
        _say(f"spielbaum: {error}")
        return 2


if __name__ == "__main__":
    sys.exit(main())

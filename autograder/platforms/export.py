"""`autograder export gradescope|prairielearn ASSIGNMENT ... --out DIR`.

Writes `DIR/<a>-gradescope.zip` or `DIR/<a>-prairielearn/` (docs/PLATFORMS.md shows
both). The reference is graded first and must score full marks, so a broken suite is
never shipped; that grading computes the expected values the package ships
(grading/warm.py), checked by hash on the platform.
"""

from __future__ import annotations

import importlib.metadata
import json
import shutil
import subprocess
import tempfile
import uuid
import zipfile
from pathlib import Path

import jinja2

from .. import ROOT, KitError, i18n, release, assignment as assignments
from ..grading.grader import Grader
from ..grading.warm import WarmCaches
from ..sandbox import layers as sandbox_layers
from . import CONFIG, EXPECTED, wheels

TEMPLATES = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).with_name("templates")),
    keep_trailing_newline=True, undefined=jinja2.StrictUndefined, autoescape=False)
#: The PrairieLearn grading image: any image with Python 3.11+ and bash will do.
PL_IMAGE = "python:3.12-slim"
#: PrairieLearn's job timeout (its maximum is 600 s): a submission whose every
#: function loops still gets its per-call limits and a grade.
PL_TIMEOUT = 600
#: Stable question ids: the same assignment exported again keeps its uuid.
_UUIDS = uuid.UUID("6f1b2c1e-5d0a-4c57-9a44-2f0e8c7b6d31")


def kit_version() -> str:
    try:
        version = importlib.metadata.version("spielbaum")
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    done = subprocess.run(["git", "-C", str(ROOT), "describe", "--always", "--dirty"],
                          capture_output=True, text=True, check=False)
    return f"{version} ({done.stdout.strip()})" if done.returncode == 0 else version


def required_layers(assignment, extra: list[str]) -> list[str]:
    unknown = sorted(set(extra) - set(sandbox_layers.ALL_LAYERS))
    if unknown:
        raise KitError(f"--require names unknown sandbox layers {unknown} (known: "
                       f"{', '.join(sandbox_layers.ALL_LAYERS)})")
    wanted = set(assignment.rubric().required) | set(extra)
    return [layer for layer in sandbox_layers.ALL_LAYERS if layer in wanted]


#: Gradescope's visibility of one test (its autograder specification).
VISIBILITIES = ("visible", "after_due_date", "after_published", "hidden")


def test_visibility(assignment, wanted: list[str]) -> dict[str, str]:
    """`--visibility WHEN` (every check) and `--visibility TEST=WHEN` (one check, by
    its hidden test's name) as {"*" or test: when}, checked against the rubric."""
    found: dict[str, str] = {}
    known = set(assignment.rubric().points)
    for item in wanted:
        test, _, when = item.rpartition("=")
        if when not in VISIBILITIES:
            raise KitError(f"--visibility {item}: say one of {', '.join(VISIBILITIES)}, "
                           "for every check or as TEST=WHEN for one")
        if test and test not in known:
            raise KitError(f"--visibility {item}: {assignment.name} has no check {test!r} "
                           f"(its checks: {', '.join(sorted(known))})")
        found[test or "*"] = when
    return found


def _config(assignment, platform: str, reveal: bool, required: list[str], version: str,
            visibility: dict[str, str] | None = None, expected: dict | None = None,
            language: str = i18n.SOURCE) -> str:
    # The course's language is chosen at export, as at release: the platform's machine
    # has no course environment, and its feedback must speak what the handout spoke.
    return json.dumps({"assignment": assignment.name, "title": assignment.title,
                       "platform": platform, "reveal_expected": reveal, "required_layers": required,
                       "test_visibility": visibility or {}, "kit": version,
                       "expected": expected, "language": language,
                       # the teacher's leave to grade where no layer confines files
                       # (`export --unconfined-files`): the container may lack them all
                       "unconfined_files": sandbox_layers.unconfined_files_allowed()},
                      indent=2) + "\n"


def _render(name: str, path: Path, mode: int = 0o644, **context) -> None:
    path.write_text(TEMPLATES.get_template(name).render(**context), encoding="utf-8")
    path.chmod(mode)


def _package_folder(folder: Path, assignment, config: str, wheelhouse: Path,
                    expected: bytes) -> None:
    """What both platforms ship: settings, expected values, wheels, the reference."""
    folder.mkdir(parents=True)
    (folder / CONFIG).write_text(config, encoding="utf-8")
    (folder / EXPECTED).write_bytes(expected)
    shutil.copytree(wheelhouse, folder / "wheels")
    solutions = folder / "solutions" / assignment.name
    solutions.mkdir(parents=True)
    for name in ("assignment.toml", *assignment.modules):
        shutil.copy2(assignment.solution_dir / name, solutions / name)


def _zip(folder: Path, target: Path) -> None:
    """Zip the files of `folder` (not the folder itself: Gradescope wants setup.sh
    and run_autograder at the root), keeping the executable bits."""
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                info = zipfile.ZipInfo.from_file(path, path.relative_to(folder).as_posix())
                info.compress_type = zipfile.ZIP_DEFLATED
                archive.writestr(info, path.read_bytes())


def gradescope(assignment, out: Path, config: str, wheelhouse: Path, version: str,
               expected: bytes) -> Path:
    target = out / f"{assignment.name}-gradescope.zip"
    with tempfile.TemporaryDirectory(prefix="spielbaum-export-") as temp:
        staging = Path(temp)
        context = {"title": assignment.title, "version": version}
        _render("setup.sh.j2", staging / "setup.sh", 0o755, **context)
        _render("run_autograder.j2", staging / "run_autograder", 0o755, **context)
        _package_folder(staging / "spielbaum", assignment, config, wheelhouse, expected)
        partial = target.with_name(target.name + ".part")
        _zip(staging, partial)
        partial.replace(target)
    return target


def prairielearn(assignment, out: Path, config: str, wheelhouse: Path, version: str,
                 expected: bytes) -> Path:
    target = out / f"{assignment.name}-prairielearn"
    folder = f"spielbaum-{assignment.name}"
    shutil.rmtree(target, ignore_errors=True)
    grader = target / "serverFilesCourse" / folder
    _package_folder(grader, assignment, config, wheelhouse, expected)
    _render("prairielearn_run.sh.j2", grader / "run.sh", 0o755, title=assignment.title,
            version=version)
    question = target / "questions" / folder
    question.mkdir(parents=True)
    _render("info.json.j2", question / "info.json", title=assignment.title,
            assignment=assignment.name, uuid=uuid.uuid5(_UUIDS, assignment.name),
            image=PL_IMAGE, folder=folder, timeout=PL_TIMEOUT)
    # The skeleton the question tells students to start from: what `autograder
    # release` gives them (stubs, public tests, their Makefile), as a download.
    with tempfile.TemporaryDirectory(prefix="spielbaum-skeleton-") as temp:
        release.render(assignment, Path(temp) / assignment.name)
        (question / "clientFilesQuestion").mkdir()
        _zip(Path(temp), question / "clientFilesQuestion" / f"{assignment.name}.zip")
    _render("question.html.j2", question / "question.html", title=assignment.title,
            modules=list(assignment.modules), skeleton=f"{assignment.name}.zip")
    return target


WRITERS = {"gradescope": gradescope, "prairielearn": prairielearn}


def precompute(assignment) -> tuple[bytes, dict]:
    """Grade the reference (it must score full marks) and keep what that computed:
    the hidden suite's warm caches, pickled, and their manifest (grading/warm.py)."""
    warm = WarmCaches(assignment)
    Grader(assignment, plugins=(warm,)).warm_up()
    return warm.snapshot()


def export(platform: str, names: list[str], out: Path, *, reveal: bool = False,
           require: list[str] = (), reuse_wheels: Path | None = None,
           visibility: list[str] = (), language: str | None = None) -> None:
    language = i18n.course_language(language)
    chosen = [assignments.load(name) for name in names]
    required = {a.name: required_layers(a, list(require)) for a in chosen}
    if visibility and platform != "gradescope":
        raise KitError("--visibility is Gradescope's (PrairieLearn shows every result)")
    shown = {a.name: test_visibility(a, list(visibility)) for a in chosen}
    version = kit_version()
    packages = []
    for assignment in chosen:
        print(f"grading the reference of {assignment.name} with its hidden suite ...")
        data, manifest = precompute(assignment)
        if manifest["left_out"]:
            print(f"note: the cached values of {', '.join(sorted(manifest['left_out']))} do "
                  "not pickle (a lambda inside them?); the platform computes them again for "
                  "every submission (docs/SUITES.md: Later)")
        packages.append((assignment, data, _config(
            assignment, platform, reveal, required[assignment.name], version,
            shown[assignment.name], manifest, language)))
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="spielbaum-wheels-") as temp:
        print("building the kit's wheel and collecting its dependencies ...")
        wheelhouse = Path(temp) / "wheels"
        wheels.build_wheelhouse(wheelhouse, reuse_wheels)
        for assignment, data, config in packages:
            print(f"wrote {WRITERS[platform](assignment, out, config, wheelhouse, version, data)}")

# nbgrader's configuration for the Spielbaum course directory (this folder).
#
# The course's source folder is solutions/: solutions/<a>/<a>.ipynb is the handout
# notebook of assignment <a> (generated: `make notebooks`), next to its reference
# modules. docs/TEACHING.md walks through the whole cycle. Environment variables
# override the defaults without editing this file:
#   SPIELBAUM_COURSE_ID     the course id students fetch with (default: spielbaum)
#   SPIELBAUM_EXCHANGE      the exchange folder (default: nbgrader 0.9.6's own,
#                           /usr/local/share/nbgrader/exchange). Students' nbgrader
#                           never reads this file: `make student-config` writes the
#                           file they need (docs/TEACHING.md, "What students run").
#   SPIELBAUM_COURSE_ROOT   where release/, submitted/, autograded/, feedback/ and
#                           gradebook.db live (default: this folder)
#   SPIELBAUM_CELL_TIMEOUT  seconds one notebook cell may run under `nbgrader autograde`
#                           (default 1800: the first graded cell grades the whole
#                           submission; each hidden test has its own limits inside)
#   SPIELBAUM_COURSE_LANG   the course's language, en (default), de or nl: what
#                           `autograder release` writes into the assignments and the
#                           language of the feedback (README.md, "Languages")

import os
import tomllib
from pathlib import Path

from autograder.nbgrader import IGNORE
from autograder.nbgrader.feedback import configure as feedback_page

c = get_config()  # noqa: F821 (provided by nbgrader's config loader)

HERE = Path(__file__).resolve().parent
SOLUTIONS = HERE / "solutions"

c.CourseDirectory.course_id = os.environ.get("SPIELBAUM_COURSE_ID", "spielbaum")
c.CourseDirectory.root = os.environ.get("SPIELBAUM_COURSE_ROOT", str(HERE))
c.CourseDirectory.source_directory = str(SOLUTIONS)
if os.environ.get("SPIELBAUM_EXCHANGE"):
    c.Exchange.root = os.environ["SPIELBAUM_EXCHANGE"]

# Python environments and caches are never copied: not when collecting (a student
# whose nbgrader lacks `make student-config`'s file may have submitted a .venv), not
# into autograded/ or feedback/.
c.CourseDirectory.ignore = IGNORE

# Students edit the .py modules. Autograde copies the source folder's files over
# the student's unless they are named here, which would grade the reference. The
# slice's manifest is the kit's, not the student's: never copied into autograded/
# and so never into anyone's feedback.
c.Autograde.exclude_overwriting = {
    manifest.parent.name: tomllib.loads(manifest.read_text(encoding="utf-8"))["modules"]
    + ["assignment.toml"]
    for manifest in sorted(SOLUTIONS.glob("*/assignment.toml"))
}

# Plain `nbgrader autograde` stays safe: only the graded cells run, each asks the
# kit's sandboxed grader, and the kernel starts in an empty folder
# (autograder/nbgrader/preprocessors.py says why).
c.Autograde.sanitize_preprocessors = [
    "autograder.nbgrader.preprocessors.RepairNotebook",
    "nbgrader.preprocessors.ClearOutput",
    "nbgrader.preprocessors.DeduplicateIds",
    "nbgrader.preprocessors.OverwriteKernelspec",
    "nbgrader.preprocessors.OverwriteCells",
    "autograder.nbgrader.preprocessors.RunOnlyGradedChecks",
    "autograder.nbgrader.preprocessors.SanitizeMarkup",
    "nbgrader.preprocessors.CheckCellMetadata",
]
c.Autograde.autograde_preprocessors = [
    "autograder.nbgrader.preprocessors.GradeInCleanFolder",
    "nbgrader.preprocessors.Execute",
    "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor",
    "nbgrader.preprocessors.LimitOutput",
    "nbgrader.preprocessors.SaveAutoGrades",
    "nbgrader.preprocessors.AssignLatePenalties",
    "nbgrader.preprocessors.CheckCellMetadata",
]
c.Execute.timeout = int(os.environ.get("SPIELBAUM_CELL_TIMEOUT", "1800"))

# Feedback never shows the hidden part of a graded cell (it holds no test code,
# only the call of the grader, but it stays hidden all the same), nor a student's
# markup as markup: every page nbgrader renders (feedback, formgrader) shows a
# student's Markdown without script, event handlers or javascript: links.
c.GenerateFeedback.preprocessors = [
    "autograder.nbgrader.preprocessors.SanitizeMarkup",
    "nbgrader.preprocessors.GetGrades",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
    "nbgrader.preprocessors.ClearHiddenTests",
]
c.HTMLExporter.preprocessors = ["autograder.nbgrader.preprocessors.SanitizeMarkup"]
# The feedback page reads first what went wrong: the score, the failures in full (with
# their drawings), then the checks that passed, folded (autograder/nbgrader/feedback.py).
feedback_page(c)

# The shared inbound folder is writable by every student: collect refuses links,
# special files, forged names and times, folders nbgrader submit did not make, and
# (where student ids are users of this machine) folders another user owns. See
# autograder/nbgrader/exchange.py and docs/TEACHING.md, "What the exchange guarantees".
c.ExchangeFactory.collect = "autograder.nbgrader.exchange.SafeCollect"
c.ExchangeCollect.check_owner = True

# `nbgrader export` quotes every cell and neutralises formulas (ids are the students').
c.ExportApp.plugin_class = "autograder.nbgrader.export.SafeCsvExportPlugin"

"""Submissions as an LMS hands them out, turned into one folder per student.

`import_submissions` reads the LMS's folder or zip (grading/download.py: nothing followed,
extracted or trusted) with the layout's parser (formats.py) and writes one folder per
student, named by the LMS's student id, and `students.csv` beside them. A student who
breaks a budget is one line, "not imported: ...", while everyone else is imported.
docs/TEACHING.md, "Submissions from an LMS", says what each step guarantees.
"""

from __future__ import annotations

import csv
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from .. import KitError, assignment as assignments
from ..grading.intake import claim_folder, read_roster, remove_tree
from ..outputs import spreadsheet
from ..outputs.paths import ROSTER, student_id_problem
from ..outputs.text import visible
from . import formats
from .formats import Plan, Submission
from ..grading.download import (FILE_BYTES, Budget, Exhausted, SourceError, expand, open_source,
                     part_problem)

ROSTER_FIELDS = ["student", "name", "email", "late", "submitted", "source", "files", "notes",
                 "identifier"]
MAX_FILES = 200                      # files read (or attempted) for one student
STUDENT_BYTES = 4 * FILE_BYTES       # bytes read (or attempted) for one student
IMPORT_BYTES = 2 << 30               # bytes read (or attempted) by one import
#: The file an import leaves in its --out: importing again may replace that folder.
IMPORT_MARKER = ".spielbaum-import"
#: A file uploaded again gets "-1" (Canvas) or " (1)" (browsers) before ".py".
RENAMED = re.compile(r"^(?P<stem>.+?)(?:-(?P<dash>\d{1,4})| \((?P<paren>\d{1,4})\))?"
                     r"(?P<ext>\.py)$")
HIDDEN = ("__MACOSX", "Thumbs.db", "desktop.ini", "__pycache__", ".venv", "venv",
          ".ipynb_checkpoints")
#: A repository's own history: never imported, and too many files to list.
UNSAID = (".git",)


@dataclass
class Imported:
    out: Path
    students: list[dict] = field(default_factory=list)      # rows of students.csv
    skipped: list[str] = field(default_factory=list)        # one line each, for the teacher


def module_names(assignment: str | None) -> tuple[str, ...]:
    """The modules the import looks for: the assignment's, or every assignment's."""
    names = [assignment] if assignment else assignments.names()
    return tuple(sorted({m for name in names for m in assignments.load(name).modules}))


# ------------------------------------------------------------ one student's files
def _is_hidden(parts: tuple[str, ...]) -> bool:
    return any(p.startswith(".") or p in HIDDEN for p in parts)


def _rank(name: str) -> int:
    found = RENAMED.match(name)
    return int(found["dash"] or found["paren"] or 0) if found else 0


def _canonical(name: str, modules) -> str | None:
    found = RENAMED.match(name)
    if found and found["stem"] + found["ext"] in modules:
        return found["stem"] + found["ext"]
    return None


def _few(names: list[str]) -> str:
    return ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")


class NotImported(Exception):
    """One student's files broke a budget: the student is not imported (the message
    says why, for the teacher's line)."""


def _expanded(entry: Submission, modules, budget: Budget) -> list:
    """The student's files, with their zips unpacked (one level) when no module
    is among them: a zip handed in is how many LMSes take a folder."""
    files = entry.files
    regular = [(t, m, r) for t, m, r in files if m.kind == "file" and not _is_hidden(t)]
    if any(t[-1] in modules or _canonical(t[-1], modules) for t, _, _ in regular):
        zips = [t for t, m, _ in regular if t[-1].lower().endswith(".zip")]
        if zips:
            entry.notes.append(f"{_few(['/'.join(z) for z in zips])}: not unpacked, the "
                               "module is there beside it")
        return files
    result = []
    for target, member, rank in files:
        if member.kind == "file" and target[-1].lower().endswith(".zip") \
                and not _is_hidden(target):
            try:
                inner = expand(member, budget)
            except Exhausted:
                raise
            except SourceError as error:
                entry.notes.append(f"{error}; not unpacked")
                continue
            folder = target[:-1] + (target[-1][:-4] or "zip",)
            entry.notes += inner.notes
            result += [(folder + m.parts, m, rank) for m in inner.under(())
                       if m.kind != "dir"]
            entry.notes.append(f"unpacked {'/'.join(target)}")
        else:
            result.append((target, member, rank))
    return result


def _renamed(files: list, modules, notes: list[str]) -> list:
    """Renamed copies of a module (`tictactoe-1.py`, `tictactoe (2).py`) in one
    folder: the newest is taken as the module, the others are left out."""
    groups: dict[tuple, list] = {}
    for item in files:
        target, member, rank = item
        canonical = _canonical(target[-1], modules) if member.kind == "file" else None
        if canonical:
            groups.setdefault(target[:-1] + (canonical,), []).append(item)
    keep = {id(item) for item in files}
    renamed = {}
    for canonical, copies in groups.items():
        if len(copies) == 1 and copies[0][0] == canonical:
            continue
        # The newest copy: the higher file id (Canvas), else the higher copy number.
        newest = max(copies, key=lambda c: (c[2], _rank(c[0][-1])))
        renamed[id(newest)] = canonical
        others = [c for c in copies if c is not newest]
        keep -= {id(c) for c in others}
        said = f"{'/'.join(newest[0])} taken as {'/'.join(canonical)}" \
            if newest[0] != canonical else f"{'/'.join(canonical)} taken"
        if others:
            said += f"; older copies left out: {_few(['/'.join(c[0]) for c in others])}"
        notes.append(said)
    return [(renamed.get(id(item), item[0]), item[1], item[2]) for item in files
            if id(item) in keep]


def settle(entry: Submission, modules, budget: Budget) -> list[tuple[tuple[str, ...], bytes]]:
    """The files to write for one student, read within the student's `budget`;
    notes on the rest. NotImported (or Exhausted, of the student's budget) when the
    student's files break a budget."""
    cut = next((m.why for _, m, _ in entry.files if m.kind == "cut"), "")
    if cut:
        raise NotImported(cut)
    files = _renamed(_expanded(entry, modules, budget), modules, entry.notes)
    cut = next((m.why for _, m, _ in files if m.kind == "cut"), "")
    if cut:                                   # a zip handed in broke a budget
        raise NotImported(cut)
    hidden, links, written = [], [], []
    targets: set[tuple[str, ...]] = set()
    for target, member, _ in sorted(files, key=lambda f: f[0]):
        if member.kind == "refused":          # its name was refused when listed
            said = f"{member.why}; not imported"
            if said not in entry.notes:       # a zip handed in says it already
                entry.notes.append(said)
            continue
        if any(part in UNSAID for part in target):
            continue
        if _is_hidden(target):
            hidden.append("/".join(target))
            continue
        if member.kind in ("link", "other"):
            links.append("/".join(target))
            continue
        if target in targets or any(target[:n] in targets for n in range(1, len(target))):
            entry.notes.append(f"{'/'.join(target)} twice; the first is imported")
            continue
        try:
            data = member.read(budget)
        except Exhausted:
            raise
        except SourceError as error:
            entry.notes.append(f"{error}; not imported")
            continue
        targets.add(target)
        written.append((target, data))
    if hidden:
        entry.notes.append(f"hidden files and system folders left out: {_few(hidden)}")
    if links:
        entry.notes.append(f"links and special files left out (never followed): {_few(links)}")
    return written


# ------------------------------------------------------------ the whole import
def _claim(src: Path, out: Path) -> None:
    """Refuse an --out that is, holds or lies inside SRC, or that is neither new,
    empty nor an earlier import (IMPORT_MARKER: that one is replaced)."""
    source, target = src.resolve(), out.resolve()
    if target == source or source in target.parents or target in source.parents:
        raise KitError(f"--out {out} and the download {src} overlap: the import would "
                       "write into what it reads; choose a folder outside it")
    claim_folder(out, IMPORT_MARKER, "autograder import")


def _write_file(root: Path, parts: tuple[str, ...], data: bytes) -> None:
    folder = root
    for part in parts[:-1]:
        folder = folder / part
        folder.mkdir(exist_ok=True)          # made here, so never a link
    fd = os.open(folder / parts[-1], os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
                 0o644)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)


def _one_per_student(plan: Plan) -> list[Submission]:
    """One record per id: the later one (by the LMS's time) when an id comes twice."""
    chosen: dict[str, Submission] = {}
    for entry in plan.submissions:
        earlier = chosen.get(entry.student)
        if earlier is None:
            chosen[entry.student] = entry
            continue
        later, other = (entry, earlier) if entry.submitted > earlier.submitted else \
            (earlier, entry)
        chosen[entry.student] = later
        plan.skipped.append(f"{other.origin}: another submission of {later.student} "
                            f"({later.origin}) is later; skipped")
    return sorted(chosen.values(), key=lambda e: e.student)


def import_submissions(layout: str, src: Path, out: Path, assignment: str | None = None
                       ) -> Imported:
    if layout not in formats.PARSERS:
        raise KitError(f"unknown format {layout!r} (known: {', '.join(formats.PARSERS)})")
    modules = module_names(assignment)
    _claim(src, out)
    source = open_source(src)
    plan = formats.PARSERS[layout](source, modules)
    plan.skipped = source.notes + plan.skipped
    result = Imported(out)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.import-", dir=out.parent))
    try:
        whole = Budget(IMPORT_BYTES, 1 << 62, "import")
        for entry in _one_per_student(plan):
            if not _import_one(entry, modules, staging, whole, plan, result):
                break
        spreadsheet.write(staging / ROSTER, ROSTER_FIELDS, result.students)
        (staging / IMPORT_MARKER).write_text(
            "This folder was made by `autograder import`; importing again into it "
            "replaces it.\n", encoding="utf-8")
        remove_tree(out)                     # nothing, or an earlier import (_claim)
        staging.rename(out)
    except BaseException:
        remove_tree(staging)
        raise
    result.skipped = plan.skipped
    return result


def _import_one(entry: Submission, modules, staging: Path, whole: Budget, plan: Plan,
                result: Imported) -> bool:
    """Import one student into `staging`; False when the import's own budget is
    spent (the students after are not imported, and the line says so)."""
    problem = student_id_problem(entry.student) or part_problem(entry.student)
    if problem:
        plan.skipped.append(f"{entry.origin}: the student id "
                            f"{visible(entry.student, False)!r} {problem}; skipped")
        return True
    row = {"student": entry.student, "name": entry.name, "email": entry.email,
           "late": entry.late, "submitted": entry.submitted, "source": entry.origin,
           "identifier": entry.identifier}
    try:
        files = settle(entry, modules, Budget(STUDENT_BYTES, MAX_FILES, "student", whole))
        folder = staging / entry.student
        folder.mkdir()
        try:
            for target, data in files:
                _write_file(folder, target, data)
        except OSError as error:
            remove_tree(folder)
            raise NotImported(f"its files could not be written ({error.strerror})") from None
    except (Exhausted, NotImported) as error:
        if isinstance(error, Exhausted) and error.scope != "student":
            plan.skipped.append(f"{entry.origin}: the import read (or attempted) more than "
                                f"{IMPORT_BYTES >> 30} GB; {entry.student} and the students "
                                "after were not imported")
            return False
        plan.skipped.append(f"{entry.origin}: {entry.student} not imported: {error}")
        result.students.append(row | {"files": "(not imported)",
                                      "notes": f"not imported: {error}"})
        return True
    result.students.append(row | {
        "files": " ".join("/".join(t) for t, _ in files) or "(none)",
        "notes": "; ".join(entry.notes)})
    if not files:
        plan.skipped.append(f"{entry.origin}: no files for {entry.student} "
                            "(imported as an empty folder: graded as missing)")
    return True


# ------------------------------------------------------------ the roster, read back
def add_names(out_dir: Path, roster: dict[str, dict]) -> bool:
    """Put the import's display name (and whether it was late) beside each id in
    OUT/grades.csv; True if it did."""
    grades = out_dir / "grades.csv"
    if not roster or not grades.is_file():
        return False
    with grades.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        fields, rows = list(reader.fieldnames or []), list(reader)
    if "student" not in fields:
        return False
    added = [f for f in ("name", "late") if f not in fields]
    at = fields.index("student") + 1
    fields[at:at] = added
    for row in rows:
        known = roster.get(spreadsheet.uncell(row["student"] or ""), {})
        for column in added:
            row[column] = known.get(column, "")
    spreadsheet.write(grades, fields, rows)
    return True


__all__ = ["ROSTER", "Imported", "import_submissions", "read_roster", "add_names"]

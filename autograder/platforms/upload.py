"""What the student uploaded: the module alone, a folder, or a zip holding them.

When the module is not in the upload but a zip is, the zip (the student's, opened
in the trusted process) is read as data as an LMS import reads one
(grading/download.py: no link, no name outside it, only stored or deflated entries)
and its Python files are written into a folder of its own, with caps on sizes and
counts.
"""

from __future__ import annotations

import contextlib
import tempfile
from pathlib import Path, PurePosixPath

from ..grading.download import Budget, Exhausted, SourceError, open_zip, shown
from ..grading.intake import IGNORED_DIRS, MAX_BYTES, walk

MAX_MEMBERS = 200           # Python files read (or attempted) from all zips together
MAX_TOTAL = 4 * MAX_BYTES   # bytes read (or attempted) from all zips together


def needs_unpacking(folder: Path, modules: tuple[str, ...]) -> list[Path]:
    """The zips to unpack: every zip in the upload, when a module is missing
    (looked for with the grader's own bounded walk, links never followed)."""
    entries = walk(folder).entries
    names = {e.parts[-1] for e in entries}
    if all(m in names for m in modules):
        return []
    return [e.path for e in sorted(entries, key=lambda e: e.parts)
            if e.kind == "file" and e.parts[-1].endswith(".zip")]


def unpack(zips: list[Path], target: Path, modules: tuple[str, ...] = ()) -> list[str]:
    """Unpack the Python files of `zips` into `target` (one folder per zip); return notes
    for the feedback. A folder is kept only when it bears a module's name, so the
    grader can say that the module is a folder rather than that there is none."""
    notes, budget = [], Budget(MAX_TOTAL, MAX_MEMBERS, "upload")
    for number, archive in enumerate(zips):
        home = target / f"{number}-{archive.stem}"[:80]
        try:
            members = open_zip(archive).under(())
        except SourceError as error:
            notes.append(str(error))
            continue
        for member in members:
            if set(member.parts) & IGNORED_DIRS:
                continue
            if member.kind == "cut":
                notes.append(f"{archive.name}: {member.why}; the rest was not unpacked")
                break
            if member.kind == "dir" and member.name in modules:
                home.joinpath(*member.parts).mkdir(parents=True, exist_ok=True)
                notes.append(f"{archive.name}: {shown(member.parts)} is a folder, not a file")
            if member.kind != "file" or PurePosixPath(member.name).suffix != ".py":
                continue
            try:
                data = member.read(budget)
            except Exhausted as error:
                notes.append(f"{archive.name}: {error}; the rest was not unpacked")
                return notes
            except SourceError as error:
                notes.append(f"{archive.name}: {error} and was not unpacked")
                continue
            path = home.joinpath(*member.parts)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        else:
            notes.append(f"unpacked {archive.name}")
    return notes


@contextlib.contextmanager
def unpacked(folder: Path, modules: tuple[str, ...]):
    """(the folder to grade, notes for the feedback): the upload itself, or its zips
    unpacked into a temporary folder, removed on exit."""
    zips = needs_unpacking(folder, modules) if folder.is_dir() else []
    if not zips:
        yield folder, []
        return
    with tempfile.TemporaryDirectory(prefix="spielbaum-upload-") as temp:
        yield Path(temp), unpack(zips, Path(temp), modules)

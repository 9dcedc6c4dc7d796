"""What the student uploaded: the module alone, a folder, or a zip holding them.

When the module is not in the upload but a zip is, the zip (the student's, opened
in the trusted process) is unpacked into a folder of its own: Python files only,
never a link, never outside that folder, with caps on sizes and counts.
"""

from __future__ import annotations

import stat
import tempfile
import zipfile
from pathlib import Path, PurePosixPath

from ..grading.intake import IGNORED_DIRS, MAX_BYTES, walk

MAX_MEMBERS = 200           # Python files taken from all zips together
MAX_TOTAL = 4 * MAX_BYTES   # bytes taken from all zips together


def needs_unpacking(folder: Path, modules: tuple[str, ...]) -> list[Path]:
    """The zips to unpack: every zip in the upload, when a module is missing
    (looked for with the grader's own bounded walk, links never followed)."""
    entries = walk(folder).entries
    names = {e.parts[-1] for e in entries}
    if all(m in names for m in modules):
        return []
    return [e.path for e in sorted(entries, key=lambda e: e.parts)
            if e.kind == "file" and e.parts[-1].endswith(".zip")]


def _safe_name(info: zipfile.ZipInfo, modules: tuple[str, ...] = ()) -> PurePosixPath | None:
    """The member's path inside the target, or None to leave it out. A folder is
    kept only when it bears a module's name, so the grader can say that the
    module is a folder rather than that there is none."""
    name = PurePosixPath(info.filename.replace("\\", "/"))
    mode = info.external_attr >> 16
    if stat.S_ISLNK(mode) or name.is_absolute():
        return None
    if any(part in ("", ".", "..") for part in name.parts) or set(name.parts) & IGNORED_DIRS:
        return None
    if info.is_dir():
        return name if name.name in modules else None
    return name if name.suffix == ".py" else None


def unpack(zips: list[Path], target: Path, modules: tuple[str, ...] = ()) -> list[str]:
    """Unpack the Python files of `zips` into `target` (one folder per zip);
    return notes for the feedback."""
    notes, members, total = [], 0, 0
    for number, archive in enumerate(zips):
        home = target / f"{number}-{archive.stem}"[:80]
        try:
            with zipfile.ZipFile(archive) as opened:
                for info in opened.infolist():
                    name = _safe_name(info, modules)
                    if name is None:
                        continue
                    if info.is_dir():
                        home.joinpath(*name.parts).mkdir(parents=True, exist_ok=True)
                        notes.append(f"{archive.name}: {name} is a folder, not a file")
                        continue
                    if members >= MAX_MEMBERS or total >= MAX_TOTAL:
                        notes.append(f"{archive.name}: more than {MAX_MEMBERS} Python files "
                                     f"or {MAX_TOTAL >> 20} MB; the rest was not unpacked")
                        return notes
                    # The sizes a zip declares can lie: read at most one byte past the cap.
                    with opened.open(info) as source:
                        data = source.read(MAX_BYTES + 1)
                    if len(data) > MAX_BYTES:
                        notes.append(f"{archive.name}: {name} is larger than "
                                     f"{MAX_BYTES >> 20} MB and was not unpacked")
                        continue
                    path = home.joinpath(*name.parts)
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_bytes(data)
                    members, total = members + 1, total + len(data)
        except (zipfile.BadZipFile, OSError, RuntimeError, NotImplementedError) as error:
            notes.append(f"{archive.name} could not be unpacked ({type(error).__name__})")
            continue
        notes.append(f"unpacked {archive.name}")
    return notes


class Upload:
    """The folder to grade: the upload itself, or its zips unpacked (removed on exit)."""

    def __init__(self, folder: Path, modules: tuple[str, ...]):
        self.folder, self.modules = folder, modules
        self.notes: list[str] = []
        self._temp: tempfile.TemporaryDirectory | None = None

    def __enter__(self) -> Path:
        zips = needs_unpacking(self.folder, self.modules) if self.folder.is_dir() else []
        if not zips:
            return self.folder
        self._temp = tempfile.TemporaryDirectory(prefix="spielbaum-upload-")
        target = Path(self._temp.name)
        self.notes = unpack(zips, target, self.modules)
        return target

    def __exit__(self, *exc) -> None:
        if self._temp is not None:
            self._temp.cleanup()

"""What an LMS download holds, read as data: a folder or a zip, never trusted.

Everything in a download is the students' (file names, folder names, zip entry
names, sizes, contents), so `open_source` turns it into a flat list of
`Member`s, each with a path of checked parts, and nothing is read, extracted
or followed on the way:

- a folder is walked with the grader's own bounded walk (`intake.walk`: no
  recursion, no link followed, MAX_ENTRIES entries at most); a link, a FIFO or
  a device is a member of kind "link" or "other", never opened;
- a zip's entries are listed without extracting anything: an absolute name, a
  `..`, a link entry or a name no folder may have is refused with a note, and
  a name a Windows tool wrote in its code page is read as UTF-8 when it is
  UTF-8 (most tools write UTF-8 without saying so);
- names are NFC-normalised (macOS writes "José" decomposed), so one student's
  name has one spelling;
- a member's bytes are read only on demand, at most FILE_BYTES of them (a zip's
  declared size can lie: one byte past the cap is read, then it is refused).

A zip a student handed in inside the download (`submission.zip`) is opened the
same way by `expand`, one level deep.
"""

from __future__ import annotations

import io
import re
import stat
import unicodedata
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from .. import KitError
from ..grading import intake
from ..outputs.text import visible

FILE_BYTES = intake.MAX_BYTES        # one file taken from the download
MAX_ENTRIES = 100_000                # entries looked at in one download
NAME_BYTES = 255
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200e\u200f"
                      r"\u061c]")


class SourceError(Exception):
    """One member cannot be taken; the message says why, for the teacher."""


def part_problem(part: str) -> str | None:
    """None if `part` may name a file or folder in the import, else what is wrong."""
    if part in ("", ".", ".."):
        return "is not a name"
    if "/" in part or "\\" in part:
        return "holds a path separator"
    if _CONTROL.search(part):
        return "holds a control character"
    if any(0xD800 <= ord(c) <= 0xDFFF for c in part):
        return "is not valid UTF-8"
    if len(part.encode("utf-8")) > NAME_BYTES:
        return f"is longer than {NAME_BYTES} bytes"
    return None


def normal(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def shown(parts) -> str:
    """A member's path for a line of the teacher's report."""
    return visible("/".join(parts), lines=False)


@dataclass
class Member:
    parts: tuple[str, ...]           # the path inside the download, every part checked
    kind: str                        # "file", "dir", "link" or "other"
    size: int = 0                    # as the folder or the zip says (a zip may lie)
    _read: object = field(default=None, repr=False)

    @property
    def name(self) -> str:
        return self.parts[-1]

    def read(self) -> bytes:
        """The member's bytes, at most FILE_BYTES (SourceError beyond, or for a
        member that is not a regular file)."""
        if self.kind != "file" or self._read is None:
            raise SourceError(f"{shown(self.parts)} is not a regular file")
        return self._read()


@dataclass
class Source:
    members: list[Member]
    notes: list[str] = field(default_factory=list)     # what was refused while listing

    def children(self, parts: tuple[str, ...] = ()) -> list[Member]:
        """The members directly inside the folder `parts`."""
        depth = len(parts) + 1
        return [m for m in self.members if len(m.parts) == depth and m.parts[:-1] == parts]

    def under(self, parts: tuple[str, ...]) -> list[Member]:
        """Every member below the folder `parts` (not the folder itself)."""
        return [m for m in self.members
                if len(m.parts) > len(parts) and m.parts[:len(parts)] == parts]


def open_source(path: Path) -> Source:
    """The download at `path`: a folder, or a zip file."""
    if path.is_dir():
        return _folder(path)
    if path.is_file() and zipfile.is_zipfile(path):
        return _zip(path.name, path=path)
    if path.exists():
        raise KitError(f"{path} is neither a folder nor a zip file; give the folder or the "
                       "zip the LMS made")
    raise KitError(f"{path} does not exist")


# ------------------------------------------------------------ a folder
def _folder(root: Path) -> Source:
    walked = intake.walk(root, max_entries=MAX_ENTRIES)
    source = Source([])
    refused: set[tuple[str, ...]] = set()
    for entry in walked.entries:
        if any(entry.parts[:n] in refused for n in range(1, len(entry.parts))):
            continue
        parts = tuple(normal(p) for p in entry.parts)
        problem = next((f"{shown(entry.parts)}: the name {why}" for why in
                        map(part_problem, parts) if why), None)
        if problem:
            source.notes.append(f"{problem}; not imported")
            refused.add(entry.parts)
            continue
        if entry.kind == "file":
            try:
                size = entry.path.lstat().st_size
            except OSError:
                continue
            source.members.append(Member(parts, "file", size, _file_reader(entry.path)))
        else:
            source.members.append(Member(parts, entry.kind))
    if walked.cut:
        source.notes.append(f"the import stopped looking through {root.name} at {walked.cut}")
    return source


def _file_reader(path: Path):
    def read() -> bytes:
        try:
            return intake.read_module(path, FILE_BYTES)
        except intake.IntakeError as error:
            raise SourceError(str(error)) from None
    return read


# ------------------------------------------------------------ a zip
def _zip(label: str, path: Path | None = None, data: bytes | None = None,
         prefix: tuple[str, ...] = ()) -> Source:
    """The entries of a zip (a file at `path`, or the bytes `data` of a zip inside
    the download), as members below `prefix`."""
    source = Source([])
    try:
        opened = zipfile.ZipFile(path if data is None else io.BytesIO(data))
    except (zipfile.BadZipFile, OSError, ValueError) as error:
        raise SourceError(f"{label} is not a zip that can be read ({type(error).__name__})") \
            from None
    infos = opened.infolist()
    if len(infos) > MAX_ENTRIES:
        source.notes.append(f"{label} holds {len(infos):,} entries; only the first "
                            f"{MAX_ENTRIES:,} were looked at")
        infos = infos[:MAX_ENTRIES]
    folders: set[tuple[str, ...]] = set()
    seen: set[tuple[str, ...]] = set()
    for info in infos:
        parts, problem = _entry_parts(info)
        if problem:
            source.notes.append(f"{label}: {problem}; not imported")
            continue
        if not parts or (prefix + parts) in seen:
            if parts:
                source.notes.append(f"{label}: {shown(parts)} appears twice; only the first "
                                    "is imported")
            continue
        parts = prefix + parts
        for n in range(len(prefix) + 1, len(parts)):    # folders a zip need not list
            if parts[:n] not in folders:
                folders.add(parts[:n])
                source.members.append(Member(parts[:n], "dir"))
        mode = info.external_attr >> 16
        if info.is_dir():
            if parts not in folders:
                folders.add(parts)
                source.members.append(Member(parts, "dir"))
            continue
        seen.add(parts)
        if stat.S_ISLNK(mode):
            source.members.append(Member(parts, "link"))
        elif mode and not stat.S_ISREG(mode) and stat.S_IFMT(mode):
            source.members.append(Member(parts, "other"))
        else:
            source.members.append(Member(parts, "file", info.file_size,
                                         _entry_reader(opened, info, label)))
    return source


def _entry_parts(info: zipfile.ZipInfo) -> tuple[tuple[str, ...], str | None]:
    name = info.filename
    if not info.flag_bits & 0x800:           # no UTF-8 flag: zipfile read it as cp437
        try:
            name = name.encode("cp437").decode("utf-8")
        except (UnicodeEncodeError, UnicodeDecodeError):
            pass
    name = normal(name.replace("\\", "/"))
    if name.startswith("/") or re.match(r"^[A-Za-z]:", name):
        return (), f"{visible(name, lines=False)} is an absolute path"
    parts = tuple(p for p in name.split("/") if p not in ("", "."))
    if ".." in parts:
        return (), f"{visible(name, lines=False)} points outside the zip (..)"
    for part in parts:
        why = part_problem(part)
        if why:
            return (), f"{visible(name, lines=False)}: the name {why}"
    return parts, None


def _entry_reader(opened: zipfile.ZipFile, info: zipfile.ZipInfo, label: str):
    def read() -> bytes:
        if info.file_size > FILE_BYTES:
            raise SourceError(f"{info.filename} is larger than {FILE_BYTES >> 20} MB")
        try:
            with opened.open(info) as handle:
                data = handle.read(FILE_BYTES + 1)
        except (zipfile.BadZipFile, OSError, RuntimeError, NotImplementedError,
                EOFError, ValueError) as error:
            raise SourceError(f"{label}: {visible(info.filename, False)} could not be read "
                              f"({type(error).__name__})") from None
        if len(data) > FILE_BYTES:
            raise SourceError(f"{visible(info.filename, False)} is larger than "
                              f"{FILE_BYTES >> 20} MB")
        return data
    return read


def expand(member: Member, into: tuple[str, ...]) -> Source:
    """A zip the student handed in (a member of the download), opened one level
    deep as members below `into`; a zip inside it is left as a file."""
    data = member.read()
    return _zip(shown(member.parts), data=data, prefix=into)

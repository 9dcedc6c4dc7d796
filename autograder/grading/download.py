"""A download or an upload read as data: a folder or a zip, never trusted.

`open_source` turns a download into a tree of `Member`s, each named by a checked,
NFC-normalised part; nothing is read, extracted or followed on the way, and budgets
hold whatever the download does (docs/TEACHING.md, "Submissions from an LMS"). A zip
a student handed in (`expand`, `open_zip`) is opened the same way, one level deep.
"""

from __future__ import annotations

import io
import os
import re
import stat
import unicodedata
import zipfile
from pathlib import Path

from .. import KitError
from . import intake
from ..outputs.text import CONTROL, shortened, visible

FILE_BYTES = intake.MAX_BYTES        # one file taken from the download
MAX_ENTRIES = 100_000                # entries looked at in one download
MAX_DEPTH = 48                       # levels of one entry's path in a download
STUDENT_ENTRIES = intake.MAX_ENTRIES  # files and folders below one student's folder
STUDENT_DEPTH = intake.MAX_DEPTH     # folder levels below one student's folder
PATH_BYTES = 1_000                   # one path below a student's folder, in UTF-8
NAME_BYTES = 255
CHUNK = 64 << 10                     # bytes decompressed per step (and charged on failure)
SHOWN = 120                          # characters of a path in a line for the teacher


class SourceError(Exception):
    """One member cannot be taken; the message says why, for the teacher."""


class Exhausted(SourceError):
    """A budget (`Budget`) is spent: the student, or the import, stops here."""

    def __init__(self, message: str, scope: str):
        super().__init__(message)
        self.scope = scope                 # "student" or "import"


class Budget:
    """Reads and bytes one student (or one import: the `parent`) may spend, a read
    that fails included: a bomb of entries that each fail costs their bytes too."""

    def __init__(self, max_bytes: int, max_reads: int, scope: str, parent: Budget | None = None):
        self.max_bytes, self.max_reads, self.scope, self.parent = \
            max_bytes, max_reads, scope, parent
        self.spent = self.reads = 0

    def read(self) -> None:
        self.reads += 1
        if self.reads > self.max_reads:
            raise Exhausted(f"more than {self.max_reads:,} files to read", self.scope)

    def charge(self, size: int) -> None:
        self.spent += size
        if self.parent is not None:
            self.parent.charge(size)
        if self.spent > self.max_bytes:
            raise Exhausted(f"more than {_size(self.max_bytes)} read (or attempted)", self.scope)


def _size(size: int) -> str:
    return f"{size >> 30} GB" if size >= 1 << 30 else f"{size >> 20} MB"


def part_problem(part: str) -> str | None:
    """None if `part` may name a file or folder in the import, else what is wrong."""
    if part in ("", ".", ".."):
        return "is not a name"
    if "/" in part or "\\" in part:
        return "holds a path separator"
    if CONTROL.search(part):
        return "holds a control character"
    if any(0xD800 <= ord(c) <= 0xDFFF for c in part):
        return "is not valid UTF-8"
    if len(part.encode("utf-8")) > NAME_BYTES:
        return f"is longer than {NAME_BYTES} bytes"
    return None


def normal(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def shown(parts) -> str:
    """A member's path for a line of the teacher's report (long ones shortened)."""
    return shortened(visible("/".join(parts), lines=False), SHOWN)


class Member:
    """One entry of the download: a node of the tree, named by a checked part.

    kind is "file", "dir", "link", "other" (a FIFO, a device), "cut" (where
    `Source.under` stopped because a budget was spent) or "refused" (an entry whose
    name was refused, kept so that its student's row says why); `why` says why."""

    __slots__ = ("name", "parent", "kind", "size", "why", "_read", "_children", "_path")

    def __init__(self, name: str, parent: Member | None, kind: str, size: int = 0,
                 reader=None, path: Path | None = None, why: str = ""):
        self.name, self.parent, self.kind, self.size, self.why = name, parent, kind, size, why
        self._read, self._path = reader, path
        self._children: dict[str, Member] | None = {} if kind == "dir" and path is None \
            else None

    @property
    def parts(self) -> tuple[str, ...]:
        names, node = [], self
        while node is not None and node.parent is not None:
            names.append(node.name)
            node = node.parent
        return tuple(reversed(names))

    def read(self, budget: Budget | None = None) -> bytes:
        """The member's bytes, at most FILE_BYTES (SourceError beyond, or for a
        member that is not a regular file), charged to `budget`."""
        if self.kind != "file" or self._read is None:
            raise SourceError(f"{shown(self.parts)} is not a regular file")
        budget = budget or Budget(FILE_BYTES + CHUNK, 1, "student")
        budget.read()
        return self._read(budget)

    def __repr__(self) -> str:
        return f"Member({'/'.join(self.parts)!r}, {self.kind!r})"


class Source:
    """The tree of a download. A folder's members are listed when first asked for."""

    def __init__(self, root: Member, lister=None):
        self.root = root
        self.notes: list[str] = []          # what was refused while listing
        self._lister = lister               # lists one folder of a folder source
        self.listed = 0

    def _listing(self, folder: Member) -> dict[str, Member]:
        if folder._children is None:
            folder._children = {}
            if self._lister is not None:
                self._lister(self, folder)
        return folder._children

    def find(self, parts: tuple[str, ...]) -> Member | None:
        node = self.root
        for part in parts:
            if node.kind != "dir":
                return None
            node = self._listing(node).get(part)
            if node is None:
                return None
        return node

    def children(self, parts: tuple[str, ...] = ()) -> list[Member]:
        """The members directly inside the folder `parts`."""
        folder = self.find(parts)
        if folder is None or folder.kind != "dir":
            return []
        return list(self._listing(folder).values())

    def under(self, parts: tuple[str, ...]) -> list[Member]:
        """Every member below the folder `parts` (one student's), breadth first, at
        most STUDENT_ENTRIES of them, STUDENT_DEPTH levels and paths of PATH_BYTES;
        where a budget stops the walk, the last member is of kind "cut"."""
        folder = self.find(parts)
        if folder is None or folder.kind != "dir":
            return []
        found: list[Member] = []
        level, depth = [folder], 0
        while level:
            depth += 1
            below = []
            for node in level:
                listing = self._listing(node)
                if node.why:                      # a listing that stopped, or too deep
                    return found + [_cut(node, node.why)]
                for child in listing.values():
                    if len(found) >= STUDENT_ENTRIES:
                        return found + [_cut(folder, f"more than {STUDENT_ENTRIES:,} files "
                                                     "and folders")]
                    found.append(child)
                    if child.kind == "dir":
                        if depth >= STUDENT_DEPTH:
                            return found + [_cut(child, f"folders more than {STUDENT_DEPTH} "
                                                        "deep")]
                        below.append(child)
                    elif len("/".join(child.parts[len(parts):]).encode()) > PATH_BYTES:
                        return found + [_cut(child, f"a path longer than {PATH_BYTES:,} "
                                                    "bytes")]
            level = below
        return found


def _cut(where: Member, why: str) -> Member:
    return Member(where.name, where.parent, "cut", why=f"{why} ({shown(where.parts)})")


def open_source(path: Path) -> Source:
    """The download at `path`: a folder, or a zip file."""
    if path.is_dir():
        return Source(Member("", None, "dir", path=path), _list_folder)
    if path.is_file() and zipfile.is_zipfile(path):
        return _zip(path.name, path=path)
    if path.exists():
        raise KitError(f"{path} is neither a folder nor a zip file; give the folder or the "
                       "zip the LMS made")
    raise KitError(f"{path} does not exist")


# ------------------------------------------------------------ a folder
def _list_folder(source: Source, folder: Member) -> None:
    """The entries of one folder of the download, as members (links never followed)."""
    try:
        with os.scandir(folder._path) as listing:
            found = []
            for item in listing:
                if len(found) >= STUDENT_ENTRIES or source.listed >= MAX_ENTRIES:
                    folder.why = (f"more than {STUDENT_ENTRIES:,} entries in one folder"
                                  if len(found) >= STUDENT_ENTRIES else
                                  f"the import looked at {MAX_ENTRIES:,} entries")
                    break
                found.append(item)
                source.listed += 1
    except OSError as error:
        source.notes.append(f"{shown(folder.parts)}: could not be listed ({error.strerror}); "
                            "not imported")
        return
    if len(folder.parts) >= MAX_DEPTH and found:
        folder.why = f"folders more than {MAX_DEPTH} deep"
        return
    for item in sorted(found, key=lambda e: e.name):
        name = normal(item.name)
        why = part_problem(name)
        if why:
            said = f"{shown(folder.parts + (item.name,))}: the name {why}"
            source.notes.append(f"{said}; not imported")
            _refused(folder, said)
            continue
        if name in folder._children:
            source.notes.append(f"{shown(folder.parts + (name,))} appears twice; only the "
                                "first is imported")
            continue
        try:
            info = item.stat(follow_symlinks=False)
        except OSError:
            continue
        mode, path = info.st_mode, Path(item.path)
        if stat.S_ISDIR(mode):
            member = Member(name, folder, "dir", path=path)
        elif stat.S_ISREG(mode):
            member = Member(name, folder, "file", info.st_size, _file_reader(path))
        else:
            member = Member(name, folder, "link" if stat.S_ISLNK(mode) else "other")
        folder._children[name] = member


def _file_reader(path: Path):
    def read(budget: Budget) -> bytes:
        try:
            data = intake.read_module(path, FILE_BYTES)
        except intake.IntakeError as error:
            raise SourceError(str(error)) from None
        budget.charge(len(data))
        return data
    return read


# ------------------------------------------------------------ a zip
def _zip(label: str, path: Path | None = None, data: bytes | None = None,
         max_entries: int = MAX_ENTRIES) -> Source:
    """The entries of a zip (a file at `path`, or the bytes `data` of a zip inside
    the download), as a tree."""
    try:
        opened = zipfile.ZipFile(path if data is None else io.BytesIO(data))
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as error:
        raise SourceError(f"{label} is not a zip that can be read ({type(error).__name__})") \
            from None
    source = Source(Member("", None, "dir"))
    infos = opened.infolist()
    if len(infos) > max_entries:
        source.root.why = f"the zip holds {len(infos):,} entries, more than {max_entries:,}"
        source.notes.append(f"{label} holds {len(infos):,} entries; only the first "
                            f"{max_entries:,} were looked at")
        infos = infos[:max_entries]
    for info in infos:
        parts, problem = _entry_parts(info)
        if problem:
            source.notes.append(f"{label}: {problem}; not imported")
            if parts:                 # the folders before the refused part: its owner's
                _refused(_deepest(source, parts[:MAX_DEPTH]), f"{label}: {problem}")
        elif len(parts) > MAX_DEPTH:
            # Only its first levels are kept: the student whose folder holds it is
            # told why (`under` stops there), and it costs no more than they do.
            _deepest(source, parts[:MAX_DEPTH]).why = f"folders more than {MAX_DEPTH} deep"
        elif parts:
            _add_entry(source, label, parts, info, opened)
    return source


def _refused(folder: Member, said: str) -> None:
    """Keep a refused entry in `folder` as a member of kind "refused" (its name holds
    a NUL, which no checked part can: it never meets a real entry or a path). At the
    top of the download it has no owner, and the import's notes say it."""
    if folder.parent is not None and folder.kind == "dir" and folder._children is not None:
        name = f"\0refused {len(folder._children)}"
        folder._children[name] = Member(name, folder, "refused", why=said)


def _deepest(source: Source, parts: tuple[str, ...]) -> Member:
    """The deepest folder of `parts` the tree has or can have (made as needed)."""
    folder = source.root
    for part in parts:
        child = folder._children.get(part)
        if child is None:
            child = folder._children[part] = Member(part, folder, "dir")
        if child.kind != "dir":
            break
        folder = child
    return folder


def _add_entry(source: Source, label: str, parts: tuple[str, ...], info: zipfile.ZipInfo,
               opened: zipfile.ZipFile) -> None:
    """Put one zip entry into the tree (with the folders a zip need not list)."""
    folder = _deepest(source, parts[:-1])
    if folder.parts != parts[:-1]:           # a file is in the way
        source.notes.append(f"{label}: {shown(parts)} lies inside a file; not imported")
        return
    name, mode = parts[-1], info.external_attr >> 16
    known = folder._children.get(name)
    if info.is_dir():
        if known is None:
            folder._children[name] = Member(name, folder, "dir")
        return
    if known is not None:
        source.notes.append(f"{label}: {shown(parts)} appears twice; only the first is "
                            "imported")
        return
    if stat.S_ISLNK(mode):
        member = Member(name, folder, "link")
    elif mode and not stat.S_ISREG(mode) and stat.S_IFMT(mode):
        member = Member(name, folder, "other")
    else:
        member = Member(name, folder, "file", info.file_size, _entry_reader(opened, info, label))
    folder._children[name] = member


def _entry_parts(info: zipfile.ZipInfo) -> tuple[tuple[str, ...], str | None]:
    name = info.filename
    if not info.flag_bits & 0x800:           # no UTF-8 flag: zipfile read it as cp437
        try:
            name = name.encode("cp437").decode("utf-8")
        except (UnicodeEncodeError, UnicodeDecodeError):
            pass
    name = normal(name.replace("\\", "/"))
    said = shortened(visible(name, lines=False), SHOWN)
    if name.startswith("/") or re.match(r"^[A-Za-z]:", name):
        return (), f"{said} is an absolute path"
    parts = tuple(p for p in name.split("/") if p not in ("", "."))
    # With a problem, the parts are the folders before the first refused part.
    for index, part in enumerate(parts[:MAX_DEPTH + 1]):   # the rest is never a name
        if part == "..":
            return parts[:index], f"{said} points outside the zip (..)"
        why = part_problem(part)
        if why:
            return parts[:index], f"{said}: the name {why}"
    if ".." in parts:
        return (), f"{said} points outside the zip (..)"
    return parts, None


#: The compression methods read (an allow-list): every zip tool writes these. zipfile
#: decompresses a bzip2 or LZMA block whole, however large it grows, before a read
#: returns; deflate only as much as asked for, so a budget can be held.
METHODS = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflate"}


def _entry_reader(opened: zipfile.ZipFile, info: zipfile.ZipInfo, label: str):
    def read(budget: Budget) -> bytes:
        if info.compress_type not in METHODS:
            raise SourceError(f"{shortened(visible(info.filename, False), SHOWN)} is compressed "
                              f"with method {info.compress_type}, which the import does not "
                              "read (only stored and deflate: zip it again with any zip tool)")
        too_large = SourceError(f"{visible(info.filename, False)} is larger than "
                                f"{FILE_BYTES >> 20} MB")
        if info.file_size > FILE_BYTES:
            raise too_large
        chunks, size = [], 0
        try:
            with opened.open(info) as handle:
                while size <= FILE_BYTES:
                    chunk = handle.read(min(CHUNK, FILE_BYTES + 1 - size))
                    if not chunk:
                        break
                    budget.charge(len(chunk))
                    chunks.append(chunk)
                    size += len(chunk)
        except (zipfile.BadZipFile, OSError, RuntimeError, NotImplementedError,
                EOFError, ValueError, zipfile.LargeZipFile) as error:
            # The failing step decompressed up to CHUNK bytes before it failed.
            budget.charge(CHUNK)
            raise SourceError(f"{label}: {shortened(visible(info.filename, False), SHOWN)} "
                              f"could not be read ({type(error).__name__})") from None
        if size > FILE_BYTES:
            raise too_large
        return b"".join(chunks)
    return read


def open_zip(path: Path) -> Source:
    """A zip file the student uploaded, opened one level deep (SourceError if it is none)."""
    return _zip(path.name, path=path, max_entries=STUDENT_ENTRIES)


def expand(member: Member, budget: Budget | None = None) -> Source:
    """A zip the student handed in (a member of the download), opened one level
    deep; a zip inside it is left as a file. Its bytes are charged to `budget`,
    and it may hold at most STUDENT_ENTRIES entries."""
    data = member.read(budget)
    return _zip(shown(member.parts), data=data, max_entries=STUDENT_ENTRIES)

"""How a submission enters the grader: folders, names, walks, sizes, the scratch copy.

Everything here reads what a student controls, in the trusted process, so every
read is bounded (MAX_DEPTH, MAX_ENTRIES, MAX_BYTES) and no link is followed; only
the assignment's modules ever reach the sandbox (a copy of a file the kit ships
cannot stand in for work), and what was left out is named, never silently dropped.
"""

from __future__ import annotations

import collections
import contextlib
import fcntl
import multiprocessing.util
import os
import shutil
import stat
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..i18n import grader_text as _
from .. import KitError
from ..outputs.paths import ROSTER, student_id_problem
from ..outputs.spreadsheet import uncell
from ..outputs.text import visible

MAX_BYTES = 5 << 20          # one module, and all of a submission's modules together
IGNORED_DIRS = {"__pycache__", "__MACOSX", ".git", ".venv", "venv", ".ipynb_checkpoints"}
MAX_DEPTH = 32               # folders below the submission's own
MAX_ENTRIES = 10_000         # files and folders looked at in one submission


class IntakeError(Exception):
    """A submission cannot be graded as it is; the message says why, for the student."""


# ------------------------------------------------------------ the submissions folder
@dataclass
class Survey:
    folders: list[Path]                                   # one per student id
    refused: list[tuple[str, str]] = field(default_factory=list)   # (folder name, why)
    others: list[tuple[str, str]] = field(default_factory=list)    # not a student folder

    def lines(self) -> list[str]:
        """What to tell the teacher about entries that are not graded as they are."""
        return ([f"{name}: not a usable student id: the name {why}; rename the folder"
                 for name, why in self.refused] + [f"{name}: {why}" for name, why in self.others])


def survey(submissions: Path) -> Survey:
    """The student folders in `submissions`, and what else it holds. A symbolic link
    is a student folder too (graded as missing, never followed)."""
    if not submissions.is_dir():
        raise KitError(f"{submissions} is not a folder of submissions")
    result = Survey([])
    for entry in sorted(submissions.iterdir()):
        name = entry.name
        if entry.is_symlink() or entry.is_dir():
            if name.startswith("."):
                if name not in IGNORED_DIRS:
                    result.others.append((name, "a hidden folder, not graded (a student "
                                                "id never starts with a dot)"))
                continue
            problem = student_id_problem(name)
            if problem:
                result.refused.append((name, problem))
            else:
                result.folders.append(entry)
        elif name == ROSTER and entry.is_file():
            continue            # the ids and names of an LMS import (autograder/lms/)
        elif not name.startswith("."):
            result.others.append((name, "a file, not a student folder, not graded (put "
                                        "each student's files in a folder named by their id)"))
    if not result.folders:
        why = f": {visible(result.refused[0][0], False)} {result.refused[0][1]}" \
            if result.refused else ""
        raise KitError(f"{submissions} holds no student folders (one folder per student, "
                       f"named by the student id){why}")
    return result


def read_roster(submissions: Path) -> dict[str, dict]:
    """student id -> its row of the students.csv an LMS import wrote beside the
    student folders ({} without one), each cell as the import had it (a name the CSV
    writer quoted as "'=Name" is "=Name" again: feedback titles show the name)."""
    import csv
    import io
    try:
        text = read_module(submissions / ROSTER, 64 << 20).decode("utf-8", errors="replace")
    except (IntakeError, OSError):
        return {}
    rows = ({key: uncell(value or "") for key, value in row.items() if key}
            for row in csv.DictReader(io.StringIO(text)))
    return {row["student"]: row for row in rows if row.get("student")}


def roster_names(submissions: Path) -> dict[str, str]:
    """student id -> display name (read_roster): the terminal table and the
    feedback titles show the name beside the id."""
    return {student: (row.get("name") or "").strip()
            for student, row in read_roster(submissions).items()
            if (row.get("name") or "").strip()}


def student_folders(submissions: Path) -> list[Path]:
    """Every folder that stands for a student, named well or not (the similarity
    report names each of them)."""
    found = survey(submissions)
    return sorted(found.folders + [submissions / name for name, _ in found.refused])


#: The file `grade` leaves in its --out: the folder is the grader's, and grading
#: into it again replaces what it holds. A folder without it is never written into
#: unless it is empty: the kit deletes only what it made.
GRADE_MARKER = ".spielbaum-grade"


def claim_out_dir(submissions: Path, out_dir: Path) -> None:
    """Refuse an output folder that is, or is inside, the submissions folder, or
    that is neither empty nor an earlier run's (GRADE_MARKER); then mark it as the
    grader's and remove an earlier grades.csv, so a run that stops never leaves one
    that looks current."""
    subs, out = submissions.resolve(), out_dir.resolve()
    if out == subs or subs in out.parents:
        raise KitError(f"--out {out_dir} is inside the submissions folder {submissions}: "
                       "the grader would overwrite the submissions; choose a folder outside it")
    claim_folder(out_dir, GRADE_MARKER, "autograder grade", KIT_NEIGHBOURS)
    with contextlib.suppress(FileNotFoundError, IsADirectoryError):
        (out_dir / "grades.csv").unlink()


#: What another command of the kit puts into OUT by default: `autograder mutate`'s
#: reports (out/mutation/ASSIGNMENT) may sit in a folder `grade` has not marked yet.
KIT_NEIGHBOURS = frozenset({"mutation"})


#: What grading writes into OUT/<student> (report.write_student, behaviour_record.FILE).
STUDENT_FILES = frozenset({"results.json", "feedback.md", "feedback.html", "grader-error.txt",
                           "fingerprint.json"})


def graded_folder(folder: Path) -> bool:
    """True if `folder` (OUT/<student>) is absent, or holds nothing but files the
    grader writes: only such a folder is replaced (a report of another command
    that shares a student's name stays, its own files with it)."""
    if folder.is_symlink():
        return False
    if not folder.exists():
        return True
    try:
        with os.scandir(folder) as listing:
            return all(entry.name in STUDENT_FILES and entry.is_file(follow_symlinks=False)
                       for entry in listing)
    except OSError:
        return False


def claim_folder(folder: Path, marker: str, command: str,
                 neighbours: frozenset = frozenset()) -> None:
    """Make `folder` the kit's (a new or empty folder, one an earlier run of
    `command` marked with `marker`, or one holding only the kit's `neighbours`);
    KitError, saying why and what to do, for anything else: a folder of the
    teacher's is never written into or emptied."""
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        raise KitError(f"--out {folder} is a file or a link, not a folder; choose a new "
                       "folder")
    mark = folder / marker
    if folder.is_dir() and not (mark.is_file() and not mark.is_symlink()):
        with os.scandir(folder) as listing:
            if any(entry.name not in neighbours for entry in listing):
                raise KitError(f"--out {folder} is not empty and was not made by {command} "
                               f"(it holds no {marker}): the kit writes only into a new or "
                               "empty folder, or into one it made; choose another --out")
    folder.mkdir(parents=True, exist_ok=True)
    mark.write_text(f"This folder was made by `{command}`; running it again with this "
                    "--out replaces what it holds.\n", encoding="utf-8")


def remove_tree(top: Path) -> None:
    """Remove `top` and everything below it without recursion and without following
    a link (shutil.rmtree recurses once per level, and fails on a deep tree): one
    open folder at a time, going back up through "..", so also a tree deeper than
    PATH_MAX or the open-file limit goes."""
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
    try:
        fd = os.open(top, flags)
    except FileNotFoundError:
        return
    except OSError:                          # a file or a link: removed, never followed
        os.unlink(top)
        return
    names: list[str] = []
    while True:
        deeper = None
        with os.scandir(fd) as listing:
            for entry in listing:
                if entry.is_dir(follow_symlinks=False):
                    deeper = entry.name
                    break
                os.unlink(entry.name, dir_fd=fd)
        if deeper is not None:
            child = os.open(deeper, flags, dir_fd=fd)
            os.close(fd)
            fd = child
            names.append(deeper)
            continue
        if not names:
            os.close(fd)
            break
        parent = os.open("..", flags, dir_fd=fd)
        os.close(fd)
        fd = parent
        os.rmdir(names.pop(), dir_fd=fd)
    os.rmdir(top)


# ------------------------------------------------------------ one submission
@dataclass
class Entry:
    path: Path
    parts: tuple[str, ...]       # relative to the folder walked
    kind: str                    # "file", "dir", "link" or "other" (a FIFO, a device, ...)


@dataclass
class Walk:
    entries: list[Entry]
    cut: str = ""                # why the walk stopped early, or ""


def walk(folder: Path, max_entries: int = MAX_ENTRIES) -> Walk:
    """Every entry under `folder`, breadth first, sorted within a folder, links
    never followed, IGNORED_DIRS left out; bounded in depth and count."""
    entries, cut = [], ""
    queue = collections.deque([((), folder)])
    while queue:
        parts, here = queue.popleft()
        try:
            with os.scandir(here) as listing:
                found = sorted(listing, key=lambda e: e.name)
        except OSError:
            continue
        for item in found:
            if item.name in IGNORED_DIRS:
                continue
            if len(entries) >= max_entries:
                return Walk(entries, _("more than {entries:,} files and folders").format(
                    entries=max_entries))
            path, mine = Path(item.path), parts + (item.name,)
            try:
                mode = item.stat(follow_symlinks=False).st_mode
            except OSError:
                continue
            kind = ("link" if stat.S_ISLNK(mode) else "dir" if stat.S_ISDIR(mode)
                    else "file" if stat.S_ISREG(mode) else "other")
            entries.append(Entry(path, mine, kind))
            if kind == "dir":
                if len(mine) >= MAX_DEPTH:
                    cut = _("folders more than {depth} deep").format(depth=MAX_DEPTH)
                else:
                    queue.append((mine, path))
    return Walk(entries, cut)


def _shown(parts: tuple[str, ...]) -> str:
    """A path inside a submission, for a sentence of one line."""
    return visible("/".join(parts), lines=False)


def locate(folder: Path, modules: tuple[str, ...]) -> tuple[Path | None, str, str]:
    """(the folder holding every module, "", "") or (None, status, why not): status
    "missing" (no such file, or only a link, a folder, a special file of that name)
    or "ambiguous" (more than one, or not side by side)."""
    walked = walk(folder)
    homes = []
    for module in modules:
        named = [e for e in walked.entries if e.parts[-1] == module]
        files = [e for e in named if e.kind == "file"]
        if not files:
            kinds = {e.kind for e in named}
            if "link" in kinds:
                why = _("{module} is a symbolic link, which the grader does not follow").format(
                    module=module)
            elif "dir" in kinds:
                why = _("{module} is a folder, not a file").format(module=module)
            elif "other" in kinds:
                why = _("{module} is not a regular file").format(module=module)
            else:
                unsearched = (" " + _("(the grader stopped looking at {limit})").format(
                    limit=walked.cut)) if walked.cut else ""
                zips = [e for e in walked.entries if e.kind == "file"
                        and e.parts[-1].lower().endswith(".zip")]
                if zips:     # an LMS took a zip; the import unpacks it (autograder/lms/)
                    unsearched += _("; it holds {zip}: `autograder import folders` unpacks "
                                    "the zips of a folder of submissions").format(
                        zip=_shown(zips[0].parts))
                notebooks = [e for e in walked.entries if e.kind == "file"
                             and e.parts[-1].lower().endswith(".ipynb")]
                if notebooks:   # the handout notebook holds no code of the student's
                    unsearched += _("; only the notebook {notebook} was handed in: the "
                                    "grader reads your code from {module}, not from the "
                                    "notebook, so hand in {module} beside it").format(
                        notebook=_shown(notebooks[0].parts), module=module)
                why = _("no file named {module} in the submission").format(
                    module=module) + unsearched
            return None, "missing", why
        if len(files) > 1:
            places = ", ".join(_shown(e.parts) for e in files[:4])
            return None, "ambiguous", _("{module} appears {count} times ({places}): keep only "
                                        "one").format(module=module, count=len(files),
                                                      places=places)
        homes.append(files[0].path.parent)
    if len(set(homes)) > 1:
        return None, "ambiguous", _("the modules must sit in the same folder")
    return homes[0], "", ""


def read_module(path: Path, limit: int = MAX_BYTES) -> bytes:
    """The bytes of one module (or another file of the student's the grader must
    read), its size checked before anything is read; a link, a folder or a special
    file is refused (IntakeError)."""
    name = visible(path.name, lines=False)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as error:
        raise IntakeError(f"{name} could not be read ({error.strerror})") from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise IntakeError(f"{name} is not a regular file")
        if info.st_size > limit:
            raise IntakeError(f"{name} is {_megabytes(info.st_size)}, larger than the "
                              f"{_megabytes(limit)} the grader reads of a file; not graded")
        data = handle.read(limit + 1)
    if len(data) > limit:            # grew while being read
        raise IntakeError(f"{name} is larger than the {_megabytes(limit)} the grader reads "
                          "of a file; not graded")
    return data


def _megabytes(size: int) -> str:
    return f"{size / (1 << 20):.1f} MB" if size % (1 << 20) else f"{size >> 20} MB"


# ------------------------------------------------------------ the scratch copy
# Scratch folders live under one folder per grading process, which holds a lock
# for as long as the process lives. A grader killed with SIGKILL cannot clean
# up; the next grading process finds its folder unlocked and removes it.
SCRATCH_ROOT = Path(tempfile.gettempdir()) / "spielbaum-scratch"
_owner: tuple[int, Path, object] | None = None


def _scratch_home() -> Path:
    global _owner
    if _owner is None or _owner[0] != os.getpid():
        SCRATCH_ROOT.mkdir(mode=0o711, exist_ok=True)
        sweep_scratch()
        # Made under a name the sweeper leaves alone, locked, then renamed: a
        # run-* folder is locked from the moment it exists.
        young = Path(tempfile.mkdtemp(prefix="new-", dir=SCRATCH_ROOT))
        young.chmod(0o711)      # sandbox users (uid layer) pass through to their own folder
        lock = open(young / ".lock", "w")
        fcntl.flock(lock, fcntl.LOCK_EX)
        folder = SCRATCH_ROOT / f"run-{os.getpid()}-{young.name.removeprefix('new-')}"
        young.rename(folder)
        _owner = (os.getpid(), folder, lock)
        # At a clean exit (also of a forked worker, which skips atexit), remove it.
        multiprocessing.util.Finalize(None, shutil.rmtree, args=(folder, True), exitpriority=10)
    return _owner[1]


def sweep_scratch() -> None:
    """Remove the scratch folders of grading processes that are gone."""
    for folder in SCRATCH_ROOT.glob("new-*"):
        with contextlib.suppress(OSError):
            if time.time() - folder.stat().st_mtime > 60:   # a creation cut short
                shutil.rmtree(folder, ignore_errors=True)
    for folder in SCRATCH_ROOT.glob("run-*"):
        try:
            with open(folder / ".lock", "a") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                shutil.rmtree(folder, ignore_errors=True)
        except (BlockingIOError, FileNotFoundError, NotADirectoryError):
            continue        # alive (locked), or half made or removed by another sweeper


@dataclass
class Prepared:
    """What grading takes from one submission, as plain data: the modules' bytes
    (nothing else of the folder ever reaches the sandbox) and the notes on what
    was left out. It can travel to another machine (grading on a cluster)."""
    modules: dict[str, bytes]
    notes: list[str]


def prepare(folder: Path, modules: tuple[str, ...]) -> tuple[Prepared | None, str, str]:
    """(Prepared, "", "") or (None, status, why the submission cannot be graded)."""
    if folder.is_symlink():
        return None, "missing", ("the submission folder is a symbolic link, which the "
                                 "grader does not follow")
    home, status, problem = locate(folder, modules)
    if home is None:
        return None, status, problem
    try:
        return read_modules(home, modules), "", ""
    except IntakeError as error:
        return None, "import-error", str(error)


def read_modules(home: Path, modules: tuple[str, ...]) -> Prepared:
    """The modules in `home`, checked; IntakeError if one cannot be graded (too
    large, a NUL byte, not a file)."""
    contents = {}
    for module in modules:
        data = read_module(home / module)
        if b"\0" in data:          # Python cannot import it at all
            line = data.count(b"\n", 0, data.index(b"\0")) + 1
            raise IntakeError(f"{visible(module, lines=False)} holds a NUL byte (line {line}), "
                              "which Python cannot import: save the file as plain text")
        contents[module] = data
    if sum(map(len, contents.values())) > MAX_BYTES:
        raise IntakeError(f"the modules are larger than {_megabytes(MAX_BYTES)} together; "
                          "not graded")
    return Prepared(contents, _left_out(home, modules))


def scratch_for(prepared: Prepared) -> Path:
    """A fresh scratch folder holding the prepared modules (and nothing else)."""
    scratch = Path(tempfile.mkdtemp(prefix="s-", dir=_scratch_home()))
    for module, data in prepared.modules.items():
        (scratch / module).write_bytes(data)
    return scratch


def _left_out(home: Path, modules: tuple[str, ...]) -> list[str]:
    walked = walk(home)
    rest = sorted((e for e in walked.entries if e.parts[-1] not in modules),
                  key=lambda e: e.parts)
    notes = []
    links = [_shown(e.parts) for e in rest if e.kind == "link"]
    if links:
        notes.append(f"{_few(links)}: symbolic links are not copied")
    others = [_shown(e.parts) for e in rest if e.kind == "file" and e.parts[-1].endswith(".py")]
    if others:
        graded = ", ".join(modules) + (" is" if len(modules) == 1 else " are")
        notes.append(f"only {graded} graded; not copied: {_few(others)}")
    if walked.cut:
        notes.append(f"the grader stopped looking through the folder at {walked.cut}")
    return notes


def _few(names: list[str]) -> str:
    return ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")

"""`nbgrader collect` made safe for a shared inbound folder (nbgrader_config.py uses it).

A submission in nbgrader's default exchange is a folder any student can create
under any name. `SafeCollect` collects as nbgrader's collect does, but refuses what
a student cannot honestly have made (a forged name, time or owner) and copies
without following links or opening special files, bounded in size; every refusal
is kept in `notes`. docs/TEACHING.md, "What the exchange guarantees", lists each rule.
"""

from __future__ import annotations

import datetime
import fnmatch
import glob
import os
import pwd
import stat
from pathlib import Path

from nbgrader.exchange.default.collect import ExchangeCollect, groupby
from nbgrader.utils import parse_utc

from ..grading.intake import walk
from ..outputs.paths import student_id_problem
from ..outputs.text import visible

#: How far a submission's time may lie after its folder was made, or in the future
#: (clocks of a hub's machines and its file server differ a little).
CLOCK_SKEW = datetime.timedelta(minutes=10)
#: What `nbgrader submit` writes into every submission.
NBGRADER_FILES = ("timestamp.txt", "submission_secret.txt")
MAX_FILES = 2_000


class SafeCollect(ExchangeCollect):
    """nbgrader's default collect, refusing what a student cannot honestly have made."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.notes: list[str] = []
        self.unchecked: set[str] = set()      # ids that are no user here: owner not checked
        self._made: dict[str, tuple[int, float]] = {}   # folder name -> (owner uid, ctime)

    def _note(self, text: str) -> None:
        text = visible(text, lines=False)
        self.notes.append(text)
        self.log.warning(text)

    # ------------------------------------------------------------ which submissions
    def init_src(self):
        if self.coursedir.course_id == "":
            self.fail("No course id specified. Re-run with --course flag.")
        self.course_path = os.path.join(self.root, self.coursedir.course_id)
        self.inbound_path = os.path.join(self.course_path, "inbound")
        if not os.path.isdir(self.inbound_path):
            self.fail(f"Course not found: {self.inbound_path}")
        wanted = self.coursedir.student_id or "*"
        pattern = os.path.join(glob.escape(self.inbound_path),
                               f"{wanted}+{glob.escape(self.coursedir.assignment_id)}+*")
        records = []
        for path in sorted(glob.glob(pattern)):
            record, problem = self._record(path)
            if problem:
                self._note(f"refused {os.path.basename(path)}: {problem} (nothing of it "
                           "was collected; see docs/TEACHING.md)")
            else:
                records.append(record)
        records = self._same_maker(records)
        if self.unchecked and self.check_owner:
            self._note(f"ownership not checked for {len(self.unchecked)} student ids that "
                       f"are no user of this machine ({', '.join(sorted(self.unchecked)[:5])}"
                       f"{', ...' if len(self.unchecked) > 5 else ''}): see docs/TEACHING.md")
        duedate = self._duedate()
        self.src_records = [self._chosen(group, duedate) for group in
                            groupby(records, lambda r: r["username"]).values()]

    def _same_maker(self, records: list[dict]) -> list[dict]:
        """For a student id that is no user here, the submissions must all be owned
        by the user who made the first of them (by the folders' ctime, which no
        student can set back): a later one owned by another user is refused, so
        a folder forged under the id never replaces the real submission."""
        if not self.check_owner:
            return records
        kept = []
        for student, group in groupby(records, lambda r: r["username"]).items():
            if student not in self.unchecked:
                kept += group
                continue
            group = sorted(group, key=lambda r: self._made[r["filename"]][1])
            first_uid = self._made[group[0]["filename"]][0]
            for record in group:
                uid = self._made[record["filename"]][0]
                if uid == first_uid:
                    kept.append(record)
                    continue
                self._note(f"refused {record['filename']}: it is owned by {_user_name(uid)}, "
                           f"but {student}'s first submission was made by "
                           f"{_user_name(first_uid)}; cheating attempt? (nothing of it was "
                           "collected; see docs/TEACHING.md)")
        return kept

    def _chosen(self, group: list[dict], duedate) -> dict:
        """nbgrader's choice: the newest, or with --before-duedate the newest in time."""
        newest = self._sort_by_timestamp(group)
        if duedate is not None and self.before_duedate:
            early = [r for r in newest if r["timestamp"] <= duedate]
            return (early or newest)[0]
        return newest[0]

    def _duedate(self):
        from nbgrader.api import Gradebook, MissingEntry
        with Gradebook(self.coursedir.db_url, self.coursedir.course_id) as gb:
            try:
                return gb.find_assignment(self.coursedir.assignment_id).duedate
            except MissingEntry:
                return None

    def _record(self, path: str) -> tuple[dict | None, str]:
        """nbgrader's record of one inbound folder, or None and why it is refused."""
        filename = os.path.basename(path)
        parts = filename.rsplit("+", 3)
        if len(parts) != 4:
            return None, "its name is not <student>+<assignment>+<time>+<random>"
        username, _, stamp, _ = parts
        problem = student_id_problem(username)
        if problem:
            return None, f"the student id {problem}"
        try:
            info = os.lstat(path)
        except OSError as error:
            return None, f"it could not be read ({error.strerror})"
        if not stat.S_ISDIR(info.st_mode):
            return None, "it is not a folder (a symbolic link is never followed)"
        try:
            when = parse_utc(stamp)
        except (ValueError, OverflowError):
            return None, f"its time {stamp!r} cannot be read"
        for name in NBGRADER_FILES:
            try:
                if not stat.S_ISREG(os.lstat(os.path.join(path, name)).st_mode):
                    return None, f"its {name} is not a plain file"
            except OSError:
                return None, f"it has no {name}: it was not made by nbgrader submit"
        problem = self._time_problem(path, when, info)
        if problem:
            return None, problem
        problem = self._owner_problem(username, info)
        if problem:
            return None, problem
        self._made[filename] = (info.st_uid, info.st_ctime)
        return {"username": username, "filename": filename, "timestamp": when}, ""

    def _time_problem(self, path: str, when, info) -> str:
        # nbgrader's times are naive, in UTC
        now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
        made = datetime.datetime.fromtimestamp(info.st_ctime, datetime.timezone.utc) \
            .replace(tzinfo=None)
        if when > now + CLOCK_SKEW:
            return f"it is dated {when:%Y-%m-%d %H:%M} UTC, in the future"
        if when > made + CLOCK_SKEW:
            return (f"it is dated {when:%Y-%m-%d %H:%M} UTC, after its folder was made "
                    f"({made:%Y-%m-%d %H:%M} UTC)")
        try:
            with open(os.path.join(path, "timestamp.txt"), encoding="utf-8",
                      errors="replace") as handle:
                written = parse_utc(handle.read(200).strip())
        except (OSError, ValueError, OverflowError):
            return "its timestamp.txt cannot be read"
        if abs(written - when) > datetime.timedelta(seconds=1):
            return "its timestamp.txt and its name give different times"
        return ""

    def _user_id(self, student: str) -> int | None:
        """The uid of the user named like the student, if ownership is checked."""
        if not self.check_owner:
            return None
        try:
            return pwd.getpwnam(student).pw_uid
        except KeyError:
            return None

    def _owner_problem(self, student: str, info) -> str:
        expected = self._user_id(student)
        if expected is None:
            if self.check_owner:
                self.unchecked.add(student)
            return ""
        if info.st_uid == expected:
            return ""
        return (f"it claims to be submitted by {student} but is owned by "
                f"{_user_name(info.st_uid)}; cheating attempt?")

    # ------------------------------------------------------------ copying
    def copy_files(self):
        # nbgrader's own check only warns; it was made a refusal above, and the
        # owner's uid is kept for do_copy, which leaves out files another user added.
        self._owners = {r["username"]: self._user_id(r["username"]) for r in self.src_records}
        check, self.check_owner = self.check_owner, False
        try:
            super().copy_files()
        finally:
            self.check_owner = check

    def do_copy(self, src, dest, log=None):
        """Copy a submission without following links or opening special files."""
        student = os.path.basename(src).rsplit("+", 3)[0]
        max_file = 1000 * self.coursedir.max_file_size
        budget = 1000 * self.coursedir.max_dir_size
        Path(dest).mkdir(parents=True, exist_ok=True)
        walked = walk(Path(src), max_entries=MAX_FILES)
        left_out, skipped = [], set()
        owner = getattr(self, "_owners", {}).get(student)
        for entry in walked.entries:
            relative = os.path.join(*entry.parts)
            if any(entry.parts[:n] in skipped for n in range(1, len(entry.parts))):
                continue                                  # inside a folder left out
            if any(fnmatch.fnmatch(part, pattern) for part in entry.parts
                   for pattern in self.coursedir.ignore):
                skipped.add(entry.parts)
                continue
            target = os.path.join(dest, relative)
            if owner is not None and os.lstat(entry.path).st_uid != owner:
                left_out.append(f"{relative} (owned by another user)")
                skipped.add(entry.parts)
                continue
            if entry.kind == "dir":
                os.makedirs(target, exist_ok=True)
            elif entry.kind != "file":
                left_out.append(f"{relative} (a {_kind(entry.path)}: never followed or opened)")
            else:
                why = _copy_file(entry.path, target, max_file, budget)
                if isinstance(why, str):
                    left_out.append(f"{relative} ({why})")
                else:
                    budget -= why
        if walked.cut:
            left_out.append(f"the rest ({walked.cut})")
        for item in left_out:
            self._note(f"{student}: left out {item}")
        if self.coursedir.groupshared:
            self._share_with_group(dest)

    def _share_with_group(self, dest: str) -> None:
        """What nbgrader's own do_copy does for a group-shared course directory."""
        for dirname, _, filenames in os.walk(dest):
            os.chmod(dirname, (os.stat(dirname).st_mode | 0o2770) & 0o2777)
            for filename in filenames:
                path = os.path.join(dirname, filename)
                os.chmod(path, (os.stat(path).st_mode | 0o660) & 0o777)


def _user_name(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"user id {uid}"


def _kind(path: Path) -> str:
    mode = os.lstat(path).st_mode
    return ("symbolic link" if stat.S_ISLNK(mode) else "named pipe" if stat.S_ISFIFO(mode)
            else "socket" if stat.S_ISSOCK(mode) else "device" if stat.S_ISCHR(mode)
            or stat.S_ISBLK(mode) else "special file")


def _copy_file(source: Path, target: str, max_file: int, budget: int) -> int | str:
    """Copy one regular file (never through a link); its size, or why it was left out."""
    try:
        fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as error:
        return f"could not be read: {error.strerror}"
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return "not a plain file"
        if info.st_size > max_file:
            return f"larger than {max_file // 1_000_000} MB"
        if info.st_size > budget:
            return "the submission's size limit was reached"
        limit, copied = min(max_file, budget), 0
        with open(target, "wb") as out:
            while chunk := handle.read(1 << 20):
                copied += len(chunk)
                if copied > limit:
                    break
                out.write(chunk)
    if copied > limit:
        os.unlink(target)
        return "grew past the size limit while being read"
    return copied

"""One parser per LMS layout: who handed in which files, read from the names.

Each parser takes a `Source` (grading/download.py) and the assignment's module names
and returns a `Plan`: one `Submission` per student record and a note for every entry
it did not take. The student id comes only from what the LMS writes, never from text
a student chooses; what all layouts share is `settle`'s (__init__.py).
docs/TEACHING.md, "Submissions from an LMS", shows each layout.
"""

from __future__ import annotations

import csv
import io
import re
from collections import Counter
from dataclasses import dataclass, field

from .. import KitError
from ..outputs.text import visible
from ..grading.download import Member, Source, SourceError, normal, shown


@dataclass
class Submission:
    student: str                          # the id the student's folder is named by
    name: str = ""                        # as the LMS shows it
    email: str = ""
    late: str = ""                        # "yes", "no", or "" when the LMS does not say
    submitted: str = ""                   # when, as the LMS says
    origin: str = ""                      # where in the download it came from
    identifier: str = ""                  # the LMS's other name for the student, if any
    # (path inside the student's folder, the member, its rank among renamed
    # copies of one file: higher is newer)
    files: list[tuple[tuple[str, ...], Member, int]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass
class Plan:
    submissions: list[Submission] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def root(source: Source, recognised) -> tuple[str, ...]:
    """Where the layout starts: a download unpacked into a folder of its own (or
    zipped with one) holds a single folder; go down while that is all there is
    and nothing there is `recognised`."""
    here: tuple[str, ...] = ()
    for _ in range(8):
        children = [m for m in source.children(here)
                    if not _hidden(m.name) and m.kind != "refused"]
        if any(recognised(m) for m in children) or len(children) != 1 \
                or children[0].kind != "dir":
            break
        here = children[0].parts
    return here


#: What file managers leave in a download, never a submission: left out unsaid.
JUNK = frozenset({"__MACOSX", ".DS_Store", "Thumbs.db", "desktop.ini"})


def _hidden(name: str) -> bool:
    return name.startswith(".") or name in JUNK


def _top(source: Source, base: tuple[str, ...], plan: Plan):
    """The entries at the top of the layout (`base`) that may be submissions, one by
    one (so the lines on the others come in the listing's order)."""
    return (m for m in source.children(base) if not _passed_over(m, plan))


def _passed_over(member: Member, plan: Plan) -> bool:
    """True for an entry at the top of the layout that is no submission: junk
    (unsaid), hidden, a link or a special file (said, never followed)."""
    if member.name in JUNK or member.kind == "refused":   # refused: said when listed
        return True
    if member.name.startswith("."):
        plan.skipped.append(f"{shown(member.parts)}: hidden; skipped")
        return True
    if member.kind in ("link", "other"):
        plan.skipped.append(f"{shown(member.parts)}: a symbolic link or special file, never "
                            "followed; skipped")
        return True
    return False


def _files_below(source: Source, folder: Member):
    """(path relative to the folder, member, rank 0) for every entry below it, within
    the student's budgets (a member of kind "cut" where they were spent)."""
    depth = len(folder.parts)
    return [(m.parts[depth:], m, 0) for m in source.under(folder.parts) if m.kind != "dir"]


def _unrecognised(where: str, member: Member, layout: str) -> str:
    what = "folder" if member.kind == "dir" else "file"
    return f"{shown(member.parts)}: a {what} not named as {layout} names its {where}; skipped"


# ------------------------------------------------------------ Moodle
#: Moodle names each student's part `<full name>_<participant id>_assignsubmission_<plugin>`
#: (a folder; before Moodle 4.1 with a trailing "_"), or, without "download in folders",
#: that prefix, "_" and the file's name. Moodle writes the full name with every "_"
#: replaced by a space (mod/assign's downloader), so the name holds none; its own
#: feedback-zip import reads the id as the second "_"-separated field.
MOODLE_PART = re.compile(r"_(?P<id>\d+)_assign(?:submission|feedback)_")
MOODLE = re.compile(r"^(?P<name>[^_]*)_(?P<id>\d+)_assign(?P<subtype>submission|feedback)_"
                    r"(?P<plugin>[a-z0-9]+)(?:_(?P<rest>.*))?$", re.DOTALL)


def moodle_entry(name: str) -> tuple[re.Match | None, str]:
    """The fields of a Moodle entry name, or None and why it is not one Moodle made.
    The id is the one right before `_assignsubmission_`, and it must be the only
    one: a display name holding `_1002_assignsubmission_file_` cannot claim 1002."""
    ids = MOODLE_PART.findall(name)
    if not ids:
        return None, ""
    if len(ids) > 1:
        return None, (f"names more than one participant ({', '.join(ids[:3])}); Moodle writes "
                      "one, so the name was made by hand")
    found = MOODLE.match(name)
    if not found:
        return None, ("has an underscore before its participant id; Moodle replaces every "
                      "underscore of a full name by a space, so the name was made by hand")
    return found, ""


def moodle(source: Source, modules) -> Plan:
    plan = Plan()
    by_id: dict[str, Submission] = {}
    for member in _top(source, root(source, lambda m: MOODLE_PART.search(m.name)), plan):
        found, forged = moodle_entry(member.name)
        if forged:
            plan.skipped.append(f"{shown(member.parts)}: {forged}; skipped")
            continue
        if not found:
            plan.skipped.append(_unrecognised("submissions", member, "Moodle"))
            continue
        student, plugin, rest = found["id"], found["plugin"], found["rest"] or ""
        entry = by_id.setdefault(student, Submission(
            student, name=found["name"].strip(), origin=shown(member.parts),
            identifier=f"Participant {student}"))
        if found["subtype"] != "submission" or plugin != "file":
            entry.notes.append(f"{shown(member.parts)}: Moodle's {plugin} part "
                               "(not a file submission) not imported")
            continue
        if member.kind == "dir" and not rest:
            entry.files += _files_below(source, member)
        elif member.kind == "file" and rest:       # "Download submissions in folders" off
            entry.files.append(((rest,), member, 0))
        else:
            plan.skipped.append(_unrecognised("submissions", member, "Moodle"))
    plan.submissions = list(by_id.values())
    return plan


# ------------------------------------------------------------ Canvas
CANVAS = re.compile(r"^(?P<name>[^_]+)_(?:(?P<late>late)_)?(?P<user>\d+)_(?P<file_id>\d+)_"
                    r"(?P<file>.+)$", re.IGNORECASE)
CANVAS_TEXT = re.compile(r"^(?P<name>[^_]+)_(?:late_)?(?P<user>\d+)_(?:\d+_)?text\.html?$",
                         re.IGNORECASE)


def canvas(source: Source, modules) -> Plan:
    plan = Plan()
    base = root(source, lambda m: m.kind == "file" and CANVAS.match(m.name))
    by_id: dict[str, Submission] = {}
    for member in _top(source, base, plan):
        found = CANVAS.match(member.name) if member.kind == "file" else None
        if not found:
            text = CANVAS_TEXT.match(member.name)
            plan.skipped.append(f"{shown(member.parts)}: a text entry, not a file; skipped"
                                if text else _unrecognised("submitted files", member, "Canvas"))
            continue
        entry = by_id.setdefault(found["user"], Submission(found["user"], name=found["name"],
                                                           origin=shown(member.parts)))
        late = bool(found["late"])
        entry.late = "yes" if late or entry.late == "yes" else "no"
        # Canvas's file ids grow with every upload: the higher one is the later file.
        entry.files.append(((found["file"],), member, int(found["file_id"])))
    plan.submissions = list(by_id.values())
    return plan


# ------------------------------------------------------------ GitHub Classroom
ROSTER_BYTES = 4 << 20


def _roster(source: Source, base) -> tuple[dict[str, dict], list[str]]:
    """github_username -> the roster's row, from a Classroom roster CSV beside the
    repositories (GitHub Classroom: "Download roster")."""
    for member in source.children(base):
        if member.kind != "file" or not member.name.lower().endswith(".csv"):
            continue
        try:
            text = member.read().decode("utf-8-sig", errors="replace")
        except SourceError as error:
            return {}, [f"{error}; the roster was not read"]
        reader = csv.DictReader(io.StringIO(text[:ROSTER_BYTES]))
        if "github_username" not in (reader.fieldnames or []):
            continue
        rows = {}
        for row in reader:
            user = (row.get("github_username") or "").strip()
            if user:
                rows[normal(user).casefold()] = row
        return rows, []
    return {}, []


def _common_prefix(names: list[str]) -> str:
    """The prefix ending in "-" that GitHub Classroom gave the repositories
    (`<assignment>-<user>`): the longest one more than half of them share, and
    none of those is all of. A repository renamed by its student does not move it."""
    counts = Counter(name[:at + 1] for name in names
                     for at, char in enumerate(name[:-1]) if char == "-")
    shared = [p for p, n in counts.items() if n >= 2 and n * 2 > len(names)]
    return max(shared, key=len, default="")


def _repository(source: Source, member: Member) -> bool:
    """A repository holds files at its top (a README, the module, .gitignore); the
    folder a download was unpacked into holds only repositories (and the roster)."""
    return member.kind == "dir" and any(
        c.kind == "file" and not c.name.lower().endswith(".csv")
        for c in source.children(member.parts))


def _user(repository: str, prefix: str, roster: dict) -> str:
    """The GitHub user of a repository named `<prefix><user>`; without the prefix
    (one repository, or one renamed) the roster says which user's name ends it,
    else the repository's own name is the id."""
    if prefix and repository.startswith(prefix):
        return repository[len(prefix):]
    for user in sorted(roster, key=len, reverse=True):
        if repository.casefold().endswith("-" + user):
            return repository[len(repository) - len(user):]
    return repository


def classroom(source: Source, modules) -> Plan:
    plan = Plan()
    base = root(source, lambda m: _repository(source, m))
    roster, notes = _roster(source, base)
    plan.skipped += notes
    repositories = []
    for member in _top(source, base, plan):
        if member.kind == "dir":
            repositories.append(member)
        elif not member.name.lower().endswith(".csv"):
            plan.skipped.append(f"{shown(member.parts)}: a file, not a repository; skipped")
    prefix = _common_prefix([m.name for m in repositories])
    # A repository's name is the student's to change: two that map to one user are
    # both refused (nothing here tells which one GitHub Classroom made), never a choice.
    claimed: dict[str, list[Member]] = {}
    for member in repositories:
        claimed.setdefault(_user(member.name, prefix, roster).casefold(), []).append(member)
    for user_key, members in sorted(claimed.items()):
        if len(members) > 1:
            names = ", ".join(shown(m.parts) for m in members)
            plan.skipped.append(f"{names}: {len(members)} repositories map to the GitHub user "
                                f"{visible(user_key, False)}; none of them imported (rename "
                                "or remove the ones that are not theirs and import again)")
            continue
        member = members[0]
        user = _user(member.name, prefix, roster)
        row = roster.get(user.casefold(), {})
        identifier = (row.get("identifier") or "").strip()
        entry = Submission(user, name=(row.get("name") or "").strip() or identifier,
                           email=identifier if "@" in identifier else "",
                           origin=shown(member.parts), identifier=identifier)
        entry.files = _files_below(source, member)
        plan.submissions.append(entry)
    seen = set(claimed)
    for user, row in sorted(roster.items()):
        if user not in seen:
            plan.skipped.append(f"{row.get('github_username')}: on the roster, but no "
                                "repository (not accepted, or not cloned)")
    return plan


# ------------------------------------------------------------ Gradescope
METADATA = "submission_metadata.yml"


def _load_yaml(member: Member):
    try:
        import yaml
    except ModuleNotFoundError:
        raise KitError("reading a Gradescope export needs PyYAML: pip install "
                       "'spielbaum[lms]' (or run make setup)") from None
    try:
        data = member.read()
    except SourceError as error:
        raise KitError(f"{METADATA} could not be read: {error}") from None
    try:
        return yaml.safe_load(data.decode("utf-8", errors="replace"))
    except yaml.YAMLError as error:
        where = getattr(error, "problem_mark", None)
        raise KitError(f"{METADATA} is not valid YAML"
                       + (f" (line {where.line + 1})" if where else "")
                       + "; export the submissions from Gradescope again") from None


def _text(value) -> str:
    return "" if value is None else normal(str(value)).strip()


def _when(value) -> str:
    """A time from the metadata as ISO 8601 in UTC (so times compare as text)."""
    import datetime
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=datetime.timezone.utc)
        return value.astimezone(datetime.timezone.utc).isoformat(timespec="seconds")
    return _text(value)


def gradescope(source: Source, modules) -> Plan:
    plan = Plan()
    base = root(source, lambda m: m.name == METADATA)
    found = [m for m in source.children(base) if m.name == METADATA and m.kind == "file"]
    if not found:
        raise KitError(f"no {METADATA} in the export: give the folder (or zip) Gradescope's "
                       "Export Submissions made")
    metadata = _load_yaml(found[0])
    if not isinstance(metadata, dict):
        raise KitError(f"{METADATA} does not list submissions; export them again")
    folders = {m.name: m for m in source.children(base) if m.kind == "dir"}
    for key, record in metadata.items():
        key = _text(key)
        folder = folders.pop(key, None)
        listed = record.get(":submitters") if isinstance(record, dict) else None
        people = [p for p in listed if isinstance(p, dict)] if isinstance(listed, list) else []
        if folder is None and isinstance(listed, list):
            plan.skipped.append(f"{key}: listed in {METADATA}, but the export has no such "
                                "folder; skipped")
            continue
        if not people:
            plan.skipped.append(f"{key}: its entry in {METADATA} names no submitters; skipped")
            continue
        for person in people:
            student = _text(person.get(":sid")) or _text(person.get(":email"))
            if not student:
                plan.skipped.append(f"{key}: a submitter with neither SID nor email; skipped")
                continue
            entry = Submission(student, name=_text(person.get(":name")),
                               email=_text(person.get(":email")),
                               submitted=_when(record.get(":created_at")),
                               origin=shown(folder.parts))
            if len(people) > 1:
                entry.notes.append(f"a group submission of {len(people)} students "
                                   f"({key}): each gets a copy")
            entry.files = _files_below(source, folder)
            plan.submissions.append(entry)
    for name, folder in sorted(folders.items()):
        if not _passed_over(folder, plan):
            plan.skipped.append(f"{shown(folder.parts)}: not listed in {METADATA}; skipped")
    return plan


# ------------------------------------------------------------ plain layouts
def folders(source: Source, modules) -> Plan:
    plan = Plan()
    for member in _top(source, (), plan):
        if member.kind != "dir":
            plan.skipped.append(f"{shown(member.parts)}: a file, not a student's folder; "
                                "skipped (put each student's files in a folder named by "
                                "their id)")
            continue
        entry = Submission(member.name, origin=shown(member.parts))
        entry.files = _files_below(source, member)
        plan.submissions.append(entry)
    return plan


def _flat_pattern(modules) -> re.Pattern:
    stems = "|".join(sorted((re.escape(m.removesuffix(".py")) for m in modules),
                            key=len, reverse=True))
    return re.compile(rf"^(?P<id>.+?)[_-](?P<file>(?:{stems})(?:-\d+| \(\d+\))?\.py)$")


def flat(source: Source, modules) -> Plan:
    plan = Plan()
    pattern = _flat_pattern(modules)
    by_id: dict[str, Submission] = {}
    for member in _top(source, root(source, lambda m: m.kind == "file"), plan):
        found = pattern.match(member.name) if member.kind == "file" else None
        if found:
            student, target = found["id"], found["file"]
        elif member.kind == "file" and member.name.lower().endswith(".zip"):
            student, target = member.name[:-4], member.name
        else:
            plan.skipped.append(f"{shown(member.parts)}: not named <student>_<module> "
                                f"(such as alice_{sorted(modules)[0]}); skipped")
            continue
        entry = by_id.setdefault(student, Submission(student, origin=shown(member.parts)))
        entry.files.append(((target,), member, 0))
    plan.submissions = list(by_id.values())
    return plan


PARSERS = {"moodle": moodle, "canvas": canvas, "classroom": classroom,
           "gradescope": gradescope, "folders": folders, "flat": flat}

"""Collect the submissions, compare every pair by each kind of evidence (text,
structure, behaviour: docs/SIMILARITY.md), group them. A pair's score is its
strongest evidence.

Students (folder names, whatever they are) and the kit's own files taking part as
sources (`Submission.kind`) are two namespaces that never mix.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from .. import ROOT, KitError, assignment as assignments
from ..grading import intake
from . import FLOOR, behaviour, compare, sources, structure
from .compare import Shares, Stream
from .tokens import normalise

STUDENT, KIT = "student", "kit"
#: Behaviour counts towards a pair's score only when it rests on at least this many
#: calls the two answered alike, with an answer few others gave.
MIN_ALIKE = 50
#: Tokens per k-gram in each kind of stream (compare.K for text; the canonical
#: form is more regular than text, so runs of equal structure must be longer to
#: count: see docs/SIMILARITY.md for how these were chosen).
K = {"text": compare.K, "structure": 24}
#: More than this many boilerplate files or folders declared is refused.
MAX_BOILERPLATE_FILES = 200


@dataclass
class Submission:
    """One student's modules (or one kit file), read and ready to compare."""
    name: str
    kind: str                               # STUDENT or KIT
    files: list[tuple[str, str]]            # (path inside the folder, text as read)
    text: Stream = field(default_factory=Stream)
    structure: Stream = field(default_factory=Stream)
    digests: dict[str, str] = field(default_factory=dict)    # module -> sha256
    problems: list[str] = field(default_factory=list)        # what Python objects to
    prints: dict = field(default_factory=dict)               # kind -> fingerprint

    @property
    def label(self) -> str:
        """How the report names it."""
        return self.name if self.kind == STUDENT else f"kit file {self.name}"


@dataclass
class Match:
    """Two submissions and the evidence that they share code (or behaviour)."""
    a: int
    b: int
    text: Shares = field(default_factory=Shares)
    structure: Shares = field(default_factory=Shares)
    behaviour: float | None = None          # None: no fingerprint for one of them
    alike: int = 0                          # calls answered alike where the class differs

    @property
    def evidence(self) -> dict[str, float]:
        found = {"text": self.text.score, "structure": self.structure.score}
        if self.behaviour is not None and self.alike >= MIN_ALIKE:
            found["behaviour"] = self.behaviour
        return found

    @property
    def score(self) -> float:
        return max(self.evidence.values())

    @property
    def strongest(self) -> str:
        evidence = self.evidence
        return max(evidence, key=lambda k: (evidence[k], k == "structure"))


@dataclass
class Result:
    """Everything the report shows."""
    assignment: str
    title: str
    submissions: list[Submission]       # compared: students, then kit files
    skipped: list[tuple[str, str]]      # (student, why it was not compared)
    problems: list[tuple[str, str]]     # (student, what Python would object to)
    matches: list[Match]                # ranked, most similar first
    groups: list[list[int]]             # indexes into submissions, 3 or more each
    boilerplate: list[str]              # files whose code never counts
    floor: float
    folders: int = 0                    # student folders found
    behaviour: str = ""                 # one sentence: where behaviour came from

    @property
    def students(self) -> int:
        """Students compared (kit files not counted)."""
        return sum(s.kind == STUDENT for s in self.submissions)


def counts(result: Result) -> str:
    """The one sentence about how many were compared, for the terminal and the page."""
    skipped = len(result.skipped)
    line = (f"{result.folders} student folder{'s' if result.folders != 1 else ''}: "
            f"{result.students} compared")
    if skipped:
        line += f", {skipped} not compared"
    return line


# ------------------------------------------------------------------ reading
def released_files(assignment) -> list[Path]:
    """Every Python file students received for the assignment."""
    if not assignment.assignment_dir.is_dir():
        raise KitError(f"{assignment.assignment_dir} is missing: run `autograder release "
                       f"{assignment.name}` first (its files are the boilerplate)")
    return sorted(assignment.assignment_dir.rglob("*.py"))


def boilerplate_files(assignment) -> list[Path]:
    """The code a student's module is expected to contain because it was handed
    out: the skeleton modules and the public tests. It never counts."""
    return [p for p in released_files(assignment)
            if p.name in assignment.modules or p.name.startswith("test_")]


def declared_files(paths: list[str | Path]) -> list[Path]:
    """The Python files a teacher declares as shared starting code (files, or
    folders searched for *.py); one clear line when one is missing."""
    found = []
    for given in paths:
        path = Path(given)
        if path.is_file():
            found.append(path)
        elif path.is_dir():
            found.extend(sorted(p for p in path.rglob("*.py") if p.is_file()))
        else:
            raise KitError(f"--boilerplate {given}: no such file or folder")
        if len(found) > MAX_BOILERPLATE_FILES:
            raise KitError(f"--boilerplate names more than {MAX_BOILERPLATE_FILES} Python "
                           "files; name the starting code itself")
    return found


def interface(assignment) -> frozenset[str]:
    """The names the assignment fixes: the skeleton's top-level functions, classes
    and constants (a student cannot rename them, so they are compared as they are)."""
    import ast
    names = set()
    for path in boilerplate_files(assignment):
        if path.name not in assignment.modules:
            continue
        try:
            tree = ast.parse(sources.read(path).text)
        except (SyntaxError, sources.Unreadable):
            continue
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.Assign):
                names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return frozenset(names)


def _add_streams(submission: Submission, names: frozenset[str]) -> Submission:
    """`submission` with the text and structure streams of its files (a student's
    file whose structure cannot be compared is named in its `problems`)."""
    text_parts, structure_parts = [], []
    for index, (shown, text) in enumerate(submission.files):
        tokens = normalise(text)
        text_parts.append((tokens.codes, [(index, *s, *e) for s, e in
                                          zip(tokens.starts, tokens.ends)]))
        form = structure.canonical(text, names)
        if form.problem and submission.kind == STUDENT:
            submission.problems.append(f"{shown}: {form.problem}")
        structure_parts.append((form.stream, [(index, line, 0, line, 1 << 20)
                                              for line in form.lines]))
    submission.text, submission.structure = (Stream.joined(text_parts),
                                             Stream.joined(structure_parts))
    return submission


def _prepare(job) -> tuple[Submission | None, str]:
    """One student folder read and turned into streams (in a worker process), or
    None and why it cannot be compared."""
    folder, modules, names = job
    if folder.is_symlink():
        return None, "the submission folder is a symbolic link, which the grader does not follow"
    # The grader's own walk (grading/intake.py): the report compares the file it graded.
    home, _, why = intake.locate(folder, modules)
    if home is None:
        return None, why
    submission = Submission(folder.name, STUDENT, [])
    for module in modules:
        try:
            source = sources.read(home / module)
        except sources.Unreadable as error:
            return None, str(error)
        shown = str((home / module).relative_to(folder))
        submission.files.append((shown, source.text))
        submission.digests[module] = source.sha256
        if source.problem:
            submission.problems.append(f"{shown}: {source.problem}")
    return _add_streams(submission, names), ""


def collect(assignment, submissions_dir: Path, names: frozenset[str], jobs: int = 1
            ) -> tuple[list[Submission], list[tuple[str, str]], int]:
    """The students to compare, the ones left out with the reason, and how many
    student folders there are (the grader's count)."""
    folders = intake.student_folders(submissions_dir)
    work = [(folder, tuple(assignment.modules), names) for folder in folders]
    done = compare.forked(_prepare, work, jobs if len(work) >= 40 else 1, chunksize=8)
    found, skipped = [], []
    for folder, (submission, problem) in zip(folders, done):
        if submission is None:
            skipped.append((folder.name, problem))
        else:
            found.append(submission)
    return found, skipped, len(folders)


def kit_sources(assignment, names: frozenset[str]) -> list[Submission]:
    """The other files students received (play.py, duel.py with its referee and
    players): not boilerplate but sources, compared like a submission, so a
    module that pastes the duel's move generator is reported next to it."""
    boilerplate = set(boilerplate_files(assignment))
    found = []
    for path in released_files(assignment):
        if path in boilerplate:
            continue
        files = [(path.name, sources.read(path).text)]
        found.append(_add_streams(Submission(path.name, KIT, files), names))
    return found


# ------------------------------------------------------------------ comparing
def mutual_groups(count: int, matches: list[Match], limit: int = 50) -> list[list[int]]:
    """Maximal groups of three or more submissions in which every two are a
    reported pair (maximal cliques, Bron-Kerbosch with pivoting), largest first."""
    near: dict[int, set[int]] = {i: set() for i in range(count)}
    for m in matches:
        near[m.a].add(m.b)
        near[m.b].add(m.a)
    groups: list[list[int]] = []

    def extend(clique: set[int], candidates: set[int], excluded: set[int]) -> None:
        if not candidates and not excluded:
            if len(clique) >= 3:
                groups.append(sorted(clique))
            return
        pivot = max(candidates | excluded, key=lambda v: len(near[v] & candidates))
        for v in sorted(candidates - near[pivot]):
            extend(clique | {v}, candidates & near[v], excluded & near[v])
            candidates = candidates - {v}
            excluded = excluded | {v}

    extend(set(), {i for i in range(count) if len(near[i]) >= 2}, set())
    groups.sort(key=lambda g: (-len(g), g))
    return groups[:limit]


def _boilerplate(paths: list[Path], names: frozenset[str]) -> dict[str, set[int]]:
    text, canonical = [], []
    for path in paths:
        try:
            source = sources.read(path).text
        except sources.Unreadable as error:
            raise KitError(f"boilerplate {path}: {error}") from None
        text.append(normalise(source).codes)
        canonical.append(structure.canonical(source, names).stream)
    return {"text": compare.boilerplate_hashes(text, K["text"]),
            "structure": compare.boilerplate_hashes(canonical, K["structure"])}


def _behaviour(submissions: list[Submission], out_dir: Path | None
               ) -> tuple[behaviour.Behaviour | None, dict[int, int], str, list[tuple[str, str]]]:
    """The students' fingerprints from `out_dir`: (their table or None, {index in
    `submissions`: row of the table}, one sentence for the page, notes on unusable ones)."""
    students = [i for i, s in enumerate(submissions) if s.kind == STUDENT]
    names = [submissions[i].name for i in students]
    digests = [submissions[i].digests for i in students]
    found, usable, problems = behaviour.load(out_dir, names, digests)
    notes = [(names[i], why) for i, why in problems.items()]
    rows = {students[i]: i for i in usable}
    if found is None:
        sentence = ("no behaviour: grade the batch into the same --out folder first "
                    "(autograder grade ... --similarity)") if not usable else \
            "no behaviour: fewer than two graded students to compare"
        return None, {}, sentence, notes
    sentence = (f"behaviour from grading: {len(usable)} of {len(students)} students, "
                f"{found.answers.shape[1]:,} calls with answers few others gave")
    return found, rows, sentence, notes


def analyse(name: str, submissions_dir: Path, floor: float = FLOOR,
            jobs: int | None = None, boilerplate: list[str | Path] = (),
            out_dir: Path | None = None) -> Result:
    assignment = assignments.load(name)
    if not 0 <= floor <= 1:
        raise KitError(f"--floor must lie between 0 and 1, not {floor}")
    jobs = max(1, jobs or os.cpu_count() or 1)
    names = interface(assignment)
    given = boilerplate_files(assignment)
    declared = declared_files(list(boilerplate))
    removed = _boilerplate(given + declared, names)
    submissions, skipped, folders = collect(assignment, Path(submissions_dir), names, jobs)
    submissions += kit_sources(assignment, names)
    for s in submissions:
        for kind in ("text", "structure"):
            s.prints[kind] = compare.fingerprint(getattr(s, kind).codes, removed[kind], K[kind])
    keep = [i for i, s in enumerate(submissions)
            if any(p.token_coverage > 0 for p in s.prints.values())]
    for i in sorted(set(range(len(submissions))) - set(keep)):
        if submissions[i].kind == STUDENT:
            skipped.append((submissions[i].name, "no code of its own: everything in it "
                                                 "was handed out as starting code"))
    submissions = [submissions[i] for i in keep]
    problems = [(s.name, p) for s in submissions for p in s.problems]
    matches = _compare(submissions, floor, jobs)
    found, rows, sentence, notes = _behaviour(submissions, out_dir)
    problems += notes
    if found is not None:
        _add_behaviour(submissions, matches, found, rows, floor)
    matches = [m for m in matches.values() if m.score >= floor and not (
        submissions[m.a].kind == KIT and submissions[m.b].kind == KIT)]
    matches.sort(key=lambda m: (-round(m.score, 6), -round(min(m.evidence.values()), 6),
                                submissions[m.a].label, submissions[m.b].label))
    groups = mutual_groups(len(submissions), matches)
    shown = [str(p.relative_to(ROOT)) if p.is_relative_to(ROOT) else str(p)
             for p in given + declared]
    return Result(name, assignment.title, submissions, sorted(skipped), sorted(problems), matches,
                  groups, shown, floor, folders, sentence)


def _compare(submissions: list[Submission], floor: float, jobs: int
             ) -> dict[tuple[int, int], Match]:
    """Every pair that reaches `floor` by text or structure, with both numbers."""
    results = {kind: compare.compare_all([s.prints[kind] for s in submissions], floor, jobs)
               for kind in ("text", "structure")}
    return {(a, b): _match(submissions, a, b, {kind: found.get((a, b))
                                               for kind, found in results.items()})
            for a, b in {**results["text"], **results["structure"]}}


def _match(submissions: list[Submission], a: int, b: int, known: dict | None = None) -> Match:
    """Submissions a and b with their text and structure shares (those `known` by kind
    as they are, the others compared here)."""
    match = Match(a, b)
    for kind in ("text", "structure"):
        shares = (known or {}).get(kind) or compare.pair(submissions[a].prints[kind],
                                                         submissions[b].prints[kind])
        setattr(match, kind, shares or Shares())
    return match


def _add_behaviour(submissions, matches: dict, found: behaviour.Behaviour,
                   rows: dict[int, int], floor: float) -> None:
    """Behaviour for every pair of graded students; a pair that only behaviour
    brings over the floor is added, with its text and structure numbers."""
    for a, row in rows.items():
        scores, alike = found.scores(row)
        for b, other in rows.items():
            if b <= a:
                continue
            score, same = float(scores[other]), int(alike[other])
            match = matches.get((a, b))
            if match is None and (same < MIN_ALIKE or score < floor):
                continue
            if match is None:
                match = matches[(a, b)] = _match(submissions, a, b)
            match.behaviour, match.alike = score, same

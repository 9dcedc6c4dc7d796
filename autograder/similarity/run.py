"""Collect the submissions, compare every pair, group them, write the report."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .. import ROOT, KitError, slices
from . import FLOOR, compare
from .compare import Match, Submission
from .tokens import normalise

#: A module larger than this is not compared (the grader refuses 5 MB in all).
MAX_SOURCE_BYTES = 1 << 20


@dataclass
class Result:
    """Everything the report shows."""
    assignment: str
    title: str
    submissions: list[Submission]
    skipped: list[tuple[str, str]]      # (student, why it was not compared)
    matches: list[Match]                # ranked, most similar first
    groups: list[list[int]]             # indexes into submissions, 3 or more each
    boilerplate: list[str]              # files whose code never counts
    floor: float


def _read(path: Path) -> str:
    text = path.read_bytes().decode("utf-8", errors="replace")
    return text.replace("\r\n", "\n")


KIT = "kit:"     # names of the kit's own files when they take part as sources


def released_files(piece) -> list[Path]:
    """Every Python file students received for the assignment."""
    if not piece.assignment_dir.is_dir():
        raise KitError(f"{piece.assignment_dir} is missing: run `autograder release "
                       f"{piece.name}` first (its files are the boilerplate)")
    return sorted(piece.assignment_dir.rglob("*.py"))


def boilerplate_files(piece) -> list[Path]:
    """The code a student's module is expected to contain because it was handed
    out: the skeleton modules and the public tests. It never counts."""
    return [p for p in released_files(piece)
            if p.name in piece.modules or p.name.startswith("test_")]


def kit_sources(piece) -> list[Submission]:
    """The other files students received (play.py, duel.py with its referee and
    players): not boilerplate but sources, compared like a submission, so a
    module that pastes the duel's move generator is reported next to it."""
    boilerplate = set(boilerplate_files(piece))
    return [Submission(KIT + path.name, [(path.name, normalise(_read(path)))])
            for path in released_files(piece) if path not in boilerplate]


def collect(piece, submissions_dir: Path) -> tuple[list[Submission], list[tuple[str, str]]]:
    """The submissions to compare, and the students left out with the reason."""
    from ..grading.batch import student_folders
    from ..grading.runner import find_modules
    found, skipped = [], []
    for folder in student_folders(submissions_dir):
        if folder.is_symlink():
            skipped.append((folder.name, "the submission folder is a symbolic link, "
                                         "which the grader does not follow"))
            continue
        home, problem = find_modules(folder, piece.modules)
        if home is None:
            skipped.append((folder.name, problem))
            continue
        files = []
        for module in piece.modules:
            path = home / module
            if path.stat().st_size > MAX_SOURCE_BYTES:
                problem = f"{module} is larger than {MAX_SOURCE_BYTES >> 20} MB"
                break
            files.append((str(path.relative_to(folder)), normalise(_read(path))))
        if problem:
            skipped.append((folder.name, problem))
        else:
            found.append(Submission(folder.name, files))
    return found, skipped


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


def analyse(name: str, submissions_dir: Path, floor: float = FLOOR,
            jobs: int | None = None) -> Result:
    piece = slices.load(name)
    if not 0 <= floor <= 1:
        raise KitError(f"--floor must lie between 0 and 1, not {floor}")
    given = boilerplate_files(piece)
    submissions, skipped = collect(piece, Path(submissions_dir))
    submissions += kit_sources(piece)
    boilerplate = compare.boilerplate_hashes([normalise(_read(p)).codes for p in given])
    prints = [compare.fingerprint(s, boilerplate) for s in submissions]
    for s, p in zip(submissions, prints):
        s.fingerprint = p
    keep = [i for i, p in enumerate(prints) if p.token_coverage > 0]
    for i in sorted(set(range(len(submissions))) - set(keep)):
        if submissions[i].student.startswith(KIT):
            continue
        skipped.append((submissions[i].student, "no code of its own: everything in it "
                                                "was handed out with the assignment"))
    submissions = [submissions[i] for i in keep]
    matches = [m for m in compare.compare_all([prints[i] for i in keep], floor, jobs)
               if not (submissions[m.a].student.startswith(KIT)
                       and submissions[m.b].student.startswith(KIT))]
    matches.sort(key=lambda m: (-round(m.score, 6), -min(m.a_share, m.b_share),
                                submissions[m.a].student, submissions[m.b].student))
    groups = mutual_groups(len(submissions), matches)
    return Result(name, piece.title, submissions, sorted(skipped), matches, groups,
                  [str(p.relative_to(ROOT)) if p.is_relative_to(ROOT) else str(p)
                   for p in given], floor)


def similarity_cli(name: str, submissions_dir: str, out: str, floor: float = FLOOR,
                   jobs: int | None = None) -> int:
    from . import report
    result = analyse(name, Path(submissions_dir), floor, jobs)
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    csv_path = report.write_csv(out_dir, result)
    html_path = report.write_html(out_dir, result)
    print(report.summary(result))
    print(f"report in {html_path} (open it in a browser); pairs in {csv_path}")
    return 0

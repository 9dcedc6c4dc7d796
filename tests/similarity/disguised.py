"""The kit's disguise corpus: one copy per technique of issue 24's table, each of an
independent original from tests/similarity/corpus/tictactoe/, with its ground truth.

    TECHNIQUES          name -> (original(s), how the copy is made)
    build(target)       writes originals and copies, one folder per student;
                        returns the copy pairs [(technique, copy, original)]
    verify(copies)      runs each copy and its original on every position
                        (behave.py, in subprocesses) and says where they differ

A copy counts as caught when its score with its original is above the highest
score between two independent students (tests/similarity/test_disguises.py, and
bench/bench_similarity.py, which puts the kit next to Dolos on the same files).
"""

from __future__ import annotations

import concurrent.futures
import json
import random
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from . import batches, disguise, rewrites

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus" / "tictactoe"
MODULE = "tictactoe.py"
#: The functions a merged copy takes from its search's author.
SEARCH = ("minimax",)


@dataclass(frozen=True)
class Technique:
    label: str                          # as in the table
    originals: tuple[str, ...]          # whose code the copy holds (two for a merge)
    make: Callable[..., bytes]          # (sources, rng, keep) -> the copy's bytes

    def copy_name(self, name: str) -> str:
        return f"{'+'.join(self.originals)}-{name}"


def _text(function):
    """A source -> source disguise as one making bytes."""
    def make(sources, rng, keep):
        return function(sources[0], rng, keep).encode("utf-8")
    return make


def _translated(language):
    def apply(source, rng, keep):
        return disguise.recomment(disguise.rename(source, rng, keep, language), rng, language)
    return apply


def _everything(language):
    """Every rewrite at once, then names and comments translated and the layout
    changed."""
    def apply(source, rng, keep):
        source = rewrites.inline_helpers(source, rng, keep)
        source = rewrites.split_functions(source, rng, keep)
        source = rewrites.comprehensions(source, rng)
        source = rewrites.for_to_while(source, rng)
        source = rewrites.negate_branches(source, rng)
        source = rewrites.reorder_statements(source, rng)
        source = rewrites.useless_statements(source, rng)
        source = disguise.reorder(source, rng)
        source = disguise.rename(source, rng, keep, language)
        source = disguise.recomment(source, rng, language)
        return disguise.reformat(source, rng)
    return apply


def _merged(sources, rng, keep):
    return rewrites.merge(sources[0], sources[1], SEARCH[0], keep).encode("utf-8")


TECHNIQUES: dict[str, Technique] = {
    "translated-nl": Technique("names and comments translated (Dutch)", ("gus",),
                               _text(_translated("nl"))),
    "statements-reordered": Technique("independent statements reordered", ("anna",),
                                      _text(lambda s, r, k: rewrites.reorder_statements(s, r))),
    "helpers-inlined": Technique("helpers inlined", ("gus",),
                                 _text(rewrites.inline_helpers)),
    "branches-negated": Technique("if/else swapped with negated conditions", ("fatma",),
                                  _text(lambda s, r, k: rewrites.negate_branches(s, r))),
    "functions-split": Technique("long functions split", ("dev",),
                                 _text(rewrites.split_functions)),
    "for-to-while": Technique("for -> while", ("anna",),
                              _text(lambda s, r, k: rewrites.for_to_while(s, r))),
    "merged": Technique("two students' files merged", ("chloe", "anna"), _merged),
    "comprehensions-loops": Technique("comprehensions <-> explicit loops", ("chloe",),
                                      _text(lambda s, r, k: rewrites.comprehensions(s, r))),
    "useless-statements": Technique("a useless statement before every statement", ("dev",),
                                    _text(lambda s, r, k: rewrites.useless_statements(s, r))),
    "lone-cr": Technique("lone-CR line endings", ("fatma",),
                         lambda sources, rng, keep: disguise.lone_cr(sources[0])),
    "everything-nl": Technique("everything at once, Dutch names", ("anna",),
                               _text(_everything("nl"))),
    "everything-de": Technique("everything at once, German names", ("dev",),
                               _text(_everything("de"))),
    "utf-7": Technique("`# coding: utf-7`", ("chloe",),
                       lambda sources, rng, keep: disguise.utf7(sources[0])),
}


def source_of(name: str) -> str:
    return (CORPUS / name / MODULE).read_text(encoding="utf-8")


def make_copy(name: str, seed: int = 0) -> bytes:
    technique = TECHNIQUES[name]
    rng = random.Random(f"{seed}:{name}")
    return technique.make([source_of(o) for o in technique.originals], rng,
                          batches.interface("tictactoe"))


@dataclass(frozen=True)
class Pair:
    """A copy and one original it copies from (a merged copy has two)."""
    technique: str
    label: str
    copy: str
    original: str


def build(target: Path, seed: int = 0, names=None) -> list[Pair]:
    """Every original of the corpus and one copy per technique, a folder each."""
    pairs = []
    for folder in sorted(p for p in CORPUS.iterdir() if p.is_dir()):
        (target / folder.name).mkdir(parents=True)
        (target / folder.name / MODULE).write_bytes((folder / MODULE).read_bytes())
    for name in names or TECHNIQUES:
        technique = TECHNIQUES[name]
        student = technique.copy_name(name)
        (target / student).mkdir(parents=True)
        (target / student / MODULE).write_bytes(make_copy(name, seed))
        labels = [technique.label] if len(technique.originals) == 1 else [
            f"{technique.label} (part A: the rules)",
            f"{technique.label} (part B: minimax and its helpers)"]
        for original, label in zip(technique.originals, labels):
            pairs.append(Pair(name, label, student, original))
    return pairs


# ------------------------------------------------------------------ verification
def _answers(path: Path, only: tuple[str, ...], minimax_marks: int = 0) -> dict:
    done = subprocess.run([sys.executable, "-I", str(HERE / "behave.py"), str(path),
                           "--minimax-marks", str(minimax_marks), "--only", *only],
                          capture_output=True, text=True, timeout=900,
                          stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        return {"failed": done.stderr[-600:]}
    return json.loads(done.stdout)


def _compare(mine: dict, theirs: dict) -> str:
    if "failed" in mine or "failed" in theirs:
        return "did not run: " + (mine.get("failed") or theirs.get("failed"))
    for function in theirs:
        for index, (a, b) in enumerate(zip(mine[function], theirs[function])):
            if a != b:
                return f"{function}: call {index} answered {a!r}, the original {b!r}"
        if len(mine[function]) != len(theirs[function]):
            return f"{function}: {len(mine[function])} answers, not {len(theirs[function])}"
    return ""


def verify(folder: Path, pairs: list[Pair], jobs: int = 2,
           minimax_marks: int = 0) -> dict[str, str]:
    """Run every copy and its original(s) on every position (minimax on those with
    `minimax_marks` marks or more), in subprocesses (`jobs` at a time, each file once); {copy: where it behaves differently} for each copy
    that does (empty when all behave alike). A merged copy must answer like the
    author of its rules in the rules, and like the author of its search in the
    search."""
    from .behave import FUNCTIONS
    files = sorted({p.copy for p in pairs} | {p.original for p in pairs})
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        futures = {name: pool.submit(_answers, folder / name / MODULE, FUNCTIONS,
                                     minimax_marks) for name in files}
        results = {name: future.result() for name, future in futures.items()}
    problems = {}
    for pair in pairs:
        technique = TECHNIQUES[pair.technique]
        only = FUNCTIONS
        if len(technique.originals) > 1:
            part = technique.originals.index(pair.original)
            only = tuple(f for f in FUNCTIONS if (f in SEARCH) == (part == 1))
        mine, theirs = results[pair.copy], results[pair.original]
        problem = _compare(*({k: v for k, v in r.items() if k in only or k == "failed"}
                             for r in (mine, theirs)))
        if problem:
            problems[f"{pair.copy} ({pair.original})"] = problem
    return problems

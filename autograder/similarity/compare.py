"""Fingerprints and pairwise comparison, done by copydetect's winnowing.

copydetect (MIT, on PyPI) fingerprints a document by hashing every k-gram of it and
keeping a winnowed subset; two documents share code where they share fingerprints,
and each side's *share* is the part of its own (non-boilerplate) code covered by
shared k-grams. The kit hands it the normalised token stream of `tokens.py` instead
of letting it filter the file itself: copydetect's Pygments filter renames names
and drops comments too, but keeps docstrings, `pass` and trailing commas, and it
hashes strings, whose hashes Python salts per process, so two runs of the report
would disagree.

Boilerplate (the released skeleton and every other file students received) is
fingerprinted with the same k and removed from each submission's fingerprints
before any comparison, so code a student was given never counts for or against a
pair. It is removed here, not through copydetect's `boilerplate=` argument: that
path calls numpy's `intersect1d(..., assume_unique=True)` on a hash list that is
not unique, which silently drops one copy of every k-gram that a file repeats.
"""

from __future__ import annotations

import multiprocessing
import os
from dataclasses import dataclass

import numpy as np
from copydetect import CodeFingerprint, compare_files
from copydetect.utils import get_token_coverage

from .tokens import Tokens

#: Tokens per k-gram: shorter runs of equal code are idiom, not copying. Chosen on
#: the kit's corpus (tests/similarity): at 12, independent tic-tac-toe solutions
#: share up to 55% of their code; at 16, 39% while disguised copies keep 77% or
#: more; at 20 and above, copies with dead code in every function start to fall.
K = 16
#: Winnowing window: every run of at least K + WINDOW - 1 shared tokens is found.
WINDOW = 4


class _Tokens:
    """copydetect reads a document from an object with read(); ours is a tuple of
    ints, whose slices hash the same in every process."""

    def __init__(self, codes):
        self.codes = tuple(codes)

    def read(self):
        return self.codes


@dataclass
class Submission:
    """One student's code, as compared: the modules' tokens, one stream."""
    student: str
    files: list[tuple[str, Tokens]]     # (file name, its tokens), in module order
    fingerprint: CodeFingerprint | None = None

    @property
    def codes(self) -> list[int]:
        joined = []
        for index, (_, tokens) in enumerate(self.files):
            if index:           # a token no source contains: no k-gram spans two files
                joined.append(-1 - index)
            joined.extend(tokens.codes)
        return joined

    def locate(self, position: int) -> tuple[int, int, int]:
        """(file index, line, column) where token `position` of `codes` starts."""
        for index, (_, tokens) in enumerate(self.files):
            if position < len(tokens.codes):
                return (index, *tokens.starts[position])
            position -= len(tokens.codes) + 1
        raise IndexError(position)

    def locate_end(self, position: int) -> tuple[int, int, int]:
        """(file index, line, column) where token `position` of `codes` ends."""
        for index, (_, tokens) in enumerate(self.files):
            if position < len(tokens.codes):
                return (index, *tokens.ends[position])
            position -= len(tokens.codes) + 1
        raise IndexError(position)


@dataclass
class Match:
    """What two submissions share: each side's share of its own code and the
    shared regions as half-open token ranges of each side's stream."""
    a: int
    b: int
    a_share: float
    b_share: float
    a_slices: list[tuple[int, int]]
    b_slices: list[tuple[int, int]]

    @property
    def score(self) -> float:
        return max(self.a_share, self.b_share)


def boilerplate_hashes(streams: list[list[int]], k: int | None = None) -> set[int]:
    """Every k-gram hash of the code students received (window 1: all of them)."""
    k = k or K
    hashes: set[int] = set()
    for codes in streams:
        hashes |= CodeFingerprint("boilerplate", k, 1, fp=_Tokens(codes), filter=False).hashes
    return hashes


def fingerprint(submission: Submission, boilerplate: set[int], k: int | None = None,
                window: int | None = None) -> CodeFingerprint:
    k, window = k or K, window or WINDOW
    codes = submission.codes
    found = CodeFingerprint(submission.student, k, window, fp=_Tokens(codes), filter=False)
    found.hashes -= boilerplate
    found.hash_idx = {h: i for h, i in found.hash_idx.items() if h not in boilerplate}
    found.token_coverage = get_token_coverage(found.hash_idx, k, len(codes))
    return found


def _pair(first: CodeFingerprint, second: CodeFingerprint) -> tuple | None:
    if first.token_coverage == 0 or second.token_coverage == 0:
        return None
    if first.hashes.isdisjoint(second.hashes):
        return None
    _, (share_a, share_b), (slices_a, slices_b) = compare_files(first, second)
    return (float(share_a), float(share_b),
            [(int(s), int(e)) for s, e in np.asarray(slices_a).T],
            [(int(s), int(e)) for s, e in np.asarray(slices_b).T])


_shared: list[CodeFingerprint] = []


def _compare_rows(rows: list[int], floor: float) -> list[tuple]:
    found = []
    for a in rows:
        for b in range(a + 1, len(_shared)):
            pair = _pair(_shared[a], _shared[b])
            if pair and max(pair[0], pair[1]) >= floor:
                found.append((a, b, *pair))
    return found


def compare_all(fingerprints: list[CodeFingerprint], floor: float,
                jobs: int | None = None) -> list[Match]:
    """Every pair whose score reaches `floor`, compared on `jobs` processes
    (forked, so the fingerprints are shared rather than sent)."""
    global _shared
    jobs = max(1, jobs or os.cpu_count() or 1)
    count = len(fingerprints)
    _shared = fingerprints
    # Row a has count - a - 1 pairs: deal rows out round-robin so work evens out.
    chunks = [list(range(start, count, jobs * 4)) for start in range(jobs * 4)]
    try:
        if jobs == 1 or count < 40:
            results = [_compare_rows(list(range(count)), floor)]
        else:
            context = multiprocessing.get_context("fork")
            with context.Pool(jobs) as pool:
                results = pool.starmap(_compare_rows, [(c, floor) for c in chunks if c])
    finally:
        _shared = []
    return [Match(a, b, sa, sb, la, lb) for part in results for a, b, sa, sb, la, lb in part]

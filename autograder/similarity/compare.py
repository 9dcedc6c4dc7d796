"""Fingerprints and pairwise comparison of token streams, by copydetect's winnowing.

copydetect hashes every k-gram of a document and keeps a winnowed subset; each side's
*share* is the part of its own code covered by k-grams both share. The kit hands it
streams of small integers (tokens.py, the structure package) rather than letting
its Pygments filter read the file: that filter keeps docstrings, `pass` and trailing
commas, and hashes strings, whose hashes differ between runs.

Boilerplate is removed from each fingerprint here, not through copydetect's
`boilerplate=` argument: that path calls numpy's `intersect1d(..., assume_unique=True)`
on a hash list that is not unique, which silently drops one copy of every k-gram a
file repeats.
"""

from __future__ import annotations

import functools
import gc
import multiprocessing
from dataclasses import dataclass, field
from types import SimpleNamespace

import numpy as np
from copydetect import CodeFingerprint, compare_files
from copydetect.utils import get_token_coverage

#: Tokens per text k-gram: shorter runs of equal code are idiom, not copying
#: (docs/SIMILARITY.md, "Choices").
K = 16
#: Winnowing window: every run of at least K + WINDOW - 1 shared tokens is found.
WINDOW = 4

#: Where a token came from: (file index, start line, start column, end line, end column).
Place = tuple[int, int, int, int, int]


def _document(codes) -> SimpleNamespace:
    """What copydetect reads a document from (`read()`): ours is a tuple of ints,
    whose slices hash the same in every process."""
    return SimpleNamespace(read=lambda: tuple(codes))


@dataclass
class Stream:
    """One submission's code as one token stream (its files joined with a token no
    file contains, so no k-gram spans two files), and where each token came from:
    row i of `places` is (file, start line, start column, end line, end column),
    all -1 for a separator. Plain arrays: cheap to send between processes."""
    codes: list[int] = field(default_factory=list)
    places: np.ndarray = field(default_factory=lambda: np.zeros((0, 5), dtype=np.int32))

    @classmethod
    def joined(cls, parts: list[tuple[list[int], list[Place]]]) -> "Stream":
        codes: list[int] = []
        rows: list[Place] = []
        for index, (part_codes, part_places) in enumerate(parts):
            if index:
                codes.append(-1 - index)
                rows.append((-1, -1, -1, -1, -1))
            codes.extend(part_codes)
            rows.extend(part_places)
        places = np.array(rows, dtype=np.int32).reshape(-1, 5)
        return cls(codes, places)

    def span(self, first: int, stop: int) -> list[Place]:
        """The places a shared token range [first, stop) covers, one per file."""
        rows = self.places[first:stop]
        rows = rows[rows[:, 0] >= 0]
        found = []
        for file in np.unique(rows[:, 0]).tolist():
            mine = rows[rows[:, 0] == file]
            found.append((file, *mine[0, 1:3].tolist(), *mine[-1, 3:5].tolist()))
        return found


@dataclass
class Shares:
    """What two streams share: each side's share of its own code and the shared
    regions as half-open token ranges of each side's stream."""
    a_share: float = 0.0
    b_share: float = 0.0
    a_slices: list[tuple[int, int]] = field(default_factory=list)
    b_slices: list[tuple[int, int]] = field(default_factory=list)

    @property
    def score(self) -> float:
        return max(self.a_share, self.b_share)


def boilerplate_hashes(streams: list[list[int]], k: int) -> set[int]:
    """Every k-gram hash of the code students received (window 1: all of them)."""
    hashes: set[int] = set()
    for codes in streams:
        if len(codes) >= k:
            hashes |= CodeFingerprint("boilerplate", k, 1, fp=_document(codes),
                                      filter=False).hashes
    return hashes


def fingerprint(codes: list[int], boilerplate: set[int], k: int) -> CodeFingerprint:
    if len(codes) < k:      # too short to hold a k-gram: nothing to compare
        codes = list(codes) + [-1000 - i for i in range(k - len(codes))]
    found = CodeFingerprint("stream", k, WINDOW, fp=_document(codes), filter=False)
    found.hashes -= boilerplate
    found.hash_idx = {h: i for h, i in found.hash_idx.items() if h not in boilerplate}
    found.token_coverage = get_token_coverage(found.hash_idx, k, len(codes))
    return found


def _covered(found: CodeFingerprint, shared: set[int]) -> int:
    """Tokens covered by the k-grams of `found` whose hash is in `shared` (the
    length of the union of their [position, position + k) ranges), as copydetect
    counts them (plain Python: a few hundred positions)."""
    index, k = found.hash_idx, found.k
    places = sorted(p for h in shared for p in index[h])
    if not places:
        return 0
    total, previous = k, places[0]
    for place in places[1:]:
        gap = place - previous
        total += gap if gap < k else k
        previous = place
    return total


def quick_shares(first: CodeFingerprint, second: CodeFingerprint) -> tuple[float, float]:
    """The two shares copydetect's `compare_files` gives, without the slices."""
    if first.token_coverage == 0 or second.token_coverage == 0:
        return 0.0, 0.0
    shared = first.hashes & second.hashes
    if not shared:
        return 0.0, 0.0
    return (_covered(first, shared) / first.token_coverage,
            _covered(second, shared) / second.token_coverage)


def pair(first: CodeFingerprint, second: CodeFingerprint) -> Shares | None:
    """The two streams' shares, or None when they share nothing."""
    if first.token_coverage == 0 or second.token_coverage == 0:
        return None
    if first.hashes.isdisjoint(second.hashes):
        return None
    _, (share_a, share_b), (slices_a, slices_b) = compare_files(first, second)
    return Shares(float(share_a), float(share_b),
                  [(int(s), int(e)) for s, e in np.asarray(slices_a).T],
                  [(int(s), int(e)) for s, e in np.asarray(slices_b).T])


_shared: list[CodeFingerprint] = []


def _compare_rows(rows: list[int], floor: float) -> list[tuple[int, int, Shares]]:
    found = []
    for a in rows:
        first = _shared[a]
        for b in range(a + 1, len(_shared)):
            if max(quick_shares(first, _shared[b])) >= floor:
                shares = pair(first, _shared[b])
                if shares and shares.score >= floor:
                    found.append((a, b, shares))
    return found


def compare_all(fingerprints: list[CodeFingerprint], floor: float,
                jobs: int) -> dict[tuple[int, int], Shares]:
    """Every pair (a < b) whose score reaches `floor`, compared on `jobs` processes
    (forked, so the fingerprints are shared rather than sent)."""
    global _shared
    count = len(fingerprints)
    if jobs == 1 or count < 40:
        jobs, chunks = 1, [list(range(count))]
    else:       # row a has count - a - 1 pairs: dealt out round-robin, the work evens out
        chunks = [list(range(start, count, jobs * 4)) for start in range(jobs * 4)]
    _shared = fingerprints
    try:
        results = forked(functools.partial(_compare_rows, floor=floor),
                         [c for c in chunks if c], jobs)
    finally:
        _shared = []
    return {(a, b): shares for part in results for a, b, shares in part}


def forked(function, items: list, jobs: int, chunksize: int = 1) -> list:
    """`function` of every item, in order, on `jobs` forked processes (here for one)."""
    if jobs == 1:
        return [function(item) for item in items]
    gc.freeze()         # the collector of a forked worker then never copies the parent's pages
    try:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            return pool.map(function, items, chunksize)
    finally:
        gc.unfreeze()

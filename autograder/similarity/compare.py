"""Fingerprints and pairwise comparison of token streams, by copydetect's winnowing.

copydetect (MIT, on PyPI) fingerprints a document by hashing every k-gram of it and
keeping a winnowed subset; two documents share code where they share fingerprints,
and each side's *share* is the part of its own (non-boilerplate) code covered by
shared k-grams. The kit hands it streams of small integers instead of letting it
filter the file itself: the normalised tokens of `tokens.py` (the *text* evidence)
and the canonical form of the `structure` package (the *structure* evidence). copydetect's
own Pygments filter renames names and drops comments too, but keeps docstrings,
`pass` and trailing commas, and it hashes strings, whose hashes Python salts per
process, so two runs of the report would disagree.

Boilerplate (the released skeleton, every other file students received, and what
the teacher declares) is fingerprinted with the same k and removed from each
submission's fingerprints before any comparison, so code a student was given never
counts for or against a pair. It is removed here, not through copydetect's
`boilerplate=` argument: that path calls numpy's `intersect1d(..., assume_unique=
True)` on a hash list that is not unique, which silently drops one copy of every
k-gram that a file repeats.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
from dataclasses import dataclass, field

import numpy as np
from copydetect import CodeFingerprint, compare_files
from copydetect.utils import get_token_coverage

#: Tokens per k-gram: shorter runs of equal code are idiom, not copying. Chosen on
#: the kit's corpus (tests/similarity): at 12, independent tic-tac-toe solutions
#: share up to 55% of their code; at 16, 39% while disguised copies keep 77% or
#: more; at 20 and above, copies with dead code in every function start to fall.
K = 16
#: Winnowing window: every run of at least K + WINDOW - 1 shared tokens is found.
WINDOW = 4

#: Where a token came from: (file index, start line, start column, end line, end column).
Place = tuple[int, int, int, int, int]


class _Tokens:
    """copydetect reads a document from an object with read(); ours is a tuple of
    ints, whose slices hash the same in every process."""

    def __init__(self, codes):
        self.codes = tuple(codes)

    def read(self):
        return self.codes


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


def boilerplate_hashes(streams: list[list[int]], k: int | None = None) -> set[int]:
    """Every k-gram hash of the code students received (window 1: all of them)."""
    k = k or K
    hashes: set[int] = set()
    for codes in streams:
        if len(codes) >= k:
            hashes |= CodeFingerprint("boilerplate", k, 1, fp=_Tokens(codes),
                                      filter=False).hashes
    return hashes


def fingerprint(codes: list[int], boilerplate: set[int], k: int | None = None,
                window: int | None = None) -> CodeFingerprint:
    k, window = k or K, window or WINDOW
    if len(codes) < k:      # too short to hold a k-gram: nothing to compare
        codes = list(codes) + [-1000 - i for i in range(k - len(codes))]
    found = CodeFingerprint("stream", k, window, fp=_Tokens(codes), filter=False)
    found.hashes -= boilerplate
    found.hash_idx = {h: i for h, i in found.hash_idx.items() if h not in boilerplate}
    found.token_coverage = get_token_coverage(found.hash_idx, k, len(codes))
    return found


def _covered(found: CodeFingerprint, shared: set[int]) -> int:
    """Tokens covered by the k-grams of `found` whose hash is in `shared` (the
    length of the union of their [position, position + k) ranges), as copydetect
    counts them, in plain Python: faster than numpy on a few hundred positions."""
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
                jobs: int | None = None) -> dict[tuple[int, int], Shares]:
    """Every pair (a < b) whose score reaches `floor`, compared on `jobs` processes
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
            # Frozen, the collector of a forked worker never walks (and so never
            # copies) the parent's objects.
            gc.freeze()
            context = multiprocessing.get_context("fork")
            with context.Pool(jobs) as pool:
                results = pool.starmap(_compare_rows, [(c, floor) for c in chunks if c])
    finally:
        _shared = []
        gc.unfreeze()
    return {(a, b): shares for part in results for a, b, shares in part}

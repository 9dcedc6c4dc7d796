"""Behaviour: how alike two submissions answered the grader's calls
(docs/SIMILARITY.md, "Behaviour: what only a grader has").

Reads the behaviour records `autograder grade` left in `<out>/<student>/` and gives
every answer a rarity (1 when no other student gave it, 0 when a fraction SHARED of
the others did). For a pair and a target function t,

    agreement(t) = (sum of the rarity of the calls of t they answered alike)
                   / (sum over the calls of t both answered of the larger rarity + PRIOR)

and the pair's score is the mean of agreement(t) over the targets where either
answered rarely, with one more target's worth of doubt in the denominator, so one
shared quirk is at most half the evidence. A record counts only for the files whose
digests it holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..grading import behaviour_record

#: Rarity worth this many calls is added to the denominator of every target.
PRIOR = 5.0
#: An answer given by this fraction of the other students or more is not rare at all.
SHARED = 0.25


@dataclass
class Behaviour:
    """The fingerprints of one batch, aligned: answers[s, c] is student s's answer
    digest to call c (-1 where s was not asked or gave no answer); the calls are
    grouped by target (the function called), group t starting at starts[t]."""
    answers: np.ndarray
    rarity: np.ndarray          # rarity[s, c] as defined above (0 where absent)
    present: np.ndarray         # bool
    starts: np.ndarray          # first column of each target's group
    targets: list[str]

    def scores(self, first: int) -> tuple[np.ndarray, np.ndarray]:
        """(scores, calls answered alike with a rare answer) of student `first`
        with every student (rows of the table)."""
        if not self.targets:
            zeros = np.zeros(len(self.answers))
            return zeros, zeros.astype(int)
        mine = self.answers[first]
        both = self.present & self.present[first]
        alike = both & (self.answers == mine)
        shared = np.add.reduceat(alike * self.rarity[first], self.starts, axis=1)
        possible = np.add.reduceat(both * np.maximum(self.rarity, self.rarity[first]),
                                   self.starts, axis=1)
        per_target = shared / (possible + PRIOR)
        score = per_target.sum(axis=1) / ((possible > 0).sum(axis=1) + 1)
        return score, (alike & (self.rarity[first] > 0)).sum(axis=1)


def load(out_dir: Path | None, names: list[str], digests: list[dict[str, str]]
         ) -> tuple[Behaviour | None, list[int], dict[int, str]]:
    """The batch's behaviour from `out_dir`'s behaviour records: (behaviour or None,
    the indexes of `names` that have a usable record, {index: why not} for the
    students whose record exists but cannot be used)."""
    if out_dir is None:
        return None, [], {}
    found, problems = {}, {}
    for index, name in enumerate(names):
        path = Path(out_dir) / name / behaviour_record.FILE
        if not path.is_file():
            continue
        data = behaviour_record.read(path)
        if data is None:
            problems[index] = "its behaviour record could not be read"
            continue
        modules, keys, answers, targets = data
        if modules != digests[index]:
            problems[index] = ("graded on other files than these (grade again for its "
                               "behaviour to count)")
            continue
        found[index] = (np.frombuffer(keys, dtype=np.uint64),
                        np.frombuffer(answers, dtype=np.uint32), targets)
    if len(found) < 2:
        return None, sorted(found), problems
    order = sorted(found)
    target_of: dict[int, str] = {}
    for index in order:
        keys, _, targets = found[index]
        target_of.update(zip(keys.tolist(), targets))
    # Columns: every call anyone kept, grouped by target, then by key.
    columns = sorted(target_of, key=lambda k: (target_of[k], k))
    where = {k: i for i, k in enumerate(columns)}
    table = np.full((len(names), len(columns)), -1, dtype=np.int64)
    for index in order:
        keys, answers, _ = found[index]
        table[index, [where[k] for k in keys.tolist()]] = answers
    present = table >= 0
    rarity = np.zeros(table.shape, dtype=np.float64)
    informative = []
    for column in range(len(columns)):
        values = table[present[:, column], column]
        if len(values) < 3:
            continue
        kinds, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
        if len(kinds) == 1:
            continue            # everybody answered alike: nothing to tell apart
        rows = np.nonzero(present[:, column])[0]
        others = (counts[inverse] - 1) / (len(values) - 1)
        rarity[rows, column] = np.clip(1.0 - others / SHARED, 0.0, 1.0)
        if rarity[rows, column].any():
            informative.append(column)
    # Only the calls on which the batch differs can tell two students apart.
    keep = np.array(informative, dtype=np.int64)
    kept_targets = [target_of[columns[c]] for c in informative]
    starts = [i for i, t in enumerate(kept_targets) if i == 0 or t != kept_targets[i - 1]]
    return (Behaviour(table[:, keep], rarity[:, keep], present[:, keep],
                      np.array(starts, dtype=np.int64),
                      [kept_targets[i] for i in starts]), order, problems)

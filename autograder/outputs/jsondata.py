"""JSON the kit writes (results.json for Gradescope and PrairieLearn, games.jsonl).

`plain_data` makes every string (keys too) writable: a lone surrogate in a
student's output would otherwise stop `json.dump`, or pass as an escape that a
strict reader (PostgreSQL's jsonb, behind PrairieLearn) refuses. Control characters
are left to JSON's own escaping.
"""

from __future__ import annotations

import json

from .text import writable


def plain_data(value):
    if isinstance(value, str):
        return writable(value)
    if isinstance(value, dict):
        return {plain_data(k) if isinstance(k, str) else k: plain_data(v)
                for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain_data(v) for v in value]
    return value


def dumps(value, **options) -> str:
    options.setdefault("ensure_ascii", False)
    return json.dumps(plain_data(value), **options)

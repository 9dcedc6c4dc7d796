"""How much of each hidden suite is checks and how much is helpers (issue 21).

For every suite folder autograder/suites/<a>/ (not fixtures/), counted with `ast`
over the top-level functions and classes of test_hidden.py (decorators included):
`test_*` functions are checks, everything else is a helper. Next to it, the
Python lines of the whole folder (every .py file: test_hidden.py and the game's
own modules beside it, positions, games, solvers), so that moving helpers out of
test_hidden.py is not mistaken for shrinking them.

    python bench/suite_size.py [--root PATH]    # PATH: a checkout (default: this one)
"""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def count(test_hidden: Path) -> dict:
    """Checks and helpers of one test_hidden.py: numbers and lines."""
    found = {"checks": 0, "check_lines": 0, "helpers": 0, "helper_lines": 0}
    for node in ast.parse(test_hidden.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            lines = node.end_lineno - node.lineno + 1 + len(node.decorator_list)
            kind = "check" if isinstance(node, ast.FunctionDef) and \
                node.name.startswith("test_") else "helper"
            found[f"{kind}s"] += 1
            found[f"{kind}_lines"] += lines
    return found


def sizes(root: Path = HERE) -> dict[str, dict]:
    """{suite: counts}, with `folder_lines`: the lines of every .py file of the folder."""
    result = {}
    for suite in sorted((root / "autograder" / "suites").iterdir()):
        hidden = suite / "test_hidden.py"
        if not hidden.is_file():
            continue
        counts = count(hidden)
        counts["folder_lines"] = sum(len(path.read_text(encoding="utf-8").splitlines())
                                     for path in sorted(suite.glob("*.py")))
        result[suite.name] = counts
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=HERE, help="a checkout of the kit")
    args = parser.parse_args()
    for name, c in sizes(args.root).items():
        print(f"{name:10s} {c['checks']:3d} checks in {c['check_lines']:4d} lines; "
              f"{c['helpers']:3d} helpers in {c['helper_lines']:4d} lines; "
              f"folder: {c['folder_lines']:5d} lines of Python")


if __name__ == "__main__":
    main()

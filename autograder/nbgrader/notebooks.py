"""Handout notebooks: solutions/<a>/<a>.ipynb, generated, never edited by hand.

One source for everything a notebook says:
  - the task in prose: the student README (solutions/<a>/README.md);
  - the module names, the title and the public-test timeout: assignment.toml;
  - the functions to write and their signatures: the reference's solution markers;
  - one graded cell per hidden test, its title (the test's docstring) and its
    points (autograder/suites/<a>/rubric.toml), in the rubric's order.

Students edit the .py module, not the notebook: the notebook is the handout, a
place to run the public checks and to try the game. A graded cell holds no test
code at all: its hidden part asks the kit's sandboxed grader for one test's
verdict (see cells.py), so nothing secret is in the notebook and no student code
is ever imported into the grading kernel.

    python -m autograder.nbgrader.notebooks [ASSIGNMENT ...] [--check]
"""

from __future__ import annotations

import argparse
import ast
import sys
import tomllib
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from .. import KitError, release, slices
from . import BEGIN_HIDDEN, END_HIDDEN

SCHEMA = 3


def notebook_path(name: str) -> Path:
    return slices.load(name).solution_dir / f"{name}.ipynb"


def hidden_tests(piece: slices.Slice) -> list[tuple[str, str, float]]:
    """(test name, docstring's first line, points) for every rubric entry, in rubric order."""
    rubric_path = piece.suite_dir / "rubric.toml"
    if not rubric_path.is_file():
        raise KitError(f"{rubric_path} is missing: no graded cells can be made for {piece.name}")
    points = tomllib.loads(rubric_path.read_text(encoding="utf-8")).get("points", {})
    if not points:
        raise KitError(f"{rubric_path} has no [points]")
    titles = {}
    for path in sorted(piece.suite_dir.glob("test_*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                doc = (ast.get_docstring(node) or node.name).strip().splitlines()[0]
                titles[node.name] = doc
    missing = [name for name in points if name not in titles]
    if missing:
        raise KitError(f"{rubric_path}: no hidden test named {', '.join(missing)}")
    return [(name, titles[name], float(value)) for name, value in points.items()]


def student_functions(piece: slices.Slice) -> list[tuple[str, str]]:
    """(module, `name(params)`) for every function the student writes."""
    found = []
    for module in piece.modules:
        source = (piece.solution_dir / module).read_text(encoding="utf-8")
        stubbed = set(release.strip_solutions(source, str(piece.solution_dir / module)).stubbed)

        def visit(node, prefix):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.FunctionDef):
                    qualified = prefix + child.name
                    if qualified in stubbed:
                        params = ", ".join(a.arg for a in child.args.args)
                        found.append((Path(module).stem, f"{qualified}({params})"))
                    visit(child, qualified + ".")
                elif isinstance(child, ast.ClassDef):
                    visit(child, prefix + child.name + ".")
        visit(ast.parse(source), "")
    return found


def _points(value: float) -> str:
    return f"{value:g} point" + ("" if value == 1 else "s")


def _meta(grade_id: str, *, locked: bool, grade: bool = False, points: float | None = None):
    meta = {"grade": grade, "grade_id": grade_id, "locked": locked,
            "schema_version": SCHEMA, "solution": False, "task": False}
    if grade:
        meta["points"] = points
    extra = {"editable": False, "deletable": False} if locked else {}
    return {**extra, "nbgrader": meta}


def _cell(kind, source: str, grade_id: str, **meta):
    cell = kind(source.rstrip("\n"), metadata=_meta(grade_id, **meta))
    cell["id"] = grade_id.replace("_", "-")
    return cell


def test_cell_source(name: str, test: str, title: str, points: float, module: str) -> str:
    """A graded cell: visible comments, and a hidden call of the kit's grader."""
    return "\n".join([
        f"# Graded check: {title} ({_points(points)}).",
        f"# Your teacher's grader runs this check on the {module} you submit, in a sandbox.",
        "# The check itself is hidden; run the public checks above before you submit.",
        BEGIN_HIDDEN,
        "import os, sys  # never import anything from the submission's folder",
        "sys.path[:] = [p for p in sys.path if p not in ('', '.', os.getcwd())]",
        "from autograder.nbgrader.cells import verdict",
        f"verdict({name!r}, {test!r})",
        END_HIDDEN,
    ])


def build(name: str) -> nbformat.NotebookNode:
    piece = slices.load(name)
    readme = piece.solution_dir / "README.md"
    if not readme.is_file():
        raise KitError(f"{readme} is missing: it is the task the notebook shows")
    tests = hidden_tests(piece)
    functions = student_functions(piece)
    modules = ", ".join(f"`{m}`" for m in piece.modules)
    first_module = piece.module_names[0]
    cells = [
        _cell(new_markdown_cell, readme.read_text(encoding="utf-8"), "task", locked=True),
        _cell(new_markdown_cell, f"""\
## Working with this notebook

Write your code in {modules}, next to this notebook, not in the notebook: the
grader reads only the module{"s" if len(piece.modules) > 1 else ""}. Use the cells below to run the
public checks (the same as `make check`) and to try your functions. The graded
cells at the end hold no tests you can run: your teacher's grader fills them in.
Submit the whole folder.""", "how_to", locked=True),
        _cell(new_code_cell, """\
# The public checks, in a fresh Python, so your latest edits are tested.
import subprocess, sys
done = subprocess.run([sys.executable, "-m", "pytest"], capture_output=True, text=True)
print(done.stdout[-20000:] or done.stderr[-5000:])""", "public_checks", locked=True),
        _cell(new_markdown_cell, "## Try your functions\n\nThe functions you write:\n\n"
              + "\n".join(f"- `{m}.{f}`" for m, f in functions), "try_it_text", locked=True),
        _cell(new_code_cell, "\n".join([
            "import importlib",
            *[f"import {m}" for m in piece.module_names],
            *[f"importlib.reload({m})  # pick up your latest edits" for m in piece.module_names],
            "# Call your functions here, for example:",
            *[f"# {m}.{f}" for m, f in functions[:3]],
        ]), "try_it", locked=False),
    ]
    if "play.py" in piece.files:
        cells.append(_cell(new_code_cell, "\n".join([
            "# Play against your own code (the same as `make play`): remove the # below and",
            "# run the cell; type your answers into the box that appears.",
            "# %run play.py",
        ]), "play", locked=False))
    total = sum(points for _, _, points in tests)
    table = "\n".join(f"| {title} | {points:g} |" for _, title, points in tests)
    cells.append(_cell(new_markdown_cell, f"""\
## Graded checks ({total:g} points)

Each cell below is one hidden check of {modules}. Your teacher's grader runs them
in a sandbox and writes the result into the cell; your feedback says what was
checked and, for a failed check, the smallest position your code got wrong.

| check | points |
|---|---|
{table}""", "graded_text", locked=True))
    for test, title, points in tests:
        cells.append(_cell(new_code_cell, test_cell_source(name, test, title, points,
                                                           f"{first_module}.py"),
                           test, locked=True, grade=True, points=points))
    notebook = new_notebook(cells=cells, metadata={
        "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python",
                       "name": "python3"},
        "language_info": {"name": "python"},
    })
    nbformat.validate(notebook)
    return notebook


def render(name: str) -> str:
    return nbformat.writes(build(name)) + "\n"


def write(name: str) -> bool:
    """Write the notebook of `name` if it differs from the generator's output;
    return whether it did (so a teacher is told only of real changes)."""
    path, text = notebook_path(name), render(name)
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return False
    path.write_text(text, encoding="utf-8")
    return True


def differences(name: str) -> list[str]:
    path = notebook_path(name)
    if not path.is_file():
        return [f"{path} is missing"]
    if path.read_text(encoding="utf-8") != render(name):
        return [f"{path} differs from what the generator produces"]
    return []


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder.nbgrader.notebooks",
                                     description="generate the handout notebooks")
    parser.add_argument("assignments", nargs="*", help="default: every assignment")
    parser.add_argument("--check", action="store_true", help="only report stale notebooks")
    args = parser.parse_args(argv)
    status = 0
    for name in args.assignments or slices.names():
        try:               # one unfinished slice must not stop the others
            if args.check:
                problems = differences(name)
                print("\n".join(problems) or f"{notebook_path(name)} is up to date")
                status |= bool(problems)
            else:
                changed = write(name)
                print(f"wrote {notebook_path(name)}" if changed
                      else f"{notebook_path(name)} is up to date")
        except KitError as error:
            print(f"notebooks: {name}: {error}", file=sys.stderr)
            status = 2
    return status


if __name__ == "__main__":
    sys.exit(main())

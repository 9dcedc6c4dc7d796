"""Handout notebooks: solutions/<a>/<a>.ipynb, generated, never edited by hand.

Each part has one source: the task is the student README; modules, title and
timeout come from assignment.toml, with its `[notebook] try` cell and its
`[[answers]]` (questions graded by hand in formgrader, whose points are the
notebook's, not the rubric's); the functions to write from the reference's
solution markers; one graded cell per hidden test, titled by its docstring and
worth its rubric points. Students edit the .py module; the notebook is where
they run the public checks and try the game. A graded cell holds no test code:
it asks the kit's sandboxed grader for one test's verdict (cells.py).
"""

from __future__ import annotations

import ast
import contextvars
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from .. import KitError, i18n, release, assignment as assignments
from ..grading.runner import check_titles
from . import BEGIN_HIDDEN, END_HIDDEN, graded_cell

# The language of the notebook being built (build() sets it): its sentences come from
# the `spielbaum` catalog, the hidden checks' titles from the grader's.
_LANGUAGE: contextvars.ContextVar[str | None] = contextvars.ContextVar("language",
                                                                       default=None)


def _(message: str) -> str:
    return i18n.translation(i18n.course_language(_LANGUAGE.get())).gettext(message)


def ngettext(singular: str, plural: str, count: int) -> str:
    return i18n.translation(i18n.course_language(_LANGUAGE.get())).ngettext(
        singular, plural, count)


def notebook_path(name: str) -> Path:
    return assignments.load(name).notebook


def hidden_tests(assignment: assignments.Assignment) -> list[tuple[str, str, float]]:
    """(test name, docstring's first line, points) for every rubric entry, in rubric order."""
    rubric_path = assignment.suite_dir / "rubric.toml"
    points = assignment.rubric().points
    if not points:
        raise KitError(f"{rubric_path} has no [points]")
    titles = check_titles(assignment.suite_dir)
    missing = [name for name in points if name not in titles]
    if missing:
        raise KitError(f"{rubric_path}: no hidden test named {', '.join(missing)}")
    return [(name, titles[name], float(value)) for name, value in points.items()]


def hidden_titles(assignment: assignments.Assignment, language: str | None = None
                  ) -> dict[str, str]:
    """test name -> its title in `language` (default: the course's), from the grader's
    catalog."""
    said = i18n.translation(i18n.course_language(language), i18n.GRADER).gettext
    return {test: said(title) for test, title, _points in hidden_tests(assignment)}


def student_functions(assignment: assignments.Assignment) -> list[tuple[str, str]]:
    """(module, `name(params)`) for every function and method the student writes
    and calls: module functions and methods of module classes, `self` left out. A
    function nested inside another (a decorator's wrapper) is part of the outer
    one, which is listed."""
    found = []
    for module in assignment.modules:
        source = (assignment.solution_dir / module).read_text(encoding="utf-8")
        where = str(assignment.solution_dir / module)
        stubbed = set(release.strip_solutions(source, where).stubbed)

        def visit(node, prefix, in_class):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.FunctionDef):
                    qualified = prefix + child.name
                    if qualified in stubbed:
                        params = [a.arg for a in child.args.args]
                        if in_class and params and params[0] == "self":
                            params = params[1:]
                        found.append((Path(module).stem, f"{qualified}({', '.join(params)})"))
                elif isinstance(child, ast.ClassDef):
                    visit(child, prefix + child.name + ".", True)
        visit(ast.parse(source), "", False)
    return found


def try_source(assignment: assignments.Assignment) -> str:
    """The example calls of the "try your functions" cell (assignment.toml)."""
    text = assignment.extra.get("notebook", {}).get("try", "")
    if not isinstance(text, str) or not text.strip():
        raise KitError(f"{assignment.solution_dir / 'assignment.toml'}: [notebook] try is missing: "
                       "the example calls the notebook offers (they must run as they are)")
    return text.strip("\n")


def answers(assignment: assignments.Assignment) -> list[dict]:
    """The questions answered in prose ([[answers]] in assignment.toml), checked."""
    where = assignment.solution_dir / "assignment.toml"
    found, seen = [], set()
    for entry in assignment.extra.get("answers", []):
        if not isinstance(entry, dict) or not {"id", "points", "question"} <= set(entry):
            raise KitError(f"{where}: every [[answers]] needs id, points and question")
        grade_id = str(entry["id"])
        if not grade_id.startswith("answer_") or grade_id in seen or \
                not grade_id.replace("_", "").isalnum():
            raise KitError(f"{where}: answer id {grade_id!r} must be unique and read "
                           "answer_<words> (letters, digits, underscores)")
        seen.add(grade_id)
        found.append({"id": grade_id, "points": float(entry["points"]),
                      "question": str(entry["question"]).strip()})
    return found


def _points(value: float) -> str:
    return ngettext("{points} point", "{points} points", 1 if value == 1 else 2).format(
        points=f"{value:g}")


#: What an unanswered prose cell holds (nbgrader's own stub for written answers).
ANSWER_STUB = "YOUR ANSWER HERE"


def _cell(kind, source: str, grade_id: str, **meta):
    return graded_cell(kind, source.rstrip("\n"), grade_id, **meta)


def test_cell_source(name: str, test: str, title: str, points: float, module: str) -> str:
    """A graded cell: visible comments, and a hidden call of the kit's grader."""
    return "\n".join([
        "# " + _("Graded check: {title} ({points}).").format(title=title,
                                                          points=_points(points)),
        "# " + _("Your teacher's grader runs this check on the {module} you submit, in a "
                 "sandbox.").format(module=module),
        "# " + _("The check itself is hidden; run the public checks above before you "
                 "submit."),
        BEGIN_HIDDEN,
        "import os, sys  # never import anything from the submission's folder",
        "sys.path[:] = [p for p in sys.path if p not in ('', '.', os.getcwd())]",
        "from autograder.nbgrader.cells import verdict",
        f"verdict({name!r}, {test!r})",
        END_HIDDEN,
    ])


def _comment(text: str) -> str:
    """A message as comment lines, its own line breaks kept."""
    return "\n".join("# " + line for line in text.split("\n"))


def _literal(text: str, indent: str) -> str:
    """`text` as a double-quoted Python literal, split into pieces of at most 78
    characters (implicitly joined, each continued under the first)."""
    pieces, piece = [], ""
    for word in text.split(" "):
        if piece and len(piece) + len(word) > 78:
            pieces.append(piece)
            piece = ""
        piece += word + " "
    pieces.append(piece[:-1])
    quoted = ['"' + p.replace("\\", "\\\\").replace('"', '\\"') + '"' for p in pieces]
    return ("\n" + indent).join(quoted)


def public_checks_source() -> str:
    """The cell that runs the public checks, its comments and messages translated."""
    return "\n".join([
        _comment(_("The public checks, as `make check` runs them, in a fresh Python (your "
                   "latest\nedits are tested). ONLY = [\"winner\"] checks one function, like "
                   "`make check F=winner`.")),
        "import importlib.util, subprocess, sys",
        "ONLY = []",
        'command = [sys.executable, "-m", "pytest", *[f"--function={name}" for name in ONLY]]',
        'if importlib.util.find_spec("pytest_timeout") is None:',
        "    print(" + _literal(_("pytest-timeout is missing in this notebook's Python, so code "
                                 "that sleeps is not stopped: install it with  %pip install "
                                 "pytest-timeout"), " " * 10) + ")",
        '    command += ["-p", "no:timeout", "-W", "ignore::pytest.PytestConfigWarning"]',
        "try:",
        "    done = subprocess.run(command, capture_output=True, text=True, timeout=300)",
        "    print(done.stdout[-20000:] or done.stderr[-5000:])",
        "except subprocess.TimeoutExpired:",
        "    print(" + _literal(_("The public checks were stopped after 5 minutes: does your "
                                 "code sleep or wait for input?"), " " * 10) + ")",
    ])


def _listing(functions: list[tuple[str, str]]) -> str:
    """The functions to write, a class's methods on one line under it."""
    methods: dict[tuple[str, str], list[str]] = {}    # a plain function: none
    for module, signature in functions:
        owner, _, method = signature.rpartition(".")
        if owner and "(" not in owner:
            methods.setdefault((module, owner), []).append(method)
        else:
            methods[(module, signature)] = []
    return "\n".join(f"- `{module}.{name}`" + (": " + ", ".join(f"`{m}`" for m in listed)
                                                if listed else "")
                     for (module, name), listed in methods.items())


def build(name: str, language: str | None = None) -> nbformat.NotebookNode:
    """The handout notebook of `name` in `language` (default: the course's)."""
    language = i18n.course_language(language)
    token = _LANGUAGE.set(language)
    try:
        return _build(name, language)
    finally:
        _LANGUAGE.reset(token)


def _build(name: str, language: str) -> nbformat.NotebookNode:
    assignment = assignments.load(name)
    readme = assignment.solution_dir / "README.md"
    if not readme.is_file():
        raise KitError(f"{readme} is missing: it is the task the notebook shows")
    titles = hidden_titles(assignment, language)
    tests = [(test, titles[test], points) for test, _title, points in hidden_tests(assignment)]
    functions = student_functions(assignment)
    written = [dict(entry, question=_(entry["question"])) for entry in answers(assignment)]
    modules = ", ".join(f"`{m}`" for m in assignment.modules)
    first_module = assignment.module_names[0]
    prose = (" " + _("Answer the questions at the end in this notebook: your teacher "
                     "reads and grades them.")) if written else ""
    readme_text = i18n.translate_markdown(readme.read_text(encoding="utf-8"), language)
    cells = [
        _cell(new_markdown_cell, readme_text, "task", locked=True),
        _cell(new_markdown_cell, "## " + _("Working with this notebook") + "\n\n" + ngettext(
            "Write your code in {modules}, next to this notebook, not in the notebook: the\n"
            "grader reads only the module. Use the cells below to run the\n"
            "public checks (the same as `make check`) and to try your functions. The graded\n"
            "cells after them hold no tests you can run: your teacher's grader fills them "
            "in.{prose}\nSubmit the whole folder.",
            "Write your code in {modules}, next to this notebook, not in the notebook: the\n"
            "grader reads only the modules. Use the cells below to run the\n"
            "public checks (the same as `make check`) and to try your functions. The graded\n"
            "cells after them hold no tests you can run: your teacher's grader fills them "
            "in.{prose}\nSubmit the whole folder.",
            len(assignment.modules)).format(modules=modules, prose=prose), "how_to", locked=True),
        _cell(new_code_cell, public_checks_source(), "public_checks", locked=True),
        _cell(new_markdown_cell, "## " + _("Try your functions") + "\n\n"
              + _("The functions you write:") + "\n\n" + _listing(functions), "try_it_text",
              locked=True),
        _cell(new_code_cell, "\n".join([
            "import importlib",
            *[f"import {m}" for m in assignment.module_names],
            *[f"importlib.reload({m})  # " + _("pick up your latest edits")
              for m in assignment.module_names],
            "",
            try_source(assignment),
        ]), "try_it", locked=False),
    ]
    if "play.py" in assignment.files:
        cells.append(_cell(new_code_cell, "\n".join([
            _comment(_("Play against your own code (the same as `make play`): remove the # "
                       "below and\nrun the cell; type your answers into the box that appears.")),
            "# %run play.py",
        ]), "play", locked=False))
    if "duel.py" in assignment.files:
        cells.append(_cell(new_code_cell, "\n".join([
            _comment(_("Your player against the bundled ones, refereed like the class "
                       "tournament (the\nsame as `make duel`; some graded checks play such "
                       "games): remove the # below.")),
            "# %run duel.py --games 4",
        ]), "duel", locked=False))
    total = sum(entry[2] for entry in tests)
    table = "\n".join(f"| {points:g} | {title} |" for _test, title, points in tests)
    cells.append(_cell(new_markdown_cell, "\n\n".join([
        "## " + _("Graded checks ({points} points)").format(points=f"{total:g}"),
        _("Each cell below is one hidden check of {modules}. Your teacher's grader runs them\n"
          "in a sandbox and writes the result into the cell; your feedback says what was\n"
          "checked and, for a failed check, the smallest position your code got wrong.")
        .format(modules=modules),
        "| " + _("points") + " | " + _("check") + " |\n|---:|---|\n" + table,
    ]), "graded_text", locked=True))
    for test, title, points in tests:
        cells.append(_cell(new_code_cell, test_cell_source(name, test, title, points,
                                                           f"{first_module}.py"),
                           test, locked=True, grade=True, points=points))
    if written:
        prose_total = sum(a["points"] for a in written)
        cells.append(_cell(new_markdown_cell, "\n\n".join([
            "## " + _("Questions ({points}, graded by your teacher)").format(
                points=_points(prose_total)),
            _("Answer each question in the cell below it, in a few sentences of your own "
              "(double-click\nthe cell to write in it). These answers are read and graded by "
              "hand, not by the\ngrader."),
        ]), "answers_text", locked=True))
        for entry in written:
            cells.append(_cell(new_markdown_cell,
                               f"**{entry['question']}** ({_points(entry['points'])})",
                               entry["id"] + "_question", locked=True))
            cells.append(_cell(new_markdown_cell, ANSWER_STUB, entry["id"], locked=False,
                               grade=True, solution=True, points=entry["points"]))
    notebook = new_notebook(cells=cells, metadata={
        "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python",
                       "name": "python3"},
        "language_info": {"name": "python"},
    })
    nbformat.validate(notebook)
    return notebook


def render(name: str, language: str | None = None) -> str:
    return nbformat.writes(build(name, language)) + "\n"


def write(name: str) -> bool:
    """Write the English notebook of `name` (nbgrader's source, see cycle.course_source)
    if it differs from the generator's output; return whether it did (so a teacher
    is told only of real changes)."""
    path, text = notebook_path(name), render(name, i18n.SOURCE)
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return False
    path.write_text(text, encoding="utf-8")
    return True


def differences(name: str) -> list[str]:
    path = notebook_path(name)
    if not path.is_file():
        return [f"{path} is missing"]
    if path.read_text(encoding="utf-8") != render(name, i18n.SOURCE):
        return [f"{path} differs from what the generator produces"]
    return []

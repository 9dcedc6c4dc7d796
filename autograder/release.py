"""The release step: solutions/<a>/ -> assignments/<a>/.

Strip the solutions, write the skeleton, copy the shipped files, add the student
kit (student_kit/: Makefile, check.py, pytest settings, the summary plugin and its
page, the course's language and the compiled catalogs) and end the README with the
kit's section on checking. The output is deterministic, so a test proves that the
committed assignments/ is exactly what this step produces.
"""

from __future__ import annotations

import ast
import filecmp
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from . import ROOT, KitError
from . import i18n, assignment as assignments

BEGIN = "### BEGIN SOLUTION"
END = "### END SOLUTION"
STUB = ("# YOUR CODE HERE", "raise NotImplementedError()")
STUDENT_KIT = ROOT / "autograder" / "student_kit"
#: Appended to every student README (what a student needs, the checks without make).
README_SECTION = STUDENT_KIT / "README-checks.md"


@dataclass
class Stripped:
    text: str
    stubbed: list[str]          # qualified names of functions the student writes
    removed_lines: list[str]    # the solution lines that were taken out


def _regions(lines: list[str], where: str) -> list[tuple[int, int]]:
    """(begin, end) line indexes of each marked region; errors name the line."""
    regions, begin = [], None
    for number, line in enumerate(lines):
        marker = line.strip()
        if marker == BEGIN:
            if begin is not None:
                raise KitError(f"{where}:{number + 1}: BEGIN SOLUTION inside another region")
            begin = number
        elif marker == END:
            if begin is None:
                raise KitError(f"{where}:{number + 1}: END SOLUTION without BEGIN")
            regions.append((begin, number))
            begin = None
    if begin is not None:
        raise KitError(f"{where}:{begin + 1}: BEGIN SOLUTION is never closed")
    return regions


def _functions(tree: ast.AST) -> list[tuple[str, int, int]]:
    """(qualified name, first line, last line) of every function, 1-based."""
    found = []

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = prefix + child.name
                found.append((name, child.lineno, child.end_lineno))
                visit(child, name + ".")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")
    visit(tree, "")
    return found


def strip_solutions(source: str, where: str = "<module>") -> Stripped:
    """Replace marked regions: a stub inside a function, nothing elsewhere."""
    lines = source.splitlines()
    try:
        functions = _functions(ast.parse(source))
    except SyntaxError as error:
        raise KitError(f"{where}:{error.lineno}: reference does not parse: {error.msg}") from None
    out, stubbed, removed, cursor = [], [], [], 0
    for begin, end in _regions(lines, where):
        out.extend(lines[cursor:begin])
        removed.extend(lines[begin + 1:end])
        enclosing = [f for f in functions if f[1] < begin + 1 <= f[2]]
        if enclosing:
            name = max(enclosing, key=lambda f: f[1])[0]
            indent = lines[begin][: len(lines[begin]) - len(lines[begin].lstrip())]
            out.extend(indent + stub for stub in STUB)
            stubbed.append(name)
        else:
            # A module- or class-level region: drop it and one blank line after.
            if end + 1 < len(lines) and not lines[end + 1].strip():
                end += 1
        cursor = end + 1
    out.extend(lines[cursor:])
    text = "\n".join(out) + "\n"
    try:
        ast.parse(text)
    except SyntaxError as error:
        raise KitError(f"{where}: the skeleton would not parse (line {error.lineno}): "
                       "check the placement of the solution markers") from None
    return Stripped(text, stubbed, removed)


def extract_module(fileobj, keywords, comment_tags, options):
    """Babel's extractor for a reference module: the messages of the skeleton the
    release step makes of it (a solution region's text is never released)."""
    skeleton = strip_solutions(fileobj.read().decode("utf-8"), getattr(fileobj, "name", "?"))
    for line, msgid in i18n.module_messages(skeleton.text):
        yield line, None, msgid, []


def render(assignment: assignments.Assignment, target: Path,
           language: str | None = None) -> list[str]:
    """Write the student folder for `assignment` into `target`, speaking `language`
    (default: the course's, autograder/i18n.py); return stubbed names."""
    language = i18n.course_language(language)
    source_dir = assignment.solution_dir
    target.mkdir(parents=True, exist_ok=True)
    stubbed: list[str] = []
    for module in assignment.modules:
        path = source_dir / module
        if not path.is_file():
            raise KitError(f"{path}: listed in assignment.toml but missing")
        stripped = strip_solutions(path.read_text(encoding="utf-8"), str(path))
        if not stripped.stubbed:
            raise KitError(f"{path}: no solution markers inside any function")
        (target / module).write_text(i18n.translate_module(stripped.text, language),
                                     encoding="utf-8")
        stubbed += stripped.stubbed
    for name in assignment.files:
        path = source_dir / name
        if not path.is_file():
            raise KitError(f"{path}: listed in assignment.toml but missing")
        text = path.read_text(encoding="utf-8")
        if BEGIN in text:
            raise KitError(f"{path}: shipped file contains solution markers")
        if name.endswith(".md") and language != i18n.SOURCE:
            (target / name).write_text(i18n.translate_markdown(text, language), encoding="utf-8")
        else:
            shutil.copyfile(path, target / name)
    for template in sorted(STUDENT_KIT.iterdir()):
        if template.is_file() and template.name != README_SECTION.name:
            text = template.read_text(encoding="utf-8")
            if template.name == "Makefile":
                text = i18n.translate_makefile(text, language)
            text = _filled(text, assignment, stubbed, language)
            (target / template.name.removesuffix(".in")).write_text(text, encoding="utf-8")
    _add_readme_section(assignment, target, stubbed, language)
    # Every catalog ships, whatever the course's language: a student may choose another.
    for code in i18n.TRANSLATED:
        catalog = target / "locale" / code / "LC_MESSAGES" / i18n.mo_file(code).name
        catalog.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(i18n.mo_file(code), catalog)
    return stubbed


def public_tests(assignment: assignments.Assignment) -> list[str]:
    """The shipped public test files: pytest.ini's testpaths, the only files the
    checks collect."""
    return [name for name in assignment.files
            if name.startswith("test_") and name.endswith(".py")]


def example_function(assignment: assignments.Assignment, stubbed: list[str]) -> str:
    """A function the student writes that has public checks of its own: the README's
    example of checking one function."""
    written = {name.rsplit(".", 1)[-1] for name in stubbed}
    for name in public_tests(assignment):
        text = (assignment.solution_dir / name).read_text(encoding="utf-8")
        for function in re.findall(r"""@pytest\.mark\.checks\(["'](\w+)["']\)""", text):
            if function in written:
                return function
    return stubbed[0].rsplit(".", 1)[-1]


def _filled(text: str, assignment: assignments.Assignment, stubbed: list[str],
            language: str) -> str:
    """A student-kit template with the assignment's values in its @PLACEHOLDERS@."""
    values = {
        "@TIMEOUT@": f"{assignment.public_timeout:g}",
        # a public test's wall-clock backstop: the student's machine runs only this,
        # so a sleeping test should not keep them waiting long
        "@WALL_TIMEOUT@": f"{3 * assignment.public_timeout + 2:g}",
        "@TITLE@": i18n.translator(language)(assignment.title),
        "@RELIES_ON@": "".join(f"\n    {function}: {' '.join(callees)}"
                               for function, callees in assignment.relies_on.items()),
        "@TESTPATHS@": "".join(f"\n    {name}" for name in public_tests(assignment)),
        "@MODULES@": "".join(f"\n    {name}" for name in assignment.modules),
        "@PACKAGES@": "".join(f"\n    {name}" for name in assignment.packages),
        "@FUNCTION@": example_function(assignment, stubbed),
        "@LANGUAGE@": language,
        # check_page.py's: the title as a Python literal, and (last, so nothing in it
        # is read as a placeholder) the pages' one stylesheet, into a """ string.
        "@PAGE_TITLE@": repr(i18n.translator(language)(assignment.title)),
        "@STYLESHEET@": _stylesheet_literal(),
    }
    for placeholder, value in values.items():
        text = text.replace(placeholder, value)
    return text


def _stylesheet_literal() -> str:
    """outputs/pages.py's stylesheet, for check_page.py's triple-quoted string (the
    student's page wears the teacher's look, from one source)."""
    from .outputs.pages import STYLESHEET
    if '"""' in STYLESHEET or "\\" in STYLESHEET:
        raise KitError("outputs/pages.py: the stylesheet holds a backslash or three quotes, "
                       "which check_page.py's string cannot hold as they are")
    return STYLESHEET


def _add_readme_section(assignment: assignments.Assignment, target: Path, stubbed: list[str],
                        language: str) -> None:
    """Every student README ends with the kit's section on what a student needs and
    how to run the checks without make (one text for every assignment, translated
    block by block like the README itself)."""
    section = _filled(i18n.translate_markdown(README_SECTION.read_text(encoding="utf-8"),
                                              language), assignment, stubbed, language)
    readme = target / "README.md"
    before = readme.read_text(encoding="utf-8").rstrip("\n") + "\n\n" if readme.is_file() else ""
    readme.write_text(before + section, encoding="utf-8")


def release(name: str, language: str | None = None) -> Path:
    """Regenerate assignments/<name>/ from solutions/<name>/."""
    assignment = assignments.load(name)
    with tempfile.TemporaryDirectory() as scratch:
        staged = Path(scratch) / name
        render(assignment, staged, language)
        final = assignment.assignment_dir
        if final.exists():
            shutil.rmtree(final)
        final.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(staged, final)
    return assignment.assignment_dir


def differences(name: str, language: str | None = None) -> list[str]:
    """Files that differ between assignments/<name>/ and a fresh release."""
    assignment = assignments.load(name)
    with tempfile.TemporaryDirectory() as scratch:
        staged = Path(scratch) / name
        render(assignment, staged, language)
        return _compare(staged, assignment.assignment_dir)


def _compare(expected: Path, actual: Path) -> list[str]:
    if not actual.is_dir():
        return [f"{actual} is missing"]
    mine = {p.relative_to(expected) for p in expected.rglob("*") if p.is_file()}
    theirs = {p.relative_to(actual) for p in actual.rglob("*")
              if p.is_file() and "__pycache__" not in p.parts and ".venv" not in p.parts}
    problems = [f"{actual / p} is not produced by the release step" for p in sorted(theirs - mine)]
    problems += [f"{actual / p} is missing" for p in sorted(mine - theirs)]
    problems += [f"{actual / p} differs from the release step's output"
                 for p in sorted(mine & theirs)
                 if not filecmp.cmp(expected / p, actual / p, shallow=False)]
    return problems


# ------------------------------------------------------------ the command
def add_command(commands) -> None:
    """`autograder release [ASSIGNMENT ...] [--check] [--lang de|nl|en]`."""
    parser = commands.add_parser("release", help="generate assignments/ from solutions/")
    parser.add_argument("assignments", nargs="*", help="default: every assignment")
    parser.add_argument("--check", action="store_true",
                        help="only report whether assignments/ is up to date")
    parser.add_argument("--lang", choices=i18n.LANGUAGES, default=None,
                        help="the language the assignments speak (default: "
                             "SPIELBAUM_COURSE_LANG, else en); students may override it")
    parser.set_defaults(run=_run)


def _run(args) -> int:
    status = 0
    language = i18n.course_language(args.lang)     # one clear line if it is unknown
    for name in args.assignments or assignments.names():
        if args.check:
            problems = differences(name, language)
            for problem in problems:
                print(problem)
            status |= bool(problems)
            if not problems:
                print(f"assignments/{name} is up to date")
        else:
            print(f"released {name} -> {release(name, language)}")
    return status

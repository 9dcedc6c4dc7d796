"""What the release step and the notebook generator write in German and Dutch
(issue 23): the skeletons' docstrings, comments and terminal prose, the handout
notebooks, and the sandbox child's sentences in the feedback. The code itself, the
names the interface requires and the English output stay as they are."""

import ast
import re
import subprocess

import nbformat
import pytest

from autograder import i18n, release, assignment as assignments
from autograder.nbgrader import notebooks
from autograder.sandbox import child_words
from tests.conftest import ROOT

NAMES = ["tictactoe", "gametree", "connect4", "negamax", "muehle"]
LANGUAGES = list(i18n.TRANSLATED)


def skeleton(name: str, language: str, tmp_path) -> str:
    folder = tmp_path / language / name
    release.render(assignments.load(name), folder, language)
    return (folder / f"{name}.py").read_text(encoding="utf-8")


def code_shape(source: str) -> str:
    """The module's code: its AST with every string emptied (comments are not in it)."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            node.value = ""
        elif isinstance(node, ast.JoinedStr):
            node.values = sorted((v for v in node.values if isinstance(v, ast.FormattedValue)),
                                 key=ast.dump)      # a translation may move a field
    return ast.dump(tree)


def strings_of_code(source: str) -> set[str]:
    """The string literals of a module that are not docstrings."""
    tree = ast.parse(source)
    docs = {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef)) and node.body
            and isinstance(node.body[0], ast.Expr)}
    return {node.value for node in ast.walk(tree) if isinstance(node, ast.Constant)
            and isinstance(node.value, str) and id(node) not in docs}


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("name", NAMES)
def test_the_skeleton_speaks_the_language_and_keeps_its_code(name, language, tmp_path):
    """Every docstring and comment of the released module is in the course's
    language; the code (names, signatures, stubs, values) is the English skeleton's,
    apart from the strings marked `# i18n`, and no marker is left."""
    english = (ROOT / "assignments" / name / f"{name}.py").read_text(encoding="utf-8")
    translated = skeleton(name, language, tmp_path)
    assert i18n.MARK not in translated and i18n.MARK not in english
    said = i18n.translation(language).gettext
    # the messages as extract_module finds them: the skeleton with its markers
    messages = i18n.module_messages(release.strip_solutions(
        (ROOT / "solutions" / name / f"{name}.py").read_text(encoding="utf-8")).text)
    assert messages, name
    untranslated = [msgid for _, msgid in messages if said(msgid) == msgid]
    assert not untranslated, f"{name} in {language}: run `make catalogs`: {untranslated[:3]}"
    code_en, code_xx = strings_of_code(english), strings_of_code(translated)
    changed = code_en - code_xx
    marked = {msgid for _, msgid in messages}
    assert all(any(text in m for m in marked)          # (an f-string's pieces too)
               for text in changed), changed     # only marked terminal strings changed
    assert code_shape(english) == code_shape(translated)
    assert translated.count("raise NotImplementedError()") == \
        english.count("raise NotImplementedError()")
    assert ast.get_docstring(ast.parse(translated)) == said(ast.get_docstring(ast.parse(english)))


def test_docstrings_comments_and_marked_strings_are_rewritten_in_place():
    source = '''"""
Module summary.

More.
"""

# A comment that goes
# over two lines.
X = 1  # trailing comments stay


def f(a):
    """One line."""
    # YOUR CODE HERE
    raise NotImplementedError()


def g(a):
    """Two lines,
    closed on the last."""
    say(f"Move {a} now.")  # i18n
    return "code"
'''
    found = {msgid for _, msgid in i18n.module_messages(source)}
    assert found == {"Module summary.\n\nMore.", "A comment that goes over two lines.",
                     "One line.", "Two lines,\nclosed on the last.", "Move {a} now."}
    words = {"Module summary.\n\nMore.": "Zusammenfassung.\n\nMehr \"dazu\".",
             "A comment that goes over two lines.": "Ein Kommentar.",
             "One line.": "Eine Zeile mit \\ und \"Zitat\"",
             "Two lines,\nclosed on the last.": "Zwei Zeilen,\nam Ende geschlossen.",
             "Move {a} now.": 'Zieh "{a}" jetzt.'}
    text = source
    for start, end, _line, msgid, render in reversed(i18n._module_messages(source)):
        text = text[:start] + render(words[msgid]) + text[end:]
    tree = ast.parse(text)
    assert ast.get_docstring(tree) == words["Module summary.\n\nMore."]
    f, g = tree.body[2], tree.body[3]
    assert ast.get_docstring(f) == words["One line."]
    assert ast.get_docstring(g) == words["Two lines,\nclosed on the last."]
    assert text.startswith('"""\nZusammenfassung.') and '    am Ende geschlossen."""' in text
    assert "# Ein Kommentar.\nX = 1  # trailing comments stay" in text
    assert "# YOUR CODE HERE" in text and 'return "code"' in text
    assert 'say(f"Zieh \\"{a}\\" jetzt.")' in text
    assert i18n.translate_module(source, "en") == source.replace("  # i18n", "")


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("name", NAMES)
def test_the_notebook_speaks_the_language_with_the_same_cells(name, language):
    """The handout notebook in the course's language: the README and the notebook's
    own sentences translated, the check titles in the grader's words, and the same
    cells, grade ids and points as the English one (the gradebook is the same)."""
    english = notebooks.build(name, "en")
    translated = notebooks.build(name, language)
    nbformat.validate(translated)
    meta = lambda nb: [(c.cell_type, c.metadata.get("nbgrader")) for c in nb.cells]
    assert meta(english) == meta(translated)
    for en_cell, xx_cell in zip(english.cells, translated.cells):
        grade_id = en_cell.metadata["nbgrader"]["grade_id"]
        if grade_id == "try_it":        # the examples run as they are; a comment is said
            assert en_cell.source.split("\n\n", 1)[1] == xx_cell.source.split("\n\n", 1)[1]
        elif not grade_id.startswith("answer_") or grade_id.endswith("_question"):
            assert en_cell.source != xx_cell.source, (language, grade_id)
    readme = i18n.translate_markdown(
        (ROOT / "solutions" / name / "README.md").read_text(encoding="utf-8"), language)
    assert translated.cells[0].source == readme.rstrip("\n")
    titles = i18n.translation(language, i18n.GRADER).gettext
    for test, title, _points in notebooks.hidden_tests(assignments.load(name)):
        cell = next(c for c in translated.cells if c.metadata["nbgrader"]["grade_id"] == test)
        assert titles(title) in cell.source and titles(title) != title
    assert notebooks.render(name) == (ROOT / "solutions" / name / f"{name}.ipynb").read_text(
        encoding="utf-8")                      # English: what is committed, unchanged


def child_sentences():
    """Every sentence child.py words for the grader, its values filled in with 7."""
    tree = ast.parse((ROOT / "autograder" / "sandbox" / "child.py").read_text(encoding="utf-8"))
    found = set()

    def text(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.JoinedStr):
            return "".join(text(part) if isinstance(part, ast.Constant) else "7"
                           for part in node.values)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return text(node.left) + text(node.right)
        return None
    # A _FORBIDDEN value is (sentence, refusing layers), written in place or named.
    named = {t.id: node.value for node in tree.body if isinstance(node, ast.Assign)
             for t in node.targets if isinstance(t, ast.Name)}

    def sentence(value):
        value = named.get(value.id, value) if isinstance(value, ast.Name) else value
        return text(value.elts[0]) if isinstance(value, ast.Tuple) else text(value)
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "_FORBIDDEN" for t in node.targets):
            found |= {sentence(v) for v in node.value.values}
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id == "note" and node.args:
            found.add(text(node.args[0]))
        elif isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "message" for t in node.targets) \
                and isinstance(node.value, ast.JoinedStr):
            found.add(text(node.value))
    return found - {None}


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_childs_own_sentences_are_said_in_the_course_language(language, monkeypatch):
    """The child words its refusals and the kit's limits in English (it holds only
    the standard library): every such sentence has a template the grader translates;
    a student's own message is shown as it came."""
    sentences = child_sentences()
    assert len(sentences) >= 8, sentences
    monkeypatch.setenv("SPIELBAUM_COURSE_LANG", language)
    untranslated = [s for s in sentences if child_words.said(s) == s]
    assert not untranslated, f"add to child_words.TEMPLATES: {untranslated}"
    assert child_words.said("my own message: tried to start processes") == \
        "my own message: tried to start processes"
    opened = child_words.said("tried to open /etc/passwd, outside its own folder")
    assert "/etc/passwd" in opened and opened.startswith(("hat versucht", "probeerde"))
    monkeypatch.setenv("SPIELBAUM_COURSE_LANG", "en")
    assert all(child_words.said(s) == s for s in sentences)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_graders_numbers_are_written_the_languages_way(language, monkeypatch):
    """1,234.5 s in English is 1.234,5 s in German and Dutch; a number without a
    format spec (a count, a student's value) is as Python writes it."""
    from autograder.i18n import grader_text as _
    monkeypatch.setenv("SPIELBAUM_COURSE_LANG", language)
    timed = _("used more than {seconds:.1f} s of CPU time").format(seconds=1234.5)
    assert "1234,5" in timed and "1234.5" not in timed
    calls = _("made more than {calls:,} calls to the grader's objects in one call")
    assert "100.000" in calls.format(calls=100000)
    assert "{" not in _("raised {exception}").format(exception=0.5) and \
        "0.5" in _("raised {exception}").format(exception=0.5)
    monkeypatch.setenv("SPIELBAUM_COURSE_LANG", "en")
    assert "1,234.5" in _("used more than {seconds:,.1f} s").format(seconds=1234.5)


MAKE_WORDS = re.compile(r"\$\([A-Z_]+\)|\$\$\w+|@[A-Z_]+@|\\`[^`]*\\`")


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_students_makefile_speaks_the_language_and_still_works(language, tmp_path):
    """The Makefile's command list and install messages are translated, each keeping
    its Make and shell words; the translated Makefile is one make reads as before."""
    english = (ROOT / "autograder" / "student_kit" / "Makefile").read_text(encoding="utf-8")
    said = i18n.translation(language).gettext
    for _line, msgid in i18n.makefile_messages(english):
        assert said(msgid) != msgid, msgid
        assert sorted(MAKE_WORDS.findall(said(msgid))) == sorted(MAKE_WORDS.findall(msgid))
    folder = tmp_path / "tictactoe"
    release.render(assignments.load("tictactoe"), folder, language)
    makefile = (folder / "Makefile").read_text(encoding="utf-8")
    assert "check.py" in makefile      # the Makefile runs check.py (issue 47)
    for target in ("check", "tools", "duel", "clean"):
        done = subprocess.run(["make", "-n", target, "TOOLS=/nonexistent", "HAVE_PYTEST=no"],
                              cwd=folder, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0 or target == "duel", done.stderr
    english_folder = tmp_path / "en"
    release.render(assignments.load("tictactoe"), english_folder, "en")
    assert (english_folder / "Makefile").read_text(encoding="utf-8") == \
        (ROOT / "assignments" / "tictactoe" / "Makefile").read_text(encoding="utf-8")

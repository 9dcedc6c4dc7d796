"""The kit's languages: one gettext domain, English as the source.

Every sentence a student or teacher reads is written in English in the code (the
msgid) and goes through gettext; `autograder/locale/<lang>/LC_MESSAGES/spielbaum.po`
holds the German (`de`) and Dutch (`nl`) text, `make catalogs` (Babel, a dev
dependency) extracts the messages, updates the catalogs and compiles them.

Why the compiled catalogs (.mo) are committed: the student's side has only the
standard library, pytest and pytest-timeout, and stdlib `gettext` reads .mo files
only; the release step copies the committed .mo files into every assignment
folder (`locale/`), so releasing needs no Babel and no .po parser of our own. A
kit test (tests/kit/test_languages.py) proves each .mo holds exactly what its .po
says, so a catalog edited without `make catalogs` fails the tests.

The course picks its language once: `SPIELBAUM_COURSE_LANG` (in the course's
environment, like nbgrader_config.py's SPIELBAUM_COURSE_ID) or `--lang` on
`autograder release` and `autograder grade`. The release step writes it into the
generated assignment (kit_language.py), where a student may override it with
SPIELBAUM_LANG; the grader's feedback uses it.

Two domains. `spielbaum` holds what the student's own kit says (make check, the
public tests, play and duel, the README blocks) and is released with every
assignment. `grader` holds what only the grader says: the hidden checks' titles,
failure messages and hints, and the engine's verdict words. It is never released:
its msgids are the hidden suites' own sentences, and a student reading them would
learn what the hidden checks test. Hidden suites say `_(...)` with
`from autograder.i18n import grader_text as _` (and `grader_plural as
ngettext`, the names Babel looks for); a check's title (its docstring's
first line) is a message too (`extract_hidden_checks`).
"""

from __future__ import annotations

import functools
import gettext
import os
import re
from pathlib import Path

from . import KitError

DOMAIN = "spielbaum"
#: The grader's own words (see above): never copied into an assignment.
GRADER = "grader"
LOCALE_DIR = Path(__file__).with_name("locale")
SOURCE = "en"
#: The languages the kit speaks: English (the msgids) and one catalog each for the rest.
LANGUAGES = (SOURCE, "de", "nl")
TRANSLATED = tuple(code for code in LANGUAGES if code != SOURCE)


DOMAINS = (DOMAIN, GRADER)


def mo_file(language: str, domain: str = DOMAIN) -> Path:
    return LOCALE_DIR / language / "LC_MESSAGES" / f"{domain}.mo"


def po_file(language: str, domain: str = DOMAIN) -> Path:
    return LOCALE_DIR / language / "LC_MESSAGES" / f"{domain}.po"


def course_language(chosen: str | None = None) -> str:
    """The course's language: `chosen` (a --lang option), else SPIELBAUM_COURSE_LANG,
    else English. A language the kit does not have is the teacher's to fix: one line."""
    value = (chosen or os.environ.get("SPIELBAUM_COURSE_LANG") or SOURCE).strip().lower()
    if value not in LANGUAGES:
        raise KitError(f"unknown language {value!r} (the kit speaks {', '.join(LANGUAGES)}; "
                       "set --lang or SPIELBAUM_COURSE_LANG to one of them)")
    return value


@functools.cache
def translation(language: str, domain: str = DOMAIN) -> gettext.NullTranslations:
    """The catalog of `language` (English: the msgids as they are)."""
    if language == SOURCE:
        return gettext.NullTranslations()
    with mo_file(language, domain).open("rb") as catalog:
        return gettext.GNUTranslations(catalog)


def translator(language: str | None = None, domain: str = DOMAIN):
    """`gettext` for `language` (default: the course's)."""
    return translation(course_language(language), domain).gettext


# ------------------------------------------------------------ the grader's words
# Translated when they are said, in the course's language of that moment: the grade
# command sets SPIELBAUM_COURSE_LANG from --lang before any check runs, and a hidden
# check's message is made in the grader's process, never in the student's.
def grader_text(message: str) -> str:
    """`message` (English, a msgid of the grader domain) in the course's language."""
    return translation(course_language(), GRADER).gettext(message)


def grader_plural(singular: str, plural: str, count: int) -> str:
    """ngettext of the grader domain, in the course's language."""
    return translation(course_language(), GRADER).ngettext(singular, plural, count)


def N_(message: str) -> str:
    """Marks a message for the catalogs where it is defined (a module's constant, made
    before any language is chosen) and returns it as it is; say it with `_()`."""
    return message


_LINE = re.compile(r", line (\d+)(?=\)|$|;)")
LINE = N_("line {number}")


def places(text: str) -> str:
    """The child's places ("tictactoe.py, line 12", "minimax (tictactoe.py, line 12)"),
    worded by the kit's child in English, with "line" in the course's language."""
    return _LINE.sub(lambda found: ", " + grader_text(LINE).format(number=found[1]), text)


# ------------------------------------------------------------ long texts: Markdown
# A README is translated block by block: each paragraph, heading, list or table (the
# text between blank lines) is one message of the catalogs, so a translator sees the
# whole paragraph and writes it in their own words and line breaks. Fenced code is
# never a message. `make catalogs` extracts the blocks with `extract_markdown`
# (autograder/locale/spielbaum.cfg names the READMEs translated so far); the release
# step writes the course's language with `translate_markdown`.
_FENCE = re.compile(r"^\s*(```|~~~)")
_BLANKS = re.compile(r"(\n(?:[ \t]*\n)+)")


def _markdown_parts(text: str):
    """(part, first line, whether it is a message) for each block of `text` and each
    run of blank lines between them."""
    in_code, line = False, 1
    for index, part in enumerate(_BLANKS.split(text)):
        message = False
        if index % 2 == 0:
            fences = sum(bool(_FENCE.match(row)) for row in part.splitlines())
            message = not in_code and not fences and bool(part.strip())
            in_code ^= fences % 2 == 1
        yield part, line, message
        line += part.count("\n")


def markdown_blocks(text: str) -> list[tuple[int, str]]:
    """(line number, block) of every message of a Markdown text."""
    return [(line, part) for part, line, message in _markdown_parts(text.rstrip("\n"))
            if message]


def translate_markdown(text: str, language: str) -> str:
    """`text` with each block in `language` (a block without a translation stays)."""
    gettext = translation(language).gettext
    body = text.rstrip("\n")
    return "".join(gettext(part) if message else part
                   for part, _line, message in _markdown_parts(body)) + text[len(body):]


def extract_markdown(fileobj, keywords, comment_tags, options):
    """Babel's extractor for Markdown files: every block is a message."""
    for line, block in markdown_blocks(fileobj.read().decode("utf-8")):
        yield line, None, block, []


def extract_hidden_checks(fileobj, keywords, comment_tags, options):
    """Babel's extractor for hidden suites: the `_()` calls, as Python's extractor
    finds them, and each check's title (the first line of a `test_*` function's
    docstring, which the feedback shows: grading/runner.py translates it)."""
    import ast
    from babel.messages.extract import extract_python

    source = fileobj.read()
    fileobj.seek(0)
    yield from extract_python(fileobj, keywords, comment_tags, options)
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
            doc = ast.get_docstring(node)
            if doc:
                yield node.lineno, None, doc.strip().splitlines()[0], []

"""The kit's languages: English in the code (the msgids), gettext catalogs for the rest.

Two domains: `spielbaum`, what the student's kit says, released with every
assignment as compiled .mo files; and `grader`, the hidden checks' sentences and
the engine's verdict words, never released (its msgids would tell a student what is
tested). The course picks its language with SPIELBAUM_COURSE_LANG or `--lang`; long
texts are translated block by block. README.md, "Languages", says the whole of it.
"""

from __future__ import annotations

import functools
import gettext
import os
import re
import string
from pathlib import Path

from . import KitError

DOMAIN = "spielbaum"
GRADER = "grader"
LOCALE_DIR = Path(__file__).with_name("locale")
SOURCE = "en"
#: The languages the kit speaks: English (the msgids) and one catalog each for the rest.
LANGUAGES = (SOURCE, "de", "nl")
TRANSLATED = tuple(code for code in LANGUAGES if code != SOURCE)
DOMAINS = (DOMAIN, GRADER)


def mo_file(language: str, domain: str = DOMAIN) -> Path:
    return LOCALE_DIR / language / "LC_MESSAGES" / f"{domain}.mo"


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


def translator(language: str | None = None):
    """`gettext` of the student's kit's domain for `language` (default: the course's)."""
    return translation(course_language(language)).gettext


# ------------------------------------------------------------ the grader's words
# Translated when they are said, in the course's language of that moment: the grade
# command sets SPIELBAUM_COURSE_LANG from --lang before any check runs, and a hidden
# check's message is made in the grader's process, never in the student's.
def grader_text(message: str) -> str:
    """`message` (English, a msgid of the grader domain) in the course's language."""
    return _grader_text(os.environ.get("SPIELBAUM_COURSE_LANG"), message)


@functools.lru_cache(maxsize=4096)      # msgids are few (docs/PERFORMANCE.md)
def _grader_text(setting: str | None, message: str) -> str:
    return _said(translation(course_language(setting), GRADER).gettext(message))


def grader_plural(singular: str, plural: str, count: int) -> str:
    """ngettext of the grader domain, in the course's language."""
    return _said(translation(course_language(), GRADER).ngettext(singular, plural, count))


class _NumberFormatter(string.Formatter):
    """str.format, with a number that has a format spec ({seconds:.1f}, {calls:,},
    {points:g}) written as German and Dutch write numbers: 1.234,5 for 1,234.5. The
    grader's numbers in its sentences are measurements (seconds, counts, points); a
    value of the student's is shown by its repr, which stays Python's."""

    _SWAP = str.maketrans({",": ".", ".": ","})

    def format_field(self, value, format_spec):
        text = super().format_field(value, format_spec)
        if format_spec and isinstance(value, (int, float)) and not isinstance(value, bool):
            text = text.translate(self._SWAP)
        return text


_NUMBERS = _NumberFormatter()


class _Localized(str):
    """A message in German or Dutch: its .format writes numbers that language's way."""

    def format(self, *args, **kwargs):
        return _NUMBERS.vformat(self, args, kwargs)


def _said(text: str) -> str:
    return text if course_language() == SOURCE else _Localized(text)


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
# Each block between blank lines (a paragraph, heading, list or table) is one message,
# so a translator writes the whole paragraph in their own words; fenced code never is.
_FENCE = re.compile(r"^\s*(```|~~~)")
_BLANKS = re.compile(r"(\n(?:[ \t]*\n)+)")


def _markdown_messages(text: str) -> list[tuple[int, int, int, str, object]]:
    """(start, end, line, msgid, render) of every block of `text` outside fenced code,
    its trailing newlines left out (the shape `_rewritten` takes)."""
    found, in_code, line, offset = [], False, 1, 0
    for index, part in enumerate(_BLANKS.split(text.rstrip("\n"))):
        if index % 2 == 0:
            fences = sum(bool(_FENCE.match(row)) for row in part.splitlines())
            if not in_code and not fences and part.strip():
                found.append((offset, offset + len(part), line, part, str))
            in_code ^= fences % 2 == 1
        line += part.count("\n")
        offset += len(part)
    return found


def markdown_blocks(text: str) -> list[tuple[int, str]]:
    """(line number, block) of every message of a Markdown text."""
    return [(line, msgid) for _start, _end, line, msgid, _render in _markdown_messages(text)]


def translate_markdown(text: str, language: str) -> str:
    """`text` with each block in `language` (a block without a translation stays)."""
    return _rewritten(text, _markdown_messages(text), language)


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


# ------------------------------------------------------------ long texts: Python modules
# A skeleton's messages: its docstrings, its comment blocks, and the strings marked by a
# trailing `# i18n` comment (its terminal prose). Names and code stay as they are.
MARK = "# i18n"
_MARKED = re.compile(r"[ \t]*# i18n[ \t]*$")
_COMMENT = re.compile(r"^([ \t]*)(#:?)(?: (.*))?$")
_KEEP_COMMENTS = ("YOUR CODE HERE",)      # nbgrader's stub: the same in every language


def _module_messages(text: str) -> list[tuple[int, int, int, str, object]]:
    """(start, end, line, msgid, render) of every message of a Python source: the
    text from offset start to end is replaced by render(translation)."""
    import ast
    import inspect
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(lineno: int, col: int) -> int:      # ast's columns count UTF-8 bytes
        return starts[lineno - 1] + len(lines[lineno - 1].encode("utf-8")[:col].decode())

    found = []
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = node.body[0] if node.body else None
            if isinstance(doc, ast.Expr) and isinstance(doc.value, ast.Constant) \
                    and isinstance(doc.value.value, str):
                segment = ast.get_source_segment(text, doc.value)
                raw = segment.startswith(("r", "R"))
                own_line = segment.lstrip("rRuU")[3:4] == "\n"    # quotes, then a new line
                closes_apart = segment[:-3].rstrip(" ").endswith("\n")
                found.append((offset(doc.lineno, doc.col_offset),
                              offset(doc.end_lineno, doc.end_col_offset), doc.lineno,
                              inspect.cleandoc(doc.value.value),
                              functools.partial(_docstring, indent=" " * doc.col_offset,
                                                raw=raw, own_line=own_line,
                                                closes_apart=closes_apart)))
        elif isinstance(node, (ast.Constant, ast.JoinedStr)) and node.lineno == node.end_lineno \
                and _MARKED.search(lines[node.lineno - 1].rstrip("\r\n")) \
                and (isinstance(node, ast.JoinedStr) or isinstance(node.value, str)):
            segment = ast.get_source_segment(text, node)
            prefix = segment[:len(segment) - len(segment.lstrip("rRbBfFuU"))]
            quote = segment[len(prefix)]
            if segment[len(prefix):len(prefix) + 3] == quote * 3:
                continue                            # a triple-quoted string on one line
            start = offset(node.lineno, node.col_offset)
            found.append((start + len(prefix) + 1, start + len(segment) - 1, node.lineno,
                          segment[len(prefix) + 1:-1],
                          functools.partial(_escape_quote, quote=quote)))
    found += _comment_blocks(lines, starts)
    # a Constant inside an f-string is part of the f-string's message
    found.sort(key=lambda m: (m[0], -m[1]))
    kept = []
    for message in found:
        if kept and message[0] < kept[-1][1]:
            continue
        kept.append(message)
    return kept


def _docstring(translation: str, indent: str, raw: bool, own_line: bool,
               closes_apart: bool) -> str:
    """A translated docstring in the original's layout (the opening quotes alone on
    their line or not; the closing ones on a line of their own when it has several)."""
    body = translation if raw else translation.replace("\\", "\\\\")
    body = body.replace('"""', '\\"\\"\\"')
    rows = body.split("\n")
    text = ("\n" + indent if own_line else "") + rows[0] + "".join(
        "\n" + (indent + row if row.strip() else "") for row in rows[1:])
    if closes_apart and (len(rows) > 1 or own_line):
        text += "\n" + indent
    elif text.endswith('"'):
        text = text[:-1] + '\\"'
    return ('r' if raw else '') + '"""' + text + '"""'


def _escape_quote(translation: str, quote: str) -> str:
    """A translated one-line literal: its quote character escaped where it is bare."""
    return re.sub(r'(?<!\\)' + re.escape(quote), "\\" + quote, translation)


def _comment_blocks(lines: list[str], starts: list[int]):
    """Runs of full-line comments with one indent and one marker (`#` or `#:`), the
    words joined into one paragraph; a line without letters (a rule) ends a run."""
    import tokenize
    import io
    comment_lines = set()
    source = "".join(lines)
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT and not token.line[:token.start[1]].strip():
            comment_lines.add(token.start[0])
    run: list[tuple[int, str, str, str]] = []

    def close():
        if run:
            first, indent, mark, _ = run[0]
            width = max(79, *(len(lines[number - 1].rstrip("\r\n")) for number, *_ in run))
            yield (starts[first - 1], starts[run[-1][0]] - len(_newline(lines[run[-1][0] - 1])),
                   first, " ".join(words for *_, words in run),
                   functools.partial(_comment, indent=indent, mark=mark, width=width))
        run.clear()

    for number in range(1, len(lines) + 1):
        match = _COMMENT.match(lines[number - 1].rstrip("\r\n"))
        words = (match[3] or "").strip() if match and number in comment_lines else ""
        if not re.search(r"[^\W\d_]", words) or words in _KEEP_COMMENTS:
            yield from close()
            continue
        if run and (match[1], match[2]) != (run[0][1], run[0][2]):
            yield from close()
        run.append((number, match[1], match[2], words))
    yield from close()


def _newline(line: str) -> str:
    return line[len(line.rstrip("\r\n")):]


def _comment(translation: str, indent: str, mark: str, width: int) -> str:
    import textwrap
    return "\n".join(textwrap.wrap(" ".join(translation.split()), width=width,
                                   initial_indent=f"{indent}{mark} ",
                                   subsequent_indent=f"{indent}{mark} ",
                                   break_long_words=False, break_on_hyphens=False))


def _rewritten(text: str, messages: list, language: str) -> str:
    """`text` with each message (start, end, line, msgid, render) replaced by its
    rendered translation; a message without one stays as it is."""
    if language == SOURCE:
        return text
    gettext = translation(language).gettext
    for start, end, _line, msgid, render in reversed(messages):
        said = gettext(msgid)
        if said != msgid:
            text = text[:start] + render(said) + text[end:]
    return text


def module_messages(text: str) -> list[tuple[int, str]]:
    """(line number, msgid) of every message of a released module's source."""
    return [(line, msgid) for _start, _end, line, msgid, _render in _module_messages(text)]


def translate_module(text: str, language: str) -> str:
    """A released module's source in `language`, the `# i18n` markers dropped (a
    message without a translation stays English)."""
    text = _rewritten(text, _module_messages(text), language)
    return "".join(_MARKED.sub("", line.rstrip("\r\n")) + _newline(line)
                   for line in text.splitlines(keepends=True))


def extract_manifest(fileobj, keywords, comment_tags, options):
    """Babel's extractor for assignment.toml: the title and every written question
    (the notebook's [[answers]]), which students read."""
    import tomllib
    manifest = tomllib.loads(fileobj.read().decode("utf-8"))
    if manifest.get("title"):
        yield 1, None, str(manifest["title"]), []
    for entry in manifest.get("answers", []):
        if isinstance(entry, dict) and entry.get("question"):
            yield 1, None, str(entry["question"]).strip(), []


# ------------------------------------------------------------ the student's Makefile
# A comment block keeps its line breaks and columns (a translation is written line for
# line after "# "); each `echo "..."` is one message.
_ECHO = re.compile(r'echo "((?:[^"\\]|\\.)*)"')


def _makefile_messages(text: str) -> list[tuple[int, int, int, str, object]]:
    found, offset, run = [], 0, []
    rows = text.splitlines(keepends=True)

    def close():
        if run:
            start, end = run[0][0], run[-1][1]
            found.append((start, end, run[0][2], "\n".join(words for *_, words in run),
                          lambda said: "\n".join(("# " + row).rstrip()
                                                 for row in said.split("\n"))))
        run.clear()

    for number, row in enumerate(rows, 1):
        body = row.rstrip("\r\n")
        if body.startswith("#") and re.search(r"[^\W\d_]", body):
            run.append((offset, offset + len(body), number, body[2:] if body[1:2] == " "
                        else body[1:]))
        else:
            close()
            for match in _ECHO.finditer(body):
                found.append((offset + match.start(1), offset + match.end(1), number,
                              match[1], lambda said: said.replace('"', '\\"')))
        offset += len(row)
    close()
    return found


def makefile_messages(text: str) -> list[tuple[int, str]]:
    return [(line, msgid) for _s, _e, line, msgid, _r in _makefile_messages(text)]


def translate_makefile(text: str, language: str) -> str:
    """The student's Makefile in `language` (a message without a translation stays)."""
    return _rewritten(text, _makefile_messages(text), language)


def extract_makefile(fileobj, keywords, comment_tags, options):
    """Babel's extractor for the student's Makefile (see above)."""
    for line, msgid in makefile_messages(fileobj.read().decode("utf-8")):
        yield line, None, msgid, []

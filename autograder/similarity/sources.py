"""Reading a submission's modules the way the interpreter that grades them does
(docs/SIMILARITY.md, "How files are read"): every byte is the student's, so a file's
size is checked before it is read (and no more than the cap is read), links are not
followed, and the bytes are decoded exactly as `import` decodes them. A file the
interpreter would refuse is still compared as far as it can be read, and the report
names it with the reason.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import stat
from dataclasses import dataclass
from pathlib import Path

#: A module larger than this is not compared (the grader refuses 5 MB in all).
MAX_SOURCE_BYTES = 1 << 20


class Unreadable(Exception):
    """A submission whose modules cannot be compared; the message says why."""


@dataclass
class Source:
    """One module's text as the interpreter reads it, and what was wrong with it
    (empty when the interpreter would read it without complaint); `sha256` is the
    digest of its bytes (what a behaviour record holds)."""
    text: str
    problem: str = ""
    sha256: str = ""


def decode(data: bytes) -> Source:
    """`data` decoded as `import` decodes a module. Where the interpreter would
    refuse it, the text is decoded as far as possible (UTF-8, undecodable bytes
    replaced) and `problem` says what the interpreter objects to."""
    problem = ""
    try:
        text = importlib.util.decode_source(data)
    except (SyntaxError, UnicodeDecodeError, LookupError) as error:
        reason = error.msg if isinstance(error, SyntaxError) else str(error)
        problem = f"Python cannot read it ({reason[:160]}); compared as UTF-8"
        text = data.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
    if "\0" in text:
        # The interpreter refuses any NUL byte; the tokenizer of 3.12+ fails on one
        # with a SystemError. A space keeps every column where it was.
        text = text.replace("\0", " ")
        problem = problem or "it contains a NUL byte, so Python refuses to run it"
    return Source(text, problem)


def read(path: Path) -> Source:
    """The module at `path`, read as the interpreter reads it; `Unreadable` when it
    is not a regular file or is larger than MAX_SOURCE_BYTES (checked before reading,
    and never more bytes read, should the file grow meanwhile)."""
    too_large = f"{path.name} is larger than {MAX_SOURCE_BYTES >> 20} MB"
    try:
        info = path.lstat()
        if not stat.S_ISREG(info.st_mode):
            raise Unreadable(f"{path.name} is not a regular file")
        if info.st_size > MAX_SOURCE_BYTES:
            raise Unreadable(too_large)
        with open(path, "rb", opener=_no_follow) as handle:
            data = handle.read(MAX_SOURCE_BYTES + 1)
    except OSError as error:
        raise Unreadable(f"{path.name} could not be read ({error.strerror or error})") from None
    if len(data) > MAX_SOURCE_BYTES:
        raise Unreadable(too_large)
    source = decode(data)
    source.sha256 = hashlib.sha256(data).hexdigest()
    return source


def _no_follow(path, flags):
    return os.open(path, flags | getattr(os, "O_NOFOLLOW", 0))

"""Python source as a stream of normalised tokens, each remembering where it came from.

What a student can change without changing the program does not reach the stream
(docs/SIMILARITY.md, "text"): every name a student chose is `V` (keywords, builtins
and attribute names stay), every string `S`; comments, blank lines, line breaks
inside brackets, indentation width, docstrings, `pass` and trailing commas go;
`;` is a line break.

Each token becomes a small integer (a CRC of its text): copydetect hashes k-grams
with `hash()`, which Python salts per process for strings but not for tuples of
integers, so the report is the same in every run.
"""

from __future__ import annotations

import builtins
import functools
import io
import keyword
import tokenize
import zlib
from dataclasses import dataclass, field

NAME = "V"
STRING = "S"
_KEPT_NAMES = frozenset(keyword.kwlist) | frozenset(dir(builtins))
_STRUCTURE = {tokenize.INDENT: "<indent>", tokenize.DEDENT: "<dedent>"}
_SKIPPED = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER}
_CLOSERS = {")", "]", "}"}


@functools.lru_cache(maxsize=4096)
def code_of(text: str) -> int:
    """The integer standing for one normalised token."""
    return zlib.crc32(text.encode("utf-8"))


@dataclass
class Tokens:
    """One file's normalised tokens: `codes[i]` came from the source between
    `starts[i]` and `ends[i]` ((line, column), lines counted from 1)."""
    codes: list[int] = field(default_factory=list)
    starts: list[tuple[int, int]] = field(default_factory=list)
    ends: list[tuple[int, int]] = field(default_factory=list)
    complete: bool = True       # False when the source stopped tokenizing early

    def add(self, text: str, start: tuple[int, int], end: tuple[int, int]) -> None:
        self.codes.append(code_of(text))
        self.starts.append(start)
        self.ends.append(end)


def _normal_text(token: tokenize.TokenInfo, previous: str) -> str:
    if token.type == tokenize.NAME:
        if token.string in _KEPT_NAMES or previous == ".":
            return token.string
        return NAME
    if token.type == tokenize.STRING:
        return STRING
    return token.string


def _is_noise(line: list[tokenize.TokenInfo]) -> bool:
    """A logical line that does nothing: a bare string (docstring) or `pass`."""
    return (all(t.type == tokenize.STRING for t in line)
            or (len(line) == 1 and line[0].string == "pass"))


def _emit(out: Tokens, line: list[tokenize.TokenInfo], end) -> None:
    if not line or _is_noise(line):
        return
    previous = ""
    for index, token in enumerate(line):
        following = line[index + 1].string if index + 1 < len(line) else ""
        if token.string == "," and following in _CLOSERS:
            continue                    # `f(a, b,)` is `f(a, b)`
        text = _normal_text(token, previous)
        out.add(text, token.start, token.end)
        previous = token.string
    out.add("<newline>", line[-1].end, end)


def normalise(source: str) -> Tokens:
    """The normalised tokens of `source`. Code that does not tokenize to the end
    (an unclosed bracket or string, bad indentation) keeps the tokens before it."""
    out = Tokens()
    line: list[tokenize.TokenInfo] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type in _SKIPPED:
                continue
            if token.type in _STRUCTURE:
                out.add(_STRUCTURE[token.type], token.start, token.end)
            elif token.type == tokenize.NEWLINE or token.string == ";":
                _emit(out, line, token.end)
                line = []
            else:
                line.append(token)
    except (tokenize.TokenError, SyntaxError, ValueError, SystemError):
        out.complete = False        # (3.12's tokenizer raises SystemError on some input)
    _emit(out, line, line[-1].end if line else (1, 0))
    return out

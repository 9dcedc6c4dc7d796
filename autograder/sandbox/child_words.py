"""The sandbox child's own sentences, said in the course's language by the grader.

The child (child.py) holds only the standard library and the student's code, so
it words what it saw in English: the refusals ("tried to start processes") and the
exceptions the kit itself makes of a limit ("used more than 256 MB of memory").
The grader says them in the course's language: each English sentence below is the
child's template, a message of the grader's catalog, and `said` translates a text
that has the template's shape, the values the child filled in kept as they came.
Any other text (a student's own exception message) is shown as it is.
"""

from __future__ import annotations

import functools
import re

from ..i18n import N_, SOURCE, course_language, grader_text as _

#: Every sentence child.py makes, with the names of the values it fills in. A kit
#: test (tests/kit/test_languages.py) checks child.py says nothing else.
TEMPLATES = (
    N_("tried to start processes"),
    N_("tried to open a network connection"),
    N_("tried to send a signal to another process"),
    N_("tried to open {path}, outside its own folder"),
    N_("called exit({code})"),
    N_("used more than {megabytes} MB of memory"),
    N_("wrote a file larger than the sandbox allows ({reason})"),
    N_("filled its scratch folder: the sandbox allows {megabytes} MB and {files} files in all "
       "({reason})"),
    N_("tried to write a file: the sandbox's folder is read-only here ({reason})"),
)


@functools.cache
def _pattern(template: str) -> re.Pattern:
    parts = re.split(r"\{(\w+)\}", template)
    return re.compile("".join(re.escape(part) if index % 2 == 0 else f"(?P<{part}>.*)"
                              for index, part in enumerate(parts)) + r"\Z", re.DOTALL)


def said(text: str) -> str:
    """`text` in the course's language if it is one of the child's sentences."""
    if course_language() == SOURCE or not isinstance(text, str):
        return text
    for template in TEMPLATES:
        found = _pattern(template).match(text)
        if found:
            return _(template).format(**found.groupdict())
    return text

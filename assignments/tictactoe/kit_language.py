"""Which language `make check`, `make play` and `make duel` speak. You do not need
to edit this file.

COURSE_LANGUAGE below is the course's choice (en English, de Deutsch, nl Nederlands).
To read the kit's messages in another language, set
SPIELBAUM_LANG when you run a command, e.g. `SPIELBAUM_LANG=de make check` (German),
`SPIELBAUM_LANG=nl make check` (Dutch) or `SPIELBAUM_LANG=en make check` (English).
GNU's LANGUAGE variable (`LANGUAGE=nl make check`) works too. A language the kit does
not have gives English.

The system locale (LANG, LC_ALL) is not read on purpose: it is set for every program
on a machine (a lab's computers are often set to English), so it would silently undo
the language the course chose.
"""

import gettext
import os

COURSE_LANGUAGE = "en"
LANGUAGES = ("en", "de", "nl")      # English is the source text; locale/ holds the rest
DOMAIN = "spielbaum"
LOCALE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "locale")


def _code(value):
    """'de' for 'de', 'de_DE.UTF-8', 'de-AT' or 'DE'; None for anything else."""
    code = value.strip().split(".")[0].replace("-", "_").split("_")[0].lower()
    return code if code in LANGUAGES else None


def language(environ=None):
    """The language to speak: SPIELBAUM_LANG (any other value gives English), else
    the first kit language in LANGUAGE, else the course's."""
    environ = os.environ if environ is None else environ
    chosen = environ.get("SPIELBAUM_LANG", "").strip()
    if chosen:
        return _code(chosen) or "en"
    for entry in environ.get("LANGUAGE", "").split(":"):
        if _code(entry):
            return _code(entry)
    return _code(COURSE_LANGUAGE) or "en"


def catalog(environ=None):
    """The chosen language's gettext catalog (its gettext, ngettext and pgettext);
    for English, the text as it is."""
    return gettext.translation(DOMAIN, LOCALE_DIR, languages=[language(environ)],
                               fallback=True)

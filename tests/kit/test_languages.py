"""The kit in three languages (issue 23): English in the code, German and Dutch
catalogs complete, current and compiled, and `make check` speaking the course's
language unless the student picks another."""

import ast
import functools
import gettext
import importlib.util
import os
import re
import shutil
import string
import subprocess
import sys

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po

from autograder import KitError, i18n, release, assignment as assignments
from tests.conftest import ROOT


#: Every (language, domain) pair of catalogs: the student's kit and the grader's words.
CATALOGS = [(language, domain) for domain in i18n.DOMAINS for language in i18n.TRANSLATED]


def catalog(language, domain=i18n.DOMAIN):
    with i18n.mo_file(language, domain).with_suffix(".po").open("rb") as handle:
        return read_po(handle)


def key_of(message_id, context):
    """How gettext's .mo keys a message: 'context\x04msgid' (a tuple for a plural)."""
    if context is None:
        return message_id
    if isinstance(message_id, str):
        return f"{context}\x04{message_id}"
    return (f"{context}\x04{message_id[0]}", *message_id[1:])


def messages(language, domain=i18n.DOMAIN):
    """{key: msgstr} of a catalog (a tuple key and value for a plural), no header."""
    return {key_of(m.id, m.context): m.string for m in catalog(language, domain) if m.id}


@functools.cache
def extracted(domain):
    """Every message the code marks for `domain`, extracted with the map `make
    catalogs` uses (autograder/locale/<domain>.cfg)."""
    with (i18n.LOCALE_DIR / f"{domain}.cfg").open() as handle:
        method_map, options_map = parse_mapping_cfg(handle)
    found = {}
    for path, line, message, _comments, context in extract_from_dir(
            str(ROOT), method_map, options_map):
        key = key_of(message if isinstance(message, str) else tuple(message), context)
        found.setdefault(key, f"{path}:{line}")
    return found


def plain(key):
    return key if isinstance(key, str) else key[0]


@pytest.mark.parametrize("language, domain", CATALOGS)
def test_every_message_of_the_code_is_in_the_catalog_and_none_is_stale(language, domain):
    in_code, held = extracted(domain), messages(language, domain)
    missing = sorted(f"{where}: {plain(key)!r}" for key, where in in_code.items()
                     if key not in held)
    stale = sorted(plain(key) for key in held if key not in in_code)
    assert not missing, f"run `make catalogs` and translate:\n" + "\n".join(missing)
    assert not stale, f"run `make catalogs` (stale in {language}): {stale}"


def fields(text):
    """The {placeholders} of a message; a text that is no format string (a docstring
    showing a dict, say) is compared by its braced parts as they are."""
    try:
        return sorted({name for _, name, _, _ in string.Formatter().parse(text)
                       if name is not None})
    except ValueError:
        return sorted(re.findall(r"\{[^{}]*\}", text))


@pytest.mark.parametrize("language, domain", CATALOGS)
def test_every_translation_is_there_and_keeps_the_placeholders(language, domain):
    problems = []
    for message in catalog(language, domain):
        if not message.id:
            continue
        sources = [message.id] if isinstance(message.id, str) else list(message.id)
        targets = [message.string] if isinstance(message.id, str) else list(message.string)
        if message.fuzzy or not all(t.strip() for t in targets):
            problems.append(f"untranslated or fuzzy: {sources[0]!r}")
            continue
        for target in targets:
            if fields(target) != fields(sources[-1]):
                problems.append(f"placeholders differ: {sources[0]!r} -> {target!r}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("language, domain", CATALOGS)
def test_the_compiled_catalog_is_what_the_po_file_says(language, domain):
    """The .mo files are committed (autograder/i18n.py says why): each must hold
    exactly the .po's translations, or `make catalogs` was not run."""
    with i18n.mo_file(language, domain).open("rb") as handle:
        compiled = gettext.GNUTranslations(handle)._catalog
    expected = {}
    for key, value in messages(language, domain).items():
        if isinstance(key, str):
            expected[key] = value
        else:
            expected.update({(key[0], n): form for n, form in enumerate(value)})
    compiled = {k: v for k, v in compiled.items() if k != ""}      # the header
    assert compiled == expected, "run `make catalogs`"


def test_an_unknown_course_language_is_one_clear_line(monkeypatch):
    monkeypatch.setenv("SPIELBAUM_COURSE_LANG", "fr")
    with pytest.raises(KitError, match=r"unknown language 'fr' \(the kit speaks en, de, nl"):
        i18n.course_language()
    assert i18n.course_language("de") == "de"
    monkeypatch.delenv("SPIELBAUM_COURSE_LANG")
    assert i18n.course_language() == "en"


# ------------------------------------------------------------ the student's side
@pytest.fixture(scope="module")
def german_tictactoe(tmp_path_factory):
    """tictactoe released in German, with its stubs (nothing written yet)."""
    folder = tmp_path_factory.mktemp("de") / "tictactoe"
    release.render(assignments.load("tictactoe"), folder, "de")
    return folder


def chooser(folder):
    spec = importlib.util.spec_from_file_location("kit_language", folder / "kit_language.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.language


@pytest.mark.parametrize("environ, expected", [
    ({}, "de"),                                         # the course's
    ({"LANG": "nl_NL.UTF-8", "LC_ALL": "en_US"}, "de"),  # the system locale is not a choice
    ({"SPIELBAUM_LANG": "nl"}, "nl"),
    ({"SPIELBAUM_LANG": "en_GB.UTF-8"}, "en"),
    ({"SPIELBAUM_LANG": "fr"}, "en"),                   # unknown: English
    ({"LANGUAGE": "fr:nl_BE:de"}, "nl"),                # GNU's list: the first the kit has
    ({"LANGUAGE": "fr"}, "de"),
    ({"LANGUAGE": "nl", "SPIELBAUM_LANG": "EN"}, "en"),
])
def test_the_student_picks_the_language_or_gets_the_courses(german_tictactoe, environ, expected):
    assert chooser(german_tictactoe)(environ) == expected


def check(folder, command=("make", "--no-print-directory", "check",
                           f"PYTHON={sys.executable}"), **env):
    environ = {k: v for k, v in os.environ.items()
               if k not in ("SPIELBAUM_LANG", "LANGUAGE")}
    done = subprocess.run(list(command), cwd=folder, capture_output=True, text=True,
                          timeout=120, env={**environ, **env})
    assert "Traceback" not in done.stdout + done.stderr, done.stdout + done.stderr
    return re.sub(r" in [\d.]+s", " in Ns", done.stdout)


def break_player(folder):
    """player loops forever, winner raises: a timeout and an exception to explain."""
    module = folder / "tictactoe.py"
    text = module.read_text()
    # One line, so that wherever the limit stops it, the line it names is the same.
    text = text.replace("def player(board):\n", "def player(board):\n    while True: pass\n", 1)
    text = text.replace("def winner(board):\n", "def winner(board):\n    return {}[len(board)]\n",
                        1)
    module.write_text(text)
    ini = folder / "pytest.ini"
    ini.write_text(re.sub(r"^cpu_timeout = .*$", "cpu_timeout = 0.3", ini.read_text(),
                          flags=re.M))


@pytest.mark.slow
def test_make_check_speaks_the_courses_language_and_the_students(german_tictactoe, tmp_path):
    """One real `make check` on the German release; the same folder in Dutch and in
    English (SPIELBAUM_LANG) through the pytest run `make check` makes; English is
    byte for byte what the English release prints."""
    break_player(german_tictactoe)
    german = check(german_tictactoe)
    for line in ["  player         0/4  noch nicht richtig",
                 "  terminal       0/4  blockiert durch winner (noch nicht geschrieben?)",
                 "Das erste Problem jeder Funktion:",
                 "hat mehr als 0.3 s Rechenzeit gebraucht, das Limit eines öffentlichen Tests, "
                 "abgebrochen in player (tictactoe.py, Zeile",
                 "nicht ausgeführt: result ruft player auf, und ein früherer Test von player hat "
                 "sein Zeitlimit überschritten",
                 "Ausnahme KeyError: 3 (in tictactoe.py, Zeile",
                 "(minimax ruft player, actions, result, terminal, utility und winner auf, "
                 "die ebenfalls fehlschlagen: korrigiere zuerst player, actions"]:
        assert line in german, german
    pytest_run = (sys.executable, "-m", "pytest")
    dutch = check(german_tictactoe, pytest_run, SPIELBAUM_LANG="nl")
    assert "  player         0/4  nog niet goed" in dutch, dutch
    assert "gebruikte meer dan 0.3 s rekentijd" in dutch and ", gestopt in player" in dutch
    assert "uitzondering KeyError: 3 (in tictactoe.py, regel" in dutch, dutch

    english_release = tmp_path / "tictactoe"
    release.render(assignments.load("tictactoe"), english_release, "en")
    break_player(english_release)
    english = check(english_release, pytest_run)
    assert "  player         0/4  needs work" in english and "raised KeyError" in english
    # (which variable picks which language is tested on kit_language.language above);
    # the German skeleton's docstrings have lines of their own, so its line numbers do
    lines = lambda text: re.sub(r"line \d+", "line N", text)
    assert lines(check(german_tictactoe, pytest_run, SPIELBAUM_LANG="en")) == lines(english)


def test_make_play_speaks_the_chosen_language(german_tictactoe, tmp_path):
    folder = tmp_path / "tictactoe"
    release.render(assignments.load("tictactoe"), folder, "nl")
    (folder / "tictactoe.py").write_text((ROOT / "solutions/tictactoe/tictactoe.py").read_text())
    play = [sys.executable, "play.py"]
    environ = {k: v for k, v in os.environ.items() if k not in ("SPIELBAUM_LANG", "LANGUAGE")}
    dutch = subprocess.run(play, cwd=folder, input="Z\nX\n", capture_output=True, text=True,
                           timeout=60, env=environ).stdout
    assert dutch.startswith("Wil jij X spelen (begint) of O? Antwoord met X of O.\n"), dutch
    assert "Jouw zet (het nummer van een vrij vak): " in dutch and "Tot ziens." in dutch
    english = subprocess.run(play, cwd=folder, input="Z\nX\n", capture_output=True, text=True,
                             timeout=60, env={**environ, "SPIELBAUM_LANG": "en"}).stdout
    assert english.startswith("Do you want to play X (moves first) or O? Please answer X or O.")
    assert english.endswith("\nBye.\n"), english


def test_make_duel_speaks_the_chosen_language_and_still_stops_a_hopeless_duel(tmp_path):
    """The stubs lose the first game before any move: the duel stops there, in German
    as in English (the player's process flags the error, whatever its language)."""
    folder = tmp_path / "connect4"
    release.render(assignments.load("connect4"), folder, "de")
    duel = [sys.executable, "duel.py", "--games", "2", "--opponent", "random"]
    environ = {k: v for k, v in os.environ.items() if k not in ("SPIELBAUM_LANG", "LANGUAGE")}
    german = subprocess.run(duel, cwd=folder, capture_output=True, text=True, timeout=60,
                            env=environ).stdout
    assert german.splitlines() == [
        "gegen random Eröffnung 1 du x (Anziehender): 0 (du verlierst: iterative_deepening "
        "ist noch nicht geschrieben, 2 Steine)",
        "Nach einer Partie abgebrochen: Dein Spieler hat sie schon vor seinem ersten Zug "
        "verloren (iterative_deepening ist noch nicht geschrieben), und jede Partie würde "
        "genauso enden. Behebe das (make check sagt dir, was fehlt) und starte dann make duel "
        "noch einmal."], german
    english = subprocess.run(duel, cwd=folder, capture_output=True, text=True, timeout=60,
                             env={**environ, "SPIELBAUM_LANG": "en"}).stdout
    assert english.startswith("vs random opening 1 you x, first : 0 (you lose: "
                              "iterative_deepening is not written yet, 2 stones)\nStopped "
                              "after one game"), english


# ------------------------------------------------------------ the feedback
def test_feedback_speaks_the_course_language_and_english_is_the_default(monkeypatch):
    from autograder.grading import report
    from tests.kit.test_outputs import graded
    result = graded("ada*", message="import failed", output="printed")
    monkeypatch.delenv("SPIELBAUM_COURSE_LANG", raising=False)
    english = report.feedback_markdown(result, "Tic-Tac-Toe")
    assert report.feedback_markdown(result, "Tic-Tac-Toe", "en") == english
    assert english.startswith("# Tic-Tac-Toe: feedback for ada\\*\n\n**Score: 3 / 5** "
                              "(1 of 2 checks passed)")
    monkeypatch.setenv("SPIELBAUM_COURSE_LANG", "de")
    german = report.feedback_markdown(result, "Tic-Tac-Toe")
    assert german.startswith("# Tic-Tac-Toe: Rückmeldung für ada\\*\n\n**Punkte: 3 / 5** "
                             "(1 von 2 Prüfungen bestanden)"), german
    assert "| | Prüfung | Punkte |" in german and "| FEHLER |" in german
    assert "## Was nicht gestimmt hat" in german
    page = report.feedback_html(result, "Tic-Tac-Toe", "nl")
    assert '<html lang="nl">' in page and "<h2>Wat er misging</h2>" in page
    assert "<strong>Score: 3 / 5</strong> (1 van 2 controles geslaagd)" in page
    assert "<h1>Tic-Tac-Toe: feedback voor ada*</h1>" in page


# ------------------------------------------------------------ the hidden checks
#: winner for the skeleton: rows, columns and one diagonal (the other one is missing).
HALF_A_WINNER = """
    lines = [list(row) for row in board] + [list(col) for col in zip(*board)]
    lines.append([board[i][i] for i in range(3)])
    for line in lines:
        if line[0] is not None and line.count(line[0]) == 3:
            return line[0]
    return None
"""


@pytest.fixture(scope="module")
def graded_in_german(tmp_path_factory):
    """A real `autograder grade --lang de` of two tictactoe submissions: sam (the
    skeleton with a winner that misses a diagonal; the rest not written, so cheap to
    grade) and ken (no file)."""
    from tests.conftest import grade_folder
    base = tmp_path_factory.mktemp("graded-de")
    submissions = base / "submissions"
    shutil.copytree(ROOT / "examples" / "tictactoe" / "ken_missing", submissions / "ken_missing")
    skeleton = (ROOT / "assignments" / "tictactoe" / "tictactoe.py").read_text()
    stub = "    # YOUR CODE HERE\n    raise NotImplementedError()\n"
    start = skeleton.index("def winner(")
    at = skeleton.index(stub, start)
    (submissions / "sam").mkdir()
    (submissions / "sam" / "tictactoe.py").write_text(
        skeleton[:at] + HALF_A_WINNER.lstrip("\n") + skeleton[at + len(stub):])
    rows = grade_folder("tictactoe", submissions, base / "out", extra=("--lang", "de"))
    return rows, base / "out"


def test_hidden_checks_speak_the_course_language(graded_in_german):
    """Titles, headlines, every line of a failure, the blame note, the intake's words."""
    rows, out = graded_in_german
    assert rows["ken_missing"]["message"] == "keine Datei namens tictactoe.py in der Abgabe"
    sam = (out / "sam" / "feedback.md").read_text(encoding="utf-8")
    for line in ["| FEHLER | winner findet den Sieger (oder None) auf allen 5.478 erreichbaren "
                 "Stellungen | 0 / 3 |",
                 "winner hat den falschen Spieler zurückgegeben (falsch in ",
                 "Fällen; der kleinste:)", "Aufruf: winner(board)",
                 "erhalten: hat None zurückgegeben",
                 "erwartet: (verborgener Test: die erwartete Antwort wird nicht gezeigt)",
                 "Tipp: prüfe alle Zeilen, Spalten und beide Diagonalen",
                 "player ist noch nicht geschrieben",
                 "Tipp: diese Prüfung hat terminal mit den Funktionen des Autograders für "
                 "winner ausgeführt, der Fehler steckt also in terminal selbst"]:
        assert line in sam, sam
    failures = sam[sam.index("## "):]
    english = re.compile(r"^(call|got|problem|expected|hint): |returned |wrong on ", re.M)
    assert not english.search(failures), english.search(failures)


def test_a_failure_is_worded_in_the_language_of_the_moment(monkeypatch):
    """CheckFailed, the child's places and the hint label: said when they are made."""
    from autograder.checking.failures import CheckFailed, is_hint_line
    failed = CheckFailed("x", call="winner(board)", got="y", hint="z", failures=1, total=1,
                         expected=3)
    monkeypatch.setenv("SPIELBAUM_COURSE_LANG", "nl")
    assert failed.render(False).splitlines() == [
        "x (fout in 1 van 1 geval; het kleinste:)", "aanroep: winner(board)", "gekregen: y",
        "verwacht: (verborgen test: het verwachte antwoord wordt niet getoond)", "tip: z"]
    assert i18n.places("minimax (t.py, line 12); f (t.py, line 3)") == \
        "minimax (t.py, regel 12); f (t.py, regel 3)"
    monkeypatch.setenv("SPIELBAUM_COURSE_LANG", "en")
    assert failed.render(True).splitlines()[0] == "x (wrong on 1 of 1 case; the smallest:)"
    assert i18n.places("t.py, line 12") == "t.py, line 12"
    # A page is written in its own language, whatever is spoken now.
    assert is_hint_line("Tipp: prüfe") and is_hint_line("tip: x") and is_hint_line("hint: x")
    assert not is_hint_line("Tippfehler: x")


def test_the_graders_words_are_never_released(german_tictactoe):
    """The grader domain holds the hidden checks' sentences: a student who could read
    its msgids would learn what the hidden checks test."""
    shipped = sorted(p.relative_to(german_tictactoe).as_posix()
                     for p in german_tictactoe.rglob("*.mo"))
    assert shipped == [f"locale/{code}/LC_MESSAGES/{i18n.DOMAIN}.mo" for code in i18n.TRANSLATED]
    hidden = [m for m in extracted(i18n.GRADER) if isinstance(m, str) and len(m) > 30]
    released = "".join(p.read_bytes().decode("utf-8", "replace")
                       for p in german_tictactoe.rglob("*") if p.is_file())
    assert hidden and not [m for m in hidden if m in released]


# ------------------------------------------------------------ glossary and name map
#: The assignments whose README has its glossary and name map so far (issue 23).
WITH_GLOSSARY = ["tictactoe", "negamax", "gametree", "connect4", "muehle"]
GLOSSARY = "## Words and names from the course"


@pytest.mark.parametrize("name", WITH_GLOSSARY)
def test_the_name_map_names_every_function_the_student_writes(name):
    """Each function the student writes has its row, with the course's names beside it,
    and the glossary has the three languages' words for a state and a move."""
    assignment = assignments.load(name)
    readme = (assignment.solution_dir / "README.md").read_text(encoding="utf-8")
    assert GLOSSARY in readme
    section = readme.split(GLOSSARY, 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    for module in assignment.modules:
        stripped = release.strip_solutions((assignment.solution_dir / module).read_text())
        for function in stripped.stubbed:     # "TicTacToe.getMoves", "memoize.f_memoized"
            names = function.split(".")
            row = next((r for r in rows if any(f"{part}(" in r.split("|")[1] for part in names)),
                       None)
            assert row, f"{name}: no row of the name map for {function}"
            assert all(cell.strip() for cell in row.split("|")[2:-1]), row
    for word in ("Stellung", "Folgestellung", "Zug", "Knoten", "Blatt", "Bewertungsfunktion",
                 "stelling", "zet", "knoop", "blad", "evaluatiefunctie"):
        assert re.search(rf"\b{word}\b", section), f"{name}: the glossary lacks {word}"


# ------------------------------------------------------------ long texts
def test_markdown_is_translated_block_by_block_and_code_stays_as_it_is():
    text = ("# Title\n\nA paragraph\nof two lines.\n\n\n```python\nx = 1\n\ny = 2\n```\n\n"
            "| a | b |\n|---|---|\n")
    assert [block for _, block in i18n.markdown_blocks(text)] == [
        "# Title", "A paragraph\nof two lines.", "| a | b |\n|---|---|"]
    assert [line for line, _ in i18n.markdown_blocks(text)] == [1, 3, 13]
    assert i18n.translate_markdown(text, "en") == text
    assert i18n.translate_markdown(text, "de") == text      # no translations: as it was
    for readme in sorted((ROOT / "solutions").glob("*/README.md")):
        english = readme.read_text(encoding="utf-8")
        assert i18n.translate_markdown(english, "en") == english


@pytest.mark.parametrize("name, language, title", [
    ("tictactoe", "de", "# Tic-Tac-Toe mit Minimax"),
    ("tictactoe", "nl", "# Boter-kaas-en-eieren met minimax"),
    ("negamax", "de", "# NegaMax mit Alpha-Beta auf einem Brett"),
    ("negamax", "nl", "# NegaMax met alfa-bèta op één bord"),
    ("gametree", "de", "# Spielbäume: Minimax und Alpha-Beta mit Tiefengrenze"),
    ("gametree", "nl", "# Spelbomen: minimax en alfa-bèta met een zoekdiepte"),
    ("connect4", "de", "# Vier gewinnt: Alpha-Beta mit Tiefengrenze"),
    ("connect4", "nl", "# Vier op een rij: alfa-bèta met een zoekdiepte"),
    ("muehle", "de", "# Mühle mit memoisiertem Minimax und Alpha-Beta"),
    ("muehle", "nl", "# Molenspel met gememoïseerde minimax en alfa-bèta")])
def test_the_release_writes_the_readme_in_the_courses_language(name, language, title,
                                                               tmp_path):
    """Every block of a translated README (spielbaum.cfg names them) is translated,
    except the notes written in German and Dutch already (they stay in every language)."""
    folder = tmp_path / name
    release.render(assignments.load(name), folder, language)
    english = (ROOT / "solutions" / name / "README.md").read_text(encoding="utf-8")
    translated = (folder / "README.md").read_text(encoding="utf-8")
    assert translated.startswith(title + "\n\n"), translated[:80]
    kept = [block for _, block in i18n.markdown_blocks(english) if block in translated]
    assert len(kept) == 1 and kept[0].startswith("- *Deutsch:*"), kept


# ------------------------------------------------------------ the public tests' words
def untranslated(message):
    """The parts of a failure message written as English text in the code: an f-string
    or a literal with words, alone or joined with +, not passed through gettext."""
    if isinstance(message, ast.BinOp) and isinstance(message.op, ast.Add):
        return untranslated(message.left) + untranslated(message.right)
    if isinstance(message, ast.JoinedStr) or (
            isinstance(message, ast.Constant) and isinstance(message.value, str)
            and re.search(r"[A-Za-z]{2}", message.value)):
        return [ast.unparse(message)]
    return []


@pytest.mark.parametrize("name", WITH_GLOSSARY)
def test_every_public_test_says_its_failures_through_gettext(name):
    """A sentence the student reads in a failing public test (an assert's message, an
    AssertionError or pytest.fail) goes through the catalog (kit_language.catalog)."""
    path = ROOT / "solutions" / name / f"test_{name}.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    calls = {ast.unparse(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    assert "catalog" in calls, f"{path.name} never asks kit_language.catalog() for its words"
    english = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert) and node.msg is not None:
            english += untranslated(node.msg)
        elif isinstance(node, ast.Call) and ast.unparse(node.func) in (
                "AssertionError", "pytest.fail") and node.args:
            english += untranslated(node.args[0])
    assert not english, f"{path.name}: failure texts not passed through _(): {english}"

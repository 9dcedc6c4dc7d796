"""The public checks, with or without make: `python check.py` does what `make check`
does (`python check.py winner`: only the checks of winner; `python check.py --html`:
the same summary, and check.html beside it to read in a browser, as `make check
HTML=1` does). You do not need to edit this file.

It runs in the folder it is in, whatever folder you start it from
(`python path/to/check.py`), on this assignment's own public tests and nothing else:
a backup or a second copy of the assignment in this folder is never collected.

It needs Python 3.11 or newer, pytest and pytest-timeout. If your Python lacks the two
packages, the first run installs them into your user's cache folder (~/.cache/spielbaum/;
on Windows %LOCALAPPDATA%\\spielbaum\\), never into this folder: everything here is
handed in, a Python environment must not be. README.md says what to do when that
install cannot run (no internet, a school computer).

Written for old Pythons too (no syntax newer than 3.6), so that an old one is told
what is wrong instead of failing on this file.
"""

import hashlib
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OLDEST_PYTHON = (3, 11)
#: The files the checks cannot run without (the public tests and your module are
#: checked by conftest.py, which names them).
NEEDED_FILES = ("conftest.py", "pytest.ini", "kit_language.py", "check_page.py",
                "requirements.txt")
FROM_MAKE = "--from-make"      # the Makefile's `make check`: named so in messages
INSTALL_ONLY = "--install-only"     # the Makefile's `make tools`
#: `--html` (`make check HTML=1`): conftest.py's option for it has its own name, which
#: no other pytest plugin (pytest-html's --html) takes.
PAGE_OPTIONS = {"--html": "--check-page"}


_translated = []      # the catalog's gettext, loaded when a first message is said


def _(text):
    """`text` in the checks' language (kit_language.py); English without it."""
    if not _translated:
        sys.path.insert(0, HERE)
        try:
            import kit_language
            _translated.append(kit_language.catalog().gettext)
        except Exception:        # a missing or broken kit_language.py is said as such
            _translated.append(lambda message: message)
    return _translated[0](text)


def say(*lines):
    for line in lines:
        print(line)
    sys.stdout.flush()


def what_to_do(todo):
    return _("What to do: {todo}").format(todo=todo)


def main(argv):
    command = "make check" if FROM_MAKE in argv else \
        "py check.py" if os.name == "nt" else "python3 check.py"
    words = [arg for arg in argv if arg not in (FROM_MAKE, INSTALL_ONLY)]
    problem = too_old() or missing_needed_file(command)
    if problem:
        say(*problem)
        return 2
    if INSTALL_ONLY not in argv and has_test_tools():
        return run_checks(words, command)
    tools = tools_folder()
    if INSTALL_ONLY in argv:
        return 0 if os.path.isfile(os.path.join(tools, "ready")) or install(tools, command) \
            else 1
    if os.path.abspath(sys.prefix) == os.path.abspath(tools):
        say(_("The test tools in {tools} do not work.").format(tools=tools),
            what_to_do(_("delete that folder and run `{command}` again: it installs them "
                         "afresh.").format(command=command)))
        return 2
    if not os.path.isfile(os.path.join(tools, "ready")) and not install(tools, command):
        return 1
    try:
        return subprocess.call([tools_python(tools), os.path.join(HERE, "check.py")] + argv)
    except KeyboardInterrupt:
        return 130


# ------------------------------------------------------------ before pytest can start
def too_old():
    if sys.version_info[:2] >= OLDEST_PYTHON:
        return None
    return [_("This is Python {version}; the checks need Python {needed} or newer.").format(
        version="%d.%d.%d" % tuple(sys.version_info[:3]), needed="%d.%d" % OLDEST_PYTHON),
        what_to_do(_("install a newer Python (https://www.python.org/downloads/) and run "
                     "the checks with it: `python3.12 check.py`, or `make check "
                     "PYTHON=python3.12` (with the version you installed)."))]


def missing_needed_file(command):
    for name in NEEDED_FILES:
        if not os.path.isfile(os.path.join(HERE, name)):
            return [_("{file} is missing from this folder ({folder}), so the checks cannot "
                      "run.").format(file=name, folder=HERE),
                    what_to_do(_("{file} is part of the assignment you were given, not yours "
                                 "to change: copy it back from there, then run `{command}` "
                                 "again.").format(file=name, command=command))]
    return None


def requirements():
    """[(distribution, minimum version as a tuple)] from requirements.txt."""
    found = []
    with open(os.path.join(HERE, "requirements.txt"), encoding="utf-8") as lines:
        for line in lines:
            match = re.match(r"\s*([A-Za-z0-9_.-]+)\s*>=\s*([0-9.]+)", line)
            if match:
                found.append((match.group(1), _version(match.group(2))))
    return found


def _version(text):
    return tuple(int(part) for part in re.findall(r"\d+", text)[:3])


def has_test_tools():
    """Whether this Python has pytest and pytest-timeout, new enough."""
    from importlib import metadata, util
    if util.find_spec("pytest") is None or util.find_spec("pytest_timeout") is None:
        return False        # quicker to tell than by the versions
    for name, minimum in requirements():
        try:
            if _version(metadata.version(name)) < minimum:
                return False
        except metadata.PackageNotFoundError:
            return False
    return True


# ------------------------------------------------------------ the test tools
def tools_folder():
    """One environment per Python version and list of requirements, shared by all
    assignments, in the user's cache folder."""
    cache = os.environ.get("XDG_CACHE_HOME")
    if not cache and os.name == "nt":
        cache = os.environ.get("LOCALAPPDATA")
    if not cache and os.environ.get("HOME"):
        cache = os.path.join(os.environ["HOME"], ".cache")
    if not cache:
        import tempfile
        user = os.environ.get("USER") or os.environ.get("USERNAME") or "student"
        cache = os.path.join(tempfile.gettempdir(), "spielbaum-" + user)
    with open(os.path.join(HERE, "requirements.txt"), "rb") as listed:
        digest = hashlib.sha256(listed.read()).hexdigest()[:12]
    return os.path.join(cache, "spielbaum", "tools-py%d.%d-%s" % (
        sys.version_info[0], sys.version_info[1], digest))


def tools_python(tools):
    if os.name == "nt":
        return os.path.join(tools, "Scripts", "python.exe")
    return os.path.join(tools, "bin", "python")


def install(tools, command):
    """Make the environment beside its final place and move it there when complete,
    so an interrupted or failed install never leaves half an environment behind."""
    say(_("Installing pytest and pytest-timeout into {tools} (first run only) ...")
        .format(tools=tools))
    os.makedirs(os.path.dirname(tools), exist_ok=True)
    partial = "%s.partial-%d" % (tools, os.getpid())
    log_path = tools + ".log"
    python = os.path.basename(sys.executable) or "python"
    yourself = "%s -m pip install --user pytest pytest-timeout" % python
    with open(log_path, "w", encoding="utf-8", errors="replace") as log:
        if subprocess.call([sys.executable, "-m", "venv", partial], stdout=log,
                           stderr=subprocess.STDOUT) != 0:
            shutil.rmtree(partial, ignore_errors=True)
            say(_("{python} could not make an environment for pytest: {reason}").format(
                python=python, reason=_last_line(log_path)),
                what_to_do(_("install Python's venv module (Debian, Ubuntu: sudo apt install "
                             "python3-venv), or install pytest and pytest-timeout yourself: "
                             "{yourself} (README.md says more).").format(yourself=yourself)))
            return False
        if subprocess.call([tools_python(partial), "-m", "pip", "install",
                            "--disable-pip-version-check", "-r",
                            os.path.join(HERE, "requirements.txt")],
                           stdout=log, stderr=subprocess.STDOUT) != 0:
            shutil.rmtree(partial, ignore_errors=True)
            say(_("pip could not install pytest and pytest-timeout: {reason} (pip's full "
                  "output: {log})").format(reason=_last_line(log_path, "ERROR"), log=log_path),
                what_to_do(_("are you offline? Connect to the internet and run `{command}` "
                             "again, or install them yourself: {yourself} (README.md says "
                             "more).").format(command=command, yourself=yourself)))
            return False
    if os.path.isfile(os.path.join(tools, "ready")):       # another run was quicker
        shutil.rmtree(partial, ignore_errors=True)
        return True
    shutil.rmtree(tools, ignore_errors=True)
    os.replace(partial, tools)
    open(os.path.join(tools, "ready"), "w").close()
    return True


def _last_line(path, prefix=""):
    """The log's last line starting with `prefix` (else its last line)."""
    with open(path, encoding="utf-8", errors="replace") as log:
        lines = [line.strip() for line in log if line.strip()]
    chosen = [line for line in lines if prefix and line.startswith(prefix)]
    return (chosen or lines or ["?"])[-1]


# ------------------------------------------------------------ the checks
def run_checks(words, command):
    os.chdir(HERE)
    os.environ["SPIELBAUM_CHECK_COMMAND"] = command
    # Only the two plugins the checks need: another pytest plugin on this computer
    # (random order, parallel runs, other output) would change the summary.
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    os.environ.pop("PYTEST_ADDOPTS", None)
    import pytest
    return int(pytest.main(["-c", os.path.join(HERE, "pytest.ini"), "--rootdir", HERE,
                            "-p", "pytest_timeout"] + pytest_arguments(words)))


def pytest_arguments(words):
    """`winner terminal` -> `--function winner --function terminal`; `--html` ->
    `--check-page`; options such as `-x` or `--function winner` go to pytest as they
    are."""
    arguments, rest = [], list(words)
    while rest:
        word = rest.pop(0)
        if not word.startswith("-"):
            arguments += ["--function", word]
            continue
        arguments.append(PAGE_OPTIONS.get(word, word))
        if word == "--function" and rest:
            arguments.append(rest.pop(0))
    return arguments


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

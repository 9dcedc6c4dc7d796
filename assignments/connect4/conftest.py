"""Friendly output for `make check`: one line per function, then the first
problem of each function in plain words. You do not need to edit this file.

Each public test is marked with the function it checks, e.g.
`@pytest.mark.checks("winner")`; the summary groups the results by that name.

Every sentence it prints is English in this file and goes through gettext
(`_`): kit_language.py picks the language (the course's, or SPIELBAUM_LANG) and
locale/<language>/LC_MESSAGES/spielbaum.mo holds the German and Dutch text.
"""

import os
import signal
import textwrap
import traceback

import pytest

import kit_language

_catalog = kit_language.catalog()
_, ngettext, pgettext = _catalog.gettext, _catalog.ngettext, _catalog.pgettext

_results = {}   # function name -> list of (test name, problem or None)
_order = []
_timed_out = set()   # functions that hit the time limit once: not waited for again
_broken = []    # what stopped a file from being imported: shown before anything else
_skipped_after_timeout = {}     # test id -> why it was not run
NOT_IMPLEMENTED = _("not implemented yet")


def pytest_addoption(parser):
    parser.addini("cpu_timeout", "seconds of CPU time one test may use", default="10")
    parser.addini("relies_on", "function: the functions it calls", type="linelist")
    parser.addoption("--function", action="append", default=[], metavar="NAME",
                     help="check only this function (`make check F=winner`)")


def pytest_configure(config):
    config.addinivalue_line("markers", "checks(name): the student function a test checks")


def _relies_on(config):
    """{function: [functions it calls]} from pytest.ini (the teacher's [relies_on])."""
    table = {}
    for line in config.getini("relies_on"):
        function, _, callees = line.partition(":")
        table[function.strip()] = callees.split()
    return table


def pytest_collection_modifyitems(config, items):
    wanted = config.getoption("function")
    if not wanted:
        return
    known = sorted({_function_of(item) for item in items})
    unknown = [name for name in wanted if name not in known]
    if unknown:
        raise pytest.UsageError(_("no public test checks {functions}; try one of: {known}")
                                .format(functions=", ".join(unknown), known=", ".join(known)))
    chosen = [item for item in items if _function_of(item) in wanted]
    config.hook.pytest_deselected(items=[item for item in items if item not in chosen])
    items[:] = chosen


# ------------------------------------------------------------ the CPU-time limit
class CpuTimeUp(BaseException):
    """Raised in a test that used up its CPU time. A BaseException, so that an
    `except Exception` in the code under test does not swallow it."""


def _cpu_limit(item):
    return float(item.config.getini("cpu_timeout"))


def _on_cpu_time_up(signum, frame):
    raise CpuTimeUp()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    # ITIMER_PROF counts this process's own CPU time: a busy computer does not make
    # a correct function fail. Where it does not exist (Windows), only the wall-clock
    # `timeout` of pytest.ini applies.
    armed = hasattr(signal, "setitimer") and hasattr(signal, "SIGPROF")
    if armed:
        previous = signal.signal(signal.SIGPROF, _on_cpu_time_up)
        signal.setitimer(signal.ITIMER_PROF, _cpu_limit(item))
    try:
        yield
    finally:
        if armed:
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.signal(signal.SIGPROF, previous)


def _function_of(item):
    marker = item.get_closest_marker("checks")
    return marker.args[0] if marker else item.name


def _timeout_of(item):
    marker = item.get_closest_marker("timeout")
    if marker and marker.args:
        return marker.args[0]
    return item.config.getini("timeout")


def pytest_runtest_setup(item):
    # A skip, not an error: pytest would count an error and print an "E" for it.
    name = _function_of(item)
    # A function that calls one which ran out of time would only wait as long again.
    stuck = [callee for callee in _relies_on(item.config).get(name, ()) if callee in _timed_out]
    if name in _timed_out:
        why = _("not run: an earlier test of {function} timed out").format(function=name)
    elif stuck:
        why = _("not run: an earlier test of {callee} (which {function} calls) timed out") \
            .format(callee=stuck[0], function=name)
    else:
        return
    _skipped_after_timeout[item.nodeid] = why
    pytest.skip(why)


# ------------------------------------------------------------ a module that does not import
def _relative(path, root):
    try:
        return os.path.relpath(path, root)
    except ValueError:      # another drive (Windows)
        return str(path)


def _own_frame(error, root):
    """(file, line) of the innermost frame in this folder that is not a test file."""
    found = None
    for frame in traceback.extract_tb(error.__traceback__):
        name = os.path.basename(frame.filename)
        inside = os.path.abspath(frame.filename).startswith(os.path.abspath(root) + os.sep)
        if inside and not name.startswith("test_") and name != "conftest.py":
            found = (_relative(frame.filename, root), frame.lineno, frame.line)
    return found


def _import_problem(error, root):
    """The file, the line, the message and what to do, for an import that failed."""
    if isinstance(error, SyntaxError):     # IndentationError and TabError too
        where = _relative(error.filename or "?", root)
        lines = [_("{file} cannot be read by Python, so no test could run:").format(file=where),
                 "", "  " + _("{file}, line {line}: {message}").format(
                     file=where, line=error.lineno, message=f"{type(error).__name__}: {error.msg}")]
        if error.text and error.text.strip():
            text = error.text.rstrip("\n")
            lines.append(f"    {text.strip()}")
            if error.offset and error.offset > 0:
                lead = len(text) - len(text.lstrip())
                lines.append("    " + " " * max(error.offset - 1 - lead, 0) + "^")
        todo = _("fix line {line} of {file} (the mistake can also sit at the end of the line "
                 "before it), save, and run `make check` again.").format(line=error.lineno,
                                                                         file=where)
        return "\n".join(lines + ["", *_what_to_do(todo)])
    frame = _own_frame(error, root)
    where, line = (frame[0], frame[1]) if frame else (_("your module"), None)
    message = f"{type(error).__name__}: {error}"
    lines = [_("{file} stops with an error while it is imported, so no test could run:")
             .format(file=where), "",
             "  " + (_("{file}, line {line}: {message}").format(file=where, line=line,
                                                               message=message)
                     if line else message)]
    if frame and frame[2]:
        lines.append(f"    {frame[2].strip()}")
    if isinstance(error, ModuleNotFoundError):
        todo = _("{file} imports {module}, which this Python does not have: use only Python's "
                 "standard library (the task needs nothing else), or remove that import.") \
            .format(file=where, module=repr(error.name))
    else:
        todo = _("code outside any function runs when {file} is imported: fix line {line} (or "
                 "move that code into a function), save, and run `make check` again.") \
            .format(file=where, line=line)
    return "\n".join(lines + ["", *_what_to_do(todo)])


def _what_to_do(todo):
    return textwrap.wrap(_("What to do: {todo}").format(todo=todo), 88)


def pytest_exception_interact(node, call, report):
    if report.when != "collect" or call.excinfo is None:
        return
    error = call.excinfo.value
    # pytest wraps SyntaxError and ImportError of a test file's imports in a CollectError.
    if isinstance(error, pytest.Collector.CollectError) and error.__cause__ is not None:
        error = error.__cause__
    problem = _import_problem(error, str(node.config.rootpath))
    if problem not in _broken:
        _broken.append(problem)


def _problem(item, call):
    """One readable sentence (plus any drawing) for a failed call, else None."""
    excinfo = call.excinfo
    if excinfo is None:
        return None
    if excinfo.errisinstance(NotImplementedError):
        return NOT_IMPLEMENTED
    message = str(excinfo.value)
    if excinfo.errisinstance(CpuTimeUp):
        _timed_out.add(_function_of(item))
        return _("used more than {seconds} s of CPU time, the limit of one public "
                 "test{stopped_in}: an endless loop, or a search doing far more work than it "
                 "needs (each public test needs well under a second)").format(
                     seconds=f"{_cpu_limit(item):g}", stopped_in=_stopped_in(excinfo))
    if message.startswith("Timeout"):
        _timed_out.add(_function_of(item))
        return _("waited {seconds} s without finishing{stopped_in}: does it sleep, or wait "
                 "for input?").format(seconds=_timeout_of(item), stopped_in=_stopped_in(excinfo))
    if excinfo.errisinstance(AssertionError):
        return message.split("\nassert ")[0] or _("a check failed")
    if excinfo.errisinstance(RecursionError):
        return _("recursion went too deep: does every recursive call get closer to a "
                 "terminal board?")
    return _("raised {error}{raised_in}").format(
        error=f"{type(excinfo.value).__name__}: {excinfo.value}", raised_in=_raised_in(excinfo))


def _raised_in(excinfo):
    """' (in tictactoe.py, line 40, in winner; called from terminal, line 52; called
    from minimax, line 160)': the frames of your own files, innermost first, so a
    wrong call is seen where it was made, not only where it failed."""
    own = []
    for entry in excinfo.traceback:
        path = str(entry.path)
        name = path.rsplit("/", 1)[-1]
        if not name.endswith("conftest.py") and not name.startswith("test_") \
                and "site-packages" not in path:
            if own and own[-1][2] == entry.name:     # recursion: its deepest call counts
                own.pop()
            own.append((name, entry.lineno + 1, entry.name))
    if not own:
        return ""
    name, line, function = own[-1]
    parts = [_("in {file}, line {line}, in {function}").format(file=name, line=line,
                                                                function=function)]
    for caller_file, caller_line, caller in reversed(own[-4:-1]):
        if caller_file != name:
            parts.append(_("called from {function}, {file}, line {line}").format(
                function=caller, file=caller_file, line=caller_line))
        else:
            parts.append(_("called from {function}, line {line}").format(
                function=caller, line=caller_line))
    return f" ({'; '.join(parts)})"


def _stopped_in(excinfo):
    """', stopped in minimax (tictactoe.py, line 42)': the innermost frame of the
    student's own files when the limit hit, if any."""
    for entry in reversed(excinfo.traceback):
        name = os.path.basename(str(entry.path))
        if name.endswith(".py") and not name.startswith("test_") and name != "conftest.py" \
                and "site-packages" not in str(entry.path) and \
                os.path.dirname(os.path.abspath(str(entry.path))) == os.getcwd():
            return _(", stopped in {function} ({file}, line {line})").format(
                function=entry.name, file=name, line=entry.lineno + 1)
    return ""


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    name = _function_of(item)
    if report.when == "call" or (report.when == "setup" and report.failed):
        problem = _problem(item, call) if report.failed else None
    elif report.when == "setup" and report.skipped and item.nodeid in _skipped_after_timeout:
        problem = _skipped_after_timeout[item.nodeid]
    else:
        return
    if name not in _results:
        _order.append(name)
        _results[name] = []
    _results[name].append((item.name, problem))


def pytest_report_teststatus(report, config):
    # Silence the row of dots (and the "s" of a test skipped after a timeout): the
    # summary below says it better.
    if report.when == "call" or (report.when == "setup" and report.skipped):
        return report.outcome, "", ""


def pytest_terminal_summary(terminalreporter):
    write = terminalreporter.write_line
    for problem in _broken:
        write("")
        for line in problem.splitlines():
            write(line)
    if not _results:
        return
    width = max(len(name) for name in _order)
    relies_on = _relies_on(terminalreporter.config)
    write("")
    for name in _order:
        results = _results[name]
        passed = sum(problem is None for _, problem in results)
        write(f"  {name:<{width}}  {passed}/{len(results)}  {_verdict(name, relies_on)}")
    shown = False
    for name in _order:
        for test, problem in _results[name]:
            if problem and problem != NOT_IMPLEMENTED:
                if not shown:
                    write("")
                    write(_("First problem per function:"))
                    shown = True
                write("")
                write(f"{name} ({test}):")
                for line in problem.splitlines():
                    write(f"    {line}")
                suspects = _failing_callees(name, relies_on)
                if suspects:
                    names = _and(suspects)
                    write("    " + ngettext(
                        "({function} calls {callees}, which fails too: fix {callees} first, "
                        "then run `make check` again)",
                        "({function} calls {callees}, which fail too: fix {callees} first, "
                        "then run `make check` again)", len(suspects)).format(
                            function=name, callees=names))
                break
    if all(problem is None for results in _results.values() for _, problem in results):
        only = terminalreporter.config.getoption("function")
        write("")
        if only:
            write(_("All public checks of {functions} pass (run `make check` for all).")
                  .format(functions=", ".join(only)))
        else:
            for line in _("All public checks pass. The hidden tests check every function on "
                          "many more\npositions (every reachable one where the game allows), "
                          "so test more yourself.").splitlines():
                write(line)
    write("")


def _and(names):
    """'a and b and c' in English, 'a, b und c' in German: the chosen language's list."""
    if len(names) < 2:
        return "".join(names)
    between = pgettext("a list of names: between two of them, except the last two", " and ")
    last = pgettext("a list of names: between the last two", " and ")
    return between.join(names[:-1]) + last + names[-1]


def _problems(name):
    return [problem for _, problem in _results.get(name, ()) if problem]


def _failing_callees(name, relies_on):
    """The functions `name` calls, directly or through others, that fail too (their
    failure may be its cause), nearest first."""
    found, seen, todo = [], {name}, list(relies_on.get(name, ()))
    while todo:
        callee = todo.pop(0)
        if callee in seen:
            continue
        seen.add(callee)
        if _problems(callee):
            found.append(callee)
        todo += relies_on.get(callee, ())
    return found


def _verdict(name, relies_on):
    problems = _problems(name)
    if not problems:
        return _("ok")
    suspects = _failing_callees(name, relies_on)
    if all(p == NOT_IMPLEMENTED for p in problems):
        return NOT_IMPLEMENTED if not suspects else \
            _("blocked by {functions} (not implemented yet?)").format(
                functions=", ".join(suspects))
    if suspects:
        return _("needs work (may follow from {functions})").format(
            functions=", ".join(suspects))
    return _("needs work")

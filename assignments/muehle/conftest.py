"""Friendly output for `make check`: one line per function, then the first
problem of each function in plain words. You do not need to edit this file.

Each public test is marked with the function it checks, e.g.
`@pytest.mark.checks("winner")`; the summary groups the results by that name.
"""

import os
import signal
import textwrap
import traceback

import pytest

_results = {}   # function name -> list of (test name, problem or None)
_order = []
_timed_out = set()   # functions that hit the time limit once: not waited for again
_broken = []    # what stopped a file from being imported: shown before anything else
NOT_RUN_AFTER_TIMEOUT = "not run: an earlier test of {} timed out"


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
        raise pytest.UsageError(f"no public test checks {', '.join(unknown)}; "
                                f"try one of: {', '.join(known)}")
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
    if name in _timed_out:
        pytest.skip(NOT_RUN_AFTER_TIMEOUT.format(name))
    # A function that calls one which ran out of time would only wait as long again.
    stuck = [callee for callee in _relies_on(item.config).get(name, ()) if callee in _timed_out]
    if stuck:
        pytest.skip(NOT_RUN_AFTER_TIMEOUT.format(f"{stuck[0]} (which {name} calls)"))


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
        lines = [f"{where} cannot be read by Python, so no test could run:", "",
                 f"  {where}, line {error.lineno}: {type(error).__name__}: {error.msg}"]
        if error.text and error.text.strip():
            text = error.text.rstrip("\n")
            lines.append(f"    {text.strip()}")
            if error.offset and error.offset > 0:
                lead = len(text) - len(text.lstrip())
                lines.append("    " + " " * max(error.offset - 1 - lead, 0) + "^")
        todo = (f"fix line {error.lineno} of {where} (the mistake can also sit at the end "
                "of the line before it), save, and run `make check` again.")
        return "\n".join(lines + ["", *textwrap.wrap("What to do: " + todo, 88)])
    frame = _own_frame(error, root)
    where, line = (frame[0], frame[1]) if frame else ("your module", None)
    message = f"{type(error).__name__}: {error}"
    lines = [f"{where} stops with an error while it is imported, so no test could run:", "",
             f"  {where}, line {line}: {message}" if line else f"  {message}"]
    if frame and frame[2]:
        lines.append(f"    {frame[2].strip()}")
    if isinstance(error, ModuleNotFoundError):
        todo = (f"{where} imports {error.name!r}, which this Python does not have: use only "
                "Python's standard library (the task needs nothing else), or remove that import.")
    else:
        todo = (f"code outside any function runs when {where} is imported: fix line {line} "
                "(or move that code into a function), save, and run `make check` again.")
    return "\n".join(lines + ["", *textwrap.wrap("What to do: " + todo, 88)])


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
        return "not implemented yet"
    message = str(excinfo.value)
    if excinfo.errisinstance(CpuTimeUp):
        _timed_out.add(_function_of(item))
        return (f"used more than {_cpu_limit(item):g} s of CPU time, the limit of one "
                f"public test{_stopped_in(excinfo)}: an endless loop, or a search doing far "
                "more work than it needs (each public test needs well under a second)")
    if message.startswith("Timeout"):
        _timed_out.add(_function_of(item))
        return (f"waited {_timeout_of(item)} s without finishing{_stopped_in(excinfo)}: "
                "does it sleep, or wait for input?")
    if excinfo.errisinstance(AssertionError):
        return message.split("\nassert ")[0] or "a check failed"
    if excinfo.errisinstance(RecursionError):
        return "recursion went too deep: does every recursive call get closer to a terminal board?"
    return f"raised {type(excinfo.value).__name__}: {excinfo.value}{_raised_in(excinfo)}"


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
    parts = [f"in {name}, line {line}, in {function}"]
    for caller_file, caller_line, caller in reversed(own[-4:-1]):
        other = f"{caller_file}, " if caller_file != name else ""
        parts.append(f"called from {caller}, {other}line {caller_line}")
    return f" ({'; '.join(parts)})"


def _stopped_in(excinfo):
    """', stopped in minimax (tictactoe.py, line 42)': the innermost frame of the
    student's own files when the limit hit, if any."""
    for entry in reversed(excinfo.traceback):
        name = os.path.basename(str(entry.path))
        if name.endswith(".py") and not name.startswith("test_") and name != "conftest.py" \
                and "site-packages" not in str(entry.path) and \
                os.path.dirname(os.path.abspath(str(entry.path))) == os.getcwd():
            return f", stopped in {entry.name} ({name}, line {entry.lineno + 1})"
    return ""


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    name = _function_of(item)
    if report.when == "call" or (report.when == "setup" and report.failed):
        problem = _problem(item, call) if report.failed else None
    elif report.when == "setup" and report.skipped and "timed out" in str(report.longrepr):
        problem = report.longrepr[2].removeprefix("Skipped: ") \
            if isinstance(report.longrepr, tuple) else NOT_RUN_AFTER_TIMEOUT.format(name)
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
            if problem and problem != "not implemented yet":
                if not shown:
                    write("")
                    write("First problem per function:")
                    shown = True
                write("")
                write(f"{name} ({test}):")
                for line in problem.splitlines():
                    write(f"    {line}")
                suspects = _failing_callees(name, relies_on)
                if suspects:
                    names = " and ".join(suspects)
                    write(f"    ({name} calls {names}, which {'fails' if len(suspects) == 1 else 'fail'}"
                          f" too: fix {names} first, then run `make check` again)")
                break
    if all(problem is None for results in _results.values() for _, problem in results):
        only = terminalreporter.config.getoption("function")
        write("")
        if only:
            write(f"All public checks of {', '.join(only)} pass (run `make check` for all).")
        else:
            write("All public checks pass. The hidden tests check every function on many more")
            write("positions (every reachable one where the game allows), so test more yourself.")
    write("")


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
        return "ok"
    suspects = _failing_callees(name, relies_on)
    if all(p == "not implemented yet" for p in problems):
        return "not implemented yet" if not suspects else \
            f"blocked by {', '.join(suspects)} (not implemented yet?)"
    if suspects:
        return f"needs work (may follow from {', '.join(suspects)})"
    return "needs work"

"""Friendly output for `make check`: one line per function, then the first
problem of each function in plain words. You do not need to edit this file.

Each public test is marked with the function it checks, e.g.
`@pytest.mark.checks("winner")`; the summary groups the results by that name.
"""

import pytest

_results = {}   # function name -> list of (test name, problem or None)
_order = []
_timed_out = set()   # functions that hit the time limit once: not waited for again


class SkippedAfterTimeout(Exception):
    """Raised instead of running a test whose function already timed out."""


def pytest_configure(config):
    config.addinivalue_line("markers", "checks(name): the student function a test checks")


def _function_of(item):
    marker = item.get_closest_marker("checks")
    return marker.args[0] if marker else item.name


def _timeout_of(item):
    marker = item.get_closest_marker("timeout")
    if marker and marker.args:
        return marker.args[0]
    return item.config.getini("timeout")


def pytest_runtest_setup(item):
    name = _function_of(item)
    if name in _timed_out:
        raise SkippedAfterTimeout(f"not run: an earlier test of {name} timed out")


def _problem(item, call):
    """One readable sentence (plus any drawing) for a failed call, else None."""
    excinfo = call.excinfo
    if excinfo is None:
        return None
    if excinfo.errisinstance(NotImplementedError):
        return "not implemented yet"
    message = str(excinfo.value)
    if excinfo.errisinstance(SkippedAfterTimeout):
        return message
    if message.startswith("Timeout"):
        _timed_out.add(_function_of(item))
        return (f"timed out after {_timeout_of(item)} s: is there an infinite loop, "
                "or a search that never stops?")
    if excinfo.errisinstance(AssertionError):
        return message.split("\nassert ")[0] or "a check failed"
    if excinfo.errisinstance(RecursionError):
        return "recursion went too deep: does every recursive call get closer to a terminal board?"
    where = ""
    for entry in reversed(excinfo.traceback):
        path = str(entry.path)
        if not path.endswith(("conftest.py",)) and "test_" not in path.rsplit("/", 1)[-1] \
                and "site-packages" not in path:
            where = f" (in {path.rsplit('/', 1)[-1]}, line {entry.lineno + 1})"
            break
    return f"raised {type(excinfo.value).__name__}: {excinfo.value}{where}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" or (report.when == "setup" and report.failed):
        name = _function_of(item)
        if name not in _results:
            _order.append(name)
            _results[name] = []
        _results[name].append((item.name, _problem(item, call) if report.failed else None))


def pytest_report_teststatus(report, config):
    # Silence the row of dots: the summary below says it better.
    if report.when == "call":
        return report.outcome, "", ""


def pytest_terminal_summary(terminalreporter):
    write = terminalreporter.write_line
    if not _results:
        return
    width = max(len(name) for name in _order)
    write("")
    for name in _order:
        results = _results[name]
        passed = sum(problem is None for _, problem in results)
        problems = [problem for _, problem in results if problem]
        if not problems:
            verdict = "ok"
        elif all(p == "not implemented yet" for p in problems):
            verdict = "not implemented yet"
        else:
            verdict = "needs work"
        write(f"  {name:<{width}}  {passed}/{len(results)}  {verdict}")
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
                break
    write("")

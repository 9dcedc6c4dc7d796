"""A pytest plugin that ends a hidden suite's run at the first lost point, the way
`pytest -x` does but only for a check that carries points: a mutant is killed when
it loses any point, so the checks after that cannot change its verdict. `autograder
mutate` hands it to its Grader (`plugins=`); the checks not run score nothing.
"""

from __future__ import annotations

from ..grading.runner import GradingPlugin

_session = None


def pytest_sessionstart(session):
    global _session
    _session = session


def pytest_runtest_logreport(report):
    # The same rule as GradingPlugin: a check earns its points only by a passing
    # call; a failed or skipped setup or call earns nothing.
    if report.when not in ("setup", "call") or report.passed or _session is None:
        return
    name = report.nodeid.split("::")[-1]
    grading = next((p for p in _session.config.pluginmanager.get_plugins()
                    if isinstance(p, GradingPlugin)), None)
    if grading is not None and grading.rubric.points.get(name, 0) > 0:
        _session.shouldfail = f"mutant killed by {name}"

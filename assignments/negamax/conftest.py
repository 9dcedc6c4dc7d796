"""Friendly output for the public checks (`make check`, `python check.py`, or
`python -m pytest` in this folder): one line per function, then the first problem
of each function in plain words. You do not need to edit this file.

Each public test is marked with the function it checks, e.g.
`@pytest.mark.checks("winner")`; the summary groups the results by that name.
Whatever stops the checks before the first test (a missing file, a module that does
not import, a second copy of the assignment in the same run) is said instead of the
summary: a headline naming the file, and a "What to do" line.

Every sentence it prints is English in this file and goes through gettext
(`_`): kit_language.py picks the language (the course's, or SPIELBAUM_LANG) and
locale/<language>/LC_MESSAGES/spielbaum.mo holds the German and Dutch text.
"""

import difflib
import glob
import os
import signal
import sys
import threading
import time
import traceback

import pytest

import kit_language

_catalog = kit_language.catalog()
_, ngettext, pgettext = _catalog.gettext, _catalog.ngettext, _catalog.pgettext

NOT_IMPLEMENTED = _("not implemented yet")
HERE = os.path.dirname(os.path.abspath(__file__))
#: The name the summary's plugin is registered under: one per pytest run.
PLUGIN = "spielbaum-checks"
#: The start of the name each further copy of this file registers a marker under.
SECOND_COPY = "spielbaum-second-copy:"
#: Files of the kit: never the student's to fix, always to copy back from the handout.
KIT_FILES = ("conftest.py", "kit_language.py", "check.py", "check_page.py", "play.py",
             "duel.py")
_second_copy = False    # another copy of this file registered its option first


def command():
    """How the student started the checks, named in "run ... again" (check.py sets it;
    else pytest was started directly)."""
    return os.environ.get("SPIELBAUM_CHECK_COMMAND") or \
        ("py -m pytest" if os.name == "nt" else "python3 -m pytest")


def pytest_addoption(parser):
    global _second_copy
    try:
        parser.addoption("--function", action="append", default=[], metavar="NAME",
                         help="check only this function (`make check F=winner`)")
        # Not --html: pytest-html's option, where a student has that plugin.
        parser.addoption("--check-page", action="store_true", default=False,
                         help="also write check.html (`make check HTML=1`)")
    except ValueError:
        # A second copy of the assignment is in this pytest run (pytest started in a
        # folder above both, or given both): its conftest.py is this file again. It
        # stays quiet and tells the first copy's summary, which says so in one line.
        _second_copy = True
        return
    parser.addini("cpu_timeout", "seconds of CPU time one test may use", default="10")
    parser.addini("relies_on", "function: the functions it calls", type="linelist")
    parser.addini("modules", "the files the student writes", type="args")
    parser.addini("packages", "what they may import besides the standard library",
                  type="args")


def pytest_configure(config):
    if _second_copy:
        # Found by the first copy's plugin (Checks.copies), whichever is configured first.
        config.pluginmanager.register(object(), f"{SECOND_COPY}{HERE}")
        return
    config.addinivalue_line("markers", "checks(name): the student function a test checks")
    config.pluginmanager.register(Checks(config), PLUGIN)
    sys.meta_path.insert(0, ImportRule(HERE, config.getini("modules"),
                                       config.getini("packages")))


class ImportRule:
    """The grader runs the student's files where only Python's standard library is
    installed (and the packages the teacher allows: pytest.ini's `packages`), so an
    import of anything else from them is refused here as there, in the grader's words
    (a file of theirs beside the module too: the grader takes the modules alone)."""

    def __init__(self, root, modules, packages):
        self.own = {os.path.normcase(os.path.join(root, module)) for module in modules}
        self.allowed = set(sys.stdlib_module_names) | set(packages) | {
            os.path.splitext(module)[0] for module in modules}

    def find_spec(self, name, path=None, target=None):
        top = name.partition(".")[0]
        importer = None if top in self.allowed else _importer()
        if importer is None or os.path.normcase(importer) not in self.own:
            return None
        error = ModuleNotFoundError(_(
            "{file} imports {module}, which this assignment does not allow: only Python's "
            "standard library may be imported, and the packages the README names").format(
                file=os.path.basename(importer), module=top), name=top)
        error.refused = True
        raise error


def _importer():
    """The file whose code is importing (the first frame outside the import system)."""
    frame = sys._getframe(2)
    inside = os.sep + "importlib" + os.sep
    while frame is not None and (frame.f_code.co_filename.startswith("<frozen importlib")
                                 or inside in frame.f_code.co_filename):
        frame = frame.f_back
    return frame.f_code.co_filename if frame is not None else None


def _relies_on(config):
    """{function: [functions it calls]} from pytest.ini (the teacher's [relies_on])."""
    table = {}
    for line in config.getini("relies_on"):
        function, _, callees = line.partition(":")
        table[function.strip()] = callees.split()
    return table


def _function_of(item):
    marker = item.get_closest_marker("checks")
    return marker.args[0] if marker else item.name


def _timeout_of(item):
    marker = item.get_closest_marker("timeout")
    if marker and marker.args:
        return marker.args[0]
    return item.config.getini("timeout")


def _cpu_limit(item):
    return float(item.config.getini("cpu_timeout"))


#: The kinds of problems that stop the checks, in the order they are said.
OUTSIDE, COPY, OTHER = "outside", "copy", "other"


class Checks:
    """The summary's plugin: what each test found, grouped by function, and what
    stopped the checks before the first test."""

    def __init__(self, config):
        self.config = config
        self.root = str(config.rootpath)
        self.results = {}      # function name -> list of (test name, problem or None)
        self.order = []
        self.timed_out = set()     # functions that hit a time limit once: not waited for again
        self.broken = []       # (kind, lines): what stops the checks before the first test
        self.skipped_after_timeout = {}     # test id -> why it was not run

    # -------------------------------------------------------- before the first test
    def stop(self, lines, kind=OTHER):
        """Record a problem that stops the checks: its lines (a headline, what to do)
        and its kind, which decides what is said (shown_problems)."""
        if (kind, lines) not in self.broken:
            self.broken.append((kind, lines))

    def shown_problems(self):
        """Pytest started outside this folder, else the second copies, else the rest:
        the others follow from the first kind found (a second copy's test file has
        the same name as this one's, and clashes with it)."""
        for kind in (OUTSIDE, COPY, OTHER):
            found = [lines for problem_kind, lines in self.broken if problem_kind == kind]
            if found:
                return found
        return []

    def copies(self):
        for name, _plugin in self.config.pluginmanager.list_name_plugin():
            if name and name.startswith(SECOND_COPY):
                self.stop(second_copy_problem(name[len(SECOND_COPY):], self.config), COPY)

    def pytest_sessionstart(self, session):
        self.preflight()

    def preflight(self):
        """The problems seen without running anything: pytest started outside this
        folder, a second copy, a missing file. Run at the session's start and again
        before the first test (a conftest.py found while collecting, in a folder
        pytest was started above, is configured after the session started)."""
        config = self.config
        outside = started_outside(config)
        if outside:
            self.stop(outside, OUTSIDE)
            return
        self.copies()
        # pytest < 7.2 does not say where its arguments came from: check testpaths then.
        source = getattr(config, "args_source", None)
        if source is None or source != pytest.Config.ArgsSource.ARGS:
            for pattern in config.getini("testpaths"):
                if not glob.glob(os.path.join(glob.escape(self.root), pattern)):
                    self.stop(missing_file_problem(pattern, self.root, public_tests=True))
        for module in config.getini("modules"):
            if not _has_file(self.root, module):
                self.stop(missing_module_problem(module, self.root, config))

    def pytest_exception_interact(self, node, call, report):
        if report.when != "collect" or call.excinfo is None:
            return
        error = call.excinfo.value
        # pytest wraps SyntaxError and ImportError of a test file's imports in a CollectError.
        if isinstance(error, pytest.Collector.CollectError) and error.__cause__ is not None:
            error = error.__cause__
        self.stop(*import_problem(error, self.root, self.config))

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session):
        # Nothing runs after such a problem: the test results would only hide it (and
        # pytest would add a count of errors that says nothing).
        self.preflight()
        if self.broken or session.testsfailed:
            if not self.broken:      # a collection error this plugin could not read
                self.stop(unknown_problem(self.config))
            # Started outside this folder, pytest's own settings show every error in
            # full before the summary: the problem line says it better.
            self.config.option.tbstyle = "no"
            reporter = self.config.pluginmanager.getplugin("terminalreporter")
            if reporter is not None:
                reporter.reportchars = ""
            return True
        return None

    def pytest_sessionfinish(self, session):
        if self.broken:
            session.exitstatus = pytest.ExitCode.INTERRUPTED

    def pytest_collection_modifyitems(self, session, config, items):
        wanted = config.getoption("function")
        if not wanted or self.broken or session.testsfailed:
            return
        known = sorted({_function_of(item) for item in items})
        unknown = [name for name in wanted if name not in known]
        if unknown:
            self.stop([_("No public test checks {functions}, so no test ran.").format(
                functions=", ".join(unknown)), _what_to_do(
                    _("name one of the functions the public tests check: {known}.").format(
                        known=", ".join(known)))])
            return
        chosen = [item for item in items if _function_of(item) in wanted]
        config.hook.pytest_deselected(items=[item for item in items if item not in chosen])
        items[:] = chosen

    # -------------------------------------------------------- the time limits
    @pytest.hookimpl(hookwrapper=True)
    def pytest_make_collect_report(self, collector):
        # Importing the student's module runs its top-level code: a search or a game
        # left there would keep the checks from ever starting.
        if isinstance(collector, pytest.Module):
            with CpuTimeLimit(float(self.config.getini("cpu_timeout"))):
                yield
        else:
            yield

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item):
        # The CPU time this process uses: a busy computer does not make a correct
        # function fail. Linux and macOS count it with a timer (ITIMER_PROF), Windows
        # with a watchdog thread (CpuTimeLimit).
        with CpuTimeLimit(_cpu_limit(item)):
            yield

    @pytest.hookimpl(tryfirst=True, optionalhook=True)
    def pytest_timeout_set_timer(self, item, settings):
        # The clock's backstop (pytest.ini's `timeout`): pytest-timeout's SIGALRM where
        # the platform has it, else a watchdog thread of ours (pytest-timeout's own
        # would end the run with stack dumps and no summary).
        if settings.method == "signal" and HAS_ALARM:
            return None
        watch = ClockWatch(item, settings.timeout, self)
        item.cancel_timeout = watch.cancel
        return True

    def pytest_runtest_setup(self, item):
        # A skip, not an error: pytest would count an error and print an "E" for it.
        name = _function_of(item)
        # A function that calls one which ran out of time would only wait as long again.
        stuck = [callee for callee in _relies_on(item.config).get(name, ())
                 if callee in self.timed_out]
        if name in self.timed_out:
            why = _("not run: an earlier test of {function} timed out").format(function=name)
        elif stuck:
            why = _("not run: an earlier test of {callee} (which {function} calls) timed out") \
                .format(callee=stuck[0], function=name)
        else:
            return
        self.skipped_after_timeout[item.nodeid] = why
        pytest.skip(why)

    # -------------------------------------------------------- what each test found
    def problem(self, item, call):
        """One readable sentence (plus any drawing) for a failed call, else None."""
        excinfo = call.excinfo
        if excinfo is None:
            return None
        if excinfo.errisinstance(NotImplementedError):
            return NOT_IMPLEMENTED
        message = str(excinfo.value)
        if excinfo.errisinstance(CpuTimeUp):
            self.timed_out.add(_function_of(item))
            return _("used more than {seconds} s of CPU time, the limit of one public "
                     "test{stopped_in}: an endless loop, or a search doing far more work than "
                     "it needs (each public test needs well under a second)").format(
                         seconds=f"{_cpu_limit(item):g}",
                         stopped_in=_stopped_in(excinfo, self.root))
        if excinfo.errisinstance(ClockTimeUp) or message.startswith("Timeout"):
            self.timed_out.add(_function_of(item))
            return waited(item, _stopped_in(excinfo, self.root))
        if excinfo.errisinstance(AssertionError):
            return message.split("\nassert ")[0] or _("a check failed")
        if excinfo.errisinstance(RecursionError):
            return _("recursion went too deep: does every recursive call get closer to a "
                     "terminal board?")
        return _("raised {error}{raised_in}").format(
            error=f"{type(excinfo.value).__name__}: {excinfo.value}",
            raised_in=_raised_in(excinfo))

    def record(self, item, problem):
        name = _function_of(item)
        if name not in self.results:
            self.order.append(name)
            self.results[name] = []
        self.results[name].append((item.name, problem))

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        report = outcome.get_result()
        if report.when == "call" or (report.when == "setup" and report.failed):
            self.record(item, self.problem(item, call) if report.failed else None)
        elif report.when == "setup" and report.skipped and \
                item.nodeid in self.skipped_after_timeout:
            self.record(item, self.skipped_after_timeout[item.nodeid])

    def pytest_report_teststatus(self, report, config):
        # Silence the row of dots (and the "s" of a test skipped after a timeout): the
        # summary below says it better.
        if report.when == "call" or (report.when == "setup" and report.skipped):
            return report.outcome, "", ""
        return None

    # -------------------------------------------------------- the summary
    def pytest_terminal_summary(self, terminalreporter):
        write = terminalreporter.write_line
        if self.broken:
            self.write_problems(write)
            self.offer_page(write)
            # The problem is the whole answer: no line of counts after it.
            terminalreporter.config.option.verbose = -2
            return
        self.write_summary(write, terminalreporter.config)
        self.offer_page(write)

    def write_problems(self, write):
        for lines in self.shown_problems():
            for line in lines:
                write(line)

    def write_summary(self, write, config):
        if not self.results:
            return
        width = max(len(name) for name in self.order)
        relies_on = _relies_on(config)
        write("")
        for name, passed, total, verdict, _ok in self.rows(config):
            write(f"  {name:<{width}}  {passed}/{total}  {verdict}")
        shown = False
        for name in self.order:
            for test, problem in self.results[name]:
                if problem and problem != NOT_IMPLEMENTED:
                    if not shown:
                        write("")
                        write(_("First problem per function:"))
                        shown = True
                    write("")
                    write(f"{name} ({test}):")
                    for line in problem.splitlines():
                        write(f"    {line}")
                    suspects = self.suspects_line(name, relies_on)
                    if suspects:
                        write("    " + suspects)
                    break
        closing = self.closing_lines(config)
        if closing:
            write("")
            for line in closing:
                write(line)
        write("")

    def closing_lines(self, config):
        """What the summary says last when every check ran passes, else []."""
        if not all(problem is None for results in self.results.values()
                   for _, problem in results):
            return []
        only = config.getoption("function")
        if only:
            return [_("All public checks of {functions} pass (run `{command}` for all).")
                    .format(functions=", ".join(only), command=command())]
        return _("All public checks pass. The hidden tests check every function on many "
                 "more\npositions (every reachable one where the game allows), so test "
                 "more yourself.").splitlines()

    def rows(self, config):
        """(function, tests passed, tests, verdict, all passed) per function, in order."""
        relies_on = _relies_on(config)
        for name in self.order:
            results = self.results[name]
            passed = sum(problem is None for _, problem in results)
            yield name, passed, len(results), self.verdict(name, relies_on), \
                passed == len(results)

    def suspects_line(self, name, relies_on):
        """"(terminal calls winner, which fails too: fix winner first ...)", else None."""
        suspects = self.failing_callees(name, relies_on)
        if not suspects:
            return None
        return ngettext(
            "({function} calls {callees}, which fails too: fix {callees} first, "
            "then run `{command}` again)",
            "({function} calls {callees}, which fail too: fix {callees} first, "
            "then run `{command}` again)", len(suspects)).format(
                function=name, callees=_and(suspects), command=command())

    # -------------------------------------------------------- the same as a page
    def offer_page(self, write, notes=()):
        """With --check-page (`make check HTML=1`): write check.html and name it in
        the summary's last line."""
        if not self.config.getoption("check_page", False):
            return
        relies_on = _relies_on(self.config)
        failures, unwritten, passed = [], [], []
        for name in self.order:
            suspects = self.suspects_line(name, relies_on)
            for test, problem in self.results[name]:
                if problem is None:
                    passed.append((name, test))
                elif problem == NOT_IMPLEMENTED:
                    unwritten.append((name, test))
                else:
                    failures.append((name, test, problem + ("\n" + suspects if suspects
                                                            else "")))
        try:
            import check_page
            closing = [] if self.broken or not self.results else \
                [" ".join(self.closing_lines(self.config))]
            path = check_page.write(self.root, rows=list(self.rows(self.config)),
                                    failures=failures, unwritten=unwritten, passed=passed,
                                    problems=[line for lines in self.shown_problems()
                                              for line in lines], notes=[*notes, *closing])
        except ImportError:
            write(_("check_page.py is missing from this folder, so no page was written: copy "
                    "it back from the assignment you were given."))
            return
        except OSError as error:
            write(_("The page could not be written: {error}").format(error=error))
            return
        write(_("The same checks as a page: {address}").format(
            address=check_page.address(path)))

    def problems(self, name):
        return [problem for _, problem in self.results.get(name, ()) if problem]

    def failing_callees(self, name, relies_on):
        """The functions `name` calls, directly or through others, that fail too (their
        failure may be its cause), nearest first."""
        found, seen, todo = [], {name}, list(relies_on.get(name, ()))
        while todo:
            callee = todo.pop(0)
            if callee in seen:
                continue
            seen.add(callee)
            if self.problems(callee):
                found.append(callee)
            todo += relies_on.get(callee, ())
        return found

    def verdict(self, name, relies_on):
        problems = self.problems(name)
        if not problems:
            return _("ok")
        suspects = self.failing_callees(name, relies_on)
        if all(p == NOT_IMPLEMENTED for p in problems):
            return NOT_IMPLEMENTED if not suspects else \
                _("blocked by {functions} (not implemented yet?)").format(
                    functions=", ".join(suspects))
        if suspects:
            return _("needs work (may follow from {functions})").format(
                functions=", ".join(suspects))
        return _("needs work")


def _and(names):
    """'a and b and c' in English, 'a, b und c' in German: the chosen language's list."""
    if len(names) < 2:
        return "".join(names)
    between = pgettext("a list of names: between two of them, except the last two", " and ")
    last = pgettext("a list of names: between the last two", " and ")
    return between.join(names[:-1]) + last + names[-1]


def waited(item, stopped_in):
    return _("waited {seconds} s without finishing{stopped_in}: does it sleep, or wait "
             "for input?").format(seconds=_timeout_of(item), stopped_in=stopped_in)


def _own_file(path, root):
    """The file's name if it is one of this folder's own .py files and not a kit or
    test file (the student's module, or a helper of theirs), else None."""
    name = os.path.basename(str(path))
    if os.path.dirname(os.path.abspath(str(path))) != os.path.abspath(root):
        return None
    if not name.endswith(".py") or name.startswith("test_") or name in KIT_FILES:
        return None
    return name


def _raised_in(excinfo):
    """' (in tictactoe.py, line 40, in winner; called from terminal, line 52; called
    from minimax, line 160)': the frames of your own files, innermost first, so a
    wrong call is seen where it was made, not only where it failed."""
    own = []
    for entry in excinfo.traceback:
        path = str(entry.path)
        name = os.path.basename(path)     # the path's own separator: \ on Windows
        if name != "conftest.py" and not name.startswith("test_") \
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


def _stopped_in(excinfo, root):
    """', stopped in minimax (tictactoe.py, line 42)': the innermost frame of the
    student's own files when the limit hit, if any."""
    for entry in reversed(excinfo.traceback):
        name = _own_file(entry.path, root)
        if name and "site-packages" not in str(entry.path):
            return _(", stopped in {function} ({file}, line {line})").format(
                function=entry.name, file=name, line=entry.lineno + 1)
    return ""


# ------------------------------------------------------------ stopping a test in time
# Two limits per test: its CPU time (pytest.ini's cpu_timeout: an endless loop or a
# search doing far too much) and the clock (`timeout`: code that sleeps). Linux and
# macOS stop a test with a signal, raised in the test itself: SIGPROF from setitimer's
# ITIMER_PROF, which counts this process's CPU time, and SIGALRM for the clock
# (pytest-timeout's signal method). Windows has neither. There a watchdog thread
# raises the same exception in the test's thread (CPython's PyThreadState_SetAsyncExc):
# that stops any Python code at its next step, though not a single call that blocks
# (time.sleep(60)); for that one the clock's watchdog ends the run itself (ClockWatch).
HAS_CPU_TIMER = hasattr(signal, "setitimer") and hasattr(signal, "SIGPROF")
HAS_ALARM = hasattr(signal, "setitimer") and hasattr(signal, "SIGALRM")
#: Seconds a watched test gets after its clock's limit to stop before the run ends.
GRACE = 1.0


class CpuTimeUp(BaseException):
    """Raised in a test that used up its CPU time. A BaseException, so that an
    `except Exception` in the code under test does not swallow it."""


class ClockTimeUp(BaseException):
    """Raised by the clock's watchdog in a test that ran past pytest.ini's `timeout`."""


def _raise_in(thread_id, exception):
    """Make `exception` happen in thread `thread_id` at its next Python step; False
    where this Python cannot (no ctypes, not CPython)."""
    try:
        import ctypes
        raise_async = ctypes.pythonapi.PyThreadState_SetAsyncExc
    except (ImportError, AttributeError):
        return False
    return raise_async(ctypes.c_ulong(thread_id), ctypes.py_object(exception)) == 1


def _on_cpu_time_up(signum, frame):
    raise CpuTimeUp()


class CpuTimeLimit:
    """`with CpuTimeLimit(seconds):` raises CpuTimeUp in the block once this
    process has used `seconds` of CPU time in it."""

    def __init__(self, seconds):
        self.seconds = seconds

    def __enter__(self):
        if HAS_CPU_TIMER:
            self.previous = signal.signal(signal.SIGPROF, _on_cpu_time_up)
            signal.setitimer(signal.ITIMER_PROF, self.seconds)
        else:
            self.watch = Watchdog(threading.get_ident())
            start = time.process_time()
            self.watch.start(lambda: self.seconds - (time.process_time() - start), CpuTimeUp)

    def __exit__(self, *exc):
        if HAS_CPU_TIMER:
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.signal(signal.SIGPROF, self.previous)
        else:
            self.watch.cancel()
        return False


class Watchdog:
    """A thread that raises an exception in the watched thread when the time left
    (a function: seconds, re-read each time it wakes) has run out, unless cancelled
    first. The lock makes "cancelled" and "raised" exclusive: a test that finished
    in time never gets the exception in pytest's own code after it."""

    def __init__(self, thread_id):
        self.thread_id = thread_id
        self.done = threading.Event()
        self.lock = threading.Lock()
        self.fired = False

    def start(self, time_left, exception, then=None):
        def watch():
            while not self.done.wait(max(time_left(), 0.005)):
                if time_left() <= 0:
                    with self.lock:
                        if self.done.is_set():
                            return
                        self.fired = _raise_in(self.thread_id, exception)
                    if then is not None:
                        then(self)
                    return
        threading.Thread(target=watch, name="spielbaum watchdog", daemon=True).start()

    def cancel(self):
        with self.lock:
            self.done.set()


class ClockWatch:
    """pytest.ini's `timeout` where there is no SIGALRM: raise ClockTimeUp in the
    test; if it is still running GRACE seconds later (blocked in one call), end the
    run with the summary so far and one line saying where it waited."""

    def __init__(self, item, seconds, checks):
        self.item, self.checks = item, checks
        self.watch = Watchdog(threading.get_ident())
        deadline = time.monotonic() + seconds
        self.watch.start(lambda: deadline - time.monotonic(), ClockTimeUp, self.grace)

    def grace(self, watch):
        if not watch.done.wait(GRACE):
            give_up(self.item, self.checks, watch.thread_id)

    def cancel(self):
        self.watch.cancel()


def give_up(item, checks, thread_id):
    """The end of a run whose test cannot be stopped: the summary of what ran, the
    test that waited and where, and no more tests (os._exit: that test's thread never
    returns, so pytest cannot finish)."""
    capture = item.config.pluginmanager.getplugin("capturemanager")
    if capture is not None:
        capture.suspend_global_capture(in_=True)
    frame = sys._current_frames().get(thread_id)
    checks.timed_out.add(_function_of(item))
    checks.record(item, waited(item, _stopped_at(frame, checks.root)))
    reporter = item.config.pluginmanager.getplugin("terminalreporter")
    write = reporter.write_line if reporter is not None else print
    checks.write_summary(write, item.config)
    stopped = _("The checks stopped there: {function} waited in a call that cannot be "
                "interrupted on this computer, so the tests after it did not run.").format(
                    function=_function_of(item))
    write(stopped)
    checks.offer_page(write, notes=[stopped])
    for stream in (sys.stdout, sys.__stdout__):
        if stream is not None:
            stream.flush()
    os._exit(1)


def _stopped_at(frame, root):
    """_stopped_in for a running thread's frame: its innermost frame in the student's
    own files."""
    for entry in reversed(traceback.extract_stack(frame) if frame is not None else []):
        name = _own_file(entry.filename, root)
        if name:
            return _(", stopped in {function} ({file}, line {line})").format(
                function=entry.name, file=name, line=entry.lineno)
    return ""


# ------------------------------------------------------------ what stopped the checks
def _relative(path, root):
    try:
        return os.path.relpath(path, root)
    except ValueError:      # another drive (Windows)
        return str(path)


def _what_to_do(todo):
    return _("What to do: {todo}").format(todo=todo)


def _in_folder(path, root):
    return os.path.abspath(str(path)).startswith(os.path.abspath(root) + os.sep)


def _innermost(error, root, own_only):
    """(file, line, code) of the innermost frame in this folder: of the student's
    own files when own_only, else of any file here but conftest.py."""
    found = None
    for frame in traceback.extract_tb(error.__traceback__):
        if not _in_folder(frame.filename, root):
            continue
        name = os.path.basename(frame.filename)
        if (own_only and _own_file(frame.filename, root)) or \
                (not own_only and name != "conftest.py"):
            found = (_relative(frame.filename, root), frame.lineno, frame.line)
    return found


def _kit_file(name):
    return name.startswith("test_") or name in KIT_FILES


def _has_file(root, name):
    """Whether `name` is in the folder, spelt exactly so: on Windows and macOS
    "TicTacToe.py" exists as "tictactoe.py" too, but Python will not import it so."""
    return name in os.listdir(root)


def import_problem(error, root, config):
    """(the lines: the headline, any code it points at, and what to do; their kind)
    for what failed while the public tests were loaded."""
    copy = _copy_of_this(error)
    if copy:
        return second_copy_problem(copy, config), COPY
    return _import_problem(error, root, config), OTHER


def _import_problem(error, root, config):
    if isinstance(error, SyntaxError):     # IndentationError and TabError too
        where = _relative(error.filename or "?", root)
        headline = _("{place}: {error} (Python cannot read {file}, so no test could run)") \
            .format(place=_place(where, error.lineno), file=where,
                    error=f"{type(error).__name__}: {error.msg}")
        lines = [headline, *_code_lines(error.text, error.offset)]
        if _kit_file(os.path.basename(where)):
            return lines + [_what_to_do(_copy_back(where))]
        return lines + [_what_to_do(
            _("fix line {line} of {file} (the mistake can also sit at the end of the line "
              "before it), save, and run `{command}` again.").format(
                  line=error.lineno, file=where, command=command()))]
    if isinstance(error, ModuleNotFoundError):
        missing = _missing_import(error, root, config)
        if missing:
            return missing
    frame = _innermost(error, root, own_only=True)
    message = f"{type(error).__name__}: {error}"
    if frame is None:
        tests = _innermost(error, root, own_only=False)
        if tests is not None:       # the public tests themselves fail to load
            return [_("{place}: {error} (in the public tests, so no test could run)").format(
                place=_place(tests[0], tests[1]), error=message),
                _what_to_do(_copy_back(tests[0]))]
        return [_("{error} (while the public tests were loaded, so no test could run)")
                .format(error=message), _what_to_do(_fresh_copy())]
    where, line, code = frame
    if isinstance(error, CpuTimeUp):
        message = _("still running after {seconds} s of CPU time").format(
            seconds=config.getini("cpu_timeout"))
    lines = [_("{place}: {error} (while {file} was imported, so no test could run)").format(
        place=_place(where, line), error=message, file=where)]
    if code:
        lines.append(f"    {code.strip()}")
    if isinstance(error, CpuTimeUp):
        todo = _("code outside any function runs when {file} is imported, and line {line} "
                 "does not finish: move that code into a function (or under `if __name__ == "
                 "\"__main__\":`), save, and run `{command}` again.").format(
                     file=where, line=line, command=command())
    elif getattr(error, "refused", False):     # ImportRule: what the grader refuses too
        todo = _("write that part with Python's standard library (the task needs nothing "
                 "else) and remove the import, then run `{command}` again.").format(
                     command=command())
    elif isinstance(error, ModuleNotFoundError):
        todo = _("{file} imports {module}, which this Python does not have: use only Python's "
                 "standard library (the task needs nothing else), or remove that import.") \
            .format(file=where, module=repr(error.name))
    else:
        todo = _("code outside any function runs when {file} is imported: fix line {line} "
                 "(or move that code into a function), save, and run `{command}` again.") \
            .format(file=where, line=line, command=command())
    return lines + [_what_to_do(todo)]


def _place(file, line):
    return _("{file}, line {line}").format(file=file, line=line) if line else file


def _code_lines(text, offset):
    """The line Python could not read, and a caret under the place."""
    if not text or not text.strip():
        return []
    text = text.rstrip("\n")
    lines = [f"    {text.strip()}"]
    if offset and offset > 0:
        lead = len(text) - len(text.lstrip())
        lines.append("    " + " " * max(offset - 1 - lead, 0) + "^")
    return lines


def _copy_back(file):
    return _("{file} is part of the assignment you were given, not yours to change: copy it "
             "back from there, then run `{command}` again.").format(file=file,
                                                                    command=command())


def _fresh_copy():
    return _("unpack the assignment you were given into a new folder, copy your own files "
             "into it, and run `{command}` there.").format(command=command())


def _missing_import(error, root, config):
    """A file the public tests import that is not in this folder: the student's
    module (under another name?) or a file of the kit."""
    name = error.name or ""
    if "." in name or _has_file(root, name + ".py"):
        return None
    importer = _innermost(error, root, own_only=False)
    if importer is None or not _kit_file(os.path.basename(importer[0])):
        return None     # the student's own import: said with their line below
    if name + ".py" in config.getini("modules"):
        return missing_module_problem(name + ".py", root, config)
    return missing_file_problem(name + ".py", root, public_tests=False)


def missing_module_problem(module, root, config):
    lines = [_("{file} is missing from this folder ({folder}), so no test could run.")
             .format(file=module, folder=root)]
    candidate = _lookalike(module, root)
    if candidate:
        todo = _("if {candidate} is your {file}, rename it to {file}; then run `{command}` "
                 "again.").format(candidate=candidate, file=module, command=command())
    else:
        todo = _("put your {file} into this folder, next to the public tests, then run "
                 "`{command}` again.").format(file=module, command=command())
    return lines + [_what_to_do(todo)]


def _lookalike(module, root):
    """A file here that may be the missing module under another name ("tictactoe
    (1).py", "TicTacToe.py", "tictactoe.py.txt")."""
    stem = os.path.splitext(module)[0].lower()
    names = [name for name in sorted(os.listdir(root))
             if os.path.isfile(os.path.join(root, name)) and not _kit_file(name)
             and name != module and stem in name.lower()
             and not name.lower().endswith((".ipynb", ".md"))]
    close = difflib.get_close_matches(module, names, n=1, cutoff=0.5)
    return repr(close[0]) if close else None


def missing_file_problem(file, root, public_tests):
    headline = (_("{file} (the public tests) is missing from this folder ({folder}), so no "
                  "test could run.") if public_tests else
                _("{file} is missing from this folder ({folder}), and the public tests need "
                  "it, so no test could run.")).format(file=file, folder=root)
    return [headline, _what_to_do(_copy_back(file))]


def _copy_of_this(error):
    """The folder of another copy of the assignment that `error` comes from, else
    None: another conftest.py in the traceback (an older copy's, whose option clashed
    with this one's), or a test file of the same name as this folder's."""
    if type(error).__name__ == "ImportPathMismatchError" and len(error.args) == 3:
        for path in error.args[1:]:
            if os.path.dirname(os.path.abspath(str(path))) != HERE:
                return os.path.dirname(os.path.abspath(str(path)))
    for frame in traceback.extract_tb(error.__traceback__):
        if os.path.basename(frame.filename) == "conftest.py" and \
                os.path.dirname(os.path.abspath(frame.filename)) != HERE:
            return os.path.dirname(os.path.abspath(frame.filename))
    return None


def started_outside(config):
    """The problem when pytest was started without this folder's pytest.ini (in a
    folder above it): it would collect every folder below, copies and all."""
    ini = getattr(config, "inipath", None)
    if ini is not None and os.path.dirname(os.path.abspath(str(ini))) == HERE:
        return None
    start = str(config.invocation_params.dir)
    check = os.path.join(_relative(HERE, start), "check.py")
    return [_("pytest was started in {start}, not in the assignment's folder {folder}, so "
              "it would check other files too.").format(start=start, folder=HERE),
            _what_to_do(_("run the checks in the assignment's folder: `python3 {check}` "
                          "(on Windows `py {check}`).").format(check=check))]


def second_copy_problem(folder, config):
    start = str(config.invocation_params.dir)
    shown = _relative(folder, start) if _in_folder(folder, start) else folder
    return [_("A second copy of the assignment is inside this folder: {folder}").format(
        folder=os.path.join(shown, "")),
        _what_to_do(_("move it out of this folder (or delete it), then run `{command}` in "
                      "the assignment's own folder.").format(command=command()))]


def unknown_problem(config):
    return [_("The public tests could not be loaded, so no test could run."),
            _what_to_do(_fresh_copy())]

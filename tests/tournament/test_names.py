"""A tournament of players whose names, shapes and sizes are the students' attack.

Real runs of `autograder tournament` in a PID namespace: two players named
`$\\frac{1}{$` (mathtext for matplotlib) and `a[` (Rich markup), one `=SUM(1;2)`
(a formula), next to a player named plainly with the same module; one folder with
a 300 MB (sparse) module. The report must be written, on the first run and on a
resumed one, every name shown as it is, and the huge module left out with a line
before anything of it is read.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from tests.conftest import ROOT

from . import helpers

#: Runs a command and says the largest memory any process of it used (ru_maxrss, KB).
PEAK = ("import resource, subprocess, sys\n"
        "done = subprocess.run(sys.argv[1:])\n"
        "print('peak', resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)\n"
        "sys.exit(done.returncode)")

ARGS = ("--depth", "1", "--move-time", "2", "--round-robin", "--seed", "3", "--jobs", "2",
        "--bundled", "none")
NAMES = ["$\\frac{1}{$", "a[", "=SUM(1;2)", "plain"]


@pytest.mark.slow
@pytest.mark.hostile
def test_names_draw_as_text_and_a_huge_module_is_left_out(tmp_path):
    subs = tmp_path / "subs"
    for name in NAMES:
        shutil.copytree(helpers.EXAMPLES / "connect4" / "ada_reference", subs / name)
    huge = subs / "huge"
    shutil.copytree(helpers.EXAMPLES / "connect4" / "ada_reference", huge)
    with open(huge / "connect4.py", "r+b") as handle:
        handle.truncate(300 << 20)
    out = tmp_path / "out"
    first = subprocess.run([sys.executable, "-c", PEAK,
                            *helpers.command("connect4", subs, out, *ARGS)],
                           cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert first.returncode == 0, first.stderr[-3000:]
    peak_mb = int(first.stderr.rsplit("peak ", 1)[1]) / 1024
    assert "not entered: huge: connect4.py is 300 MB, larger than the 5 MB" in \
        " ".join(first.stderr.split())
    standings = helpers.standings(out)
    assert {row["player"] for row in standings} == {"$\\frac{1}{$", "a[", "'=SUM(1;2)", "plain"}
    assert all(int(row["games"]) == 6 for row in standings)
    page = (out / "tournament.html").read_text(encoding="utf-8")
    assert "$\\frac{1}{$" in page and (out / "ratings.png").stat().st_size > 1000
    for name in ("a[", "$\\frac{1}{$"):
        assert name in first.stdout, first.stdout
    assert peak_mb < 300, f"{peak_mb:.0f} MB"      # the module used to be read: 955 MB in all
    resumed = helpers.run("connect4", subs, out, *ARGS)      # resuming writes the report too
    assert "resuming: 12 games already played" in " ".join(resumed.stderr.split())
    assert (out / "tournament.html").read_text(encoding="utf-8").count("$\\frac{1}{$") \
        == page.count("$\\frac{1}{$")
    assert os.path.getsize(out / "h2h.png") > 1000

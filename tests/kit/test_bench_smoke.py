"""The benchmarks still run: each script on a tiny size, so a change to the kit that
breaks one (as the kit-sources change once broke bench_similarity) fails here, not
on the teacher's next `make bench`. Numbers are not judged: a tiny run measures nothing."""

import subprocess
import sys

import pytest

from tests.conftest import ROOT

SMALL_RUNS = {
    "bench_similarity.py": ["--count", "12"],
    "bench_overhead.py": ["--tiny"],
    "bench_child_calls.py": ["--repeat", "1"],
    "bench_callbacks.py": ["--calls", "200", "--repeat", "1"],
    "bench_child_penalty.py": ["--examples", "ada_alphabeta", "--repeat", "1", "--marks", "7"],
    "bench_mutation.py": ["--count", "1", "--only", "tictactoe", "--speedup", "tictactoe",
                          "--speedup-count", "1"],
    "bench_sandbox.py": ["--tiny"],
    "bench_floors.py": ["--tiny"],
}

pytestmark = pytest.mark.slow


#: Run only by make test-all (before a release): each tiny run of these costs CI half a
#: minute of its 25, for code that only `make bench` uses.
TEST_ALL_ONLY = {"bench_overhead.py", "bench_mutation.py", "bench_sandbox.py",
                 "bench_floors.py"}


@pytest.mark.parametrize("script", [
    pytest.param(name, marks=pytest.mark.exhaustive if name in TEST_ALL_ONLY else ())
    for name in sorted(SMALL_RUNS)])
def test_bench_script_runs_on_a_tiny_size(script):
    done = subprocess.run([sys.executable, str(ROOT / "bench" / script), *SMALL_RUNS[script]],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    assert done.stdout.strip(), "the bench printed nothing"

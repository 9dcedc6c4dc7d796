"""nbgrader path: `make grade-collected` (parallel, the kit's sandbox) against plain,
serial `nbgrader autograde` of the same submissions, measured in the same run.

Both do the full hidden suite (plain autograde's graded cells ask the same sandboxed
grader). Prints submissions per minute of each and their ratio.
"""

import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
EXAMPLES = ["ada_alphabeta", "carol_shallow_copy", "dan_negative_cells", "eve_no_antidiagonal",
            "ivan_lying_answers", "frank_syntax_error"]
COPIES = int(os.environ.get("BENCH_NBGRADER_COPIES", "2"))


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-nbgrader-") as scratch:
        base = Path(scratch)
        (base / "course").mkdir()
        os.environ.update(SPIELBAUM_COURSE_ROOT=str(base / "course"), CI="true",
                          SPIELBAUM_COURSE_ID="bench")
        from rich.console import Console

        from autograder.nbgrader import cycle
        from tests.nbgrader.scenario import exported
        api = cycle.make_api()
        result = api.generate_assignment("tictactoe", force=True, create=True)
        assert result["success"], result
        handout = ROOT / "solutions" / "tictactoe" / "tictactoe.ipynb"
        count = 0
        for copy in range(COPIES):
            for example in EXAMPLES:
                folder = base / "course" / "submitted" / f"{example}_{copy}" / "tictactoe"
                folder.mkdir(parents=True)
                shutil.copyfile(ROOT / "examples" / "tictactoe" / example / "tictactoe.py",
                                folder / "tictactoe.py")
                shutil.copyfile(handout, folder / "tictactoe.ipynb")
                count += 1
        started = time.perf_counter()
        cycle.autograde("tictactoe", api)
        plain = time.perf_counter() - started
        plain_scores = exported(cycle, api, base / "plain.csv")
        started = time.perf_counter()
        cycle.grade_collected("tictactoe", api, jobs=os.cpu_count() or 1,
                              console=Console(stderr=True, quiet=True))
        kit = time.perf_counter() - started
        kit_scores = exported(cycle, api, base / "kit.csv")
    same = "same scores" if plain_scores == kit_scores else "SCORES DIFFER"
    print(f"{count} submissions of tictactoe, full hidden suite, {os.cpu_count()} cores:")
    print(f"  plain nbgrader autograde (serial): {60 * count / plain:6.1f} submissions/min")
    print(f"  make grade-collected (parallel):   {60 * count / kit:6.1f} submissions/min")
    print(f"  ratio: {plain / kit:.2f}x plain nbgrader's throughput ({same})")


if __name__ == "__main__":
    main()

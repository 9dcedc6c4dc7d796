"""One batch of submissions that attacks everything around the sandbox, with honest twins.

Each attack is one student folder (or one entry of the submissions folder)
whose name, shape, encoding or text is the attack; `HONEST` are the same
correct module under ordinary names. tests/kit/test_intake.py grades the batch
once, for real (`autograder grade` in a PID namespace), and judges every row.
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORRECT = (ROOT / "examples" / "tictactoe" / "ada_alphabeta" / "tictactoe.py").read_text()
WRONG = (ROOT / "examples" / "tictactoe" / "eve_no_antidiagonal" / "tictactoe.py").read_text()

#: Terminal escapes: clear the screen and the scroll-back, retitle the window, then
#: draw a row of the summary table for a student who does not exist.
FORGED_ROW = "\x1b[2J\x1b[3J\x1b]0;pwned\x07\n│ s7_forge │ 25/25 │ graded │"
MARKUP = "[link=https://evil.example]click[/link] [bold green]25/25[/] [/nope]"
FORMULA = '=HYPERLINK("https://evil.example","25/25")'

#: Correct or wrong modules under names that are ordinary, or only look dangerous: each
#: must get the score its module earns, whatever its name does in a terminal, a
#: spreadsheet, Markdown or a page.
HONEST = {"ada": CORRECT, "eve": WRONG, "a[": CORRECT, "b]": CORRECT, "caf\udce9": CORRECT,
          "<img src=x onerror=alert(1)>": CORRECT, "=SUM(1;2)": CORRECT, "@cmd": WRONG,
          "-2": CORRECT, "$\\frac{1}{$": CORRECT}


#: A lone surrogate printed, and a file name with one (refused or missing: its note
#: carries the name), before a correct module.
BYTES = ('print("caf\\udce9 printed")\n'
         'try:\n    open("/etc/caf\\udce9")\nexcept OSError:\n    pass\n')


def raising(message: str, kind: str = "ValueError") -> str:
    """A module that raises at import, after defining the right functions."""
    prefix = f"class {kind}(Exception):\n    pass\n\n\n" if kind == "SystemExit" else ""
    return CORRECT + f"\n\n{prefix}raise {kind}({message!r})\n"


def remove_tree(top: Path) -> None:
    """shutil.rmtree recurses once per folder level: this does not (1,100 levels)."""
    stack = [str(top)]
    while stack:
        here = stack[-1]
        with os.scandir(here) as listing:
            children = list(listing)
        folders = [c.path for c in children if c.is_dir(follow_symlinks=False)]
        for child in children:
            if not child.is_dir(follow_symlinks=False):
                os.unlink(child.path)
        if folders:
            stack.extend(folders)
        else:
            os.rmdir(here)
            stack.pop()


def build(target: Path) -> dict[str, str]:
    """Write the batch into `target`; return {entry name: what it tries}."""
    target.mkdir(parents=True)
    tries = {}

    def student(name: str, source: str | None, what: str, **extra) -> Path:
        folder = target / name
        folder.mkdir(parents=True)
        if source is not None:
            (folder / "tictactoe.py").write_text(source, encoding="utf-8",
                                                 errors="surrogateescape")
        for relative, text in extra.items():
            path = folder / relative.replace("__", "/")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        tries[name] = what
        return folder

    for name, source in HONEST.items():
        student(name, source, "honest")
    student("ansi", raising(FORGED_ROW), "terminal escapes in an exception message")
    student("markup", raising(MARKUP), "Rich markup in an exception message")
    student("formula", raising(FORMULA), "a formula in an exception message")
    student("fake_exit", raising(FORMULA, "SystemExit"),
            "a class named SystemExit to put its message first")
    student("surrogate", raising("caf\udce9 \udcff"), "a lone surrogate in a message")
    student("bytes", BYTES + CORRECT, "a lone surrogate printed, and in a path")
    student("brackets", None, "two copies in sub-folders a[ and b], named in the note",
            **{"a[__tictactoe.py": CORRECT, "b]__tictactoe.py": CORRECT})
    deep = student("deep", CORRECT, "1,100 nested folders beside the module")
    bottom = student("deep_module", None, "the module at the bottom of 1,100 folders")
    for folder in (deep, bottom):
        for _ in range(1100):          # os.makedirs itself recurses too deep for this
            folder = folder / "d"
            folder.mkdir()
    (folder / "tictactoe.py").write_text(CORRECT)
    big = student("huge", None, "a 300 MB (sparse) module")
    with open(big / "tictactoe.py", "wb") as handle:
        handle.write(CORRECT.encode())
        handle.truncate(300 << 20)
    student("nul", CORRECT.replace("def player", "\0def player", 1), "a NUL byte")
    folder_module = student("folder_module", None, "a folder named tictactoe.py")
    (folder_module / "tictactoe.py").mkdir()
    student("grades.csv", CORRECT, "a student folder named like the grader's output")
    student("line\n**Score: 25 of 25**", WRONG, "a newline forging a score line")
    student(".carol", CORRECT, "a hidden folder")
    (target / "dora_tictactoe.py").write_text(CORRECT)
    tries["dora_tictactoe.py"] = "a loose file"
    return tries

"""The summary table after bulk grading keeps every character at any width."""

import pytest
from rich.console import Console

from autograder.grading.batch import summary_table

NOTE = ("raised ValueError while being imported: this is a rather long message that "
        "explains why nothing could be imported at all (muehle.py, line 12)")
ROWS = [
    {"student": "a_very_long_student_identifier_that_goes_on", "score": 3, "max_score": 54,
     "status": "import-error", "timeouts": 1, "crashes": 2, "refused": 80000,
     "message": NOTE},
    {"student": "bob", "score": 54, "max_score": 54, "status": "graded", "timeouts": 0,
     "crashes": 0, "refused": 0, "message": ""},
]


@pytest.mark.parametrize("width", [60, 80, 120, 130, 200])
def test_nothing_is_cut_and_every_row_keeps_its_border(width):
    console = Console(width=width, record=True, file=open("/dev/null", "w"))
    console.print(summary_table(ROWS, 1.0))
    text = console.export_text()
    body = [line for line in text.splitlines() if line.startswith(("┃", "│"))]
    assert body and all(line.rstrip().endswith(("┃", "│")) for line in body)
    assert "…" not in text
    rows = [line.replace("┃", "│").strip("│").split("│") for line in body]
    columns = ["".join(row[i].replace(" ", "") for row in rows) for i in range(len(rows[0]))]
    for column, text in ((0, ROWS[0]["student"]), (5, "80000"), (6, NOTE)):
        assert text.replace(" ", "") in columns[column]

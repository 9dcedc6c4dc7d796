"""`nbgrader export` as a CSV a spreadsheet can open safely (nbgrader_config.py uses it).

nbgrader's CsvExportPlugin joins values with commas as they are: a student id
holding a comma shifts the columns, one starting with `=` is a formula. This
plugin writes the same columns through outputs/spreadsheet.py.
"""

from __future__ import annotations

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.plugins import CsvExportPlugin

from ..outputs import spreadsheet

COLUMNS = ["assignment", "duedate", "timestamp", "student_id", "last_name", "first_name",
           "email", "raw_score", "late_submission_penalty", "score", "max_score"]


class SafeCsvExportPlugin(CsvExportPlugin):
    def export(self, gradebook: Gradebook) -> None:
        dest = self.to or "grades.csv"
        students = {str(s) for s in self.student}
        assignments = {str(a) for a in self.assignment}
        self.log.info("Exporting grades to %s", dest)
        spreadsheet.write(dest, COLUMNS, (
            self._row(gradebook, assignment, student)
            for assignment in gradebook.assignments
            if not assignments or assignment.name in assignments
            for student in gradebook.students
            if not students or student.id in students))

    @staticmethod
    def _row(gradebook: Gradebook, assignment, student) -> dict:
        row = {"assignment": assignment.name, "duedate": assignment.duedate or "",
               "student_id": student.id, "last_name": student.last_name or "",
               "first_name": student.first_name or "", "email": student.email or "",
               "max_score": assignment.max_score}
        try:
            submission = gradebook.find_submission(assignment.name, student.id)
        except MissingEntry:
            return dict(row, timestamp="", raw_score=0.0, late_submission_penalty=0.0,
                        score=0.0)
        penalty = submission.late_submission_penalty or 0.0
        return dict(row, timestamp=submission.timestamp or "", raw_score=submission.score,
                    late_submission_penalty=penalty,
                    score=max(0.0, submission.score - penalty))

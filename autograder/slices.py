"""The old name of autograder/assignment.py, kept while every caller moves over."""

from .assignment import (ASSIGNMENTS, EXAMPLES, SOLUTIONS, SUITES, Assignment,  # noqa: F401
                         load, names)

Slice = Assignment

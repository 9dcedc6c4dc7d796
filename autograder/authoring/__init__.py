"""Writing an assignment: `autograder new` (scaffold.py) starts one that releases,
checks and grades at once; `autograder check-suite` (doctor.py) tells its author
what is wrong with its hidden suite. docs/AUTHORING.md is the tutorial."""

# The nbgrader course cycle (docs/TEACHING.md). Included by the Makefile, which
# defines PY, STAMP and A. Every command reads nbgrader_config.py; student code is
# only ever run by the kit's sandbox. `release` belongs to the kit's own release
# step (assignments/), so the nbgrader release is `nb-release`.
#   make notebooks              regenerate solutions/<a>/<a>.ipynb for every assignment
#   make nb-release A=<a>       nbgrader generate_assignment + strip the modules + release_assignment
#                               (again: replaces the earlier release, and says so)
#   make student-config TO=<f>  the nbgrader_config.py students need (the exchange, what
#                               a submission leaves out); TO=/etc/jupyter/nbgrader_config.py
#   make collect A=<a>          collect the submissions from the exchange (links, special
#                               files and forged folders refused: one line each)
#   make grade-collected A=<a>  grade them in parallel into the gradebook and autograded/
#                               (SCHEDULER=tcp://HOST:PORT: on a Dask cluster's workers)
#   make autograde A=<a>        the same through plain, serial `nbgrader autograde`
#   make feedback A=<a>         generate_feedback + release_feedback
#   make export                 the gradebook as grades-nbgrader.csv
NB_CYCLE = $(VENV)/bin/autograder nbgrader
NB_GRADES ?= grades-nbgrader.csv

.PHONY: notebooks nb-release collect grade-collected autograde feedback export nb-need-a \
	student-config

nb-need-a:
	@test -n "$(A)" || { echo "say which assignment: make $(MAKECMDGOALS) A=<assignment>"; exit 2; }

notebooks: $(STAMP)
	$(VENV)/bin/autograder nbgrader notebooks

nb-release: $(STAMP) nb-need-a
	$(NB_CYCLE) release $(A)

collect: $(STAMP) nb-need-a
	$(NB_CYCLE) collect $(A)

grade-collected: $(STAMP) nb-need-a
	$(NB_CYCLE) grade $(A) $(if $(SCHEDULER),--scheduler $(SCHEDULER))

autograde: $(STAMP) nb-need-a
	$(NB_CYCLE) autograde $(A)

feedback: $(STAMP) nb-need-a
	$(NB_CYCLE) feedback $(A)

export: $(STAMP)
	$(NB_CYCLE) export --to $(NB_GRADES)

student-config: $(STAMP)
	@test -n "$(TO)" || { echo "say where: make student-config TO=/etc/jupyter/nbgrader_config.py"; exit 2; }
	$(NB_CYCLE) student-config --to "$(TO)"

# Spielbaum: the kit's own commands. Every target sets up .venv by itself.
#   make demo          grade the bundled example submissions into out/
#   make test          run the kit's test suite (what CI runs)
#   make test-all      the same with the exhaustive tests, every channel route, every
#                      example on both platforms (much longer; before a release)
#   make assignments [A=]  regenerate assignments/ from solutions/
#   make release [A=]  the same; with A=<a> also release it through nbgrader (mk/nbgrader.mk)
#   make bench         run the benchmarks
#   make catalogs      the German and Dutch catalogs: extract every message, update
#                      autograder/locale/*/LC_MESSAGES/spielbaum.po, compile the .mo

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cksum < pyproject.toml | cut -d' ' -f1)
A ?=

.PHONY: setup test test-all demo assignments release bench catalogs clean

setup: $(STAMP)

# pip's lines (about 150 on a fresh machine) go to $(SETUP_LOG); the terminal gets two
# lines, or the log's end and where the rest is when pip fails.
SETUP_LOG := $(VENV)/setup.log
$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@echo "Installing the kit and its tools into $(VENV): a minute or two on a fresh machine" \
		"(nbgrader and its dependencies are most of it; pip's log: $(SETUP_LOG))."
	@$(PY) -m pip install --disable-pip-version-check --progress-bar off \
		-e '.[nbgrader,similarity,tournament,cluster,lms,dev]' > $(SETUP_LOG) 2>&1 || { \
		tail -n 20 $(SETUP_LOG); echo "make setup: pip failed; its whole log is $(SETUP_LOG)"; \
		exit 1; }
	@echo "Installed: $$(grep '^Successfully installed' $(SETUP_LOG) | wc -w | \
		awk '{print ($$1 > 2 ? $$1 - 2 : 0)}') packages new or updated; the kit is ready."
	@rm -f $(VENV)/.installed-*
	@touch $@

# `make test` (CI) leaves out the tests marked exhaustive: each repeats on all the data
# what the default run checks on a sample (pyproject.toml). `make test-all` runs them.
test: $(STAMP)
	$(PY) -m pytest -n 2 --dist loadfile --no-loadscope-reorder --durations=30 \
		-m "not exhaustive"

test-all: $(STAMP)
	SPIELBAUM_CHANNEL_ALL=1 SPIELBAUM_PLATFORM_ALL=1 SPIELBAUM_BLAME_ALL=1 SPIELBAUM_HOSTILE_ALL=1 \
		$(PY) -m pytest -n 2 --dist loadfile \
		--no-loadscope-reorder \
		--durations=30

# The grader replaces what it writes (each student's folder, grades.csv, the
# similarity report) and nothing else: other work in out/ (out/mutation) stays.
# The examples are one correct solution (bob_plain's) with a bug planted in each: the
# demo declares it as their starting code, so the similarity report compares only what
# each example changed, as it would compare students' own code beyond a handout.
demo: $(STAMP)
	$(VENV)/bin/autograder grade tictactoe examples/tictactoe --out out --similarity \
		--boilerplate examples/tictactoe/bob_plain/tictactoe.py
	@echo "(The examples are one solution, bob_plain's, with a bug planted in each; the" \
		"demo declares it as their starting code, so only what each example changed is" \
		"compared.) Open out/<student>/feedback.html and out/similarity.html in a browser."

assignments: $(STAMP)
	$(VENV)/bin/autograder release $(A)

release: assignments
	@if [ -n "$(A)" ]; then $(MAKE) --no-print-directory nb-release A=$(A); fi

bench: $(STAMP)
	@for script in bench/bench_*.py; do echo "== $$script"; $(PY) $$script || exit 1; done

# English is the source (the msgids in the code); Babel (the dev extra) extracts with
# autograder/locale/<domain>.cfg (spielbaum: what the student's kit says, released with
# every assignment; grader: what only the grader says, autograder/i18n.py), merges into
# each catalog (new messages come in empty, stale ones go) and compiles the .mo files.
# Translate the empty msgstrs in the .po files, then run it again:
# tests/kit/test_languages.py fails while a message is missing, stale, empty or not
# compiled. The template's date is pinned so that running it twice changes no file.
LOCALE := autograder/locale
catalogs: $(STAMP)
	@pot=$$(mktemp) && trap 'rm -f "$$pot"' EXIT && \
	for domain in spielbaum grader; do \
	$(VENV)/bin/pybabel -q extract -F $(LOCALE)/$$domain.cfg --no-location --sort-output \
		--project=Spielbaum --version=1 -o "$$pot" . && \
	sed -i 's/^"POT-Creation-Date: .*"$$/"POT-Creation-Date: 2026-12-01 00:00+0000\\n"/' "$$pot" && \
	for lang in de nl; do test -f $(LOCALE)/$$lang/LC_MESSAGES/$$domain.po || \
		$(VENV)/bin/pybabel -q init -i "$$pot" -d $(LOCALE) -D $$domain -l $$lang --no-wrap; \
	done && \
	$(VENV)/bin/pybabel -q update -i "$$pot" -d $(LOCALE) -D $$domain \
		--no-fuzzy-matching --ignore-obsolete --no-wrap && \
	$(VENV)/bin/pybabel compile -d $(LOCALE) -D $$domain --statistics || exit 1; \
	done

clean:
	rm -rf out .pytest_cache
	find . -name __pycache__ -prune -exec rm -rf {} +

include mk/nbgrader.mk

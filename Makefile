# The two set-up commands of the README. Each builds its own virtual environment.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: demo test test-real-bugs bench bench-peers clean

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -c constraints.txt -e ".[dev,plots,sklearn]"
	touch $(STAMP)

demo: $(STAMP)            ## the main job: the broken-networks tour on both frameworks
	$(VENV)/bin/nndebug demo --html --out nndebug-report

test: $(STAMP)            ## the test suite (with a fixed sample of the real-bug replay)
	$(PY) -m pytest -n 2 --durations=30 tests

REAL_BUGS ?= rest
test-real-bugs: $(STAMP)  ## the rest of the real-bug replay (tests/real_bug_tiers.py; the one-worker thinning
                          ## test first, so the other worker replays cases meanwhile); CI runs one half of it
                          ## after make test (REAL_BUGS=half-0 or half-1, .ci/run)
	$(PY) -m pytest -n 2 --durations=10 --real-bugs=$(REAL_BUGS) \
	    tests/test_history.py::test_real_bug_findings_are_unchanged_by_thinning tests/test_real_bugs.py

bench: $(STAMP)           ## benchmarks (not part of the tests)
	$(PY) -m benchmarks

bench-peers: $(STAMP)     ## the size sweep with autograd, mygrad, tinygrad (pinned, into .venv only)
	$(PY) -m pip install --quiet -c constraints.txt $$($(PY) -m benchmarks.train_peers)
	@command -v clang >/dev/null || echo "tinygrad's CPU backend compiles with clang, not found:" \
	    "its column shows '-' (install clang, e.g. apt-get install clang)"
	$(PY) -m benchmarks.bench_train_sweep $(ARGS)

clean:
	rm -rf $(VENV) nndebug-report

# The two commands of the README: `make play` and `make test`.
# The Python that makes .venv: from make's command line (make play
# PYTHON=python3.12), never from the environment, where an exported
# PYTHON=python2 of another project would end in a misleading message.
PYTHON := python3
VENV   := .venv
BIN    := $(VENV)/bin
# Where `make play` serves: from make's command line (make play PORT=8001),
# never from the environment, where other programs keep theirs (tcsh exports
# HOST, the machine's name; web tools' HOST=0.0.0.0 and PORT=3000).
HOST   := 127.0.0.1
PORT   := 8000

.PHONY: play test lint typecheck unit browser-deps build-deps bench clean

play: $(VENV)/.installed
	$(BIN)/terrace play --host $(HOST) --port $(PORT)

test: $(VENV)/.installed-dev browser-deps lint typecheck unit

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check src tests bench setup.py

typecheck: $(VENV)/.installed-dev
	$(BIN)/mypy --strict src

# The tests run in one process per core and one more (pytest-xdist): about
# 40% of a run waits on the servers, browsers and solver processes the tests
# start, and on two cores three processes took 530-662 s of pytest where two
# took 722-778 (fresh-clone CI runs, stops 68-69). TEST_PROCESSES=0 runs them
# in this process, in order. A process that runs out of tests takes half of
# what another still has queued (--dist worksteal): with the default (load)
# the tests already handed to a process stay with it, and the other waited
# idle at the end (132 s of a 3,017 s run measured).
TEST_PROCESSES ?= $(shell echo $$(( $$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1) + 1 )))
# Before they start, the bytecode they all need (the test modules with their
# asserts rewritten, terrace, what the tests import) is written once, where
# each process of a fresh clone compiled it all again (tests/bytecode_cache.py).
unit: $(VENV)/.installed-dev
	@if [ "$(TEST_PROCESSES)" != 0 ]; then $(BIN)/python tests/bytecode_cache.py; fi
	$(BIN)/python -m pytest -n $(TEST_PROCESSES) --dist worksteal

bench: $(VENV)/.installed
	$(BIN)/python bench/engine.py

# A fresh Debian may lack the venv module (package python3-venv): install it when root.
$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null || { \
	  echo "Terrace needs Python 3.11 or newer; '$(PYTHON)' is not one (another: make play PYTHON=python3.12)"; \
	  exit 1; }
	@$(PYTHON) -m venv $(VENV) 2>/dev/null || { \
	  rm -rf $(VENV); \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null; \
	    $(PYTHON) -m venv $(VENV); \
	  else echo "Python's venv module is missing: install python3-venv"; exit 1; fi; }
	$(BIN)/python -m pip install -q --upgrade pip

# The solver's compiled core is built by pip from setup.py; it is rebuilt
# whenever its C source changes.
CORE := setup.py $(wildcard src/terrace/solver/ccore/*)

$(VENV)/.installed: pyproject.toml $(CORE) | $(BIN)/python build-deps
	$(BIN)/python -m pip install -q -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml $(CORE) | $(BIN)/python build-deps
	$(BIN)/python -m pip install -q -e '.[dev,charts,cluster]'
	touch $@ $(VENV)/.installed

# A C compiler and Python's headers for the solver's compiled core, installed
# when root on Debian. Without them the install still works and the solver
# runs its pure-Python search, much more slowly.
build-deps:
	@if command -v cc >/dev/null && $(PYTHON) -c "import os, sys, sysconfig; \
	  sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()['include'], 'Python.h')))"; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "installing gcc and python3-dev for the solver's compiled core"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc python3-dev >/dev/null; \
	else echo "no C compiler or Python headers: the solver will run its slower pure-Python search"; fi

# Debian's Chromium for the browser tests (never a Playwright browser download):
# the browser and its old headless shell, which the tests run (a page opens in
# about half the time; tests/web_support.py falls back to the browser).
browser-deps:
	@if [ -x /usr/lib/chromium/chromium ] && [ -x /usr/lib/chromium/chromium-headless-shell ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "installing Debian's chromium and chromium-headless-shell for the browser tests"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null && \
	  { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium-headless-shell >/dev/null 2>&1 || \
	    echo "no chromium-headless-shell package here: the browser tests run chromium"; }; \
	elif [ -x /usr/lib/chromium/chromium ]; then :; \
	else echo "Chromium is missing and this is not root: browser tests will be skipped"; fi

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build src/*.egg-info src/terrace/solver/*.so

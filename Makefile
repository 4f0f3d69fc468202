# Every target sets up its own virtual environment from pyproject.toml.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEMO_STAMP := $(VENV)/.installed-demo

.PHONY: test demo bench screenshots clean

UV := $(BIN)/uv
# uv installs, in a range whose options (--python, -C) this file uses
UV_VERSION := uv>=0.9,<1

# The environment is made without pip, then uv is put in it: by the system's pip where it can
# install into another environment (pip 22.3+), else by the environment's own pip. uv sets the
# packages up (the project editable, pip for the packaging tests), each compiled when first
# imported. From a clean clone, the venv with pip (ensurepip), pip's upgrade and pip's install
# took 35 s; this takes 10 (measured one after the other, nothing in either cache).
$(BIN)/python:
	$(PYTHON) -m venv --without-pip $(VENV)

$(UV): | $(BIN)/python
	$(PYTHON) -m pip --python $(BIN)/python install --quiet '$(UV_VERSION)' 2>/dev/null \
	  || { $(BIN)/python -m ensurepip --upgrade >/dev/null && $(BIN)/python -m pip install --quiet '$(UV_VERSION)'; }

$(STAMP): pyproject.toml | $(UV)
	$(UV) pip install --quiet --python $(BIN)/python -C editable_mode=compat -e '.[test]' pip
	touch $(STAMP) $(DEMO_STAMP)

# the demo needs the product alone, not the test extra
$(DEMO_STAMP): pyproject.toml | $(UV)
	$(UV) pip install --quiet --python $(BIN)/python -C editable_mode=compat -e .
	touch $(DEMO_STAMP)

# Python may keep what it compiles: an environment that says otherwise (PYTHONDONTWRITEBYTECODE)
# makes each of the nine pytest processes rewrite the same test modules' asserts (6 s of CPU each)
# and every command a test starts compile the project again.
unexport PYTHONDONTWRITEBYTECODE

# lint, format and types first (fast, fail early; beside them one collection of the suite, which
# leaves pytest's rewritten modules for the workers, and the setup of the 3.10 and 3.13
# environments, the CPU-heavy part of their run), then the suite: eight workers on two cores (most
# tests wait on servers, subprocesses and terminals, not on the CPU; one run after the other on a
# quiet machine, eight took 5:08 where six took 5:42, and six 3:27 where four took 4:08 in an earlier
# wave), one file per worker at a time so a file's tests never race each other, the longest files
# first (tests/scheduling.py). Beside it, a representative part of the core and command-line tests
# on the oldest and newest supported Pythons when they are installed (tui/dev/pythons.py says which
# ran).
# each language's catalog compiled once, as a wheel ships it: without it every process that speaks
# Chinese (hundreds of the suite's commands) compiled the 190 kB .po again (i18n reads a .mo only
# when it is newer than its .po)
CATALOGS := $(patsubst %.po,%.mo,$(wildcard tui/locale/*/LC_MESSAGES/*.po))
%.mo: %.po | $(STAMP)
	$(BIN)/python -c 'import os, pathlib, sys; from tui.core.text.msgfmt import compile_po; \
	source, target = map(pathlib.Path, sys.argv[1:]); part = target.with_suffix(".mo.part"); \
	part.write_bytes(compile_po(source.read_text(encoding="utf-8"))); os.replace(part, target)' $< $@

test: $(STAMP) $(CATALOGS)
	@$(BIN)/python -m pytest -q --collect-only -p no:xdist > /dev/null 2>&1 & warm=$$!; \
	$(BIN)/python -m tui.dev.pythons --prepare > $(VENV)/pythons.log 2>&1 & prepare=$$!; \
	$(BIN)/ruff check tui tests setup.py && $(BIN)/ruff format --check tui tests setup.py && $(BIN)/mypy; lint=$$?; \
	wait $$warm; wait $$prepare; test $$lint -eq 0
	@$(BIN)/python -m tui.dev.pythons >> $(VENV)/pythons.log 2>&1 & others=$$!; \
	$(BIN)/python -m pytest -q -n 8 --dist loadfile --no-loadscope-reorder; main=$$?; \
	wait $$others; rest=$$?; cat $(VENV)/pythons.log; \
	test $$main -eq 0 && test $$rest -eq 0

demo: $(DEMO_STAMP)
	$(BIN)/assistant-auth demo

bench: $(STAMP)
	$(BIN)/python -m tui.dev.bench

screenshots: $(STAMP)
	$(BIN)/python -m tui.dev.screenshots screenshots

clean:
	rm -rf $(VENV) .venv-3.10 .venv-3.13 .pytest_cache .mypy_cache

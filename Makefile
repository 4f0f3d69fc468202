# Every target sets up its own virtual environment from pyproject.toml.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test demo bench screenshots clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --config-settings editable_mode=compat -e '.[test]'
	touch $(STAMP)

test: $(STAMP)
	$(BIN)/python -m pytest -q

demo: $(STAMP)
	$(BIN)/assistant-auth demo

bench: $(STAMP)
	$(BIN)/python -m tui.bench

screenshots: $(STAMP)
	$(BIN)/python -m tui.screenshots screenshots

clean:
	rm -rf $(VENV) .pytest_cache

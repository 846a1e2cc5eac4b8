# The two commands a newcomer runs: `make run` (install, then the main job) and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: run test lint install clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev,ml,vllm]'
	$(BIN)/python -m pip install --quiet --no-deps vllm==0.32.0 xgrammar==0.2.8
	touch $@

install: $(VENV)/.installed

# The main job until the web app exists: the paper's spike experiment, every policy side by side.
run: install
	$(BIN)/triage-dispatch bench sim --experiment spikes --gap 0.1 --concurrency 100

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# pytest exits 5 when it collects no tests; make treats that as a failure, so an empty run cannot pass.
test: lint
	$(BIN)/pytest

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis

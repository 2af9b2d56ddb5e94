# The two commands: `make bench` and `make test`. Both install what is
# missing first (a Python virtual environment, Debian packages), quietly.

PYTHON ?= python3
VENV := .venv
CONCBENCH := $(VENV)/bin/concbench

.PHONY: bench test setup clean

bench: setup
	@$(CONCBENCH) run

test: setup
	@$(VENV)/bin/pytest -q

setup: $(VENV)/installed
	@$(CONCBENCH) setup

$(VENV)/installed: pyproject.toml
	@$(PYTHON) -m venv $(VENV)
	@$(VENV)/bin/pip install -q --disable-pip-version-check -e '.[test]'
	@touch $@

clean:
	rm -rf $(VENV) runtimes/c/build

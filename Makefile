# The two commands: `make bench` and `make test`. Both install what is
# missing first (a Python virtual environment, Debian packages), quietly.

PYTHON ?= python3
VENV := .venv
CONCBENCH := $(VENV)/bin/concbench

.PHONY: bench test setup clean fidelity

# The report is written even when a trial failed or the run was interrupted
# (it shows what went wrong); make's exit status is still the run's.
bench: setup
	@$(CONCBENCH) run; status=$$?; $(CONCBENCH) report || exit $$?; exit $$status

test: setup
	@$(CONCBENCH) setup --tests
	@$(VENV)/bin/pytest -q

setup: $(VENV)/installed
	@$(CONCBENCH) setup

$(VENV)/installed: pyproject.toml
	@$(PYTHON) -m venv $(VENV)
	@$(VENV)/bin/pip install -q --disable-pip-version-check -e '.[test]'
	@touch $@

clean:
	rm -rf $(VENV) runtimes/c/build

# How much of a plain call's rate the Ruby kit's loop keeps, against a bare
# hand-written loop in the same process (it must be within 3%).
fidelity: setup
	@ruby runtimes/ruby/fidelity.rb

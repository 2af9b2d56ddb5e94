# The two commands: `make bench` and `make test`. Both install what is
# missing first (a Python virtual environment, Debian packages), quietly.

PYTHON ?= python3
VENV := .venv
CONCBENCH := $(VENV)/bin/concbench

.PHONY: bench test lint setup clean fidelity

# The report is written even when a trial failed or the run was interrupted
# (it shows what went wrong); make's exit status is still the run's. The run
# ends within BUDGET plus one trial (make bench BUDGET=60m for more trials).
# In 40 minutes here, 1,296 of 1,368 cells took 3 trials or more, and 97.6% of
# the rows got a 95% interval (docs/usage.md, "Installing").
BUDGET ?= 40m
bench: setup
	@$(CONCBENCH) run --budget $(BUDGET); status=$$?; $(CONCBENCH) report || exit $$?; exit $$status

# The kits' own unit tests first (the Rust kit's: its LCG's draws, monoio's
# yield), then the harness's tests, which run every cell's smoke profile
# and start a throwaway PostgreSQL server (-rs: a skipped test says why;
# --durations: the slowest, for keeping the whole under 20 minutes). They
# run in two processes (pytest-xdist), a test file at a time in each
# (loadfile: a file's fixtures are made once). The smoke run, the longest
# part, is two files, the runtimes split in two (tests/smoke.py), and the
# two processes start with them: xdist gives out the files with the most
# tests first. The tests' trials measure nothing, so the two processes run
# theirs side by side (tests/conftest.py); builds take turns. A test marked
# alone needs both CPUs to itself (tests/test_two_cpus.py): it runs after.
test: lint
	@if command -v cargo >/dev/null; then cd runtimes/rust && cargo test --release --quiet --locked --target-dir build; fi
	@$(VENV)/bin/pytest -q -rs --durations=15 -n 2 --dist loadfile -m "not alone"
	@$(VENV)/bin/pytest -q -rs -m alone

# Each language's standard checker: ruff for the harness (and for the Python
# kit, with the harness's settings, where python3 is installed), hlint for the
# Haskell kit, ruby -wc for the Ruby kit, gofmt and go vet for the Go kit,
# rustfmt and clippy for the Rust kit, google-java-format for the Java kit,
# prettier (from the npm registry, runtimes/node/package-lock.json, installed
# with --ignore-scripts: none of its packages has an install script) for the
# Node.js kit (which Bun and Deno run too), clang-format for the C++ kit, mix
# format for the Elixir kit and ktlint (from Maven Central) for the Kotlin kit
# where their toolchains are installed (the C and C++ kits build with -Wall
# -Wextra -Werror, the Java kit with javac -Xlint -Werror, Kotlin's with
# kotlinc -Werror, Elixir's with elixirc --warnings-as-errors, the Erlang kit
# with erlc +warnings_as_errors: OTP 25 ships no formatter, and erlfmt comes
# from hex.pm, which this project's machines do not reach).
# What the tests need is installed first (hlint, clang-format, and a browser
# for the report), and the toolchains concbench builds itself (Ruby 3.4 for ruby34:
# about 8 minutes, once per machine), whose Ruby checks the Ruby kit too.
lint: setup
	@$(CONCBENCH) setup --tests --provide all
	@$(VENV)/bin/ruff check -q src tests docs/template docs/tools
	@$(VENV)/bin/ruff format -q --check src tests docs/template docs/tools
	@if command -v python3 >/dev/null; then $(VENV)/bin/ruff check -q runtimes/python && $(VENV)/bin/ruff format -q --check runtimes/python; fi
	@cd runtimes/haskell && hints=$$(hlint -XNoPatternSynonyms .) || { echo "$$hints"; exit 1; }
	@ruby34=$$($(MAKE) -s -C runtimes/ruby34 detect >/dev/null 2>&1 && echo runtimes/ruby34/build/ruby); \
	for ruby in ruby $$ruby34; do for file in runtimes/ruby/*.rb runtimes/ruby/lib/*.rb runtimes/ruby/workloads/*.rb runtimes/ruby/test/*.rb; do \
		$$ruby -wc $$file >/dev/null || exit 1; done; done
	@if command -v go >/dev/null; then cd runtimes/go && unformatted=$$(gofmt -l .) && \
		{ [ -z "$$unformatted" ] || { echo "gofmt: $$unformatted"; exit 1; }; } && GOTOOLCHAIN=local go vet ./...; fi
	@if command -v cargo >/dev/null; then cd runtimes/rust && cargo fmt --check && \
		cargo clippy --release --quiet --locked --target-dir build -- -D warnings; fi
	@if sh runtimes/java/find-jdk >/dev/null 2>&1; then $(MAKE) -s -C runtimes/java lint; fi
	@if command -v node >/dev/null; then cd runtimes/node && { [ node_modules/.package-lock.json -nt package-lock.json ] || npm ci --ignore-scripts --silent --no-audit --no-fund; } && npx --no-install prettier --check --log-level warn .; fi
	@if command -v mix >/dev/null; then cd runtimes/elixir && mix format --check-formatted; fi
	@if $(MAKE) -s -C runtimes/kotlin detect >/dev/null 2>&1; then $(MAKE) -s -C runtimes/kotlin lint; fi
	@if command -v clang-format >/dev/null; then clang-format --dry-run --Werror runtimes/cpp/*.cpp runtimes/cpp/lib/*.hpp runtimes/cpp/workloads/*.cpp; fi

setup: $(VENV)/installed
	@$(CONCBENCH) setup

$(VENV)/installed: pyproject.toml
	@$(PYTHON) -m venv $(VENV)
	@$(VENV)/bin/pip install -q --disable-pip-version-check -e '.[test]'
	@touch $@

clean:
	rm -rf $(VENV)
	@for runtime in runtimes/*/; do [ ! -f $$runtime/Makefile ] || $(MAKE) -s -C $$runtime clean; done

# How much of a plain call's rate the Ruby kit's loop keeps, against a bare
# hand-written loop in the same process (it must be within 3%).
fidelity: setup
	@ruby runtimes/ruby/fidelity.rb

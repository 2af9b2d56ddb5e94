# An engine's binary fetched from the npm registry, pinned in the including
# runtime's package-lock.json, into its node_modules/ (silent, and npm runs
# only when the lock is newer than what it installed): included by the Bun
# and Deno Makefiles, which set NAME (the runtime), ENGINE (its binary) and
# VERSION (the command that names it, with its engine). `make detect`
# fetches it if need be and prints that.
# --ignore-scripts: npm runs no package's install script. Neither engine
# needs one: the package (not a wrapper that downloads or links the binary
# in postinstall) carries the binary itself, and no entry of the lock has an
# install script (hasInstallScript).
all: detect-quietly node_modules/.package-lock.json

node_modules/.package-lock.json: package-lock.json
	@npm ci --ignore-scripts --silent --no-audit --no-fund

detect: all
	@$(VERSION)

detect-quietly:
	@[ node_modules/.package-lock.json -nt package-lock.json ] || { command -v node && command -v npm; } >/dev/null || \
		{ echo "$(NAME): no npm (and Node.js) to fetch its binary from the npm registry" >&2; exit 1; }

clean:
	rm -rf node_modules

.PHONY: all detect detect-quietly clean

# FieldSync — the two commands a fresh Debian machine needs are `make run` and `make test`.
SWIFT ?= swift

.PHONY: run test build release packages bench-http bench-sync bench-web clean

## Installs missing system packages, builds a release binary and serves on the embedded PostgreSQL.
run: packages release
	.build/release/fieldsync serve $(ARGS)

## Installs missing system packages and runs the whole test suite against a throwaway PostgreSQL.
test: packages
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

build: packages
	$(SWIFT) build

release: packages
	$(SWIFT) build -c release

packages:
	@scripts/install-system-packages

## Benchmarks (figures printed; nothing asserted).
bench-http: release
	@scripts/install-system-packages wrk
	.build/release/fieldsync bench http

bench-sync: release
	.build/release/fieldsync bench sync

bench-web: release
	.build/release/fieldsync bench web

clean:
	rm -rf .build

# FieldSync — the two commands a fresh Debian machine needs are `make run` and `make test`.
SWIFT ?= swift
# The project's own Python environment (scripts/python-env): Debian's interpreter plus the
# pinned packages of scripts/python-requirements.txt; -E -s keep PYTHONPATH and the user's
# site-packages out.
PYTHON = .build/python/bin/python -E -s
BROWSER_TESTS = $(PYTHON) -m unittest discover --start-directory Tests/Browser --verbose
FUZZ = $(PYTHON) Tests/Fuzz/run_schemathesis.py
# Kill-and-restart cycles of the fault run; CI runs the short form, FAULT_CYCLES=5.
FAULT_CYCLES ?= 30

.PHONY: run test test-browser test-sdk-crash test-faults openapi-json openapi-check fuzz fuzz-short build release packages \
	browser-packages python-env bench-http bench-sync bench-web simulate bench-field-day bench-fleet bench-fleet-external clean

## Installs missing system packages, builds a release binary and serves on the embedded PostgreSQL.
run: packages release
	.build/release/fieldsync serve $(ARGS)

## Installs missing system packages and runs the whole test suite against a throwaway PostgreSQL:
## the OpenAPI copy check, the Swift tests, then the browser tests (headless Chromium driving a real server).
test: packages browser-packages python-env openapi-check
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	$(BROWSER_TESTS)

## The device SDK's crash test, long form: a fieldsync-device process is killed with SIGKILL
## CRASH_KILLS times (40 by default) while it edits, pushes and uploads; the server must end
## with every edit and photo exactly once. `make test` runs a short form (8 kills).
CRASH_KILLS ?= 40
test-sdk-crash: packages
	$(SWIFT) build --build-tests
	FIELDSYNC_CRASH_KILLS=$(CRASH_KILLS) $(SWIFT) test --skip-build --filter FieldSyncClientTests.CrashTests

## Only the browser tests (builds the debug server they start).
test-browser: browser-packages python-env
	$(SWIFT) build --product fieldsync
	$(BROWSER_TESTS)

## The fault run (Tests/Faults): simulated devices push and upload while `fieldsync serve`, and
## sometimes its embedded PostgreSQL, is killed with SIGKILL and restarted FAULT_CYCLES times; then
## nothing acknowledged may be lost, duplicated or half-applied. Prints its figures.
test-faults: packages python-env
	$(SWIFT) build --product fieldsync
	@scripts/check-python-isolation Tests/Harness Tests/Faults
	$(PYTHON) Tests/Faults/fault_run.py --cycles $(FAULT_CYCLES)

## Rewrites Public/openapi.json (served at GET /v1/openapi.json) from docs/openapi.yaml.
openapi-json: python-env
	@scripts/openapi-json

## Fails when Public/openapi.json is not the JSON form of docs/openapi.yaml.
openapi-check: python-env
	@scripts/openapi-json --check

## Fuzzes the device API against its OpenAPI document with schemathesis: a real server on its own
## embedded PostgreSQL, a field and a dispatcher device, a fixed budget of 30 examples per
## operation and phase (about two minutes). `make fuzz` is the long run (300 examples).
fuzz-short: packages python-env
	@scripts/check-python-isolation Tests/Harness Tests/Browser Tests/Fuzz
	$(SWIFT) build --product fieldsync
	$(FUZZ) --examples 30

fuzz: packages python-env
	@scripts/check-python-isolation Tests/Harness Tests/Browser Tests/Fuzz
	$(SWIFT) build --product fieldsync
	$(FUZZ) --examples 300

build: packages
	$(SWIFT) build

release: packages
	$(SWIFT) build -c release

packages:
	@scripts/install-system-packages

browser-packages:
	@scripts/install-system-packages chromium chromium-driver

## Creates or refreshes .build/python and proves the browser tests import nothing from outside it.
python-env:
	@scripts/python-env
	@scripts/check-python-isolation Tests/Harness Tests/Browser

## Benchmarks (figures printed; nothing asserted).
bench-http: release
	@scripts/install-system-packages wrk
	.build/release/fieldsync bench http

bench-sync: release
	.build/release/fieldsync bench sync

bench-web: release
	.build/release/fieldsync bench web

## A fleet of SDK devices works a full field day and the server is checked for loss (DEVICES, 200
## by default; SIMULATE_ARGS for day options, e.g. "--photo-bytes 100000"). `make test` runs a
## short form (a few devices, a small day).
DEVICES ?= 200
simulate: release
	.build/release/fieldsync simulate --devices $(DEVICES) $(SIMULATE_ARGS)

## One device's full field day through the shaping relay at 1 Mbit/s and 200 kbit/s, 200 ms added,
## random cuts: time against the link's limit, loss, photo restarts (FIELD_DAY_ARGS to change).
bench-field-day: release
	.build/release/fieldsync bench field-day $(FIELD_DAY_ARGS)

## 1,000 devices come back online at once against one server: time to drain, memory.
bench-fleet: release
	.build/release/fieldsync simulate --devices 1000 --concurrency 1000 --scale 0.1 --photo-bytes 100000 $(SIMULATE_ARGS)

## The same drain with the server in a process of its own, so that its memory shows apart from
## the devices' (Benchmarks/fleet-external.sh).
bench-fleet-external: release
	Benchmarks/fleet-external.sh $(SIMULATE_ARGS)

clean:
	rm -rf .build

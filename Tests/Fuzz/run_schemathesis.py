"""Fuzzes the FieldSync device API against its own OpenAPI document with schemathesis.

Starts a real `fieldsync serve` on a private embedded PostgreSQL (the browser tests' harness),
creates a field user and a dispatcher, and runs schemathesis's example, coverage, fuzzing and
stateful phases against GET /v1/openapi.json once with each user's device token, both runs at
once. The run fails on any 5xx, any response the document does not describe, any request the
document calls invalid that the server accepts, and a server that died or stopped answering.

    .build/python/bin/python -E -s Tests/Fuzz/run_schemathesis.py --examples 20   # make fuzz-short
    .build/python/bin/python -E -s Tests/Fuzz/run_schemathesis.py --examples 300  # make fuzz

Reports (JUnit XML and the NDJSON event log of each run) land in .build/fuzz (or
FIELDSYNC_FUZZ_REPORTS); the server's log is copied there too.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "Tests", "Browser"))
from harness import PASSWORD, Server  # noqa: E402  (the browser tests' server harness)

ROLES = (("field", "fuzz-field"), ("dispatcher", "fuzz-dispatcher"))
CHECKS = ",".join([
    "not_a_server_error", "status_code_conformance", "content_type_conformance", "response_headers_conformance",
    "response_schema_conformance", "negative_data_rejection", "missing_required_header", "unsupported_method",
    "ignored_auth", "use_after_free", "ensure_resource_availability",
])
# The live feed never ends a response, which schemathesis would wait on forever.
EXCLUDED_PATHS = ("/v1/events",)
# Sync calls are rate-limited per device (20 a second, bursts of 60); staying under it keeps
# the budget on real work instead of 429s.
RATE_LIMIT = "18/s"


def arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=20, help="most test cases per operation and phase (default 20)")
    parser.add_argument("--seed", type=int, default=20261103, help="random seed, for repeatable runs")
    parser.add_argument("--reports", default=os.environ.get("FIELDSYNC_FUZZ_REPORTS", os.path.join(ROOT, ".build", "fuzz")))
    return parser.parse_args()


def schemathesis_command(base, role, options):
    reports = os.path.join(options.reports, role)
    command = [sys.executable, "-E", "-s", "-m", "schemathesis.cli", "--config-file", os.path.join(HERE, "schemathesis.toml"),
               "run", base + "/v1/openapi.json",
               "--url", base, "--phases", "examples,coverage,fuzzing,stateful", "--checks", CHECKS,
               "--max-examples", str(options.examples), "--seed", str(options.seed), "--workers", "1",
               "--rate-limit", RATE_LIMIT, "--request-timeout", "30", "--suppress-health-check", "all",
               "--report", "junit,ndjson", "--report-dir", reports, "--no-color"]
    for path in EXCLUDED_PATHS:
        command += ["--exclude-path", path]
    return command


def run_fuzzers(server, options):
    """Both roles at once; returns each run's exit code and output."""
    runs = {}
    for role, username in ROLES:
        environment = dict(os.environ, SCHEMATHESIS_HOOKS=os.path.join(HERE, "fuzz_hooks.py"),
                           FIELDSYNC_FUZZ_CACHE=os.path.join(ROOT, ".build", "fuzz-cache", role),
                           FIELDSYNC_FUZZ_SEED=f"{options.seed}-{role}",
                           FIELDSYNC_FUZZ_BASE_URL=server.base, FIELDSYNC_FUZZ_USERNAME=username,
                           FIELDSYNC_FUZZ_PASSWORD=PASSWORD, FIELDSYNC_FUZZ_DEVICE_ID=f"{username}-phone")
        log = open(os.path.join(options.reports, f"{role}.log"), "w+")
        process = subprocess.Popen(schemathesis_command(server.base, role, options), cwd=ROOT, env=environment,
                                   stdout=log, stderr=subprocess.STDOUT, text=True)
        runs[role] = (process, log)
    results = {}
    for role, (process, log) in runs.items():
        code = process.wait()
        log.seek(0)
        results[role] = (code, log.read())
        log.close()
    return results


def server_answers(server):
    """Whether the process is alive and GET /v1/health answers 200."""
    if not server.process.is_running:
        return False
    try:
        with urllib.request.urlopen(server.base + "/v1/health", timeout=10) as response:
            return response.status == 200
    except OSError:
        return False


def crash_summary(log_path):
    """What killed the server, from the backtrace in its log: the failure and the first frame of
    FieldSync code on the crashed thread; None when the log shows no crash."""
    with open(log_path, errors="replace") as log:
        text = log.read()
    failure = re.search(r"\*\*\* (Swift runtime failure: [^*\n]*?) \*\*\*", text) or re.search(r"\*\*\* (Signal \d+)", text)
    if not failure:
        return None
    crashed = text.find("crashed:", failure.end())
    frame = re.search(r"0x[0-9a-f]+ ([^\n]*?) in fieldsync at (/[^\s<]+:\d+:\d+)", text[crashed:]) if crashed >= 0 else None
    where = f"{frame.group(1)} at {os.path.relpath(frame.group(2), ROOT)}" if frame else "no FieldSync frame in the backtrace"
    return f"{failure.group(1)} in {where}"


def main():
    options = arguments()
    shutil.rmtree(options.reports, ignore_errors=True)
    os.makedirs(options.reports)
    # Logins are part of the fuzzed surface; the production work factor would make each one cost
    # half a second of a core.
    os.environ.setdefault("FIELDSYNC_PASSWORD_ITERATIONS", "1000")
    started = time.monotonic()
    server = Server()
    try:
        server.add_user("fuzz-field", "field", team="fuzz-team")
        server.add_user("fuzz-dispatcher", "dispatcher")
        results = run_fuzzers(server, options)
        alive = server_answers(server)
    finally:
        shutil.copy(server.process.log_path, os.path.join(options.reports, "server.log"))
        server.stop()
    failed = False
    for role, (code, output) in results.items():
        print(f"===== schemathesis as the {role} device =====")
        print(output)
        failed = failed or code != 0
    print(f"server alive and healthy after the runs: {'yes' if alive else 'NO'}")
    crash = crash_summary(os.path.join(options.reports, "server.log"))
    if crash:
        print(f"server crash: {crash}")
    print(f"fuzzing took {time.monotonic() - started:.0f} s; reports in {options.reports}")
    return 1 if failed or not alive else 0


if __name__ == "__main__":
    sys.exit(main())

"""FieldSync's crash test: simulated devices push ops and upload photos while `fieldsync serve`
(and sometimes its embedded PostgreSQL) is killed with SIGKILL at random moments and started
again on the same data folder. Afterwards nothing acknowledged may be lost, applied twice or
half-applied, every photo acknowledged complete must download intact, and every pull, from
cursor 0 or from a cursor saved during the run, must come out complete and current.

Usage: .build/python/bin/python -E -s Tests/Faults/fault_run.py [--cycles 30] [--devices 6] [--seed N] [--keep]
(`make test-faults`; CI runs `make test-faults FAULT_CYCLES=5`). Prints its figures; exits 1 on
any violation.
"""

import argparse
import os
import random
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Harness"))
from fieldsync_server import ServerProcess  # noqa: E402  (found through the path set just above)

import checks  # noqa: E402
import leftovers  # noqa: E402
from device import Device, run_device  # noqa: E402
from expectations import TEAM, Applied  # noqa: E402
from report import Report  # noqa: E402
from wire import Endpoint, Gate, Unavailable, request  # noqa: E402

PASSWORD = "fault-password-1"
# What each cycle kills, in turn: the server alone, its PostgreSQL alone, or both at once.
KILLS = ["server", "postgres", "server", "both", "server"]
RECOVERY_SECONDS = 90
DRAIN_SECONDS = 300


class Run:
    """The server under test, the devices working against it, and what was seen."""

    def __init__(self, arguments, directory):
        self.rng = random.Random(arguments.seed)
        self.report, self.gate, self.endpoint = Report(), Gate(), Endpoint()
        self.server = ServerProcess(os.path.join(directory, "data"), os.path.join(directory, "server.log"),
                                    port=free_port(), environment={"FIELDSYNC_ADMIN_PASSWORD": "fault-admin-password",
                                                                   "FIELDSYNC_PASSWORD_ITERATIONS": "1000",
                                                                   "FIELDSYNC_LOG_LEVEL": "notice"})
        self.stop, self.draining = threading.Event(), threading.Event()
        self.devices, self.threads, self.snapshots = [], [], []
        self.postgres_recoveries, self.kills = [], []

    # MARK: - Setup

    def start(self, device_count):
        self.endpoint.base = self.server.start()
        self.server.add_user("office", "dispatcher", PASSWORD)
        # The office reads without pausing, so it has a gate of its own.
        self.office = Device("office", self.endpoint, Gate(), self.report, random.Random(self.rng.random()))
        self.office.sign_in("office", PASSWORD)
        self.office.patient = True
        for number in range(1, device_count + 1):
            self.server.add_user(f"field-{number}", "field", PASSWORD, team=TEAM)
            device = Device(str(number), self.endpoint, self.gate, self.report, random.Random(self.rng.random()))
            device.sign_in(f"field-{number}", PASSWORD)
            self.devices.append(device)
        for device in self.devices:
            thread = threading.Thread(target=run_device, args=(device, self), daemon=True)
            thread.start()
            self.threads.append(thread)

    # MARK: - Faults

    def cycle(self, number):
        time.sleep(self.rng.uniform(0.4, 3.0))
        kind = KILLS[(number - 1) % len(KILLS)]
        self.kills.append(kind)
        if kind == "server":
            self.server.kill()
            self.restart()
        elif kind == "both":
            self.kill_postmaster()
            self.server.kill()
            self.restart()
        else:
            self.kill_postgres_under_load()
        self.wait_until_healthy()
        self.gate.close()
        try:
            self.snapshots.append((number,) + checks.snapshot(self.office))
        finally:
            self.gate.open()
        print(f"cycle {number}: killed {kind}; snapshot at serverSeq {self.snapshots[-1][2]}", flush=True)

    def kill_postmaster(self):
        pid = self.server.postmaster_pid()
        if pid is None:
            raise RuntimeError("the server is healthy but no PostgreSQL runs on its data folder")
        os.kill(pid, signal.SIGKILL)
        return pid

    def kill_postgres_under_load(self):
        """Kills the postmaster and waits for the server to carry on with a new one, or to exit
        saying why (then it is started again, as a service manager would)."""
        killed, started = self.kill_postmaster(), time.monotonic()
        while time.monotonic() - started < RECOVERY_SECONDS:
            if not self.server.is_running:
                self.postgres_recoveries.append(("exited", time.monotonic() - started, self.last_log_lines()))
                self.restart()
                return
            if self.server.postmaster_pid() not in (None, killed) and self.is_healthy():
                self.postgres_recoveries.append(("carried on", time.monotonic() - started, ""))
                return
            time.sleep(0.2)
        self.report.violation(f"PostgreSQL killed: the server neither recovered nor exited within {RECOVERY_SECONDS} s; "
                              f"its last words: {self.last_log_lines()}")
        self.postgres_recoveries.append(("wedged", RECOVERY_SECONDS, ""))
        self.server.kill()
        self.restart()

    def restart(self):
        try:
            self.endpoint.base = self.server.start()
        except RuntimeError as error:
            if "in use" not in str(error):
                self.report.violation(f"restart on the same data folder failed: {error}")
            self.server.port = free_port()
            self.endpoint.base = self.server.start()

    def is_healthy(self):
        try:
            return request(self.endpoint, Gate(), "GET", "/v1/health").get("status") == "ok"
        except Unavailable:
            return False

    def wait_until_healthy(self):
        deadline = time.monotonic() + RECOVERY_SECONDS
        while not self.is_healthy():
            if time.monotonic() > deadline:
                raise RuntimeError("the restarted server never reported healthy")
            time.sleep(0.2)

    def last_log_lines(self, count=6):
        with open(self.server.log_path) as log:
            return " | ".join(line.strip() for line in log.readlines()[-count:])

    # MARK: - End

    def drain(self):
        """Stops new work and waits until every op is settled and every photo complete."""
        self.draining.set()
        deadline = time.monotonic() + DRAIN_SECONDS
        while not all(device.is_drained for device in self.devices):
            if time.monotonic() > deadline:
                self.report.violation(f"devices still had unsettled ops or uploads {DRAIN_SECONDS} s after the last restart")
                break
            time.sleep(0.2)
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=60)
        for device in self.devices:
            device.patient = True


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def verify(run):
    """The checks after the last restart; returns the figures to print."""
    records, final_seq = checks.snapshot(run.office)
    applied = Applied(run.devices)
    expected = applied.records()
    figures = {"final serverSeq": final_seq, "live records": len(expected)}
    checks.compare_snapshot("initial sync after the run", expected, records, run.report)
    figures["snapshots exact"] = sum(checks.compare_snapshot(f"snapshot after cycle {number}", applied.records(seq), held,
                                                             run.report) for number, held, seq in run.snapshots)
    duplicates, unaccounted = applied.sequence_faults(final_seq)
    if duplicates:
        run.report.violation(f"serverSeqs claimed by two ops: {duplicates[:20]}")
    figures.update({"duplicate serverSeqs": len(duplicates), "serverSeqs held by no op (cut transactions)": len(unaccounted)})
    figures["acknowledged ops"] = sum(1 for device in run.devices for op in device.ops if op.result)
    figures["found exactly once by replay"] = sum(checks.replay_acknowledged(device, run.report) for device in run.devices)
    if checks.snapshot(run.office)[1] != final_seq:
        run.report.violation("replaying acknowledged ops changed the server's sequence")
    figures["attachments acknowledged complete"] = sum(u.complete for device in run.devices for u in device.uploads)
    figures["attachments downloaded intact"] = sum(checks.download_attachments(device, run.report) for device in run.devices)
    figures["saved cursors followed"] = sum(checks.follow_saved_cursors(device, expected, run.report) for device in run.devices)
    return figures


def finish(run):
    """Stops the server gracefully: it must exit 0 and take its PostgreSQL with it."""
    status = run.server.stop()
    if status != 0:
        run.report.violation(f"graceful stop exited {status}: {run.last_log_lines()}")
    pid = run.server.postmaster_pid()
    if pid:
        run.report.violation(f"the embedded PostgreSQL (pid {pid}) was left running after a graceful stop")
        os.kill(pid, signal.SIGKILL)


def print_figures(run, figures, seconds):
    kinds = {kind: run.kills.count(kind) for kind in KILLS}
    print(f"\nfault run: {len(run.kills)} cycles ({kinds['server']} server kills, {kinds['postgres']} PostgreSQL kills, "
          f"{kinds['both']} of both), {len(run.devices)} devices, {seconds:.0f} s")
    for name, value in figures.items():
        print(f"  {name}: {value}")
    for outcome, seconds_taken, words in run.postgres_recoveries:
        print(f"  PostgreSQL killed: server {outcome} after {seconds_taken:.1f} s" + (f" ({words})" if words else ""))
    run.report.print_counts()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cycles", type=int, default=30, help="kill and restart cycles (default 30)")
    parser.add_argument("--devices", type=int, default=6, help="simulated devices (default 6)")
    parser.add_argument("--seed", type=int, default=random.randrange(1 << 32), help="for a repeatable schedule")
    parser.add_argument("--keep", action="store_true", help="keep the data folder and server log afterwards")
    arguments = parser.parse_args()
    directory = tempfile.mkdtemp(prefix="fieldsync-faults-")
    os.chmod(directory, 0o755)  # as root the cluster runs as `postgres`, which must reach the folder
    print(f"fault run: seed {arguments.seed}, data folder {directory}", flush=True)
    run, began = Run(arguments, directory), time.monotonic()
    try:
        run.start(arguments.devices)
        for number in range(1, arguments.cycles + 1):
            run.cycle(number)
        run.drain()
        figures = verify(run)
        finish(run)
        complete = {upload.sha256 for device in run.devices for upload in device.uploads if upload.complete}
        for kind, (count, size) in leftovers.survey(run.server.data_directory, run.server.spool_directory, complete).items():
            figures[f"left behind: {kind}"] = f"{count} files, {size} bytes"
        print_figures(run, figures, time.monotonic() - began)
    finally:
        run.stop.set()
        if run.server.is_running:
            run.server.kill()
        pid = run.server.postmaster_pid()
        if pid:
            os.kill(pid, signal.SIGKILL)
    failed = bool(run.report.violations)
    print(f"\n{len(run.report.violations)} violations" + (f"; server log and data kept in {directory}" if failed else ""))
    if not failed and not arguments.keep:
        shutil.rmtree(directory, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

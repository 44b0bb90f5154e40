"""A `fieldsync serve` process on a data folder of its own, for the Python test suites.

The binary is the one `swift build` produced (override with FIELDSYNC_BINARY). The server
always runs on its embedded PostgreSQL (DATABASE_URL is removed from its environment), so
stopping, killing and restarting it on the same data folder is what an operator's machine
would see.
"""

import hashlib
import os
import re
import signal
import subprocess
import tempfile
import threading

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BINARY = os.environ.get("FIELDSYNC_BINARY", os.path.join(ROOT, ".build", "debug", "fieldsync"))
STARTUP_SECONDS = 120


class ServerProcess:
    """One `fieldsync serve` at a time on `data_directory`; `start` may be called again after
    the previous process ended (stopped, crashed or killed), on the same folder."""

    def __init__(self, data_directory, log_path, port=0, environment=None):
        self.data_directory, self.log_path, self.port = data_directory, log_path, port
        self.environment = dict(os.environ, **(environment or {}))
        self.environment.pop("DATABASE_URL", None)  # always the embedded cluster, never a real database
        self.process, self.base = None, None

    @property
    def spool_directory(self):
        """Where the server spools request bodies: FIELDSYNC_SPOOL_DIR, else (as README says)
        `fieldsync-spool-<hash of the data folder's path>` in the system temp directory."""
        if self.environment.get("FIELDSYNC_SPOOL_DIR"):
            return self.environment["FIELDSYNC_SPOOL_DIR"]
        path = os.path.normpath(os.path.abspath(self.data_directory))
        return os.path.join(tempfile.gettempdir(), "fieldsync-spool-" + hashlib.sha256(path.encode()).hexdigest()[:16])

    def start(self):
        """Starts the server and waits until it listens; returns its base URL."""
        command = [BINARY, "serve", "--port", str(self.port), "--data-dir", self.data_directory]
        self.process = subprocess.Popen(command, env=self.environment, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True)
        self.base = self._wait_for_address()
        # Keep reading the server's output so it never blocks on a full pipe.
        threading.Thread(target=self._copy_log, args=(self.process,), daemon=True).start()
        return self.base

    def _wait_for_address(self):
        timer = threading.Timer(STARTUP_SECONDS, self.process.kill)
        timer.start()
        lines = []
        try:
            with open(self.log_path, "a") as log:
                for line in self.process.stdout:
                    lines.append(line)
                    log.write(line)
                    found = re.search(r"listening on (http://[\d.]+:\d+)", line)
                    if found:
                        return found.group(1)
        finally:
            timer.cancel()
        self.process.wait()
        raise RuntimeError(f"fieldsync serve did not start (exit {self.process.returncode}):\n" + "".join(lines[-40:]))

    def _copy_log(self, process):
        with open(self.log_path, "a") as log:
            for line in process.stdout:
                log.write(line)
                log.flush()

    def add_user(self, username, role, password, team=None):
        """Creates an account through the CLI, which reaches the running server's cluster."""
        command = [BINARY, "user", "add", "--username", username, "--role", role,
                   "--password", password, "--data-dir", self.data_directory]
        if team:
            command += ["--team", team]
        subprocess.run(command, check=True, capture_output=True, text=True, env=self.environment)

    @property
    def is_running(self):
        return self.process is not None and self.process.poll() is None

    def kill(self):
        """SIGKILL, as a crash or the OOM killer would: nothing is cleaned up."""
        self.process.kill()
        self.process.wait()

    def stop(self, timeout=60):
        """SIGTERM and wait for the graceful exit; returns the exit status (SIGKILL after `timeout`)."""
        if not self.is_running:
            return self.process.returncode if self.process else None
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()

    def postmaster_pid(self):
        """The embedded PostgreSQL's running postmaster, from its `postmaster.pid`; None when none
        runs (a dead server's pid may already belong to another process, never to be signalled)."""
        try:
            with open(os.path.join(self.data_directory, "postgres", "postmaster.pid")) as file:
                pid = int(file.readline())
            with open(f"/proc/{pid}/stat") as status:
                name, state = status.read().rsplit(")", 1)
        except (OSError, ValueError):
            return None
        return pid if name.endswith("(postgres") and not state.lstrip().startswith("Z") else None

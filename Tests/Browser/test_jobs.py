"""The jobs page and the dashboard's failure banner as an admin uses them: headless Chromium
against a real FieldSync server, with `fieldsync worker` processes running jobs beside it.

Run with `python3 -m unittest discover -s Tests/Browser` after `swift build`.
"""

import os
import secrets
import signal
import subprocess
import time
import unittest

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions

from harness import ADMIN_PASSWORD, Server, sign_in
from fieldsync_server import BINARY
from test_backoffice import BrowserTestCase

server = None


def setUpModule():
    global server
    server = Server()


def tearDownModule():
    server.stop()


class Jobs(BrowserTestCase):
    def setUp(self):
        super().setUp()
        sign_in(self.driver, self.base, "admin", ADMIN_PASSWORD)

    def worker(self, job):
        """`fieldsync worker --once --job JOB` on the server's data folder, as an operator runs it."""
        return subprocess.Popen([BINARY, "worker", "--once", "--job", job, "--data-dir", server.data_directory],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=server.process.environment)

    def rows(self, job):
        return self.driver.find_elements(By.CSS_SELECTOR, f"#job-{job} tr.job-run")

    def reload_until(self, condition, seconds=60):
        """Reloads the page until `condition` holds (a job runs on the worker's thread, not at once)."""
        deadline = time.monotonic() + seconds
        while not condition():
            self.assertLess(time.monotonic(), deadline, "condition not met in time")
            time.sleep(0.2)
            self.driver.refresh()

    def plant_orphan_blobs(self, count):
        """Blob files no attachment uses, two days old: the sweeps job removes them one by one."""
        old = time.time() - 2 * 86_400
        for _ in range(count):
            digest = secrets.token_hex(32)
            folder = os.path.join(server.data_directory, "blobs", digest[:2], digest[2:4])
            os.makedirs(folder, exist_ok=True)
            path = os.path.join(folder, digest)
            with open(path, "wb") as file:
                file.write(b"left over")
            os.utime(path, (old, old))

    def test_run_now_runs_a_job_and_its_new_run_appears(self):
        self.driver.get(self.base + "/admin/jobs")
        before = len(self.rows("retention"))
        self.follow(By.CSS_SELECTOR, "form[action='/admin/jobs/retention/run'] button")
        self.assertIn("retention starts now.", self.text(".notice"))
        self.reload_until(lambda: len(self.rows("retention")) > before
                          and "Succeeded" in self.rows("retention")[0].text)
        self.assertIn("admin", self.rows("retention")[0].text)
        self.shoot("jobs-run-now")
        self.assert_no_script_errors()

    def test_progress_moves_live_and_an_interrupted_run_is_flagged_until_marked_as_seen(self):
        self.plant_orphan_blobs(5_000)
        worker = self.worker("sweeps")
        self.addCleanup(lambda: worker.poll() is None and worker.kill())
        self.driver.get(self.base + "/admin/jobs")
        self.reload_until(lambda: self.driver.find_elements(By.CSS_SELECTOR, "#job-sweeps [data-job-run]"))
        # Held still while the page loads, so the page shows where the run is and the run goes
        # on only once the page follows it.
        worker.send_signal(signal.SIGSTOP)
        self.driver.refresh()
        page = self.driver.find_element(By.TAG_NAME, "html")
        first = self.text("#job-sweeps [data-progress-text]")
        started = time.monotonic()
        worker.send_signal(signal.SIGCONT)
        # The same page, not reloaded: the script moved the bar.
        self.wait(lambda d: d.find_element(By.CSS_SELECTOR, "#job-sweeps [data-progress-text]").text != first, seconds=60)
        worker.send_signal(signal.SIGKILL)
        print(f"\nsweeps progress: {first} -> {self.text('#job-sweeps [data-progress-text]')} live in {time.monotonic() - started:.1f} s")
        self.assertFalse(expected_conditions.staleness_of(page)(self.driver), "the page was reloaded")
        self.shoot("jobs-progress")
        worker.wait()

        self.driver.get(self.base + "/admin")
        self.assertEqual(self.driver.find_elements(By.CSS_SELECTOR, ".banner a[href='/admin/jobs']"), [],
                         "a run still marked running is not a failure yet")
        # The next run finds the killed one still marked running: it was interrupted.
        finishing = self.worker("sweeps")
        self.assertEqual(finishing.wait(timeout=300), 0)
        self.driver.refresh()
        banner = self.driver.find_element(By.CSS_SELECTOR, ".banner")
        self.assertIn("A job run was interrupted.", banner.text)
        self.assertIn("sweeps", banner.text)
        self.assertTrue(banner.find_elements(By.CSS_SELECTOR, "a[href='/admin/jobs']"))
        self.shoot("dashboard-job-banner")
        self.follow(By.CSS_SELECTOR, ".banner form[action='/admin/jobs/seen'] button")
        self.assertTrue(self.driver.current_url.endswith("/admin"))
        self.assertEqual(self.driver.find_elements(By.CSS_SELECTOR, ".banner form[action='/admin/jobs/seen']"), [])
        self.driver.get(self.base + "/admin/jobs")
        self.assertIn("Interrupted", self.rows("sweeps")[1].text)
        self.assert_no_script_errors()


if __name__ == "__main__":
    unittest.main()

"""What the browser tests drive: a FieldSync server on its own embedded PostgreSQL,
headless Chromium, and devices speaking the sync protocol over HTTP.

The server is `Tests/Harness/fieldsync_server.py`'s process (the binary `swift build`
produced, or FIELDSYNC_BINARY), started with `serve --port 0` on a throwaway data folder and
stopped with SIGTERM.
"""

import datetime
import json
import os
import shutil
import sys
import tempfile
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Harness"))
from fieldsync_server import ROOT, ServerProcess  # noqa: E402  (found through the path set just above)

ADMIN_PASSWORD = "browser-admin-password"
PASSWORD = "browser-password-1"


class Server:
    """`fieldsync serve` on a free loopback port and a private data folder, removed by `stop`."""

    def __init__(self):
        self.directory = tempfile.mkdtemp(prefix="fieldsync-browser-")
        # As root the cluster runs as `postgres`, which must be able to reach the folder.
        os.chmod(self.directory, 0o755)
        self.process = ServerProcess(os.path.join(self.directory, "data"), os.path.join(self.directory, "server.log"),
                                     environment={"FIELDSYNC_ADMIN_PASSWORD": ADMIN_PASSWORD})
        self.base = self.process.start()

    @property
    def data_directory(self):
        return self.process.data_directory

    def add_user(self, username, role, team=None):
        """Creates an account through the CLI, which reaches the running server's cluster."""
        self.process.add_user(username, role, PASSWORD, team)

    def stop(self):
        self.process.stop()
        shutil.rmtree(self.directory, ignore_errors=True)


def chromium(width=1280, height=900, javascript=True):
    """Headless Chromium from the system packages (chromium, chromium-driver)."""
    options = webdriver.ChromeOptions()
    if not javascript:
        options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--hide-scrollbars", f"--window-size={width},{height}", "--force-device-scale-factor=1"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # The system's browser and driver, so Selenium never tries to download its own.
    options.binary_location = shutil.which("chromium") or shutil.which("google-chrome") or ""
    return webdriver.Chrome(options=options, service=Service(executable_path=shutil.which("chromedriver")))


def sign_in(driver, base, username, password=PASSWORD):
    driver.get(base + "/login")
    driver.find_element(By.NAME, "username").send_keys(username)
    driver.find_element(By.NAME, "password").send_keys(password)
    driver.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
    WebDriverWait(driver, 10).until(lambda d: "/login" not in d.current_url or d.find_elements(By.CSS_SELECTOR, ".notice"))


def sign_out(driver):
    driver.find_element(By.CSS_SELECTOR, "form[action='/logout'] button").click()
    WebDriverWait(driver, 10).until(lambda d: "/login" in d.current_url)


def now():
    return datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


class Device:
    """A phone signed in through the device API, numbering its ops 1, 2, 3…"""

    def __init__(self, base, username, device_id, app_version="2.4.0", password=PASSWORD, platform="ios"):
        self.base, self.device_id, self.app_version, self.seq, self.token = base, device_id, app_version, 0, None
        body = {"username": username, "password": password, "deviceId": device_id,
                "platform": platform, "appVersion": app_version}
        self.token = self.call("POST", "/v1/auth/token", body)["token"]

    def call(self, method, path, body=None, headers=None):
        request = urllib.request.Request(self.base + path, method=method,
                                         data=None if body is None else json.dumps(body).encode())
        request.add_header("Content-Type", "application/json")
        request.add_header("X-App-Version", self.app_version)
        request.add_header("X-Device-Id", self.device_id)
        if self.token:
            request.add_header("Authorization", "Bearer " + self.token)
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())

    def push(self, kind, collection, record_id, values=None, base=None, old=None, client_seq=None):
        """Pushes one op (numbered next, or `client_seq` to leave a gap) and returns the push response."""
        self.seq = client_seq or self.seq + 1
        old = old or {}
        op = {"opId": f"{self.device_id}-{self.seq}", "clientSeq": self.seq, "collection": collection,
              "recordId": record_id, "type": kind, "baseServerSeq": base, "occurredAt": now(),
              "fields": {name: {"old": old.get(name), "new": value} for name, value in (values or {}).items()}}
        return self.call("POST", "/v1/sync/push", {"deviceId": self.device_id, "schemaVersion": 3, "ops": [op]})

    def pull(self):
        """Every change in scope from an initial sync, following pages to the end."""
        changes, cursor = [], None
        while True:
            page = self.call("GET", "/v1/sync/pull?limit=500" + ("&cursor=" + urllib.parse.quote(cursor) if cursor else ""))
            changes += page["changes"]
            if not page["hasMore"]:
                return changes, page
            cursor = page["nextCursor"]

    def record(self, collection, record_id):
        changes, _ = self.pull()
        return next(c for c in changes if c["collection"] == collection and c["recordId"] == record_id)

    def order(self, order_id, customer, lines, note=None):
        body = {"orderId": order_id, "customerId": customer, "lines": [{"sku": s, "qty": q} for s, q in lines]}
        if note:
            body["note"] = note
        return self.call("POST", "/v1/orders", body, {"Idempotency-Key": "order-" + order_id})

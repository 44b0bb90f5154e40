"""The back-office as a person uses it: headless Chromium against a real FieldSync
server, with devices pushing and pulling over the sync protocol.

Run with `python3 -m unittest discover -s Tests/Browser` after `swift build`.
Each test saves screenshots of the pages it visits under FIELDSYNC_SCREENSHOTS
(default .build/browser-screenshots), which is where a failure is easiest to read.
"""

import os
import time
import sys
import unittest
import urllib.error
import urllib.request
import uuid

from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

from harness import ADMIN_PASSWORD, PASSWORD, ROOT, Device, Server, chromium, sign_in, sign_out

SCREENSHOTS = os.environ.get("FIELDSYNC_SCREENSHOTS", os.path.join(ROOT, ".build", "browser-screenshots"))
server = None


def setUpModule():
    global server
    server = Server()
    for username, role, team in (("ana", "field", "north"), ("bruno", "field", "north"),
                                 ("carla", "field", "south"), ("diego", "supervisor", "north"),
                                 ("elena", "dispatcher", None)):
        server.add_user(username, role, team)


def tearDownModule():
    server.stop()


def unique(prefix):
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


class BrowserTestCase(unittest.TestCase):
    """A fresh Chromium (scripts on unless `javascript` is False) on the `server` of the module
    that defines the test class: each test module starts a server of its own."""
    javascript = True

    def setUp(self):
        self.base = sys.modules[type(self).__module__].server.base
        self.driver = chromium(javascript=self.javascript)
        self.addCleanup(self.driver.quit)

    def wait(self, condition, seconds=10, ignored=None):
        return WebDriverWait(self.driver, seconds, poll_frequency=0.02, ignored_exceptions=ignored).until(condition)

    def follow(self, by, value):
        """Clicks a link or submit button and waits until the next page has replaced this one."""
        page = self.driver.find_element(By.TAG_NAME, "html")
        self.click(self.driver.find_element(by, value))
        # While the old document unloads, Chromium may answer "Node with given id does not belong
        # to the document" instead of "stale": poll again, the next look sees it stale.
        self.wait(expected_conditions.staleness_of(page), ignored=(WebDriverException,))

    def click(self, element):
        # Centred first, so the sticky header never covers what is clicked.
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
        element.click()

    def text(self, selector):
        return self.driver.find_element(By.CSS_SELECTOR, selector).text

    def shoot(self, name):
        os.makedirs(SCREENSHOTS, exist_ok=True)
        self.driver.save_screenshot(os.path.join(SCREENSHOTS, name + ".png"))

    def assert_no_script_errors(self):
        errors = [entry["message"] for entry in self.driver.get_log("browser") if entry["level"] == "SEVERE"]
        self.assertEqual(errors, [])


class DispatcherConfirmsOrders(BrowserTestCase):
    def test_dispatcher_confirms_an_order_and_the_device_receives_it(self):
        ana = Device(self.base, "ana", unique("dev-ana"))
        order_id = unique("ORD")
        submitted = ana.order(order_id, "cust-0311", [("VALVE-22", 4), ("SEAL-8", 10)], "North depot")
        sign_in(self.driver, self.base, "elena")
        self.follow(By.LINK_TEXT, "Orders")
        self.shoot("orders")
        self.follow(By.LINK_TEXT, order_id)
        self.assertIn("Submitted", self.text(".page-header .badge"))
        self.assertIn("VALVE-22", self.text("table"))
        # Confirming is one click: the panel says what it does, and nothing asks again.
        self.follow(By.XPATH, "//button[contains(., 'Confirm order')]")
        self.wait(lambda d: "Confirmed" in d.find_element(By.CSS_SELECTOR, ".page-header .badge").text)
        self.assertIn("Order confirmed", self.text(".notice"))
        self.assertEqual(self.driver.find_elements(By.XPATH, "//button[contains(., 'Confirm order')]"), [])
        self.shoot("order-confirmed")

        change = ana.record("orders", order_id)
        self.assertEqual(change["payload"]["status"], "CONFIRMED")
        self.assertGreater(change["serverSeq"], submitted["serverSeq"])
        # Gone from the queue of orders to confirm.
        self.driver.get(self.base + "/admin/orders")
        self.assertEqual(self.driver.find_elements(By.LINK_TEXT, order_id), [])
        self.assert_no_script_errors()

    def test_dispatcher_rejects_an_order_with_a_reason(self):
        bruno = Device(self.base, "bruno", unique("dev-bruno"))
        order_id = unique("ORD")
        bruno.order(order_id, "cust-0578", [("METER-3", 1)])
        sign_in(self.driver, self.base, "elena")
        self.driver.get(self.base + "/admin/orders")
        self.follow(By.LINK_TEXT, order_id)
        self.driver.find_element(By.NAME, "reason").send_keys("Customer <b>closed</b> the site")
        self.follow(By.XPATH, "//button[contains(., 'Reject order')]")
        self.follow(By.CSS_SELECTOR, "form.actions button[type=submit]")
        self.wait(lambda d: "Rejected" in d.find_element(By.CSS_SELECTOR, ".page-header .badge").text)
        # The reason is shown as the text typed, never as markup.
        self.assertIn("Customer <b>closed</b> the site", self.text("dl.facts"))
        self.assertEqual(bruno.record("orders", order_id)["payload"]["rejectionReason"], "Customer <b>closed</b> the site")


class ConflictQueue(BrowserTestCase):
    def test_a_conflict_from_two_devices_is_resolved_field_by_field(self):
        ana = Device(self.base, "ana", unique("dev-ana"))
        bruno = Device(self.base, "bruno", unique("dev-bruno"))
        record_id = unique("rep")
        answers = {"pressure": "1.4 bar", "leak": "no"}
        created = ana.push("create", "reports", record_id, {"assignmentId": "as-118", "answers": answers})
        base = created["results"][0]["serverSeq"]
        bruno_answers = {"pressure": "1.1 bar", "leak": "yes"}
        bruno.push("update", "reports", record_id, {"answers": bruno_answers}, base=base, old={"answers": answers})
        ana_answers = {"pressure": "1.4 bar", "leak": "no", "signed": "M. Sousa"}
        pushed = ana.push("update", "reports", record_id, {"answers": ana_answers, "photos": ["att-1", "att-2"]},
                          base=base, old={"answers": answers})
        self.assertEqual(pushed["results"][0]["status"], "conflict")

        sign_in(self.driver, self.base, "elena")
        self.follow(By.LINK_TEXT, "Conflicts")
        self.shoot("conflicts")
        self.follow(By.LINK_TEXT, record_id)
        self.assertIn("Needs your review", self.text(".page-header"))
        changed = [row.find_element(By.CSS_SELECTOR, "th .mono").text
                   for row in self.driver.find_elements(By.CSS_SELECTOR, "table.compare tr.changed")]
        self.assertEqual(sorted(changed), ["answers", "photos"])
        self.shoot("conflict")
        # Keep the server's answers (Bruno's) but take the device's photos (Ana's).
        self.driver.find_element(By.CSS_SELECTOR, "input[name='pick.answers'][value=server]").click()
        self.driver.find_element(By.CSS_SELECTOR, "input[name='pick.photos'][value=device]").click()
        self.follow(By.CSS_SELECTOR, ".compare-form button[type=submit]")
        self.wait(lambda d: "Resolved" in d.find_element(By.CSS_SELECTOR, ".page-header").text)
        resolution = self.text(".resolution")
        self.assertIn("elena", resolution)
        self.shoot("conflict-resolved")

        payload = ana.record("reports", record_id)["payload"]
        self.assertEqual(payload["answers"], bruno_answers)
        self.assertEqual(payload["photos"], ["att-1", "att-2"])
        self.driver.get(self.base + "/admin/conflicts")
        self.assertEqual(self.driver.find_elements(By.LINK_TEXT, record_id), [])
        self.assert_no_script_errors()


class LiveFeed(BrowserTestCase):
    def test_the_dashboard_feed_shows_a_device_push_within_a_second(self):
        carla = Device(self.base, "carla", unique("dev-carla"))
        sign_in(self.driver, self.base, "admin", ADMIN_PASSWORD)
        self.wait(lambda d: "Connected" in d.find_element(By.CSS_SELECTOR, "[data-live-status]").text)
        record_id = unique("job")
        carla.push("create", "jobs", record_id, {"title": "Check pressure", "status": "in_progress"})
        pushed_at = time.monotonic()
        expected = f"Record jobs/{record_id} changed"
        self.wait(lambda d: expected in d.find_element(By.CSS_SELECTOR, "[data-live-rows]").text, seconds=1)
        print(f"\nlive feed: push answered to row shown in {(time.monotonic() - pushed_at) * 1000:.0f} ms")
        self.shoot("dashboard-feed")
        self.assert_no_script_errors()


class Settings(BrowserTestCase):
    def test_an_admin_raises_the_minimum_version_and_the_next_sync_carries_it(self):
        ana = Device(self.base, "ana", unique("dev-ana"), app_version="2.4.0")
        _, before = ana.pull()
        sign_in(self.driver, self.base, "admin", ADMIN_PASSWORD)
        self.driver.get(self.base + "/admin/settings")
        field = self.driver.find_element(By.NAME, "minSupportedAppVersion")
        self.assertNotEqual(before["minSupportedAppVersion"], "2.5.0")
        field.clear()
        field.send_keys("2.5.0")
        self.follow(By.CSS_SELECTOR, ".form-footer button[type=submit]")
        # A version change is previewed first: the devices below it, then the confirmed save.
        self.assertIn(ana.device_id, self.text("#preview-minimum"))
        self.follow(By.CSS_SELECTOR, "#preview-confirm button[type=submit]")
        self.wait(lambda d: "notice=" in d.current_url)
        self.assertIn("2.5.0", self.text("table"))  # the audit trail: old -> new, who, when
        self.shoot("settings")

        pushed = ana.push("create", "jobs", unique("job"), {"title": "After the upgrade notice"})
        self.assertEqual(pushed["minSupportedAppVersion"], "2.5.0")
        self.assertEqual(pushed["results"][0]["status"], "applied")  # below the minimum still syncs
        _, after = ana.pull()
        self.assertEqual(after["minSupportedAppVersion"], "2.5.0")
        # The sync centre flags the device as below the minimum.
        self.driver.get(self.base + "/admin/sync")
        row = self.driver.find_element(By.XPATH, f"//tr[contains(., '{ana.device_id}')]")
        self.assertIn("Below minimum", row.text)
        self.assert_no_script_errors()


class SettingsPreview(BrowserTestCase):
    def test_an_admin_changes_retention_sees_the_preview_with_figures_and_confirms(self):
        Device(self.base, "carla", unique("dev-carla")).push("create", "jobs", unique("job"), {"title": "Kept"})
        sign_in(self.driver, self.base, "admin", ADMIN_PASSWORD)
        self.driver.get(self.base + "/admin/settings")
        field = self.driver.find_element(By.NAME, "tombstoneRetentionDays")
        field.clear()
        field.send_keys("45")
        self.follow(By.CSS_SELECTOR, ".form-footer button[type=submit]")
        self.assertIn("Check before saving", self.text("h1"))
        self.assertIn("Keep deletions for", self.text("#preview-changes"))
        figures = {row.get_attribute("data-rule"): int(row.find_element(By.CSS_SELECTOR, "td.num").text.replace(",", ""))
                   for row in self.driver.find_elements(By.CSS_SELECTOR, "#preview-retention tr[data-rule]")}
        self.assertIn("last synced more than 45 days ago", self.text("#preview-redownload-summary"))
        self.shoot("settings-preview")
        # The page's figures are the admin API's for the same values.
        admin = Device(self.base, "admin", unique("dev-admin"), password=ADMIN_PASSWORD)
        preview = admin.call("GET", "/v1/admin/preview/settings?tombstoneRetentionDays=45")
        self.assertEqual(figures, preview["retention"]["deletions"])
        self.assertEqual(set(figures), {"opResults", "tombstones", "scopeExits", "idempotencyKeys", "webSessions", "deviceTokens"})

        self.follow(By.CSS_SELECTOR, "#preview-confirm button[type=submit]")
        self.wait(lambda d: "notice=saved" in d.current_url)
        self.assertIn("Settings saved", self.text(".notice"))
        self.assertEqual(self.driver.find_element(By.NAME, "tombstoneRetentionDays").get_attribute("value"), "45")
        self.assertIn("Keep deletions for", self.text("table"))  # audited
        self.assert_no_script_errors()

    def test_cancelling_the_preview_changes_nothing(self):
        sign_in(self.driver, self.base, "admin", ADMIN_PASSWORD)
        self.driver.get(self.base + "/admin/settings")
        before = self.driver.find_element(By.NAME, "opResultRetentionDays").get_attribute("value")
        field = self.driver.find_element(By.NAME, "opResultRetentionDays")
        field.clear()
        field.send_keys(str(int(before) + 7))
        self.follow(By.CSS_SELECTOR, ".form-footer button[type=submit]")
        self.follow(By.LINK_TEXT, "Cancel")
        self.assertEqual(self.driver.find_element(By.NAME, "opResultRetentionDays").get_attribute("value"), before)


class WithoutJavaScript(BrowserTestCase):
    javascript = False

    def test_a_dispatcher_settles_a_conflict_and_an_order_with_scripts_off(self):
        ana = Device(self.base, "ana", unique("dev-ana"))
        bruno = Device(self.base, "bruno", unique("dev-bruno"))
        record_id, order_id = unique("rep"), unique("ORD")
        answers = {"pressure": "1.4 bar"}
        base = ana.push("create", "reports", record_id, {"assignmentId": "as-7", "answers": answers})["results"][0]["serverSeq"]
        bruno.push("update", "reports", record_id, {"answers": {"pressure": "1.0 bar"}}, base=base, old={"answers": answers})
        ana.push("update", "reports", record_id, {"answers": {"pressure": "2.0 bar"}}, base=base, old={"answers": answers})
        ana.order(order_id, "cust-0311", [("VALVE-22", 1)])

        sign_in(self.driver, self.base, "elena")
        self.assertIn("needs JavaScript", self.text("[data-live-status]"))  # the one part that needs it says so
        self.driver.get(self.base + "/admin/conflicts")
        self.follow(By.LINK_TEXT, record_id)
        self.follow(By.XPATH, "//button[contains(., 'Take device version')]")
        self.assertIn("Resolved", self.text(".page-header"))
        self.assertEqual(ana.record("reports", record_id)["payload"]["answers"], {"pressure": "2.0 bar"})

        self.driver.get(self.base + "/admin/orders")
        self.follow(By.LINK_TEXT, order_id)
        self.follow(By.XPATH, "//button[contains(., 'Confirm order')]")
        self.assertIn("Confirmed", self.text(".page-header .badge"))


class UsersAndDevices(BrowserTestCase):
    def test_an_admin_creates_a_user_signs_out_a_device_suspends_and_resets_the_password(self):
        username = unique("fiona")
        sign_in(self.driver, self.base, "admin", ADMIN_PASSWORD)
        self.follow(By.LINK_TEXT, "Users & devices")
        self.driver.find_element(By.NAME, "username").send_keys(username)
        self.driver.find_element(By.CSS_SELECTOR, "select[name=role] option[value=field]").click()
        self.driver.find_element(By.NAME, "team").send_keys("east")
        self.driver.find_element(By.NAME, "password").send_keys(PASSWORD)
        self.follow(By.XPATH, "//button[contains(., 'Create user')]")
        self.assertEqual(self.text("h1"), username)
        self.assertIn("can now sign in", self.text(".notice"))
        user_page = self.driver.current_url.split("?")[0]

        phone = Device(self.base, username, unique("dev-fiona"))
        self.driver.get(user_page)
        row = self.driver.find_element(By.XPATH, f"//tr[contains(., '{phone.device_id}')]")
        self.assertIn("Active", row.text)
        self.follow(By.XPATH, f"//tr[contains(., '{phone.device_id}')]//a[contains(., 'Sign out')]")
        self.shoot("confirm-device-sign-out")
        self.follow(By.XPATH, "//button[contains(., 'Sign out device')]")
        row = self.driver.find_element(By.XPATH, f"//tr[contains(., '{phone.device_id}')]")
        self.assertIn("Signed out", row.text)
        with self.assertRaises(urllib.error.HTTPError) as refused:
            phone.pull()
        self.assertEqual(refused.exception.code, 401)

        self.follow(By.PARTIAL_LINK_TEXT, "Suspend")
        self.follow(By.CSS_SELECTOR, "form.actions button[type=submit]")
        self.assertIn("Suspended", self.text(".page-header"))
        with self.assertRaises(urllib.error.HTTPError) as suspended:
            Device(self.base, username, unique("dev-fiona"))
        self.assertEqual(suspended.exception.code, 403)
        self.follow(By.XPATH, "//button[contains(., 'Reactivate')]")
        self.assertIn("Active", self.text(".page-header"))

        new_password = "another-password-2"
        for name in ("password", "repeat"):
            self.driver.find_element(By.NAME, name).send_keys(new_password)
        self.follow(By.XPATH, "//button[contains(., 'Change password')]")
        self.assertIn("Password changed", self.text(".notice"))
        Device(self.base, username, unique("dev-fiona"), password=new_password)
        self.assert_no_script_errors()


class SyncCentreAndTeam(BrowserTestCase):
    def test_a_dispatcher_reads_a_device_journal_filters_it_exports_it_and_follows_a_record(self):
        ana = Device(self.base, "ana", unique("dev-ana"))
        job = unique("job")
        ana.push("create", "jobs", job, {"title": "Replace valve", "status": "in_progress"})
        refused = ana.push("create", "jobs", unique("job"), {"title": "Meter swap", "labor_minutes": -5})
        self.assertEqual(refused["results"][0]["status"], "rejected")
        sign_in(self.driver, self.base, "elena")
        self.follow(By.LINK_TEXT, "Sync centre")
        self.follow(By.LINK_TEXT, ana.device_id)
        journal = self.text("table")
        self.assertIn(f"{ana.device_id}-1", journal)
        self.assertIn(f"{ana.device_id}-2", journal)
        self.follow(By.CSS_SELECTOR, ".segmented a[href*='status=rejected']")
        journal = self.text("table")
        self.assertIn(f"{ana.device_id}-2", journal)
        self.assertNotIn(f"{ana.device_id}-1", journal)
        self.shoot("sync-device")

        csv = self.download(self.driver.find_element(By.PARTIAL_LINK_TEXT, "Export CSV").get_attribute("href"))
        self.assertIn(f"{ana.device_id}-2", csv)
        self.driver.get(self.base + "/admin/sync/devices/" + ana.device_id)
        self.follow(By.LINK_TEXT, job)
        self.assertIn(f"{ana.device_id}-1", self.text("table"))
        self.shoot("sync-record")

    def test_a_supervisor_sees_only_their_team_in_the_roll_up(self):
        Device(self.base, "ana", unique("dev-ana")).push("create", "jobs", unique("job"), {"title": "North job"})
        Device(self.base, "carla", unique("dev-carla")).push("create", "jobs", unique("job"), {"title": "South job"})
        sign_in(self.driver, self.base, "diego")
        self.follow(By.LINK_TEXT, "Team")
        members = self.text("table.table")  # the members; the chart before them keeps its figures in a table too
        self.assertIn("ana", members)
        self.assertIn("bruno", members)
        self.assertNotIn("carla", members)
        self.shoot("team")
        self.driver.get(self.base + "/admin/team?team=south")
        self.assertNotIn("carla", self.driver.find_element(By.TAG_NAME, "main").text)

    def download(self, url):
        """Fetches a link with the browser's session cookie, as the browser's download would."""
        request = urllib.request.Request(url)
        request.add_header("Cookie", "; ".join(f"{c['name']}={c['value']}" for c in self.driver.get_cookies()))
        with urllib.request.urlopen(request, timeout=30) as response:
            self.assertEqual(response.status, 200)
            return response.read().decode()


class RolesAndPages(BrowserTestCase):
    PAGES = ("/admin", "/admin/orders", "/admin/conflicts", "/admin/sync", "/admin/team?team=north",
             "/admin/users", "/admin/devices", "/admin/settings")

    def test_every_page_renders_for_an_admin_on_a_laptop_and_a_tablet(self):
        sign_in(self.driver, self.base, "admin", ADMIN_PASSWORD)
        for width, height in ((1280, 900), (820, 1180)):
            self.driver.set_window_size(width, height)
            for path in self.PAGES:
                self.driver.get(self.base + path)
                self.assertTrue(self.text("h1"), path)
                overflow = self.driver.execute_script(
                    "return document.documentElement.scrollWidth - document.documentElement.clientWidth")
                self.assertLessEqual(overflow, 0, f"{path} scrolls sideways at {width}px")
        self.assert_no_script_errors()

    def test_a_supervisor_reads_their_team_and_is_refused_admin_pages(self):
        sign_in(self.driver, self.base, "diego")
        self.driver.get(self.base + "/admin/team")
        self.assertIn("north", self.driver.find_element(By.TAG_NAME, "main").text)
        self.driver.get(self.base + "/admin/settings")
        self.assertIn("403", self.driver.title + self.text("main"))
        self.shoot("forbidden")
        self.driver.get(self.base + "/admin/orders")
        self.assertEqual(self.driver.find_elements(By.NAME, "reason"), [])
        sign_out(self.driver)

    def test_a_field_user_cannot_sign_in(self):
        sign_in(self.driver, self.base, "ana")
        self.assertIn("/login", self.driver.current_url)
        self.driver.get(self.base + "/admin")
        self.assertIn("/login", self.driver.current_url)


if __name__ == "__main__":
    unittest.main()

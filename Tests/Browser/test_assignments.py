"""Assignments from the office as a dispatcher uses them: headless Chromium against a real
FieldSync server, with field users' phones pulling over the device API.

Run with `python3 -m unittest discover -s Tests/Browser` after `swift build`.
"""

import unittest
import urllib.parse

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from harness import Device, Server, sign_in
from test_backoffice import BrowserTestCase

server = None


def setUpModule():
    global server
    server = Server()
    server.add_user("dina", "dispatcher")
    server.add_user("ana", "field", "north")
    server.add_user("bo", "field", "south")


def tearDownModule():
    server.stop()


def pull_from(device, cursor):
    """One pull page after `cursor`: the changes since the device's last sync."""
    return device.call("GET", "/v1/sync/pull?limit=500&cursor=" + urllib.parse.quote(cursor))


class Assignments(BrowserTestCase):
    def setUp(self):
        super().setUp()
        sign_in(self.driver, self.base, "dina")

    def fill(self, name, value):
        field = self.driver.find_element(By.NAME, name)
        field.clear()
        field.send_keys(value)

    def test_moving_an_assignment_reaches_both_phones(self):
        ana = Device(self.base, "ana", "ana-phone-browser")
        bo = Device(self.base, "bo", "bo-phone-browser")

        self.driver.get(self.base + "/admin")
        self.follow(By.CSS_SELECTOR, "nav a[href='/admin/assignments']")
        self.follow(By.LINK_TEXT, "New assignment")
        self.fill("title", "Inspect roof drains")
        self.fill("siteId", "site-40")
        self.fill("assignee", "ana")
        self.fill("team", "north")
        Select(self.driver.find_element(By.NAME, "status")).select_by_value("open")
        self.follow(By.CSS_SELECTOR, "form.stack button[type=submit]")
        self.assertIn("Assignment created.", self.text(".notice"))
        record_id = self.driver.current_url.split("/admin/assignments/assignments/")[1].split("?")[0]

        changes, ana_page = ana.pull()
        self.assertIn(record_id, [c["recordId"] for c in changes if c["collection"] == "assignments"])
        _, bo_page = bo.pull()
        self.assertNotIn(record_id, [c["recordId"] for c in bo_page["changes"]])

        # The move: another field user in another team, in the record's form.
        self.fill("assignee", "bo")
        self.fill("team", "south")
        self.follow(By.CSS_SELECTOR, "form.stack button[type=submit]")
        self.assertIn("Saved.", self.text(".notice"))
        self.assertEqual(self.driver.find_element(By.NAME, "assignee").get_attribute("value"), "bo")

        bo_changes = pull_from(bo, bo_page["nextCursor"])["changes"]
        moved = [c for c in bo_changes if c["recordId"] == record_id]
        self.assertEqual([c["type"] for c in moved], ["upsert"])
        self.assertEqual(moved[0]["payload"]["title"], "Inspect roof drains")
        self.assertEqual(moved[0]["payload"]["teamId"], "south")
        ana_changes = pull_from(ana, ana_page["nextCursor"])["changes"]
        self.assertEqual([c["type"] for c in ana_changes if c["recordId"] == record_id], ["remove"])

        # The list filtered by the new field user shows it; by the old one, not.
        self.driver.get(self.base + "/admin/assignments?user=bo")
        self.assertIn("Inspect roof drains", self.text("#assignment-list"))
        self.driver.get(self.base + "/admin/assignments?user=ana")
        self.assertEqual(self.driver.find_elements(By.ID, "assignment-list"), [])
        self.assert_no_script_errors()

    def test_an_unknown_user_is_refused_next_to_the_field(self):
        self.driver.get(self.base + "/admin/assignments/new")
        self.fill("title", "Check meters")
        self.fill("assignee", "nobody-here")
        self.follow(By.CSS_SELECTOR, "form.stack button[type=submit]")
        error = self.driver.find_element(By.ID, "assignment-assignee-error")
        self.assertIn("No user is named “nobody-here”", error.text)
        self.assertEqual(self.driver.find_element(By.NAME, "assignee").get_attribute("aria-invalid"), "true")
        self.assertEqual(self.driver.find_element(By.NAME, "title").get_attribute("value"), "Check meters")


if __name__ == "__main__":
    unittest.main()

"""Charts and search in the back-office, in headless Chromium against a real server: each
chart is drawn with its text alternatives (with and without JavaScript), and the header's
search box finds a record, a device, a user and an order, within the viewer's team.
"""

import re
import unittest
import urllib.parse
import uuid

from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions

from harness import ADMIN_PASSWORD, Device, Server, sign_in
from test_backoffice import BrowserTestCase

server = None
seeded = {}


def unique(prefix):
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


def setUpModule():
    global server
    server = Server()
    for username, role, team in (("ana", "field", "north"), ("bruno", "field", "north"), ("carla", "field", "south"),
                                 ("diego", "supervisor", "north"), ("elena", "dispatcher", None)):
        server.add_user(username, role, team)
    # Applied ops of both teams, one rejected op, one open conflict and one order.
    ana = Device(server.base, "ana", unique("dev-ana"))
    bruno = Device(server.base, "bruno", unique("dev-bruno"))
    carla = Device(server.base, "carla", unique("dev-carla"))
    north_job, south_job, report, order = unique("job-north"), unique("job-south"), unique("rep"), unique("ORD")
    ana.push("create", "jobs", north_job, {"title": "Replace valve", "status": "in_progress"})
    ana.push("create", "jobs", unique("job"), {"title": "Meter swap", "labor_minutes": -5})
    carla.push("create", "jobs", south_job, {"title": "Check pressure", "status": "in_progress"})
    answers = {"pressure": "1.4 bar"}
    base = ana.push("create", "reports", report, {"assignmentId": "as-1", "answers": answers})["results"][0]["serverSeq"]
    bruno.push("update", "reports", report, {"answers": {"pressure": "1.1 bar"}}, base=base, old={"answers": answers})
    pushed = ana.push("update", "reports", report, {"answers": {"pressure": "1.5 bar"}}, base=base, old={"answers": answers})
    assert pushed["results"][0]["status"] == "conflict", pushed
    ana.order(order, "cust-7781", [("VALVE-22", 2)])
    seeded.update(north_job=north_job, south_job=south_job, order=order, ana_device=ana.device_id, carla_device=carla.device_id)


def tearDownModule():
    server.stop()


class ChartsAndSearchCase(BrowserTestCase):
    def wait(self, condition, seconds=10):
        return super().wait(condition, seconds, ignored=(WebDriverException,))

    def submit_search(self, text):
        page = self.driver.find_element(By.TAG_NAME, "html")
        box = self.driver.find_element(By.CSS_SELECTOR, "header form[role=search] input[name=q]")
        box.clear()
        box.send_keys(text)
        self.driver.find_element(By.CSS_SELECTOR, "header form[role=search] button[type=submit]").click()
        self.wait(expected_conditions.staleness_of(page))

    def group_links(self, heading):
        """The hits' link texts under the results group `heading`; None when there is no such group."""
        for section in self.driver.find_elements(By.CSS_SELECTOR, "section.search-group"):
            if section.find_element(By.TAG_NAME, "h2").text.startswith(heading):
                return [link.text for link in section.find_elements(By.CSS_SELECTOR, "a")]
        return None


class Charts(ChartsAndSearchCase):
    javascript = False

    def assert_chart(self, chart_id, row_label=None):
        svg = self.driver.find_element(By.CSS_SELECTOR, f"svg[aria-labelledby='{chart_id}-title {chart_id}-desc']")
        self.assertEqual(svg.get_attribute("role"), "img")
        self.assertTrue(svg.is_displayed())
        self.assertGreater(svg.size["width"], 200)
        self.assertGreater(svg.size["height"], 50)
        title = self.driver.find_element(By.ID, f"{chart_id}-title").get_attribute("textContent")
        description = self.driver.find_element(By.ID, f"{chart_id}-desc").get_attribute("textContent")
        self.assertTrue(title.strip() and description.strip())
        table = svg.find_element(By.XPATH, "following-sibling::table")
        self.assertIn("visually-hidden", table.get_attribute("class"))
        self.assertEqual(table.find_element(By.TAG_NAME, "caption").get_attribute("textContent"), title)
        rows = table.find_elements(By.CSS_SELECTOR, "tbody tr")
        self.assertGreater(len(rows), 0)
        if row_label:
            labels = [row.find_element(By.TAG_NAME, "th").get_attribute("textContent") for row in rows]
            self.assertIn(row_label, labels)
        return svg, description

    def test_each_page_draws_its_chart_with_a_title_a_description_and_a_table(self):
        sign_in(self.driver, self.base, "admin", ADMIN_PASSWORD)
        self.driver.get(self.base + "/admin")
        svg, description = self.assert_chart("chart-outcomes")
        self.assertGreater(len(svg.find_elements(By.CSS_SELECTOR, "rect.series-applied")), 0)
        self.assertRegex(description, r"\d+ applied, 1 rejected and 1 in conflict")
        self.driver.get(self.base + "/admin/team?team=north")
        self.assert_chart("chart-outcomes")
        self.driver.get(self.base + "/admin/sync")
        _, description = self.assert_chart("chart-sync-age", "Under 1 hour")
        self.assertIn("Never: 0", description)
        self.driver.get(self.base + "/admin/conflicts")
        svg, description = self.assert_chart("chart-conflict-age", "reports")
        self.assertIn("1 open conflict in 1 collection", description)
        self.assertEqual(len(svg.find_elements(By.CSS_SELECTOR, "rect.series-age-0")), 1)

    def applied_ops(self):
        """The dashboard chart's count of applied ops, checking the other outcomes on the way."""
        self.driver.get(self.base + "/admin")
        _, description = self.assert_chart("chart-outcomes")
        match = re.match(r"(\d+) applied, 1 rejected and 1 in conflict", description)
        self.assertIsNotNone(match, description)
        return int(match.group(1))

    def test_a_supervisor_sees_the_team_figures_only(self):
        sign_in(self.driver, self.base, "admin", ADMIN_PASSWORD)
        everyone = self.applied_ops()
        self.driver.delete_all_cookies()
        sign_in(self.driver, self.base, "diego")
        # North's ops only: carla's job in the south is not counted.
        self.assertEqual(self.applied_ops(), everyone - 1)
        self.driver.get(self.base + "/admin/sync")
        _, description = self.assert_chart("chart-sync-age")
        self.assertIn("Under 1 hour: 2;", description)


class Search(ChartsAndSearchCase):
    def test_the_header_box_finds_a_record_a_device_a_user_and_an_order(self):
        sign_in(self.driver, self.base, "admin", ADMIN_PASSWORD)
        self.submit_search(seeded["north_job"].upper())
        self.assertEqual(self.group_links("Records"), [f"jobs · {seeded['north_job']}"])
        self.assertEqual(self.driver.find_element(By.NAME, "q").get_attribute("value"), seeded["north_job"].upper())
        page = self.driver.find_element(By.TAG_NAME, "html")
        self.driver.find_element(By.LINK_TEXT, f"jobs · {seeded['north_job']}").click()
        self.wait(expected_conditions.staleness_of(page))
        self.assertEqual(urllib.parse.unquote(self.driver.current_url), f"{self.base}/admin/sync/records/jobs/{seeded['north_job']}")

        self.submit_search(seeded["carla_device"])
        self.assertEqual(self.group_links("Devices"), [seeded["carla_device"]])
        self.submit_search("arl")
        self.assertEqual(self.group_links("Users"), ["carla"])
        self.submit_search(seeded["order"])
        self.assertEqual(self.group_links("Orders"), [seeded["order"]])
        self.submit_search("cust-778")
        self.assertEqual(self.group_links("Orders"), [seeded["order"]])

    def test_a_supervisor_does_not_find_another_teams_record_or_device(self):
        sign_in(self.driver, self.base, "diego")
        self.submit_search(seeded["south_job"])
        self.assertEqual(self.group_links("Records"), [])
        self.assertIn("No records match.", self.driver.find_element(By.CSS_SELECTOR, "main").text)
        self.submit_search(seeded["carla_device"])
        self.assertEqual(self.group_links("Devices"), [])
        self.submit_search(seeded["north_job"])
        self.assertEqual(self.group_links("Records"), [f"jobs · {seeded['north_job']}"])
        self.assertIsNone(self.group_links("Orders"))

    def test_hostile_text_is_refused_in_words(self):
        sign_in(self.driver, self.base, "elena")
        self.driver.get(self.base + "/admin/search?q=" + "x" * 101)
        self.assertIn("at most 100 characters", self.driver.find_element(By.CSS_SELECTOR, "[role=alert]").text)
        self.submit_search("%_")
        self.assertEqual(self.group_links("Records"), [])


if __name__ == "__main__":
    unittest.main()

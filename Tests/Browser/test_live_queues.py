"""The live queues: the order queue, the conflict queue and the dashboard counters follow the
live feed while open (headless Chromium against a real server, devices over HTTP), and the
same pages still work with JavaScript off.

Every wait polls with a deadline; a page that reloaded instead of updating loses the marker
`window.liveMarker` set after it loaded, which the tests check.
"""

import time
import unittest
import uuid

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By

from harness import ADMIN_PASSWORD, Device, Server, sign_in
from test_backoffice import BrowserTestCase

server = None


def setUpModule():
    global server
    server = Server()
    for username, role, team in (("ana", "field", "north"), ("bruno", "field", "north"),
                                 ("carla", "field", "south"), ("dario", "field", "south"),
                                 ("diego", "supervisor", "north"), ("elena", "dispatcher", None)):
        server.add_user(username, role, team)


def tearDownModule():
    server.stop()


def unique(prefix):
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


def make_conflict(first, second, collection="reports"):
    """Two devices change the same field of one record from the same base: the second is held
    for review. Returns (record id, conflict id)."""
    record_id = unique("rep")
    created = first.push("create", collection, record_id, {"assignmentId": "as-1", "answers": {"q1": "yes"}})
    base = created["results"][0]["serverSeq"]
    first.push("update", collection, record_id, {"answers": {"q1": "no"}}, base=base, old={"answers": {"q1": "yes"}})
    held = second.push("update", collection, record_id, {"answers": {"q1": "maybe"}}, base=base,
                       old={"answers": {"q1": "yes"}})
    result = held["results"][0]
    assert result["status"] == "conflict", result
    return record_id, result["conflictId"]


class LiveTestCase(BrowserTestCase):
    def wait(self, condition, seconds=10):
        # The region is replaced while polled: a stale element means "look again".
        return super().wait(condition, seconds, ignored=(StaleElementReferenceException,))

    def region(self, name):
        return self.driver.find_element(By.CSS_SELECTOR, f"[data-live-region='{name}']")

    def region_text(self, name):
        return self.region(name).text

    def mark_loaded_page(self):
        self.driver.execute_script("window.liveMarker = 'still the same page';")

    def assert_not_reloaded(self):
        self.assertEqual(self.driver.execute_script("return window.liveMarker;"), "still the same page")

    def card(self, label):
        """The number on the dashboard card labelled `label`."""
        for card in self.driver.find_elements(By.CSS_SELECTOR, "[data-live-region='dashboard-cards'] .card"):
            if card.find_element(By.CSS_SELECTOR, ".card-label").text == label:
                return int(card.find_element(By.CSS_SELECTOR, ".card-value").text.replace(",", ""))
        raise AssertionError(f"no card {label}")


class OrderQueue(LiveTestCase):
    def test_a_submitted_order_appears_and_a_decided_one_leaves_without_a_reload(self):
        ana = Device(self.base, "ana", unique("dev-ana"))
        waiting = unique("ORD")
        ana.order(waiting, "cust-0100", [("VALVE-22", 1)])
        sign_in(self.driver, self.base, "elena")
        self.driver.get(self.base + "/admin/orders")
        self.assertIn(waiting, self.region_text("orders"))
        submitted = lambda: int(self.region("orders-count-SUBMITTED").get_attribute("textContent").split("(")[1].rstrip(")"))
        before = submitted()
        self.mark_loaded_page()

        arriving = unique("ORD")
        ana.order(arriving, "cust-0200", [("SEAL-8", 3)])
        answered_at = time.monotonic()
        self.wait(lambda d: arriving in self.region_text("orders"))
        print(f"\nlive order queue: order answered to row shown in {(time.monotonic() - answered_at) * 1000:.0f} ms")
        self.assert_not_reloaded()
        self.wait(lambda d: submitted() == before + 1)
        row = self.driver.find_element(By.LINK_TEXT, arriving).find_element(By.XPATH, "ancestor::tr")
        self.assertIn("live-added", row.get_attribute("class"))
        self.assertIn("cust-0200", row.text)
        self.shoot("live-orders-arrived")

        # Decided elsewhere: a dispatcher's phone confirms one, the queue drops it.
        office = Device(self.base, "elena", unique("dev-elena"))
        office.call("POST", f"/v1/orders/{waiting}/confirm")
        self.wait(lambda d: waiting not in self.region_text("orders"))
        self.assertIn(arriving, self.region_text("orders"))
        self.wait(lambda d: submitted() == before)
        self.assert_not_reloaded()
        self.assert_no_script_errors()

    def test_focus_stays_on_the_link_it_was_on_when_the_queue_changes(self):
        ana = Device(self.base, "ana", unique("dev-ana"))
        kept = unique("ORD")
        ana.order(kept, "cust-0300", [("PUMP-1", 1)])
        sign_in(self.driver, self.base, "elena")
        self.driver.get(self.base + "/admin/orders")
        self.driver.execute_script("arguments[0].focus();", self.driver.find_element(By.LINK_TEXT, kept))
        arriving = unique("ORD")
        ana.order(arriving, "cust-0301", [("PUMP-2", 1)])
        self.wait(lambda d: arriving in self.region_text("orders"))
        self.assertEqual(self.driver.switch_to.active_element.text, kept)


class ConflictQueue(LiveTestCase):
    def test_a_new_conflict_appears_and_a_resolved_one_leaves(self):
        ana = Device(self.base, "ana", unique("dev-ana"))
        bruno = Device(self.base, "bruno", unique("dev-bruno"))
        sign_in(self.driver, self.base, "elena")
        self.driver.get(self.base + "/admin/conflicts")
        total = int(self.region_text("conflicts-total").replace(",", ""))
        self.mark_loaded_page()

        record_id, conflict_id = make_conflict(bruno, ana)
        self.wait(lambda d: record_id in self.region_text("conflicts"))
        self.wait(lambda d: self.region_text("conflicts-total") == str(total + 1))
        self.assert_not_reloaded()
        self.shoot("live-conflicts-arrived")

        # The author settles it from the phone; the queue drops it and the count goes back.
        ana.call("POST", f"/v1/conflicts/{conflict_id}/resolve", {"choice": "server"})
        self.wait(lambda d: record_id not in self.region_text("conflicts"))
        self.wait(lambda d: self.region_text("conflicts-total") == str(total))
        self.assert_not_reloaded()
        self.assert_no_script_errors()


class DashboardCounters(LiveTestCase):
    def test_a_supervisors_conflict_count_follows_its_own_team_only(self):
        ana = Device(self.base, "ana", unique("dev-ana"))
        bruno = Device(self.base, "bruno", unique("dev-bruno"))
        carla = Device(self.base, "carla", unique("dev-carla"))
        dario = Device(self.base, "dario", unique("dev-dario"))
        sign_in(self.driver, self.base, "diego")
        self.wait(lambda d: "Connected" in d.find_element(By.CSS_SELECTOR, "[data-live-status]").text)
        before = self.card("Open conflicts")
        self.mark_loaded_page()

        # Another team's conflict first, then one of diego's team: the card counts only the second.
        make_conflict(carla, dario)
        north_record, _ = make_conflict(bruno, ana)
        self.wait(lambda d: north_record in d.find_element(By.CSS_SELECTOR, "[data-live-rows]").text)
        self.wait(lambda d: self.card("Open conflicts") != before)
        self.assertEqual(self.card("Open conflicts"), before + 1)
        self.assert_not_reloaded()
        self.shoot("live-dashboard-counter")
        self.assert_no_script_errors()

    def test_feed_rows_link_to_what_they_are_about(self):
        ana = Device(self.base, "ana", unique("dev-ana"))
        sign_in(self.driver, self.base, "admin", ADMIN_PASSWORD)
        self.wait(lambda d: "Connected" in d.find_element(By.CSS_SELECTOR, "[data-live-status]").text)
        order_id = unique("ORD")
        ana.order(order_id, "cust-0400", [("VALVE-1", 2)])
        # Ids may hold ":" and "." ("[A-Za-z0-9._:-]"); ".." would be read as a step up the path.
        record_id = unique("job:2026.x")
        ana.push("create", "jobs", record_id, {"title": "Check pressure", "status": "in_progress"})
        ana.push("create", "jobs", "..", {"title": "Odd id", "status": "in_progress"})
        rows = lambda: self.driver.find_element(By.CSS_SELECTOR, "[data-live-rows]")
        self.wait(lambda d: "Record jobs/.. changed" in rows().text)

        order_link = rows().find_element(By.PARTIAL_LINK_TEXT, f"Order {order_id}")
        self.assertEqual(order_link.get_attribute("pathname"), f"/admin/orders/{order_id}")
        device_links = rows().find_elements(By.PARTIAL_LINK_TEXT, f"Device {ana.device_id}")
        self.assertTrue(device_links and device_links[0].get_attribute("pathname") == f"/admin/sync/devices/{ana.device_id}")
        odd = [row for row in rows().find_elements(By.TAG_NAME, "li") if "Record jobs/.. changed" in row.text]
        self.assertEqual(odd[0].find_elements(By.TAG_NAME, "a"), [])

        record_link = rows().find_element(By.PARTIAL_LINK_TEXT, f"Record jobs/{record_id}")
        record_link.click()
        self.wait(lambda d: "/admin/sync/records/" in d.current_url)
        self.assertIn(record_id, self.driver.find_element(By.TAG_NAME, "h1").text)
        self.assert_no_script_errors()


class QueuesWithoutJavaScript(LiveTestCase):
    javascript = False

    def test_the_order_queue_shows_a_new_order_after_a_reload(self):
        ana = Device(self.base, "ana", unique("dev-ana"))
        sign_in(self.driver, self.base, "elena")
        self.driver.get(self.base + "/admin/orders")
        order_id = unique("ORD")
        ana.order(order_id, "cust-0500", [("METER-3", 1)])
        self.driver.refresh()
        self.assertIn(order_id, self.region_text("orders"))
        self.driver.get(self.base + "/admin/conflicts")
        self.assertIn("open in all", self.driver.find_element(By.CSS_SELECTOR, ".page-header").text)
        self.shoot("live-orders-no-script")


if __name__ == "__main__":
    unittest.main()

"""Fast order confirmation in the back-office, in headless Chromium against a real FieldSync
server: one click per order from the queue, and "Confirm selected" for many at once, with an
order decided elsewhere between the page and the decision.

Run with `python3 -m unittest discover -s Tests/Browser` after `swift build`.
"""

import unittest
import uuid

from selenium.webdriver.common.by import By

from harness import Device, Server, sign_in
from test_backoffice import BrowserTestCase

server = None


def setUpModule():
    global server
    server = Server()
    for username, role, team in (("ana", "field", "north"), ("elena", "dispatcher", None), ("maria", "dispatcher", None)):
        server.add_user(username, role, team)


def tearDownModule():
    server.stop()


def unique(prefix):
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


class ConfirmationTestCase(BrowserTestCase):
    def statuses(self, device, order_ids):
        changes, _ = device.pull()
        return {c["recordId"]: c["payload"]["status"] for c in changes if c["collection"] == "orders" and c["recordId"] in order_ids}


class ConfirmSelected(ConfirmationTestCase):
    def test_fifty_orders_confirmed_at_once_name_the_one_rejected_meanwhile(self):
        ana = Device(self.base, "ana", unique("dev-ana"))
        maria = Device(self.base, "maria", unique("dev-maria"))
        batch = unique("BULK")
        order_ids = [f"{batch}-{index:02d}" for index in range(50)]
        for index, order_id in enumerate(order_ids):
            ana.order(order_id, f"cust-{index:03d}", [("VALVE-22", index + 1)])

        sign_in(self.driver, self.base, "elena")
        self.driver.get(self.base + "/admin/orders")
        for order_id in order_ids:
            self.click(self.driver.find_element(By.CSS_SELECTOR, f"input[name=order][value='{order_id}']"))
        self.follow(By.XPATH, "//button[contains(., 'Confirm selected')]")

        # One "are you sure?" page lists every chosen order with its customer; nothing changed yet.
        self.assertEqual(self.text("h1"), "Confirm 50 orders?")
        items = [item.text for item in self.driver.find_elements(By.CSS_SELECTOR, ".confirm-items li")]
        self.assertEqual(items, [f"{order_id} customer cust-{index:03d}" for index, order_id in enumerate(order_ids)])
        self.shoot("orders-confirm-selected")
        self.assertEqual(set(self.statuses(ana, order_ids).values()), {"SUBMITTED"})

        # Meanwhile another dispatcher rejects one of them through the device API.
        rejected = order_ids[17]
        maria.call("POST", f"/v1/orders/{rejected}/reject", {"reason": "Customer cancelled by phone"})

        self.follow(By.CSS_SELECTOR, "form.actions button[type=submit]")
        self.assertEqual(self.text("h1"), "49 orders confirmed")
        self.assertEqual(self.text(".notice"), f"49 confirmed; {rejected} was already rejected by maria.")
        others = self.driver.find_elements(By.CSS_SELECTOR, "#already-decided tbody tr")
        self.assertEqual([[cell.text for cell in row.find_elements(By.TAG_NAME, "td")] for row in others],
                         [[rejected, "cust-017", "Rejected", "maria"]])
        self.assertEqual(len(self.driver.find_elements(By.CSS_SELECTOR, "#confirmed-orders tbody tr")), 49)
        self.shoot("orders-confirmed")

        # The phone that sent them pulls 49 confirmations and the rejection.
        statuses = self.statuses(ana, order_ids)
        self.assertEqual(statuses.pop(rejected), "REJECTED")
        self.assertEqual(set(statuses.values()), {"CONFIRMED"})
        self.assertEqual(len(statuses), 49)
        # None of them waits in the queue any more.
        self.driver.get(self.base + "/admin/orders")
        self.assertEqual(self.driver.find_elements(By.CSS_SELECTOR, f"input[value^='{batch}']"), [])
        errors = [entry["message"] for entry in self.driver.get_log("browser") if entry["level"] == "SEVERE"]
        self.assertEqual(errors, [])


class OneClickWithoutJavaScript(ConfirmationTestCase):
    javascript = False

    def test_an_order_is_confirmed_with_one_click_from_the_queue(self):
        ana = Device(self.base, "ana", unique("dev-ana"))
        order_id, waiting = unique("ORD"), unique("ORD")
        submitted = ana.order(order_id, "cust-0311", [("VALVE-22", 4)])
        ana.order(waiting, "cust-0312", [("SEAL-8", 2)])

        sign_in(self.driver, self.base, "elena")
        self.driver.get(self.base + "/admin/orders")
        self.follow(By.CSS_SELECTOR, f"button[aria-label='Confirm order {order_id}']")

        # Back on the queue, which says what happened; the next order waits there.
        self.assertTrue(self.driver.current_url.endswith("/admin/orders?confirmed=" + order_id))
        self.assertIn(f"Order {order_id} confirmed", self.text(".notice"))
        self.assertEqual(self.driver.find_elements(By.LINK_TEXT, order_id), [])
        self.assertEqual(len(self.driver.find_elements(By.LINK_TEXT, waiting)), 1)
        change = ana.record("orders", order_id)
        self.assertEqual(change["payload"]["status"], "CONFIRMED")
        self.assertGreater(change["serverSeq"], submitted["serverSeq"])
        self.assertEqual(ana.record("orders", waiting)["payload"]["status"], "SUBMITTED")


if __name__ == "__main__":
    unittest.main()

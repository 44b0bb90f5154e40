"""Accessibility checked by a tool and by hand: axe-core (from axe-selenium-python) on every
back-office page as each role sees it, and the two daily decisions, confirming an order and
resolving a conflict, made with the keyboard alone.

Run with `python3 -m unittest discover -s Tests/Browser` after `swift build`.
"""

import unittest
import urllib.parse
import uuid
from typing import Callable, NamedTuple, Optional

from axe_selenium_python import Axe
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

from harness import ADMIN_PASSWORD, PASSWORD, Device, Server, chromium, sign_in
from test_backoffice import BrowserTestCase
from test_photos import PHOTO, upload

ADMIN, DISPATCHER, SUPERVISOR, SIGNED_OUT = "admin", "dispatcher", "supervisor", "signed out"
STAFF = (ADMIN, DISPATCHER, SUPERVISOR)
DESK = (ADMIN, DISPATCHER)
ACCOUNTS = {ADMIN: ("admin", ADMIN_PASSWORD), DISPATCHER: ("elena", PASSWORD), SUPERVISOR: ("diego", PASSWORD)}
# The impacts that fail the build; axe's "moderate" and "minor" findings are left to judgment.
BLOCKING = ("serious", "critical")
# Violations only: the passes axe reports by default are most of its answer's size.
RESULTS = '{"resultTypes": ["violations"]}'


def press(driver, button):
    """Presses the button whose text contains `button` and waits for the page it leads to."""
    page = driver.find_element(By.TAG_NAME, "html")
    driver.find_element(By.XPATH, f"//button[contains(., '{button}')]").click()
    WebDriverWait(driver, 10, ignored_exceptions=(WebDriverException,)).until(expected_conditions.staleness_of(page))


def fill_and_press(field, value, button):
    """A step towards a page only a form leads to: types `value` into the field named `field`,
    then presses `button`."""
    def step(driver):
        element = driver.find_element(By.NAME, field)
        element.clear()
        element.send_keys(value)
        press(driver, button)
    return step


class Page(NamedTuple):
    name: str
    # The address; {names} are the fixtures made in setUpModule.
    path: str
    roles: tuple
    # What a person does on `path` to reach the page checked, when it is not a plain GET.
    then: Optional[Callable] = None
    error: bool = False


# Every page of the back-office, once per role that can open it. A new page is one row here.
PAGES = (
    Page("sign-in", "/login", (SIGNED_OUT,)),
    Page("dashboard", "/admin", STAFF),
    Page("order queue", "/admin/orders", DESK),
    Page("order queue, all selected", "/admin/orders?select=all", DESK),
    Page("confirming selected orders: are you sure?", "/admin/orders?select=all", DESK,
         then=lambda driver: press(driver, "Confirm selected")),
    Page("rejected orders", "/admin/orders?status=rejected", DESK),
    Page("open order", "/admin/orders/{order}", DESK),
    Page("decided order", "/admin/orders/{rejected}", DESK),
    Page("rejecting an order: are you sure?", "/admin/orders/{order}", DESK,
         then=fill_and_press("reason", "Customer closed the site", "Reject order")),
    Page("conflict queue", "/admin/conflicts", DESK),
    Page("open conflict", "{conflict}", DESK),
    Page("resolved conflict", "{resolved}", DESK),
    Page("sync centre", "/admin/sync", STAFF),
    Page("device journal", "/admin/sync/devices/{device}", STAFF),
    Page("record history", "/admin/sync/records/reports/{record}", STAFF),
    Page("record history with photos", "/admin/sync/records/reports/{photographed}", STAFF),
    Page("search", "/admin/search?q=ana", STAFF),
    Page("assignments", "/admin/assignments", DESK),
    Page("new assignment", "/admin/assignments/new", DESK),
    Page("assignment", "{assignment}", DESK),
    Page("team roll-up", "/admin/team?team=north", (ADMIN, SUPERVISOR)),
    Page("users", "/admin/users", (ADMIN,)),
    Page("user", "{user}", (ADMIN,)),
    Page("suspending a user: are you sure?", "{user}/suspend", (ADMIN,)),
    Page("devices", "/admin/devices", (ADMIN,)),
    Page("every sign-in", "/admin/devices?show=all", (ADMIN,)),
    Page("signing out a device: are you sure?", "{revoke}", (ADMIN,)),
    Page("settings", "/admin/settings", (ADMIN,)),
    Page("settings preview", "/admin/settings", (ADMIN,),
         then=fill_and_press("tombstoneRetentionDays", "61", "Save settings")),
    Page("settings refused", "/admin/settings", (ADMIN,),
         then=fill_and_press("tombstoneRetentionDays", "2", "Save settings")),
    Page("jobs", "/admin/jobs", (ADMIN,)),
    Page("not allowed", "/admin/settings", (DISPATCHER, SUPERVISOR), error=True),
    Page("not found", "/admin/orders/ORD-none", DESK, error=True),
)

server = None
fixtures = {}


def setUpModule():
    global server
    server = Server()
    for username, role, team in (("ana", "field", "north"), ("bruno", "field", "north"),
                                 ("diego", "supervisor", "north"), ("elena", "dispatcher", None)):
        server.add_user(username, role, team)
    ana = Device(server.base, "ana", unique("dev-ana"))
    bruno = Device(server.base, "bruno", unique("dev-bruno"))
    fixtures.update(device=ana.device_id, order=unique("ORD"), rejected=unique("ORD"))
    ana.order(fixtures["order"], "cust-0311", [("VALVE-22", 4), ("SEAL-8", 10)], "North depot")
    ana.order(fixtures["rejected"], "cust-0578", [("METER-3", 1)])
    fixtures["record"], resolved = make_conflict(ana, bruno), make_conflict(ana, bruno)
    fixtures["photographed"] = unique("rep")
    ana.push("create", "reports", fixtures["photographed"], {"assignmentId": "as-9", "photos": ["att-a11y-1", "att-a11y-2"]})
    upload(ana, "att-a11y-1", PHOTO, fixtures["photographed"])
    upload(ana, "att-a11y-2", PHOTO, fixtures["photographed"], finish=False)

    driver = chromium()
    try:
        sign_in(driver, server.base, "admin", ADMIN_PASSWORD)
        driver.get(server.base + "/admin/conflicts")
        fixtures["conflict"] = path_of(driver, By.LINK_TEXT, fixtures["record"])
        fixtures["resolved"] = path_of(driver, By.LINK_TEXT, resolved)
        driver.get(server.base + "/admin/users")
        fixtures["user"] = path_of(driver, By.LINK_TEXT, "ana")
        driver.get(server.base + "/admin/devices")
        fixtures["revoke"] = path_of(driver, By.XPATH, f"//tr[contains(., '{ana.device_id}')]//a[contains(., 'Sign out')]")
        driver.get(server.base + fixtures["resolved"])
        press(driver, "Take device version")
        driver.get(server.base + "/admin/orders/" + fixtures["rejected"])
        fill_and_press("reason", "Duplicate of an earlier order", "Reject order")(driver)
        press(driver, "Reject order")
        driver.get(server.base + "/admin/assignments/new")
        for name, value in (("title", "Inspect roof drains"), ("siteId", "site-40"), ("assignee", "ana"), ("team", "north")):
            driver.find_element(By.NAME, name).send_keys(value)
        press(driver, "Create")
        fixtures["assignment"] = urllib.parse.urlsplit(driver.current_url).path
    finally:
        driver.quit()


def tearDownModule():
    server.stop()


def unique(prefix):
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


def make_conflict(ana, bruno):
    """A report both devices edited from the same version: Ana's edit waits for review."""
    record_id = unique("rep")
    answers = {"pressure": "1.4 bar", "leak": "no"}
    base = ana.push("create", "reports", record_id, {"assignmentId": "as-118", "answers": answers})["results"][0]["serverSeq"]
    bruno.push("update", "reports", record_id, {"answers": {"pressure": "1.1 bar", "leak": "yes"}}, base=base, old={"answers": answers})
    pushed = ana.push("update", "reports", record_id, {"answers": {"pressure": "1.4 bar", "leak": "no", "signed": "M. Sousa"}},
                      base=base, old={"answers": answers})
    assert pushed["results"][0]["status"] == "conflict", pushed
    return record_id


def path_of(driver, by, value):
    return urllib.parse.urlsplit(driver.find_element(by, value).get_attribute("href")).path


class SignedInTestCase(BrowserTestCase):
    """A fresh browser on this module's server, signed in as `role` (or not, SIGNED_OUT)."""
    role = SIGNED_OUT

    def setUp(self):
        super().setUp()
        if self.role in ACCOUNTS:
            sign_in(self.driver, self.base, *ACCOUNTS[self.role])


class AxeOnEveryPage:
    """axe-core finds no serious or critical violation on any page the role can open."""

    def test_no_serious_or_critical_violation_on_any_page(self):
        axe = Axe(self.driver)
        pages = [page for page in PAGES if self.role in page.roles]
        self.assertTrue(pages)
        for page in pages:
            path = page.path.format(**fixtures)
            where = f"{page.name} ({path}) as {self.role}"
            with self.subTest(page=page.name, role=self.role):
                self.driver.get(self.base + path)
                if page.then:
                    page.then(self.driver)
                self.assertEqual(bool(self.driver.find_elements(By.CSS_SELECTOR, ".status-code")), page.error,
                                 f"{where}: {self.driver.title}")
                axe.inject()
                violations = [v for v in axe.run(options=RESULTS)["violations"] if v["impact"] in BLOCKING]
                if violations:
                    self.fail("\n" + "\n".join(describe(where, v) for v in violations))


def describe(where, violation):
    """The rule broken and, for each offending node, its selector and what axe says is wrong."""
    nodes = "\n".join(f"    {' '.join(node['target'])}: {summary(node)}" for node in violation["nodes"])
    return f"{where}: {violation['id']} ({violation['impact']}) {violation['help']}\n{nodes}"


def summary(node):
    lines = [line.strip() for line in (node.get("failureSummary") or "").splitlines() if line.strip()]
    return "; ".join(lines[1:] or lines)


class AxeSignedOut(AxeOnEveryPage, SignedInTestCase):
    role = SIGNED_OUT


class AxeAdmin(AxeOnEveryPage, SignedInTestCase):
    role = ADMIN


class AxeDispatcher(AxeOnEveryPage, SignedInTestCase):
    role = DISPATCHER


class AxeSupervisor(AxeOnEveryPage, SignedInTestCase):
    role = SUPERVISOR


def button(text):
    """Matches the focused button whose visible text starts with `text`."""
    return lambda focused: focused["tag"] == "button" and focused["text"].startswith(text)


def link(text):
    return lambda focused: focused["tag"] == "a" and focused["text"] == text


def radio(name):
    return lambda focused: focused["name"] == name


class KeyboardOnly(SignedInTestCase):
    """An order confirmed and a conflict resolved with Tab, Shift+Tab, arrows, Space and Enter
    alone (never a click), every focus stop on the way visibly marked."""

    TAB_LIMIT = 80

    def setUp(self):
        super().setUp()
        self.ana = Device(self.base, "ana", unique("dev-ana"))
        self.driver.get(self.base + "/login")  # the user name field has autofocus
        self.assertEqual(self.driver.switch_to.active_element.get_attribute("name"), "username")
        self.keys("elena", Keys.TAB, PASSWORD)
        self.leave_with(Keys.ENTER)
        self.assertNotIn("/login", self.driver.current_url)

    def keys(self, *keys, shift=False):
        actions = ActionChains(self.driver)
        if shift:
            actions.key_down(Keys.SHIFT)
        actions.send_keys(*keys)
        if shift:
            actions.key_up(Keys.SHIFT)
        actions.perform()

    def leave_with(self, *keys):
        """Presses keys that lead to another page and waits until it has replaced this one."""
        page = self.driver.find_element(By.TAG_NAME, "html")
        self.keys(*keys)
        self.wait(expected_conditions.staleness_of(page), ignored=(WebDriverException,))

    def focused(self):
        """The focused element, what identifies it, and whether its focus shows (an outline or a
        box shadow while it matches :focus-visible), read in one round trip."""
        return self.driver.execute_script("""
            const element = document.activeElement, style = getComputedStyle(element);
            const outline = style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0;
            return {tag: element.tagName.toLowerCase(), text: element.innerText.trim(), name: element.name || "",
                    value: element.value || "", checked: !!element.checked, html: element.outerHTML.slice(0, 160),
                    visible: element.matches(":focus-visible") && (outline || style.boxShadow !== "none")};""")

    def tab_to(self, wanted, backwards=False):
        """Tabs (Shift+Tab when `backwards`) until `wanted(focused)` holds, checking the focus
        is visible at every stop."""
        for _ in range(self.TAB_LIMIT):
            self.keys(Keys.TAB, shift=backwards)
            focused = self.focused()
            self.assertTrue(focused["visible"], f"no visible focus on {focused['html']!r}")
            if wanted(focused):
                return focused
        self.fail(f"not reached with {self.TAB_LIMIT} key presses")

    def test_a_dispatcher_confirms_an_order_with_the_keyboard(self):
        order_id = unique("ORD")
        self.ana.order(order_id, "cust-0311", [("VALVE-22", 4)])
        self.tab_to(link("Orders"))  # from the dashboard's navigation
        self.leave_with(Keys.ENTER)
        self.tab_to(link(order_id))
        self.leave_with(Keys.ENTER)
        self.assertIn(order_id, self.text("h1"))
        self.tab_to(button("Confirm"))
        self.leave_with(Keys.ENTER)
        if self.driver.find_elements(By.CSS_SELECTOR, "section.confirm"):  # an "Are you sure?" page asks first
            self.tab_to(button("Confirm"))
            self.leave_with(Keys.ENTER)
        self.assertEqual(self.ana.record("orders", order_id)["payload"]["status"], "CONFIRMED")
        self.driver.get(self.base + "/admin/orders/" + order_id)
        self.assertIn("Confirmed", self.text(".page-header .badge"))
        self.assert_no_script_errors()

    def test_a_dispatcher_resolves_a_conflict_field_by_field_with_the_keyboard(self):
        bruno = Device(self.base, "bruno", unique("dev-bruno"))
        record_id = unique("rep")
        answers = {"pressure": "1.4 bar"}
        base = self.ana.push("create", "reports", record_id, {"assignmentId": "as-7", "answers": answers})["results"][0]["serverSeq"]
        bruno.push("update", "reports", record_id, {"answers": {"pressure": "1.1 bar"}}, base=base, old={"answers": answers})
        pushed = self.ana.push("update", "reports", record_id, {"answers": {"pressure": "2.0 bar"}, "photos": ["att-1"]},
                               base=base, old={"answers": answers})
        self.assertEqual(pushed["results"][0]["status"], "conflict")

        self.tab_to(link("Conflicts"))
        self.leave_with(Keys.ENTER)
        self.tab_to(link(record_id))
        self.leave_with(Keys.ENTER)
        # Keep the server's answers (Space on the group's first radio), take the device's photos
        # (the arrow moves to the group's second radio and selects it).
        answer = self.tab_to(radio("pick.answers"))
        self.assertEqual(answer["value"], "server")
        self.keys(Keys.SPACE)
        self.tab_to(radio("pick.photos"))
        self.keys(Keys.ARROW_RIGHT)
        photos = self.focused()
        self.assertEqual((photos["name"], photos["value"], photos["checked"]), ("pick.photos", "device", True))
        # Back to the answers to check the choice held, then on to the save button.
        answer = self.tab_to(radio("pick.answers"), backwards=True)
        self.assertEqual((answer["value"], answer["checked"]), ("server", True))
        self.tab_to(button("Save my choices"))
        self.leave_with(Keys.ENTER)
        self.assertIn("Resolved", self.text(".page-header"))
        payload = self.ana.record("reports", record_id)["payload"]
        self.assertEqual(payload["answers"], {"pressure": "1.1 bar"})
        self.assertEqual(payload["photos"], ["att-1"])
        self.assert_no_script_errors()


if __name__ == "__main__":
    unittest.main()

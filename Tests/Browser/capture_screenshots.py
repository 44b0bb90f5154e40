"""Screenshots of the FieldSync back-office, taken with headless Chromium.

Usage (against a running server, e.g. `fieldsync serve --port 8099`; needs Debian's
chromium and chromium-driver, and the project's Python environment, which
`scripts/python-env` creates in .build/python):

    .build/python/bin/python Tests/Browser/capture_screenshots.py --base http://127.0.0.1:8099 \
        --password "$FIELDSYNC_ADMIN_PASSWORD" [--seed]

--seed first creates demo users through the back-office forms, signs demo
devices in through the device API and pushes field work from them (including
two conflicts that need review, a held op and rejected ones), so the pages have
something to show.
Pictures are written to docs/screenshots.
"""

import argparse
import datetime
import os
import struct
import zlib

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from harness import ROOT, Device, chromium, sign_in, sign_out
from test_photos import upload

SCREENSHOTS = os.path.join(ROOT, "docs", "screenshots")

DEMO_USERS = [
    # username, role, team
    ("ana.silva", "field", "north"),
    ("bruno.costa", "field", "north"),
    ("carla.mendes", "field", "south"),
    ("diego.ramos", "supervisor", "north"),
    ("elena.vidal", "dispatcher", ""),
    ("farid.haddad", "field", "south"),
]
DEMO_PASSWORD = "demo-password-1"


def shoot(driver, name, full_page=True):
    if full_page:
        # Grow the window until the viewport holds the whole document.
        size = driver.get_window_size()
        chrome = size["height"] - driver.execute_script("return window.innerHeight")
        height = driver.execute_script("return document.documentElement.scrollHeight")
        driver.set_window_size(size["width"], max(height + chrome, 900))
    path = os.path.join(SCREENSHOTS, name + ".png")
    driver.save_screenshot(path)
    print("wrote", path)


def inspection_photo(width=320, height=240):
    """A PNG standing in for a site photo: a sky-to-ground gradient with a dark boiler block."""
    rows = []
    for y in range(height):
        row = bytearray([0])  # filter: none
        for x in range(width):
            if 120 <= x < 200 and 70 <= y < 200:
                row += bytes((70, 74, 82))
            elif y < height // 2:
                row += bytes((150 + y // 3, 190 + y // 6, 235))
            else:
                row += bytes((120, 140 - (y - height // 2) // 4, 90))
        rows.append(bytes(row))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"".join(rows)))
            + chunk(b"IEND", b""))


def seed(driver, base):
    for username, role, team in DEMO_USERS:
        driver.get(base + "/admin/users")
        if driver.find_elements(By.LINK_TEXT, username):
            continue  # seeded by an earlier run
        driver.find_element(By.NAME, "username").send_keys(username)
        driver.find_element(By.CSS_SELECTOR, f"select[name=role] option[value={role}]").click()
        driver.find_element(By.NAME, "team").send_keys(team)
        driver.find_element(By.NAME, "password").send_keys(DEMO_PASSWORD)
        driver.find_element(By.CSS_SELECTOR, "#new-user button[type=submit]").click()
        WebDriverWait(driver, 10).until(lambda d: "/admin/users/" in d.current_url)
    driver.get(base + "/admin/devices")
    listed = driver.page_source
    devices = {}
    for index, (username, role, _) in enumerate(DEMO_USERS):
        if role != "field" or f"dev-{4410 + index}" in listed:
            continue
        version = "2.1.0" if username == "farid.haddad" else f"2.{3 + index % 2}.0"
        devices[username] = Device(base, username, f"dev-{4410 + index}", version, DEMO_PASSWORD,
                                   "android" if index % 2 else "ios")
    if devices:
        push_field_work(devices)
    driver.get(base + "/admin/settings")
    if "No changes yet" in driver.page_source:
        for name, value in (("minSupportedAppVersion", "2.2.0"), ("maxOpsPerPush", "40")):
            field = driver.find_element(By.NAME, name)
            field.clear()
            field.send_keys(value)
        driver.find_element(By.CSS_SELECTOR, ".form-footer button[type=submit]").click()
        # A new minimum version is saved through its preview of the devices it affects.
        WebDriverWait(driver, 10).until(lambda d: "Confirm and save" in d.page_source)
        shoot(driver, "settings-preview")
        driver.find_element(By.XPATH, "//button[contains(., 'Confirm and save')]").click()
        WebDriverWait(driver, 10).until(lambda d: "notice=" in d.current_url)


def push_field_work(devices):
    """Field work from the demo devices: records, edits, two review conflicts, a held op and rejected ones."""
    ana, bruno = devices["ana.silva"], devices["bruno.costa"]
    carla, farid = devices["carla.mendes"], devices["farid.haddad"]
    report = {"assignmentId": "as-118", "answers": {"boiler_pressure": "1.4 bar", "leak_visible": "no", "signed_by": "J. Pereira"}}
    created = ana.push("create", "reports", "rep-2041", report)["results"][0]["serverSeq"]
    ana.push("create", "jobs", "job-4471", {"title": "Replace boiler valve", "status": "in_progress", "labor_minutes": 90})
    ana.push("create", "visits", "visit-3310", {"siteId": "site-77", "notes": "Gate code 4412"})
    bruno.push("update", "reports", "rep-2041", {"answers": {"boiler_pressure": "1.1 bar", "leak_visible": "yes",
                                                             "signed_by": "J. Pereira"}}, base=created)
    ana.push("update", "reports", "rep-2041", {"answers": {"boiler_pressure": "1.4 bar", "leak_visible": "no",
                                                           "signed_by": "M. Sousa"}, "photos": ["att-5501", "att-5502"]},
             base=created, old={"answers": report["answers"]})
    upload(ana, "att-5501", inspection_photo(), "rep-2041")
    upload(ana, "att-5502", b"the second photo, still on its way", "rep-2041", finish=False)
    south = {"assignmentId": "as-204", "answers": {"meter_reading": "20417", "seal_intact": "yes"}}
    created = carla.push("create", "reports", "rep-2077", south)["results"][0]["serverSeq"]
    farid.push("update", "reports", "rep-2077", {"answers": {"meter_reading": "20471", "seal_intact": "yes"}}, base=created)
    carla.push("update", "reports", "rep-2077", {"answers": {"meter_reading": "20417", "seal_intact": "no"}},
               base=created, old={"answers": south["answers"]})
    carla.push("create", "part_usage", "pu-881", {"job_id": "job-5120", "sku": "VALVE-22", "qty": 2})
    carla.push("update", "jobs", "job-9999", {"status": "complete"}, base=1)
    farid.push("create", "jobs", "job-5120", {"title": "Meter swap", "labor_minutes": -5})
    farid.push("update", "jobs", "job-5120", {"notes": "Customer away"}, base=1, client_seq=farid.seq + 2)
    ana.order("ORD-1042", "cust-0311", [("VALVE-22", 4), ("SEAL-8", 10)], "Deliver to the north depot before Friday")
    carla.order("ORD-1043", "cust-0578", [("METER-3", 1)])
    bruno.order("ORD-1044", "cust-0311", [("PIPE-15", 6), ("ELBOW-15", 12), ("TAPE-PTFE", 3)], "<b>urgent</b> — site closes at 16:00")


def order_pages(driver, base):
    """The order queue, a selection asked about once, one order, and the dashboard's live panel as a new order arrives."""
    driver.set_window_size(1280, 900)
    driver.get(base + "/admin/orders")
    shoot(driver, "orders")
    for order_id in ("ORD-1042", "ORD-1043"):
        driver.find_element(By.CSS_SELECTOR, f"input[name=order][value='{order_id}']").click()
    driver.find_element(By.XPATH, "//button[contains(., 'Confirm selected')]").click()
    shoot(driver, "orders-confirm-selected", full_page=False)
    driver.set_window_size(1280, 900)
    driver.get(base + "/admin/orders/ORD-1044")
    shoot(driver, "order")
    driver.set_window_size(1280, 900)
    driver.get(base + "/admin")
    WebDriverWait(driver, 10).until(lambda d: "Connected" in d.find_element(By.CSS_SELECTOR, "[data-live-status]").text)
    device = Device(base, DEMO_USERS[0][0], "dev-4499", "2.4.0", DEMO_PASSWORD)
    device.order("ORD-" + datetime.datetime.now().strftime("%H%M%S"), "cust-0902", [("VALVE-22", 1)])
    device.push("create", "jobs", "job-" + datetime.datetime.now().strftime("%H%M%S"), {"title": "Check pressure", "status": "open"})
    WebDriverWait(driver, 10).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "[data-live-rows] li")) >= 1)
    shoot(driver, "dashboard-feed")


def supervisor_pages(driver, base):
    """The dashboard of a team supervisor, and the page they get for an admin-only area."""
    driver.set_window_size(1280, 900)
    sign_out(driver)
    supervisor = next(name for name, role, _ in DEMO_USERS if role == "supervisor")
    sign_in(driver, base, supervisor, DEMO_PASSWORD)
    shoot(driver, "dashboard-supervisor", full_page=False)
    driver.get(base + "/admin/sync")
    shoot(driver, "sync-supervisor", full_page=False)
    driver.get(base + "/admin/settings")
    shoot(driver, "forbidden", full_page=False)


def conflict_pages(driver, base):
    """A conflict before and after it is resolved field by field."""
    driver.set_window_size(1280, 900)
    driver.get(base + "/admin/conflicts")
    links = driver.find_elements(By.LINK_TEXT, "rep-2041")
    if not links:
        return  # resolved by an earlier run
    links[0].click()
    shoot(driver, "conflict")
    driver.find_element(By.CSS_SELECTOR, "input[name='pick.answers'][value=device]").click()
    driver.find_element(By.CSS_SELECTOR, "input[name='pick.photos'][value=device]").click()
    driver.set_window_size(1280, 900)
    shoot(driver, "conflict-choosing")
    driver.find_element(By.CSS_SELECTOR, ".compare-form button[type=submit]").click()
    WebDriverWait(driver, 10).until(lambda d: "notice=resolved" in d.current_url)
    shoot(driver, "conflict-resolved")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", default="http://127.0.0.1:8099")
    parser.add_argument("--username", default="admin")
    parser.add_argument("--password", required=True)
    parser.add_argument("--seed", action="store_true")
    args = parser.parse_args()

    driver = chromium(1280, 900)
    try:
        driver.get(args.base + "/login")
        shoot(driver, "login", full_page=False)
        sign_in(driver, args.base, args.username, args.password)
        if args.seed:
            seed(driver, args.base)
        pages = [("dashboard", "/admin"), ("users", "/admin/users"), ("devices", "/admin/devices"),
                 ("settings", "/admin/settings"), ("conflicts", "/admin/conflicts"), ("sync", "/admin/sync"),
                 ("sync-device", "/admin/sync/devices/dev-4412"), ("sync-record", "/admin/sync/records/reports/rep-2041"),
                 ("team", "/admin/team?team=north"), ("assignments", "/admin/assignments"),
                 ("assignment-new", "/admin/assignments/new"), ("search", "/admin/search?q=rep")]
        for name, path in pages:
            driver.set_window_size(1280, 900)
            driver.get(args.base + path)
            shoot(driver, name)
        conflict_pages(driver, args.base)
        order_pages(driver, args.base)
        driver.set_window_size(1280, 900)
        driver.get(args.base + "/admin/users")
        driver.find_element(By.LINK_TEXT, DEMO_USERS[0][0]).click()
        shoot(driver, "user")
        driver.find_element(By.PARTIAL_LINK_TEXT, "Suspend").click()
        shoot(driver, "confirm-suspend", full_page=False)
        driver.set_window_size(1280, 900)
        driver.get(args.base + "/admin/settings")
        field = driver.find_element(By.NAME, "tombstoneRetentionDays")
        field.clear()
        field.send_keys("7")
        driver.find_element(By.NAME, "hardMinimumAppVersion").send_keys("2.1.0")
        driver.find_element(By.CSS_SELECTOR, ".form-footer button[type=submit]").click()
        shoot(driver, "settings-errors")
        driver.set_window_size(820, 1180)
        driver.get(args.base + "/admin")
        shoot(driver, "dashboard-tablet", full_page=False)
        if args.seed or driver.find_elements(By.LINK_TEXT, "Users & devices"):
            supervisor_pages(driver, args.base)
    finally:
        driver.quit()


if __name__ == "__main__":
    main()

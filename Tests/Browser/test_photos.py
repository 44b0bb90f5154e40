"""Photos in the back-office as supervisors see them: headless Chromium against a real
FieldSync server, with a phone that uploads a report's photo over the attachment protocol.

Run with `python3 -m unittest discover -s Tests/Browser` after `swift build`.
"""

import base64
import hashlib
import unittest
import urllib.request

from selenium.webdriver.common.by import By

from harness import Device, Server, sign_in
from test_backoffice import BrowserTestCase

# A 4 x 3 red PNG.
PHOTO = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAQAAAADCAIAAAA7ljmRAAAAEElEQVR4nGM4oSEHRww4OQD+6wyplxsryQAAAABJRU5ErkJggg==")
RECORD_PATH = "/admin/sync/records/reports/rep-photo"

server = None


def upload(device, att_id, data, record_id, finish=True):
    """Registers `data` as one chunk of attachment `att_id`; sends and finalizes it when `finish`."""
    digest = hashlib.sha256(data).hexdigest()
    device.call("POST", "/v1/attachments", {
        "attId": att_id, "collection": "reports", "recordId": record_id, "contentType": "image/png",
        "totalBytes": len(data), "chunkBytes": 65536, "chunkCount": 1, "sha256": digest})
    if not finish:
        return
    request = urllib.request.Request(f"{device.base}/v1/attachments/{att_id}/chunks/0", data=data, method="PUT")
    for name, value in (("Authorization", "Bearer " + device.token), ("X-App-Version", device.app_version),
                        ("X-Device-Id", device.device_id), ("X-Chunk-SHA256", digest),
                        ("Content-Type", "application/octet-stream")):
        request.add_header(name, value)
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 200, response.status
    device.call("POST", f"/v1/attachments/{att_id}/finalize", {})


def setUpModule():
    global server
    server = Server()
    server.add_user("pia", "field", "north")
    server.add_user("nadia", "supervisor", "north")
    server.add_user("soren", "supervisor", "south")
    phone = Device(server.base, "pia", "pia-phone")
    phone.push("create", "reports", "rep-photo",
               {"assignmentId": "as-photo", "answers": {"q1": "cracked"}, "photos": ["att-crack", "att-later"]})
    upload(phone, "att-crack", PHOTO, "rep-photo")
    # Other bytes: a registration of bytes the server already holds finishes at once.
    upload(phone, "att-later", b"half a photo", "rep-photo", finish=False)


def tearDownModule():
    server.stop()


class Photos(BrowserTestCase):
    def loaded_width(self, image):
        """The image's natural width once the browser has loaded (or failed to load) it."""
        self.wait(lambda d: d.execute_script("return arguments[0].complete", image))
        return self.driver.execute_script("return arguments[0].naturalWidth", image)

    def test_the_team_supervisor_sees_the_thumbnail_and_opens_the_full_photo(self):
        sign_in(self.driver, self.base, "nadia")
        self.driver.get(self.base + RECORD_PATH)
        thumbnail = self.driver.find_element(By.CSS_SELECTOR, "img.photo-thumb")
        # Lazy images load once near the viewport: bring it into view.
        self.driver.execute_script("arguments[0].scrollIntoView()", thumbnail)
        self.assertEqual(self.loaded_width(thumbnail), 4)
        self.assertEqual(thumbnail.get_attribute("alt"), "Photo att-crack in photos of reports rep-photo")
        self.assertIn("Photo still uploading", self.text(".photo-strip"))
        self.follow(By.CSS_SELECTOR, "a.photo-link")
        self.assertRegex(self.driver.current_url, r"/admin/photos/[0-9a-f-]{36}$")
        self.assertEqual(self.loaded_width(self.driver.find_element(By.TAG_NAME, "img")), 4)
        self.assert_no_script_errors()

    def test_another_teams_supervisor_is_refused_the_photo(self):
        sign_in(self.driver, self.base, "nadia")
        self.driver.get(self.base + RECORD_PATH)
        photo_url = self.driver.find_element(By.CSS_SELECTOR, "a.photo-link").get_attribute("href")
        # The same browser: what it cached for nadia must not reach soren.
        self.driver.delete_all_cookies()
        sign_in(self.driver, self.base, "soren")
        self.driver.get(photo_url)
        self.assertEqual(self.text(".status-code").lower(), "error 403")
        self.assertEqual(self.driver.find_elements(By.CSS_SELECTOR, "img"), [])
        # Shown in a page of south's, the same address draws nothing.
        self.driver.get(self.base + "/admin/sync")
        image = self.driver.execute_script(
            "const image = new Image(); image.src = arguments[0]; document.body.append(image); return image;", photo_url)
        self.assertEqual(self.loaded_width(image), 0)


if __name__ == "__main__":
    unittest.main()

"""The /openapi page (Swagger UI over /openapi.json) in a real browser.

Debian's headless Chromium, driven through chromedriver by Selenium, opens /openapi on the running
stack, sees the six groups and the 13 operations, opens GetErrorDesc, clicks "Try it out", sends
a body and reads the answer Swagger UI shows: {"d": ...} from the JSON transport. A screenshot is
kept in KEEPER_TEST_ARTIFACTS (build/test-artifacts/ by default).
"""
import unittest

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from headless_chromium import BASE, PORT, BrowserTest
from harness import web

GROUPS = ["AccountApi", "TelepayApi", "SimpleAuthApi", "PushApi", "GlobalApi", "ErrorsApi"]


def get(path):
    status, _, body = web.call(PORT, path, timeout=10)
    return status, body


class OpenApiPage(BrowserTest):
    window_size = "1300,1800"

    def test_the_page_lists_every_group_and_operation_and_tries_one(self):
        b = self.browser
        b.get(f"{BASE}/openapi")
        wait = WebDriverWait(b, 30)
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, ".opblock")) == 13)
        tags = [e.get_attribute("data-tag") for e in b.find_elements(By.CSS_SELECTOR, ".opblock-tag")]
        self.assertEqual(tags, GROUPS)
        summary = b.find_element(By.CSS_SELECTOR, "#operations-ErrorsApi-GetErrorDesc .opblock-summary")
        summary.click()
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#operations-ErrorsApi-GetErrorDesc .try-out__btn"))
        b.find_element(By.CSS_SELECTOR, "#operations-ErrorsApi-GetErrorDesc .try-out__btn").click()
        body = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "#operations-ErrorsApi-GetErrorDesc textarea.body-param__text"))
        body.send_keys(Keys.CONTROL, "a")
        body.send_keys(Keys.DELETE)
        body.send_keys('{"errorCode": 4, "cultureCode": 1033}')
        b.find_element(By.CSS_SELECTOR, "#operations-ErrorsApi-GetErrorDesc .execute").click()
        shown = wait.until(lambda d: [e.text for e in d.find_elements(
            By.CSS_SELECTOR, "#operations-ErrorsApi-GetErrorDesc .live-responses-table .response-col_description pre")
            if '"d"' in e.text])
        self.assertIn('"d": "Authentication failed."', shown[0].replace("\n", " ").replace("  ", " "))
        self.screenshot("openapi-GetErrorDesc.png")

    def test_the_pages_own_files_come_from_nginx(self):
        for path in ("/openapi/swagger-ui-bundle.js", "/openapi/swagger-ui.css", "/openapi/keeper-openapi.js"):
            status, body = get(path)
            self.assertEqual(status, 200, path)
            self.assertGreater(len(body), 100, path)

if __name__ == "__main__":
    unittest.main(verbosity=2)

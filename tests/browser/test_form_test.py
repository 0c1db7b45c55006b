"""The test form of the ?op= help pages in a real browser.

Debian's headless Chromium, driven through chromedriver by Selenium, opens an operation's page on
the running stack, fills one field per parameter, clicks Invoke and reads the answer the form's
frame shows beneath: the operation called over HTTP POST, as ASMX's test form does. A screenshot
of the page with its answer is kept in KEEPER_TEST_ARTIFACTS (build/test-artifacts/ by default).
"""
import unittest

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

from headless_chromium import BASE, BrowserTest


class TestForm(BrowserTest):
    def invoke(self, group, operation, values):
        """Opens the operation's page, fills the form, clicks Invoke; returns the answer shown."""
        b = self.browser
        b.get(f"{BASE}/{group}.asmx?op={operation}")
        fields = b.find_elements(By.CSS_SELECTOR, "#test-form input[type=text]")
        self.assertEqual(sorted(f.get_attribute("name") for f in fields), sorted(values))
        for field in fields:
            field.send_keys(values[field.get_attribute("name")])
        b.find_element(By.ID, "invoke").click()
        frame = b.find_element(By.ID, "test-result")
        WebDriverWait(b, 20).until(expected_conditions.frame_to_be_available_and_switch_to_it(frame))
        # The answer is an XML document (a result) or a text line (a fault): read its text either way.
        shown = WebDriverWait(b, 20).until(
            lambda d: d.execute_script("return document.documentElement && document.documentElement.textContent").strip())
        b.switch_to.default_content()
        return shown

    def test_a_result_is_shown_beneath_the_form(self):
        shown = self.invoke("ErrorsApi", "GetErrorDesc", {"errorCode": "4", "cultureCode": "1049"})
        self.assertIn("Ошибка аутентификации.", shown)
        self.screenshot("test-form-GetErrorDesc.png")

    def test_a_call_that_reaches_the_database(self):
        shown = self.invoke("AccountApi", "CheckSessionEx", {"sessionId": "{00000000-0000-0000-0000-00000000b0b0}",
                                                             "appId": "no-such-app"})
        self.assertRegex(shown, r"\b(2|10)\b")  # no such session (or app): a result code, not a fault

    def test_a_bad_value_shows_the_fault(self):
        shown = self.invoke("ErrorsApi", "GetErrorDesc", {"errorCode": "four", "cultureCode": "1033"})
        self.assertIn("Parameter 'errorCode' has an invalid value 'four'", shown)

    def test_an_operation_without_parameters(self):
        shown = self.invoke("GlobalApi", "GetUtcNow", {})
        self.assertRegex(shown, r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d")


if __name__ == "__main__":
    unittest.main(verbosity=2)

"""Debian's headless Chromium through chromedriver (Selenium), for the browser tests: a test class
that derives from BrowserTest has self.browser, on a profile of its own that is removed after."""
import os
import pathlib
import shutil
import tempfile
import unittest

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

PORT = int(os.environ["KEEPER_TEST_PORT"])
BASE = f"http://127.0.0.1:{PORT}"
ARTIFACTS = pathlib.Path(os.environ.get("KEEPER_TEST_ARTIFACTS", f"{os.environ['KEEPER_TEST_BUILD_DIR']}/test-artifacts"))


class BrowserTest(unittest.TestCase):
    window_size = "1200,1400"

    @classmethod
    def setUpClass(cls):
        cls.profile = tempfile.mkdtemp(prefix="keeper-chromium-")
        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        # --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start. No background
        # networking: the machine's network is closed, and the pages need nothing from outside.
        for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--disable-background-networking", "--disable-component-update", "--no-first-run",
                    f"--window-size={cls.window_size}", f"--user-data-dir={cls.profile}"):
            options.add_argument(arg)
        cls.browser = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        cls.browser.set_page_load_timeout(30)

    @classmethod
    def tearDownClass(cls):
        cls.browser.quit()
        shutil.rmtree(cls.profile, ignore_errors=True)

    def screenshot(self, name):
        """Saves the page as ARTIFACTS/name and checks that it holds a picture."""
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        shot = ARTIFACTS / name
        self.browser.save_screenshot(str(shot))
        self.assertGreater(shot.stat().st_size, 10000)

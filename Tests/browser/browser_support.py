"""What both browser tests of `make test-browser` share: how they fail and skip,
selenium, and a headless Chromium driven through chromedriver."""
import os, shutil, sys

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:
    webdriver = Service = By = WebDriverWait = None

NAME = "browser test"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")


def fail(why):
    print(f"{NAME}: FAIL: {why}", file=sys.stderr)
    sys.exit(1)


def missing(why):
    """Skips loudly, or fails under FPRINT_REQUIRE_REAL=1 (CI sets it)."""
    if os.environ.get("FPRINT_REQUIRE_REAL") == "1":
        fail(f"{why} (FPRINT_REQUIRE_REAL=1: install chromium chromium-driver and `pip install selenium`)")
    print(f"{NAME}: SKIPPED: {why}; install chromium chromium-driver and `pip install selenium` to run it",
          file=sys.stderr)
    sys.exit(0)


def begin(name):
    """Names the test in its messages and checks that selenium and Chromium are here."""
    global NAME
    NAME = name
    if webdriver is None:
        missing("python selenium is not installed")
    if not CHROMIUM or not DRIVER:
        missing("chromium or chromedriver is not on PATH")


def headless_chromium(window_size, browser_log=False):
    """A headless Chromium of that window size (`1200,900`), with its console log kept if asked."""
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", f"--window-size={window_size}"]:
        options.add_argument(flag)
    if browser_log:
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(DRIVER), options=options)

"""What the browser tests of `make test-browser` share: how they fail and skip, a
sandbox for fprint, starting its servers, selenium, and a headless Chromium driven
through chromedriver."""
import os, re, shutil, subprocess, sys, tempfile, time

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:
    webdriver = Service = By = WebDriverWait = None

NAME = "browser test"
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ARTIFACTS = os.path.join(os.environ.get("ARTIFACTS", os.path.join(REPO, ".build/artifacts")), "browser")
SHOTS = os.environ.get("SCREENSHOTS")
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
    """Names the test in its messages, checks that selenium and Chromium are here and
    returns the fprint under test: the first argument, else the debug build."""
    global NAME
    NAME = name
    if webdriver is None:
        missing("python selenium is not installed")
    if not CHROMIUM or not DRIVER:
        missing("chromium or chromedriver is not on PATH")
    binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, ".build/debug/fprint"))
    if not os.access(binary, os.X_OK):
        fail(f"{binary}: no fprint binary (run swift build first)")
    return binary


def finish(driver, server, tmp, seconds=10):
    """Quits the browser, ends the server and removes the sandbox, whatever the test's outcome."""
    if driver:
        driver.quit()
    server.terminate()
    server.wait(timeout=seconds)
    shutil.rmtree(tmp, ignore_errors=True)


GATEWAY_LISTENING = r"listening on http://127\.0\.0\.1:(\d+)/"
DASHBOARD_SERVING = r"serving http://127\.0\.0\.1:(\d+)/"


def sandbox(prefix, **settings):
    """A new temporary folder and an environment whose XDG folders are in it, so no
    setting, token, database or config of the user's reaches fprint; `settings` are added."""
    tmp = tempfile.mkdtemp(prefix=prefix)
    env = dict(os.environ, XDG_CONFIG_HOME=f"{tmp}/config", XDG_DATA_HOME=f"{tmp}/data", XDG_CACHE_HOME=f"{tmp}/cache",
               XDG_STATE_HOME=f"{tmp}/state")
    for key in ["FPRINT_CONFIG", "FPRINT_TOKEN", "FPRINT_DB"]:
        env.pop(key, None)
    env.update(settings)
    return tmp, env


def run_fprint(binary, env, *args, timeout=120):
    """fprint's standard output; the test fails on a non-zero exit, with the end of its stderr."""
    done = subprocess.run([binary, *args], env=env, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        fail(f"fprint {' '.join(args[:2])} exited {done.returncode}: {done.stderr.strip()[-400:]}")
    return done.stdout


def start_server(argv, env, log, address, name, seconds=60):
    """Starts a server (`fprint gateway`, `fprint dashboard`) with its stderr in `log`; once
    that names its address (`address`, a pattern with the port as its group), (process, port)."""
    process = subprocess.Popen(argv, env=env, stderr=open(log, "w"))
    for _ in range(seconds * 10):
        text = open(log).read()
        found = re.search(address, text)
        if found:
            return process, int(found.group(1))
        if process.poll() is not None:
            fail(f"{name} exited: {text.strip()}")
        time.sleep(0.1)
    process.terminate()
    fail(f"{name} did not start within {seconds} s")


def headless_chromium(window_size, browser_log=False):
    """A headless Chromium of that window size (`1200,900`), with its console log kept if asked."""
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", f"--window-size={window_size}"]:
        options.add_argument(flag)
    if browser_log:
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(DRIVER), options=options)

#!/usr/bin/env python3
"""make test-browser: each map's Survey page draws that map's points only.

A two-floor plan made here (ANNEX0 and ANNEX1 from docs/examples/lab-plan.svg, a
route on ANNEX0), simulated radios, `fprint dashboard --fast`. The dashboard's last
job is shown by every Survey page it serves (the status box); its stored points are
drawn only on its own map's page:
- a point measured on ANNEX1, then one on ANNEX0: ANNEX1's page still draws one point
  and counts 1, as the server does;
- a walk on ANNEX0: ANNEX1's page draws none of its points; ANNEX0's page draws them;
- points are typed in metres (as the axes show) and stored at those metres in map units;
- a route over the stairs (ANNEX0, then ANNEX1): offered on both floors' pages; its Walk
  stores each floor's part on its own map in one session, and each page draws its own part;
- the dashboard killed (SIGKILL: no word from it) with a page open: the page finds it
  unreachable and says it stopped answering, its buttons disabled.
Screenshots: ${ARTIFACTS:-.build/artifacts}/browser/survey-floors.png (ANNEX1 after the walk),
survey-stairs.png (ANNEX1 after the stairs walk).
"""
import json, os, signal

from browser_support import (ARTIFACTS, DASHBOARD_SERVING, REPO, By, WebDriverWait, begin, fail, headless_chromium,
                             run_fprint, sandbox, start_server)

PLAN = os.path.join(REPO, "docs/examples/lab-plan.svg")

BIN = begin("survey floors test")

TMP, ENV = sandbox("fprint-floors-")
DB = f"{TMP}/floors.sqlite"


def fprint(*args):
    return run_fprint(BIN, ENV, *args, timeout=300)


def stored(map_id):
    return [json.loads(line) for line in fprint("export", "jsonl", "--db", DB, "--map", map_id).splitlines() if line.strip()]


for floor in [0, 1]:
    fprint("map", "add", f"ANNEX{floor}", "--image", PLAN, "--floor", str(floor), "--calibrate", "100,100 1100,100 25m",
           "--outline", "40,40 1160,40 1160,660 40,660")
    fprint("beacons", "import", os.path.join(REPO, "docs/examples/lab-beacons.csv"), "--map", f"ANNEX{floor}")
fprint("scenario", "add", "annex-hall", "--map", "ANNEX0", "--points", "150,360 1050,360 1050,550")
fprint("scenario", "add", "annex-up", "--map", "ANNEX0", "--points", "150,360 1050,360",
       "--then", "ANNEX1:1050,360 150,360 150,550", "--via", "stairs")

log = f"{TMP}/dashboard.err"
dashboard, port = start_server([BIN, "dashboard", "--db", DB, "--port", "0", "--simulate", "--duration", "5", "--fast"],
                               ENV, log, DASHBOARD_SERVING, "fprint dashboard")
base = f"http://127.0.0.1:{port}"


def open_page(driver, map_id):
    driver.get(f"{base}/_dashboard/survey/maps/{map_id}")
    WebDriverWait(driver, 30, poll_frequency=0.1).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#survey-wrap svg g.points"))


def status(driver):
    return driver.execute_script("var s = document.getElementById('survey-status'); return [s.dataset.job, s.dataset.state, s.textContent];")


def until_shown(driver, job):
    """The page has shown job `job` stored (its first status poll answered)."""
    try:
        WebDriverWait(driver, 120, poll_frequency=0.1).until(lambda d: status(d)[:2] in ([str(job), "stored"], [str(job), "failed"]))
    except Exception:
        fail(f"job {job} not shown stored: {status(driver)}")
    if status(driver)[1] != "stored":
        fail(f"job {job} failed: {status(driver)[2]}")


def measure(driver, x, y, job):
    for element, value in [(driver.find_element(By.ID, "x"), x), (driver.find_element(By.ID, "y"), y)]:
        element.clear()
        element.send_keys(value)
    driver.find_element(By.ID, "measure").click()
    until_shown(driver, job)


def drawn(driver):
    """Points drawn and the page's count."""
    return (len(driver.find_elements(By.CSS_SELECTOR, "#survey-wrap g.points circle.point")),
            driver.find_element(By.ID, "point-count").text)


driver = headless_chromium("1400,1000", browser_log=True)
try:
    # Metres, as the axes show: 25 m over 1000 map units.
    open_page(driver, "ANNEX1")
    measure(driver, "7.5", "7.5", 1)
    open_page(driver, "ANNEX0")
    measure(driver, "15", "3", 2)
    for map_id, want in [("ANNEX1", (300, 300)), ("ANNEX0", (600, 120))]:
        got = [(d["position"]["x"], d["position"]["y"]) for d in stored(map_id)]
        if len(got) != 1 or abs(got[0][0] - want[0]) > 0.05 or abs(got[0][1] - want[1]) > 0.05:
            fail(f"typed metres on {map_id} stored {got}, not {want} map units")

    # The last job is ANNEX0's: ANNEX1's page shows it in its status, draws none of it.
    open_page(driver, "ANNEX1")
    until_shown(driver, 2)
    if drawn(driver) != (1, "1") or len(stored("ANNEX1")) != 1:
        fail(f"ANNEX1's page draws {drawn(driver)} (points, count) after a measurement on ANNEX0; "
             f"the server holds {len(stored('ANNEX1'))} on ANNEX1")

    open_page(driver, "ANNEX0")
    driver.find_element(By.ID, "walk").click()
    until_shown(driver, 3)
    walked = [d for d in stored("ANNEX0") if d.get("scenarioId") == "annex-hall"]
    if len(walked) < 5:
        fail(f"the walk stored {len(walked)} documents")
    if drawn(driver)[0] != 1 + len(walked):
        fail(f"ANNEX0's page draws {drawn(driver)[0]} points after its walk; the server holds {1 + len(walked)}")

    open_page(driver, "ANNEX1")
    until_shown(driver, 3)
    os.makedirs(ARTIFACTS, exist_ok=True)
    driver.save_screenshot(os.path.join(ARTIFACTS, "survey-floors.png"))
    if drawn(driver) != (1, "1"):
        fail(f"ANNEX1's page draws {drawn(driver)} (points, count) after a walk of {len(walked)} documents on ANNEX0")
    # A route over the stairs: offered on both floors, each floor's part walked and drawn on its own page.
    open_page(driver, "ANNEX1")
    offered = [o.get_attribute("value") for o in driver.find_elements(By.CSS_SELECTOR, "#route option")]
    if "annex-up" not in offered:
        fail(f"ANNEX1's page does not offer the stairs route: {offered}")
    open_page(driver, "ANNEX0")
    driver.execute_script("var r = document.getElementById('route'); r.value = 'annex-up'; r.dispatchEvent(new Event('change'));")
    before0, before1 = drawn(driver)[0], len(stored("ANNEX1"))
    driver.find_element(By.ID, "walk").click()
    until_shown(driver, 4)
    up0 = [d for d in stored("ANNEX0") if d.get("scenarioId") == "annex-up"]
    up1 = [d for d in stored("ANNEX1") if d.get("scenarioId") == "annex-up"]
    if len(up0) < 5 or len(up1) < 5 or len({d["sessionId"] for d in up0 + up1}) != 1:
        fail(f"the stairs walk stored {len(up0)} documents on ANNEX0 and {len(up1)} on ANNEX1 (one session expected)")
    if drawn(driver)[0] != before0 + len(up0):
        fail(f"ANNEX0's page draws {drawn(driver)[0]} points after the stairs walk; expected {before0 + len(up0)}")
    open_page(driver, "ANNEX1")
    until_shown(driver, 4)
    if drawn(driver)[0] != before1 + len(up1):
        fail(f"ANNEX1's page draws {drawn(driver)[0]} points after the stairs walk; the server holds {before1 + len(up1)}")
    driver.save_screenshot(os.path.join(ARTIFACTS, "survey-stairs.png"))
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    if errors:
        fail(f"console errors: {errors}")

    # Gone without a word (killed): the page finds out by its stream and a failed poll.
    dashboard.kill()
    dashboard.wait(timeout=60)
    try:
        WebDriverWait(driver, 30, poll_frequency=0.1).until(lambda d: d.find_element(By.ID, "survey-stopped").is_displayed())
    except Exception:
        fail(f"no banner after the dashboard was killed: {status(driver)}")
    banner = driver.find_element(By.ID, "survey-stopped").text
    if "stopped answering" not in banner or "no measurement was running" not in banner:
        fail(f"the banner after a kill does not say the dashboard stopped answering: {banner!r}")
    if not driver.find_element(By.ID, "measure").get_attribute("disabled"):
        fail("Measure is still enabled after the dashboard was killed")
    driver.save_screenshot(os.path.join(ARTIFACTS, "survey-unreachable.png"))
finally:
    driver.quit()
    if dashboard.poll() is None:
        dashboard.send_signal(signal.SIGINT)
        dashboard.wait(timeout=60)
print(f"survey floors test: ok (ANNEX1 draws its 1 point after a point and a walk of {len(walked)} documents on ANNEX0; "
      f"the stairs walk: {len(up0)} on ANNEX0, {len(up1)} on ANNEX1; "
      f"typed metres stored at their map units; killed: {banner!r})")

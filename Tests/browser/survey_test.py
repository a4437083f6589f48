#!/usr/bin/env python3
"""make test-browser: the Survey page of `fprint dashboard` in headless Chromium.

On the own-building guide's example plan (docs/own-building.md: a map made from
docs/examples/lab-plan.svg, its beacon list, a route), with simulated radios:
- the guide's ten points clicked on the plan store ten documents at the clicked
  positions (within half a map unit of the click scaled to map units by the page's
  size and the plan's viewBox, computed here, not by the page's script), and
  `fprint plot heatmap` draws them on the plan; the x/y boxes then show the click
  in metres; the count of cells without a point goes down at each click, without
  a reload, to what the server counts on a reload;
- the plan's y axis is named as its x axis, and the boxes say they take metres;
- a click outside the floor's outline is refused with the reason and stores nothing;
- typed coordinates (metres, as the axes) and Enter measure without a mouse, at the
  map position those metres are at the map's scale;
- stopping the dashboard (SIGINT) with the page open and idle: the page says it
  stopped and that nothing was running, its buttons are disabled; exit 0 (Ctrl-C
  is a server's normal end: nothing was cut short), and stderr says nothing was running;
- the Walk button walks the route and its documents are stored and drawn;
- a POST without the page's token, or from another origin, is refused;
- with a walk running in real time, the target marker and guidance show, a second
  tab is told a measurement is running and stores nothing, and stopping the
  dashboard (SIGINT) discards the walk in progress: both tabs say so in a banner,
  the countdown is gone, the buttons are disabled, exit 130 and stderr names the walk.
Screenshots go to ${ARTIFACTS:-.build/artifacts}/browser/; with SCREENSHOTS=DIR also
DIR/survey.png and DIR/survey-index.png
(`make screenshots`).
"""
import json, os, re, signal, urllib.error, urllib.request

from browser_support import (ARTIFACTS, DASHBOARD_SERVING, REPO, SHOTS, By, WebDriverWait, begin, fail,
                             headless_chromium, run_fprint, sandbox, start_server)

EXAMPLES = os.path.join(REPO, "docs/examples")

BIN = begin("survey test")

# Your own app config (made by `fprint map add`) is in force: no FPRINT_CONFIG.
TMP, ENV = sandbox("fprint-survey-")
DB = f"{TMP}/survey.sqlite"


def fprint(*args):
    return run_fprint(BIN, ENV, *args, timeout=300)


def documents():
    return [json.loads(line) for line in fprint("export", "jsonl", "--db", DB, "--map", "LAB1").splitlines() if line.strip()]


def start_dashboard(*options):
    log = f"{TMP}/dashboard-{len(os.listdir(TMP))}.err"
    proc, port = start_server([BIN, "dashboard", "--db", DB, "--port", "0", "--simulate", "--duration", "5", *options], ENV,
                              log, DASHBOARD_SERVING, "fprint dashboard")
    return proc, port, log


def wait_for(driver, what, condition, seconds=120):
    try:
        return WebDriverWait(driver, seconds, poll_frequency=0.1).until(lambda d: condition(d))
    except Exception:
        shot(driver, "survey-timeout")
        status = driver.find_element(By.ID, "survey-status")
        fail(f"{what}: not seen within {seconds} s (status {status.get_attribute('data-state')}: {status.text!r})")


def shot(driver, name):
    os.makedirs(ARTIFACTS, exist_ok=True)
    driver.save_screenshot(os.path.join(ARTIFACTS, f"{name}.png"))


def plan_geometry(driver):
    """The plan's drawn box in the viewport and its frame (viewBox width, map origin and scale in SVG units)."""
    svg = driver.find_element(By.CSS_SELECTOR, "#survey-wrap svg")
    box = driver.execute_script("var r = arguments[0].getBoundingClientRect(); return [r.left, r.top, r.width, r.height];", svg)
    view = driver.execute_script("var v = arguments[0].viewBox.baseVal; return [v.x, v.y, v.width, v.height];", svg)
    frame = [float(svg.get_attribute(a)) for a in ["data-left", "data-top", "data-scale"]]
    return svg, box, view, frame


def click_map(driver, x, y):
    """Clicks the whole pixel nearest to map point (x, y); returns that pixel scaled back to map units."""
    from selenium.webdriver.common.action_chains import ActionChains
    svg, (bl, bt, bw, bh), (_, _, vw, vh), (left, top, scale) = plan_geometry(driver)
    per_px = vw / bw
    px, py = round((left + x * scale) / per_px), round((top + y * scale) / per_px)
    ActionChains(driver).move_to_element_with_offset(svg, px - bw / 2, py - bh / 2).click().perform()
    return ((px * per_px - left) / scale, (py * per_px - top) / scale)


def unsurveyed(driver):
    """The page's count of cells without a point, and the cells it draws."""
    return (int(driver.find_element(By.ID, "unsurveyed-count").text),
            len(driver.find_elements(By.CSS_SELECTOR, "#survey-wrap g.unsurveyed rect")))


def wait_stopped(driver, proc, log, wording, exit_code):
    """SIGINT to the dashboard with the page open: the page's banner, its disabled buttons, the exit code."""
    before = driver.find_element(By.ID, "survey-status").text
    proc.send_signal(signal.SIGINT)
    code = proc.wait(timeout=60)
    # A failed poll may say so first ("stopped answering"); the stream's last event then says what the stop did.
    banner_of = lambda d: d.find_element(By.ID, "survey-stopped")
    try:
        WebDriverWait(driver, 30, poll_frequency=0.1).until(lambda d: banner_of(d).is_displayed() and wording in banner_of(d).text)
    except Exception:
        shot(driver, "survey-stopped-timeout")
        fail(f"no banner saying {wording!r} within 30 s: {banner_of(driver).text!r} (displayed: {banner_of(driver).is_displayed()})")
    banner = banner_of(driver).text
    if not banner.startswith("The dashboard stopped (Ctrl-C in its terminal"):
        fail(f"the banner does not say the dashboard stopped at Ctrl-C: {banner!r}")
    status = driver.find_element(By.ID, "survey-status").text
    if " s left of " in status or status == before:
        fail(f"the status still shows what it showed before the stop: {status!r}")
    for button in ["measure", "walk", "x", "y"]:
        if not driver.find_element(By.ID, button).get_attribute("disabled"):
            fail(f"#{button} is still enabled after the dashboard stopped")
    if driver.find_element(By.ID, "survey-progress").is_displayed():
        fail("the progress bar still shows after the dashboard stopped")
    if code != exit_code:
        fail(f"fprint dashboard stopped by SIGINT exited {code}, not {exit_code}: {open(log).read()[-400:]}")
    return banner, code


def status_of(driver):
    """The status box's job and state, read together (two reads could straddle the next job)."""
    return driver.execute_script("var s = document.getElementById('survey-status'); return [s.dataset.job, s.dataset.state, s.textContent];")


def wait_stored(driver, job):
    wait_for(driver, f"job {job} stored", lambda d: status_of(d)[:2] in ([str(job), "stored"], [str(job), "failed"]))
    _, state, text = status_of(driver)
    if state != "stored":
        fail(f"job {job} failed: {text}")


# The guide's map, beacons and route: no file edited by hand.
fprint("map", "add", "LAB1", "--image", f"{EXAMPLES}/lab-plan.svg", "--floor", "1", "--calibrate", "100,100 1100,100 25m",
       "--outline", "40,40 1160,40 1160,660 40,660")
fprint("beacons", "import", f"{EXAMPLES}/lab-beacons.csv", "--map", "LAB1")
fprint("scenario", "add", "lab-loop", "--map", "LAB1", "--points", "150,360 1050,360 1050,550 150,550 150,360")

dashboard, port, log = start_dashboard("--fast")
base = f"http://127.0.0.1:{port}"
driver = headless_chromium("1400,1000", browser_log=True)
try:
    driver.get(f"{base}/_dashboard/survey")
    driver.find_element(By.LINK_TEXT, "LAB1").click()
    wait_for(driver, "the Survey page", lambda d: d.find_elements(By.CSS_SELECTOR, "#survey-wrap svg g.points"), 30)
    token = driver.find_element(By.ID, "survey-wrap").get_attribute("data-token")
    if not re.fullmatch(r"[0-9a-f]{64}", token or ""):
        fail(f"the page carries no token for its actions: {token!r}")
    if not driver.find_elements(By.CSS_SELECTOR, "g.unsurveyed rect"):
        fail("an unsurveyed floor shows no unsurveyed cells")
    y_label = driver.find_elements(By.CSS_SELECTOR, "#survey-wrap svg text.y-label")
    if [e.text for e in y_label] != ["y (m)"]:
        fail(f"the plan's y axis is not named y (m): {[e.text for e in y_label]}")
    for box in ["x", "y"]:
        label = driver.execute_script("return arguments[0].parentNode.textContent.trim();", driver.find_element(By.ID, box))
        if label != f"{box}  m" and label != f"{box} m":
            fail(f"the {box} box does not say it takes metres: {label!r}")
    cells = [unsurveyed(driver)]
    if cells[0][0] != cells[0][1]:
        fail(f"the page counts {cells[0][0]} cells without a point and draws {cells[0][1]}")
    per_unit = float(driver.find_element(By.ID, "survey-wrap").get_attribute("data-meters-per-unit"))
    if abs(per_unit - 0.025) > 1e-9:
        fail(f"LAB1 is 25 m over 1000 units: the page says {per_unit} m a unit")

    # The guide's ten points clicked: ten documents where the clicks were.
    targets = [(150, 150), (350, 150), (600, 150), (900, 150), (1100, 150), (150, 360), (600, 360), (1050, 360),
               (300, 560), (1000, 560)]
    clicked = []
    for job, (x, y) in enumerate(targets, start=1):
        clicked.append(click_map(driver, x, y))
        wait_stored(driver, job)
        cells.append(unsurveyed(driver))
        shown = [float(driver.find_element(By.ID, box).get_attribute("value")) for box in ["x", "y"]]
        if any(abs(v - c * per_unit) > 0.01 for v, c in zip(shown, clicked[-1])):
            fail(f"the boxes show {shown} m after a click at {clicked[-1]} map units ({per_unit} m a unit)")
    # Ten clicks in ten different cells: the count went down at each, as the cells drawn did.
    if any(after[0] >= before[0] or after[0] != after[1] for before, after in zip(cells, cells[1:])):
        fail(f"the count of cells without a point did not follow the clicks: {cells}")
    docs = documents()
    if len(docs) != len(targets):
        fail(f"{len(targets)} clicks stored {len(docs)} documents")
    for (cx, cy) in clicked:
        near = [d for d in docs if abs(d["position"]["x"] - cx) <= 0.5 and abs(d["position"]["y"] - cy) <= 0.5]
        if len(near) != 1:
            fail(f"no document within half a map unit of the click at ({cx:.2f}, {cy:.2f}): "
                 f"{[(d['position']['x'], d['position']['y']) for d in docs]}")
    for d in docs:
        if d["providers"]["ble"].get("simulated") is not True:
            fail(f"a simulated measurement is not labelled so: {d['providers']['ble']}")
    drawn = driver.find_elements(By.CSS_SELECTOR, "#survey-wrap g.points circle.point")
    if len(drawn) != len(targets):
        fail(f"{len(drawn)} points drawn after {len(targets)} stored measurements")
    driver.refresh()
    wait_for(driver, "the Survey page reloaded", lambda d: d.find_elements(By.CSS_SELECTOR, "#survey-wrap svg g.points"), 30)
    wait_stored(driver, len(targets))
    if unsurveyed(driver) != cells[-1]:
        fail(f"the server counts {unsurveyed(driver)} cells without a point on a reload; the page counted {cells[-1]} live")

    # Outside the floor's outline (in the picture's margin): refused, with the reason, nothing stored.
    click_map(driver, 15, 15)
    wait_for(driver, "the refusal", lambda d: d.find_element(By.ID, "survey-refusal").is_displayed(), 30)
    refusal = driver.find_element(By.ID, "survey-refusal").text
    if "outline" not in refusal:
        fail(f"the refusal does not say why: {refusal!r}")
    if len(documents()) != len(targets):
        fail("a refused click stored a document")

    # Without a mouse: typed metres (as the axes show) and Enter: 12.52 m, 7.5 m are (500.8, 300) map units on LAB1.
    from selenium.webdriver.common.keys import Keys
    x_input, y_input = driver.find_element(By.ID, "x"), driver.find_element(By.ID, "y")
    for element, value in [(x_input, "12.52"), (y_input, "7.5")]:
        element.clear()
        element.send_keys(value)
    y_input.send_keys(Keys.ENTER)
    wait_stored(driver, len(targets) + 1)
    typed = [d["position"] for d in documents() if abs(d["position"]["x"] - 500.8) < 0.06 and abs(d["position"]["y"] - 300) < 0.06]
    if len(typed) != 1:
        fail(f"typed 12.52 m, 7.5 m did not store a document at (500.8, 300) map units: "
             f"{sorted((d['position']['x'], d['position']['y']) for d in documents())[-3:]}")
    if "(12.52 m, 7.5 m)" not in driver.find_element(By.ID, "survey-status").text:
        fail(f"the status does not say where in metres: {driver.find_element(By.ID, 'survey-status').text!r}")

    # The route: walked, stored as one session, drawn.
    driver.find_element(By.ID, "walk").click()
    wait_stored(driver, len(targets) + 2)
    walked = [d for d in documents() if d.get("scenarioId") == "lab-loop"]
    if len(walked) < 10 or len({d["sessionId"] for d in walked}) != 1:
        fail(f"the walk stored {len(walked)} documents in {len({d.get('sessionId') for d in walked})} sessions")
    drawn = driver.find_elements(By.CSS_SELECTOR, "#survey-wrap g.points circle.point")
    if len(drawn) != len(targets) + 1 + len(walked):
        fail(f"{len(drawn)} points drawn, {len(targets) + 1 + len(walked)} stored")
    heatmap = f"{TMP}/lab1-heatmap.png"
    fprint("plot", "heatmap", "--db", DB, "--map", "LAB1", "--transmitter", "C0:FF:EE:00:00:03", "-o", heatmap)
    if open(heatmap, "rb").read(4) != b"\x89PNG":
        fail("the heatmap of the clicked points is no PNG")
    shot(driver, "survey")
    if SHOTS:
        driver.get(f"{base}/_dashboard/survey/maps/LAB1")
        wait_for(driver, "the Survey page again", lambda d: d.find_elements(By.CSS_SELECTOR, "#survey-wrap svg g.points"), 30)
        driver.save_screenshot(os.path.join(SHOTS, "survey.png"))
        # The Survey index (the gateway's Admin and My uploads pages: dashboard_figures_test.py).
        for name, path in [("survey-index", "/_dashboard/survey")]:
            driver.get(base + path)
            wait_for(driver, path, lambda d: d.find_elements(By.TAG_NAME, "h1"), 30)
            driver.save_screenshot(os.path.join(SHOTS, f"{name}.png"))
        # Back to the Survey page, whose banner the stop below is seen on.
        driver.get(f"{base}/_dashboard/survey/maps/LAB1")
        wait_for(driver, "the Survey page again", lambda d: d.find_elements(By.CSS_SELECTOR, "#survey-wrap svg g.points"), 30)
    # The refused click's 422 is an answer the page shows, not an error of the page.
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"
              and not (e["source"] == "network" and "/_dashboard/survey/measure" in e["message"] and "422" in e["message"])]
    if errors:
        fail(f"console errors: {errors}")

    # Actions need this page's token and origin (CSRF).
    def post(fields, origin):
        request = urllib.request.Request(f"{base}/_dashboard/survey/measure", data=urllib.parse.urlencode(fields).encode(),
                                         headers={"Origin": origin, "Content-Type": "application/x-www-form-urlencoded"})
        try:
            return urllib.request.urlopen(request, timeout=30).status
        except urllib.error.HTTPError as e:
            return e.code
    import urllib.parse
    before = len(documents())
    for fields, origin, why in [({"map": "LAB1", "x": "300", "y": "300"}, base, "without the token"),
                                ({"map": "LAB1", "x": "300", "y": "300", "token": "0" * 64}, base, "with a wrong token"),
                                ({"map": "LAB1", "x": "300", "y": "300", "token": token}, "http://evil.example", "from another origin")]:
        status = post(fields, origin)
        if status != 403:
            fail(f"a measurement POST {why} answered {status}, not 403")
    if len(documents()) != before:
        fail("a refused POST stored a document")

    # Stopped with the page open and nothing running: the page says so, as stderr does.
    idle_banner, _ = wait_stopped(driver, dashboard, log, "no measurement was running", 0)
    if "fprint dashboard: stopped; no measurement was running" not in open(log).read():
        fail(f"stderr does not say the stop found nothing running: {open(log).read()[-400:]}")
    shot(driver, "survey-stopped-idle")
finally:
    driver.quit()
    if dashboard.poll() is None:
        dashboard.send_signal(signal.SIGINT)
        dashboard.wait(timeout=60)

# Real time: a walk runs; a second tab is refused; stopping the dashboard discards the walk.
before = len(documents())
dashboard, port, log = start_dashboard()
base = f"http://127.0.0.1:{port}"
driver = headless_chromium("1400,1000", browser_log=True)
try:
    driver.get(f"{base}/_dashboard/survey/maps/LAB1")
    wait_for(driver, "the Survey page", lambda d: d.find_elements(By.ID, "walk"), 30)
    driver.find_element(By.ID, "walk").click()
    wait_for(driver, "the walk's target and guidance", lambda d: d.find_elements(By.CSS_SELECTOR, "circle.target")
             and "next: waypoint" in d.find_element(By.ID, "survey-status").text, 60)
    first = driver.current_window_handle
    driver.switch_to.new_window("tab")
    driver.get(f"{base}/_dashboard/survey/maps/LAB1")
    wait_for(driver, "the running walk in the second tab", lambda d: d.find_element(By.ID, "measure").get_attribute("disabled"), 30)
    click_map(driver, 600, 300)
    wait_for(driver, "the second tab's refusal", lambda d: d.find_element(By.ID, "survey-refusal").is_displayed(), 30)
    refusal = driver.find_element(By.ID, "survey-refusal").text
    if "already running" not in refusal:
        fail(f"the second tab was not told a measurement is running: {refusal!r}")
    second = driver.current_window_handle
    shot(driver, "survey-second-tab")
    driver.switch_to.window(first)
    shot(driver, "survey-walking")
    if " s left of " not in driver.find_element(By.ID, "survey-status").text:
        fail(f"the walk's countdown is not shown: {driver.find_element(By.ID, 'survey-status').text!r}")
    # Ctrl-C in the dashboard's terminal with the walk running: the page says the walk was discarded.
    # Cut short, as Ctrl-C cuts `fprint walk` short: exit 130.
    walk_banner, code = wait_stopped(driver, dashboard, log, "the walk lab-loop in progress was discarded", 130)
    shot(driver, "survey-stopped")
    driver.switch_to.window(second)
    wait_for(driver, "the second tab's banner", lambda d: d.find_element(By.ID, "survey-stopped").is_displayed(), 30)
finally:
    driver.quit()
    if dashboard.poll() is None:
        dashboard.send_signal(signal.SIGINT)
        dashboard.wait(timeout=60)
if len(documents()) != before:
    fail("the second tab's click or the stopped walk stored documents")
if "nothing was stored" not in open(log).read():
    fail(f"stopping the dashboard did not say the walk was discarded: {open(log).read()[-400:]}")
if "interrupted: the dashboard stopped; the walk lab-loop on LAB1 in progress was discarded" not in open(log).read():
    fail(f"stderr's last line does not name the discarded walk: {open(log).read()[-400:]}")
print(f"survey test: ok ({len(targets)} clicks within 0.5 map units, cells without a point {cells[0][0]} -> {cells[-1][0]}, "
      f"heatmap, refused click, typed metres, walk of {len(walked)} documents, CSRF refused, second tab refused, "
      f"idle stop: {idle_banner!r}; stop during the walk: {walk_banner!r}; exit {code})")

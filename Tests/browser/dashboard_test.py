#!/usr/bin/env python3
"""make test-browser: the gateway's dashboard in headless Chromium (selenium + chromedriver).

A gateway on a free port gets a simulated walk through `fprint sync`; a viewer logs in,
opens the map, sees every point and a heatmap, watches a newly synced document appear
within 5 s and the marker and trail of `fprint track --publish` move, gets no console
errors and cannot reach the admin page. Screenshots go to
${ARTIFACTS:-.build/artifacts}/browser/. With SCREENSHOTS=DIR it also writes
DIR/dashboard.png, DIR/heatmap.png and DIR/dashboard-{walks,index,activity,errors}.png
(`make screenshots`).

Without chromium, chromedriver or selenium it skips loudly, or fails under
FPRINT_REQUIRE_REAL=1 (CI sets it).
"""
import http.client, json, os, subprocess, time, urllib.error, urllib.request

from browser_support import (ARTIFACTS, DASHBOARD_SERVING, GATEWAY_LISTENING, REPO, SHOTS, By, WebDriverWait, begin,
                             fail, finish, headless_chromium, run_fprint, sandbox, start_server)

MAP = "J1NP"


BIN = begin("browser test")

TMP, ENV = sandbox("fprint-browser-", FPRINT_CONFIG=os.path.join(REPO, "Config/app-config.json"))
LOCAL, SECRET = f"{TMP}/survey.sqlite", f"{TMP}/gateway-secret"


def fprint(*args, env=None):
    return run_fprint(BIN, env or ENV, *args)


def start_gateway():
    users = f"{TMP}/users"
    with open(os.open(users, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
        f.write("vera:look-only:viewer\n")
    return start_server([BIN, "gateway", "serve", "--port", "0", "--db", f"{TMP}/gateway.sqlite", "--users", users,
                         "--secret-file", SECRET], ENV, f"{TMP}/gateway.err", GATEWAY_LISTENING, "the gateway", seconds=30)


def sync(base, token):
    fprint("sync", "--gateway", f"{base}/fprint", "--db", LOCAL, "--push-only", "--quiet",
           env=dict(ENV, FPRINT_TOKEN=token))


def check_local_dashboard(points):
    """`fprint dashboard` serves the same survey from the local file, on loopback, without a login."""
    local, port = start_server([BIN, "dashboard", "--db", LOCAL, "--port", "0"], ENV, f"{TMP}/dashboard.err",
                               DASHBOARD_SERVING, "fprint dashboard", seconds=30)
    try:
        page = urllib.request.urlopen(f"http://127.0.0.1:{port}/_dashboard/maps/{MAP}", timeout=30).read().decode()
        shown = page.count('<circle class="point"')
        if shown != points:
            fail(f"fprint dashboard shows {shown} points of the local file's {points}")
        # DNS rebinding: a page of another site whose name points at 127.0.0.1 sends that name as Host.
        rebound = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        rebound.request("GET", f"/_dashboard/maps/{MAP}", headers={"Host": f"rebound.example:{port}"})
        answer = rebound.getresponse()
        if answer.status != 421 or b'class="point"' in answer.read():
            fail(f"fprint dashboard answered a request for another host name with {answer.status}")
        rebound.close()
    finally:
        local.terminate()
        local.wait(timeout=10)


def main():
    os.makedirs(ARTIFACTS, exist_ok=True)
    # Seeded: `make screenshots` draws the same survey every time.
    fprint("walk", "--scenario", "scenarioJ1NP1", "--simulate", "--fast", "--seed", "1", "--db", LOCAL)
    gateway, port = start_gateway()
    base = f"http://127.0.0.1:{port}"
    driver = None
    try:
        token = fprint("gateway", "token", "--user", "sam", "--token-only", "--secret-file", SECRET).strip()
        sync(base, token)
        info = json.load(urllib.request.urlopen(urllib.request.Request(
            f"{base}/fprint", headers={"Authorization": f"Bearer {token}"}), timeout=10))
        points = info["doc_count"]
        if points < 10:
            fail(f"the seeded survey has only {points} documents")

        driver = headless_chromium("1700,1400", browser_log=True)
        wait = WebDriverWait(driver, 10)

        # A browser asking for / lands on the login page.
        driver.get(f"{base}/")
        wait.until(lambda d: "/_dashboard/login?next=" in d.current_url)
        driver.find_element(By.NAME, "name").send_keys("vera")
        driver.find_element(By.NAME, "password").send_keys("look-only")
        driver.save_screenshot(f"{ARTIFACTS}/login.png")
        if SHOTS:
            os.makedirs(SHOTS, exist_ok=True)
            driver.save_screenshot(f"{SHOTS}/dashboard-login.png")
        driver.find_element(By.CSS_SELECTOR, "form.login button").click()
        wait.until(lambda d: d.find_elements(By.ID, "maps"))
        if "vera (viewer)" not in driver.page_source:
            fail("the index does not name the viewer")
        driver.save_screenshot(f"{ARTIFACTS}/index.png")

        # The map: every point, a heatmap, and the live stream open.
        driver.find_element(By.LINK_TEXT, MAP).click()
        wait.until(lambda d: d.find_elements(By.ID, "floor"))
        shown = len(driver.find_elements(By.CSS_SELECTOR, "#floor circle.point"))
        if shown != points:
            fail(f"the map shows {shown} points, the gateway holds {points}")
        count = driver.find_element(By.ID, "point-count").text
        if count != str(points):
            fail(f"the page says {count} points, not {points}")
        heard = len(driver.find_elements(By.CSS_SELECTOR, "#heatmap svg circle.heard"))
        if heard == 0:
            fail("the heatmap has no heard points")
        wait.until(lambda d: d.find_element(By.ID, "live").text == "live")
        driver.save_screenshot(f"{ARTIFACTS}/map.png")
        if SHOTS:
            os.makedirs(SHOTS, exist_ok=True)
            driver.save_screenshot(f"{SHOTS}/dashboard.png")

        # A new document syncs in and appears without a reload.
        fprint("measure", "--map", MAP, "--x", "1700", "--y", "900", "--simulate", "--fast", "--db", LOCAL)
        sync(base, token)
        synced = time.monotonic()
        try:
            WebDriverWait(driver, 5, poll_frequency=0.1).until(
                lambda d: len(d.find_elements(By.CSS_SELECTOR, "#floor circle.point")) == points + 1)
        except Exception:
            driver.save_screenshot(f"{ARTIFACTS}/live-missing.png")
            fail("the newly synced document did not appear within 5 s")
        print(f"browser test: the synced document appeared {time.monotonic() - synced:.2f} s after the sync ended")
        if driver.find_element(By.ID, "point-count").text != str(points + 1):
            fail("the point count did not follow the live point")
        driver.save_screenshot(f"{ARTIFACTS}/live.png")

        # A second walk syncs in: its points appear and its track is drawn as they come.
        fprint("walk", "--scenario", "scenarioJ1NP1", "--simulate", "--fast", "--seed", "2", "--db", LOCAL)
        sync(base, token)
        total = json.load(urllib.request.urlopen(urllib.request.Request(
            f"{base}/fprint", headers={"Authorization": f"Bearer {token}"}), timeout=10))["doc_count"]
        try:
            WebDriverWait(driver, 5, poll_frequency=0.1).until(
                lambda d: len(d.find_elements(By.CSS_SELECTOR, "#floor circle.point")) == total
                and len(d.find_elements(By.CSS_SELECTOR, "#floor polyline.track")) == 2)
        except Exception:
            driver.save_screenshot(f"{ARTIFACTS}/live-walk-missing.png")
            fail(f"the second walk did not appear within 5 s ({total} documents, "
                 f"{len(driver.find_elements(By.CSS_SELECTOR, '#floor circle.point'))} points shown)")
        if driver.find_element(By.ID, "walk-count").text != "2":
            fail("the walk count did not follow the live walk")
        driver.save_screenshot(f"{ARTIFACTS}/live-walk.png")

        # Someone tracks themselves with --publish (in real time, 12 s): their marker, labelled with
        # their name and how long ago they were heard, and their trail move on the open page; when the
        # track ends they leave the map.
        track = subprocess.Popen([BIN, "track", "--simulate", "--scenario", "scenarioJ1NP1", "--seed", "3", "--json",
                                  "--duration", "12", "--db", LOCAL, "--publish", "--gateway", f"{base}/fprint",
                                  "--device", "tablet"], env=dict(ENV, FPRINT_TOKEN=token), stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
        try:
            WebDriverWait(driver, 60, poll_frequency=0.1).until(
                lambda d: len(d.find_elements(By.CSS_SELECTOR, '#floor polyline.live-trail[data-publisher="sam/tablet"]')) == 1
                and len(d.find_element(By.CSS_SELECTOR, "#floor polyline.live-trail").get_attribute("points").split()) >= 4)
        except Exception:
            driver.save_screenshot(f"{ARTIFACTS}/live-position-missing.png")
            fail("the published positions did not appear while the track ran")
        label = driver.find_element(By.CSS_SELECTOR, '#floor text.live-label[data-publisher="sam/tablet"]').text
        if not (label.startswith("sam/tablet · ") and label.endswith(" s ago")):
            fail(f"the live marker's label says {label!r}")
        if driver.find_element(By.ID, "live-count").text != "1":
            fail("the count of people walking did not follow the published positions")
        marker = driver.find_element(By.CSS_SELECTOR, '#floor circle.live[data-publisher="sam/tablet"]')
        svg = driver.find_element(By.ID, "floor")
        left, top, scale = (float(svg.get_attribute(f"data-{k}")) for k in ("left", "top", "scale"))
        cx, cy = float(marker.get_attribute("cx")), float(marker.get_attribute("cy"))
        driver.save_screenshot(f"{ARTIFACTS}/live-position.png")
        out, err = track.communicate(timeout=120)
        if track.returncode != 0:
            fail(f"fprint track --publish exited {track.returncode}: {err.strip()[-400:]}")
        fixes = [json.loads(line) for line in out.splitlines() if '"summary"' not in line]
        if not any(abs(cx - (left + f["x"] * scale)) <= 0.5 and abs(cy - (top + f["y"] * scale)) <= 0.5 for f in fixes):
            fail(f"the live marker at ({cx}, {cy}) is at none of the {len(fixes)} published positions")
        try:
            WebDriverWait(driver, 60, poll_frequency=0.1).until(
                lambda d: not d.find_elements(By.CSS_SELECTOR, '#floor circle.live[data-publisher="sam/tablet"]')
                and d.find_element(By.ID, "live-count").text == "0")
        except Exception:
            driver.save_screenshot(f"{ARTIFACTS}/live-position-stays.png")
            fail("the marker stayed on the map after the track ended")
        print(f"browser test: {len(fixes)} published positions drawn live, labelled '{label}', gone when the track ended")

        errors = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
        if errors:
            fail("console errors: " + "; ".join(e.get("message", "") for e in errors))

        # The viewer cannot reach the admin page: 403, a page saying so.
        driver.get(f"{base}/_dashboard/admin")
        heading = driver.find_element(By.TAG_NAME, "h1").text
        driver.save_screenshot(f"{ARTIFACTS}/admin-forbidden.png")
        if heading != "Forbidden" or "vera:" in driver.page_source:
            fail(f"the viewer reached the admin page (heading {heading!r})")
        cookie = next(c["value"] for c in driver.get_cookies() if c["name"] == "AuthSession")
        try:
            urllib.request.urlopen(urllib.request.Request(f"{base}/_dashboard/admin",
                                                          headers={"Cookie": f"AuthSession={cookie}"}), timeout=10)
            fail("the admin page answered the viewer's cookie with 200")
        except urllib.error.HTTPError as e:
            if e.code != 403:
                fail(f"the admin page answered the viewer with {e.code}, not 403")

        check_local_dashboard(total)

        if SHOTS:
            # The heatmap as `fprint plot` draws it, of the transmitter the dashboard chose first.
            driver.get(f"{base}/_dashboard/maps/{MAP}")
            tx = driver.find_element(By.CSS_SELECTOR, "#tx option[selected]").get_attribute("value")
            fprint("plot", "heatmap", "--map", MAP, "--transmitter", tx, "--db", LOCAL, "-o", f"{SHOTS}/heatmap.png")
            # Every page a viewer sees: the map with both walks, the index, activity, positioning errors.
            driver.save_screenshot(f"{SHOTS}/dashboard-walks.png")
            for name, path, ready in [("dashboard-index", "/_dashboard/", "maps"), ("dashboard-activity", "/_dashboard/activity", "activity"),
                                      ("dashboard-errors", f"/_dashboard/maps/{MAP}/errors", "errors")]:
                driver.get(base + path)
                WebDriverWait(driver, 120).until(lambda d: d.find_elements(By.ID, ready))
                driver.save_screenshot(f"{SHOTS}/{name}.png")
        print(f"browser test: ok ({points} points, live point, walk and published positions, no console errors, admin refused, fprint dashboard); "
              f"screenshots in {ARTIFACTS}")
    finally:
        finish(driver, gateway, TMP)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""make test-browser: every figure of a dashboard page agrees and reads at 100 % (headless Chromium, 1280 px wide).

On a gateway holding one simulated walk, a viewer keeps the map page open while a second
walk of the same route syncs through `fprint sync`; without a reload the point count, the
walk count, the legend and the heatmap's "heard at N of M points" must all agree with the
gateway's documents and with what a reload shows. The two walks' lines differ in colour,
dash and place. Plot text on the map, errors and activity pages is at least 10 px on
screen. An admin issues a token: the page stays as wide as the window. The surveyor's My
uploads come 50 a page. `fprint dashboard` over the local file lists its documents and has
no Admin page. Screenshots go to ${ARTIFACTS:-.build/artifacts}/browser/; with
SCREENSHOTS=DIR, DIR/dashboard-admin.png and DIR/dashboard-mine.png.
"""
import json, os, time, urllib.error, urllib.request

from browser_support import (ARTIFACTS, DASHBOARD_SERVING, GATEWAY_LISTENING, REPO, SHOTS, By, WebDriverWait, begin,
                             fail, finish, headless_chromium, run_fprint, sandbox, start_server)

MAP = "J1NP"
# Smallest plot text on screen, in CSS pixels (the plots draw 12 px labels, a few of 10 px).
MIN_TEXT_PX = 10

BIN = begin("dashboard figures test")

TMP, ENV = sandbox("fprint-figures-", FPRINT_CONFIG=os.path.join(REPO, "Config/app-config.json"))
LOCAL, SECRET = f"{TMP}/survey.sqlite", f"{TMP}/gateway-secret"


def fprint(*args, env=None):
    return run_fprint(BIN, env or ENV, *args)


def shot(driver, name, docs_name=None):
    driver.save_screenshot(f"{ARTIFACTS}/{name}.png")
    if SHOTS and docs_name:
        os.makedirs(SHOTS, exist_ok=True)
        driver.save_screenshot(f"{SHOTS}/{docs_name}.png")


def login(driver, base, name, password):
    driver.delete_all_cookies()
    driver.get(f"{base}/_dashboard/login")
    driver.find_element(By.NAME, "name").send_keys(name)
    driver.find_element(By.NAME, "password").send_keys(password)
    driver.find_element(By.CSS_SELECTOR, "form.login button").click()
    WebDriverWait(driver, 30).until(lambda d: d.find_elements(By.ID, "maps"))


def figures(driver):
    """What the map page says: points, walks, the legend's walks and their points, the heatmap's caption."""
    return driver.execute_script("""
        var legend = Array.from(document.querySelectorAll('#walk-legend li')).map(function (li) { return li.textContent.trim(); })
          .filter(function (text) { return text.indexOf('walk ') === 0; });
        var caption = document.querySelector('#heatmap svg text');
        var heard = caption && /heard at (\\d+) of (\\d+) points/.exec(caption.textContent);
        return {points: +document.getElementById('point-count').textContent,
                walks: +document.getElementById('walk-count').textContent,
                legend: legend.length,
                legendPoints: legend.reduce(function (sum, l) { var m = /, (\\d+) points$/.exec(l); return sum + (m ? +m[1] : 0); }, 0),
                heatmapOf: heard ? +heard[2] : -1, heatmapHeard: heard ? +heard[1] : -1,
                drawn: document.querySelectorAll('#floor circle.point').length,
                tracks: document.querySelectorAll('#floor polyline.track').length};""")


def smallest_text(driver, selector):
    """The smallest font size, in CSS pixels on screen, of the text in the SVG at `selector`, and the SVG's scale."""
    return driver.execute_script("""
        var svg = document.querySelector(arguments[0]);
        if (!svg) return null;
        var box = svg.viewBox.baseVal, natural = box && box.width ? box.width : svg.width.baseVal.value;
        var scale = svg.getBoundingClientRect().width / natural, smallest = 1e9;
        svg.querySelectorAll('text').forEach(function (t) {
          if (t.textContent.trim()) smallest = Math.min(smallest, parseFloat(getComputedStyle(t).fontSize) * scale);
        });
        return [smallest, scale];""", selector)


def check_readable(driver, page, selectors):
    for selector in selectors:
        found = smallest_text(driver, selector)
        if found is None:
            fail(f"{page} has no {selector}")
        size, scale = found
        if size < MIN_TEXT_PX:
            fail(f"{page}: the text of {selector} is {size:.1f} px on screen (drawn at {scale:.2f} of its size), under {MIN_TEXT_PX} px")
        print(f"dashboard figures test: {page} {selector}: smallest text {size:.1f} px (scale {scale:.2f})")


def main():
    os.makedirs(ARTIFACTS, exist_ok=True)
    fprint("walk", "--scenario", "scenarioJ1NP1", "--simulate", "--fast", "--seed", "1", "--db", LOCAL)
    users = f"{TMP}/users"
    with open(os.open(users, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
        f.write("vera:look-only:viewer\nada:keys-please:admin\nsam:walks-a-lot:user\n")
    gateway, port = start_server([BIN, "gateway", "serve", "--port", "0", "--db", f"{TMP}/gateway.sqlite", "--users", users,
                                  "--secret-file", SECRET], ENV, f"{TMP}/gateway.err", GATEWAY_LISTENING, "the gateway", seconds=30)
    base = f"http://127.0.0.1:{port}"
    token = sam = None

    def sync():
        fprint("sync", "--gateway", f"{base}/fprint", "--db", LOCAL, "--push-only", "--quiet", env=sam)

    def documents():
        return json.load(urllib.request.urlopen(urllib.request.Request(
            f"{base}/fprint", headers={"Authorization": f"Bearer {token}"}), timeout=10))["doc_count"]

    driver = None
    try:
        token = fprint("gateway", "token", "--user", "sam", "--users", users, "--secret-file", SECRET).strip()
        sam = dict(ENV, FPRINT_TOKEN=token)
        sync()
        first = documents()
        driver = headless_chromium("1280,1400", browser_log=True)
        width = driver.execute_script("return window.innerWidth")
        login(driver, base, "vera", "look-only")
        driver.get(f"{base}/_dashboard/maps/{MAP}")
        WebDriverWait(driver, 30).until(lambda d: d.find_element(By.ID, "live").text == "live")
        before = figures(driver)
        if before["points"] != first or before["walks"] != 1 or before["legend"] != 1 or before["heatmapOf"] != first:
            fail(f"before the sync the page says {before}, the gateway holds {first} documents of one walk")

        # A second walk of the same route syncs in while the page is open.
        fprint("walk", "--scenario", "scenarioJ1NP1", "--simulate", "--fast", "--seed", "2", "--db", LOCAL)
        sync()
        synced, total = time.monotonic(), documents()

        def agrees(d):
            now = figures(d)
            return (now["points"] == now["drawn"] == now["heatmapOf"] == now["legendPoints"] == total
                    and now["walks"] == now["legend"] == now["tracks"] == 2)
        try:
            WebDriverWait(driver, 15, poll_frequency=0.1).until(agrees)
        except Exception:
            shot(driver, "figures-disagree")
            fail(f"15 s after the sync the page says {figures(driver)}; the gateway holds {total} documents of 2 walks")
        live = figures(driver)
        print(f"dashboard figures test: every figure says {total} points of 2 walks "
              f"{time.monotonic() - synced:.2f} s after the sync: {live}")
        lines = driver.execute_script("""
            return Array.from(document.querySelectorAll('#floor polyline.track')).map(function (line) {
              var r = line.getBoundingClientRect(), style = getComputedStyle(line);
              return [style.stroke, style.strokeDasharray, Math.round(r.left * 10) / 10, Math.round(r.top * 10) / 10];
            });""")
        if len({(l[0], l[1]) for l in lines}) != 2 or len({(l[2], l[3]) for l in lines}) != 2:
            fail(f"the two walks of one route are drawn alike or on top of each other: {lines}")
        shot(driver, "figures-live")
        driver.refresh()
        WebDriverWait(driver, 30).until(lambda d: d.find_elements(By.ID, "floor"))
        reloaded = figures(driver)
        if reloaded != live:
            fail(f"the live page says {live}, a reload {reloaded}")

        check_readable(driver, "the map page", ["#floor", "#heatmap svg", "#coverage svg"])
        if driver.execute_script("return document.documentElement.scrollWidth") > width:
            fail("the map page is wider than the window")
        shot(driver, "figures-map")
        driver.get(f"{base}/_dashboard/maps/{MAP}/errors")
        WebDriverWait(driver, 120).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#errors-plot svg"))
        check_readable(driver, "the errors page", ["#errors-plot svg"])
        driver.get(f"{base}/_dashboard/activity")
        check_readable(driver, "the activity page", ["#activity-chart svg"])

        # An admin issues a token: it wraps inside the window.
        login(driver, base, "ada", "keys-please")
        driver.get(f"{base}/_dashboard/admin")
        driver.find_element(By.NAME, "name").send_keys("sam")
        driver.find_element(By.CSS_SELECTOR, "form[action='/_dashboard/admin/tokens'] button").click()
        WebDriverWait(driver, 30).until(lambda d: d.find_elements(By.ID, "issued-token"))
        issued = driver.find_element(By.ID, "issued-token").text.replace("\n", "")
        if len(issued) < 100:
            fail(f"the issued token is {len(issued)} characters: {issued!r}")
        wide = driver.execute_script("return document.documentElement.scrollWidth")
        shot(driver, "admin-issued", "dashboard-admin")
        if wide > width:
            fail(f"with an issued token the admin page is {wide} px wide in a {width} px window")
        print(f"dashboard figures test: a {len(issued)}-character token wraps; the admin page is {wide} px wide")

        # The surveyor's uploads, 50 a page, newest first.
        login(driver, base, "sam", "walks-a-lot")
        driver.get(f"{base}/_dashboard/mine")
        count, shown = driver.find_element(By.ID, "mine-count").text, driver.find_element(By.ID, "mine-range").text
        rows = len(driver.find_elements(By.CSS_SELECTOR, "#mine tbody tr"))
        if count != str(total) or shown != f"1–50 of {total}" or rows != 50:
            fail(f"My uploads says {count} documents, shows {shown!r} in {rows} rows; sam uploaded {total}")
        shot(driver, "mine", "dashboard-mine")
        driver.find_element(By.CSS_SELECTOR, "a[rel=next]").click()
        WebDriverWait(driver, 30).until(lambda d: d.find_element(By.ID, "mine-range").text == f"51–{total} of {total}")
        if len(driver.find_elements(By.CSS_SELECTOR, "#mine tbody tr")) != total - 50:
            fail("the second page of My uploads does not hold the rest")

        errors = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
        if errors:
            fail("console errors: " + "; ".join(e.get("message", "") for e in errors))
        check_local(driver, total)
        print(f"dashboard figures test: ok; screenshots in {ARTIFACTS}")
    finally:
        finish(driver, gateway, TMP)


def check_local(driver, local_docs):
    """`fprint dashboard`: its Documents page lists every document of the file (`local_docs`, all
    pushed to the gateway); it has no Admin page."""
    local, port = start_server([BIN, "dashboard", "--db", LOCAL, "--port", "0"], ENV, f"{TMP}/dashboard.err",
                               DASHBOARD_SERVING, "fprint dashboard", seconds=30)
    try:
        base = f"http://127.0.0.1:{port}"
        driver.get(f"{base}/_dashboard/")
        nav = [a.text for a in driver.find_elements(By.CSS_SELECTOR, "header nav a")]
        if "Admin" in nav or "My uploads" in nav or "Documents" not in nav:
            fail(f"fprint dashboard's navigation is {nav}")
        driver.find_element(By.LINK_TEXT, "Documents").click()
        WebDriverWait(driver, 30).until(lambda d: d.find_elements(By.ID, "mine-count"))
        count = int(driver.find_element(By.ID, "mine-count").text)
        if count != local_docs:
            fail(f"fprint dashboard lists {count} documents of the file's {local_docs}")
        if count == 0 or len(driver.find_elements(By.CSS_SELECTOR, "#mine tbody tr")) != min(50, count):
            fail(f"fprint dashboard's Documents page shows {count} documents")
        shot(driver, "local-documents")
        driver.get(f"{base}/_dashboard/admin")
        if driver.find_element(By.TAG_NAME, "h1").text != "No admin page here":
            fail("fprint dashboard still serves an Admin page")
        try:
            urllib.request.urlopen(f"{base}/_dashboard/admin", timeout=10)
            fail("fprint dashboard's /_dashboard/admin answered 200")
        except urllib.error.HTTPError as e:
            if e.code != 404:
                fail(f"fprint dashboard's /_dashboard/admin answered {e.code}, not 404")
        print(f"dashboard figures test: fprint dashboard lists {count} documents and has no Admin page")
    finally:
        local.terminate()
        local.wait(timeout=10)


if __name__ == "__main__":
    main()

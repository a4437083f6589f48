#!/usr/bin/env python3
"""make test-browser, part 4: bytes a user chose never run as the gateway's pages, in headless Chromium.

A user uploads a script (`text/javascript`) and an HTML page (`text/html`) as attachments of their
document. The app config has an SVG floor plan whose `<script href>` names that script and which
holds an inline script of its own. An admin, logged in to the dashboard, opens the plan's URL
directly, both attachments directly, and the map page. Each script would fetch a marker URL (the
gateway's access log would show it) and write a marker to localStorage: neither may happen, and
the map page must still draw the plan (screenshot: ${ARTIFACTS}/browser/user-bytes-map.png).
Before, the plan was served with the dashboard's own policy (`script-src 'self'`) and ran the
user's script as the admin.

Skips loudly without chromium, chromedriver or selenium, fails under FPRINT_REQUIRE_REAL=1.
"""
import base64, json, os, time, urllib.request

from browser_support import (ARTIFACTS, GATEWAY_LISTENING, By, WebDriverWait, begin, fail, finish,
                             headless_chromium, run_fprint, sandbox, start_server)


BIN = begin("user bytes test")

TMP, ENV = sandbox("fprint-user-bytes-")
ACCESS_LOG = f"{TMP}/access.jsonl"


def marker(name):
    """What each planted script does when it runs: a request the access log shows, a localStorage entry."""
    return (f"fetch('/marker-{name}').catch(function () {{}}); "
            f"try {{ localStorage.setItem('marker-{name}', 'ran') }} catch (e) {{}}")


PLAN = f"""<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="700" viewBox="0 0 1200 700">
  <rect x="0" y="0" width="1200" height="700" fill="#ffffff"/>
  <g fill="none" stroke="#37474f" stroke-width="8">
    <rect x="40" y="40" width="1120" height="620"/>
    <line x1="40" y1="300" x2="520" y2="300"/>
    <line x1="680" y1="300" x2="1160" y2="300"/>
    <line x1="600" y1="40" x2="600" y2="300"/>
  </g>
  <g font-family="DejaVu Sans, sans-serif" font-size="48" fill="#c62828">
    <text x="160" y="200">Plan room A</text>
    <text x="700" y="200">Plan room B</text>
  </g>
  <script href="/fprint/evildoc/evil.js"/>
  <script>{marker("plan-inline")}</script>
</svg>
"""


def fprint(*args):
    return run_fprint(BIN, ENV, *args)


def start_gateway():
    users = f"{TMP}/users"
    with open(os.open(users, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
        f.write("root:admin-pass:admin\nalice:alice-pass\n")
    return start_server([BIN, "gateway", "--port", "0", "--db", f"{TMP}/gateway.sqlite", "--users", users,
                         "--secret-file", f"{TMP}/secret", "--access-log", ACCESS_LOG], ENV, f"{TMP}/gateway.err",
                        GATEWAY_LISTENING, "the gateway")


def as_alice(base, method, path, body, content_type):
    auth = "Basic " + base64.b64encode(b"alice:alice-pass").decode()
    request = urllib.request.Request(f"{base}{path}", data=body.encode(), method=method,
                                     headers={"Authorization": auth, "Content-Type": content_type})
    return json.load(urllib.request.urlopen(request, timeout=30))


def markers():
    """Marker URLs the gateway was asked for, from its access log."""
    lines = open(ACCESS_LOG).read().splitlines() if os.path.exists(ACCESS_LOG) else []
    return [json.loads(line)["path"] for line in lines if "marker" in line]


def main():
    os.makedirs(ARTIFACTS, exist_ok=True)
    with open(f"{TMP}/evil.svg", "w") as f:
        f.write(PLAN)
    fprint("map", "add", "EVIL", "--image", f"{TMP}/evil.svg", "--floor", "1", "--calibrate", "100,100 1100,100 25m",
           "--outline", "40,40 1160,40 1160,660 40,660")
    gateway, port = start_gateway()
    base = f"http://127.0.0.1:{port}"
    driver = None
    try:
        rev = as_alice(base, "PUT", "/fprint/evildoc", json.dumps({"couchbase_sync_gateway_id": "alice"}),
                       "application/json")["rev"]
        rev = as_alice(base, "PUT", f"/fprint/evildoc/evil.js?rev={rev}", marker("attachment-js"), "text/javascript")["rev"]
        as_alice(base, "PUT", f"/fprint/evildoc/evil.html?rev={rev}",
                 f"<html><body><h1>a user's page</h1><script>{marker('attachment-html')}</script></body></html>", "text/html")

        driver = headless_chromium("1200,1100", browser_log=True)
        driver.get(f"{base}/_dashboard/login")
        driver.find_element(By.NAME, "name").send_keys("root")
        driver.find_element(By.NAME, "password").send_keys("admin-pass")
        driver.find_element(By.CSS_SELECTOR, "form button").click()
        WebDriverWait(driver, 60).until(lambda d: "/_dashboard/" in d.current_url and "login" not in d.current_url)

        for path in ["/_dashboard/floor-plans/EVIL", "/fprint/evildoc/evil.js", "/fprint/evildoc/evil.html"]:
            driver.get(f"{base}{path}")
            time.sleep(2)
            name = path.strip("/").replace("/", "-")
            driver.save_screenshot(f"{ARTIFACTS}/user-bytes-{name}.png")
            if markers():
                fail(f"opening {path} ran a user's script as the admin: the gateway was asked for {markers()}")

        driver.get(f"{base}/_dashboard/maps/EVIL")
        WebDriverWait(driver, 30).until(lambda d: d.find_elements(By.CSS_SELECTOR, "image.floor-plan"))
        time.sleep(2)
        driver.save_screenshot(f"{ARTIFACTS}/user-bytes-map.png")
        images = driver.find_elements(By.CSS_SELECTOR, "image.floor-plan")
        hrefs = {image.get_attribute("href") for image in images}
        if hrefs != {"/_dashboard/floor-plans/EVIL"}:
            fail(f"the map page draws its plan from {hrefs}")
        plan_gets = [json.loads(line) for line in open(ACCESS_LOG).read().splitlines()
                     if '"/_dashboard/floor-plans/EVIL"' in line]
        if not any(entry["status"] == 200 for entry in plan_gets):
            fail(f"the map page's plan was not served: {plan_gets}")
        stored = driver.execute_script("return JSON.stringify(Object.keys(localStorage))")
        if "marker" in stored or markers():
            fail(f"a user's script ran: localStorage {stored}, marker requests {markers()}")
        print(f"user bytes test: ok (the plan, a text/javascript and a text/html attachment opened by an admin ran "
              f"nothing; the map page draws the plan: {ARTIFACTS}/user-bytes-map.png)")
    finally:
        finish(driver, gateway, TMP, seconds=30)


main()

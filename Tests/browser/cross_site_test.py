#!/usr/bin/env python3
"""make test-browser, part 2: another site's page against a logged-in admin, in headless Chromium.

An admin logs in to the gateway's dashboard. Then they open pages of an attacker's site,
served from another origin (http://localhost:PORT, another site; and http://127.0.0.1:PORT,
the same site on another port, where SameSite does not help):
- a page that auto-posts a login form for the attacker's viewer account to /_session
  (it replaced the admin's session before);
- pages that post a `text/plain` `_bulk_docs` with the cookie, by fetch and by a form
  (201 before: a document was written in the admin's name).
After each, the admin's session must still be the admin's, and nothing must be stored.
Also: logging out ends the session on the server (a copied cookie is refused after).

Skips loudly without chromium, chromedriver or selenium, fails under FPRINT_REQUIRE_REAL=1.
"""
import http.server, json, os, shutil, socketserver, subprocess, threading, time, urllib.error, urllib.request

from browser_support import (ARTIFACTS, GATEWAY_LISTENING, REPO, By, WebDriverWait, begin, fail, headless_chromium,
                             sandbox, start_server)



BIN = begin("cross-site test")

TMP, ENV = sandbox("fprint-cross-site-", FPRINT_CONFIG=os.path.join(REPO, "Config/app-config.json"))
SECRET = f"{TMP}/secret"


def start_gateway():
    users = f"{TMP}/users"
    with open(os.open(users, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
        f.write("root:admin-pass:admin\nmallory:attacker-pass:viewer\n")
    return start_server([BIN, "gateway", "--port", "0", "--db", f"{TMP}/gateway.sqlite", "--users", users,
                         "--secret-file", SECRET], ENV, f"{TMP}/gateway.err", GATEWAY_LISTENING, "the gateway")


def attacker_site(gateway):
    """The attacker's pages, on a port of their own."""
    target = f"http://127.0.0.1:{gateway}"
    body = json.dumps({"docs": [{"_id": "csrf-fetch", "couchbase_sync_gateway_id": "root"}]})
    pages = {
        "/login.html": f"""<html><body><form id=f method=post action="{target}/_session">
            <input name=name value=mallory><input name=password value=attacker-pass></form>
            <script>document.getElementById('f').submit()</script></body></html>""",
        "/fetch.html": f"""<html><body><script>
            fetch("{target}/fprint/_bulk_docs", {{method: "POST", mode: "no-cors", credentials: "include",
              headers: {{"Content-Type": "text/plain"}}, body: {json.dumps(body)}}})
              .finally(function () {{ document.title = "sent"; }});</script></body></html>""",
        "/form.html": f"""<html><body><form id=f method=post enctype="text/plain" action="{target}/fprint/_bulk_docs">
            <input name='{{"docs":[{{"_id":"csrf-form","couchbase_sync_gateway_id":"root","x":"' value='"}}]}}'></form>
            <script>document.getElementById('f').submit()</script></body></html>""",
    }

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            page = pages.get(self.path.split("?")[0])
            self.send_response(200 if page else 404)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write((page or "").encode())

        def log_message(self, *args):
            pass

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, server.server_address[1]


def stored(base, token, ids):
    keys = json.dumps({"keys": ids}).encode()
    request = urllib.request.Request(f"{base}/fprint/_all_docs", data=keys, method="POST",
                                     headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    rows = json.load(urllib.request.urlopen(request, timeout=30))["rows"]
    return [r["key"] for r in rows if "error" not in r]


def main():
    os.makedirs(ARTIFACTS, exist_ok=True)
    gateway, port = start_gateway()
    base = f"http://127.0.0.1:{port}"
    site, site_port = attacker_site(port)
    admin_token = subprocess.run([BIN, "gateway", "token", "--user", "auditor", "--role", "admin", "--token-only",
                                  "--secret-file", SECRET],
                                 env=ENV, capture_output=True, text=True, check=True).stdout.strip()
    driver = headless_chromium("1200,900")
    try:
        driver.get(f"{base}/_dashboard/login")
        driver.find_element(By.NAME, "name").send_keys("root")
        driver.find_element(By.NAME, "password").send_keys("admin-pass")
        driver.find_element(By.CSS_SELECTOR, "form button").click()
        WebDriverWait(driver, 60).until(lambda d: "/_dashboard/" in d.current_url and "login" not in d.current_url)

        def still_admin(after):
            driver.get(f"{base}/_dashboard/admin")
            if "Tokens and sessions" not in driver.page_source or "root (admin)" not in driver.page_source:
                driver.save_screenshot(f"{ARTIFACTS}/cross-site-{after}.png")
                fail(f"after {after}, the dashboard is no longer the admin's")

        for origin in [f"http://localhost:{site_port}", f"http://127.0.0.1:{site_port}"]:
            driver.get(f"{origin}/login.html")
            time.sleep(1.5)
            still_admin(f"a login form posted from {origin}")
            driver.get(f"{origin}/fetch.html")
            WebDriverWait(driver, 30).until(lambda d: d.title == "sent")
            driver.get(f"{origin}/form.html")
            time.sleep(1.5)
            written = stored(base, admin_token, ["csrf-fetch", "csrf-form"])
            if written:
                fail(f"a page of {origin} wrote {written} with the admin's cookie")
            still_admin(f"cross-site writes from {origin}")
        driver.save_screenshot(f"{ARTIFACTS}/cross-site-admin.png")

        # Logging out ends the session on the server: a copy of the cookie opens nothing after.
        cookie = driver.get_cookie("AuthSession")
        if not cookie or cookie.get("sameSite") != "Strict" or not cookie.get("httpOnly"):
            fail(f"the session cookie is {cookie}")
        driver.get(f"{base}/_dashboard/admin")
        driver.find_element(By.CSS_SELECTOR, "form[action='/_dashboard/logout'] button").click()
        WebDriverWait(driver, 30).until(lambda d: "login" in d.current_url)
        copied = urllib.request.Request(f"{base}/_dashboard/admin", headers={"Cookie": f"AuthSession={cookie['value']}"})
        try:
            page = urllib.request.urlopen(copied, timeout=30).read().decode()
            if "Tokens and sessions" in page:
                fail("a cookie copied before the logout still opens the admin page")
        except urllib.error.HTTPError:
            pass
        print("cross-site test: ok (login form and text/plain writes from another site and another port refused, "
              "session kept; logout ends the session on the server)")
    finally:
        driver.quit()
        site.shutdown()
        gateway.terminate()
        gateway.wait(timeout=30)
        shutil.rmtree(TMP, ignore_errors=True)


main()

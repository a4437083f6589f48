#!/usr/bin/env python3
"""make test-browser: a map's Network page of the gateway's dashboard in headless Chromium.

A gateway with --probe-port on loopback (its app config holds an alert rule, download
< 8 Mbit/s on J1NP) measures one real `fprint probe --every` run; runs shaped like it,
on J1NP over four days of Europe/Prague (the gateway's TZ) with known figures, are
imported with `fprint import` and synced. A viewer logs in and checks: the index lists
the rule's alert and links to the page; the heatmap has its unit and colour bar; the
chart per day has a bar per day with runs and the known median; the limit's line; a
click on a day opens its hours; the figure switch keeps the range; the table lists the
runs; no console errors; anonymous is sent to the login; `fprint dashboard` over the local
file draws the same days and limit and lists the alert. Screenshots go to
${ARTIFACTS:-.build/artifacts}/browser/, and with SCREENSHOTS=DIR also to
DIR/dashboard-network.png and DIR/dashboard-network-hours.png.

Without chromium, chromedriver or selenium it skips loudly, or fails under
FPRINT_REQUIRE_REAL=1 (CI sets it).
"""
import copy, json, os, re, urllib.parse, urllib.request
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from browser_support import (ARTIFACTS, DASHBOARD_SERVING, GATEWAY_LISTENING, REPO, SHOTS, By, WebDriverWait, begin,
                             fail, finish, headless_chromium, run_fprint, sandbox, start_server)

ZONE = "Europe/Prague"
MAP = "J1NP"

# (local time in ZONE, download Mbit/s or None for a failed down phase, UDP RTT ms, x, y).
# Per day: Nov 20 one run (30), Nov 21 three (10, 20, 40: median 20; 09:00 median 15),
# Nov 22 none, Nov 23 three (5, 6 and a failed download): the rule's alert is active.
RUNS = [
    ("2026-11-20 10:15", 30, 12, 400, 700),
    ("2026-11-21 09:10", 10, 20, 1000, 1200), ("2026-11-21 09:40", 20, 30, 1050, 1250),
    ("2026-11-21 15:00", 40, 25, 1500, 1500),
    ("2026-11-23 11:00", 5, 40, 1800, 2000), ("2026-11-23 11:30", 6, 44, 1850, 2050),
    ("2026-11-23 12:00", None, 38, 600, 2400),
]

BIN = begin("network test")

TMP, ENV = sandbox("fprint-network-", TZ=ZONE)
LOCAL, SECRET, CONFIG = f"{TMP}/survey.sqlite", f"{TMP}/gateway-secret", f"{TMP}/app-config.json"


def fprint(*args, env=None):
    return run_fprint(BIN, env or ENV, *args)


def write_config():
    """The repository's app config, with one alert rule on J1NP's download."""
    config = json.load(open(os.path.join(REPO, "Config/app-config.json")))
    config["scenariosURL"] = os.path.join(REPO, "Scenarios/scenarios.json")
    config["alerts"] = {"rules": [{"id": "slow-down", "figure": "download", "compare": "<", "limit": "8 Mbit/s", "map": MAP}]}
    json.dump(config, open(CONFIG, "w"))
    ENV["FPRINT_CONFIG"] = CONFIG


def shaped_like(real, number, local, down, rtt, x, y):
    """A run made from the real one: another time, place and figures. Its phases lose their
    signatures (their figures are no longer what the server signed) and keep everything else."""
    doc = copy.deepcopy(real)
    start = datetime.strptime(local, "%Y-%m-%d %H:%M").replace(tzinfo=ZoneInfo(ZONE)).astimezone(timezone.utc)
    iso = lambda t: t.strftime("%Y-%m-%dT%H:%M:%S.000Z")
    doc.pop("_rev", None)
    doc.update({"_id": f"network-run-{number}", "level": MAP, "x": x, "y": y, "position": {"x": x, "y": y, "rule": "given"},
                "startTime": iso(start), "endTime": iso(start + timedelta(seconds=8)), "createdAt": iso(start + timedelta(seconds=8)),
                "monitorRun": number})
    probe = doc["networkProbes"][0]
    probe.update({"startedAt": iso(start), "endedAt": iso(start + timedelta(seconds=8)),
                  "positionStart": {"x": x, "y": y}, "positionEnd": {"x": x, "y": y}})
    for phase in probe["phases"]:
        phase.pop("signed", None)
        if phase["phase"] in ("down", "up"):
            if down is None and phase["phase"] == "down":
                for key in list(phase):
                    if key not in ("phase",):
                        del phase[key]
                phase.update({"status": "timeout", "reason": "no data for 5 s"})
            else:
                phase.update({"status": "ok", "bitsPerSecond": (down if phase["phase"] == "down" else (down or 6) / 2) * 1e6})
        elif phase["phase"] == "udp":
            phase.update({"status": "ok", "rttMs": dict(phase.get("rttMs") or {}, median=rtt), "lossUpPercent": 0.5,
                          "lossDownPercent": 0.5, "jitterUpMs": 1.5, "jitterDownMs": 2.5})
    return doc


def bars(driver):
    return [(g.get_attribute("data-label"), int(g.get_attribute("data-count")), g.get_attribute("data-median"))
            for g in driver.find_elements(By.CSS_SELECTOR, "#network-chart g.bucket")]


def main():
    os.makedirs(ARTIFACTS, exist_ok=True)
    write_config()
    users = f"{TMP}/users"
    with open(os.open(users, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
        f.write("vera:look-only:viewer\n")
    gateway, port = start_server([BIN, "gateway", "serve", "--port", "0", "--probe-port", "0", "--db",
                                  f"{TMP}/gateway.sqlite", "--users", users, "--secret-file", SECRET], ENV,
                                 f"{TMP}/gateway.err", GATEWAY_LISTENING, "the gateway", seconds=30)
    base = f"http://127.0.0.1:{port}"
    probe_port = re.search(r"probes on tcp\+udp 127\.0\.0\.1:(\d+)", open(f"{TMP}/gateway.err").read()).group(1)
    driver = None
    try:
        token = fprint("gateway", "token", "--user", "sam", "--token-only", "--secret-file", SECRET).strip()
        # One real run against the gateway's probe port, on J2NP (loopback's gigabits would dwarf J1NP's scale).
        out = fprint("probe", "--every", "1s", "--count", "1", "--map", "J2NP", "--x", "500", "--y", "500", "--server",
                     f"127.0.0.1:{probe_port}", "--token", token, "--seconds", "1", "--datagrams", "20", "--pings", "2",
                     "--json", "--db", LOCAL)
        real = json.loads(out)
        if real.get("mode") != "probe" or not real.get("networkProbes"):
            fail(f"fprint probe --every --json printed no probe run document: {out[:300]}")
        runs = [shaped_like(real, i + 1, *run) for i, run in enumerate(RUNS)]
        json.dump(runs, open(f"{TMP}/runs.json", "w"))
        fprint("import", f"{TMP}/runs.json", "--db", LOCAL)
        fprint("sync", "--gateway", f"{base}/fprint", "--db", LOCAL, "--push-only", "--quiet", env=dict(ENV, FPRINT_TOKEN=token))

        driver = headless_chromium("1300,2100", browser_log=True)
        wait = WebDriverWait(driver, 20)
        # Anonymous: the login, which leads back to the page asked for.
        driver.get(f"{base}/_dashboard/network/{MAP}?metric=down&by=day")
        wait.until(lambda d: "/_dashboard/login?next=" in d.current_url)
        if urllib.parse.unquote(d_query(driver.current_url, "next")) != f"/_dashboard/network/{MAP}?metric=down&by=day":
            fail(f"anonymous was sent to {driver.current_url}")
        driver.find_element(By.NAME, "name").send_keys("vera")
        driver.find_element(By.NAME, "password").send_keys("look-only")
        driver.find_element(By.CSS_SELECTOR, "form.login button").click()
        wait.until(lambda d: d.find_elements(By.ID, "network-chart"))

        # The index: the rule's alert (the gateway's own rules) and the links to the Network pages.
        driver.get(f"{base}/_dashboard/")
        wait.until(lambda d: d.find_elements(By.ID, "maps"))
        alert_rows = driver.find_elements(By.CSS_SELECTOR, "#limit-alerts tr.active")
        if not alert_rows or "slow-down" not in alert_rows[0].text or "map J1NP" not in alert_rows[0].text:
            fail("the gateway's index does not list the active slow-down alert: "
                 + (driver.find_element(By.TAG_NAME, "main").text[-600:]))
        links = {a.get_attribute("href").rsplit("/", 1)[-1]: a.text for a in driver.find_elements(By.CSS_SELECTOR, "a.network-link")}
        if links.get(MAP) != f"network ({len(RUNS)} probes)" or "J2NP" not in links:
            fail(f"the index's network links are {links}")
        driver.save_screenshot(f"{ARTIFACTS}/network-index.png")
        driver.find_element(By.CSS_SELECTOR, f'a.network-link[href="/_dashboard/network/{MAP}"]').click()
        wait.until(lambda d: d.find_elements(By.ID, "network-chart"))

        # Per day: Nov 20, 21 and 23 (Nov 22 an empty slot), Nov 21's median 20 Mbit/s, the 8 Mbit/s limit.
        days = bars(driver)
        if [(label, count) for label, count, _ in days] != [("Nov 20", 1), ("Nov 21", 3), ("Nov 23", 2)]:
            fail(f"the chart per day has the bars {days}")
        if days[1][2] != "20":
            fail(f"Nov 21's median is {days[1][2]}, not 20")
        if len(driver.find_elements(By.CSS_SELECTOR, "#network-chart text.bucket-label")) != 4:
            fail("the chart per day does not have a slot for each of the 4 days Nov 20 … 23")
        limits = [g.get_attribute("data-value") for g in driver.find_elements(By.CSS_SELECTOR, "#network-chart g.limit")]
        if limits != ["8"]:
            fail(f"the chart's limit lines are {limits}, not the rule's 8 Mbit/s")
        if ZONE not in driver.find_element(By.ID, "network-chart").text:
            fail("the chart does not name its time zone")
        # The heatmap: squares, the unit and the colour bar.
        heat = driver.find_element(By.ID, "network-heatmap")
        if not heat.find_elements(By.CSS_SELECTOR, "svg rect.cell") or not heat.find_elements(By.CSS_SELECTOR, "svg g.colorbar"):
            fail("the heatmap has no squares or no colour bar")
        if heat.find_element(By.CSS_SELECTOR, "svg text.unit").text != "Mbit/s":
            fail("the heatmap's colour bar does not say Mbit/s")
        # The table: every J1NP run, newest first, the failed download a dash.
        rows = driver.find_elements(By.CSS_SELECTOR, "#network-runs tbody tr")
        if len(rows) != len(RUNS):
            fail(f"the table has {len(rows)} runs, not {len(RUNS)}")
        first = [td.text for td in rows[0].find_elements(By.TAG_NAME, "td")]
        if not first[0].startswith("2026-11-23 12:00") or first[2] != f"{MAP} (600, 2400)" or first[3] != "—":
            fail(f"the newest row reads {first}")
        driver.save_screenshot(f"{ARTIFACTS}/network.png")
        if SHOTS:
            os.makedirs(SHOTS, exist_ok=True)
            driver.save_screenshot(f"{SHOTS}/dashboard-network.png")

        # Nov 21 opens into its hours: 09:00 (10, 20: median 15) and 15:00.
        driver.find_element(By.CSS_SELECTOR, '#network-chart a.bucket-link g.bucket[data-label="Nov 21"] rect.range').click()
        wait.until(lambda d: "by=hour" in d.current_url)
        hours = bars(driver)
        if [(label, count, median) for label, count, median in hours] != [("09:00", 2, "15"), ("15:00", 1, "40")]:
            fail(f"Nov 21's hours are {hours}")
        if "from=2026-11-21T00:00" not in driver.current_url or len(driver.find_elements(By.CSS_SELECTOR, "#network-runs tbody tr")) != 3:
            fail(f"the day's page {driver.current_url} does not hold the day's 3 runs")
        driver.save_screenshot(f"{ARTIFACTS}/network-hours.png")
        if SHOTS:
            driver.save_screenshot(f"{SHOTS}/dashboard-network-hours.png")

        # Another figure, the same range: RTT in ms, no limit (the rule is on the download).
        driver.find_element(By.LINK_TEXT, "RTT").click()
        wait.until(lambda d: "metric=rtt" in d.current_url)
        hours = bars(driver)
        if "from=2026-11-21T00:00" not in driver.current_url or [m for _, _, m in hours] != ["25", "25"]:
            fail(f"RTT of Nov 21 per hour: {hours} at {driver.current_url}")
        if driver.find_elements(By.CSS_SELECTOR, "#network-chart g.limit") or "(ms)" not in driver.find_element(By.ID, "network-chart").text:
            fail("the RTT chart draws the download's limit or lacks its unit")
        driver.save_screenshot(f"{ARTIFACTS}/network-rtt.png")

        errors = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
        if errors:
            fail("console errors: " + "; ".join(e.get("message", "") for e in errors))
        check_local_dashboard()
        print(f"network test: ok ({len(RUNS)} runs on {MAP} from one real probe run: 3 days, Nov 21's median 20 Mbit/s, "
              f"its hours, the 8 Mbit/s limit, RTT, the gateway's alert; no console errors; fprint dashboard the same); screenshots in {ARTIFACTS}")
    finally:
        finish(driver, gateway, TMP)


def check_local_dashboard():
    """`fprint dashboard` over the local file draws the same page with its own config's rules."""
    local, port = start_server([BIN, "dashboard", "--db", LOCAL, "--port", "0", "--view-only"], ENV, f"{TMP}/dashboard.err",
                               DASHBOARD_SERVING, "fprint dashboard", seconds=30)
    try:
        page = urllib.request.urlopen(f"http://127.0.0.1:{port}/_dashboard/network/{MAP}?by=day", timeout=30).read().decode()
        if page.count('<g class="bucket"') != 3 or '<g class="limit" data-value="8">' not in page:
            fail("fprint dashboard's Network page lacks the 3 days or the 8 Mbit/s limit")
        index = urllib.request.urlopen(f"http://127.0.0.1:{port}/_dashboard/", timeout=30).read().decode()
        if 'id="limit-alerts"' not in index or "slow-down" not in index:
            fail("fprint dashboard's index does not list the slow-down alert")
    finally:
        local.terminate()
        local.wait(timeout=10)


def d_query(url, key):
    return urllib.parse.parse_qs(urllib.parse.urlparse(url).query).get(key, [""])[0]


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Checks the VM Wi-Fi run: the measurement saw all three hostapd APs with
plausible signals; after ap11 was stopped, later walk windows do not report it."""
import json, sys
out = sys.argv[1]
fail = []
def check(ok, msg):
    print(("ok   " if ok else "FAIL ") + msg)
    if not ok: fail.append(msg)

steps = open(f"{out}/steps").read() if __import__("os").path.exists(f"{out}/steps") else ""
check("measure exit 0" in steps, "fprint measure exited 0 (" + open(f"{out}/measure.err").read().strip().splitlines()[-1:].__str__() + ")")
doc = json.loads(open(f"{out}/measure.json").read())
wifi = doc["wifiScans"]
ssids = {w["ssid"] for w in wifi}
check({"fprint-ap1", "fprint-ap6", "fprint-ap11"} <= ssids, f"all three APs recorded: {sorted(ssids)}")
chans = {w["ssid"]: w["channel"] for w in wifi}
check(chans.get("fprint-ap1") == 1 and chans.get("fprint-ap6") == 6 and chans.get("fprint-ap11") == 11, f"channels {chans}")
check(all(-100 <= w["rssi"] <= 0 for w in wifi), "signals plausible (-100..0 dBm): " + str(sorted({w['rssi'] for w in wifi})))
check(all(0 <= w["time"] <= doc["durationMs"] and w.get("ageMs", 0) >= 0 for w in wifi), "times inside the measurement")
check(doc["providers"]["wifi"]["status"] == "ok", "wifi provider ok: " + json.dumps(doc["providers"]["wifi"]))
check(doc["providers"]["ble"]["status"] == "disabled", "BLE disabled as asked")

check("walk exit 0" in steps, "fprint walk exited 0")
docs = [json.loads(l) for l in open(f"{out}/walk-docs.jsonl") if l.strip()]
docs.sort(key=lambda d: d["seq"])
check(len(docs) >= 4, f"walk stored {len(docs)} windows")
from datetime import datetime
def ms(iso): return int(datetime.strptime(iso, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=__import__("datetime").timezone.utc).timestamp() * 1000)
stopped = int(open(f"{out}/ap11-stopped-at").read())
seen = [("fprint-ap11" in {w['ssid'] for w in d["wifiScans"]}) for d in docs]
print("ap11 per window:", seen, "stopped at", stopped)
before = [s for s, d in zip(seen, docs) if ms(d["window"]["end"]) <= stopped]
after = [s for s, d in zip(seen, docs) if ms(d["window"]["start"]) >= stopped]
check(any(before), f"ap11 heard in a window before it was stopped ({len(before)} windows)")
check(len(after) >= 3 and not any(after), f"ap11 absent from all {len(after)} windows after it was stopped")
for d in docs:
    start, end = d["window"]["startMs"], d["window"]["endMs"]
    check(all(0 <= w["time"] <= end - start for w in d["wifiScans"]), f"window {d['seq']}: no entry older than its window")

# fprint probe --every over wlan0's association with fprint-probe (channel 11, 2462 MHz).
import csv
check("monitor exit 0" in steps, "fprint probe --every exited 0 (" + open(f"{out}/monitor.err").read().strip().splitlines()[-1:].__str__() + ")")
runs = list(csv.DictReader(open(f"{out}/monitor-runs.csv")))
check(len(runs) == 2, f"the monitor stored 2 runs ({len(runs)})")
for r in runs:
    link = {k: v for k, v in r.items() if k.startswith("link_") and not k.startswith("link_cell")}
    check(r["link_interface"] == "wlan0" and r["link_kind"] == "wifi", f"run {r['doc_id'][:10]}: link is wlan0 (wifi): {link}")
    check(r["link_ssid"] == "fprint-probe" and r["link_frequency_mhz"] == "2462", f"run {r['doc_id'][:10]}: SSID fprint-probe on 2462 MHz")
    ap = open(f"{out}/wlan0-link.txt").read().split()
    check(len(ap) > 2 and r["link_bssid"] == ap[2].lower(), f"run {r['doc_id'][:10]}: BSSID as iw saw it ({ap[2:3]})")
    check(r["link_signal_dbm"] != "" and -100 <= int(r["link_signal_dbm"]) <= 0, f"run {r['doc_id'][:10]}: signal {r['link_signal_dbm']} dBm")
    check(r["down_bits_per_second"] != "" and float(r["down_bits_per_second"]) > 0, f"run {r['doc_id'][:10]}: a download figure")
sys.exit(1 if fail else 0)

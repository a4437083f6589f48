#!/usr/bin/env bash
# `make test-vm`: the real-kernel end-to-end BLE test (DESIGN.md §6).
# Boots Debian's kernel under qemu (software emulation) with virtme-ng, runs
# guest.sh there and checks what it stored. Needs: linux-image-amd64,
# qemu-system-x86, bluez, bluez-test-tools, hostapd, busybox-static (apt) and virtme-ng (pip).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
. Tests/vm/preflight.sh
vm_preflight btvirt:bluez-test-tools btmon:bluez hciconfig:bluez hcitool:bluez hostapd:hostapd
start=$(date +%s)
swift build --product fprint >/dev/null
BIN=$(swift build --show-bin-path)/fprint
KERNEL=${FPRINT_VM_KERNEL:-$(ls /boot/vmlinuz-* | sort -V | tail -1)}
OUT=$(mktemp -d /tmp/fprint-vm.XXXXXX)
echo "test-vm: kernel $KERNEL, results in $OUT" >&2
# vng's console goes to a file of its own: qemu reopens its output path with O_TRUNC,
# which would wipe a log file our caller redirected stdout into (CI's).
timeout 600 vng --disable-kvm --rwdir "$OUT" -r "$KERNEL" --exec "bash $ROOT/Tests/vm/guest.sh $BIN $OUT $ROOT" \
    > "$OUT/vng.log" 2>&1 < /dev/null || true
fail() {
    echo "test-vm: FAIL: $*" >&2
    echo "--- guest log:" >&2; tail -40 "$OUT/guest.log" >&2 || true
    echo "--- vng:" >&2; tail -20 "$OUT/vng.log" >&2 || true
    exit 1
}
[ -e "$OUT/guest.done" ] || fail "the guest script did not finish"
[ "$(cat "$OUT/measure.rc")" = 0 ] || fail "measure on hci0 exited $(cat "$OUT/measure.rc"): $(cat "$OUT/measure.err")"
[ "$(cat "$OUT/measure2.rc")" = 0 ] || fail "second measure exited $(cat "$OUT/measure2.rc") (adapter left scanning?): $(cat "$OUT/measure2.err")"
[ "$(cat "$OUT/replay.rc")" = 0 ] || fail "replay of the btmon capture exited $(cat "$OUT/replay.rc"): $(cat "$OUT/replay.err")"
[ "$(cat "$OUT/combined.rc")" = 0 ] || fail "the BLE + Wi-Fi measure exited $(cat "$OUT/combined.rc"): $(cat "$OUT/combined.err")"
[ "$(cat "$OUT/scan.rc")" = 0 ] || fail "scan on hci0 exited $(cat "$OUT/scan.rc"): $(cat "$OUT/scan.err")"
[ "$(cat "$OUT/exclusive-up.rc")" = 82 ] || fail "--exclusive on an up adapter should exit 82, got $(cat "$OUT/exclusive-up.rc"): $(cat "$OUT/exclusive-up.err")"
[ "$(cat "$OUT/exclusive.rc")" = 0 ] || fail "--exclusive measure exited $(cat "$OUT/exclusive.rc"): $(cat "$OUT/exclusive.err")"
[ "$(cat "$OUT/9p-measure.rc")" = 0 ] || fail "measure into a database on the 9p share exited $(cat "$OUT/9p-measure.rc"): $(cat "$OUT/9p-measure.err")"
[ "$(grep -c '^warning:' "$OUT/9p-measure.err")" = 1 ] && grep -q 'rollback journal' "$OUT/9p-measure.err" \
    || fail "no single rollback-journal warning on 9p ($(cat "$OUT/9p-fstype")): $(cat "$OUT/9p-measure.err")"
[ "$(cat "$OUT/9p-list.rc")" = 0 ] && [ "$(grep -c '"id"' "$OUT/9p-list.json")" = 1 ] \
    || fail "list on the 9p database exited $(cat "$OUT/9p-list.rc"): $(cat "$OUT/9p-list.err")"
echo "test-vm: 9p share ($(cat "$OUT/9p-fstype")): $(cat "$OUT/9p-measure.err" | grep '^warning:')" >&2
python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
addr = open(f"{out}/hci1.address").read().strip().upper()
def check(label, path, live):
    doc = json.loads(open(path).read().splitlines()[0])
    ble = doc["providers"]["ble"]
    assert ble["status"] == "ok", (label, ble)
    if live:
        assert ble["source"] == "hci:hci0" and not ble.get("replay"), (label, ble)
    else:
        assert ble["source"].startswith("btsnoop:") and ble["replay"] is True, (label, ble)
    hits = [s for s in doc["bleScans"] if s["address"] == addr and s.get("beacon", {}).get("type") == "ibeacon"]
    assert hits, f"{label}: no iBeacon from {addr} among {len(doc['bleScans'])} reports"
    b = hits[0]["beacon"]
    assert (b["uuid"], b["major"], b["minor"], b["measuredPower"]) == ("FB0B57A2-8228-44CD-913A-94A122BA1206", 1, 53, -66), b
    assert "rssi" not in hits[0], hits[0]  # the emulator reports 127: not available
    print(f"test-vm: {label}: {len(hits)} iBeacon report(s) from {addr}, {len(doc['bleScans'])} reports in all", file=sys.stderr)
check("live hci0", f"{out}/measure.json", True)
check("btmon replay", f"{out}/replay.json", False)
doc = json.loads(open(f"{out}/combined.json").read().splitlines()[0])
assert doc["providers"]["ble"]["status"] == "ok" and doc["providers"]["ble"]["source"] == "hci:hci0", doc["providers"]["ble"]
assert doc["providers"]["wifi"]["status"] == "ok" and doc["providers"]["wifi"]["source"] == "nl80211:wlan0", doc["providers"]["wifi"]
assert any(s["address"] == addr and s.get("beacon", {}).get("minor") == 53 for s in doc["bleScans"]), doc["bleScans"]
aps = [w for w in doc["wifiScans"] if w["ssid"] == "fprint-combined"]
assert aps and aps[0]["channel"] == 6 and -100 < aps[0]["rssi"] < 0, doc["wifiScans"]
print(f"test-vm: one document, both radios: iBeacon from {addr} and fprint-combined at {aps[0]['rssi']} dBm", file=sys.stderr)
doc = json.loads(open(f"{out}/exclusive.json").read().splitlines()[0])
assert doc["providers"]["ble"]["source"] == "hci:hci0:exclusive", doc["providers"]["ble"]
assert any(s["address"] == addr and s.get("beacon", {}).get("minor") == 53 for s in doc["bleScans"]), doc["bleScans"]
print(f"test-vm: exclusive user channel: iBeacon from {addr}", file=sys.stderr)
rows = [json.loads(l) for l in open(f"{out}/scan.jsonl") if l.strip()]
assert any(r["address"] == addr and r.get("beacon", {}).get("major") == 1 and r["count"] >= 1 for r in rows), rows
print(f"test-vm: scan: {len(rows)} JSON line(s), iBeacon row for {addr}", file=sys.stderr)
PY
python3 - "$OUT" <<'PY'
# Issue 58: fprint advertise on hci1 (A), heard on hci0 (B). Tests/vm/advertise-guest.sh.
import json, sys
out = sys.argv[1]
A = f"{out}/adv"
UUID = "2F234454-CF6D-4A0F-ADF2-F4911BA9FFA6"
addr = open(f"{out}/hci1.address").read().strip().upper()
def text(name): return open(f"{A}/{name}").read().strip()
def lines(name): return [json.loads(l) for l in open(f"{A}/{name}") if l.strip()]
def ours(b, minor): return b.get("uuid") == UUID and b.get("major") == 7 and b.get("minor") == minor
assert text("advertise.rc") == "0", ("advertise after SIGTERM", text("advertise.rc"), text("advertise.err"))
assert text("scan.rc") == "0", text("scan.err")
rows = [r for r in lines("scan.jsonl") if ours(r.get("beacon", {}), 300)]
assert rows and all(r["address"] == addr for r in rows), lines("scan.jsonl")
assert rows[-1]["beacon"] == {"type": "ibeacon", "uuid": UUID, "major": 7, "minor": 300, "measuredPower": -61}, rows[-1]
print(f"test-vm: advertise: B decoded {UUID} 7/300 at -61 dBm from A ({addr})", file=sys.stderr)
assert text("proximity.rc") == "0", text("proximity.err")
prox = [r for r in lines("proximity.jsonl") if ours(r["beacon"], 300)]
# btvirt reports no RSSI (127): the class is unknown, with the frame's measured power.
assert prox and prox[-1]["measuredPower"] == -61 and prox[-1]["proximity"] == "unknown", lines("proximity.jsonl")
def silent(name):
    assert text(f"{name}.rc") == "0", text(f"{name}.err")
    heard = [r for r in lines(f"{name}.jsonl") if r.get("beacon", {}).get("uuid") == UUID]
    assert not heard, f"A still advertises after SIGTERM: {heard[:2]}"
silent("after")
print("test-vm: after A's SIGTERM, B hears nothing of A", file=sys.stderr)
events = lines("regions.jsonl")
assert [e["event"] for e in events] == ["enter", "exit"], events
assert text("exits-before-term.count") == "0", "an exit came while A still advertised"
assert text("rotating.rc") == "0", text("rotating.err")
waited = int(text("exit-after-term.ms"))
assert waited <= 5000 + 3000, f"exit {waited} ms after A's SIGTERM (--exit-after 5)"
assert text("regions.rc") == "130", ("regions watch after Ctrl-C", text("regions.rc"), text("regions.err"))
inside = events[1]["beacons"]
addresses = sorted({b["address"] for b in inside if ours(b, 302)})
assert len(addresses) >= 3 and addr not in addresses, inside
assert all(int(a.split(":")[0], 16) & 0xC0 == 0 for a in addresses), addresses  # non-resolvable private
silent("after2")
assert text("random-before.txt").upper() == "C1:22:33:44:55:66" == text("random-after.txt").upper(), \
    ("hci1's random address not put back", text("random-before.txt"), text("random-after.txt"), text("rotating.err"))
print(f"test-vm: regions: enter, exit {waited} ms after A's SIGTERM (--exit-after 5), Ctrl-C exits 130; "
      f"one iBeacon from {len(addresses)} rotating random addresses, hci1's own random address put back after", file=sys.stderr)
# A registry keyed by the iBeacon identity alone: every stored address is one beacon to --health.
assert text("rotating-measure.rc") == "0", text("rotating-measure.err")
doc = json.loads(text("rotating-measure.json"))
scans = [s for s in doc["bleScans"] if ours(s.get("beacon", {}), 303)]
rotated = sorted({s["address"] for s in scans})
assert len(rotated) >= 2, ("the 25 s measurement heard fewer than 2 of A's addresses", rotated)
assert text("rotating-health.rc") == "0", text("rotating-health.err")
rows = lines("rotating-health.json")  # a JSON line per registered beacon
assert len(rows) == 1 and rows[0]["reports"] == len(scans), ("one registered beacon with every report", rows, len(scans))
print(f"test-vm: a registry by iBeacon identity: --health sees one beacon, {len(scans)} reports from "
      f"{len(rotated)} addresses rotated every 10 s", file=sys.stderr)
nocap = text("nocap.err")
assert text("nocap.rc") == "81" and "CAP_NET_ADMIN" in nocap and len(nocap.splitlines()) == 1, (text("nocap.rc"), nocap)
print(f"test-vm: without capabilities: exit 81: {nocap}", file=sys.stderr)
print(f"test-vm: advertise stage took {int(text('stage.ms')) / 1000:.1f} s", file=sys.stderr)
PY
python3 - "$OUT" <<'PY'
# Issue 62: scanning without root through the group's capable copy (Tests/vm/group-scan-guest.sh).
import json, sys
G = f"{sys.argv[1]}/group"
def text(name): return open(f"{G}/{name}").read().strip()
assert "cap_net_admin,cap_net_raw=ep" in text("getcap.txt"), text("getcap.txt")
addr = open(f"{sys.argv[1]}/hci1.address").read().strip().upper()
assert text("member.rc") == "0", ("the fprint group's member", text("member.rc"), text("member.err"))
rows = [json.loads(l) for l in open(f"{G}/member.jsonl") if l.strip()]
assert any(r["address"] == addr and r.get("beacon", {}).get("major") == 1 for r in rows), rows
err = text("outsider.err")
# Refused in one line with the permission's own exit, 81 (BLETicker passes the socket's failure on).
assert text("outsider.rc") == "81" and "permission denied" in err and len(err.splitlines()) == 1, (text("outsider.rc"), err)
print(f"test-vm: group scan: uid 4242 in the group heard {addr} without root; uid 4244 outside: exit {text('outsider.rc')}: {err}", file=sys.stderr)
PY
echo "test-vm: PASS in $(( $(date +%s) - start )) s" >&2

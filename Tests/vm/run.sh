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
echo "test-vm: PASS in $(( $(date +%s) - start )) s" >&2

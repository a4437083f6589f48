#!/bin/bash
# make test: `fprint gateway --probe-port` in one network namespace, `fprint probe`
# in another, joined by a veth pair, unshaped (the host kernel has no sch_netem;
# the shaped test is Tests/vm/probe, `make test-vm-probe`). Needs root for
# `ip netns`; without it the test runs over loopback and says so loudly.
# Usage: netns.sh FPRINT_BINARY
set -euo pipefail
BIN="$1"
TMP="$(mktemp -d /tmp/fprint-probe-netns.XXXXXX)"
export XDG_CONFIG_HOME="$TMP/config" XDG_DATA_HOME="$TMP/data" XDG_CACHE_HOME="$TMP/cache" XDG_STATE_HOME="$TMP/state"
NS_S="fpprobe-s-$$" NS_C="fpprobe-c-$$" VS="fpps$$" VC="fppc$$"
GW=""
cleanup() {
    [ -n "$GW" ] && kill "$GW" 2>/dev/null || true
    ip netns del "$NS_S" 2>/dev/null || true
    ip netns del "$NS_C" 2>/dev/null || true
    rm -rf "$TMP"
}
trap cleanup EXIT
fail() { echo "probe netns test: FAIL: $*" >&2; for f in "$TMP"/*.err; do echo "--- $f"; cat "$f"; done >&2; exit 1; }

if [ "$(id -u)" -eq 0 ] && ip netns add "$NS_S" 2>/dev/null && ip netns add "$NS_C" \
    && ip link add "$VS" type veth peer name "$VC" && ip link set "$VS" netns "$NS_S" && ip link set "$VC" netns "$NS_C"; then
    ip -n "$NS_S" addr add 10.77.0.1/24 dev "$VS"; ip -n "$NS_S" link set "$VS" up; ip -n "$NS_S" link set lo up
    ip -n "$NS_C" addr add 10.77.0.2/24 dev "$VC"; ip -n "$NS_C" link set "$VC" up; ip -n "$NS_C" link set lo up
    # Unprivileged ICMP sockets for the ping phase (a new namespace allows none).
    ip netns exec "$NS_C" sysctl -qw net.ipv4.ping_group_range="0 2147483647"
    IN_S=(ip netns exec "$NS_S") IN_C=(ip netns exec "$NS_C") HOST=10.77.0.1 IFACE="$VC" PING=ok
    echo "probe netns test: gateway in $NS_S (10.77.0.1), probe in $NS_C over veth $VC" >&2
else
    echo "########################################################################" >&2
    echo "probe netns test: NO NETWORK NAMESPACES (not root, or ip netns refused):" >&2
    echo "falling back to LOOPBACK; the veth path is NOT tested here." >&2
    echo "########################################################################" >&2
    IN_S=() IN_C=() HOST=127.0.0.1 IFACE=lo
    # Unprivileged ICMP depends on this host's net.ipv4.ping_group_range: either outcome is fine here.
    PING=any
fi

"${IN_S[@]}" "$BIN" gateway serve --host "$HOST" --port 0 --probe-port 0 --db "$TMP/gateway.sqlite" 2> "$TMP/gateway.err" &
GW=$!
PORT=""
for _ in $(seq 1 240); do
    PORT=$(sed -n 's/.*probes on tcp+udp [^ ]*:\([0-9]*\)$/\1/p' "$TMP/gateway.err" | head -1)
    [ -n "$PORT" ] && break
    kill -0 "$GW" 2>/dev/null || fail "the gateway exited"
    sleep 0.25
done
[ -n "$PORT" ] || fail "the gateway did not start its probe port within 60 s"
for _ in $(seq 1 240); do grep -q 'listening on' "$TMP/gateway.err" && break; sleep 0.25; done
GWURL=$(sed -nE 's/^fprint gateway: listening on (http:[^ ]+).*/\1/p' "$TMP/gateway.err")
[ -n "$GWURL" ] || fail "the gateway did not start its HTTP port within 60 s"
TOKEN=$("$BIN" gateway token --user alice)
# Once, as docs/network-quality.md says: trust the key the gateway signs with; the fingerprint is the gateway's own.
"${IN_C[@]}" "$BIN" probe --trust-server "$GWURL" --token "$TOKEN" > "$TMP/trust.out" 2> "$TMP/trust.err" || fail "--trust-server exited $?"
FINGERPRINT=$("$BIN" gateway probe-key | cut -d' ' -f1)
grep -qF ": $FINGERPRINT (trusted now)" "$TMP/trust.out" || fail "--trust-server showed $(cat "$TMP/trust.out"), the gateway $FINGERPRINT"

"${IN_C[@]}" "$BIN" probe --server "$HOST:$PORT" --token "$TOKEN" --json --seconds 2 --datagrams 100 --spacing-ms 10 --pings 5 \
    > "$TMP/probe.json" 2> "$TMP/probe.err" || fail "fprint probe exited $?"
python3 - "$TMP/probe.json" "$IFACE" "$PING" <<'PY' || fail "the probe's figures"
import json, sys
report = json.load(open(sys.argv[1]))
phases = {p["phase"]: p for p in report["phases"]}
for name in ("down", "up", "udp"):
    assert phases[name]["status"] == "ok", (name, phases[name])
if sys.argv[3] == "ok" or phases["ping"]["status"] != "unavailable":
    assert phases["ping"]["status"] == "ok", phases["ping"]
for name in ("down", "up", "udp"):
    assert "signature" in phases[name]["signed"], name
for name in ("down", "up"):
    assert phases[name]["bitsPerSecond"] > 10e6, (name, phases[name]["bitsPerSecond"])
udp = phases["udp"]
assert udp["sent"] == 100 and udp["lossUpPercent"] == 0 and udp["lossDownPercent"] == 0, udp
assert udp["rttMs"]["count"] == 100 and udp["rttMs"]["median"] < 50, udp["rttMs"]
assert phases["ping"]["status"] == "unavailable" or phases["ping"]["rttMs"]["count"] == 5, phases["ping"]
assert report["interface"]["name"] == sys.argv[2], report["interface"]
print("probe netns test: down %.0f Mbit/s, up %.0f Mbit/s, UDP RTT median %.3f ms, ping median %.3f ms, via %s (%s)" % (
    phases["down"]["bitsPerSecond"] / 1e6, phases["up"]["bitsPerSecond"] / 1e6, udp["rttMs"]["median"],
    phases["ping"].get("rttMs", {}).get("median", -1), report["interface"]["name"], report["interface"]["type"]), file=sys.stderr)
# One byte of the signed UDP result changed: its signature must not verify.
text = json.dumps(report)
edited = json.loads(text)
r = edited["phases"][2]["signed"]["result"]
r["receivedByServer"] = r["receivedByServer"] - 1 if r["receivedByServer"] % 10 else r["receivedByServer"] + 1
json.dump(edited, open(sys.argv[1] + ".edited", "w"))
# The copy beside the signed result changed (what a reader sees): it must not verify either.
forged = json.loads(text)
forged["phases"][2]["lossDownPercent"] = 42.5
json.dump(forged, open(sys.argv[1] + ".forged", "w"))
PY

# As docs/network-quality.md says it: offline, against the trusted key; no server, no token.
"${IN_C[@]}" "$BIN" probe --verify "$TMP/probe.json" > "$TMP/verify.out" 2> "$TMP/verify.err" \
    || fail "the unedited result did not verify"
[ "$(grep -c ": valid (measured for alice from " "$TMP/verify.out")" -eq 3 ] || fail "not three valid phases: $(cat "$TMP/verify.out")"
for edit in edited forged; do
    set +e
    "${IN_C[@]}" "$BIN" probe --verify "$TMP/probe.json.$edit" > "$TMP/verify-$edit.out" 2> "$TMP/verify-$edit.err"
    rc=$?
    set -e
    [ "$rc" -eq 65 ] || fail "an $edit result: exit $rc, not 65"
done
grep -q "udp: INVALID (altered after the server signed it)" "$TMP/verify-edited.out" || fail "the edited UDP result was not named invalid"
grep -q "udp: UNVERIFIED (lossDownPercent differs from the signed result)" "$TMP/verify-forged.out" \
    || fail "the forged copy beside the UDP result was not named"

# measure --probe: the probe is stored in the document's networkProbes[], shown, exported and verifiable.
DB="$TMP/measure.sqlite"
FPRINT_TOKEN="$TOKEN" "${IN_C[@]}" "$BIN" measure --map J1NP --x 363 --y 701 --simulate --fast --duration 5 \
    --probe --probe-server "$HOST:$PORT" --probe-seconds 1 --probe-datagrams 50 --db "$DB" > "$TMP/measure.out" 2> "$TMP/measure.err" \
    || fail "measure --probe exited $?"
ID=$(head -1 "$TMP/measure.out")
"$BIN" show "$ID" --json --db "$DB" > "$TMP/doc.json" 2> "$TMP/show.err" || fail "show --json"
python3 - "$TMP/doc.json" <<'PY' || fail "the document's networkProbes[]"
import json, sys
doc = json.load(open(sys.argv[1]))
probes = doc["networkProbes"]
assert len(probes) == 1, probes
p = probes[0]
assert p["positionStart"] == {"x": 363, "y": 701} and p["positionEnd"] == {"x": 363, "y": 701}, p
phases = {q["phase"]: q for q in p["phases"]}
assert phases["down"]["status"] == "ok" and phases["udp"]["sent"] == 50, phases
assert doc["wifiScans"] or doc["bleScans"], "the radios are still there"
PY
"$BIN" show "$ID" --db "$DB" > "$TMP/show.txt" 2>> "$TMP/show.err" || fail "show"
grep -q "== Network probes (1) ==" "$TMP/show.txt" || fail "show has no Network probes section"
! grep -q "UNVERIFIED" "$TMP/show.txt" || fail "show marks a phase of an unedited probe unverified"
"$BIN" export probes-csv --db "$DB" > "$TMP/probes.csv" 2> "$TMP/export.err" || fail "export probes-csv"
python3 - "$TMP/probes.csv" "$ID" <<'PY' || fail "export probes-csv has no signed udp row for $ID"
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["doc_id"] == sys.argv[2] and r["phase"] == "udp"]
sys.exit(0 if len(rows) == 1 and rows[0]["status"] == "ok" and rows[0]["signed"] == "yes" else 1)
PY
"${IN_C[@]}" "$BIN" probe --verify "$TMP/doc.json" > "$TMP/verify-doc.out" 2> "$TMP/verify-doc.err" \
    || fail "the stored document's probe results did not verify"

# A host that drops packets (root only: the server's replies to the client go
# to a blackhole route): the first phase's connect times out, no other phase
# waits for its own, exit 75.
if [ "${#IN_S[@]}" -gt 0 ]; then
    ip -n "$NS_S" route add blackhole 10.77.0.2/32
    start=$(date +%s.%N)
    set +e
    "${IN_C[@]}" "$BIN" probe --server "$HOST:$PORT" --token "$TOKEN" --json --seconds 1 --pings 3 > "$TMP/drop.json" 2> "$TMP/drop.err"
    rc=$?
    set -e
    ip -n "$NS_S" route del blackhole 10.77.0.2/32
    [ "$rc" -eq 75 ] || fail "a host that drops packets: exit $rc, not 75"
    python3 -c "
import json, sys
r = json.load(open('$TMP/drop.json'))
first = r['phases'][0]
assert first['status'] == 'unreachable' and first['reason'].endswith('Connection timed out'), first
for p in r['phases'][1:]: assert p['status'] == 'skipped' and p['reason'].startswith('not run: down could not connect'), p
" || fail "a host that drops packets: the first phase does not say so, or the others ran"
    echo "probe netns test: a host that drops packets: exit 75 after $(python3 -c "print('%.1f' % ($(date +%s.%N) - $start))") s" >&2
fi

# The server down: the first phase says so, the others are not run, exit 75.
kill "$GW"; wait "$GW" 2>/dev/null || true; GW=""
set +e
"${IN_C[@]}" "$BIN" probe --server "$HOST:$PORT" --token "$TOKEN" --json --seconds 1 --pings 3 > "$TMP/down.json" 2> "$TMP/down.err"
rc=$?
set -e
[ "$rc" -eq 75 ] || fail "server down: exit $rc, not 75"
python3 -c "
import json, sys
r = json.load(open('$TMP/down.json'))
first = r['phases'][0]
assert first['status'] == 'unreachable' and 'cannot connect' in first['reason'], first
for p in r['phases'][1:]: assert p['status'] == 'skipped' and p['reason'].startswith('not run: down could not connect'), p
" || fail "server down: the first phase does not say unreachable, or the others ran"
# Verifying needs no server: the same file verifies with the gateway gone.
"${IN_C[@]}" "$BIN" probe --verify "$TMP/probe.json" > "$TMP/verify-offline.out" 2> "$TMP/verify-offline.err" \
    || fail "the probe did not verify with the gateway stopped"
echo "probe netns test: ok" >&2

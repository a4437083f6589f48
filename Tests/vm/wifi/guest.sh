#!/bin/bash
# Runs INSIDE the qemu VM (virtme-ng): real kernel Wi-Fi with mac80211_hwsim.
# wlan0 scans; wlan1..3 are hostapd access points on channels 1, 6 and 11.
# Then wlan0 joins a fourth access point (wlan4, in namespace probeap, where
# `fprint gateway --probe-port` listens) and `fprint probe --every` runs over
# that association: its documents must name the link, with signal and frequency.
# Usage (by run.sh): guest.sh FPRINT_BINARY OUT_DIR
set -u
FPRINT="$1"; OUT="$2"
export PATH="$PATH:/usr/sbin:/sbin"
log() { echo "[guest] $*" >&2; }
modprobe mac80211_hwsim radios=5 || { echo "FAIL: no mac80211_hwsim" > "$OUT/result"; exit 1; }
sleep 1
ip link set wlan0 up
n=1
for ch in 1 6 11; do
  cat > "$OUT/hostapd-$n.conf" <<CONF
interface=wlan$n
driver=nl80211
ssid=fprint-ap$ch
hw_mode=g
channel=$ch
CONF
  hostapd -B -P "$OUT/hostapd-$n.pid" "$OUT/hostapd-$n.conf" > "$OUT/hostapd-$n.log" 2>&1 || log "hostapd $n failed"
  n=$((n+1))
done
sleep 2
export XDG_DATA_HOME="$OUT/data" XDG_CONFIG_HOME="$OUT/config" XDG_CACHE_HOME="$OUT/cache" XDG_STATE_HOME="$OUT/state"
RADIOS="--no-ble --no-cell --no-location --wifi-iface wlan0"
# SQLite's WAL needs shared memory that the 9p host share lacks: keep the database in guest RAM.
DB="$(mktemp -d /dev/shm/fprint.XXXXXX)/fprint.sqlite"
log "measure"
FPRINT_NL80211_RECORD="$OUT/nl80211-scan-dump.hex" "$FPRINT" measure --map J1NP --x 363 --y 701 --duration 6 $RADIOS --db "$DB" --json \
  > "$OUT/measure.json" 2> "$OUT/measure.err"
echo "measure exit $?" >> "$OUT/steps"
log "walk; ap11 is stopped once 3 windows are cut"
"$FPRINT" walk --scenario "${WALK_SCENARIO:-scenarioJ1NP1}" --speed-correction 10 $RADIOS --db "$DB" > "$OUT/walk.ids" 2> "$OUT/walk.err" &
WALK=$!
# fprint starts slowly under software emulation: stop ap11 once the walk has cut 3 documents
# (its progress lines say "N docs"), so earlier windows hear it and later ones must not.
for _ in $(seq 1 240); do grep -qE "(^| )([3-9]|[1-9][0-9]) docs" "$OUT/walk.err" 2>/dev/null && break; sleep 0.5; done
kill "$(cat "$OUT/hostapd-3.pid")"
date +%s%3N > "$OUT/ap11-stopped-at"
wait $WALK
echo "walk exit $?" >> "$OUT/steps"
# The host reads the documents (fprint show is slow under emulation); WAL files go along.
cp "$DB" "$DB-wal" "$DB-shm" "$OUT/" 2>/dev/null

log "probe over an association: wlan4 is an access point in namespace probeap"
ip netns add probeap
iw phy "$(cat /sys/class/net/wlan4/phy80211/name)" set netns name probeap
ip -n probeap link set lo up
printf 'interface=wlan4\ndriver=nl80211\nssid=fprint-probe\nhw_mode=g\nchannel=11\n' > "$OUT/hostapd-probe.conf"
ip netns exec probeap hostapd -B -P "$OUT/hostapd-probe.pid" "$OUT/hostapd-probe.conf" > "$OUT/hostapd-probe.log" 2>&1 \
    || log "hostapd probe failed"
ip -n probeap addr add 10.77.0.1/24 dev wlan4
iw dev wlan0 connect fprint-probe
for _ in $(seq 1 60); do iw dev wlan0 link | grep -q "Connected to" && break; sleep 0.5; done
iw dev wlan0 link > "$OUT/wlan0-link.txt" 2>&1
ip addr add 10.77.0.2/24 dev wlan0
GWDB="$(mktemp -d /dev/shm/fprint.XXXXXX)/gateway.sqlite"
ip netns exec probeap "$FPRINT" gateway serve --host 0.0.0.0 --port 5984 --probe-port 5985 --db "$GWDB" 2> "$OUT/gateway.err" &
GW=$!
for _ in $(seq 1 240); do grep -q "probes on" "$OUT/gateway.err" 2>/dev/null && break; sleep 0.5; done
TOKEN=$("$FPRINT" gateway token --user vm-wifi)
MONDB="$(mktemp -d /dev/shm/fprint.XXXXXX)/monitor.sqlite"
"$FPRINT" probe --server 10.77.0.1:5985 --token "$TOKEN" --every 5s --count 2 --map J1NP --x 363 --y 701 \
    --seconds 1 --datagrams 20 --spacing-ms 20 --pings 3 --db "$MONDB" > "$OUT/monitor.out" 2> "$OUT/monitor.err"
echo "monitor exit $?" >> "$OUT/steps"
"$FPRINT" export probes-csv --per run --db "$MONDB" > "$OUT/monitor-runs.csv" 2>> "$OUT/monitor.err"
kill $GW 2>/dev/null
echo done > "$OUT/result"

#!/bin/bash
# Runs INSIDE the qemu VM (virtme-ng): real kernel Wi-Fi with mac80211_hwsim.
# wlan0 scans; wlan1..3 are hostapd access points on channels 1, 6 and 11.
# Usage (by run.sh): guest.sh FPRINT_BINARY OUT_DIR
set -u
FPRINT="$1"; OUT="$2"
export PATH="$PATH:/usr/sbin:/sbin"
log() { echo "[guest] $*" >&2; }
modprobe mac80211_hwsim radios=4 || { echo "FAIL: no mac80211_hwsim" > "$OUT/result"; exit 1; }
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
echo done > "$OUT/result"

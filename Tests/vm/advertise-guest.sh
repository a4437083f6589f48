#!/usr/bin/env bash
# Issue 58: this host as a beacon, inside the VM (guest.sh runs it last).
# A = hci1 advertises with `fprint advertise`; B = hci0 scans and watches the
# region, and after A's SIGTERM sees the region left and A silent.
#
# btvirt's controllers report an advertisement only when it is enabled (to
# scanners) or when scanning is enabled (from advertisers), never again while
# both stay on. So the region stage's advertiser rotates its random address
# every 2 s: each rotation re-enables advertising, and B hears the beacon
# every 2 s, from a new address each time, as a phone's privacy address does.
# Usage: advertise-guest.sh FPRINT_BINARY OUT_DIR
set -u
BIN=$1 OUT=$2
A=$OUT/adv
mkdir -p "$A"
UUID=2F234454-CF6D-4A0F-ADF2-F4911BA9FFA6
# Wait up to $2 seconds for file $1 to contain $3.
wait_for() { for _ in $(seq $(( $2 * 10 ))); do grep -q "$3" "$1" 2>/dev/null && return 0; sleep 0.1; done; return 1; }
t0=$(date +%s%3N)

hcitool -i hci1 cmd 0x08 0x000a 00   # guest.sh's hand-made advertisement off: A starts idle
hciconfig hci0 up                    # the exclusive stage left it down

# 1. A advertises from its public address; B decodes it, then A stops (SIGTERM).
"$BIN" advertise --ibeacon "$UUID" --major 7 --minor 300 --power -61 --interval 100 --adapter hci1 \
    > "$A/advertise.out" 2> "$A/advertise.err" &
ADV=$!
wait_for "$A/advertise.err" 5 "Ctrl-C stops"
"$BIN" scan --ble-source hci:hci0 --duration 2 > "$A/scan.jsonl" 2> "$A/scan.err"; echo $? > "$A/scan.rc"
"$BIN" scan --ble-source hci:hci0 --proximity --duration 2 > "$A/proximity.jsonl" 2> "$A/proximity.err"; echo $? > "$A/proximity.rc"
kill -TERM $ADV; wait $ADV; echo $? > "$A/advertise.rc"
# A's controller no longer advertises: a fresh scan on B (the emulator reports
# every advertiser at scan enable) hears nothing of the UUID.
"$BIN" scan --ble-source hci:hci0 --reports --duration 2 > "$A/after.jsonl" 2> "$A/after.err"; echo $? > "$A/after.rc"

# hci1's own random address before: the rotating advertiser must put it back.
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
hcitool -i hci1 cmd 0x08 0x0005 66 55 44 33 22 c1 > /dev/null   # C1:22:33:44:55:66
cat /sys/kernel/debug/bluetooth/hci1/random_address > "$A/random-before.txt" 2>&1

# 2. B watches the region while A advertises from a random address changed every 2 s.
"$BIN" regions watch --uuid "$UUID" --major 7 --exit-after 5 --ble-source hci:hci0 > "$A/regions.jsonl" 2> "$A/regions.err" &
REG=$!
sleep 1
"$BIN" advertise --ibeacon "$UUID" --major 7 --minor 302 --adapter hci1 --random-address-every 2 \
    > /dev/null 2> "$A/rotating.err" &
ROT=$!
wait_for "$A/regions.jsonl" 15 '"enter"'
sleep 7   # longer than --exit-after: the 2 s sightings keep B inside
grep -c '"exit"' "$A/regions.jsonl" > "$A/exits-before-term.count"
term=$(date +%s%3N)
kill -TERM $ROT; wait $ROT; echo $? > "$A/rotating.rc"
wait_for "$A/regions.jsonl" 20 '"exit"'
echo $(( $(date +%s%3N) - term )) > "$A/exit-after-term.ms"
kill -INT $REG; wait $REG; echo $? > "$A/regions.rc"
cat /sys/kernel/debug/bluetooth/hci1/random_address > "$A/random-after.txt" 2>&1
"$BIN" scan --ble-source hci:hci0 --reports --duration 2 > "$A/after2.jsonl" 2> "$A/after2.err"; echo $? > "$A/after2.rc"
# 3. A rotates its random address every 10 s while B measures for 25 s; a
# registry that knows the beacon by its iBeacon identity only (no MAC): the
# stored reports from every address are one registered beacon to --health.
printf '[{"uuid": "%s", "major": 7, "minor": 303, "x": 400, "y": 400, "name": "laptop A"}]\n' "$UUID" > "$A/ids.json"
"$BIN" advertise --ibeacon "$UUID" --major 7 --minor 303 --adapter hci1 --random-address-every 10 \
    > /dev/null 2> "$A/rotating10.err" &
ROT=$!
wait_for "$A/rotating10.err" 5 "Ctrl-C stops"
RDB="$(mktemp -d /dev/shm/fprint-adv.XXXXXX)/rotating.sqlite"
"$BIN" measure --map J1NP --x 363 --y 701 --duration 25 --ble-source hci:hci0 --no-wifi --no-cell --no-location \
    --db "$RDB" > "$A/rotating-measure.id" 2> "$A/rotating-measure.err"; echo $? > "$A/rotating-measure.rc"
kill -TERM $ROT; wait $ROT
"$BIN" show "$(cat "$A/rotating-measure.id")" --json --db "$RDB" > "$A/rotating-measure.json" 2>> "$A/rotating-measure.err"
"$BIN" beacons list --map J1NP --beacons "$A/ids.json" --health --json --db "$RDB" > "$A/rotating-health.json" 2> "$A/rotating-health.err"
echo $? > "$A/rotating-health.rc"

# 4. Without CAP_NET_RAW/CAP_NET_ADMIN (dropped from the bounding set, so root's exec lacks them): exit 81.
setpriv --bounding-set -net_admin,-net_raw "$BIN" advertise --ibeacon "$UUID" --major 7 --minor 300 --adapter hci1 --duration 1 \
    > /dev/null 2> "$A/nocap.err"; echo $? > "$A/nocap.rc"
echo $(( $(date +%s%3N) - t0 )) > "$A/stage.ms"

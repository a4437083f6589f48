#!/usr/bin/env bash
# Runs inside the qemu VM (virtme-ng, Debian kernel): two btvirt LE controllers,
# hci1 advertises the vectors' iBeacon, fprint scans on hci0 through the
# kernel HCI socket, btmon records everything. Results go to $OUT for run.sh.
# Usage: guest.sh FPRINT_BINARY OUT_DIR REPO_ROOT
set -u
BIN=$1 OUT=$2 ROOT=$3
exec > "$OUT/guest.log" 2>&1
set -x
cd "$ROOT"
export PATH="$PATH:/usr/sbin:/sbin"
export XDG_DATA_HOME=$OUT/data XDG_CONFIG_HOME=$OUT/config XDG_CACHE_HOME=$OUT/cache XDG_STATE_HOME=$OUT/state FPRINT_DB=/dev/shm/fprint-vm.sqlite  # SQLite WAL needs mmap, which the 9p rwdir lacks
modprobe -a bluetooth hci_vhci af_alg algif_hash algif_skcipher
btvirt -l2 -L &
for _ in $(seq 50); do [ -e /sys/class/bluetooth/hci1 ] && break; sleep 0.2; done
hciconfig hci0 up
hciconfig hci1 up
hciconfig -a
btmon -w "$OUT/vm.btsnoop" > /dev/null 2>&1 &
BTMON=$!
sleep 1
# hci1: non-connectable advertising (ADV_NONCONN_IND) of the iBeacon
# FB0B57A2-8228-44CD-913A-94A122BA1206, major 1, minor 53, measured power -66.
hcitool -i hci1 cmd 0x08 0x0006 a0 00 a0 00 03 00 00 00 00 00 00 00 00 07 00
hcitool -i hci1 cmd 0x08 0x0008 1e 02 01 06 1a ff 4c 00 02 15 fb 0b 57 a2 82 28 44 cd 91 3a 94 a1 22 ba 12 06 00 01 00 35 be
hcitool -i hci1 cmd 0x08 0x000a 01
hciconfig hci1 | awk '/BD Address/ {print $3}' > "$OUT/hci1.address"
"$BIN" adapters > "$OUT/adapters.txt" 2> "$OUT/adapters.err"; echo $? > "$OUT/adapters.rc"
"$BIN" measure --map J1NP --x 363 --y 701 --duration 5 --ble-source hci:hci0 --no-wifi --no-cell --no-location \
    > "$OUT/measure.id" 2> "$OUT/measure.err"
echo $? > "$OUT/measure.rc"
"$BIN" show "$(cat "$OUT/measure.id")" --json > "$OUT/measure.json" 2>> "$OUT/measure.err"
# The adapter must be left not scanning: a second measure must be able to start again.
"$BIN" measure --map J1NP --x 1 --y 1 --duration 5 --ble-source hci:hci0 --no-wifi --no-cell --no-location \
    > "$OUT/measure2.id" 2> "$OUT/measure2.err"
echo $? > "$OUT/measure2.rc"
# One document with both real radios: BLE from btvirt's hci1 through hci0, and
# Wi-Fi from a hostapd access point on mac80211_hwsim's wlan1, scanned on wlan0.
modprobe mac80211_hwsim radios=2
for _ in $(seq 50); do [ -e /sys/class/net/wlan1 ] && break; sleep 0.2; done
ip link set wlan0 up
printf 'interface=wlan1\ndriver=nl80211\nssid=fprint-combined\nhw_mode=g\nchannel=6\n' > "$OUT/hostapd.conf"
hostapd -B -P "$OUT/hostapd.pid" "$OUT/hostapd.conf" > "$OUT/hostapd.log" 2>&1
sleep 2
"$BIN" measure --map J1NP --x 5 --y 5 --duration 6 --ble-source hci:hci0 --wifi-iface wlan0 --no-cell --no-location --json \
    > "$OUT/combined.json" 2> "$OUT/combined.err"
echo $? > "$OUT/combined.rc"
kill "$(cat "$OUT/hostapd.pid")"
# fprint scan on the real socket, piped: JSON lines.
"$BIN" scan --ble-source hci:hci0 --duration 3 > "$OUT/scan.jsonl" 2> "$OUT/scan.err"; echo $? > "$OUT/scan.rc"
# Issue 62: a member of the fprint group scans without root, anyone else gets exit 81.
bash "$ROOT/Tests/vm/group-scan-guest.sh" "$BIN" "$OUT"
sleep 1
kill -INT $BTMON; wait $BTMON
# --exclusive: HCI user channel. Refused while hci0 is up, works once it is down.
"$BIN" scan --ble-source hci:hci0 --exclusive --duration 2 > /dev/null 2> "$OUT/exclusive-up.err"; echo $? > "$OUT/exclusive-up.rc"
hciconfig hci0 down
"$BIN" measure --map J1NP --x 2 --y 2 --duration 5 --ble-source hci:hci0 --exclusive --no-wifi --no-cell --no-location --json \
    > "$OUT/exclusive.json" 2> "$OUT/exclusive.err"; echo $? > "$OUT/exclusive.rc"
# The whole capture: on a slow emulated run its first report came 28.6 s in (past a 20 s window).
"$BIN" measure --map J1NP --x 363 --y 701 --duration all --fast --ble-source "btsnoop:$OUT/vm.btsnoop" \
    --no-wifi --no-cell --no-location --json > "$OUT/replay.json" 2> "$OUT/replay.err"
echo $? > "$OUT/replay.rc"
# Store safety (issue 17): a database on the 9p share itself, where WAL's shared
# memory fails: fprint must fall back to a rollback journal with one warning.
P9DB="$OUT/on-9p.sqlite"
"$BIN" measure --db "$P9DB" --map J1NP --x 7 --y 7 --duration 5 --fast --simulate > "$OUT/9p-measure.out" 2> "$OUT/9p-measure.err"
echo $? > "$OUT/9p-measure.rc"
"$BIN" list --db "$P9DB" --json > "$OUT/9p-list.json" 2> "$OUT/9p-list.err"; echo $? > "$OUT/9p-list.rc"
awk -v d="$OUT" '$2 == d { print $3 }' /proc/mounts > "$OUT/9p-fstype"
# Issue 58: fprint advertise on hci1, scan/proximity/regions on hci0.
bash "$ROOT/Tests/vm/advertise-guest.sh" "$BIN" "$OUT"
echo done > "$OUT/guest.done"

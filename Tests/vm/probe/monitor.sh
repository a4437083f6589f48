#!/bin/bash
# Runs INSIDE the qemu VM after guest.sh's single probes (issue 57): a probe
# monitor (`fprint probe --every 20s`) at a desk of J1NP, over a fourth veth
# pair "mon" (10.78.4.0/24), while a timeline changes netem under it:
#   from the start   rate 20 Mbit/s, no loss
#   after run 2      rate 5 Mbit/s, loss 5 % on the uplink
#   after run 4      rate 20 Mbit/s, no loss again
# (each change's time is logged).
# The loss is put on the client's egress only: TCP over a 5 % lossy path runs
# at what its loss allows (~1 Mbit/s at this RTT), not at the link's rate, so a
# lossy downlink would hide the rate step. The download's data goes the clean
# way (its acknowledgements cross the lossy one, which TCP barely notices),
# and the UDP train's up direction carries the 5 %.
# An alert rule "download < 10 Mbit/s" on J1NP posts to a webhook receiver on
# the client namespace's loopback. monitor_check.py checks it all afterwards.
# With "tour" (run.sh --pictures), then one short run at each of a few desks,
# the link shaped to the rate that desk gets, for the docs' heatmap.
# Usage (by guest.sh): monitor.sh FPRINT_BINARY OUT_DIR TOKEN [tour]
set -u
FPRINT="$1"; OUT="$2"; TOKEN="$3"; TOUR="${4:-}"
M="$OUT/monitor"; mkdir -p "$M"
EVERY=20 RUNS=6 DROP_AFTER=2 RESTORE_AFTER=4
echo "every=$EVERY runs=$RUNS" > "$M/plan"  # for monitor_check.py
log() { echo "[monitor] $(date +%T) $*" >&2; }

ip link add s-mon netns srv type veth peer name c-mon netns cli
ip -n srv addr add 10.78.4.1/24 dev s-mon; ip -n srv link set s-mon up
ip -n cli addr add 10.78.4.2/24 dev c-mon; ip -n cli link set c-mon up
shape() {  # shape add|change RATE LOSS: the rate both ways, the loss on the uplink only
    ip netns exec srv tc qdisc "$1" dev s-mon root netem delay 20ms rate "$2" &&
    ip netns exec cli tc qdisc "$1" dev c-mon root netem delay 20ms loss "$3" rate "$2"
}
shape add 20mbit 0% || { echo "FAIL: netem on the monitor link" > "$M/result"; exit 1; }

# Everything of the monitor in its own folders: its config (rules, webhook), its database in RAM (WAL).
export XDG_CONFIG_HOME="$M/config"
DB="$(mktemp -d /dev/shm/fprint-monitor.XXXXXX)/monitor.sqlite"
fp() { ip netns exec cli "$FPRINT" "$@"; }
fp alerts add slow-down "download < 10 Mbit/s" --map J1NP 2>> "$M/setup.err"
fp alerts webhook http://127.0.0.1:8099/fprint 2>> "$M/setup.err"
ip netns exec cli python3 "$(dirname "$0")/webhook_receiver.py" 8099 "$M/webhook.jsonl" &
RECEIVER=$!

log "fprint probe --every ${EVERY}s --count $RUNS"
fp probe --server 10.78.4.1:5985 --token "$TOKEN" --every "${EVERY}s" --count "$RUNS" --map J1NP --x 363 --y 701 \
    --seconds 4 --datagrams 1000 --spacing-ms 2 --pings 5 --db "$DB" --json > "$M/runs.jsonl" 2> "$M/monitor.err" &
MONITOR=$!

# The timeline: each change right after a run is stored, so that it falls between two runs (under
# emulation a run fills 15-19 s of its 20, and a change at a fixed time often landed inside one).
# Each change is logged with when it began and when tc was done; monitor_check.py still names any
# run that was going on meanwhile and does not count it.
echo "$(date +%s.%N) start rate=20mbit loss=0%" > "$M/timeline.log"
change_after() {  # change_after RUN RATE LOSS
    until grep -q "probe run #$1 stored" "$M/monitor.err" 2>/dev/null; do sleep 0.2; done
    local from; from=$(date +%s.%N)
    shape change "$2" "$3"
    local rc=$?
    echo "$(date +%s.%N) change from=$from rate=$2 loss=$3 (exit $rc)" >> "$M/timeline.log"
    log "netem now rate $2, loss $3"
}
change_after "$DROP_AFTER" 5mbit 5%
change_after "$RESTORE_AFTER" 20mbit 0%
wait $MONITOR
echo "monitor exit $?" >> "$M/steps"
ip netns exec cli tc -s qdisc show dev c-mon > "$M/qdisc-cli.txt"
ip netns exec srv tc -s qdisc show dev s-mon > "$M/qdisc-srv.txt"
fp export probes-csv --per run --db "$DB" > "$M/runs.csv" 2> "$M/export.err"
fp alerts --history --json --db "$DB" > "$M/alerts.jsonl" 2> "$M/alerts.err"
echo "alerts exit $?" >> "$M/steps"
sleep 1
kill $RECEIVER 2>/dev/null
cp "$DB"* "$M/"

# The tour: a round of the ring corridor of J1NP, one short run at each desk, the link shaped
# as if the rate fell with the distance from eduroam's access point (at 400,700). A database and a
# config of its own: its slow desks are not the monitor's alert.
if [ "$TOUR" = tour ]; then
    TOUR_DB="$(dirname "$DB")/tour.sqlite"
    while read -r x y rate; do
        shape change "$rate" 0%
        XDG_CONFIG_HOME="$M/tour-config" fp probe --server 10.78.4.1:5985 --token "$TOKEN" --every 1s --count 1 \
            --map J1NP --x "$x" --y "$y" --seconds 4 --datagrams 100 --spacing-ms 10 --pings 0 --db "$TOUR_DB" \
            > /dev/null 2>> "$M/tour.err"
        echo "tour $x,$y $rate exit $?" >> "$M/steps"
    done <<'DESKS'
363 701 20mbit
900 701 16mbit
1534 701 8mbit
363 1300 12mbit
363 1863 7mbit
1000 1863 4mbit
1534 1300 5mbit
DESKS
    cp "$TOUR_DB"* "$M/"
fi
echo done > "$M/result"

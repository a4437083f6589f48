#!/bin/bash
# Runs INSIDE the qemu VM (virtme-ng): `fprint gateway --probe-port` in namespace
# srv, `fprint probe` in namespace cli, over three veth pairs:
#   lossy   10.78.1.0/24  netem on both ends: delay 40ms ±5ms, loss 5 %, rate 20 Mbit/s
#   clean   10.78.2.0/24  netem on both ends: delay 40ms ±5ms, rate 20 Mbit/s (no loss: throughput)
#   direct  10.78.3.0/24  no shaping
# iperf3 and ping measure the same links for reference. Then monitor.sh's stage
# (issue 57) over a fourth pair.
# Usage (by run.sh): guest.sh FPRINT_BINARY OUT_DIR [tour]
set -u
FPRINT="$1"; OUT="$2"; TOUR="${3:-}"  # (the loops below reuse $1…)
export PATH="$PATH:/usr/sbin:/sbin"
log() { echo "[guest] $(date +%T) $*" >&2; }
step() { echo "$1 exit $2" >> "$OUT/steps"; }
modprobe -a sch_netem veth 2>/dev/null
ip netns add srv && ip netns add cli || { echo "FAIL: no network namespaces" > "$OUT/result"; exit 1; }
ip -n srv link set lo up; ip -n cli link set lo up
n=1
for link in lossy clean direct; do
    ip link add "s-$link" netns srv type veth peer name "c-$link" netns cli
    ip -n srv addr add "10.78.$n.1/24" dev "s-$link"; ip -n srv link set "s-$link" up
    ip -n cli addr add "10.78.$n.2/24" dev "c-$link"; ip -n cli link set "c-$link" up
    n=$((n+1))
done
for end in "srv s-lossy" "cli c-lossy"; do
    set -- $end
    ip netns exec "$1" tc qdisc add dev "$2" root netem delay 40ms 5ms loss 5% rate 20mbit || { echo "FAIL: no netem" > "$OUT/result"; exit 1; }
done
for end in "srv s-clean" "cli c-clean"; do
    set -- $end
    ip netns exec "$1" tc qdisc add dev "$2" root netem delay 40ms 5ms rate 20mbit
done
ip netns exec cli tc qdisc show > "$OUT/qdiscs.txt"
# fprint's ping phase: unprivileged ICMP sockets (a new namespace allows none).
ip netns exec cli sysctl -qw net.ipv4.ping_group_range="0 2147483647"

export XDG_DATA_HOME="$OUT/data" XDG_CONFIG_HOME="$OUT/config" XDG_CACHE_HOME="$OUT/cache" XDG_STATE_HOME="$OUT/state"
# SQLite's WAL needs shared memory that the 9p host share lacks: the gateway's database in guest RAM.
DB="$(mktemp -d /dev/shm/fprint.XXXXXX)/gateway.sqlite"
log "gateway"
ip netns exec srv "$FPRINT" gateway serve --host 0.0.0.0 --port 5984 --probe-port 5985 --db "$DB" 2> "$OUT/gateway.err" &
GW=$!
for _ in $(seq 1 240); do grep -q "probes on" "$OUT/gateway.err" 2>/dev/null && break; sleep 0.5; done
TOKEN=$("$FPRINT" gateway token --user vm-probe)
ip netns exec srv iperf3 -s -D --logfile "$OUT/iperf3-server.log"

probe() {  # probe NAME ADDRESS ARGS...
    local name="$1" addr="$2"; shift 2
    log "fprint probe $name"
    ip netns exec cli "$FPRINT" probe --server "$addr:5985" --token "$TOKEN" --json "$@" > "$OUT/probe-$name.json" 2> "$OUT/probe-$name.err"
    step "probe-$name" $?
}
probe lossy 10.78.1.1 --seconds 2 --datagrams 950 --spacing-ms 10 --pings 20
# 8 s a direction: one stall of the emulated guest (TCG) in a 4 s run once took
# the download to 16.5 Mbit/s where it measures 19.1 (and iperf3 19.1) otherwise.
probe clean 10.78.2.1 --seconds 8 --datagrams 50 --spacing-ms 20 --pings 10
probe direct 10.78.3.1 --seconds 2 --datagrams 50 --spacing-ms 20 --pings 10

# UDP counters of both ends (receive-buffer errors would be losses of ours, not netem's).
ip netns exec cli cat /proc/net/snmp > "$OUT/snmp-cli.txt"; ip netns exec srv cat /proc/net/snmp > "$OUT/snmp-srv.txt"
log "reference: ping and iperf3"
ip netns exec cli ping -c 20 -i 0.2 -q 10.78.1.1 > "$OUT/ping-lossy.txt" 2>&1
ip netns exec cli ping -c 10 -i 0.2 -q 10.78.3.1 > "$OUT/ping-direct.txt" 2>&1
ip netns exec cli iperf3 -c 10.78.2.1 -t 8 -O 1 -J -R > "$OUT/iperf3-clean-down.json" 2>&1
ip netns exec cli iperf3 -c 10.78.2.1 -t 8 -O 1 -J > "$OUT/iperf3-clean-up.json" 2>&1
ip netns exec cli iperf3 -c 10.78.1.1 -u -b 160k -l 200 -t 5 -J > "$OUT/iperf3-lossy-udp-up.json" 2>&1
ip netns exec cli iperf3 -c 10.78.1.1 -u -b 160k -l 200 -t 5 -J -R > "$OUT/iperf3-lossy-udp-down.json" 2>&1
ip netns exec cli iperf3 -c 10.78.3.1 -t 2 -J -R > "$OUT/iperf3-direct-down.json" 2>&1
# Issue 57: a monitor every 20 s while netem steps the rate and loss under it (monitor.sh, monitor_check.py).
log "monitoring stage"
bash "$(dirname "$0")/monitor.sh" "$FPRINT" "$OUT" "$TOKEN" "$TOUR"
kill $GW 2>/dev/null
echo done > "$OUT/result"

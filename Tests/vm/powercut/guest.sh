#!/usr/bin/env bash
# Runs inside the qemu VM (Tests/vm/powercut/run.sh): fprint's store, config,
# gateway database, secret, ledger and users file on an ext4 filesystem over
# dm-log-writes; each workload marks the log after every acknowledgement
# fprint prints; then crashstates.py replays the log to the crash states and
# checks each. Results go to $OUT for run.sh.
# Usage: guest.sh FPRINT_BINARY OUT_DIR REPO_ROOT SEED SAMPLE (0: every state) [WORKLOADS] [CHECK_HERE]
# CHECK_HERE=no: leave the log in OUT_DIR/log.img for the host to check
# (run.sh: native speed there; here every fprint command is emulated).
set -u
BIN=$1 OUT=$2 ROOT=$3 SEED=$4 SAMPLE=$5 WORKLOADS=${6:-measure walk sync gateway credentials config} CHECK_HERE=${7:-yes}
exec > "$OUT/guest.log" 2>&1
set -x
export PATH="$PATH:/usr/sbin:/sbin"
HERE=$ROOT/Tests/vm/powercut
modprobe -a loop dm-mod dm-log-writes || exit 1
# Everything but the logged filesystem lives in a tmpfs: the log (512 MB
# sparse), the base image, the gateway the sync pulls from.
T=/run/powercut
mkdir -p $T && mount -t tmpfs -o size=1400m tmpfs $T
truncate -s 64M $T/data.img
truncate -s 512M $T/log.img
DATA=$(losetup -f --show $T/data.img) || exit 1
LOGDEV=$(losetup -f --show $T/log.img)
dmsetup create pclog --table "0 $(blockdev --getsz "$DATA") log-writes $DATA $LOGDEV" || exit 1
mkfs.ext4 -q -F /dev/mapper/pclog
M=/run/powercut-fs
mkdir -p $M && mount /dev/mapper/pclog $M || exit 1
# The acknowledgement comes first, then the mark: every state after the mark must hold it.
mark() { dmsetup message pclog 0 mark "$1"; }

# The workspace: database, XDG config/data/state, gateway files — all on $M.
. "$HERE/env.sh"
mkdir -p "$M/db" "$M/home" "$M/gw"
sync
mark setup

# phase NAME: whether NAME is one of the workloads to run; marks its start.
phase() {
    case " $WORKLOADS " in *" $1 "*) ;; *) return 1 ;; esac
    mark "workload:$1"; echo "powercut: $(date +%s.%N) workload $1" >&2
}
GW=http://127.0.0.1
# 1. measure: each stored id printed is an acknowledgement.
if phase measure; then
    for i in 1 2 3; do
        id=$("$BIN" measure --map J1NP --x $((i * 10)) --y $((i * 10)) --duration 5 --simulate --fast --seed $i 2>> "$OUT/measure.err") \
            && mark "doc:$id"
    done
fi
# 2. walk: one id per stored document, as it is stored; then the session's count.
if phase walk; then
    "$BIN" walk --scenario scenarioJ1NP1 --simulate --fast --seed 3 2> "$OUT/walk.err" | while read -r id; do mark "doc:$id"; done
    session=$(sed -n 's/^stored \([0-9]*\) documents of walk session \(.*\)$/\1:\2/p' "$OUT/walk.err")
    [ -n "$session" ] && mark "walk:$session"
fi
# 3. sync: pull 2,000 documents from a gateway whose database is in the tmpfs.
if phase sync; then
    cp "$OUT/src.sqlite" $T/src.sqlite
    printf 'puller:pull-secret-1:admin\n' > $T/src-users && chmod 600 $T/src-users
    "$BIN" gateway --port 5991 --db $T/src.sqlite --users $T/src-users --secret-file $T/src-secret > "$OUT/src-gw.log" 2>&1 &
    SRC=$!
    for _ in $(seq 100); do curl -sf -u puller:pull-secret-1 $GW:5991/fprint > /dev/null && break; sleep 0.3; done
    "$BIN" sync --pull-only --gateway "http://puller:pull-secret-1@127.0.0.1:5991/fprint" > "$OUT/sync.out" 2> "$OUT/sync.err"
    echo $? > "$OUT/sync.rc"
    received=$(cat "$OUT/sync.err" "$OUT/sync.out" | grep -o 'received [0-9]*' | tail -1 | grep -o '[0-9]*$')
    [ "$(cat "$OUT/sync.rc")" = 0 ] && mark "sync:${received:-0}"
    kill $SRC; wait $SRC
fi
# 4. the gateway, its database on $M, taking _bulk_docs from two clients at once.
if phase gateway; then
    printf 'alice:old-password-1:user\n' > "$USERS" && chmod 600 "$USERS"
    "$BIN" gateway --port 5992 --db "$GWDB" --users "$USERS" --secret-file "$SECRET" > "$OUT/gw.log" 2>&1 &
    GWPID=$!
    TOKEN=$("$BIN" gateway token --user poster --role admin --ttl 1d --token-only --secret-file "$SECRET")
    for _ in $(seq 100); do curl -sf -H "Authorization: Bearer $TOKEN" $GW:5992/fprint > /dev/null && break; sleep 0.3; done
    mark "token-issued"
    CLIENTS=()
    for client in a b; do
        python3 "$HERE/bulk_client.py" "$GW:5992/fprint" "$TOKEN" "$OUT/bulk-$client.json" > "$OUT/bulk-$client.log" 2>&1 &
        CLIENTS+=($!)
    done
    wait "${CLIENTS[@]}"
fi
# 5. token revocation and a new password, while the gateway runs.
if phase credentials; then
    "$BIN" gateway token --user bob --ttl 1d --token-only --secret-file "$SECRET" > /dev/null
    revoke=$("$BIN" gateway token --list --json --secret-file "$SECRET" \
        | python3 -c 'import json, sys; print(next(r["id"] for r in map(json.loads, sys.stdin) if r.get("user") == "bob"))')
    "$BIN" gateway token --revoke="$revoke" --secret-file "$SECRET" 2> "$OUT/revoke.err" && mark "revoked:$revoke"
    curl -sf -u alice:old-password-1 $GW:5992/fprint > /dev/null && mark "password:alice:old"
    # The operator's new users file (written durably by the harness): the
    # gateway re-reads it; the new password let in is the acknowledgement.
    python3 "$HERE/durable_write.py" "$USERS" 'alice:new-password-2:user'
    for _ in $(seq 50); do curl -sf -u alice:new-password-2 $GW:5992/fprint > /dev/null && break; sleep 0.2; done \
        && mark "password:alice:new"
    kill $GWPID; wait $GWPID
fi
# 6. a map added and a beacon sheet imported.
if phase config; then
    "$BIN" map add LAB1 --image "$ROOT/docs/examples/lab-plan.svg" --floor 1 --calibrate "100,100 1100,100 25m" \
        2> "$OUT/map.err" && mark "map:LAB1"
    "$BIN" beacons import "$ROOT/docs/examples/lab-beacons.csv" --map LAB1 2> "$OUT/beacons.err" > /dev/null && mark "beacons:LAB1"
fi
mark "workload:end"

# What the checks compare with: every document's rev and body now.
python3 "$HERE/crashstates.py" expect "$OUT" > "$OUT/expect.log" 2>&1
umount $M
dmsetup remove pclog
losetup -d "$DATA" "$LOGDEV"
if [ "$CHECK_HERE" = no ]; then
    # The used part of the log (the rest of the device is zeros).
    head -c "$(python3 "$HERE/replay.py" used $T/log.img)" $T/log.img > "$OUT/log.img"
    echo done > "$OUT/guest.done"
    exit 0
fi
start=$(date +%s)
python3 "$HERE/crashstates.py" check "$OUT" $T/log.img --seed "$SEED" --sample "$SAMPLE" --scratch $T --bin "$BIN" 2> "$OUT/check.log"
echo $? > "$OUT/check.rc"
echo "powercut: replay and checks took $(( $(date +%s) - start )) s" >&2
echo done > "$OUT/guest.done"

#!/usr/bin/env bash
# `make test-powercut` (every crash state) and CI's VM stage (a sample):
# fprint's files on ext4 over dm-log-writes in the qemu VM, every workload's
# acknowledgements marked in the write log, the log replayed to each crash
# state a power cut could leave, each state mounted and checked (guest.sh,
# crashstates.py, replay.py). docs/development.md, "Power cuts".
# Usage: run.sh [SAMPLE]   SAMPLE crash states (0 or none: all); seed: $FPRINT_POWERCUT_SEED, else the date;
# FPRINT_POWERCUT_WORKLOADS="measure config" runs only those (guest.sh's phases).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$ROOT"
. Tests/vm/preflight.sh
vm_preflight dmsetup:dmsetup losetup:mount mkfs.ext4:e2fsprogs curl:curl
SAMPLE=${1:-0}
SEED=${FPRINT_POWERCUT_SEED:-$(date -u +%Y%m%d)}
start=$(date +%s)
python3 Tests/vm/powercut/replay_test.py >&2
# FPRINT_POWERCUT_BIN: check another build (an older one, to see what a fix mends).
if [ -z "${FPRINT_POWERCUT_BIN:-}" ]; then swift build --product fprint >/dev/null; fi
BIN=${FPRINT_POWERCUT_BIN:-$(swift build --show-bin-path)/fprint}
KERNEL=${FPRINT_VM_KERNEL:-$(ls /boot/vmlinuz-* | sort -V | tail -1)}
OUT=$(mktemp -d /tmp/fprint-powercut.XXXXXX)
echo "test-powercut: seed $SEED (FPRINT_POWERCUT_SEED=$SEED repeats it), sample ${SAMPLE/#0/every state}, results in $OUT" >&2
# The documents the workloads send, made here at native speed: a simulated
# walk's documents cloned under new ids, 2,000 for the gateway the sync pulls
# from (its database made by `fprint import`) and two clients' batches.
FPRINT_DB=$OUT/seed.sqlite XDG_CONFIG_HOME=$OUT/h XDG_DATA_HOME=$OUT/h XDG_STATE_HOME=$OUT/h XDG_CACHE_HOME=$OUT/h \
    "$BIN" walk --scenario scenarioJ1NP1 --simulate --fast --seed 1 > /dev/null 2>&1
"$BIN" export jsonl --db "$OUT/seed.sqlite" > "$OUT/seed.jsonl"
python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
seed = [json.loads(l) for l in open(f"{out}/seed.jsonl") if l.strip()]
def clone(n, name):
    doc = {k: v for k, v in seed[n % len(seed)].items() if k not in ("_rev", "_attachments")}
    doc["_id"] = name
    doc["bleScans"] = doc["bleScans"][:4]  # ~3 KB a document: 2,000 fit the 64 MB filesystem
    return doc
with open(f"{out}/src.jsonl", "w") as f:
    for n in range(2000):
        f.write(json.dumps(clone(n, f"pc-sync-{n:04d}")) + "\n")
for client in "ab":
    json.dump([[clone(b * 20 + n, f"pc-gw-{client}-{b}-{n:02d}") for n in range(20)] for b in range(4)],
              open(f"{out}/bulk-{client}.json", "w"))
PY
"$BIN" import "$OUT/src.jsonl" --db "$OUT/src.sqlite" > /dev/null
rm -rf "$OUT/h" "$OUT/seed.sqlite"*
# The crash states are checked here when this machine can loop-mount ext4
# (as root): natively, at a fraction of a second each, where the VM emulates
# every instruction of every check. Else the guest checks them.
host_mounts() {
    local img=$OUT/probe.img dir=$OUT/probe
    [ "$(id -u)" = 0 ] && truncate -s 8M "$img" && mkfs.ext4 -q -F "$img" > /dev/null 2>&1 && mkdir -p "$dir" \
        && mount -o loop "$img" "$dir" 2> /dev/null && umount "$dir" && rm -rf "$img" "$dir"
}
CHECK_HERE=yes
if host_mounts; then CHECK_HERE=no; fi
echo "test-powercut: crash states checked $([ $CHECK_HERE = no ] && echo 'on this machine' || echo 'in the VM')" >&2
# In the VM a state takes ~35 s (every check emulated): a sample stays small there.
if [ $CHECK_HERE = yes ] && [ "$SAMPLE" -gt "${FPRINT_POWERCUT_VM_SAMPLE:-4}" ]; then
    SAMPLE=${FPRINT_POWERCUT_VM_SAMPLE:-4}
    echo "test-powercut: checking in the VM: a sample of $SAMPLE states" >&2
fi
timeout "${FPRINT_POWERCUT_TIMEOUT:-3000}" vng --disable-kvm --memory 2G --rwdir "$OUT" -r "$KERNEL" \
    --exec "bash $ROOT/Tests/vm/powercut/guest.sh $BIN $OUT $ROOT $SEED $SAMPLE '${FPRINT_POWERCUT_WORKLOADS:-}' $CHECK_HERE" > "$OUT/vng.log" 2>&1 < /dev/null || true
fail() {
    echo "test-powercut: FAIL: $*" >&2
    echo "--- guest log:" >&2; tail -30 "$OUT/guest.log" >&2 || true
    echo "--- checks:" >&2; grep -v ' ok state' "$OUT/check.log" 2>/dev/null | tail -30 >&2 || true
    echo "--- vng:" >&2; tail -10 "$OUT/vng.log" >&2 || true
    exit 1
}
[ -e "$OUT/guest.done" ] || fail "the guest script did not finish"
if [ $CHECK_HERE = no ]; then
    [ -s "$OUT/log.img" ] || fail "the guest left no write log"
    # Mounted where the workloads ran: paths inside the files stay true.
    mkdir -p /run/powercut-fs "$OUT/scratch"
    python3 Tests/vm/powercut/crashstates.py check "$OUT" "$OUT/log.img" --seed "$SEED" --sample "$SAMPLE" \
        --scratch "$OUT/scratch" --bin "$BIN" 2> "$OUT/check.log" || true
    rm -rf "$OUT/scratch"
fi
python3 - "$OUT" <<'PY' || fail "the crash states"
import json, sys
out = sys.argv[1]
s = json.load(open(f"{out}/summary.json"))
acks = open(f"{out}/guest.log").read().count("mark doc:")
for w, n in s["planned"].items():
    print(f"test-powercut: {w}: {s['checked'].get(w, 0)} of {n} crash states checked", file=sys.stderr)
print(f"test-powercut: {s['entries']} log entries; checks took {s['seconds']} s", file=sys.stderr)
assert s["checked"], "no crash state was checked"
for f in s["failures"][:40]:
    print(f"test-powercut: {f}", file=sys.stderr)
sys.exit(1 if s["failures"] else 0)
PY
rm -f "$OUT/log.img"
echo "test-powercut: PASS in $(( $(date +%s) - start )) s" >&2

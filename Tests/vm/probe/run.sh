#!/bin/bash
# make test-vm-probe: boots Debian's kernel under qemu (virtme-ng, software
# emulation; DESIGN.md §6), whose sch_netem shapes veth links between two
# network namespaces; runs guest.sh there, then checks fprint's figures (and
# prints iperf3's and ping's beside them) with check.py; then the monitoring stage
# (monitor.sh: a probe every 20 s while netem steps) with monitor_check.py.
# Needs: linux-image-amd64, qemu-system-x86, busybox-static, iperf3, iputils-ping (apt) and virtme-ng (pip).
# --pictures DIR: the guest also tours a few desks, and the docs' monitoring
# pictures are drawn into DIR from the run's documents (pictures.sh).
set -euo pipefail
cd "$(dirname "$0")/../../.."
PICTURES=""
[ "${1:-}" = --pictures ] && PICTURES="${2:?--pictures needs a folder}"
. Tests/vm/preflight.sh
vm_preflight iperf3:iperf3 ping:iputils-ping tc:iproute2
KERNEL="${FPRINT_VM_KERNEL:-${KERNEL:-$(ls /boot/vmlinuz-* | sort -V | tail -1)}}"
BIN="$(swift build --show-bin-path)/fprint"
[ -x "$BIN" ] || { echo "build fprint first (swift build)"; exit 2; }
OUT="$(mktemp -d /tmp/fprint-vm-probe.XXXXXX)"
start=$(date +%s)
# vng's console goes to a file of its own (qemu reopens its output with O_TRUNC), then is shown.
vng --disable-kvm -r "$KERNEL" --rwdir "$OUT" --exec "bash $PWD/Tests/vm/probe/guest.sh $BIN $OUT ${PICTURES:+tour}" \
    > "$OUT/vng.log" 2>&1 < /dev/null || true
cat "$OUT/vng.log"
echo "VM run took $(( $(date +%s) - start )) s; output in $OUT" >&2
status=0
python3 Tests/vm/probe/check.py "$OUT" || status=1
echo
python3 Tests/vm/probe/monitor_check.py "$OUT" || status=1
if [ -n "$PICTURES" ]; then bash Tests/vm/probe/pictures.sh "$OUT" "$PICTURES" "$BIN" || status=1; fi
exit $status

#!/bin/bash
# make test-vm-probe: boots Debian's kernel under qemu (virtme-ng, software
# emulation; DESIGN.md §6), whose sch_netem shapes veth links between two
# network namespaces; runs guest.sh there, then checks fprint's figures (and
# prints iperf3's and ping's beside them) with check.py.
# Needs: linux-image-amd64, qemu-system-x86, busybox-static, iperf3, iputils-ping (apt) and virtme-ng (pip).
set -euo pipefail
cd "$(dirname "$0")/../../.."
. Tests/vm/preflight.sh
vm_preflight iperf3:iperf3 ping:iputils-ping tc:iproute2
KERNEL="${FPRINT_VM_KERNEL:-${KERNEL:-$(ls /boot/vmlinuz-* | sort -V | tail -1)}}"
BIN="$(swift build --show-bin-path)/fprint"
[ -x "$BIN" ] || { echo "build fprint first (swift build)"; exit 2; }
OUT="$(mktemp -d /tmp/fprint-vm-probe.XXXXXX)"
start=$(date +%s)
# vng's console goes to a file of its own (qemu reopens its output with O_TRUNC), then is shown.
vng --disable-kvm -r "$KERNEL" --rwdir "$OUT" --exec "bash $PWD/Tests/vm/probe/guest.sh $BIN $OUT" \
    > "$OUT/vng.log" 2>&1 < /dev/null || true
cat "$OUT/vng.log"
echo "VM run took $(( $(date +%s) - start )) s; output in $OUT" >&2
python3 Tests/vm/probe/check.py "$OUT"

#!/bin/bash
# make test-vm-wifi: boots Debian's kernel under qemu (virtme-ng, software emulation;
# DESIGN.md §6), runs guest.sh there, then checks what fprint recorded with check.py.
# Needs: linux-image-amd64, qemu-system-x86, hostapd, iw, busybox-static (apt) and virtme-ng (pip).
set -euo pipefail
cd "$(dirname "$0")/../../.."
. Tests/vm/preflight.sh
vm_preflight hostapd:hostapd iw:iw
KERNEL="${FPRINT_VM_KERNEL:-${KERNEL:-$(ls /boot/vmlinuz-* | sort -V | tail -1)}}"
BIN="$(swift build --show-bin-path)/fprint"
[ -x "$BIN" ] || { echo "build fprint first (swift build)"; exit 2; }
OUT="$(mktemp -d /tmp/fprint-vm-wifi.XXXXXX)"
start=$(date +%s)
# vng's console goes to a file of its own (qemu reopens its output path with O_TRUNC,
# which would wipe a log file our caller redirected stdout into), then is shown.
vng --disable-kvm -r "$KERNEL" --rwdir "$OUT" --exec "bash $PWD/Tests/vm/wifi/guest.sh $BIN $OUT" \
    > "$OUT/vng.log" 2>&1 < /dev/null || true
cat "$OUT/vng.log"
echo "VM run took $(( $(date +%s) - start )) s; output in $OUT" >&2
for id in $(cat "$OUT/walk.ids" 2>/dev/null); do "$BIN" show "$id" --json --db "$OUT/fprint.sqlite"; done > "$OUT/walk-docs.jsonl"
python3 Tests/vm/wifi/check.py "$OUT"

#!/usr/bin/env bash
# Records what tshark (an independent decoder) finds in each capture: one line
# per LE advertising report: subevent, address, RSSI (127 = not available).
# The FPHCI tests compare fprint's replay against these files, and re-run this
# same tshark command when tshark is installed (it is, by .ci/run).
# Usage: make-goldens.sh [FILE.btsnoop ...]   (default: every capture here)
set -euo pipefail
cd "$(dirname "$0")"
files=("$@"); [ ${#files[@]} -gt 0 ] || files=(*.btsnoop)
for f in "${files[@]}"; do
    tshark -r "$f" -Y bthci_evt.le_meta_subevent -T fields -E separator=/t \
        -e bthci_evt.le_meta_subevent -e bthci_evt.bd_addr -e bthci_evt.rssi 2>/dev/null \
        > "${f%.btsnoop}.tshark.tsv"
done

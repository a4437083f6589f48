#!/bin/bash
# The pictures of docs/network-quality.md's worked monitoring example, drawn
# from a VM run's real probe documents (run.sh --pictures runs this): the
# monitor's download over time, and the tour's desks on the floor plan.
#   bash Tests/vm/probe/pictures.sh VM_OUT_DIR [output dir, default docs/img] [fprint binary]
set -euo pipefail
cd "$(dirname "$0")/../../.."
REPO=$PWD
RUN="$1/monitor"
DEST="${2:-docs/img}"
FPRINT="${3:-$(swift build --show-bin-path)/fprint}"
[ -f "$RUN/monitor.sqlite" ] && [ -f "$RUN/tour.sqlite" ] || { echo "pictures: no monitor.sqlite and tour.sqlite in $RUN (run.sh --pictures makes both)"; exit 1; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/fprint-probe-pictures.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# Copies: reading a database may write beside it (its WAL), and the VM's folder stays as it was.
cp "$RUN"/monitor.sqlite "$RUN"/tour.sqlite "$WORK/"
export XDG_DATA_HOME=$WORK/data XDG_CONFIG_HOME=$WORK/config XDG_CACHE_HOME=$WORK/cache XDG_STATE_HOME=$WORK/state
unset FPRINT_DB FPRINT_CONFIG FPRINT_TOKEN FPRINT_GATEWAY

"$FPRINT" plot series --probes --metric down --map J1NP --db "$WORK/monitor.sqlite" -o "$DEST/probe-monitor-series.png"
"$FPRINT" plot heatmap --map J1NP --metric down --db "$WORK/tour.sqlite" -o "$DEST/probe-monitor-heatmap.png"

#!/usr/bin/env bash
# Every kind of `fprint plot` (and `fprint map show`) as a PNG in docs/img/,
# drawn from seeded simulated walks of the shipped J building, for the docs
# and for looking at them by eye (issue 32): `make screenshots` runs it beside
# the dashboard's browser test. Fails on the first command that fails.
#
#   bash Tests/screenshots-plots.sh [path/to/fprint] [output dir]   (default: the debug build's, docs/img)
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
FPRINT=${1:-$(swift build --show-bin-path)/fprint}
[ -x "$FPRINT" ] || { echo "screenshots-plots: no fprint binary at $FPRINT (run swift build)"; exit 1; }
FPRINT=$(cd "$(dirname "$FPRINT")" && pwd)/$(basename "$FPRINT")
OUT=${2:-$REPO/docs/img}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/fprint-plots.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export XDG_DATA_HOME=$WORK/data XDG_CONFIG_HOME=$WORK/config XDG_CACHE_HOME=$WORK/cache XDG_STATE_HOME=$WORK/state
export FPRINT_DB=$WORK/plots.sqlite
unset FPRINT_CONFIG FPRINT_TOKEN FPRINT_GATEWAY
CONFIG=(--config "$REPO/Config/app-config.json")
fp() { echo "+ fprint $*" >&2; "$FPRINT" "$@"; }

# The survey: each floor walked once (seed 1), the realistic building.
for map in J1NP J2NP J3NP; do fp walk --scenario "scenario${map}1" --simulate --fast --seed 1 "${CONFIG[@]}" >/dev/null; done

fp plot heatmap --map J3NP "${CONFIG[@]}" -o "$OUT/plot-heatmap.png"
fp plot errors --map J3NP --set wifi,ble,combined "${CONFIG[@]}" -o "$OUT/plot-errors.png"
fp plot coverage --map J3NP "${CONFIG[@]}" -o "$OUT/plot-coverage.png"
# A 10 s measurement beside beacon 14, its BLE transmitters over time.
fp measure --map J3NP --x 1441 --y 400 --simulate --fast --seed 1 --duration 10 --no-cell "${CONFIG[@]}" >/dev/null
still=$("$FPRINT" list --map J3NP --mode static --limit 1 --json | python3 -c 'import json, sys; print(json.loads(sys.stdin.readline())["id"])')
fp plot series "$still" --radio ble --top 6 -o "$OUT/plot-series.png"
fp map show J3NP "${CONFIG[@]}" -o "$OUT/plot-map.png"

# A track on one floor, and one up the stairs from J2NP to J3NP (other noise: seed 7).
fp track --simulate --scenario scenarioJ3NP1 --seed 7 --fast --truth --json "${CONFIG[@]}" > "$WORK/track.jsonl"
fp plot track "$WORK/track.jsonl" "${CONFIG[@]}" -o "$OUT/plot-track.png"
fp track --auto-map --simulate --scenario scenarioJ2J3 --seed 7 --fast --truth --json "${CONFIG[@]}" > "$WORK/floors.jsonl"
fp plot track "$WORK/floors.jsonl" "${CONFIG[@]}" -o "$OUT/plot-track-floors.png"
# Walking 3 m inside the surveyed loop, the route drawn beside the walk.
fp track --simulate --scenario scenarioJ3NP1 --off-route 3 --seed 7 --fast --truth --json "${CONFIG[@]}" > "$WORK/off-route.jsonl"
fp plot track "$WORK/off-route.jsonl" --scenario scenarioJ3NP1 "${CONFIG[@]}" -o "$OUT/plot-track-off-route.png"

# A train/test evaluation by month, on the UJI dataset's layout (the hand-made fixture).
UJI=(--db "$WORK/uji.sqlite")
fp import "$REPO/Tests/FPCLITests/Fixtures/uji-mini" "${UJI[@]}" >/dev/null
fp eval --train campaign=trn01 --test 'campaign=tst01|tst02|tst03|tst04|tst05' --group-by month --json "${UJI[@]}" > "$WORK/months.json"
fp plot groups "$WORK/months.json" -o "$OUT/plot-groups.png"
# The public datasets (../shared/datasets, when beside the clone): their maps in metres, walls from
# the flat's layout.csv, repeated measurements as one mark, each plot with the dataset's credit.
DATASETS=${DATASETS:-$REPO/../shared/datasets}
if [ -f "$DATASETS/ble-flat-robot.tar.xz" ] && [ -f "$DATASETS/uji-lib-longterm-m01-15.tar.xz" ]; then
    tar -xJf "$DATASETS/ble-flat-robot.tar.xz" -C "$WORK"
    tar -xJf "$DATASETS/uji-lib-longterm-m01-15.tar.xz" -C "$WORK"
    FLAT=(--db "$WORK/flat.sqlite")
    fp import "$WORK/ble-flat-robot/calibration_df.csv" --dataset ble-flat-robot --radio ble --transmitter-prefix rssi_ \
        --x-column x --y-column y --time-column ts --tag set=train "${FLAT[@]}" >/dev/null
    WALLS=(--outline "$WORK/ble-flat-robot/layout.csv")
    fp map show ble-flat-robot "${WALLS[@]}" "${FLAT[@]}" -o "$OUT/plot-flat-map.png"
    fp plot heatmap --map ble-flat-robot --transmitter rssi_4 "${WALLS[@]}" "${FLAT[@]}" -o "$OUT/plot-flat-heatmap.png"
    # The robot's test track replayed against the calibration survey (docs/positioning.md).
    fp import "$WORK/ble-flat-robot/test_robot_df.csv" --dataset ble-flat-robot --radio ble --transmitter-prefix rssi_ \
        --x-column x --y-column y --time-column ts --tag set=test "${FLAT[@]}" >/dev/null
    fp track --table "$WORK/ble-flat-robot/test_robot_df.csv" --map ble-flat-robot --train set=train --radio ble \
        --transmitter-prefix rssi_ --x-column x --y-column y --time-column ts --truth --json "${FLAT[@]}" > "$WORK/flat.jsonl"
    fp plot track "$WORK/flat.jsonl" "${WALLS[@]}" --circles 6 \
        --credit "Data: M. Kolakowski, BLE RSS dataset for radio-map calibration, Sensors 2021 21:6270, doi:10.5281/zenodo.5457591, CC BY 4.0" \
        -o "$OUT/plot-flat-track.png"
    row=$("$FPRINT" list --limit 1 --json "${FLAT[@]}" | python3 -c 'import json, sys; print(json.loads(sys.stdin.readline())["id"])')
    fp plot series "$row" "${FLAT[@]}" -o "$OUT/plot-flat-series.png"
    UJIDB=(--db "$WORK/uji-lib.sqlite")
    fp import "$WORK/uji-lib-longterm/" "${UJIDB[@]}" >/dev/null
    fp plot heatmap --map UJI-LIB-3 "${UJIDB[@]}" -o "$OUT/plot-uji-heatmap.png"
    fp eval --train dataset=uji-lib-longterm,campaign=trn01 --test 'dataset=uji-lib-longterm,campaign=tst01|tst02|tst03|tst04|tst05' \
        --group-by month --method knn9,knn1,gk4k12 --json "${UJIDB[@]}" > "$WORK/uji-months.json"
    fp plot groups "$WORK/uji-months.json" -o "$OUT/plot-uji-months.png"
else
    echo "screenshots-plots: no public datasets at $DATASETS: their plots are not redrawn" >&2
fi
echo "screenshots-plots: wrote $(ls "$OUT"/plot-*.png | wc -l) plots to $OUT"

#!/usr/bin/env bash
# Runs a command (default: `make test`) while busy loops keep every core at
# 100 %: the test suite must hold on a machine that is busy with other work
# (CI runs it this way). LOAD_LOOPS sets the number of loops (default: one
# per core), LOAD_RUNS how many times in a row the command must pass.
#
#   bash Tests/load-check.sh                 # make test, once, under load
#   LOAD_RUNS=3 bash Tests/load-check.sh make test
set -uo pipefail
cd "$(dirname "$0")/.."
loops=${LOAD_LOOPS:-$(nproc)}
runs=${LOAD_RUNS:-1}
[ $# -gt 0 ] || set -- make test

pids=()
stop_loops() { [ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null; wait "${pids[@]}" 2>/dev/null; }
trap stop_loops EXIT
for _ in $(seq "$loops"); do
    # A shell loop that never sleeps, at the tests' own priority.
    bash -c 'while :; do :; done' &
    pids+=($!)
done
echo "load-check: $loops busy loops on $(nproc) cores; running '$*' $runs time(s)" >&2
for run in $(seq "$runs"); do
    started=$(date +%s)
    if ! "$@"; then
        echo "load-check: run $run of $runs FAILED under load (load average: $(cut -d' ' -f1-3 /proc/loadavg))" >&2
        exit 1
    fi
    echo "load-check: run $run of $runs passed in $(( $(date +%s) - started )) s (load average: $(cut -d' ' -f1-3 /proc/loadavg))" >&2
done

#!/usr/bin/env bash
# Runs a command (default: `make test`) while the machine is busy: busy loops
# keep every core at 100 %, so the test suite must hold on a machine that is
# busy with other work (CI runs it this way). LOAD_LOOPS sets the number of
# loops (default: one per core), LOAD_RUNS how many times in a row the command
# must pass. LOAD_WORK is a command that is the load while it runs (CI: the
# release build); the loops take over when it ends, and it must succeed too.
#
#   bash Tests/load-check.sh                 # make test, once, under load
#   LOAD_RUNS=3 bash Tests/load-check.sh make test
#   LOAD_WORK="make release" bash Tests/load-check.sh make test
set -uo pipefail
cd "$(dirname "$0")/.."
loops=${LOAD_LOOPS:-$(nproc)}
runs=${LOAD_RUNS:-1}
work=${LOAD_WORK:-}
[ $# -gt 0 ] || set -- make test

pids=()
work_pid=""
work_log=$(mktemp)
stop_loops() {
    [ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null
    wait "${pids[@]}" 2>/dev/null
    # A failed run leaves no build behind (the work has a process group of its own).
    [ -z "$work_pid" ] || kill -- "-$work_pid" 2>/dev/null
    rm -f "$work_log"
}
trap stop_loops EXIT
if [ -n "$work" ]; then
    setsid bash -c "$work" >"$work_log" 2>&1 &
    work_pid=$!
    echo "load-check: '$work' is the load while it runs" >&2
fi
for _ in $(seq "$loops"); do
    # A shell loop that never sleeps, at the tests' own priority; it waits
    # for LOAD_WORK's end first, to load the machine as much, not more.
    WORK_PID=$work_pid bash -c 'while [ -n "$WORK_PID" ] && kill -0 "$WORK_PID" 2>/dev/null; do sleep 1; done; while :; do :; done' &
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
if [ -n "$work_pid" ]; then
    if ! wait "$work_pid"; then
        tail -30 "$work_log" >&2
        echo "load-check: '$work' FAILED" >&2
        exit 1
    fi
    tail -1 "$work_log" >&2
    echo "load-check: '$work' done" >&2
fi

#!/usr/bin/env bash
# `make fuzz`: builds fprint-libfuzz (release, ASan + libFuzzer, in
# .build-fuzz-gateway; with FUZZ_GATEWAY=0 without the gateway's and beacon
# sheets' targets, in .build-fuzz), then runs every target (or those named) for FUZZ_SECONDS each,
# FUZZ_JOBS processes at a time (default: one per core) under nice, and prints per target the executions,
# libFuzzer's coverage (cov: edges, ft: features) and the result. A crash,
# trap, leak or timeout fails the run; its input is kept in
# .build-fuzz/fuzz/crashes/<target>/ (replay: FPRINT_FUZZ_TARGET=<target> BIN FILE).
#   Tests/fuzz/run.sh [TARGET...]      FUZZ_BIN=… skips the build.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
seconds="${FUZZ_SECONDS:-30}"
work="${FUZZ_WORK:-$root/.build-fuzz/fuzz}"
bin="${FUZZ_BIN:-}"
if [ -z "$bin" ]; then
    # Package.swift declares the target only under FPRINT_LIBFUZZ (an ordinary build has no main() for it).
    # SwiftPM passes its two --sanitize as two -sanitize= flags in a set's order, and
    # swiftc keeps only the last: Swift code got ASan or coverage, never both (a
    # build without coverage fuzzes blind). The combined flag last gives both.
    # FUZZ_GATEWAY=1 (the default) builds every target, the gateway's and the
    # beacon sheets' too: their parsers are internal (@testable import, so
    # -enable-testing) and bring FPGateway and FPCLI (Hummingbird, NIO: about
    # three times the build's CPU). FUZZ_GATEWAY=0 builds the other targets only.
    if [ "${FUZZ_GATEWAY:-1}" = 1 ]; then
        variant=(FPRINT_LIBFUZZ=gateway) flags=(-Xswiftc -enable-testing) path="$root/.build-fuzz-gateway"
    else
        variant=(FPRINT_LIBFUZZ=1) flags=() path="$root/.build-fuzz"
    fi
    build=(env "${variant[@]}" "${SWIFT:-swift}" build -c release --sanitize=fuzzer --sanitize=address
           -Xswiftc -sanitize=address,fuzzer "${flags[@]}" --build-path "$path" --package-path "$root")
    start=$(date +%s)
    # ld.gold warns "Cannot export local symbol __asan_…" for every module: harmless, hidden.
    "${build[@]}" --product fprint-libfuzz 2>&1 | grep -v 'Cannot export local symbol'
    [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "run.sh: the sanitizer build failed" >&2; exit 1; }
    echo "run.sh: sanitizer build $(( $(date +%s) - start )) s"
    bin="$("${build[@]}" --show-bin-path)/fprint-libfuzz"
fi
[ -x "$bin" ] || { echo "run.sh: $bin is not an executable" >&2; exit 66; }
if [ $# -eq 0 ]; then
    mapfile -t targets < <(FPRINT_FUZZ_LIST=1 "$bin" 2>/dev/null)
else
    targets=("$@")
fi
mkdir -p "$work"
report="$work/report.txt"
printf '%-12s %12s %8s %8s %10s  %s\n' target executions cov ft exec/s result | tee "$report"
# One target's run: its report line to $work/$t.line, its exit status to $work/$t.status.
fuzz_one() {
    local t=$1 seeds="$here/corpus/$1" corpus="$work/corpus/$1" crashes="$work/crashes/$1" log="$work/$1.log"
    local dict=() status execs rate cov ft result found
    echo 1 > "$work/$t.status"
    [ -d "$seeds" ] || { echo "run.sh: no seed corpus $seeds for target $t" > "$work/$t.line"; return; }
    mkdir -p "$corpus" "$crashes"
    [ -f "$here/dict/$t.dict" ] && dict=("-dict=$here/dict/$t.dict")
    # Found units go to the working corpus (kept between runs); the seeds stay as committed.
    FPRINT_FUZZ_TARGET="$t" nice "$bin" "$corpus" "$seeds" "${dict[@]}" -max_total_time="$seconds" \
        -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 -artifact_prefix="$crashes/" \
        >"$log" 2>&1
    status=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
    ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
    if [ $status -eq 0 ] && [ -z "$cov" ]; then
        # libFuzzer saw no coverage: the parsers were built without it, and the run proved nothing.
        status=1
        result="FAILED: no coverage (is the code instrumented? log $log)"
    elif [ $status -eq 0 ]; then
        result=ok
    else
        found=$(ls -t "$crashes" 2>/dev/null | head -1)
        result="FAILED (exit $status): $(grep -m1 -E 'ERROR: |Fatal error|deadly signal|timeout' "$log" | cut -c1-120); input $crashes/$found; log $log"
    fi
    printf '%-12s %12s %8s %8s %10s  %s\n' "$t" "${execs:-?}" "${cov:-?}" "${ft:-?}" "${rate:-?}" "$result" > "$work/$t.line"
    echo "$status" > "$work/$t.status"
}

# FUZZ_JOBS targets at a time (default: one per core); the report keeps the targets' order.
jobs=${FUZZ_JOBS:-$(nproc)}
failed=0
for t in "${targets[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    fuzz_one "$t" &
done
wait
for t in "${targets[@]}"; do
    tee -a "$report" < "$work/$t.line"
    [ "$(cat "$work/$t.status")" = 0 ] || failed=1
done
exit $failed

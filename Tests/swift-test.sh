#!/usr/bin/env bash
# `swift test` for `make test`, with its whole output kept in
# .build/test-output.txt. CI shows only the last lines of a run, and a crash
# ends with the backtracer's register and image dumps, so on failure this
# repeats at the end what tells the cause: the failed tests, fatal errors, the
# crashed thread's frames and, last, the tests in flight when it ended.
#
#   bash Tests/swift-test.sh [swift test arguments]
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p .build
log=.build/test-output.txt

# The crashed thread only, without registers or the image list: the frames
# are what names the test (a run has many threads; the others stay in the log
# only if asked for with SWIFT_BACKTRACE).
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=yes,threads=crashed,registers=none,images=none}

# Line-buffered (stdbuf reaches the test binary through its environment):
# a run that hangs shows which tests were in flight, not a 4 KB-old buffer.
stdbuf -oL -eL swift test --disable-xctest "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
    echo
    echo "== swift test exited $status; what failed (whole output: $log) =="
    # Lines cut at 400 characters: an expectation that prints a whole
    # document would otherwise fill the digest with one 100 KB line.
    grep -n -E "✘|Fatal error|Program crashed|Signal [0-9]+|crashed:$" "$log" | cut -c1-400 | head -40
    # Each crashed thread's first 40 frames.
    awk '/ crashed:$/ { left = 40 } left > 0 { print; left-- }' "$log" | cut -c1-400
    # CI shows only the last ~25 lines: the tests started and not ended (one
    # line), then the crashed thread's top frames, one short line each (the
    # function, not the address): together they name where a crash came from.
    awk '
        / Test case | Test run / { next }
        match($0, / Test .* started\.$/) { name = substr($0, RSTART + 6, RLENGTH - 15); open[name]++; next }
        match($0, / Test .* (passed|failed) after /) || match($0, / Test .* skipped/) {
            name = substr($0, RSTART + 6); sub(/ (with [0-9]+ test cases )?(passed|failed) after .*| skipped.*/, "", name); open[name]--
        }
        END { n = 0; list = ""; for (name in open) if (open[name] > 0) { n++; list = list " " name }
              if (n > 0) print "== " n " tests in flight when the run ended:" list }' "$log" | cut -c1-900
    if grep -q " crashed:$" "$log"; then
        echo "== top frames of the crashed thread =="
        awk '/ crashed:$/ { left = 12; next } left > 0 && /^ *[0-9]+ / { left--; sub(/^ *[0-9]+ +(\[[a-z]+\] +)*0x[0-9a-f]+ +/, ""); print "  " $0 }' "$log" \
            | cut -c1-150 | head -12
    fi
fi
exit "$status"

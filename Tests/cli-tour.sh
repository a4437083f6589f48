#!/usr/bin/env bash
# The README's examples, top to bottom, as a new user would type them, on a
# fresh temporary database and settings (issue 12). Fails on any non-zero exit,
# any crash or stack trace, and any placeholder left in a command.
#
# How the README's lines become runnable here (no radios, no gateway):
# - every `fprint …` line of a ```sh block is run in order, its `# comment`
#   dropped; `swift run fprint` runs the built binary; make/sudo/export lines
#   are set-up steps, not examples, and are left out;
# - measure and walk get --simulate (unless they replay a btsnoop file) and
#   --fast; periodic schedules keep their shape at seconds instead of minutes;
# - placeholders get real values: 3f2a9c = a stored measurement's id prefix,
#   <sessionId> = the newest walk (not J3NP's when deleting), capture.btsnoop = a test capture,
#   old-ios-dump.json/android.jsonl = the seed apps' fixtures,
#   deployed.csv = a sheet of the shipped J2NP beacons in metres (the same registry),
#   new-measurement.json = a stored measurement written out, uji-lib-longterm/ =
#   the hand-made fixture in that dataset's layout (the real one is in
#   FPDatasetsTests); delete's
#   --before date becomes tomorrow (so there is something to delete) with the
#   --yes a script gives where a terminal would ask;
# - lines that need real hardware (a Bluetooth adapter), a network (a gateway,
#   a remote config) or run until stopped (a server) are skipped with the reason;
# - doctor may answer 69 ("no radio can be recorded here"): its documented
#   answer on a machine without radios; `beacons --fail-on-alert` may answer 3
#   (a beacon never heard in the tour's few measurements).
#
#   bash Tests/cli-tour.sh [path/to/fprint]     (default: the debug build's)
set -uo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
FPRINT=${1:-$(swift build --show-bin-path)/fprint}
[ -x "$FPRINT" ] || { echo "cli-tour: no fprint binary at $FPRINT (run swift build)"; exit 1; }
FPRINT=$(cd "$(dirname "$FPRINT")" && pwd)/$(basename "$FPRINT")
export FPRINT

WORK=$(mktemp -d "${TMPDIR:-/tmp}/fprint-tour.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export XDG_DATA_HOME=$WORK/data XDG_CONFIG_HOME=$WORK/config XDG_CACHE_HOME=$WORK/cache XDG_STATE_HOME=$WORK/state
export FPRINT_DB=$WORK/tour.sqlite
unset FPRINT_CONFIG FPRINT_TOKEN FPRINT_GATEWAY
CAPTURE=$REPO/Tests/FPHCITests/Fixtures/captures/whoisbe__pongbot-mcp-adv.btsnoop
cp "$REPO/Tests/FPCoreTests/Fixtures/legacy-ios-all-docs.json" "$WORK/old-ios-dump.json"
cp "$REPO/Tests/FPCoreTests/Fixtures/legacy-android.jsonl" "$WORK/android.jsonl"
cp -R "$REPO/Tests/FPCLITests/Fixtures/uji-mini" "$WORK/uji-lib-longterm"
cp "$REPO/Tests/FPCLITests/Fixtures/deployed-beacons.csv" "$WORK/deployed.csv"
mkdir -p "$WORK/docs" && cp -R "$REPO/docs/examples" "$WORK/docs/examples"
cd "$WORK"

ran=0 passed=0 skipped=0 failed=0
fail() { echo "FAIL: $1"; echo "      $2"; failed=$((failed + 1)); }

# `fprint list --json` filtered by a Python expression over each document `d`; prints field `key` of the newest match.
newest() {
    "$FPRINT" list --all --json 2>/dev/null | python3 -c '
import json, sys
docs = [json.loads(l) for l in sys.stdin if l.strip()]
hit = [d for d in docs if eval(sys.argv[1])]
print(hit[0][sys.argv[2]] if hit else "")' "$1" "$2"
}

# Why a README line cannot run here, or nothing.
skip_reason() {
    case "$1" in
        *"--ble-source hci:"*) echo "needs a Bluetooth adapter" ;;
        "fprint adapters"*|"fprint scan"|"fprint scan --duration"*) echo "needs a Bluetooth adapter" ;;
        "fprint login"*|*"fprint sync"*) echo "needs a gateway on the network" ;;
        "fprint gateway"|"fprint gateway --"*) echo "a server: runs until stopped" ;;
        "fprint track --map J3NP") echo "needs radios; runs until Ctrl-C" ;;
        *" --publish"*) echo "needs a gateway on the network (make test-browser publishes to one)" ;;
        "fprint probe"*|*" --probe"*) echo "needs a gateway's probe port on the network (Tests/probe/netns.sh runs it)" ;;
        *) ;;
    esac
}

# The README line made runnable here (see the top of this file).
adapt() {
    local line=$1
    line=${line/#swift run fprint/fprint}
    case "$line" in
        "fprint measure"*|"fprint walk"*)
            [[ $line == *"--simulate"* || $line == *"--ble-source btsnoop:"* ]] || line="$line --simulate"
            [[ $line == *"--fast"* ]] || line="$line --fast"
            line=${line/--every 15m --for 8h/--every 5s --for 8s --duration 5}
            line=${line/--every 30s --count 4 --duration 10/--every 5s --count 2 --duration 5}
            ;;
    esac
    if [[ $line == "fprint delete --unsynced"* ]]; then
        line=${line/--before 2026-11-01/--before $(date -u -d tomorrow +%F)}
        line="$line --yes"
    fi
    if [[ $line == *"3f2a9c"* ]]; then
        local id
        if [[ $line == "fprint delete 3f2a9c"* ]]; then
            id=$(newest 'd.get("mode") == "static" and d.get("level") == "J1NP"' id)
        else
            id=$(newest 'd.get("mode") == "static" and d.get("level") == "J3NP"' id)
        fi
        line=${line//3f2a9c/${id:0:8}}
    fi
    if [[ $line == *"<sessionId>"* ]]; then
        # Deleting a walk spares J3NP's: the eval and plot examples need it.
        # (Which walk is newest depends on the binary's speed: --fast walks all
        # end at the real now.)
        local walk='d.get("mode") == "walk"'
        [[ $line == "fprint delete --session"* ]] && walk="$walk and d.get(\"level\") != \"J3NP\""
        line=${line//<sessionId>/$(newest "$walk" sessionId)}
    fi
    if [[ $line == *"new-measurement.json"* && ! -e new-measurement.json ]]; then
        "$FPRINT" show "$(newest 'd.get("mode") == "static" and d.get("level") == "J3NP"' id)" --json > new-measurement.json
    fi
    line=${line//capture.btsnoop/$CAPTURE}
    echo "$line"
}

# Every fprint line of the README's sh blocks, comments dropped.
examples() {
    awk '/^```sh$/ { on = 1; next } /^```/ { on = 0 } on' "$REPO/README.md" |
        sed -E 's/[[:space:]]+#[[:space:]].*$//; s/[[:space:]]+$//' |
        grep -E '^(swift run )?fprint |^(swift run )?fprint$|^[A-Z_]+=[^ ]+ fprint ' || true
}

start=$(date +%s)
while IFS= read -r readme_line; do
    reason=$(skip_reason "$readme_line")
    if [ -n "$reason" ]; then
        echo "skip: $readme_line  ($reason)"
        skipped=$((skipped + 1))
        continue
    fi
    cmd=$(adapt "$readme_line")
    if [[ $cmd =~ \<[A-Za-z]+\>|…|3f2a9c|capture\.btsnoop ]]; then
        fail "$readme_line" "a placeholder is left: $cmd"
        continue
    fi
    echo "run:  $cmd"
    ran=$((ran + 1))
    out=$(bash -c "set -o pipefail; ${cmd/#fprint/\"\$FPRINT\"}" </dev/null 2>"$WORK/stderr") ; status=$?
    err=$(cat "$WORK/stderr")
    if grep -qE 'Fatal error|Stack dump|Current stack trace|Program crashed|Segmentation fault|Illegal instruction' <<<"$err$out"; then
        fail "$readme_line" "crashed: $(head -c 400 <<<"$err")"
    elif [ "$status" -ne 0 ] && ! [[ $cmd == "fprint doctor"* && $status -eq 69 ]] \
        && ! [[ $cmd == *"--fail-on-alert"* && $status -eq 3 ]]; then
        fail "$readme_line" "exit $status: $(head -c 400 <<<"$err")"
    else
        passed=$((passed + 1))
    fi
done < <(examples)
[ "$ran" -gt 20 ] || fail "README" "only $ran examples found: did the README's layout change?"

echo "cli-tour: $passed passed, $failed failed, $skipped skipped ($(( $(date +%s) - start )) s)"
[ "$failed" -eq 0 ]

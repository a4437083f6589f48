#!/usr/bin/env bash
# Every command example of the docs, top to bottom, as a new user would type
# them: README.md, then the guides in docs/ in the order of GUIDES below, on
# one fresh temporary database and settings (issues 12 and 32). Every line of
# every ```sh block is a command: it is run and its exit status checked, or it
# is skipped with the reason (hardware, a network peer, a server that runs
# until stopped, a build step) and counted. Fails on any non-zero exit, any
# crash or stack trace, any placeholder left in a command, and a guide with
# ```sh blocks that is not in GUIDES. A renamed flag fails (exit 64).
#
# How the docs' lines become runnable here (no radios, no gateway):
# - a line ending in `\` continues on the next; `for …; do` … `done` is one
#   command; a trailing `# comment` is dropped; `fprint` is the built binary
#   (a wrapper first on PATH), `swift run fprint` too; commands run from a
#   work folder holding the repository's docs/examples and test captures at
#   the paths the docs name;
# - measure and walk get --simulate (unless they replay a btsnoop file) and
#   --fast; periodic schedules keep their shape at seconds instead of minutes;
# - placeholders get real values: 3f2a9c = a stored measurement's id prefix,
#   <sessionId> = the newest walk (not J3NP's when deleting),
#   old-ios-dump.json/android.jsonl = the seed apps' fixtures,
#   deployed.csv = a sheet of the shipped J2NP beacons in metres (the same registry),
#   new-measurement.json = a stored measurement written out; the public
#   datasets' files are the hand-made fixtures in their layouts
#   (uji-lib-longterm/, ble-flat-robot/*.csv, trainingData.csv; the real
#   ones are in FPDatasetsTests); delete's
#   --before date becomes tomorrow (so there is something to delete) with the
#   --yes a script gives where a terminal would ask;
# - a real `fprint gateway` runs beside the tour (users alice and bob, its own
#   database): gw.example:5984 and $FPRINT_GATEWAY are it, `fprint login`
#   gets alice's password on stdin, FPRINT_TOKEN=… a token of alice (its
#   admin); `fprint probe --trust-server` trusts its probe key (with a
#   token of its own: gateway.md's examples revoke alice's);
# - `fprint dashboard …` (a server) is started on a free port, its Survey page
#   fetched, then stopped with SIGINT, which must end it with exit 0
#   (make test-browser clicks the page itself);
# - lines that need real hardware (a Bluetooth adapter), another network peer
#   (CouchDB, a probe port: Tests/probe/netns.sh runs those), root, or run
#   until stopped (a server) are skipped with the reason; so are make
#   targets (CI runs them) and shell set-up (export);
# - doctor may answer 69 ("no radio can be recorded here"): its documented
#   answer on a machine without radios; `beacons --fail-on-alert` may answer 3
#   (a beacon never heard in the tour's few measurements), and so may
#   `fprint alerts` (an alert active).
#
#   bash Tests/cli-tour.sh [path/to/fprint]     (default: the debug build's)
set -uo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
FPRINT=${1:-$(swift build --show-bin-path)/fprint}
[ -x "$FPRINT" ] || { echo "cli-tour: no fprint binary at $FPRINT (run swift build)"; exit 1; }
FPRINT=$(cd "$(dirname "$FPRINT")" && pwd)/$(basename "$FPRINT")
export FPRINT

# The README first, then the guides in the order a newcomer reads them (and
# the order their examples build on each other's data).
GUIDES=(README.md docs/surveying.md docs/own-building.md docs/positioning.md docs/datasets.md
        docs/plots.md docs/gateway.md docs/dashboard.md docs/network-quality.md docs/data-safety.md
        docs/exit-codes.md docs/performance.md docs/development.md)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/fprint-tour.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export XDG_DATA_HOME=$WORK/data XDG_CONFIG_HOME=$WORK/config XDG_CACHE_HOME=$WORK/cache XDG_STATE_HOME=$WORK/state
export FPRINT_DB=$WORK/tour.sqlite
unset FPRINT_CONFIG FPRINT_TOKEN FPRINT_GATEWAY
mkdir -p "$WORK/bin"
printf '#!/bin/sh\nexec "$FPRINT" "$@"\n' > "$WORK/bin/fprint" && chmod +x "$WORK/bin/fprint"
export PATH="$WORK/bin:$PATH"
cp "$REPO/Tests/FPCoreTests/Fixtures/legacy-ios-all-docs.json" "$WORK/old-ios-dump.json"
cp "$REPO/Tests/FPCoreTests/Fixtures/legacy-android.jsonl" "$WORK/android.jsonl"
cp -R "$REPO/Tests/FPCLITests/Fixtures/uji-mini" "$WORK/uji-lib-longterm"
cp "$REPO/Tests/FPCLITests/Fixtures/deployed-beacons.csv" "$WORK/deployed.csv"
cp "$REPO/Tests/FPCLITests/Fixtures/ujiindoorloc-mini.csv" "$WORK/trainingData.csv"
mkdir -p "$WORK/ble-flat-robot"
cp "$REPO/Tests/FPCLITests/Fixtures/ble-flat-mini.csv" "$WORK/ble-flat-robot/calibration_df.csv"
cp "$REPO/Tests/FPCLITests/Fixtures/ble-flat-mini.csv" "$WORK/ble-flat-robot/test_robot_df.csv"
printf 'x,y\n0,0\n8,0\n8,6\n0,6\n' > "$WORK/ble-flat-robot/layout.csv"
mkdir -p "$WORK/docs" "$WORK/Tests/FPHCITests/Fixtures"
cp -R "$REPO/docs/examples" "$WORK/docs/examples"
ln -s "$REPO/Tests/FPHCITests/Fixtures/captures" "$WORK/Tests/FPHCITests/Fixtures/captures"
cd "$WORK"

# A real gateway for the examples that talk to one (login, sync, status,
# repair), on a free port with its own database; gw.example:5984 in the docs
# is this one, and so is $FPRINT_GATEWAY. alice is its admin: the seed apps'
# imported documents are signed by their own surveyors, which a user's push
# may not write (the gateway refuses them, exit 77, as docs/gateway.md says).
printf 'alice:alicepw:admin\n' > users.txt && chmod 600 users.txt
"$FPRINT" gateway --port 0 --db "$WORK/gateway.sqlite" --users users.txt > gateway.out 2> gateway.err &
GATEWAY_PID=$!
trap 'kill "$GATEWAY_PID" 2>/dev/null; wait "$GATEWAY_PID" 2>/dev/null; rm -rf "$WORK"' EXIT
# A bound only against hanging: a debug gateway starts in about a second.
for _ in $(seq 600); do grep -q 'listening on' gateway.err && break; sleep 0.1; done
GATEWAY=$(sed -nE 's/^fprint gateway: listening on (http:[^ ]+).*/\1/p' gateway.err)
[ -n "$GATEWAY" ] || { echo "cli-tour: the gateway did not start: $(cat gateway.err)"; exit 1; }
export FPRINT_GATEWAY=$GATEWAY
TOKEN=$("$FPRINT" gateway token --user alice --role admin --ttl 1d)
printf 'alicepw\n' > password

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

# Why a docs line cannot run here, or nothing.
skip_reason() {
    case "$1" in
        *"--ble-source hci:"*) echo "needs a Bluetooth adapter" ;;
        "fprint adapters"*|"fprint scan"|"fprint scan --duration"*) echo "needs a Bluetooth adapter" ;;
        *"couch.example"*) echo "needs a CouchDB server (the CouchDB*Tests run sync and login against CouchDB 3.5.0)" ;;
        "fprint gateway"|"fprint gateway --"*) echo "a server: runs until stopped" ;;
        "fprint track --map J3NP") echo "needs radios; runs until Ctrl-C" ;;
        *" --publish"*) echo "needs a gateway on the network (make test-browser publishes to one)" ;;
        "fprint probe --trust-server"*) ;;  # the tour's gateway serves its key
        "fprint probe"*|*" --probe"*) echo "needs a gateway's probe port on the network (Tests/probe/netns.sh runs it)" ;;
        "curl "*) echo "needs a CouchDB server (the CouchDB*Tests run these steps against CouchDB 3.5.0)" ;;
        "sudo "*) echo "needs root" ;;
        "make "*|"bash .ci/run"*) echo "a build or test target (CI runs it)" ;;
        "export "*) echo "shell set-up, not a command of fprint" ;;
        *) ;;
    esac
}

# The docs line made runnable here (see the top of this file).
adapt() {
    local line=$1
    line=${line//swift run fprint/fprint}
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
    line=${line//http:\/\/gw.example:5984\/fprint/$GATEWAY}
    # gateway.md revoked alice's token and login before: a surveyor's token of its own.
    [[ $line == "fprint probe --trust-server"* ]] \
        && line="FPRINT_TOKEN=$("$FPRINT" gateway token --user surveyor --token-only --ttl 1h 2>/dev/null) $line"
    line=${line/#FPRINT_TOKEN=…/FPRINT_TOKEN=$TOKEN}
    echo "$line"
}

# Every command of FILE's ```sh blocks, one a line: `\`-continued lines joined,
# a `for … done` loop as one command (joined with `; `), comments dropped.
examples() {
    awk '
        /^```sh$/ { on = 1; next }
        /^```/ { on = 0; next }
        !on { next }
        { line = $0 }
        line ~ /^[[:space:]]*#/ || line ~ /^[[:space:]]*$/ { next }
        { sub(/[[:space:]]+#[[:space:]].*$/, "", line); sub(/[[:space:]]+$/, "", line) }
        cont != "" { line = cont " " line; gsub(/[[:space:]]+/, " ", line); cont = "" }
        line ~ /\\$/ { sub(/[[:space:]]*\\$/, "", line); cont = line; next }
        loop != "" { loop = loop (loop ~ /do$/ ? " " : "; ") line; if (line ~ /^[[:space:]]*done$/) { print loop; loop = "" }; next }
        line ~ /^for .*; do$/ { loop = line; next }
        { print line }
    ' "$REPO/$1" | sed -E 's/^[[:space:]]+//'
}

# Every guide with ```sh blocks must be in GUIDES: a new one is not left out.
for f in "$REPO"/docs/*.md; do
    rel=docs/${f##*/}
    grep -q '^```sh$' "$f" || continue
    [[ " ${GUIDES[*]} " == *" $rel "* ]] || fail "$rel" "has sh examples but is not in the tour's GUIDES"
done

# A server example: started on a free port, its Survey page fetched, stopped with SIGINT.
serve_briefly() {
    local cmd=${1/--port 8080/--port 0} log=$WORK/server.err port="" pid
    bash -c "exec $cmd" </dev/null >/dev/null 2>"$log" &
    pid=$!
    for _ in $(seq 600); do
        port=$(sed -nE 's|.*serving http://127\.0\.0\.1:([0-9]+)/.*|\1|p' "$log" | head -1)
        [ -n "$port" ] || ! kill -0 "$pid" 2>/dev/null && break
        sleep 0.1
    done
    if [ -z "$port" ]; then
        kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
        echo "did not start: $(head -c 400 "$log")"
        return 1
    fi
    local page
    page=$(curl -fsS "http://127.0.0.1:$port/_dashboard/survey" 2>&1)
    kill -INT "$pid"; wait "$pid"; local status=$?
    [[ $page == *"survey-maps"* ]] || { echo "its Survey page did not answer: $(head -c 200 <<<"$page")"; return 1; }
    [ "$status" -eq 0 ] || { echo "SIGINT ended it with exit $status: $(head -c 400 "$log")"; return 1; }
}

start=$(date +%s)
for guide in "${GUIDES[@]}"; do
    guide_ran=0
    while IFS= read -r doc_line; do
        reason=$(skip_reason "$doc_line")
        if [ -n "$reason" ]; then
            echo "skip: $guide: $doc_line  ($reason)"
            skipped=$((skipped + 1))
            continue
        fi
        cmd=$(adapt "$doc_line")
        if [[ $cmd =~ \<[A-Za-z]+\>|…|3f2a9c|capture\.btsnoop ]]; then
            fail "$guide: $doc_line" "a placeholder is left: $cmd"
            continue
        fi
        echo "run:  $guide: $cmd"
        ran=$((ran + 1)) guide_ran=$((guide_ran + 1))
        if [[ $cmd == "fprint dashboard"* ]]; then
            if why=$(serve_briefly "$cmd"); then passed=$((passed + 1)); else fail "$guide: $doc_line" "$why"; fi
            continue
        fi
        input=/dev/null
        [[ $cmd == "fprint login"* ]] && input=$WORK/password    # the password, piped as a script gives it
        out=$(bash -c "set -o pipefail; $cmd" <"$input" 2>"$WORK/stderr") ; status=$?
        err=$(cat "$WORK/stderr")
        if grep -qE 'Fatal error|Stack dump|Current stack trace|Program crashed|Segmentation fault|Illegal instruction' <<<"$err$out"; then
            fail "$guide: $doc_line" "crashed: $(head -c 400 <<<"$err")"
        elif [ "$status" -ne 0 ] && ! [[ $cmd == "fprint doctor"* && $status -eq 69 ]] \
            && ! [[ $cmd == *"--fail-on-alert"* && $status -eq 3 ]] \
            && ! [[ $cmd == "fprint alerts"* && $status -eq 3 ]]; then
            fail "$guide: $doc_line" "exit $status: $(head -c 400 <<<"$err")"
        else
            passed=$((passed + 1))
        fi
    done < <(examples "$guide")
    [ -z "$(examples "$guide")" ] || [ "$guide_ran" -gt 0 ] || [ "$guide" = docs/development.md ] \
        || fail "$guide" "none of its examples ran"
done
[ "$ran" -gt 100 ] || fail "docs" "only $ran examples ran: did the docs' layout change?"

echo "cli-tour: $passed passed, $failed failed, $skipped skipped ($(( $(date +%s) - start )) s)"
[ "$failed" -eq 0 ]

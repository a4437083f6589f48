#!/usr/bin/env bash
# What `make install` gives a user, end to end: the release binary (Swift
# linked statically, position-dependent, exporting nothing) records, lists,
# exports, serves, syncs both ways and finds its shipped config and
# completions. `make test` runs the debug build; this is the one run of the
# release build. Usage: Tests/install-smoke.sh [PREFIX] (default: a temporary one).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

work=$(mktemp -d)
prefix=${1:-$work/prefix}
gateway_pid=""
cleanup() {
    [ -n "$gateway_pid" ] && kill "$gateway_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "install-smoke: FAIL: $*" >&2; exit 1; }
# Whole output first: `grep -q` in a pipe would close it early under pipefail.
has() { grep -q -- "$1" <<<"$2"; }
step() { echo "install-smoke: $*" >&2; }

step "make install PREFIX=$prefix"
make install PREFIX="$prefix" >"$work/install.log" 2>&1 || { tail -20 "$work/install.log" >&2; fail "make install"; }
fprint="$prefix/bin/fprint"
export HOME="$work/home" XDG_DATA_HOME="$work/data" XDG_CONFIG_HOME="$work/config" \
    XDG_CACHE_HOME="$work/cache" XDG_STATE_HOME="$work/state"
unset FPRINT_DB FPRINT_CONFIG FPRINT_TOKEN FPRINT_GATEWAY
cd "$work"  # away from the repository: the installed share/fprint must be found

for shell in "share/bash-completion/completions/fprint" "share/zsh/site-functions/_fprint" \
    "share/fish/vendor_completions.d/fprint.fish"; do
    [ -s "$prefix/$shell" ] || fail "no completion script $shell"
done
"$fprint" --version >/dev/null || fail "--version"
# libstdc++ is linked in (Support/static-libstdc++): loading it cost every command ~1.2 ms.
! has libstdc++ "$(ldd "$fprint")" || fail "the release binary loads the shared libstdc++: $(ldd "$fprint" | grep libstdc++)"
has J1NP "$("$fprint" maps)" || fail "maps does not list J1NP from $prefix/share/fprint"

step "measure, walk, list, show, export (simulated radios)"
"$fprint" measure --map J1NP --x 363 --y 701 --simulate --fast --duration 5 --seed 1 >/dev/null 2>&1 || fail "measure"
"$fprint" walk --scenario scenarioJ1NP1 --simulate --fast --seed 2 >"$work/walk.ids" 2>/dev/null || fail "walk"
[ "$(wc -l <"$work/walk.ids")" -gt 10 ] || fail "walk stored $(wc -l <"$work/walk.ids") documents"
count=$("$fprint" list --json | wc -l)
[ "$count" -eq $(($(wc -l <"$work/walk.ids") + 1)) ] || fail "list shows $count documents"
"$fprint" show "$(head -1 "$work/walk.ids")" >/dev/null || fail "show"
"$fprint" export jsonl >"$work/export.jsonl" || fail "export jsonl"
[ "$(wc -l <"$work/export.jsonl")" -eq "$count" ] || fail "export wrote $(wc -l <"$work/export.jsonl") of $count"

step "the docs' examples (Tests/cli-tour.sh) with the installed binary"
bash "$repo/Tests/cli-tour.sh" "$fprint" >"$work/tour.log" 2>&1 || { tail -30 "$work/tour.log" >&2; fail "cli-tour"; }

step "gateway, push, pull, no-op sync"
head -c 32 /dev/urandom | base64 >"$work/secret"
chmod 600 "$work/secret"
"$fprint" gateway --port 0 --db "$work/gateway.sqlite" --secret-file "$work/secret" 2>"$work/gateway.log" &
gateway_pid=$!
url=""
for _ in $(seq 100); do
    url=$(grep -o 'http://127\.0\.0\.1:[0-9]*/fprint' "$work/gateway.log" | head -1 || true)
    [ -n "$url" ] && break
    sleep 0.1
done
[ -n "$url" ] || { cat "$work/gateway.log" >&2; fail "the gateway did not start"; }
FPRINT_TOKEN=$("$fprint" gateway token --user smoke --secret-file "$work/secret")
export FPRINT_TOKEN
# The summary line is on stdout (progress on stderr, kept in sync.log); --quiet prints neither.
has "sent $count of $count" "$("$fprint" sync --gateway "$url" 2>>"$work/sync.log")" || fail "push"
has "received $count of $count" "$(FPRINT_DB="$work/second.sqlite" "$fprint" sync --gateway "$url" 2>>"$work/sync.log")" \
    || fail "pull into a second database"
[ "$(FPRINT_DB="$work/second.sqlite" "$fprint" list --json | wc -l)" -eq "$count" ] || fail "second database"
[ -z "$("$fprint" sync --quiet --gateway "$url")" ] || fail "sync --quiet after the pull printed something"
cp "$XDG_DATA_HOME/fprint/fprint.sqlite" "$work/before.sqlite"
has "sent 0 of 0" "$("$fprint" sync --gateway "$url" 2>>"$work/sync.log")" || fail "no-op sync"
cmp -s "$XDG_DATA_HOME/fprint/fprint.sqlite" "$work/before.sqlite" || fail "a no-op sync changed the database file"
has "last sync:  20" "$("$fprint" status --gateway "$url")" || fail "status shows no last sync"
echo "install-smoke: ok ($count documents recorded, served, pushed and pulled by $fprint)" >&2

#!/usr/bin/env bash
# Scanning without root as the Debian package sets it up (docs/install.md),
# on btvirt's hci0: a copy of fprint, root:<group> 0750 with
# cap_net_raw,cap_net_admin+ep, like /usr/lib/fprint/fprint-radio
# (FPRINT_RADIO_HELPER points at it: the guest's root file system is the
# host's, read-only). A user in the group scans without root; a user outside
# it gets exit 81 naming the group. Numeric ids: the guest's /etc is the host's.
# Usage: group-scan-guest.sh FPRINT_BINARY OUT_DIR
set -u
BIN=$1 OUT=$2/group
mkdir -p "$OUT" /tmp/fprint-radio
# A tmpfs of its own: file capabilities count only where suid is allowed.
mount -t tmpfs -o mode=0755,suid fprint-radio /tmp/fprint-radio
cp "$BIN" /tmp/fprint-radio/fprint-radio
chown root:4243 /tmp/fprint-radio/fprint-radio
chmod 0750 /tmp/fprint-radio/fprint-radio
setcap cap_net_raw,cap_net_admin+ep /tmp/fprint-radio/fprint-radio
getcap /tmp/fprint-radio/fprint-radio > "$OUT/getcap.txt"
as_user() {  # uid, supplementary groups ("" for none), then the command
    local uid=$1 groups=$2; shift 2
    mkdir -p "/tmp/user-$uid" && chown "$uid:$uid" "/tmp/user-$uid"
    local g=(--clear-groups); [ -n "$groups" ] && g=(--groups "$groups")
    setpriv --reuid "$uid" --regid "$uid" "${g[@]}" --inh-caps=-all \
        env -i PATH=/usr/bin:/bin HOME="/tmp/user-$uid" XDG_DATA_HOME="/tmp/user-$uid" XDG_CONFIG_HOME="/tmp/user-$uid" \
        XDG_CACHE_HOME="/tmp/user-$uid" XDG_STATE_HOME="/tmp/user-$uid" FPRINT_RADIO_HELPER=/tmp/fprint-radio/fprint-radio "$@"
}
as_user 4242 4243 "$BIN" scan --ble-source hci:hci0 --duration 3 > "$OUT/member.jsonl" 2> "$OUT/member.err"
echo $? > "$OUT/member.rc"
as_user 4244 "" "$BIN" scan --ble-source hci:hci0 --duration 3 > "$OUT/outsider.jsonl" 2> "$OUT/outsider.err"
echo $? > "$OUT/outsider.rc"
umount /tmp/fprint-radio

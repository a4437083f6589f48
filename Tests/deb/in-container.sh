#!/bin/bash
# Runs inside the installed root booted with systemd as PID 1
# (Tests/deb/install-test.sh): the gateway as its service starts from the
# edited gateway.conf, serves, reloads, survives a restart with its data;
# the fprint group's members hold the scanning capabilities through
# fprint-radio, others do not; then the package is upgraded (UPGRADE_DEB, a
# higher version), removed and purged, and what each keeps is checked by
# checksum. Prints "ok …" lines; the first failure ends it.
# Usage: in-container.sh UPGRADE_DEB
set -uo pipefail
upgrade_deb=$1
fail() {
    echo "FAIL: $*"
    systemctl status fprint-gateway.service --no-pager 2>&1 | tail -20
    journalctl -u fprint-gateway.service --no-pager 2>&1 | tail -30
    exit 1
}
ok() { echo "ok $*"; }
# A port other than the default: proves the service reads gateway.conf.
port=5985
url=http://127.0.0.1:$port
admin=(-u admin:admin-password)
main_pid() { systemctl show -p MainPID --value fprint-gateway.service; }
status_of() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
# Ready when an authenticated request answers (10 s at most).
wait_ready() {
    for _ in $(seq 100); do [ "$(status_of "${admin[@]}" "$url/fprint")" = 200 ] && return 0; sleep 0.1; done
    fail "no answer on $url after 10 s"
}
# The user's data the package must keep until purge, with checksums.
kept=(/etc/fprint/gateway.conf /etc/fprint/gateway-secret /etc/fprint/gateway-users
    /var/lib/fprint-gateway/gateway.sqlite /var/lib/fprint-gateway/credentials.json
    /home/bob/.local/share/fprint/fprint.sqlite /home/bob/.config/fprint/settings.json)
# "body": the gateway's database without its 100-byte header, whose change
# counter and schema cookie move at every start of the gateway.
checksums() {
    local f
    for f in "${kept[@]}"; do
        if [ "${1:-}" = body ] && [ "$f" = /var/lib/fprint-gateway/gateway.sqlite ]; then
            echo "$(tail -c +101 "$f" | sha256sum | cut -d' ' -f1)  $f (after its header)"
        else
            sha256sum "$f" 2>&1
        fi
    done
}

# A wrong setting: the unit fails at once, and the journal says why.
sed -i "s/^FPRINT_GATEWAY_OPTIONS=.*/FPRINT_GATEWAY_OPTIONS=--no-such-option/" /etc/fprint/gateway.conf
systemctl start fprint-gateway.service  # Type=exec: started once exec'd; the gateway then exits 64
for _ in $(seq 50); do [ "$(systemctl is-active fprint-gateway.service)" = failed ] && break; sleep 0.1; done
sleep 3  # more than RestartSec: a restart would show now
[ "$(systemctl is-active fprint-gateway.service)" = failed ] || fail "a wrong option left the unit $(systemctl is-active fprint-gateway.service), not failed"
journalctl -u fprint-gateway.service --no-pager | grep -q "no-such-option" || fail "the journal does not name the wrong option"
ok "a wrong option in gateway.conf: the unit failed at once, the journal names it"
sed -i "s/^FPRINT_GATEWAY_OPTIONS=.*/FPRINT_GATEWAY_OPTIONS=/" /etc/fprint/gateway.conf
systemctl reset-failed fprint-gateway.service

sed -i "s/^FPRINT_GATEWAY_PORT=.*/FPRINT_GATEWAY_PORT=$port/" /etc/fprint/gateway.conf
printf 'admin:admin-password:admin\n' >/etc/fprint/gateway-users
systemctl start fprint-gateway.service || fail "systemctl start"
wait_ready
systemctl is-active --quiet fprint-gateway.service || fail "not active"
[ "$(stat -c %U /var/lib/fprint-gateway/gateway.sqlite)" = _fprint-gateway ] || fail "the database is not the service user's"
user=$(ps -o user:20= -p "$(main_pid)")
[ "$user" = _fprint-gateway ] || fail "the gateway runs as $user"
ok "the service started as $user on port $port (gateway.conf)"
[ "$(status_of "$url/fprint")" = 401 ] || fail "an anonymous request was not refused"
put=$(curl -s "${admin[@]}" -X PUT -H 'Content-Type: application/json' \
    -d '{"couchbase_sync_gateway_id":"admin","note":"kept"}' "$url/fprint/deb-test-doc")
grep -q '"ok":true' <<<"$put" || fail "PUT: $put"
grep -q '"doc_count":1' <<<"$(curl -s "${admin[@]}" "$url/fprint")" || fail "the database does not count the document"
ok "serves: anonymous refused (401), PUT as the users file's admin, doc_count 1"

printf 'admin:admin-password:admin\nviewer:viewer-password:viewer\n' >/etc/fprint/gateway-users
pid=$(main_pid)
systemctl reload fprint-gateway.service || fail "systemctl reload"
for _ in $(seq 50); do
    journalctl -u fprint-gateway.service --no-pager | grep -q "SIGHUP: users file re-read (2 users), access log reopened" && break
    sleep 0.1
done
journalctl -u fprint-gateway.service --no-pager | grep -q "SIGHUP: users file re-read (2 users), access log reopened" \
    || fail "reload: $(journalctl -u fprint-gateway.service --no-pager | tail -5)"
systemctl is-active --quiet fprint-gateway.service || fail "reload ended the service"
[ "$(main_pid)" = "$pid" ] || fail "reload replaced the process"
[ "$(status_of -u viewer:viewer-password "$url/fprint/deb-test-doc")" = 200 ] || fail "the reloaded users file's viewer is refused"
[ -s /var/log/fprint-gateway/access.jsonl ] || fail "no access log"
ok "reload (SIGHUP): same process, users file re-read, access log reopened"

systemctl restart fprint-gateway.service || fail "systemctl restart"
[ "$(main_pid)" != "$pid" ] || fail "restart kept the same process"
wait_ready
got=$(curl -s -u viewer:viewer-password "$url/fprint/deb-test-doc")
grep -q '"note":"kept"' <<<"$got" || fail "after restart: $got"
ok "restart: a new process serves the document"

token=$(runuser -u _fprint-gateway -- fprint gateway token --user admin --role admin \
    --secret-file /etc/fprint/gateway-secret --credentials-file /var/lib/fprint-gateway/credentials.json) || fail "gateway token"
[ "$(status_of -H "Authorization: Bearer $token" "$url/fprint")" = 200 ] || fail "the token is refused"
[ "$(status_of -H "Authorization: Bearer ${token}x" "$url/fprint")" = 401 ] || fail "a forged token is accepted"
ok "a token issued as the service user is accepted (a forged one is not)"

security=$(systemd-analyze security fprint-gateway.service --no-pager 2>&1 | grep "Overall exposure level")
echo "security: $security"
score=$(sed -n 's/.*fprint-gateway.service: \([0-9.]*\) .*/\1/p' <<<"$security")
[ -n "$score" ] && awk "BEGIN { exit !($score <= 1.5) }" || fail "exposure $score: the sandbox is weaker than the 1.1 docs/install.md states"
journalctl -u fprint-gateway.service --no-pager | grep -q "code=killed" && fail "a process of the service was killed"

alice=$(runuser -u alice -- env HOME=/home/alice fprint doctor 2>&1)
grep -q "CAP_NET_RAW: raw HCI sockets for BLE" <<<"$alice" || fail "alice (group fprint) holds no CAP_NET_RAW: $alice"
grep -q "CAP_NET_ADMIN: Wi-Fi scans are triggered" <<<"$alice" || fail "alice holds no CAP_NET_ADMIN: $alice"
ok "alice (group fprint) scans with CAP_NET_RAW and CAP_NET_ADMIN"
bob=$(runuser -u bob -- env HOME=/home/bob fprint doctor 2>&1)
grep -q "no CAP_NET_RAW" <<<"$bob" || fail "bob (not in the group) holds CAP_NET_RAW: $bob"
grep -q "sudo adduser bob fprint" <<<"$bob" || fail "bob is not told about the fprint group: $bob"
ok "bob (not in the group) has no capabilities and is told to join the fprint group"

# Upgrade with the gateway stopped: every kept file byte for byte (a running
# gateway writes its database when it starts).
systemctl stop fprint-gateway.service
before=$(checksums)
before_body=$(checksums body)
grep -q "No such file" <<<"$before" && fail "kept files missing: $before"
old=$(dpkg-query -W -f '${Version}' fprint)
apt-get install -y -q "$upgrade_deb" >/tmp/upgrade.log 2>&1 || fail "upgrade: $(tail -20 /tmp/upgrade.log)"
new=$(dpkg-query -W -f '${Version}' fprint)
dpkg --compare-versions "$new" gt "$old" || fail "the upgrade left version $new (was $old)"
[ "$(checksums)" = "$before" ] || fail "the upgrade changed kept files: $(diff <(echo "$before") <(checksums))"
systemctl is-active --quiet fprint-gateway.service && fail "the upgrade started a stopped gateway"
getcap /usr/lib/fprint/fprint-radio | grep -q "cap_net_admin,cap_net_raw=ep" || fail "the upgrade lost fprint-radio's capabilities"
[ "$(stat -c '%U:%G %a' /usr/lib/fprint/fprint-radio)" = "root:fprint 750" ] || fail "the upgrade changed fprint-radio's owner or mode"
ok "upgrade $old → $new: gateway.conf (edited), secret, users, database, credentials, bob's store and settings unchanged"

# A running gateway is restarted on the new package (a reinstall runs postinst again).
systemctl start fprint-gateway.service || fail "start after the upgrade"
wait_ready
pid=$(main_pid)
dpkg -i "$upgrade_deb" >/tmp/reinstall.log 2>&1 || fail "reinstall: $(tail -20 /tmp/reinstall.log)"
wait_ready
[ "$(main_pid)" != "$pid" ] || fail "the upgrade did not restart the running gateway"
grep -q '"note":"kept"' <<<"$(curl -s "${admin[@]}" "$url/fprint/deb-test-doc")" || fail "after the upgrade the document is gone"
ok "an upgrade restarts a running gateway, which serves the document"

apt-get remove -y -q fprint >/tmp/remove.log 2>&1 || fail "remove: $(tail -20 /tmp/remove.log)"
systemctl is-active --quiet fprint-gateway.service && fail "remove left the gateway running"
for f in /usr/bin/fprint /usr/lib/fprint/fprint-radio /lib/systemd/system/fprint-gateway.service; do
    [ ! -e "$f" ] || fail "remove left $f"
done
[ "$(checksums body)" = "$before_body" ] || fail "remove changed or deleted kept files: $(diff <(echo "$before_body") <(checksums body))"
[ "$(dpkg-query -W -f '${db:Status-Abbrev}' fprint)" = "rc " ] || fail "remove: dpkg says $(dpkg-query -W -f '${db:Status-Abbrev}' fprint)"
ok "remove: the program and the unit gone, the gateway stopped, every kept file unchanged (the database after its header)"

# Purge deletes what it says and nothing else: every path on the system before and after.
paths() { find / -xdev \( -path /proc -o -path /sys -o -path /dev -o -path /run -o -path /tmp -o -path /var/log/journal \
    -o -path /var/cache/debconf -o -path /var/lib/dpkg \) -prune -o -print | LC_ALL=C sort; }
paths >/tmp/paths.before
apt-get purge -y -q fprint >/tmp/purge.log 2>&1 || fail "purge: $(tail -20 /tmp/purge.log)"
grep "^fprint: " /tmp/purge.log
[ "$(grep -c "fprint: purge deletes /etc/fprint" /tmp/purge.log)" = 1 ] || fail "purge did not say once what it deletes: $(cat /tmp/purge.log)"
paths >/tmp/paths.after
gone=$(comm -23 /tmp/paths.before /tmp/paths.after)
unexpected=$(grep -v -E '^(/etc/fprint|/var/(lib|log|cache)/fprint-gateway)(/|$)' <<<"$gone")
[ -z "$unexpected" ] || fail "purge deleted what it did not announce: $unexpected"
for f in /etc/fprint /var/lib/fprint-gateway /var/log/fprint-gateway /var/cache/fprint-gateway; do
    grep -qx "$f" <<<"$gone" || fail "purge left $f"
    grep -q "$f" /tmp/purge.log || fail "purge deleted $f without saying so"
done
[ -z "$(comm -13 /tmp/paths.before /tmp/paths.after)" ] || fail "purge made files: $(comm -13 /tmp/paths.before /tmp/paths.after)"
sha256sum -c --quiet <(grep /home/bob <<<"$before") || fail "purge touched bob's store or settings"
status=$(dpkg-query -W -f '${db:Status-Abbrev}' fprint 2>/dev/null)
case $status in "" | un* | pn*) ;; *) fail "dpkg still holds fprint after purge: $status" ;; esac
ok "purge: said what it deletes, deleted those $(wc -l <<<"$gone") paths and nothing else; bob's store and settings kept"
exit 0

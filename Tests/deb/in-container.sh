#!/bin/bash
# Runs inside the installed root booted with systemd (Tests/deb/install-test.sh):
# the gateway as its service starts, serves, reloads, survives a restart with
# its data; the fprint group's members hold the scanning capabilities through
# fprint-radio, others do not. Prints "ok …" lines; the first failure ends it.
set -uo pipefail
fail() { echo "FAIL: $*"; systemctl status fprint-gateway.service --no-pager 2>&1 | tail -20; journalctl -u fprint-gateway.service --no-pager 2>&1 | tail -30; exit 1; }
ok() { echo "ok $*"; }
url=http://127.0.0.1:5984

printf 'admin:admin-password:admin\n' >/etc/fprint/gateway-users
systemctl start fprint-gateway.service || fail "systemctl start"
for _ in $(seq 100); do curl -s -o /dev/null "$url/" && break; sleep 0.1; done
[ "$(stat -c %U /var/lib/fprint-gateway/gateway.sqlite)" = _fprint-gateway ] || fail "the database is not the service user's"
ok "the service started as $(ps -o user= -p "$(systemctl show -p MainPID --value fprint-gateway)")"
put=$(curl -s -u admin:admin-password -X PUT -H 'Content-Type: application/json' \
    -d '{"couchbase_sync_gateway_id":"admin","note":"kept"}' "$url/fprint/deb-test-doc")
grep -q '"ok":true' <<<"$put" || fail "PUT: $put"
ok "serves: PUT as the users file's admin"

printf 'admin:admin-password:admin\nviewer:viewer-password:viewer\n' >/etc/fprint/gateway-users
systemctl reload fprint-gateway.service || fail "systemctl reload"
sleep 1
systemctl is-active --quiet fprint-gateway.service || fail "reload ended the service"
journalctl -u fprint-gateway.service --no-pager | grep -q "SIGHUP: users file re-read (2 users), access log reopened" \
    || fail "reload: $(journalctl -u fprint-gateway.service --no-pager | tail -5)"
[ -s /var/log/fprint-gateway/access.jsonl ] || fail "no access log"
ok "reload re-reads the users and reopens the access log"

pid=$(systemctl show -p MainPID --value fprint-gateway)
systemctl restart fprint-gateway.service || fail "systemctl restart"
[ "$(systemctl show -p MainPID --value fprint-gateway)" != "$pid" ] || fail "restart kept the same process"
for _ in $(seq 100); do curl -s -o /dev/null "$url/" && break; sleep 0.1; done
got=$(curl -s -u viewer:viewer-password "$url/fprint/deb-test-doc")
grep -q '"note":"kept"' <<<"$got" || fail "after restart: $got"
ok "restart: the document is still served"

token=$(runuser -u _fprint-gateway -- fprint gateway token --user admin --role admin \
    --secret-file /etc/fprint/gateway-secret --credentials-file /var/lib/fprint-gateway/credentials.json) || fail "gateway token"
[ "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $token" "$url/fprint")" = 200 ] || fail "the token is refused"
ok "a token issued as the service user is accepted"

echo "security: $(systemd-analyze security fprint-gateway.service --no-pager | tail -1)"

alice=$(runuser -u alice -- env HOME=/home/alice fprint doctor 2>&1)
grep -q "CAP_NET_RAW: raw HCI sockets for BLE" <<<"$alice" || fail "alice (group fprint) holds no CAP_NET_RAW: $alice"
grep -q "CAP_NET_ADMIN: Wi-Fi scans are triggered" <<<"$alice" || fail "alice holds no CAP_NET_ADMIN: $alice"
ok "alice (group fprint) scans with CAP_NET_RAW and CAP_NET_ADMIN"
bob=$(runuser -u bob -- env HOME=/home/bob fprint doctor 2>&1)
grep -q "no CAP_NET_RAW" <<<"$bob" || fail "bob (not in the group) holds CAP_NET_RAW: $bob"
grep -q "sudo adduser bob fprint" <<<"$bob" || fail "bob is not told about the fprint group: $bob"
ok "bob (not in the group) has no capabilities and is told to join the fprint group"
systemctl stop fprint-gateway.service
exit 0

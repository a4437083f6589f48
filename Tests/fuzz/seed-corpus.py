#!/usr/bin/env python3
"""Writes Tests/fuzz/corpus/<target>/ from the real inputs the tests already use
(fixtures, Config/, Scenarios/): a few small files per target. Run from anywhere;
rerun after a fixture changes. The corpora are committed (about 150 KB)."""
import os, shutil, struct

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "Tests", "fuzz", "corpus")
CUT = b"\n--8<--\n"  # the separator of multi-file inputs (fprint-libfuzz's pieces())


def src(*parts):
    return os.path.join(ROOT, *parts)


def read(*parts):
    with open(src(*parts), "rb") as f:
        return f.read()


def put(target, name, data):
    os.makedirs(os.path.join(OUT, target), exist_ok=True)
    with open(os.path.join(OUT, target, name), "wb") as f:
        f.write(data)


def answers(path):
    """The bodies of a recorded `>>> curl …` / HTTP answer transcript."""
    text = read(*path)
    for block in text.split(b"\n>>> "):
        head, _, body = block.partition(b"\n\n")
        if body.strip():
            yield head, body.rstrip(b"\n")


def btsnoop_events(data):
    """Event packets (code, length, parameters) of an H4 btsnoop capture."""
    at, out = 16, []
    while at + 24 <= len(data):
        _, included, flags, _, _ = struct.unpack(">IIIIQ", data[at:at + 24])
        packet = data[at + 24:at + 24 + included]
        if packet[:1] == b"\x04":
            out.append(packet[1:])
        at += 24 + included
    return out


shutil.rmtree(OUT, ignore_errors=True)
fx = ("Tests",)
# JSON documents and bodies.
put("json", "golden-static-document.json", read("Tests", "FPCoreTests", "Fixtures", "golden-static-document.json"))
put("json", "couch-view.json", read("Tests", "FPCoreTests", "Fixtures", "couch-view.json"))
put("json", "app-config.json", read("Config", "app-config.json"))
doc = read("Tests", "FPCoreTests", "Fixtures", "golden-static-document.json").strip()
put("bulk-docs", "one-new-edits-false.json", b'{"docs":[' + doc + b'],"new_edits":false}')
put("bulk-docs", "two.json", b'{"docs":[' + doc + b',{"_id":"b","_rev":"1-abc","_revisions":{"start":1,"ids":["abc"]},'
    b'"_attachments":{"a.txt":{"content_type":"text/plain","data":"aGk=","revpos":1}},"owner":"u"}],"new_edits":false}')
put("revs-diff", "two.json", b'{"a":["1-967a00dff5e02add41819138abb3284d","2-7051cbe5c8faecd085a3fa619e6e6337"],"b":["3-x"]}')
# The sync client's _bulk_get / open_revs answers: first byte 0 = JSON, 1 = multipart/mixed; boundary="b1".
for i, (head, body) in enumerate(answers(("Tests", "FPSyncTests", "Fixtures", "couchdb-3.5-answers.txt"))):
    if b"_bulk_get" in head or b"open_revs" in head:
        put("bulk-get", "couchdb-%d.json" % i, b"\x00" + body)
sg = read("Tests", "FPSyncTests", "Fixtures", "sg15-bulk_get-multipart.txt")
head, _, body = sg.partition(b"\r\n\r\n") if b"\r\n\r\n" in sg else sg.partition(b"\n\n")
boundary = head.split(b'boundary="')[1].split(b'"')[0]
put("bulk-get", "sg15-multipart.txt", b"\x01" + body.replace(boundary, b"b1"))
put("multipart", "sg15.txt", b'multipart/mixed; boundary="' + boundary + b'"' + CUT + body)
put("multipart", "replicator-put.bin", b"multipart/related; boundary=\"abc\"" + CUT
    + read("Tests", "FPSyncTests", "Fixtures", "couchdb-replicator-multipart-put-with-attachment.bin"))
# Tokens (header.payload.signature, base64url) and Set-Cookie.
put("token", "token.txt", b"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSIsInJvbGUiOiJ1c2VyIiwiaWF0IjoxNzAwMDAwMDAwLCJleHAiOjE3MDAwMDM2MDAsImp0aSI6IngifQ.c2ln")
put("token", "cookie.txt", b"AuthSession=YWRtaW46NjkyMkQ4MkE6; Version=1; Expires=Mon, 23-Nov-2026 10:53:46 GMT; Max-Age=600; Path=/; HttpOnly")
# Dataset tables and a UJI campaign (rss, crd, tms, ids).
for name in ("ujiindoorloc-mini.csv", "ble-flat-mini.csv"):
    put("csv", name, read("Tests", "FPCLITests", "Fixtures", name))
put("csv", "mapped.csv", b"x;y;floor;time;WAP001;WAP002;room\n1.5;2;0;1700000000;-60;100;a\n3;4.25;1;1700000001;-71;-80;b\n")
for month in ("01", "02"):
    parts = [read("Tests", "FPCLITests", "Fixtures", "uji-mini", "db", month, "trn01%s.csv" % k) for k in ("rss", "crd", "tms", "ids")]
    put("uji", "trn01-%s.txt" % month, CUT.join(parts))
# App config + scenarios, radio environments.
put("app-config", "shipped.txt", read("Config", "app-config.json") + CUT + read("Scenarios", "scenarios.json"))
put("app-config", "fixture.txt", read("Tests", "FPConfigTests", "Fixtures", "app-config.json") + CUT
    + read("Tests", "FPConfigTests", "Fixtures", "app-scenario.json"))
put("environment", "J1NP.json", read("Config", "environments", "J1NP.json"))
put("environment", "J3NP.json", read("Config", "environments", "J3NP.json"))
# Floor-plan images: a real PNG, a JPEG header, an SVG.
put("image", "floor-plan.png", read("Tests", "FPCLITests", "Fixtures", "floor-plan.png"))
put("image", "frame.jpg", bytes.fromhex("ffd8ffe000104a46494600010100000100010000ffc0001108012c01900301220002110103110 1ffd9".replace(" ", "")))
put("image", "plan.svg", b'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="400px" height="300" viewBox="0 0 400 300"><rect/></svg>\n')
# BLE: small captures whole; events of one as the hci corpus.
for name in ("btvirt-vm-monitor.btsnoop", "dandwhelan__fossibot-bluetooth-2-adv.btsnoop", "csacca__horizon-74-at-ble-adv.btsnoop"):
    put("btsnoop", name, read("Tests", "FPHCITests", "Fixtures", "captures", name))
events = btsnoop_events(read("Tests", "FPHCITests", "Fixtures", "captures", "csacca__horizon-74-at-ble-adv.btsnoop"))
for i, e in enumerate(sorted(set(events), key=lambda e: (len(e), e))[::max(1, len(set(events)) // 12)]):
    put("hci", "event-%02d.bin" % i, e)
# gpsd's JSON session.
gpsd = read("Tests", "FPLinuxRadiosTests", "Fixtures", "gnss", "gpsd-3.22-session.jsonl")
put("gpsd", "session.jsonl", gpsd)
# nl80211: the recorded generic-netlink payload, alone and in a netlink message as received.
for i, line in enumerate(read("Tests", "FPLinuxRadiosTests", "Fixtures", "nl80211", "hwsim-scan-dump.hex").split()):
    payload = bytes.fromhex(line.decode())
    put("nl80211", "payload-%d.bin" % i, payload)
    put("nl80211", "message-%d.bin" % i, struct.pack("<IHHII", 16 + len(payload), 0x1c, 2, 7, 0) + payload)
# mmcli -J answers.
for name in sorted(os.listdir(src("Tests", "FPLinuxRadiosTests", "Fixtures", "mmcli"))):
    if name.endswith(".json"):
        put("mmcli", name, read("Tests", "FPLinuxRadiosTests", "Fixtures", "mmcli", name))
# The probe protocol: a datagram, a request line, a stored run.
put("probe-wire", "datagram.bin", b"FPPB\x03\x00\x00\x00" + bytes(range(8)) + b"\x00\x00\x00\x05" + bytes(16) + bytes(64))
put("probe-wire", "request.json", b'{"op":"udp","token":"abc","count":200,"size":512,"interval_ms":20}\n')
put("probe-wire", "run.json", b'{"type":"probe","result":{"server":"gw:5985","phases":[{"name":"udp","status":"ok","jitter_ms":1.5,"loss":0.01,"rtt_ms":{"median":12}}]},"started":"2026-11-22T10:00:00Z","map":"J1NP","x":1,"y":2}')
# The gateway's reading of a request: path, query, header lines (a real
# replicator's GET, a login form's POST, a proxied request with a cookie).
put("gateway-request", "replicator.txt", b"/fprint/_local/ae54ae931f0e8" + CUT + b"rev=2-7051cbe5c8faecd085a3fa619e6e6337&latest=true"
    + CUT + b"Host: 127.0.0.1:5984\nAuthorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2ln\nAccept: application/json\n")
put("gateway-request", "session.txt", b"/_session" + CUT + b"next=%2Ffprint%2F_all_docs&name=alice"
    + CUT + b"Host: gw.example.org\nOrigin: https://gw.example.org\nContent-Type: application/x-www-form-urlencoded; charset=utf-8\n"
    + b"Authorization: Basic YWxpY2U6c2VjcmV0\n")
put("gateway-request", "proxied.txt", b"/fprint/doc%2Fwith%20slash/att.png" + CUT + b"public=https%3A%2F%2Fgw.example.org"
    + CUT + b"X-Forwarded-For: 203.0.113.9, 10.0.0.2\nCookie: theme=dark; AuthSession=YWxpY2U6NjkyMkQ4MkE6\nReferer: https://evil.example/x\n")
# Beacon sheets: the shipped example and both identity kinds in metres.
for name in ("lab-beacons.csv", "lab-beacons-ids.csv", "lab0-beacons-metres.csv"):
    put("beacon-sheet", name, read("docs", "examples", name))
put("beacon-sheet", "identities.csv", b"Name;UUID;Major;Minor;Namespace;Instance;X (m);Y (m);Tx power [dBm]\n"
    b"door;f7826da6-4fa2-4e98-8024-bc5b71e0893e;1;2;;;1,5;2;-59\nlift;;;;edd1ebeac04e5defa017;0123456789ab;3;4,25;-61\n")
total = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(OUT) for f in fs)
print("seed-corpus: %d targets, %d bytes in %s" % (len(os.listdir(OUT)), total, OUT))

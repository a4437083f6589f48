#!/usr/bin/env python3
"""The power-cut checks, in the VM (guest.sh).

expect OUT                   after the workloads: every document's rev and body
                             hash now, into OUT/expect.json
check OUT LOG --seed N --sample K --scratch DIR
                             replays LOG (replay.py) to each planned crash
                             state (a K-sample of them, K > 0), mounts it where
                             the workloads ran and checks it; one line per
                             failure, a summary per workload in OUT/summary.json
"""
import argparse
import hashlib
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import replay  # noqa: E402

M = "/run/powercut-fs"  # guest.sh ran the workloads here (env.sh)
DB = f"{M}/db/fprint.sqlite"
GWDB, SECRET, USERS = f"{M}/gw/gateway.sqlite", f"{M}/gw/secret", f"{M}/gw/users"
LEDGER = SECRET + ".credentials.json"
CONFIG = f"{M}/home/config/fprint"
ENV = dict(os.environ, HOME=f"{M}/home", XDG_CONFIG_HOME=f"{M}/home/config", XDG_DATA_HOME=f"{M}/home/data",
           XDG_STATE_HOME=f"{M}/home/state", XDG_CACHE_HOME=f"{M}/home/cache", FPRINT_DB=DB)


def documents(path, immutable=False):
    """{id: [rev, sha256 of the body]} of the current revision of every document ({} with no database)."""
    if not os.path.exists(path):
        return {}
    # immutable: the source's file on the 9p share, where WAL's shared memory cannot be mapped.
    db = sqlite3.connect(f"file:{path}?mode=ro" + ("&immutable=1" if immutable else ""), uri=True)
    rows = db.execute("SELECT d.id, d.rev, r.body FROM documents d LEFT JOIN revisions r ON r.doc_id = d.id AND r.rev = d.rev")
    out = {i: [rev, hashlib.sha256(body if isinstance(body, bytes) else (body or "").encode()).hexdigest()]
           for i, rev, body in rows}
    db.close()
    return out


def expect(out):
    src = {i: v[0] for i, v in documents(f"{out}/src.sqlite", immutable=True).items()}
    data = {"local": documents(DB), "gateway": documents(GWDB), "source": src}
    json.dump(data, open(f"{out}/expect.json", "w"))
    print(f"expect: {len(data['local'])} local, {len(data['gateway'])} gateway, {len(src)} source documents")


def run(args, timeout=120):
    r = subprocess.run(args, env=ENV, capture_output=True, text=True, timeout=timeout)
    return r.returncode, (r.stderr.strip().splitlines() or [""])[-1]


def integrity(path):
    db = sqlite3.connect(path)
    try:
        return db.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        db.close()


def json_file(path, problems, what):
    try:
        with open(path) as f:
            return json.load(f)
    except Exception as e:  # a torn or empty file
        problems.append(f"{what} {path} is not whole JSON: {e}")
        return None


def check_state(marks, want, bin_path):
    """The list of problems of the mounted state, given the marks acknowledged before it."""
    problems = []
    acked = [m for m in marks]
    docs = [m.split(":", 1)[1] for m in acked if m.startswith("doc:")]
    walks = [m.split(":")[1:] for m in acked if m.startswith("walk:")]
    syncs = [int(m.split(":")[1]) for m in acked if m.startswith("sync:")]
    gws = [m.split(":")[1:] for m in acked if m.startswith("gw:")]
    # The stores: SQLite's own check, then every acknowledged document with its rev and body.
    local = gateway = None
    if os.path.exists(DB):
        verdict = integrity(DB)
        if verdict != "ok":
            problems.append(f"{DB}: integrity_check: {verdict}")
        local = documents(DB)
    if os.path.exists(GWDB):
        verdict = integrity(GWDB)
        if verdict != "ok":
            problems.append(f"{GWDB}: integrity_check: {verdict}")
        gateway = documents(GWDB)
    if (docs or syncs) and local is None:
        problems.append(f"{DB} is gone, with {len(docs)} acknowledged documents")
    for i in docs:
        if local is not None and local.get(i) != want["local"].get(i):
            problems.append(f"acknowledged document {i}: {local.get(i)} stored, {want['local'].get(i)} acknowledged")
    for n, session in walks:
        if local is not None:
            db = sqlite3.connect(DB)
            have = db.execute("SELECT count(*) FROM documents WHERE session_id = ?", (session,)).fetchone()[0]
            db.close()
            if have != int(n):
                problems.append(f"walk session {session}: {have} documents, {n} reported stored")
    for n in syncs:
        # Sync reported n received: n of the source's documents are here at its revs (all, once all were).
        missing = [i for i, rev in want["source"].items() if local is None or (local.get(i) or [None])[0] != rev]
        if len(want["source"]) - len(missing) < n:
            problems.append(f"sync reported {n} received; {len(want['source']) - len(missing)} are stored, e.g. {missing[0]} missing")
    for i, rev in gws:
        have = gateway.get(i) if gateway is not None else None
        if have is None or have[0] != rev or have != want["gateway"].get(i):
            problems.append(f"gateway: acknowledged {i} {rev}: {have} stored")
    # Files outside SQLite: whole, and what was reported done is there.
    for folder, _, names in os.walk(CONFIG):
        for name in names:
            if name.endswith(".json"):
                json_file(os.path.join(folder, name), problems, "config")
    ledger = json_file(LEDGER, problems, "ledger") if os.path.exists(LEDGER) else None
    if "map:LAB1" in acked:
        config = json_file(f"{CONFIG}/app-config.json", problems, "app config") if os.path.exists(f"{CONFIG}/app-config.json") else None
        if config is None or "LAB1" not in json.dumps(config):
            problems.append("map LAB1 was reported added; the app config lacks it")
    if "beacons:LAB1" in acked:
        sheet = json_file(f"{CONFIG}/beacons/LAB1.json", problems, "beacons") if os.path.exists(f"{CONFIG}/beacons/LAB1.json") else None
        if not sheet:
            problems.append("the LAB1 beacon sheet was reported imported; beacons/LAB1.json is missing or empty")
    for m in acked:
        if m.startswith("revoked:"):
            token = m.split(":", 1)[1]
            entry = next((c for c in (ledger or {}).get("credentials", []) if c.get("id") == token), None)
            if entry is None or "revokedAt" not in entry:
                problems.append(f"token {token} was reported revoked; the ledger has {entry}")
    if "password:alice:new" in acked:
        text = open(USERS).read() if os.path.exists(USERS) else None
        if text != "alice:new-password-2:user\n":
            problems.append(f"users file: {text!r}, not the new password the gateway let in")
    # fprint starts and works on it: checks both stores, measures, reads config and ledger.
    if local is not None:
        rc, last = run([bin_path, "check"])
        if rc != 0:
            problems.append(f"fprint check exited {rc}: {last}")
    if gateway is not None:
        rc, last = run([bin_path, "check", "--db", GWDB])
        if rc != 0:
            problems.append(f"fprint check --db gateway exited {rc}: {last}")
    if os.path.isdir(f"{M}/db"):
        # LAB1 is simulated from its beacon sheet: measured there once the sheet was acknowledged.
        rc, last = run([bin_path, "measure", "--map", "LAB1" if "beacons:LAB1" in acked else "J1NP", "--x", "200", "--y", "200",
                        "--duration", "5", "--simulate", "--fast", "--seed", "9"])
        if rc != 0:
            problems.append(f"fprint measure on the state exited {rc}: {last}")
    if ledger is not None:
        rc, last = run([bin_path, "gateway", "token", "--list", "--secret-file", SECRET])
        if rc != 0:
            problems.append(f"fprint gateway token --list exited {rc}: {last}")
    return problems


# What each workload must have acknowledged: a workload that acknowledged
# nothing checks nothing, so its missing marks are a failure of their own.
REQUIRED = {"measure": ["doc:"], "walk": ["doc:", "walk:"], "sync": ["sync:"], "gateway": ["gw:"],
            "credentials": ["revoked:", "password:alice:new"], "config": ["map:LAB1", "beacons:LAB1"]}


def missing_acknowledgements(log):
    """One line per workload that ran without an acknowledgement it must give."""
    marks, current = {}, None
    for e in log.entries:
        if not e.mark:
            continue
        if e.mark.startswith("workload:"):
            current = e.mark.split(":", 1)[1]
            marks.setdefault(current, [])
        elif current:
            marks[current].append(e.mark)
    return [f"workload {w} acknowledged no {need!r} (it failed: see its .err file)"
            for w, got in marks.items() for need in REQUIRED.get(w, []) if not any(m.startswith(need) for m in got)]


def stratified(states, sample, seed):
    """`sample` states spread evenly over the workloads (each gets its share,
    a small one all of its states), chosen at random within each."""
    rng = random.Random(seed)
    groups = {}
    for s in states:
        groups.setdefault(s["workload"], []).append(s)
    chosen, left = [], sample
    for n, (_, group) in enumerate(sorted(groups.items(), key=lambda g: len(g[1]))):
        share = left // (len(groups) - n)
        pick = group if len(group) <= share else rng.sample(group, share)
        chosen += pick
        left -= len(pick)
    return chosen


def sh(*args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout.strip()


def check(out, log_path, seed, sample, scratch, subsets, prefixes, bin_path):
    log = replay.Log(log_path)
    states = replay.plan(log, "setup", seed, subsets, prefixes)
    # Each state's workload: the last workload mark at or before its prefix.
    workload_at, current = {}, "setup"
    for e in log.entries:
        if e.mark and e.mark.startswith("workload:") and e.mark != "workload:end":
            current = e.mark.split(":", 1)[1]
        workload_at[e.index] = current
    planned = {}
    for s in states:
        s["workload"] = workload_at[s["base"]]
        planned[s["workload"]] = planned.get(s["workload"], 0) + 1
    chosen = states if sample <= 0 or sample >= len(states) else stratified(states, sample, seed)
    chosen.sort(key=lambda s: (s["base"], s["id"]))
    print(f"powercut: {len(log.entries)} log entries, {sum(1 for e in log.entries if e.flags & replay.FLUSH)} flushes, "
          f"{len(states)} crash states planned, checking {len(chosen)} (seed {seed})", file=sys.stderr)
    want = json.load(open(f"{out}/expect.json"))
    cache, state_img = f"{scratch}/cache.img", f"{scratch}/state.img"
    # The data device started as zeros: the log holds mkfs and everything since.
    with open(cache, "wb") as f:
        f.truncate(64 << 20)
    cached = -1
    checked, failures, started = {}, missing_acknowledgements(log), time.time()
    for f in failures:
        print(f"powercut: FAIL {f}", file=sys.stderr)
    for s in chosen:
        with open(cache, "r+b") as image:
            for e in log.entries[cached + 1:s["base"] + 1]:
                log.apply(e, image)
        cached = max(cached, s["base"])
        shutil.copyfile(cache, state_img)
        with open(state_img, "r+b") as image:
            for i in s["extra"]:
                log.apply(log.entries[i], image)
        marks = [e.mark for e in log.entries[:s["acked_before"]] if e.mark]
        marks = marks[marks.index("setup") + 1:]
        device = sh("losetup", "-f", "--show", state_img)
        try:
            mounted = subprocess.run(["mount", "-t", "ext4", device, M], capture_output=True, text=True)
            if mounted.returncode != 0:
                problems = [f"the filesystem does not mount: {mounted.stderr.strip()}"]
            else:
                try:
                    problems = check_state(marks, want, bin_path)
                finally:
                    sh("umount", M)
        finally:
            sh("losetup", "-d", device)
        checked[s["workload"]] = checked.get(s["workload"], 0) + 1
        label = f"state {s['id']} ({s['workload']}, {s['kind']} through entry {s['base']} + {len(s['extra'])} of the batch, {len(marks)} acks)"
        for p in problems:
            failures.append(f"{label}: {p}")
            print(f"powercut: FAIL {label}: {p}", file=sys.stderr)
        if not problems:
            print(f"powercut: ok {label}", file=sys.stderr)
    summary = {"seed": seed, "entries": len(log.entries), "planned": planned, "checked": checked,
               "failures": failures, "seconds": round(time.time() - started, 1)}
    json.dump(summary, open(f"{out}/summary.json", "w"), indent=1)
    return 1 if failures else 0


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("expect").add_argument("out")
    c = sub.add_parser("check")
    c.add_argument("out")
    c.add_argument("log")
    c.add_argument("--seed", type=int, required=True)
    c.add_argument("--sample", type=int, default=0)
    c.add_argument("--scratch", required=True)
    c.add_argument("--subsets", type=int, default=3)
    c.add_argument("--prefixes", type=int, default=2)
    c.add_argument("--bin", default=os.environ.get("FPRINT_BIN", "fprint"))
    a = p.parse_args()
    if a.cmd == "expect":
        expect(a.out)
    else:
        sys.exit(check(a.out, a.log, a.seed, a.sample, a.scratch, a.subsets, a.prefixes, a.bin))


if __name__ == "__main__":
    main()

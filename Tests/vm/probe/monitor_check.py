#!/usr/bin/env python3
"""Checks the VM's monitoring stage (Tests/vm/probe/monitor.sh, issue 57):
a probe run every 20 s while netem's rate steps 20 -> 5 -> 20 Mbit/s and the
uplink's loss 0 -> 5 -> 0 %.

Truth is the timeline's log of each netem change (made right after a run is
stored; when tc began and when it was done). A run that was going on while
netem changed straddles it: it is named and not held to either rate. Every other run:
- download within +-10 % of the rate in force (netem's `rate` counts whole
  frames, so TCP's payload gets ~95 % of it: 19.1 of 20 Mbit/s);
- UDP loss up: 0 % where no loss is set (at most 0.5 %, a datagram or five
  the emulated guest may drop), 2.6-7.4 % where netem drops 5 %: a train of
  1,000 datagrams has a binomial standard deviation of
  sqrt(0.05 x 0.95 / 1000) = 0.69 %, so this is +-3.5 sd (a run outside it
  by chance about once in 2,000); loss down (the echoes' way, never lossy)
  at most 0.5 %.
The step shows within one run: the first run after each change measures the
new rate, the last one before it the old. The alert "download < 10 Mbit/s"
is raised by the first slow run (within one interval of the drop; a run
straddling the drop may already cross) and cleared by the first fast one,
and the webhook receiver got exactly one "raised" and one "cleared" event.

Usage: monitor_check.py OUT_DIR   (the folder run.sh gave the VM)
"""
import csv
import datetime
import json
import os
import sys

out = os.path.join(sys.argv[1], "monitor")
failures = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what)


def epoch(iso):
    return datetime.datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def clock(t):
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%H:%M:%S.%f")[:-3]


def lines(name):
    path = os.path.join(out, name)
    return open(path).read().splitlines() if os.path.exists(path) else []


def mbit(rate):
    return float(rate.removesuffix("mbit"))


# The timeline: (time, rate Mbit/s, loss %) from its start, each change logged when made.
# A change is in force from its logged time (tc done); it began at `from` (tc started).
timeline, began = [], []
for line in lines("timeline.log"):
    words = line.split()
    fields = dict(w.split("=", 1) for w in words[2:] if "=" in w)
    timeline.append((float(words[0]), mbit(fields["rate"]), float(fields["loss"].rstrip("%"))))
    began.append(float(fields.get("from", words[0])))
print("monitor stage steps:\n" + "\n".join(lines("steps")))
check(lines("result") == ["done"], "the monitoring stage finished")
check("monitor exit 0" in lines("steps"), "the monitor exited 0")
check(len(timeline) == 3, "the timeline made its two changes (%d entries)" % len(timeline))
if len(timeline) != 3:
    sys.exit(1)
drop, restore = timeline[1][0], timeline[2][0]
plan = dict(w.split("=") for l in lines("plan") for w in l.split())
EVERY, RUNS = float(plan["every"]), int(plan["runs"])

with open(os.path.join(out, "runs.csv")) as f:
    runs = list(csv.DictReader(f))
check(len(runs) == RUNS, "%d runs stored (%d)" % (RUNS, len(runs)))
check(not any("missed" in l for l in lines("monitor.err")), "no run missed: each run ended within its %g s" % EVERY)

print("\nrun  start         end           netem (rate, loss up)   download      loss up / down   verdict")
steps = []  # (run index, regime index) of runs wholly inside one regime
for i, r in enumerate(runs):
    start, end = epoch(r["started_at"]), epoch(r["ended_at"])
    down = float(r["down_bits_per_second"] or 0) / 1e6
    up_loss, down_loss = float(r["loss_up_percent"] or -1), float(r["loss_down_percent"] or -1)
    inside = [k for k, (t, _, _) in enumerate(timeline) if t <= start]
    regime = inside[-1] if inside else 0
    straddles = [t for k, (t, _, _) in enumerate(timeline) if k > 0 and start < t and began[k] < end]
    _, rate, loss = timeline[regime]
    head = "#%d   %s  %s  " % (i + 1, clock(start), clock(end))
    if straddles:
        print(head + "changed at %s      %6.2f Mbit/s  %5.2f / %5.2f %%   straddles a change: not counted" % (
            clock(straddles[0]), down, up_loss, down_loss))
        continue
    print(head + "%4.0f Mbit/s, %3.0f %%       %6.2f Mbit/s  %5.2f / %5.2f %%" % (rate, loss, down, up_loss, down_loss))
    steps.append((i, regime))
    check(r["failed"] == "", "run #%d: every phase ran (%s)" % (i + 1, r["failed"] or "none failed"))
    check(abs(down - rate) <= 0.1 * rate, "run #%d: download %.2f Mbit/s within +-10 %% of netem's %g Mbit/s" % (i + 1, down, rate))
    if loss == 0:
        check(0 <= up_loss <= 0.5, "run #%d: loss up %.2f %% where netem drops nothing (at most 0.5 %%)" % (i + 1, up_loss))
    else:
        check(2.6 <= up_loss <= 7.4, "run #%d: loss up %.2f %% within 2.6-7.4 %% of netem's %g %%" % (i + 1, up_loss, loss))
    check(0 <= down_loss <= 0.5, "run #%d: loss down %.2f %% (the echoes' way is not lossy; at most 0.5 %%)" % (i + 1, down_loss))

# The step within one run: between the last run wholly before a change and the first wholly after it,
# at most one run (the one that straddles it).
for k, name in ((1, "drop"), (2, "restore")):
    before = [i for i, g in steps if g == k - 1 and epoch(runs[i]["ended_at"]) <= timeline[k][0]]
    after = [i for i, g in steps if g == k]
    ok = bool(before) and bool(after) and after[0] - before[-1] <= 2
    check(ok, "the %s at %s shows within one run (last run before: #%s, first after: #%s)" % (
        name, clock(timeline[k][0]), before[-1] + 1 if before else None, after[0] + 1 if after else None))

# The alert: raised by the first slow run, cleared by the first fast one; exactly once.
alerts = [json.loads(l) for l in lines("alerts.jsonl") if l.strip()]
mine = [a for a in alerts if a.get("rule") == "slow-down"]
check(len(mine) == 1, "one slow-down alert in the history (%d)" % len(mine))
run_length = max((epoch(r["ended_at"]) - epoch(r["started_at"]) for r in runs), default=EVERY)
if mine:
    a = mine[0]
    since, until = epoch(a["since"]), a["until"] and epoch(a["until"])
    print("\nalert slow-down: raised %s (drop at %s), cleared %s (restore at %s), worst %s %s" % (
        clock(since), clock(drop), until and clock(until), clock(restore), a.get("worst"), a.get("unit")))
    check(drop - run_length <= since <= drop + EVERY,
          "the alert was raised by a run within one run of the drop (%.1f s after it)" % (since - drop))
    check(not a["active"] and until and restore - run_length <= until <= restore + EVERY,
          "the alert cleared after the restore, within one run (%s)" % (until and "%.1f s after it" % (until - restore)))

# The webhook: exactly one raised and one cleared event, each once, for that alert.
posts = [json.loads(l) for l in lines("webhook.jsonl") if l.strip()]
print("\nwebhook receiver got %d posts:" % len(posts))
for p in posts:
    print("  %s  %-8s %s" % (clock(p["at"]), p["body"].get("event"), p["eventHeader"]))
events = [p["body"].get("event") for p in posts]
check(events == ["raised", "cleared"], "the receiver got one 'raised', then one 'cleared' (%s)" % events)
check(all(p["eventHeader"] == p["body"].get("id") for p in posts), "each post's X-Fprint-Event header is its event id")
check(len({p["eventHeader"] for p in posts}) == len(posts), "no event posted twice")
if mine and len(posts) == 2:
    check(all(p["body"]["alert"]["since"] == mine[0]["since"] for p in posts), "both events are of that alert")
    check(drop <= posts[0]["at"] <= drop + EVERY + run_length + 5,
          "'raised' arrived %.1f s after the drop (within one run, once that run was stored)" % (posts[0]["at"] - drop))
    check(restore <= posts[1]["at"] <= restore + EVERY + run_length + 5,
          "'cleared' arrived %.1f s after the restore" % (posts[1]["at"] - restore))

if failures:
    print("\nVM monitoring test FAILED: %d check(s); output in %s" % (len(failures), out))
    for name in ("monitor.err", "setup.err", "alerts.err", "export.err", "timeline.log"):
        print("--- " + name + "\n" + "\n".join(lines(name)[-40:]))
    sys.exit(1)
print("\nVM monitoring test passed")

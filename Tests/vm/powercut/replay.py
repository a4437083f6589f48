#!/usr/bin/env python3
"""Reads a dm-log-writes log and builds the crash states a power cut could leave.

The log's format (Linux drivers/md/dm-log-writes.c, admin-guide/device-mapper/
log-writes.rst): block 0 is a super block (le64 magic 0x6a736677736872, le64
version 1, le64 nr_entries, le32 sectorsize); from byte `sectorsize` on, each
entry is one sectorsize block holding (le64 sector, le64 nr_sectors, le64 flags,
le64 data_len) — a MARK's name follows in that block — then, for a write,
nr_sectors * sectorsize bytes of data. Sectors count in sectorsize units.

The target logs a plain write only when a FLUSH after it completes, just before
that flush; FUA writes and marks are logged as they complete. So between two
flushes the log holds the window's FUA writes and marks (durable in order),
then the batch of plain writes the flush made durable, which may reach the disk
in any order or not at all before that flush completes.

Usage: replay.py list LOG
       replay.py used LOG      (bytes of LOG the entries use: what to copy out)
       replay.py plan LOG --after MARK [--seed N] [--sample K] [--subsets R] [--prefixes P]
       replay.py build LOG BASE STATE_ID OUT   (an image of one planned state)
"""
import argparse
import json
import os
import random
import shutil
import struct
import sys

MAGIC = 0x6A736677736872
FLUSH, FUA, DISCARD, MARK, METADATA = 1, 2, 4, 8, 16


class Entry:
    __slots__ = ("index", "sector", "nr_sectors", "flags", "data_offset", "mark")

    def __init__(self, index, sector, nr_sectors, flags, data_offset, mark):
        self.index, self.sector, self.nr_sectors, self.flags = index, sector, nr_sectors, flags
        self.data_offset, self.mark = data_offset, mark

    def is_write(self):
        return not self.flags & MARK and self.nr_sectors > 0


class Log:
    def __init__(self, path):
        self.path = path
        self.file = open(path, "rb")
        head = self.file.read(28)
        magic, version, count, self.sectorsize = struct.unpack("<QQQI", head)
        if magic != MAGIC:
            sys.exit(f"replay.py: {path}: not a dm-log-writes log (magic {magic:#x}, want {MAGIC:#x})")
        if version != 1:
            sys.exit(f"replay.py: {path}: log version {version}, this reads version 1")
        self.entries = []
        offset = self.sectorsize
        size = os.fstat(self.file.fileno()).st_size
        for index in range(count):
            if offset + self.sectorsize > size:
                sys.exit(f"replay.py: {path}: entry {index} at byte {offset} lies past the log's end ({size} bytes)")
            self.file.seek(offset)
            block = self.file.read(self.sectorsize)
            sector, nr, flags, data_len = struct.unpack("<QQQQ", block[:32])
            mark = None
            if flags & MARK:
                mark = block[32:32 + data_len].decode("utf-8", "replace")
            offset += self.sectorsize
            data_offset = offset
            if not flags & (MARK | DISCARD):
                offset += nr * self.sectorsize
            self.entries.append(Entry(index, sector, nr, flags, data_offset, mark))
        # Where the last entry ends: the rest of the log device is unused.
        self.end = offset

    def apply(self, entry, image):
        """Writes one entry's effect into the open image file."""
        if entry.flags & MARK or entry.nr_sectors == 0:
            return
        image.seek(entry.sector * self.sectorsize)
        if entry.flags & DISCARD:
            image.write(bytes(entry.nr_sectors * self.sectorsize))
            return
        self.file.seek(entry.data_offset)
        image.write(self.file.read(entry.nr_sectors * self.sectorsize))

    def mark_index(self, name):
        for e in self.entries:
            if e.mark == name:
                return e.index
        sys.exit(f"replay.py: {self.path}: no mark {name!r} in the log")


def windows(log, start):
    """The flush windows after entry `start`: (durable entries in order, the
    window's volatile batch, the index that ends the window)."""
    durable, batch, out = [], [], []
    for e in log.entries[start + 1:]:
        if e.flags & FLUSH:
            # A flush with data is written after the flush itself: its data is
            # durable only with FUA (jbd2's commit block has both).
            out.append((durable, batch, e.index))
            durable, batch = [], []
        elif e.flags & (FUA | MARK):
            durable.append(e)
        elif e.is_write() or e.flags & DISCARD:
            batch.append(e)
    if durable or batch:
        out.append((durable, batch, len(log.entries)))  # never flushed: the tail
    return out


def plan(log, after, seed, subsets, prefixes):
    """Every crash state after mark `after`, as dicts:
    {id, base: log index the prefix runs through, extra: [entry indices], acked_before: index}.
    `base` prefixes are applied in log order; `extra` are a volatile batch's
    writes applied on top; marks before `acked_before` were acknowledged."""
    rng = random.Random(seed)
    start = log.mark_index(after)
    states = []

    def add(kind, base, extra, acked_before):
        states.append({"id": len(states), "kind": kind, "base": base, "extra": extra, "acked_before": acked_before})

    last = start
    for durable, batch, end in windows(log, start):
        # Each FUA write or mark: the log replayed through it.
        for e in durable:
            add("fua" if not e.flags & MARK else "mark", e.index, [], e.index + 1)
        through = durable[-1].index if durable else last
        writes = [e.index for e in batch]
        if writes:
            # Prefixes of the batch, then random subsets (ordered as logged).
            cuts = sorted(set(round(i * len(writes) / (prefixes + 1)) for i in range(1, prefixes + 1)) - {0, len(writes)})
            for n in cuts:
                add("prefix", through, writes[:n], end)
            for _ in range(subsets):
                pick = sorted(rng.sample(writes, rng.randint(1, len(writes))))
                add("subset", through, pick, end)
        if end < len(log.entries):
            add("flush", end, [], end + 1)
        last = end
    return states


def build(log, base_image, state, out, cache=None):
    """Writes the image of `state` to `out`: the base image, the log through
    state["base"], then state["extra"]. `cache` = (index, path) of an image
    already replayed through `index` to start from instead of the base."""
    start_index, source = -1, base_image
    if cache and cache[0] <= state["base"]:
        start_index, source = cache
    shutil.copyfile(source, out)
    with open(out, "r+b") as image:
        for e in log.entries[start_index + 1:state["base"] + 1]:
            log.apply(e, image)
        for i in state["extra"]:
            log.apply(log.entries[i], image)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list").add_argument("log")
    sub.add_parser("used").add_argument("log")
    pp = sub.add_parser("plan")
    pp.add_argument("log")
    pp.add_argument("--after", required=True)
    pp.add_argument("--seed", type=int, default=1)
    pp.add_argument("--subsets", type=int, default=3)
    pp.add_argument("--prefixes", type=int, default=2)
    pb = sub.add_parser("build")
    for a in ("log", "base", "state", "out"):
        pb.add_argument(a)
    args = p.parse_args()
    log = Log(args.log)
    if args.cmd == "used":
        print(log.end)
    elif args.cmd == "list":
        names = {FLUSH: "FLUSH", FUA: "FUA", DISCARD: "DISCARD", MARK: "MARK", METADATA: "META"}
        for e in log.entries:
            flags = "|".join(n for bit, n in names.items() if e.flags & bit) or "-"
            print(e.index, flags, e.sector, e.nr_sectors, e.mark or "")
    elif args.cmd == "plan":
        json.dump(plan(log, args.after, args.seed, args.subsets, args.prefixes), sys.stdout)
    else:
        states = json.load(open(args.state))
        build(log, args.base, states, args.out)


if __name__ == "__main__":
    main()

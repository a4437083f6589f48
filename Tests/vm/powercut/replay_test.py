#!/usr/bin/env python3
"""replay.py against a log written here in dm-log-writes' documented format:
the entries read back, the flush windows and the images of planned states.
Run: python3 Tests/vm/powercut/replay_test.py (also run by run.sh before booting)."""
import os
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import replay  # noqa: E402

S = 512


def entry(sector, nr, flags, data=b"", mark=b""):
    head = struct.pack("<QQQQ", sector, nr, flags, len(mark) if mark else len(data)) + mark
    return head.ljust(S, b"\0") + data


def main():
    blocks = [
        entry(0, 1, 0, b"A" * S),                 # 0 plain write, made durable by 1
        entry(0, 0, replay.FLUSH),                # 1
        entry(0, 0, replay.MARK, mark=b"setup"),  # 2
        entry(1, 1, replay.FUA, b"F" * S),        # 3 durable as it completed
        entry(0, 0, replay.MARK, mark=b"ack"),    # 4
        entry(2, 2, 0, b"B" * 2 * S),             # 5 the batch of flush 7
        entry(0, 1, 0, b"C" * S),                 # 6
        entry(0, 0, replay.FLUSH),                # 7
        entry(3, 1, 0, b"D" * S),                 # 8 never flushed
        entry(0, 0, replay.MARK, mark=b"dm-log-writes-end"),
    ]
    with tempfile.TemporaryDirectory() as d:
        log_path = f"{d}/log"
        with open(log_path, "wb") as f:
            f.write(struct.pack("<QQQI", replay.MAGIC, 1, len(blocks), S).ljust(S, b"\0"))
            for b in blocks:
                f.write(b)
        log = replay.Log(log_path)
        assert [e.mark for e in log.entries if e.mark] == ["setup", "ack", "dm-log-writes-end"]
        assert [(e.sector, e.nr_sectors) for e in log.entries if e.is_write()] == [(0, 1), (1, 1), (2, 2), (0, 1), (3, 1)]
        windows = replay.windows(log, 2)
        assert [([e.index for e in d], [e.index for e in b], end) for d, b, end in windows] == \
            [([3, 4], [5, 6], 7), ([9], [8], 10)], windows
        states = replay.plan(log, "setup", seed=5, subsets=2, prefixes=1)
        kinds = [(s["kind"], s["base"], s["extra"], s["acked_before"]) for s in states]
        assert kinds[:2] == [("fua", 3, [], 4), ("mark", 4, [], 5)], kinds
        assert ("prefix", 4, [5], 7) in kinds and ("flush", 7, [], 8) in kinds, kinds
        assert all(k[0] != "flush" or k[1] < len(log.entries) for k in kinds)
        base = f"{d}/base"
        with open(base, "wb") as f:
            f.truncate(4 * S)

        def image(state):
            replay.build(log, base, state, f"{d}/out")
            return open(f"{d}/out", "rb").read()
        # Through the FUA write: A then F; the batch not yet there.
        assert image(states[0]) == b"A" * S + b"F" * S + bytes(2 * S)
        # Flush 7: C overwrote A, B landed.
        flushed = next(s for s in states if s["kind"] == "flush")
        assert image(flushed) == b"C" * S + b"F" * S + b"B" * 2 * S
        # Only B of the batch: A stays.
        assert image({"base": 4, "extra": [5]}) == b"A" * S + b"F" * S + b"B" * 2 * S
    # A file that is not such a log is refused in one line.
    with tempfile.NamedTemporaryFile() as f:
        f.write(bytes(S))
        f.flush()
        try:
            replay.Log(f.name)
        except SystemExit as e:
            assert "not a dm-log-writes log" in str(e), e
        else:
            raise AssertionError("a zero file read as a log")
    print("replay_test: ok")


if __name__ == "__main__":
    main()

@testable import FPCore
import Foundation
import Testing

/// `MD5Lanes`, eight messages hashed side by side: each digest equals
/// RFC 1321's and the single-message hash's (`Revision.next`, BoringSSL),
/// by the AVX2 code (`CMD5x8`) where the CPU has it and by the Swift code.
@Suite struct MD5LanesTests {
    func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// Every engine that runs here: the AVX2 and AVX-512VL code's digests,
    /// checked equal to the Swift code's.
    func digests(_ messages: [[UInt8]], prefix: [UInt8] = []) -> [String] {
        let portable = digests(messages, prefix: prefix, engine: .portable)
        for engine in MD5Lanes.Engine.allCases where engine != .portable && engine.runsHere {
            #expect(digests(messages, prefix: prefix, engine: engine) == portable, "\(engine)")
        }
        return portable
    }

    func digests(_ messages: [[UInt8]], prefix: [UInt8], engine: MD5Lanes.Engine) -> [String] {
        var buffers: [UnsafeRawBufferPointer] = []
        // The test holds every message for the call; copies keep the pointers valid.
        let copies = messages.map { bytes -> UnsafeMutableRawBufferPointer in
            let room = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
            room.copyBytes(from: bytes)
            return room
        }
        defer { copies.forEach { $0.deallocate() } }
        for (room, bytes) in zip(copies, messages) { buffers.append(UnsafeRawBufferPointer(rebasing: room[0..<bytes.count])) }
        return MD5Lanes.digests(buffers, prefix: prefix, engine: engine).map(hex)
    }

    /// RFC 1321 §A.5's test suite, all in one call (seven messages: one lane idles).
    @Test func rfcVectors() {
        let suite: [(String, String)] = [
            ("", "d41d8cd98f00b204e9800998ecf8427e"),
            ("a", "0cc175b9c0f1b6a831c399e269772661"),
            ("abc", "900150983cd24fb0d6963f7d28e17f72"),
            ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
            ("abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
            ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "d174ab98d277d9f5a5611c2c9f419d9f"),
            (String(repeating: "1234567890", count: 8), "57edf4a22be3c955ac49da2e2107b67a"),
        ]
        #expect(digests(suite.map { Array($0.0.utf8) }) == suite.map(\.1))
    }

    /// Lengths around every padding edge (55, 56, 63, 64, 119, 120 … bytes),
    /// more messages than lanes (lanes take the next message as theirs end),
    /// and prefixes that put every block off the message's own alignment:
    /// each digest equals the one-at-a-time hash.
    @Test func equalsOneAtATime() {
        var rng = SystemRandomNumberGenerator()
        let lengths = [0, 1, 54, 55, 56, 57, 63, 64, 65, 118, 119, 120, 127, 128, 129, 1000, 4096, 70_001]
            + (0..<13).map { _ in Int.random(in: 0..<3000, using: &rng) }
        let messages = lengths.map { n in (0..<n).map { _ in UInt8.random(in: 0...255, using: &rng) } }
        for parent in [nil, Revision(generation: 1, hash: "967a00dff5e02add41819138abb3284d"),
                       Revision(generation: 12, hash: String(repeating: "ab", count: 40))] {
            for deleted in [false, true] {
                let prefix = Array((parent?.description ?? "").utf8) + [deleted ? 1 : 0]
                let expected = messages.map { Revision.next(after: parent, canonicalBody: $0, deleted: deleted).hash }
                #expect(digests(messages, prefix: prefix) == expected, "parent \(parent?.description ?? "none"), deleted \(deleted)")
            }
        }
    }

    /// `Revision.firsts`, what an import calls: the same revisions as
    /// `Revision.next` of each body, for 0, 1, 8, 9 and 33 bodies.
    @Test func firstsEqualNext() {
        for count in [0, 1, 8, 9, 33] {
            let bodies = (0..<count).map { k in Array(#"{"k":\#(k),"pad":"\#(String(repeating: "x", count: k * 37))"}"#.utf8) }
            #expect(Revision.firsts(canonicalBodies: bodies) == bodies.map { Revision.next(after: nil, canonicalBody: $0) })
        }
    }

    /// The AVX2 and AVX-512VL code run wherever /proc/cpuinfo names their
    /// flags (so the comparisons above ran every way on such a machine), the
    /// best of them is used, and the state it is handed is four
    /// `SIMD8<UInt32>` one after the other.
    @Test func theVectorCodeRunsWhereTheCPUHasIt() throws {
        let cpuinfo = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
        let flags = cpuinfo.split(separator: "\n").first { $0.hasPrefix("flags") }?.split(separator: " ") ?? []
        #expect(MD5Lanes.hasAVX2 == flags.contains("avx2"))
        #expect(MD5Lanes.hasAVX512VL == (flags.contains("avx512f") && flags.contains("avx512vl")))
        #expect(MD5Lanes.best == (MD5Lanes.hasAVX512VL ? .avx512vl : MD5Lanes.hasAVX2 ? .avx2 : .portable))
        #expect(MemoryLayout<(MD5Lanes.Word, MD5Lanes.Word, MD5Lanes.Word, MD5Lanes.Word)>.size == 128)
        #expect(MemoryLayout<MD5Lanes.Word>.stride == 32)
    }
}

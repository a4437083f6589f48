import FPAnalysis
import FPCore
import Testing

/// Eval's packed radiomap (`FingerprintPack`): read back whole and equal
/// across its chunks, refused when damaged; and a fingerprint, whose fields
/// share one box, still copies as a value.
@Suite struct FingerprintPackTests {
    /// More than two chunks (4,096 each) of fingerprints unlike each other.
    static let fingerprints: [Fingerprint] = (0..<10_000).map { i in
        var fp = Fingerprint(id: "doc-\(i)", level: i % 3 == 0 ? "UJI-LIB-3" : "J\(i % 5)NP", x: i % 700, y: -i % 300)
        fp.wifi = (0..<(i % 25)).map { .init(transmitter: "WIFI:WAP\(($0 * 7 + i) % 620)", rssi: -40 - Double($0), time: $0 * 100) }
        fp.ble = (0..<(i % 4)).map { .init(transmitter: "BLE:aa:bb:cc:dd:ee:\($0)", rssi: -70.5, time: i) }
        if i % 2 == 0 {
            fp.labels.exactX = Double(i) / 7
            fp.labels.inMetres = true
        }
        fp.labels.floor = i % 4 == 0 ? nil : i % 4 - 2
        fp.labels.tags = [.init("campaign", "trn\(i % 9)"), .init("month", "\(i % 15 + 1)")]
        fp.labels.sessionId = i % 10 == 0 ? nil : "session-\(i / 100)"
        fp.labels.dataset = i < 5_000 ? "uji-lib-longterm" : nil
        fp.labels.createdAtMs = 1_504_702_315_676 + Int64(i)
        if i % 7 == 0, let beacon = BeaconIdentity(text: "ibeacon:B9407F30-F5F8-466E-AFF9-25556B57FE6D:1:\(i % 100)") {
            fp.bleIdentities["BLE:aa:bb:cc:dd:ee:0"] = beacon
        }
        return fp
    }

    @Test func everyChunkReadsBackEqualAndInOrder() throws {
        let blob = try #require(FingerprintPack.pack(Self.fingerprints, stamp: "s1"))
        let back = try #require(FingerprintPack.unpack(blob, stamp: "s1"))
        #expect(back.count == Self.fingerprints.count)
        #expect(back == Self.fingerprints)
        #expect(back[4_096].id == "doc-4096" && back[9_999].id == "doc-9999")
        #expect(FingerprintPack.unpack(blob, stamp: "s2") == nil)
        #expect(FingerprintPack.unpack(try #require(FingerprintPack.pack([], stamp: "s1")), stamp: "s1") == [])
    }

    @Test func aDamagedBlobGivesNothing() throws {
        let blob = try #require(FingerprintPack.pack(Self.fingerprints, stamp: "s1"))
        #expect(FingerprintPack.unpack(Array(blob.dropLast()), stamp: "s1") == nil)
        #expect(FingerprintPack.unpack(blob + [0], stamp: "s1") == nil)
        // The chunks' offsets follow the count (10,000 = 0x2710); the first is 0. Moving the second
        // by a byte leaves the first chunk ending inside a fingerprint.
        let lead: [UInt8] = [0x10, 0x27, 0, 0] + [UInt8](repeating: 0, count: 8)
        let at = try #require((0...(blob.count - lead.count)).first { Array(blob[$0..<$0 + lead.count]) == lead })
        var moved = blob
        moved[at + lead.count] &+= 1
        #expect(FingerprintPack.unpack(moved, stamp: "s1") == nil)
        var beyond = blob
        beyond[at + lead.count + 7] = 0x7f
        #expect(FingerprintPack.unpack(beyond, stamp: "s1") == nil)
    }

    @Test func aCopyChangedLeavesTheOriginal() {
        let original = Self.fingerprints[42]
        var copy = original
        #expect(copy == original)
        copy.wifi[0].rssi = 0
        copy.labels.tags.append(.init("set", "test"))
        copy.x += 1
        #expect(original.wifi[0].rssi == -40 && original.labels.tags.count == 2 && original.x == 42)
        #expect(copy != original)
        #expect(copy.wifi[0].rssi == 0 && copy.labels.tags.count == 3 && copy.x == 43)
    }
}

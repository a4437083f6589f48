import FPBLE
import FPHCI
import Foundation
import Testing

/// `BtsnoopFile.receivedEventRecords` counts received event records from the
/// record headers alone, to size the reports' array before decoding: it must
/// count what the record iterator yields as received events, for both
/// datalinks, and stop at a damaged record as the iterator does.
@Suite struct EventRecordCountTests {
    static func iteratorCount(_ file: BtsnoopFile) -> Int {
        var it = file.makeIterator()
        var n = 0
        while let r = try? it.next() { if r.type == .event && r.received { n += 1 } }
        return n
    }

    @Test func countsWhatTheIteratorYieldsInEveryRealCapture() throws {
        let folder = ProviderTests.captures
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".btsnoop") }.sorted()
        #expect(names.count >= 6)
        var datalinks = Set<String>()
        for name in names {
            let file = try BtsnoopFile(bytes: Array(try Data(contentsOf: folder.appendingPathComponent(name))))
            datalinks.insert("\(file.datalink)")
            let expected = Self.iteratorCount(file)
            #expect(expected > 0, "\(name)")
            #expect(file.receivedEventRecords() == expected, "\(name)")
        }
        #expect(datalinks.count == 2)  // H4 (Android) and monitor (btmon) captures both
    }

    @Test func aRecordCutShortEndsTheCount() throws {
        let path = ProviderTests.captures.appendingPathComponent("csacca__horizon-74-at-ble-adv.btsnoop")
        let bytes = Array(try Data(contentsOf: path))
        for cut in [1, 7, 30, bytes.count / 3, bytes.count / 2] {
            let file = try BtsnoopFile(bytes: Array(bytes.dropLast(cut)))
            #expect(file.receivedEventRecords() == Self.iteratorCount(file), "cut \(cut)")
        }
    }
}

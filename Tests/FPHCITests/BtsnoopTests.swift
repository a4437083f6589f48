import FPHCI
import FPHex
import FPTestSupport
import Foundation
import Testing

@Suite("btsnoop replay of real captures against tshark")
struct BtsnoopTests {
    /// What tshark found, one line per report: subevent, address, RSSI.
    struct Line: Equatable, CustomStringConvertible {
        var subevent: String, address: String, rssi: String
        var description: String { "\(subevent) \(address) \(rssi)" }
    }

    static func lines(_ text: String) -> [Line] {
        text.split(separator: "\n").map { row in
            let f = row.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return Line(subevent: f.count > 0 ? f[0] : "", address: f.count > 1 ? f[1] : "", rssi: f.count > 2 ? f[2] : "")
        }
    }

    static func ours(_ name: String) throws -> [Line] {
        let (reports, malformed) = try replayReports(Fixtures.capture(name + ".btsnoop"))
        #expect(malformed == 0)
        return reports.map { record, r in
            let sub = record.packet.count > 2 ? "0x" + Hex.byte(record.packet[record.packet.startIndex + 2]).lowercased() : "?"
            // tshark prints the raw byte, so 127 stays 127 there; fprint's nil means exactly that.
            return Line(subevent: sub, address: r.address.description.lowercased(), rssi: r.rssi.map { String($0) } ?? "127")
        }
    }

    @Test(arguments: Fixtures.captureNames)
    func replayMatchesTsharkGolden(name: String) throws {
        let golden = Self.lines(try String(contentsOf: Fixtures.captures.appendingPathComponent(name + ".tshark.tsv"), encoding: .utf8))
        let mine = try Self.ours(name)
        #expect(mine.count == golden.count)
        #expect(mine == golden)
        #expect(!mine.isEmpty)
    }

    /// Re-runs tshark itself, so the goldens cannot drift from the independent decoder.
    @Test(arguments: Fixtures.captureNames)
    func replayMatchesLiveTshark(name: String) async throws {
        guard let tshark = ["/usr/bin/tshark", "/usr/local/bin/tshark"].first(where: FileManager.default.isExecutableFile) else {
            Issue.record("tshark is not installed (apt-get install tshark; .ci/run installs it): cannot cross-check \(name) against an independent decoder")
            return
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tshark)
        p.arguments = ["-r", Fixtures.captures.appendingPathComponent(name + ".btsnoop").path, "-Y", "bthci_evt.le_meta_subevent",
                       "-T", "fields", "-E", "separator=/t", "-e", "bthci_evt.le_meta_subevent", "-e", "bthci_evt.bd_addr", "-e", "bthci_evt.rssi"]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        let exit = try await p.startAwaitingExit()
        let data = await PipeDrain(out.fileHandleForReading, name: "tshark").data()
        #expect(await exit.value() == 0)
        #expect(try Self.ours(name) == Self.lines(String(decoding: data, as: UTF8.self)))
    }

    /// The lightsapp phone's clock stood before 1970: its writer stored the
    /// negative time as unsigned 32-bit seconds (tshark shows 4293915621 s, 2106).
    /// fprint keeps the raw 64-bit value and only uses differences, so the
    /// replay is paced right either way.
    @Test func lightsappTimestampsMatchTsharkAndStayOrdered() throws {
        let file = try BtsnoopFile(bytes: Fixtures.capture("mchwalisz__lightsapp-cli-adv.btsnoop"))
        #expect(file.datalink == .h4)
        let records = try file.records()
        #expect(records.count == 436)
        #expect(records.first?.timestampMicros == 4_293_915_621_543_786)
        #expect(zip(records, records.dropFirst()).allSatisfy { $0.timestampMicros <= $1.timestampMicros })
    }

    /// A record stamped before the Unix epoch on btsnoop's year-0 scale decodes as negative microseconds.
    @Test func recordBefore1970IsNegative() throws {
        let stamp = UInt64(BtsnoopFile.epochOffsetMicros - 1_000_000)  // 1969-12-31T23:59:59Z
        var bytes = Array("btsnoop".utf8) + [0, 0, 0, 0, 1, 0, 0, 0x03, 0xEA]
        let event = hex("043e2a02010300ffeeddccbbaa1e0201061aff4c000215fb0b57a2822844cd913a94a122ba120600010035bec4")
        for v in [UInt32(event.count), UInt32(event.count), 1, 0, UInt32(stamp >> 32), UInt32(stamp & 0xFFFF_FFFF)] {
            bytes += [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
        }
        bytes += event
        let records = try BtsnoopFile(bytes: bytes).records()
        #expect(records.count == 1)
        #expect(records.first?.timestampMicros == -1_000_000)
        #expect(records.first?.received == true)
        #expect(records.first?.type == .event)
        #expect(try replayReports(bytes).reports.first?.1.rssi == -60)
    }

    @Test func monitorFileCarriesIndexAndTheIBeacon() throws {
        let file = try BtsnoopFile(bytes: Fixtures.capture("btvirt-vm-monitor.btsnoop"))
        #expect(file.datalink == .monitor)
        let (reports, _) = try replayReports(file.bytes)
        #expect(reports.count == 1)
        let (record, r) = try #require(reports.first)
        #expect(record.index == 0)  // received by hci0, the scanner
        #expect(r.rssi == nil)  // the emulator says 127: not available
        #expect(r.address.description == "00:AA:01:01:00:01")
        #expect(BeaconFrame.decode(try AdvertisingData(bytes: r.data)) == .iBeacon(
            uuid: "FB0B57A2-8228-44CD-913A-94A122BA1206", major: 1, minor: 53, measuredPower: -66))
        // Commands sent to both controllers are records too (hci1 set its advertising data).
        #expect(try file.records().contains { $0.type == .command && $0.index == 1 })
    }

    @Test func headerErrors() {
        #expect(throws: HCIParseError.self) { _ = try BtsnoopFile(bytes: Array("btsnoop".utf8)) }
        #expect(throws: HCIParseError.self) { _ = try BtsnoopFile(bytes: Array("notsnoop".utf8) + [0, 0, 0, 1, 0, 0, 0x03, 0xEA]) }
        // Datalink 1001 (HCI UART without H4 byte) is not supported: say so.
        #expect(throws: HCIParseError.invalid(what: "btsnoop datalink (need 1002 H4 or 2001 monitor)", offset: 12, value: 1001)) {
            _ = try BtsnoopFile(bytes: Array("btsnoop".utf8) + [0, 0, 0, 0, 1, 0, 0, 0x03, 0xE9])
        }
    }

    /// A capture copied while still being written ends mid-record: every
    /// intact record stands, and the cut one is named with its bytes.
    @Test func aLastRecordCutShortIsDroppedAlone() throws {
        let bytes = try Fixtures.capture("csacca__horizon-74-at-ble-adv.btsnoop")
        let file = try BtsnoopFile(bytes: Array(bytes))
        let whole = try file.records()
        var it = try BtsnoopFile(bytes: Array(bytes.dropLast(3))).makeIterator()
        var kept: [BtsnoopFile.Record] = []
        while let record = try it.next() { kept.append(record) }
        #expect(kept.count == whole.count - 1)
        #expect(kept.map(\.packet) == whole.dropLast().map(\.packet))
        // Record header, the H4 type byte (not in monitor records), packet.
        let lastSize = 24 + (file.datalink == .h4 ? 1 : 0) + whole.last!.packet.count
        #expect(it.cutTail?.droppedBytes == lastSize - 3)
        if case .truncated(let what, _, _, _)? = it.cutTail?.error { #expect(what == "record data") } else {
            Issue.record("expected a truncation, got \(String(describing: it.cutTail?.error))")
        }
        // A file ending cleanly cuts nothing.
        var clean = try BtsnoopFile(bytes: Array(bytes)).makeIterator()
        while try clean.next() != nil {}
        #expect(clean.cutTail == nil)
    }

    /// Every report of every capture decodes its AD structures and finds the beacons the docs promise.
    @Test func capturesHoldDecodableBeacons() throws {
        var kinds: [String: Int] = [:]
        var adErrors = 0
        for name in Fixtures.captureNames {
            for (_, r) in try replayReports(Fixtures.capture(name + ".btsnoop")).reports {
                guard let ad = try? AdvertisingData(bytes: r.data) else { adErrors += 1; continue }
                switch BeaconFrame.decode(ad) {
                case .iBeacon?: kinds["iBeacon", default: 0] += 1
                case .eddystoneUID?, .eddystoneURL?, .eddystoneTLM?: kinds["eddystone", default: 0] += 1
                case .altBeacon?: kinds["altBeacon", default: 0] += 1
                case nil: break
                }
            }
        }
        #expect(kinds["iBeacon", default: 0] > 0)
        #expect(adErrors < 10)
    }
}

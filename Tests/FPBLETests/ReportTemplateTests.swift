import FPBLE
import FPCore
import FPHCI
import Foundation
import Testing

/// The decoder reuses the entry of an advertisement it decoded before
/// (`ReportTemplates`): what it gives must be exactly what `ReportMapper`
/// decodes report by report, with each report's own RSSI, time, controller
/// and TX power.
@Suite struct ReportTemplateTests {
    /// One legacy LE Advertising Report event (parameters after the H4 byte) of an iBeacon.
    static func event(address: [UInt8], rssi: UInt8, minor: UInt8 = 0x35) -> [UInt8] {
        let data: [UInt8] = [0x02, 0x01, 0x06, 0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15,
                             0xB9, 0x40, 0x7F, 0x30, 0xF5, 0xF8, 0x46, 0x6E, 0xAF, 0xF9, 0x25, 0x55, 0x6B, 0x57, 0xFE, 0x6D,
                             0x00, 0x01, 0x00, minor, 0xC2]
        let report: [UInt8] = [0x01, 0x03, 0x01] + address.reversed() + [UInt8(data.count)] + data + [rssi]
        return [0x3E, UInt8(report.count + 1), 0x02] + report
    }

    /// Every report decoded on its own, as before the templates.
    static func oneByOne(_ events: [(packet: [UInt8], time: Int, controller: Int?)]) throws -> [BLEScan] {
        try events.flatMap { e in
            try AdvertisingReports.parse(HCIEvent(bytes: e.packet[...])).map {
                ReportMapper.scan($0, time: e.time, controller: e.controller).0
            }
        }
    }

    @Test func repeatedAdvertisementsKeepTheirOwnRSSITimeAndController() throws {
        let address: [UInt8] = [0xC5, 0xD5, 0x21, 0x51, 0x00, 0x01]
        let events = [(Self.event(address: address, rssi: 0xC4), 10, Optional(0)),  // -60 dBm
                      (Self.event(address: address, rssi: 0xBA), 20, Optional(1)),  // -70 dBm
                      (Self.event(address: address, rssi: 0x7F), 30, nil)]  // not available
        var decoder = EventDecoder()
        var decoded: [BLEScan] = []
        for (packet, time, controller) in events {
            decoder.append(event: packet[...], time: time, controller: controller, to: &decoded)
        }
        #expect(decoded == (try Self.oneByOne(events.map { ($0.0, $0.1, $0.2) })))
        #expect(decoded.map(\.rssi) == [-60, -70, nil])
        #expect(decoded.map(\.time) == [10, 20, 30])
        #expect(decoded.map(\.controller) == [0, 1, nil])
        #expect(decoded.allSatisfy { $0.beacon?.minor == 0x35 && $0.address == "C5:D5:21:51:00:01" })
    }

    @Test func moreAdvertisementsThanTheTableHoldsDecodeTheSame() throws {
        // 5,000 devices, each heard twice with another minor: the table is emptied and refilled on the way
        var events: [(packet: [UInt8], time: Int, controller: Int?)] = []
        for round in 0..<2 {
            for n in 0..<5_000 {
                let address: [UInt8] = [0xC5, 0xD5, 0x21, 0x51, UInt8(n >> 8), UInt8(n & 0xFF)]
                events.append((Self.event(address: address, rssi: UInt8(0xB0 + round), minor: UInt8(round)), n, nil))
            }
        }
        var decoder = EventDecoder()
        var decoded: [BLEScan] = []
        for e in events { decoder.append(event: e.packet[...], time: e.time, controller: e.controller, to: &decoded) }
        #expect(decoded.count == 10_000)
        #expect(decoded == (try Self.oneByOne(events)))
    }

    @Test func everyTestCaptureDecodesAsReportByReport() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: ProviderTests.captures.path)
            .filter { $0.hasSuffix(".btsnoop") }.sorted()
        #expect(names.count >= 6)
        for name in names {
            let path = ProviderTests.captures.appendingPathComponent(name).path
            let capture = try BtsnoopCapture(path: path, keepPackets: false)
            let file = try BtsnoopFile(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
            var events: [(packet: [UInt8], time: Int, controller: Int?)] = []
            var it = file.makeIterator()
            while let r = try it.next() {
                guard r.type == .event, r.received else { continue }
                let ms = Int((r.timestampMicros &- (it.firstRecordMicros ?? r.timestampMicros)) / 1000)
                // Malformed events are skipped by both (counted by the decoder).
                guard (try? HCIEvent(bytes: r.packet)) != nil,
                      (try? AdvertisingReports.parse(HCIEvent(bytes: r.packet))) != nil else { continue }
                events.append((Array(r.packet), ms, r.index.map(Int.init)))
            }
            let expected = try Self.oneByOne(events)
            #expect(!expected.isEmpty, "\(name)")
            #expect(capture.scans == expected, "\(name)")
        }
    }
}

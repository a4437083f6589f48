import FPHCI
import FPHex
import FPTestSupport
import Foundation
import Testing

/// Bytes from hex text; a bad literal fails the test instead of trapping.
func hex(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> [UInt8] {
    guard let b = Hex.bytes(text) else {
        Issue.record("bad hex literal: \(text)", sourceLocation: sourceLocation)
        return []
    }
    return b
}

enum Fixtures {
    static var captures: URL {
        FixtureFolder(.module).url("captures")
    }

    static func capture(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: captures.appendingPathComponent(name)))
    }

    static let captureNames = [
        "btvirt-vm-monitor", "csacca__horizon-74-at-ble-adv", "dandwhelan__fossibot-bluetooth-2-adv",
        "dandwhelan__fossibot-bluetooth-adv", "mchwalisz__lightsapp-cli-adv", "whoisbe__pongbot-mcp-adv",
    ]
}

/// Every advertising report of a capture, in file order, with the record it came from.
func replayReports(_ bytes: [UInt8]) throws -> (reports: [(BtsnoopFile.Record, AdvertisingReport)], malformed: Int) {
    let file = try BtsnoopFile(bytes: bytes)
    var out: [(BtsnoopFile.Record, AdvertisingReport)] = []
    var malformed = 0
    for record in try file.records() where record.type == .event {
        do {
            for r in try AdvertisingReports.parse(HCIEvent(bytes: record.packet)) { out.append((record, r)) }
        } catch {
            malformed += 1
        }
    }
    return (out, malformed)
}

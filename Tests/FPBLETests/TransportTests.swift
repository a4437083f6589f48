import FPCore
import FPHCI
import FPHex
import FPTransport
import Foundation
import Testing

/// A scripted controller: expects exact command frames, answers with canned events.
final class ScriptedTransport: HCITransport, @unchecked Sendable {
    var script: [(expect: [UInt8], replies: [[UInt8]])]
    var pending: [[UInt8]] = []
    var written: [[UInt8]] = []
    init(_ script: [(expect: [UInt8], replies: [[UInt8]])]) { self.script = script }

    func write(_ frame: [UInt8]) throws(HCISocketError) {
        written.append(frame)
        guard !script.isEmpty else { Issue.record("unexpected command \(Hex.string(frame))"); return }
        let step = script.removeFirst()
        #expect(Hex.string(frame) == Hex.string(step.expect))
        pending += step.replies
    }

    func read(timeoutMs: Int32) throws(HCISocketError) -> [UInt8]? {
        pending.isEmpty ? nil : pending.removeFirst()
    }
}

func complete(_ opcode: UInt16, _ ret: [UInt8]) -> [UInt8] {
    [0x04, 0x0E, UInt8(3 + ret.count), 0x01, UInt8(opcode & 0xFF), UInt8(opcode >> 8)] + ret
}

@Suite("HCI command engine and scan control")
struct TransportTests {
    static let version = complete(0x1001, [0x00, 0x0B, 0x00, 0x00, 0x0B, 0x0F, 0x00, 0x00, 0x00])  // Broadcom
    static let lmpLE = complete(0x1003, [0x00, 0, 0, 0, 0, 0x40, 0, 0, 0])
    static let lmpNoLE = complete(0x1003, [0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0, 0, 0])

    @Test func legacyScanSequenceWithDuplicatesOff() throws {
        let t = ScriptedTransport([
            (hex("01011000"), [Self.version]),
            (hex("01031000"), [Self.lmpLE]),
            (hex("01032000"), [complete(0x2003, [0x00, 0x01, 0, 0, 0, 0, 0, 0, 0])]),  // no extended advertising
            (hex("010c20020000"), [complete(0x200C, [0x0C])]),  // disable while not scanning: Command Disallowed is fine
            (hex("010b2007011000100000" + "00"), [complete(0x200B, [0x00])]),
            // enable (duplicate filter 0); a report arrives before the Command Complete
            (hex("010c20020100"), [hex("043e2a02010300ffeeddccbbaa1e0201061aff4c000215fb0b57a2822844cd913a94a122ba120600010035bec4"), complete(0x200C, [0x00])]),
        ])
        var seen: [UInt8] = []
        var engine = CommandEngine(transport: t, deviceName: "hci0")
        engine.onEvent = { seen.append($0.code) }
        var scan = ScanController(engine: engine)
        try scan.start(.init(active: true))
        #expect(!scan.extended)
        #expect(scan.version?.manufacturer == 0x000F)
        #expect(seen == [0x3E])  // the early report was handed on, not dropped
        #expect(t.script.isEmpty)
    }

    @Test func extendedScanWhenSupported() throws {
        let t = ScriptedTransport([
            (hex("01011000"), [Self.version]),
            (hex("01031000"), [Self.lmpLE]),
            (hex("01032000"), [complete(0x2003, [0x00, 0x00, 0x10, 0, 0, 0, 0, 0, 0])]),
            (hex("0142200600" + "0000000000"), [complete(0x2042, [0x00])]),
            (hex("0141200800000100" + "10001000"), [complete(0x2041, [0x00])]),
            (hex("014220060100" + "00000000"), [complete(0x2042, [0x00])]),
        ])
        var scan = ScanController(engine: CommandEngine(transport: t, deviceName: "hci0"))
        try scan.start(.init(active: false))
        #expect(scan.extended)
        #expect(t.script.isEmpty)
    }

    @Test func controllerWithoutLEIsRefused() {
        let t = ScriptedTransport([(hex("01011000"), [Self.version]), (hex("01031000"), [Self.lmpNoLE])])
        var scan = ScanController(engine: CommandEngine(transport: t, deviceName: "hci0"))
        #expect(throws: HCISocketError.noLE("hci0 has no Bluetooth Low Energy (a BR/EDR-only controller): use an LE adapter")) {
            try scan.start(.init(active: true))
        }
    }

    @Test func commandDisallowedGivesAdvice() {
        let t = ScriptedTransport([(hex("010c20020100"), [[0x04, 0x0F, 0x04, 0x0C, 0x01, 0x0C, 0x20]])])
        do {
            try CommandEngine(transport: t, deviceName: "hci0").send(.setScanEnable(true))
            Issue.record("no error")
        } catch {
            // Callers switch on the status; people read the same message as ever.
            #expect(error == .command(device: "hci0", opcode: HCICommand.Opcode.leSetScanEnable, status: HCIStatusCode.commandDisallowed))
            #expect(error.description.hasPrefix("hci0: LE Set Scan Enable failed: Command Disallowed (0x0C); another program"))
            #expect(error.description.contains("bluetoothctl scan off"))
        }
    }

    @Test func timeoutRetriesThreeTimes() {
        let t = ScriptedTransport([(hex("01011000"), []), (hex("01011000"), []), (hex("01011000"), [])])
        var engine = CommandEngine(transport: t, deviceName: "hci0")
        engine.timeoutMs = 200
        #expect(throws: HCISocketError.noAnswer(device: "hci0", opcode: 0x1001, attempts: 3, timeoutMs: 200)) {
            try engine.send(HCICommand(HCICommand.Opcode.readLocalVersion))
        }
        #expect(t.written.count == 3)
        #expect(HCISocketError.noAnswer(device: "hci0", opcode: 0x1001, attempts: 3, timeoutMs: 4000).description
            == "hci0: no answer to Read Local Version Information after 3 tries of 4 s: the controller is not responding")
    }

    @Test func stoppingTakesOnlyCommandDisallowedAsNotScanning() {
        // Command Disallowed on disable = it was not scanning: fine. Any other refusal is an error.
        let disallowed = ScriptedTransport([(hex("010c20020000"), [complete(0x200C, [0x0C])])])
        #expect(throws: Never.self) { try ScanController(engine: CommandEngine(transport: disallowed, deviceName: "hci0")).stop() }
        let hardwareFailure = ScriptedTransport([(hex("010c20020000"), [complete(0x200C, [0x03])])])
        #expect(throws: HCISocketError.command(device: "hci0", opcode: 0x200C, status: 0x03)) {
            try ScanController(engine: CommandEngine(transport: hardwareFailure, deviceName: "hci0")).stop()
        }
    }

    /// This host's kernel has no Bluetooth: the real socket call must say so, one line.
    @Test func realSocketWithoutBluetoothSaysSo() throws {
        do {
            _ = try HCISocket(device: 0, exclusive: false)
        } catch .noBluetooth {
            #expect(HCISocketError.noBluetooth.description.contains("EAFNOSUPPORT"))
            return
        } catch {
            // A kernel with Bluetooth: any other clean error is fine too (no adapter, permission).
            #expect(!error.description.isEmpty)
            return
        }
    }
}

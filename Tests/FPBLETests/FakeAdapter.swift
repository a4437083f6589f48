import FPCore
import FPHCI
import FPTransport
import Foundation
import Glibc
import SystemPackage

/// An adapter behind an injected socket: answers the scan-start commands as
/// an LE controller without extended scanning does, then — once scanning is
/// enabled — hands the reader `live` in order (frames, read errors), then
/// nothing. A read error the reader treats as "vanished" takes the adapter
/// away: later writes fail with EPIPE, as the kernel's do.
final class FakeAdapter: HCIScanSocket, @unchecked Sendable {
    enum Step {
        case frame([UInt8])
        case fail(HCISocketError)

        /// What a read returns for `step`: its frame, its error thrown, or
        /// (no step) nothing after a little wait, as poll would, so a read
        /// loop does not spin.
        static func read(_ step: Step?) throws(HCISocketError) -> [UInt8]? {
            switch step {
            case .frame(let f)?: return f
            case .fail(let e)?: throw e
            case nil:
                Thread.sleep(forTimeInterval: 0.01)
                return nil
            }
        }
    }

    private let lock = NSLock()
    private var replies: [[UInt8]] = []  // guarded by `lock`
    private var live: [Step]  // guarded by `lock`
    private var scanning = false  // guarded by `lock`
    private var gone = false  // guarded by `lock`
    /// Events the controller sends before the enable's Command Complete.
    private let early: [[UInt8]]

    init(early: [[UInt8]] = [], live: [Step]) {
        self.early = early
        self.live = live
    }

    var isGone: Bool { lock.withLock { gone } }

    /// Every write fails with this, as a socket without CAP_NET_RAW's writes do.
    var refusesWrites: HCISocketError?

    func write(_ frame: [UInt8]) throws(HCISocketError) {
        if let refusesWrites { throw refusesWrites }
        let accepted = lock.withLock { () -> Bool in
            if gone { return false }
            let opcode = UInt16(frame[1]) | UInt16(frame[2]) << 8
            let parameters = Array(frame.dropFirst(4))
            switch opcode {
            case HCICommand.Opcode.readLocalVersion:
                replies.append(complete(opcode, [0x00, 0x0B, 0x00, 0x00, 0x0B, 0x0F, 0x00, 0x00, 0x00]))
            case HCICommand.Opcode.readLocalFeatures:
                replies.append(complete(opcode, [0x00, 0, 0, 0, 0, 0x40, 0, 0, 0]))  // LE supported
            case HCICommand.Opcode.leReadLocalFeatures:
                replies.append(complete(opcode, [0x00, 0x01, 0, 0, 0, 0, 0, 0, 0]))  // no extended advertising
            case HCICommand.Opcode.leSetScanEnable where parameters.first == 1:
                replies += early
                replies.append(complete(opcode, [0x00]))
                scanning = true
            default:
                replies.append(complete(opcode, [0x00]))
            }
            return true
        }
        if !accepted { throw .system("write to hci0", Errno(rawValue: EPIPE)) }
    }

    func read(timeoutMs: Int32) throws(HCISocketError) -> [UInt8]? {
        let step: Step? = lock.withLock {
            if !replies.isEmpty { return .frame(replies.removeFirst()) }
            guard scanning, !live.isEmpty else { return nil }
            let step = live.removeFirst()
            if case .fail(let e) = step, e.readFault == .vanished { gone = true }
            return step
        }
        return try Step.read(step)
    }

    func currentFilter() -> HCISocket.SavedFilter? { nil }
    func setFilter(events: [UInt8]?) throws(HCISocketError) {}
    func restoreFilter(_ saved: HCISocket.SavedFilter) {}
}

/// Replays read results in order, then reports nothing; records when each read began.
final class ScriptedFrameSource: HCIFrameSource, @unchecked Sendable {
    private let lock = NSLock()
    private var steps: [FakeAdapter.Step]
    private var readTimes: [Date] = []

    init(_ steps: [FakeAdapter.Step]) { self.steps = steps }

    var reads: [Date] { lock.withLock { readTimes } }

    func read(timeoutMs: Int32) throws(HCISocketError) -> [UInt8]? {
        let step: FakeAdapter.Step? = lock.withLock {
            readTimes.append(Date())
            return steps.isEmpty ? nil : steps.removeFirst()
        }
        return try FakeAdapter.Step.read(step)
    }
}

/// A legacy LE Advertising Report (an iBeacon, RSSI −60) from `AA:BB:CC:DD:EE:<last>`, as an H4 frame.
func advertisingReport(last: UInt8) -> [UInt8] {
    var frame = hex("043e2a02010300ffeeddccbbaa1e0201061aff4c000215fb0b57a2822844cd913a94a122ba120600010035bec4")
    frame[7] = last  // the address's least significant byte comes first
    return frame
}

/// An LE Advertising Report event whose Num_Reports says two but which holds one: malformed.
let malformedReport = hex("043e0c" + "02" + "02" + "0000" + "060504030201" + "00" + "b0")

/// Waits up to `seconds` for `condition` (a bound only against hanging: it
/// returns as soon as the condition holds).
func eventually(_ seconds: Double = 120, _ condition: () -> Bool) async throws -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        if Date() > deadline { return false }
        try await Task.sleep(for: .milliseconds(10))
    }
    return true
}

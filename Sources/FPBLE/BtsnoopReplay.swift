import FPCore
import FPHCI
import Foundation

/// A btsnoop capture loaded for replay: every advertising report with its
/// time relative to the file's first record (of any kind, for btmon and
/// Android captures alike).
package struct BtsnoopCapture: Sendable {
    package let path: String
    package let datalink: BtsnoopFile.Datalink
    /// Reports in file order; `time` = ms since the capture's first record.
    package private(set) var scans: [BLEScan]
    /// `time` of each report whose advertising data did not decode (kept raw), in order.
    package private(set) var adErrorTimes: [Int]
    package let malformedEvents: Int
    /// From the first record to the last, in ms.
    package let durationMs: Int
    /// Every HCI packet of the file with its time (what `--keep-raw` replays into
    /// documents); empty unless asked for (`keepPackets`): a copy of each record.
    package let packets: [RawHCIPacket]
    /// HCI packets in the file (kept or not).
    package let packetCount: Int
    /// Bytes of a last record cut short, dropped (0 when the file ends cleanly).
    package let droppedTailBytes: Int

    package enum LoadError: Error, CustomStringConvertible {
        case unreadable(String, String)
        case malformed(String, HCIParseError)
        package var description: String {
            switch self {
            case let .unreadable(path, why): "\(path): cannot read: \(why)"
            case let .malformed(path, e): "\(path): not a usable btsnoop capture: \(e.description)"
            }
        }
    }

    package init(path: String, keepPackets: Bool = true) throws(LoadError) {
        let bytes: [UInt8]
        do { bytes = try WholeFile.read(path) } catch { throw .unreadable(path, error.description) }
        do { try self.init(bytes: bytes, path: path, keepPackets: keepPackets) } catch { throw .malformed(path, error) }
    }

    /// Parses a whole capture. A last record cut short is dropped (`droppedTailBytes`)
    /// unless no record is intact, which fails the file; a malformed event inside
    /// an intact record is counted and skipped. A large capture is decoded as two
    /// halves, one per core (`CapturePiece`), with what one pass would give.
    package init(bytes: [UInt8], path: String, keepPackets: Bool = true) throws(HCIParseError) {
        let file = try BtsnoopFile(bytes: bytes)
        let whole = try CapturePiece.whole(file, keepPackets: keepPackets)
        if let cut = whole.cutTail, whole.packetCount == 0 { throw cut.error }
        packetCount = whole.packetCount
        droppedTailBytes = whole.cutTail?.droppedBytes ?? 0
        self.path = path
        datalink = file.datalink
        scans = whole.scans
        adErrorTimes = whole.adErrorTimes
        packets = whole.packets
        malformedEvents = whole.malformed
        durationMs = Int(((whole.lastRecordMicros ?? 0) &- (file.firstRecordMicros() ?? 0)) / 1000)
    }
}

extension BtsnoopCapture {
    /// Drops the decoded reports (a replay that has ended).
    mutating func releaseReports() {
        scans = []
        adErrorTimes = []
    }

    /// Drops the reports only (every one replayed; the AD-error times are a few Ints).
    mutating func releaseScans() { scans = [] }
}

/// BLE from a btsnoop file, paced by the measurement clock: at recorded pace on
/// a real clock, as fast as possible on a virtual one (`--fast`). Each entry keeps
/// its recorded time offset, and the document says it is a replay.
package final class BtsnoopReplayProvider: RadioProvider, @unchecked Sendable {
    package let radio = Radio.ble
    package private(set) var capture: BtsnoopCapture
    let lock = NSLock()
    /// Set by `stop`: the final status and cut note, worked out before the
    /// reports are let go (the engine holds those it replayed).
    var stopped: (status: ProviderStatus, cut: String?)?
    var next = 0
    var nextPacket = 0
    var sink: SampleSink?
    var rawLog: RawHCILog?

    package init(capture: BtsnoopCapture) { self.capture = capture }

    package var source: String { "btsnoop:\(capture.path)" }

    /// How long a measurement of the whole capture runs: to its last record (at least 1 ms, so time 0 is replayed).
    package var spanMs: Int { max(capture.durationMs, 1) }

    package func start(context: CaptureContext, sink: SampleSink) async -> ProviderStatus {
        lock.withLock { self.sink = sink; rawLog = context.rawHCI; next = 0; nextPacket = 0 }
        return startStatus
    }

    var startStatus: ProviderStatus {
        var status = Self.replayStatus(source: source, packetCount: capture.packetCount)
        status.malformed = capture.malformedEvents
        return status
    }

    /// A replay's status before it runs, loaded whole or streamed: a capture
    /// without HCI packets is unavailable.
    static func replayStatus(source: String, packetCount: Int) -> ProviderStatus {
        var status = ProviderStatus(status: .ok, source: source)
        status.replay = true
        if packetCount == 0 {
            status.status = .unavailable
            status.reason = "the capture holds no HCI packets (only its file header)"
        }
        return status
    }

    package func advance(toMs ms: Int) async {
        lock.withLock {
            // Once stopped or all replayed the reports are gone (`next` stays their count).
            var end = next
            while end < capture.scans.count, capture.scans[end].time <= ms { end += 1 }
            // The reports stay where they are: the sink shares the array.
            if end > next { sink?.emitBLE(prefixOf: capture.scans, count: end) }
            next = end
            if next == capture.scans.count, next > 0, stopped == nil {
                // Every report replayed. What `stop` would say is settled
                // now, and the array let go: the sink's share of it becomes
                // the document's list without a copy.
                stopped = (liveStatus(replayed: next), cutNote(replayed: next))
                capture.releaseScans()
            }
            while nextPacket < capture.packets.count, capture.packets[nextPacket].atMs <= ms {
                rawLog?.record(capture.packets[nextPacket])
                nextPacket += 1
            }
        }
    }

    /// Ends the replay and lets its reports go: what was replayed is the
    /// sink's (a list the engine takes without a copy once it is the only holder).
    package func stop() async {
        lock.withLock {
            guard stopped == nil else { return }
            stopped = (liveStatus(replayed: next), cutNote(replayed: next))
            capture.releaseReports()
        }
    }

    /// Reports replayed so far (the engine stops at its own end, the capture may run on).
    package var replayedReports: Int { lock.withLock { next } }

    /// The start status plus what the replay met: AD errors among the replayed
    /// reports, and, when the measurement ended before the capture, how many were cut.
    package func finalStatus() async -> ProviderStatus? {
        lock.withLock { stopped?.status ?? liveStatus(replayed: next) }
    }

    /// Why the replay left reports out ("replayed 81 of the capture's 460 …"), nil if it did not.
    package var cutShort: String? { lock.withLock { stopped.map(\.cut) ?? cutNote(replayed: next) } }

    private func liveStatus(replayed: Int) -> ProviderStatus {
        var status = startStatus
        let lastTime = replayed > 0 ? capture.scans[replayed - 1].time : -1
        status.adErrors = capture.adErrorTimes.prefix { $0 <= lastTime }.count
        if let cut = cutNote(replayed: replayed) { status.reason = cut }
        return status
    }

    private func cutNote(replayed: Int) -> String? {
        guard replayed < capture.scans.count else { return nil }
        let first = capture.scans[replayed].time
        return "replayed \(replayed) of the capture's \(capture.scans.count) advertising reports: "
            + "the measurement ended before the report at \(Self.seconds(first)) (the capture runs \(Self.seconds(capture.durationMs)))"
    }

    static func seconds(_ ms: Int) -> String { String(format: "%.1f s", Double(ms) / 1000) }
}

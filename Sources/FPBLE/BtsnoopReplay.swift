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
    package let scans: [BLEScan]
    /// `time` of each report whose advertising data did not decode (kept raw), in order.
    package let adErrorTimes: [Int]
    package let malformedEvents: Int
    /// From the first record to the last, in ms.
    package let durationMs: Int
    /// Every HCI packet of the file with its time (what `--keep-raw` replays into documents).
    package let packets: [RawHCIPacket]
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

    package init(path: String) throws(LoadError) {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw .unreadable(path, (error as NSError).localizedDescription)
        }
        do { try self.init(bytes: Array(data), path: path) } catch { throw .malformed(path, error) }
    }

    /// Parses a whole capture. A last record cut short is dropped (`droppedTailBytes`)
    /// unless no record is intact, which fails the file; a malformed event inside
    /// an intact record is counted and skipped.
    package init(bytes: [UInt8], path: String) throws(HCIParseError) {
        let file = try BtsnoopFile(bytes: bytes)
        var decoder = EventDecoder()
        var scans: [BLEScan] = []
        var adErrorTimes: [Int] = []
        var packets: [RawHCIPacket] = []
        var it = file.makeIterator()
        while let record = try it.next() {
            // Set by next() before it returns a record: the file's first record, skipped or not.
            let ms = Int((record.timestampMicros &- (it.firstRecordMicros ?? record.timestampMicros)) / 1000)
            packets.append(RawHCIPacket(atMs: ms, h4: [record.type.rawValue] + record.packet, received: record.received))
            guard record.type == .event, record.received else { continue }
            let errorsBefore = decoder.adErrors
            scans += decoder.scans(event: record.packet, time: ms, controller: record.index.map(Int.init))
            for _ in errorsBefore..<decoder.adErrors { adErrorTimes.append(ms) }
        }
        if let cut = it.cutTail, packets.isEmpty { throw cut.error }
        droppedTailBytes = it.cutTail?.droppedBytes ?? 0
        self.path = path
        datalink = file.datalink
        self.scans = scans
        self.adErrorTimes = adErrorTimes
        self.packets = packets
        malformedEvents = decoder.malformed
        durationMs = Int(((it.lastRecordMicros ?? 0) &- (it.firstRecordMicros ?? 0)) / 1000)
    }
}

/// BLE from a btsnoop file, paced by the measurement clock: at recorded pace on
/// a real clock, as fast as possible on a virtual one (`--fast`). Each entry keeps
/// its recorded time offset, and the document says it is a replay.
package final class BtsnoopReplayProvider: RadioProvider, @unchecked Sendable {
    package let radio = Radio.ble
    package let capture: BtsnoopCapture
    let lock = NSLock()
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
        var status = ProviderStatus(status: .ok, source: source)
        status.replay = true
        if capture.packets.isEmpty {
            status.status = .unavailable
            status.reason = "the capture holds no HCI packets (only its file header)"
        }
        status.malformed = capture.malformedEvents
        return status
    }

    package func advance(toMs ms: Int) async {
        let batch: [Sample] = lock.withLock {
            var out: [Sample] = []
            while next < capture.scans.count, capture.scans[next].time <= ms {
                out.append(.ble(capture.scans[next]))
                next += 1
            }
            while nextPacket < capture.packets.count, capture.packets[nextPacket].atMs <= ms {
                rawLog?.record(capture.packets[nextPacket])
                nextPacket += 1
            }
            return out
        }
        if !batch.isEmpty { sink?.emit(contentsOf: batch) }
    }

    package func stop() async {}

    /// Reports replayed so far (the engine stops at its own end, the capture may run on).
    package var replayedReports: Int { lock.withLock { next } }

    /// The start status plus what the replay met: AD errors among the replayed
    /// reports, and, when the measurement ended before the capture, how many were cut.
    package func finalStatus() async -> ProviderStatus? {
        var status = startStatus
        let replayed = replayedReports
        let lastTime = replayed > 0 ? capture.scans[replayed - 1].time : -1
        status.adErrors = capture.adErrorTimes.prefix { $0 <= lastTime }.count
        if let cut = cutNote(replayed: replayed) { status.reason = cut }
        return status
    }

    /// "replayed 81 of the capture's 460 advertising reports: …"; nil when none were cut.
    package func cutNote(replayed: Int) -> String? {
        guard replayed < capture.scans.count else { return nil }
        let first = capture.scans[replayed].time
        return "replayed \(replayed) of the capture's \(capture.scans.count) advertising reports: "
            + "the measurement ended before the report at \(Self.seconds(first)) (the capture runs \(Self.seconds(capture.durationMs)))"
    }

    static func seconds(_ ms: Int) -> String { String(format: "%.1f s", Double(ms) / 1000) }
}

import FPCore
import FPHCI
import Foundation

/// What a command asks of a btsnoop replay, loaded whole or streamed.
package protocol BtsnoopReplaying: RadioProvider {
    var path: String { get }
    /// How long the replay runs: to the capture's last record (at least 1 ms).
    var spanMs: Int { get }
    /// Why the replay left reports out, nil if it did not.
    var cutShort: String? { get }
}

extension BtsnoopReplayProvider: BtsnoopReplaying {
    package var path: String { capture.path }
}

/// BLE from a btsnoop file decoded as the clock reaches it, one piece of the
/// file in memory at a time (`BtsnoopStream`): for `fprint track`, whose
/// replays keep no document and may run for hours, so memory must not grow
/// with the capture. Same times, reports and status as `BtsnoopReplayProvider`
/// (which loads the capture whole, for documents that keep every report).
package final class BtsnoopStreamProvider: BtsnoopReplaying, @unchecked Sendable {
    package let radio = Radio.ble
    package let path: String
    let summary: BtsnoopStream.Summary
    let pieceSize: Int
    private let lock = NSLock()
    private var stream: BtsnoopStream?
    private var decoder = EventDecoder()
    /// Reports decoded past the time asked for so far (one event's), emitted on a later advance.
    private var ahead: [BLEScan] = []
    private var replayed = 0
    private var lastReplayedMs = -1
    private var ended = false
    private var sink: SampleSink?

    /// Reads the capture's record headers once (its span, its packets), so a
    /// capture that is not one fails here, before anything runs.
    package init(path: String, pieceSize: Int = 1 << 20) throws(BtsnoopCapture.LoadError) {
        self.path = path
        self.pieceSize = pieceSize
        summary = try BtsnoopStream.summary(path: path, pieceSize: pieceSize)
    }

    package var source: String { "btsnoop:\(path)" }
    package var spanMs: Int { max(summary.durationMs, 1) }
    package var droppedTailBytes: Int { summary.droppedTailBytes }
    package var packetCount: Int { summary.packetCount }

    package func start(context: CaptureContext, sink: SampleSink) async -> ProviderStatus {
        var status = BtsnoopReplayProvider.replayStatus(source: source, packetCount: summary.packetCount)
        guard status.status == .ok else { return status }
        do {
            let stream = try BtsnoopStream(path: path, pieceSize: pieceSize)
            lock.withLock { self.stream = stream; self.sink = sink }
        } catch {
            status.status = .unavailable
            status.reason = error.description
        }
        return status
    }

    package func advance(toMs ms: Int) async {
        let batch: [BLEScan] = lock.withLock {
            var out: [BLEScan] = []
            if let first = ahead.first {
                guard first.time <= ms else { return [] }
                out = ahead
                ahead = []
            }
            guard let stream, let origin = summary.firstRecordMicros else { return out }
            while !ended {
                let record: BtsnoopFile.Record?
                // The summary read the same file to its end: an error now means it changed since.
                do { record = try stream.next() } catch { ended = true; break }
                guard let record else { ended = true; break }
                guard record.type == .event, record.received else { continue }
                let time = Int((record.timestampMicros &- origin) / 1000)
                if time <= ms {
                    decoder.append(event: record.packet, time: time, controller: record.index.map(Int.init), to: &out)
                } else {
                    decoder.append(event: record.packet, time: time, controller: record.index.map(Int.init), to: &ahead)
                    if !ahead.isEmpty { break }
                }
            }
            replayed += out.count
            if let last = out.last { lastReplayedMs = last.time }
            return out
        }
        if !batch.isEmpty { sink?.emit(contentsOf: batch.map(Sample.ble)) }
    }

    package func stop() async {
        lock.withLock { stream = nil }
    }

    /// The start status plus what the replay met: malformed events and AD errors among what was decoded.
    package func finalStatus() async -> ProviderStatus? {
        lock.withLock {
            var status = BtsnoopReplayProvider.replayStatus(source: source, packetCount: summary.packetCount)
            status.malformed = decoder.malformed
            status.adErrors = decoder.adErrors
            if let cut = cutNote { status.reason = cut }
            return status
        }
    }

    package var cutShort: String? { lock.withLock { cutNote } }

    private var cutNote: String? {
        guard !(ended && ahead.isEmpty) else { return nil }
        return "replayed \(replayed) advertising reports: the run ended at \(BtsnoopReplayProvider.seconds(max(lastReplayedMs, 0)))"
            + " (the capture runs \(BtsnoopReplayProvider.seconds(summary.durationMs)))"
    }
}

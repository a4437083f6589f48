import FPHCI
import SystemPackage

/// A btsnoop file read record by record, one piece at a time: what it holds
/// in memory is one piece (1 MiB, or one record if larger) whatever the
/// file's length, so `fprint track` replays an hour as it replays a minute.
/// Records are as `BtsnoopFile.Iterator` reads them; a last record cut short
/// ends the stream (`droppedTailBytes`), as it ends a whole-file read.
package final class BtsnoopStream {
    package let path: String
    package let datalink: BtsnoopFile.Datalink
    private let fd: FileDescriptor
    private let pieceSize: Int
    private var piece: [UInt8] = []
    /// File offset of `piece`'s first byte.
    private var pieceOffset = 16
    private var records: BtsnoopFile.Iterator
    private var fileEnded = false
    /// Time of the first and latest record read, of any kind (the capture's time origin is its first).
    package private(set) var firstRecordMicros: Int64?
    package private(set) var lastRecordMicros: Int64?
    /// Bytes of a last record cut short (0 while reading or when the file ends cleanly), and why.
    package private(set) var droppedTailBytes = 0
    package private(set) var cutError: HCIParseError?

    package init(path: String, pieceSize: Int = 1 << 20) throws(BtsnoopCapture.LoadError) {
        self.path = path
        self.pieceSize = pieceSize
        let fd: FileDescriptor
        do { fd = try FileDescriptor.open(path, .readOnly) } catch { throw .unreadable(path, Self.why(error)) }
        var header = [UInt8](repeating: 0, count: 16)
        do {
            let n = try header.withUnsafeMutableBytes { try fd.read(into: $0) }
            header.removeLast(16 - n)
            datalink = try BtsnoopFile(bytes: header).datalink
        } catch let e as HCIParseError {
            try? fd.close()
            throw .malformed(path, e)
        } catch {
            try? fd.close()
            throw .unreadable(path, Self.why(error))
        }
        self.fd = fd
        records = BtsnoopFile.Iterator(datalink: datalink, records: [], fileOffset: 16)
    }

    deinit { try? fd.close() }

    /// The next HCI packet, nil at the end of the file.
    package func next() throws(BtsnoopCapture.LoadError) -> BtsnoopFile.Record? {
        while true {
            let record: BtsnoopFile.Record?
            do { record = try records.next() } catch { throw .malformed(path, error) }
            if firstRecordMicros == nil { firstRecordMicros = records.firstRecordMicros }
            lastRecordMicros = records.lastRecordMicros ?? lastRecordMicros
            if let record { return record }
            // The piece is used up: what it cut short starts the next one.
            let carried = records.cutTail?.droppedBytes ?? 0
            if fileEnded {
                droppedTailBytes = carried
                cutError = records.cutTail?.error
                return nil
            }
            try refill(keepingLast: carried)
        }
    }

    private func refill(keepingLast carried: Int) throws(BtsnoopCapture.LoadError) {
        pieceOffset += piece.count - carried
        var next = [UInt8](repeating: 0, count: carried + pieceSize)
        next.replaceSubrange(0..<carried, with: piece.suffix(carried))
        var filled = carried
        do {
            while filled < next.count {
                let n = try next.withUnsafeMutableBytes {
                    try fd.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[filled...]))
                }
                if n == 0 { fileEnded = true; break }
                filled += n
            }
        } catch { throw .unreadable(path, Self.why(error)) }
        next.removeLast(next.count - filled)
        piece = next
        records = BtsnoopFile.Iterator(datalink: datalink, records: piece[...], fileOffset: pieceOffset)
    }
}

extension BtsnoopStream {
    static func why(_ error: any Error) -> String { (error as? Errno)?.description ?? "\(error)" }

    /// What a replay must know before it starts, from one pass over the
    /// record headers (nothing decoded, one piece in memory).
    package struct Summary: Sendable {
        package var firstRecordMicros: Int64?
        package var durationMs = 0
        package var packetCount = 0
        package var droppedTailBytes = 0
    }

    package static func summary(path: String, pieceSize: Int = 1 << 20) throws(BtsnoopCapture.LoadError) -> Summary {
        let stream = try BtsnoopStream(path: path, pieceSize: pieceSize)
        var summary = Summary()
        while try stream.next() != nil { summary.packetCount += 1 }
        // As a whole-file read: a file with no intact record is not a capture.
        if summary.packetCount == 0, let cut = stream.cutError { throw .malformed(path, cut) }
        summary.firstRecordMicros = stream.firstRecordMicros
        summary.durationMs = Int(((stream.lastRecordMicros ?? 0) &- (stream.firstRecordMicros ?? 0)) / 1000)
        summary.droppedTailBytes = stream.droppedTailBytes
        return summary
    }
}

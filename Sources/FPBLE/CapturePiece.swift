import FPCore
import FPHCI

/// The reports of a run of whole records of a capture, with times counted
/// from the capture's first record (`origin`).
struct CapturePiece {
    /// Below this a capture is decoded in one pass: it takes a few ms, not worth a thread and a copy.
    static let splitBytes = 1 << 20

    var scans: [BLEScan] = []
    var adErrorTimes: [Int] = []
    var packets: [RawHCIPacket] = []
    var packetCount = 0
    var malformed = 0
    var cutTail: (droppedBytes: Int, error: HCIParseError)?
    var lastRecordMicros: Int64?

    /// Every record of `file`: a large one as two halves decoded side by side
    /// and joined, with what one pass would give.
    static func whole(_ file: BtsnoopFile, keepPackets: Bool) throws(HCIParseError) -> CapturePiece {
        let end = file.bytes.count, events = file.receivedEventRecords()
        guard end >= splitBytes, let origin = file.firstRecordMicros(), let middle = file.recordStart(atOrAfter: end / 2) else {
            return try CapturePiece(file, 16..<end, origin: nil, keepPackets: keepPackets, reserve: events)
        }
        var first: CapturePiece?, second: CapturePiece?
        var firstError: HCIParseError?, secondError: HCIParseError?
        _ = inParallel(
            {
                do throws(HCIParseError) {
                    first = try CapturePiece(file, 16..<middle, origin: origin, keepPackets: keepPackets, reserve: events)
                } catch { firstError = error }
            },
            {
                do throws(HCIParseError) {
                    second = try CapturePiece(file, middle..<end, origin: origin, keepPackets: keepPackets, reserve: events,
                                              ownCopy: true)
                } catch { secondError = error }
            })
        // The first piece's error is the one a single pass meets first.
        if let firstError { throw firstError }
        if let secondError { throw secondError }
        // Taken out, so each piece's arrays have one owner and join without a copy.
        var whole = first.take()!
        whole.append(second.take()!)
        return whole
    }

    /// `origin` nil: the piece starts the file and its first record, if intact, is the origin.
    /// `reserve`: room for this many reports; each half takes the whole
    /// capture's count (the first joins the second into it, and room never
    /// touched costs no memory).
    init(_ file: BtsnoopFile, _ records: Range<Int>, origin: Int64?, keepPackets: Bool, reserve: Int, ownCopy: Bool = false)
        throws(HCIParseError)
    {
        var decoder = EventDecoder()
        // A piece decoded beside another reads its own copy: each record's
        // slice retains its array, and two threads retaining one array made
        // its count a contended cache line (a 17 MB replay decoded no faster
        // on two cores than on one).
        let bytes = ownCopy ? ArraySlice(Array(file.bytes[records])) : file.bytes[records]
        var it = BtsnoopFile.Iterator(datalink: file.datalink, records: bytes, fileOffset: records.lowerBound)
        scans.reserveCapacity(reserve)
        while let record = try it.next() {
            let ms = Int((record.timestampMicros &- (origin ?? it.firstRecordMicros ?? record.timestampMicros)) / 1000)
            packetCount += 1
            if keepPackets {
                packets.append(RawHCIPacket(atMs: ms, h4: [record.type.rawValue] + record.packet, received: record.received))
            }
            guard record.type == .event, record.received else { continue }
            let errorsBefore = decoder.adErrors
            decoder.append(event: record.packet, time: ms, controller: record.index.map(Int.init), to: &scans)
            for _ in errorsBefore..<decoder.adErrors { adErrorTimes.append(ms) }
        }
        malformed = decoder.malformed
        cutTail = it.cutTail
        lastRecordMicros = it.lastRecordMicros
    }

    /// The piece that follows this one in the file, its reports moved, not
    /// copied (a copy retains each report's strings, and freeing the piece
    /// releases them again).
    mutating func append(_ next: consuming CapturePiece) {
        scans.append(movingFrom: &next.scans)
        adErrorTimes.append(contentsOf: next.adErrorTimes)
        packets.append(contentsOf: next.packets)
        packetCount += next.packetCount
        malformed += next.malformed
        cutTail = next.cutTail
        lastRecordMicros = next.lastRecordMicros ?? lastRecordMicros
    }
}

/// btsnoop capture files (RFC 1761 framing as used by Android's HCI snoop log
/// and BlueZ's `btmon -w`), parsed from bytes in memory.
///
/// Datalinks: 1002 = H4 (each record starts with the H4 type byte),
/// 2001 = BlueZ monitor (record flags carry controller index and opcode).
package struct BtsnoopFile: Sendable {
    package enum Datalink: UInt32, Sendable {
        case h4 = 1002
        case monitor = 2001
    }

    /// One HCI packet of the capture.
    package struct Record: Sendable {
        /// Microseconds since the Unix epoch; negative for captures dated before 1970.
        package var timestampMicros: Int64
        /// Controller index (monitor files); nil for H4 files.
        package var index: UInt16?
        package var type: H4Type
        /// True for controller → host.
        package var received: Bool
        /// The packet without its H4 type byte.
        package var packet: ArraySlice<UInt8>
    }

    /// btsnoop times count microseconds from 0000-01-01; this is 1970-01-01 on that scale.
    package static let epochOffsetMicros: Int64 = 0x00DC_DDB3_0F2F_8000

    static let magic: [UInt8] = Array("btsnoop".utf8) + [0]

    package let datalink: Datalink
    package let bytes: [UInt8]

    /// Checks the 16-byte header.
    package init(bytes: [UInt8]) throws(HCIParseError) {
        var c = ByteCursor(bytes[...])
        let m = try c.take(8, "btsnoop magic")
        guard m.elementsEqual(Self.magic) else { throw .invalid(what: "btsnoop magic", offset: 0, value: Int(m.first ?? 0)) }
        let version = try Self.be32(&c, "btsnoop version")
        guard version == 1 else { throw .invalid(what: "btsnoop version", offset: 8, value: Int(version)) }
        let link = try Self.be32(&c, "btsnoop datalink")
        guard let d = Datalink(rawValue: link) else { throw .invalid(what: "btsnoop datalink (need 1002 H4 or 2001 monitor)", offset: 12, value: Int(link)) }
        datalink = d
        self.bytes = bytes
    }

    /// Decodes every intact record. Records that are not HCI packets (monitor
    /// notes, index add/remove) are skipped; a last record cut short ends the
    /// list (`Iterator.cutTail` says what was dropped).
    package func records() throws(HCIParseError) -> [Record] {
        var out: [Record] = []
        var it = makeIterator()
        while let r = try it.next() { out.append(r) }
        return out
    }

    package func makeIterator() -> Iterator { Iterator(file: self) }

    /// Received event records, counted from the record headers alone (the
    /// iterator slices every record: ~15 ms of a 17 MB replay), to size an
    /// array of reports before decoding. The same records `Iterator` yields
    /// as received events (H4 type byte, or the monitor opcode it maps to an
    /// event); a record cut short ends the count.
    package func receivedEventRecords(from start: Int = 16, to end: Int? = nil) -> Int {
        let end = end ?? bytes.count
        var at = start, n = 0  // 16: after the file header
        while at + 24 <= end {
            let included = Int(BeaconFrame.be32(bytes, at + 4)), flags = BeaconFrame.be32(bytes, at + 8), data = at + 24
            guard data + included <= end else { break }
            switch datalink {
            case .h4: if included > 0, bytes[data] == H4Type.event.rawValue, flags & 1 != 0 { n += 1 }
            case .monitor: if flags & 0xFFFF == 3 { n += 1 }  // opcode 3: event (received)
            }
            at = data + included
        }
        return n
    }

    /// The start of the first intact record at or after `offset` (from the
    /// record headers alone), so a capture can be decoded in pieces; nil when
    /// no intact record starts there.
    package func recordStart(atOrAfter offset: Int) -> Int? {
        var at = 16
        while at + 24 <= bytes.count {
            let data = at + 24 + Int(BeaconFrame.be32(bytes, at + 4))
            guard data <= bytes.count else { return nil }
            if at >= offset { return at }
            at = data
        }
        return nil
    }

    /// The first record's time (microseconds since the Unix epoch), whatever
    /// its kind: a capture's time origin. Nil when no record is intact.
    package func firstRecordMicros() -> Int64? {
        guard 40 <= bytes.count, 40 + Int(BeaconFrame.be32(bytes, 20)) <= bytes.count else { return nil }
        let stamp = UInt64(BeaconFrame.be32(bytes, 32)) << 32 | UInt64(BeaconFrame.be32(bytes, 36))
        return Int64(bitPattern: stamp) &- Self.epochOffsetMicros
    }

    /// Reads records one by one (no array of the whole capture needed).
    package struct Iterator {
        var cursor: ByteCursor
        let datalink: Datalink
        /// A record that overran the end of the file: a capture copied while
        /// it was still being written (Android's snoop log, say). The intact
        /// records before it stand, as tshark keeps them; nil when none was cut.
        package private(set) var cutTail: (droppedBytes: Int, error: HCIParseError)?
        /// Time of the file's first and latest record read so far, of any kind
        /// (also those skipped: btmon's index and note records), so a capture's
        /// time origin is its first record whatever the datalink.
        package private(set) var firstRecordMicros: Int64?
        package private(set) var lastRecordMicros: Int64?

        init(file: BtsnoopFile) {
            cursor = ByteCursor(file.bytes[...])
            cursor.position = 16
            datalink = file.datalink
        }

        /// The records of a piece of a file read piece by piece: `records`
        /// starts at a record boundary, `fileOffset` bytes into the file (what
        /// error offsets count from). A record the piece cuts short ends it as
        /// `cutTail`, which the reader carries into the next piece.
        package init(datalink: Datalink, records: ArraySlice<UInt8>, fileOffset: Int) {
            cursor = ByteCursor(records, origin: records.startIndex - fileOffset)
            self.datalink = datalink
        }

        package mutating func next() throws(HCIParseError) -> Record? {
            while cursor.remaining > 0 {
                let recordStart = cursor.position
                let flags: UInt32, stamp: Int64, dataOffset: Int, data: ArraySlice<UInt8>
                do {
                    _ = try BtsnoopFile.be32(&cursor, "record original length")
                    let included = Int(try BtsnoopFile.be32(&cursor, "record included length"))
                    flags = try BtsnoopFile.be32(&cursor, "record flags")
                    _ = try BtsnoopFile.be32(&cursor, "record drops")
                    let hi = try BtsnoopFile.be32(&cursor, "record timestamp")
                    let lo = try BtsnoopFile.be32(&cursor, "record timestamp")
                    stamp = Int64(bitPattern: UInt64(hi) << 32 | UInt64(lo)) &- BtsnoopFile.epochOffsetMicros
                    dataOffset = cursor.offset
                    data = try cursor.take(included, "record data")
                } catch {
                    cutTail = (cursor.bytes.endIndex - recordStart, error)
                    cursor.position = cursor.bytes.endIndex
                    return nil
                }
                if firstRecordMicros == nil { firstRecordMicros = stamp }
                lastRecordMicros = stamp
                switch datalink {
                case .h4:
                    guard let first = data.first else { continue }
                    guard let type = H4Type(rawValue: first) else {
                        throw .invalid(what: "H4 packet type", offset: dataOffset, value: Int(first))
                    }
                    return Record(timestampMicros: stamp, index: nil, type: type, received: flags & 1 != 0,
                                  packet: data.dropFirst())
                case .monitor:
                    let opcode = UInt16(flags & 0xFFFF)
                    let index = UInt16(flags >> 16)
                    let mapped: (H4Type, Bool)?
                    switch opcode {
                    case 2: mapped = (.command, false)
                    case 3: mapped = (.event, true)
                    case 4: mapped = (.acl, false)
                    case 5: mapped = (.acl, true)
                    case 6: mapped = (.sco, false)
                    case 7: mapped = (.sco, true)
                    case 18: mapped = (.iso, false)
                    case 19: mapped = (.iso, true)
                    default: mapped = nil  // index add/remove, notes, logging, control channel
                    }
                    guard let (type, received) = mapped else { continue }
                    return Record(timestampMicros: stamp, index: index, type: type, received: received, packet: data)
                }
            }
            return nil
        }
    }

    /// Read in place: a slice per field retained the capture's array six times a record.
    static func be32(_ c: inout ByteCursor, _ what: String) throws(HCIParseError) -> UInt32 {
        try c.need(4, what)
        let i = c.position
        c.position += 4
        return UInt32(c.bytes[i]) << 24 | UInt32(c.bytes[i + 1]) << 16 | UInt32(c.bytes[i + 2]) << 8 | UInt32(c.bytes[i + 3])
    }
}

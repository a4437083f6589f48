import FPCore

/// Fingerprints as one compact binary blob: what eval reads instead of
/// parsing every stored document again (63,504 of them for the UJI
/// long-term dataset). Strings are written once in a table and named by
/// index; numbers little-endian. `stamp` is the caller's statement of what
/// the fingerprints were read from: `unpack` gives them back only under
/// the same stamp, so a blob can never stand for other documents. The
/// fingerprints are written in chunks whose offsets lead them, so that
/// reading them back runs on every core.
package enum FingerprintPack {
    static let magic: [UInt8] = Array("FPPK".utf8)
    /// Raised whenever the layout or what a fingerprint holds changes.
    static let format: UInt32 = 2
    static let chunkSize = 4096

    /// The blob; nil when a fingerprint holds what the layout cannot say
    /// exactly (checked by reading it back), so a caller keeps no blob.
    package static func pack(_ fps: [Fingerprint], stamp: String) -> [UInt8]? {
        var w = PackWriter()
        w.bytes(magic)
        w.u32(format)
        w.string(stamp)
        var body = PackWriter()
        var columnLists: [DeclaredColumns] = []
        func columnsIndex(_ c: DeclaredColumns) -> Int {
            if let i = columnLists.firstIndex(where: { $0 === c }) { return i }
            columnLists.append(c)
            return columnLists.count - 1
        }
        var chunkStarts: [Int] = []
        for (n, fp) in fps.enumerated() {
            if n % chunkSize == 0 { chunkStarts.append(body.out.count) }
            body.text(fp.id)
            body.text(fp.level)
            body.i64(Int64(fp.x))
            body.i64(Int64(fp.y))
            for samples in [fp.ble, fp.wifi] {
                body.u32(samples.count)
                for s in samples {
                    body.text(s.transmitter)
                    body.f64(s.rssi)
                    body.i64(Int64(s.time))
                }
            }
            let l = fp.labels
            body.optionalF64(l.exactX)
            body.optionalF64(l.exactY)
            body.u8(l.inMetres ? 1 : 0)
            body.u8(l.floor == nil ? 0 : 1)
            body.i64(Int64(l.floor ?? 0))
            body.u32(l.tags.count)
            for t in l.tags {
                body.text(t.key)
                body.text(t.value)
            }
            body.optionalText(l.sessionId)
            body.optionalText(l.dataset)
            body.i64(l.createdAtMs)
            body.u32(l.columns.map { columnsIndex($0) + 1 } ?? 0)
            let identities = fp.bleIdentities.sorted { $0.key < $1.key }
            body.u32(identities.count)
            for (transmitter, identity) in identities {
                body.text(transmitter)
                body.text(identity.text)
            }
        }
        // The string table, the column lists, the count and the chunks' offsets in the body, then the body.
        w.u32(body.strings.count)
        for s in body.strings { w.string(s) }
        w.u32(columnLists.count)
        for c in columnLists {
            w.u32(c.ids.count)
            for id in c.ids { w.string(id) }
        }
        w.u32(fps.count)
        for start in chunkStarts { w.i64(Int64(start)) }
        w.bytes(body.out)
        let blob = w.out
        // Whatever the layout cannot carry (an identity whose text reads back otherwise) shows here.
        guard let back = unpack(blob, stamp: stamp), back == fps else { return nil }
        return blob
    }

    /// The fingerprints of a blob made under `stamp`; nil for another stamp,
    /// another format or a damaged blob.
    package static func unpack(_ blob: [UInt8], stamp: String) -> [Fingerprint]? {
        blob.withUnsafeBytes { unpack(PackReader($0), stamp: stamp) }
    }

    private static func unpack(_ reader: PackReader, stamp: String) -> [Fingerprint]? {
        var r = reader
        guard r.bytes(magic.count) == magic, r.u32() == Int(format), r.string() == stamp, let stringCount = r.u32() else { return nil }
        var strings: [String] = []
        strings.reserveCapacity(stringCount)
        for _ in 0..<stringCount {
            guard let s = r.string() else { return nil }
            strings.append(s)
        }
        guard let listCount = r.u32() else { return nil }
        var lists: [DeclaredColumns] = []
        for _ in 0..<listCount {
            guard let n = r.u32() else { return nil }
            var ids: [String] = []
            ids.reserveCapacity(n)
            for _ in 0..<n {
                guard let s = r.string() else { return nil }
                ids.append(s)
            }
            lists.append(DeclaredColumns(ids: ids))
        }
        guard let count = r.u32() else { return nil }
        let chunkCount = (count + chunkSize - 1) / chunkSize
        var starts: [Int] = []
        for _ in 0..<chunkCount {
            guard let start = r.i64(), start >= 0, start <= r.data.count - r.at else { return nil }
            starts.append(Int(start))
        }
        // Chunk i is fingerprints i*chunkSize… and must end exactly where chunk i+1 (or the blob) starts.
        let body = SendableBytes(bytes: UnsafeRawBufferPointer(rebasing: r.data[r.at...]))
        let (table, columnLists, offsets) = (strings, lists, starts)
        let chunks = concurrentMap(Array(0..<chunkCount)) { i -> [Fingerprint]? in
            let end = i + 1 < offsets.count ? offsets[i + 1] : body.bytes.count
            guard offsets[i] <= end else { return nil }
            var chunk = PackReader(UnsafeRawBufferPointer(rebasing: body.bytes[offsets[i]..<end]))
            let n = min(chunkSize, count - i * chunkSize)
            let fps = readFingerprints(n, &chunk, strings: table, lists: columnLists)
            return chunk.atEnd ? fps : nil
        }
        var out: [Fingerprint] = []
        out.reserveCapacity(count)
        for chunk in chunks {
            guard let chunk else { return nil }
            out += chunk
        }
        return out
    }

    private static func readFingerprints(_ count: Int, _ r: inout PackReader, strings: [String],
                                         lists: [DeclaredColumns]) -> [Fingerprint]? {
        func text() -> String? { r.u32().flatMap { $0 < strings.count ? strings[$0] : nil } }
        var out: [Fingerprint] = []
        out.reserveCapacity(count)
        for _ in 0..<count {
            guard let id = text(), let level = text(), let x = r.i64(), let y = r.i64() else { return nil }
            var fp = Fingerprint(id: id, level: level, x: Int(x), y: Int(y))
            for radio in 0..<2 {
                guard let n = r.u32() else { return nil }
                var samples: [Fingerprint.Sample] = []
                samples.reserveCapacity(n)
                for _ in 0..<n {
                    guard let t = text(), let rssi = r.f64(), let time = r.i64() else { return nil }
                    samples.append(.init(transmitter: t, rssi: rssi, time: Int(time)))
                }
                if radio == 0 { fp.ble = samples } else { fp.wifi = samples }
            }
            guard let exactX = r.optionalF64(), let exactY = r.optionalF64(), let metres = r.u8(), let hasFloor = r.u8(),
                  let floor = r.i64(), let tagCount = r.u32() else { return nil }
            fp.labels.exactX = exactX
            fp.labels.exactY = exactY
            fp.labels.inMetres = metres == 1
            fp.labels.floor = hasFloor == 1 ? Int(floor) : nil
            for _ in 0..<tagCount {
                guard let key = text(), let value = text() else { return nil }
                fp.labels.tags.append(.init(key, value))
            }
            guard let session = r.u32(), let dataset = r.u32(), let created = r.i64(), let columns = r.u32(),
                  let identityCount = r.u32() else { return nil }
            fp.labels.sessionId = session == 0 ? nil : (session - 1 < strings.count ? strings[session - 1] : nil)
            fp.labels.dataset = dataset == 0 ? nil : (dataset - 1 < strings.count ? strings[dataset - 1] : nil)
            fp.labels.createdAtMs = created
            if columns > 0 {
                guard columns - 1 < lists.count else { return nil }
                fp.labels.columns = lists[columns - 1]
            }
            for _ in 0..<identityCount {
                guard let transmitter = text(), let identity = text().flatMap(BeaconIdentity.init(text:)) else { return nil }
                fp.bleIdentities[transmitter] = identity
            }
            out.append(fp)
        }
        return out
    }
}

/// The blob's bytes for the chunks' threads, which only read them, inside `unpack`'s `withUnsafeBytes`.
private struct SendableBytes: @unchecked Sendable {
    let bytes: UnsafeRawBufferPointer
}

/// Little-endian writer with a string table (`text` writes an index into `strings`).
struct PackWriter {
    var out: [UInt8] = []
    var strings: [String] = []
    private var index: [String: Int] = [:]

    mutating func bytes(_ b: [UInt8]) { out += b }
    mutating func u8(_ v: UInt8) { out.append(v) }
    mutating func u32(_ v: Int) { withUnsafeBytes(of: UInt32(v).littleEndian) { out += $0 } }
    mutating func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { out += $0 } }
    mutating func i64(_ v: Int64) { withUnsafeBytes(of: v.littleEndian) { out += $0 } }
    mutating func f64(_ v: Double) { i64(Int64(bitPattern: v.bitPattern)) }
    mutating func optionalF64(_ v: Double?) {
        u8(v == nil ? 0 : 1)
        f64(v ?? 0)
    }
    /// A string spelled out: length, UTF-8.
    mutating func string(_ s: String) {
        let utf8 = Array(s.utf8)
        u32(utf8.count)
        out += utf8
    }
    /// A string by its index in the table.
    mutating func text(_ s: String) {
        if let i = index[s] { return u32(i) }
        index[s] = strings.count
        u32(strings.count)
        strings.append(s)
    }
    /// 0 for none, else the index + 1.
    mutating func optionalText(_ s: String?) {
        guard let s else { return u32(0) }
        if index[s] == nil {
            index[s] = strings.count
            strings.append(s)
        }
        u32(index[s]! + 1)
    }
}

/// Reads a blob in place (loads, not a byte at a time: eval reads tens of MB);
/// used only inside the `withUnsafeBytes` that gave it its bytes.
struct PackReader {
    let data: UnsafeRawBufferPointer
    var at = 0
    init(_ data: UnsafeRawBufferPointer) { self.data = data }

    var atEnd: Bool { at == data.count }

    mutating func bytes(_ n: Int) -> [UInt8]? { raw(n).map(Array.init) }
    private mutating func raw(_ n: Int) -> UnsafeRawBufferPointer? {
        guard n >= 0, data.count - at >= n else { return nil }
        defer { at += n }
        return UnsafeRawBufferPointer(rebasing: data[at..<at + n])
    }
    mutating func u8() -> UInt8? {
        guard at < data.count else { return nil }
        defer { at += 1 }
        return data[at]
    }
    mutating func u32() -> Int? {
        guard data.count - at >= 4 else { return nil }
        defer { at += 4 }
        return Int(UInt32(littleEndian: data.loadUnaligned(fromByteOffset: at, as: UInt32.self)))
    }
    mutating func i64() -> Int64? {
        guard data.count - at >= 8 else { return nil }
        defer { at += 8 }
        return Int64(littleEndian: data.loadUnaligned(fromByteOffset: at, as: Int64.self))
    }
    mutating func f64() -> Double? { i64().map { Double(bitPattern: UInt64(bitPattern: $0)) } }
    /// .some(nil) for a value written as absent; nil when the blob ends.
    mutating func optionalF64() -> Double?? {
        guard let flag = u8(), let v = f64() else { return nil }
        return .some(flag == 1 ? v : nil)
    }
    mutating func string() -> String? {
        guard let n = u32(), let b = raw(n) else { return nil }
        return String(decoding: b, as: UTF8.self)
    }
}

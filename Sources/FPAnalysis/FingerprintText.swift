import FPCore
import Foundation

/// Transmitter ids, made once per distinct address and shared by every sample
/// that names one. Eval holds millions of samples: a string each would cost
/// a heap block and a lowercasing per sample. Not thread-safe: one per reader.
package final class TransmitterNames {
    private struct Known {
        var raw: [UInt8]
        var id: String
    }

    /// By the FNV-1a hash of the address as written, and whether it is BLE.
    private var known: [UInt64: [Known]] = [:]
    /// Declared transmitter columns by their text (`imported.transmitters` and radio): one list per table.
    private var declared: [[UInt8]: DeclaredColumns] = [:]

    package init() {}

    /// `BLE:<address lowercased>` or `WIFI:<mac>` for the address bytes as written.
    func id(_ raw: UnsafeBufferPointer<UInt8>, ble: Bool) -> String {
        var hash: UInt64 = ble ? 0xcbf2_9ce4_8422_2325 : 0x8422_2325_cbf2_9ce4
        for b in raw { hash = (hash ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        if let entries = known[hash], let hit = entries.first(where: { $0.raw.elementsEqual(raw) }) { return hit.id }
        let text = String(decoding: raw, as: UTF8.self)
        let id = ble ? Fingerprint.bleID(text) : Fingerprint.wifiID(text)
        known[hash, default: []].append(Known(raw: Array(raw), id: id))
        return id
    }

    /// The last list asked for: a table's documents come one after another.
    private var last: (raw: [UInt8], radio: String?, columns: DeclaredColumns?)?

    /// `imported.transmitters` (its JSON text) of a `radio`, decoded once per distinct text.
    func columns(_ raw: UnsafeBufferPointer<UInt8>, radio: String?) -> DeclaredColumns? {
        if let last, last.radio == radio, last.raw.elementsEqual(raw) { return last.columns }
        let key = Array(raw) + Array((radio ?? "").utf8)
        let columns: DeclaredColumns?
        if let hit = declared[key] {
            columns = hit
        } else {
            columns = (try? JSONParser.parse(Array(raw))).flatMap { DeclaredColumns.from($0, radio: radio) }
            if let columns { declared[key] = columns }
        }
        last = (Array(raw), radio, columns)
        return columns
    }
}

extension Fingerprint {
    /// Reads a stored body (canonical JSON text) by walking its bytes,
    /// building only the samples: 10–20× faster than `init(id:json:)`, with
    /// transmitter ids shared through `names`. Text it does not expect (an
    /// escape in an address, a number where a string belongs, a missing
    /// key) goes through `init(id:json:)`, whose rules these are and which
    /// words the error.
    package init(id: String, text: String, names: TransmitterNames) throws(FingerprintError) {
        var text = text
        let read = text.withUTF8 { LeanReader(bytes: $0, names: names).fingerprint(id: id) }
        if let read {
            self = read
        } else {
            try self.init(id: id, json: Data(text.utf8))
        }
    }
}

/// The walk behind `init(id:text:names:)`; nil means "take the full reader".
private struct LeanReader {
    let bytes: UnsafeBufferPointer<UInt8>
    let names: TransmitterNames

    func fingerprint(id: String) -> Fingerprint? {
        var x: Double?, y: Double?, level = ""
        var ble: [Fingerprint.Sample] = [], wifi: [Fingerprint.Sample] = []
        var identities: [String: BeaconIdentity] = [:]
        var labels = Fingerprint.Labels()
        let understood = JSONSkim.forEachMember(in: bytes, of: 0..<bytes.count) { key, value in
            switch Key(key) {
            case .x: x = number(value); return x != nil
            case .y: y = number(value); return y != nil
            case .level:
                if isNull(value) { return true }
                guard let s = string(value) else { return false }
                level = String(decoding: s, as: UTF8.self)
                return true
            case .bleScans: return isNull(value) || samples(value, ble: true, into: &ble, identities: &identities)
            case .wifiScans: return isNull(value) || samples(value, ble: false, into: &wifi, identities: &identities)
            // The labels are lenient (`Labels(body:)`): what they cannot use is passed over, never refused;
            // an object with an escaped key goes to the full reader, as everything this walk cannot read.
            case .position: return position(value, into: &labels)
            case .floor: labels.floor = number(value).flatMap { $0.rounded() == $0 && abs($0) < 1_000_000 ? Int($0) : nil }
            case .tags: return tags(value, into: &labels)
            case .sessionId: labels.sessionId = text(value)
            case .createdAt: labels.createdAtMs = text(value).flatMap(ISOTime.milliseconds) ?? 0
            case .imported: return imported(value, into: &labels)
            // A probe run (`fprint probe --every`) is no fingerprint: the full reader says so.
            case .mode: return text(value) != "probe"
            default: break
            }
            return true
        }
        // Whole map units only; anything else is the full reader's to word.
        guard understood, let x, let y, x.rounded() == x, abs(x) < 9e15, y.rounded() == y, abs(y) < 9e15 else {
            return nil
        }
        var fp = Fingerprint(id: id, level: level, x: Int(x), y: Int(y), ble: ble, wifi: wifi)
        fp.labels = labels
        fp.bleIdentities = identities
        return fp
    }

    /// `position`'s x, y and unit; false (the full reader's turn) for an object this walk cannot read.
    func position(_ value: Range<Int>, into labels: inout Fingerprint.Labels) -> Bool {
        var px: Double?, py: Double?, unit: String?
        guard bytes[value.lowerBound] == UInt8(ascii: "{") else { return true }
        let read = JSONSkim.forEachMember(in: bytes, of: value) { key, v in
            switch Key(key) {
            case .x: px = number(v)
            case .y: py = number(v)
            case .unit: unit = text(v)
            default: break
            }
            return true
        }
        guard read else { return false }
        guard let px, let py else { return true }
        labels.exactX = px
        labels.exactY = py
        labels.inMetres = unit == "m"
        return true
    }

    /// `tags`' string members, in order.
    func tags(_ value: Range<Int>, into labels: inout Fingerprint.Labels) -> Bool {
        guard bytes[value.lowerBound] == UInt8(ascii: "{") else { return true }
        var out: [Fingerprint.Tag] = []
        let read = JSONSkim.forEachMember(in: bytes, of: value) { key, v in
            if let t = text(v) { out.append(Fingerprint.Tag(String(decoding: key, as: UTF8.self), t)) }
            return true
        }
        labels.tags = out
        return read
    }

    /// `imported.dataset` and the table's transmitter columns.
    func imported(_ value: Range<Int>, into labels: inout Fingerprint.Labels) -> Bool {
        guard bytes[value.lowerBound] == UInt8(ascii: "{") else { return true }
        var transmitters: Range<Int>?, radio: String?
        let read = JSONSkim.forEachMember(in: bytes, of: value) { key, v in
            switch Key(key) {
            case .dataset: labels.dataset = text(v)
            case .radio: radio = text(v)
            case .transmitters: transmitters = v
            default: break
            }
            return true
        }
        if let transmitters {
            labels.columns = names.columns(UnsafeBufferPointer(rebasing: bytes[transmitters]), radio: radio)
        }
        return read
    }

    /// A string value as text (escapes decoded); nil for anything else.
    func text(_ r: Range<Int>) -> String? {
        if let s = string(r) { return String(decoding: s, as: UTF8.self) }
        guard r.count >= 2, bytes[r.lowerBound] == UInt8(ascii: "\"") else { return nil }
        return (try? JSONParser.parse(Array(bytes[r])))?.stringValue
    }


    /// Samples of one list: `address` (BLE) or `mac` (Wi-Fi), `rssi` (null:
    /// not available, skipped) and `time` (missing: 0).
    /// A BLE report's `beacon` identity is kept per transmitter (the first its address gave).
    func samples(_ list: Range<Int>, ble: Bool, into out: inout [Fingerprint.Sample],
                 identities: inout [String: BeaconIdentity]) -> Bool {
        // Counted first, so the samples take what they need, not up to
        // twice that (eval holds millions of them).
        var count = 0
        _ = JSONSkim.forEachElement(in: bytes, of: list) { _ in
            count += 1
            return true
        }
        out.reserveCapacity(count)
        return JSONSkim.forEachElement(in: bytes, of: list) { element in
            var address: UnsafeBufferPointer<UInt8>?, rssi: Double?, time: Double?, beacon: Range<Int>?
            let understood = JSONSkim.forEachMember(in: bytes, of: element) { key, value in
                let field = Key(key)
                switch field {
                case .address, .mac:
                    // Both are read from both lists, as the full reader does: a wrong type is an error either way.
                    if isNull(value) { return true }
                    guard let s = string(value) else { return false }
                    if (field == .address) == ble { address = s }
                    return true
                case .rssi, .time:
                    if isNull(value) { return true }
                    guard let n = number(value) else { return false }
                    if field == .rssi { rssi = n } else { time = n }
                    return true
                case .beacon:
                    if ble { beacon = value }
                    return true
                default: return true
                }
            }
            guard understood, let address else { return false }  // no address: the full reader's error
            guard rssi != nil || beacon != nil else { return true }
            let transmitter = names.id(address, ble: ble)
            if let beacon, identities[transmitter] == nil, let id = identity(beacon) { identities[transmitter] = id }
            if let rssi {
                out.append(Fingerprint.Sample(transmitter: transmitter, rssi: rssi, time: Fingerprint.wholeTime(time)))
            }
            return true
        }
    }

    /// A report's `beacon` object as the identity it advertises; nil for none (or one this walk cannot read).
    func identity(_ value: Range<Int>) -> BeaconIdentity? {
        guard bytes[value.lowerBound] == UInt8(ascii: "{") else { return nil }
        var beacon = Beacon(type: "")
        func whole(_ r: Range<Int>) -> Int? { number(r).flatMap { $0.rounded() == $0 && abs($0) < 1e9 ? Int($0) : nil } }
        let read = JSONSkim.forEachMember(in: bytes, of: value) { key, v in
            switch Key(key) {
            case .type: beacon.type = text(v) ?? ""
            case .uuid: beacon.uuid = text(v)
            case .major: beacon.major = whole(v)
            case .minor: beacon.minor = whole(v)
            case .namespace: beacon.namespace = text(v)
            case .instance: beacon.instance = text(v)
            default: break
            }
            return true
        }
        return read ? BeaconIdentity(beacon: beacon) : nil
    }

    func isNull(_ r: Range<Int>) -> Bool { r.count == 4 && bytes[r.lowerBound] == UInt8(ascii: "n") }

    /// A string's bytes between its quotes; nil for anything else or an escape.
    func string(_ r: Range<Int>) -> UnsafeBufferPointer<UInt8>? {
        guard r.count >= 2, bytes[r.lowerBound] == UInt8(ascii: "\"") else { return nil }
        let inner = UnsafeBufferPointer(rebasing: bytes[(r.lowerBound + 1)..<(r.upperBound - 1)])
        return inner.contains(UInt8(ascii: "\\")) ? nil : inner
    }

    /// A number's value, read as the full reader reads it (correctly rounded).
    func number(_ r: Range<Int>) -> Double? {
        var k = r.lowerBound
        let negative = k < r.upperBound && bytes[k] == UInt8(ascii: "-")
        if negative { k += 1 }
        var whole = 0
        let digitsStart = k
        while k < r.upperBound, bytes[k] >= UInt8(ascii: "0"), bytes[k] <= UInt8(ascii: "9"), k - digitsStart < 15 {
            whole = whole * 10 + Int(bytes[k] - UInt8(ascii: "0"))
            k += 1
        }
        if k == r.upperBound && k > digitsStart { return Double(negative ? -whole : whole) }
        // Fractions, exponents, long numbers: the standard library's correctly rounded reading.
        guard let first = bytes[r].first, first == UInt8(ascii: "-") || (first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9"))
        else { return nil }
        return Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[r]), as: UTF8.self))
    }

    /// The keys eval reads, told apart by their bytes.
    enum Key {
        case x, y, level, bleScans, wifiScans, address, mac, rssi, time, other
        case position, floor, tags, sessionId, createdAt, imported, unit, dataset, radio, transmitters, mode
        case beacon, type, uuid, major, minor, namespace, instance

        init(_ k: UnsafeBufferPointer<UInt8>) {
            func equals(_ s: StaticString) -> Bool {
                s.utf8CodeUnitCount == k.count && s.withUTF8Buffer { $0.elementsEqual(k) }
            }
            switch k.count {
            case 1: self = equals("x") ? .x : equals("y") ? .y : .other
            case 3: self = equals("mac") ? .mac : .other
            case 4: self = equals("rssi") ? .rssi : equals("time") ? .time : equals("tags") ? .tags
                : equals("unit") ? .unit : equals("mode") ? .mode : equals("type") ? .type : equals("uuid") ? .uuid : .other
            case 5: self = equals("level") ? .level : equals("floor") ? .floor : equals("radio") ? .radio
                : equals("major") ? .major : equals("minor") ? .minor : .other
            case 6: self = equals("beacon") ? .beacon : .other
            case 7: self = equals("address") ? .address : equals("dataset") ? .dataset : .other
            case 8: self = equals("bleScans") ? .bleScans : equals("position") ? .position : equals("imported") ? .imported
                : equals("instance") ? .instance : .other
            case 9: self = equals("wifiScans") ? .wifiScans : equals("sessionId") ? .sessionId
                : equals("createdAt") ? .createdAt : equals("namespace") ? .namespace : .other
            case 12: self = equals("transmitters") ? .transmitters : .other
            default: self = .other
            }
        }
    }
}

import Foundation

extension LegacyImport {
    /// A line `document` would hand back unchanged, found without parsing
    /// it: canonical text (`JSONSkim`) of a document already in fprint's
    /// contract, as `fprint export` writes it. Its body is the line without
    /// its `_id` member, stored as text: a 223 KiB walk document took ~3.5 ms
    /// of CPU to parse, check, convert and write back, most of it making and
    /// freeing values.
    ///
    /// nil whenever `document` could change or refuse anything: another
    /// `_` member (`_rev`, `_attachments`, …), no `schemaVersion` ≥ 1 or
    /// `imported`, no `mode`, a number or time given as text, a list that is
    /// not an array of objects, a BLE entry with only `uuid` or `bssid`, a
    /// Wi-Fi entry with only `bssid`, a position that is not a whole number.
    /// The caller then takes `document`'s path, with its conversions and
    /// errors: this is a shortcut, never a second set of rules.
    ///
    /// `rowID` is a dump row's `id`, the id when the text has no `_id` (as
    /// `document` takes it).
    static func contractDocument(_ text: [UInt8], rowID: String? = nil) -> NewDocument? {
        guard text.withUnsafeBytes(namesSchemaVersion),
              let judged = JSONSkim(text).value(in: 0..<text.count, levels: 1), judged.isCanonical,
              let members = judged.members else { return nil }
        return text.withUnsafeBufferPointer { bytes -> NewDocument? in
            var id: String?
            var idMember: Int?
            var normalised = false, hasVersion = false, hasMode = false
            for (index, member) in members.enumerated() {
                let value = member.value
                let first = bytes[value.lowerBound]
                switch member.key {
                case "_id":
                    guard let plain = plainString(bytes, value) else { return nil }
                    id = plain
                    idMember = index
                case let key where key.hasPrefix("_"):
                    return nil
                case "schemaVersion":
                    guard let version = integer(bytes, value) else { return nil }
                    hasVersion = true
                    if version >= 1 { normalised = true }
                case "imported": normalised = true
                case "mode": hasMode = true
                case "x", "y":
                    guard let number = double(bytes, value), number.rounded() == number else { return nil }
                case let key where topNumbers.contains(key):
                    if first == UInt8(ascii: "\"") { return nil }
                case let key where timeKeys.contains(key):
                    guard let time = plainString(bytes, value), ISOTime.isCanonical(time) else { return nil }
                case let key where listNumbers[key] != nil:
                    guard isContractList(key, bytes, value) else { return nil }
                default: continue
                }
            }
            if idMember == nil { id = rowID }
            guard let id, !id.isEmpty, !id.hasPrefix("_design/"), normalised, hasVersion, hasMode,
                  members.contains(where: { $0.key == "x" }), members.contains(where: { $0.key == "y" }) else { return nil }
            guard let idMember else { return NewDocument(id: id, canonicalText: text, members: members) }
            let body = Self.text(of: bytes, without: idMember, of: members)
            return NewDocument(id: id, canonicalText: body.text, members: body.members)
        }
    }

    /// Whether `bytes` hold the key `"schemaVersion":` anywhere: canonical
    /// text of a contract document does (as a top-level member), so text
    /// without it is refused before it is copied and checked whole. An
    /// evaluator's row or an Android export has none, and each was copied
    /// and skimmed whole only to be refused.
    static func namesSchemaVersion(_ bytes: UnsafeRawBufferPointer) -> Bool {
        // Found by its `V`, rare in measurement text (addresses and ids are
        // hex or lower case) but for BLE event types (`ADV_IND`, ~1,000 in a
        // walk document): memchr finds each V, then the whole key is
        // compared. The key sorts after `bleScans` and before the short
        // members that close a document, so the text is searched 4 KiB at a
        // time from its end. (From the start, the search stopped at every
        // event type: 4 % of an import's CPU.)
        let key = schemaVersionKey, anchor = 7, window = 4096
        guard let base = bytes.baseAddress, bytes.count >= key.count else { return false }
        var end = bytes.count - key.count + anchor + 1  // past the last place the anchor can be
        while end > anchor {
            let start = max(anchor, end - window)
            var next = start
            while next < end, let hit = memchr(base + next, Int32(UInt8(ascii: "V")), end - next) {
                let at = base.distance(to: UnsafeRawPointer(hit))
                if key.withUnsafeBytes({ memcmp(base + at - anchor, $0.baseAddress!, key.count) }) == 0 { return true }
                next = at + 1
            }
            end = start
        }
        return false
    }

    private static let schemaVersionKey = Array(#""schemaVersion":"#.utf8)

    /// Whether a list (`bleScans`, …) of checked canonical text is an array
    /// of objects whose number members are numbers or null, with BLE and
    /// Wi-Fi entries carrying `address` and `mac` where they carry `uuid` or
    /// `bssid`. One pass over the text, which holds no white space; a member
    /// repeating the previous entry's member byte for byte passed before.
    private static func isContractList(_ list: String, _ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        guard let keys = contractListKeys[list] else { return false }
        var reader = JSONSkim.Reader(bytes: bytes, i: range.lowerBound, end: range.upperBound)
        guard reader.peek == UInt8(ascii: "[") else { return false }
        reader.i += 1
        if reader.peek == UInt8(ascii: "]") { return true }
        var siblings = SiblingMembers<CheckedMember>(kept: true)
        while true {
            guard reader.peek == UInt8(ascii: "{") else { return false }
            reader.i += 1
            siblings.startObject()
            var count = 0
            var seen = AddressesSeen()
            while reader.peek == UInt8(ascii: "\"") {
                let earlier = siblings.previous
                let repeated = count < earlier.count ? reader.repeated(earlier, from: count) : (run: 0, sameKey: false)
                let run = repeated.run
                if run > 0 {
                    _ = reader.passRun(run, of: earlier, from: count, into: &siblings)
                    for member in earlier[count..<(count + run)] { seen.note(member.kind) }
                } else {
                    // A member whose key repeats the one before at this place has its kind.
                    let start = reader.i
                    let kind: CheckedMember.Kind
                    if repeated.sameKey {
                        kind = earlier[count].kind
                        reader.i += earlier[count].keyLength
                    } else {
                        guard let read = readKey(&reader, keys) else { return false }
                        kind = read
                    }
                    let keyLength = reader.i - start
                    guard checkValue(&reader, of: kind) else { return false }
                    siblings.record(CheckedMember(text: start..<reader.i, keyLength: keyLength, kind: kind))
                    seen.note(kind)
                }
                count += max(run, 1)
                if reader.peek == UInt8(ascii: ",") { reader.i += 1 }
            }
            // `normalize` fills the new address key from an old one when it is missing.
            guard reader.peek == UInt8(ascii: "}"), seen.new || !seen.old else { return false }
            siblings.endObject(keep: true)
            reader.i += 1
            switch reader.peek {
            case UInt8(ascii: ","): reader.i += 1
            case UInt8(ascii: "]"): return true
            default: return false
            }
        }
    }

    /// One member of a list entry, checked: what its key is to the contract.
    private struct CheckedMember: RepeatableMember {
        enum Kind { case number, newAddress, oldAddress, other }
        var text: Range<Int>
        var keyLength: Int
        var kind: Kind

        func shifted(by offset: Int) -> CheckedMember {
            CheckedMember(text: text.shifted(by: offset), keyLength: keyLength, kind: kind)
        }
    }

    /// Which address keys a list entry has.
    private struct AddressesSeen {
        var new = false, old = false

        mutating func note(_ kind: CheckedMember.Kind) {
            switch kind {
            case .newAddress: new = true
            case .oldAddress: old = true
            case .number, .other: break
            }
        }
    }

    /// Reads a list entry's key and its colon; nil at broken text.
    private static func readKey(_ reader: inout JSONSkim.Reader, _ keys: ListKeys) -> CheckedMember.Kind? {
        let keyStart = reader.i + 1
        guard reader.skipString() else { return nil }
        let key = UnsafeBufferPointer(rebasing: reader.bytes[keyStart..<(reader.i - 1)])
        let head = ShortKey.head(of: key)
        reader.i += 1  // the colon
        if keys.numbers.contains(where: { $0.matches(key, head) }) { return .number }
        if keys.new?.matches(key, head) == true { return .newAddress }
        if keys.old.contains(where: { $0.matches(key, head) }) { return .oldAddress }
        return .other
    }

    /// Passes over a member's value; false when a number member holds
    /// anything but a number or null.
    private static func checkValue(_ reader: inout JSONSkim.Reader, of kind: CheckedMember.Kind) -> Bool {
        guard let first = reader.peek else { return false }
        if kind == .number {
            guard first == UInt8(ascii: "-") || first == UInt8(ascii: "n")
                || (first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9")) else { return false }
        }
        return reader.skipValue()
    }

    /// The keys `isContractList` looks at in each list: its number members
    /// (`listNumbers`), and the address key `normalize` fills from the old
    /// ones when it is missing.
    private struct ListKeys {
        let numbers: [ShortKey]
        let new: ShortKey?
        let old: [ShortKey]
    }

    private static let contractListKeys: [String: ListKeys] = Dictionary(uniqueKeysWithValues: listNumbers.map { list, numbers in
        let addresses: (new: String?, old: [String]) = switch list {
        case "bleScans": ("address", ["uuid", "bssid"])
        case "wifiScans": ("mac", ["bssid"])
        default: (nil, [])
        }
        return (list, ListKeys(numbers: numbers.map(ShortKey.init), new: addresses.new.map(ShortKey.init),
                               old: addresses.old.map(ShortKey.init)))
    })

    /// A key compared by its length and first 8 bytes as one word (the
    /// keys of list entries are short), the rest byte by byte.
    private struct ShortKey {
        let bytes: [UInt8]
        let head: UInt64

        init(_ key: String) {
            bytes = Array(key.utf8)
            head = bytes.withUnsafeBufferPointer { Self.head(of: $0) }
        }

        static func head(of key: UnsafeBufferPointer<UInt8>) -> UInt64 {
            var word: UInt64 = 0
            for k in 0..<min(key.count, 8) { word |= UInt64(key[k]) << (8 * UInt64(k)) }
            return word
        }

        /// Whether `key`, whose `head(of:)` is `keyHead`, is this key.
        func matches(_ key: UnsafeBufferPointer<UInt8>, _ keyHead: UInt64) -> Bool {
            guard keyHead == head, key.count == bytes.count else { return false }
            return bytes.count <= 8 || bytes[8...].elementsEqual(key[8...])
        }
    }

    /// A string value without escapes, as text; nil for anything else.
    static func plainString(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String? {
        guard range.count >= 2, bytes[range.lowerBound] == UInt8(ascii: "\"") else { return nil }
        let inner = UnsafeBufferPointer(rebasing: bytes[(range.lowerBound + 1)..<(range.upperBound - 1)])
        guard !inner.contains(UInt8(ascii: "\\")) else { return nil }
        return String(decoding: inner, as: UTF8.self)
    }

    private static func integer(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int64? {
        Int64(String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self))
    }

    private static func double(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Double? {
        let first = bytes[range.lowerBound]
        guard first == UInt8(ascii: "-") || (first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9")) else { return nil }
        return Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self))
    }

    /// The text `bytes` make without their member at `removed` (with the
    /// comma before it, or after it when it is first), and the other
    /// members' ranges moved to match. Taking a member out of canonical text
    /// leaves canonical text.
    private static func text(of bytes: UnsafeBufferPointer<UInt8>, without removed: Int, of members: [JSONSkim.Member])
        -> (text: [UInt8], members: [JSONSkim.Member])
    {
        let member = members[removed].text
        let cut: Range<Int>
        if members.count == 1 {
            cut = member
        } else if removed == 0 {
            cut = member.lowerBound..<(member.upperBound + 1)  // and the comma after it
        } else {
            cut = (member.lowerBound - 1)..<member.upperBound  // and the comma before it
        }
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count - cut.count)
        text.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[..<cut.lowerBound]))
        text.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[cut.upperBound...]))
        var kept = members
        kept.remove(at: removed)
        for k in kept.indices where kept[k].text.lowerBound >= cut.upperBound {
            kept[k].text = (kept[k].text.lowerBound - cut.count)..<(kept[k].text.upperBound - cut.count)
            kept[k].node.value = (kept[k].node.value.lowerBound - cut.count)..<(kept[k].node.value.upperBound - cut.count)
        }
        return (text, kept)
    }
}

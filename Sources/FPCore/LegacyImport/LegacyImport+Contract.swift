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
    static func contractDocument(_ line: Line) -> NewDocument? {
        contractDocument(line.held, rowID: line.id)
    }

    static func contractDocument(_ text: [UInt8], rowID: String? = nil) -> NewDocument? {
        guard text.withUnsafeBytes(namesSchemaVersion) else { return nil }
        return text.withUnsafeBufferPointer { bytes -> NewDocument? in
            guard let members = contractMembers(bytes) else { return nil }
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
                default: continue  // the lists were checked with the text (`contractMembers`)
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

    /// The members of a line whose text is canonical (`JSONSkim`'s
    /// judgement, with no white space around it either), its lists checked
    /// for the contract as they are read (`contractListCount`); nil for
    /// anything else.
    private static func contractMembers(_ bytes: UnsafeBufferPointer<UInt8>) -> [JSONSkim.Member]? {
        var reader = JSONSkim.Reader(bytes: bytes, i: 0, end: bytes.count)
        guard reader.peek == UInt8(ascii: "{") else { return nil }
        reader.i += 1
        var members: [JSONSkim.Member] = []
        if reader.peek == UInt8(ascii: "}") { return bytes.count == 2 ? members : nil }
        var previousKey: Range<Int>? = nil
        while true {
            let start = reader.i
            guard let key = reader.plainCanonicalString(), reader.peek == UInt8(ascii: ":") else { return nil }
            if let previousKey, !reader.precedes(previousKey, key) { return nil }
            previousKey = key
            reader.i += 1
            let name = String(decoding: UnsafeBufferPointer(rebasing: bytes[key]), as: UTF8.self)
            let valueStart = reader.i
            let count: Int
            if let list = contractListKeys[name] {
                guard let entries = contractListCount(list, &reader) else { return nil }
                count = entries
            } else {
                guard let checked = reader.check(depth: 1), checked.canonical else { return nil }
                count = checked.count
            }
            let node = JSONSkim.Node(value: valueStart..<reader.i, isCanonical: true, count: count)
            members.append(JSONSkim.Member(key: name, text: start..<reader.i, node: node))
            switch reader.peek {
            case UInt8(ascii: ","): reader.i += 1
            case UInt8(ascii: "}"): return reader.i + 1 == bytes.count ? members : nil
            default: return nil
            }
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

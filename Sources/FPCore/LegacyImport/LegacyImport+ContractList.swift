extension LegacyImport {
    /// How many entries a list (`bleScans`, …) of a contract line holds,
    /// checked in one pass for both things the shortcut needs: that its
    /// text is canonical (as `JSONSkim` judges it) and that it is what
    /// `normalize` leaves unchanged: an array of objects whose number
    /// members are numbers or null, with BLE and Wi-Fi entries carrying
    /// `address` and `mac` where they carry `uuid` or `bssid`. nil for
    /// anything else. The lists are nearly all of a walk document's bytes:
    /// reading them once, not once per question, took a fifth of an
    /// import's CPU away.
    ///
    /// A member repeating the previous entry's member byte for byte passed
    /// both checks before (`SiblingMembers`); only its key order against
    /// the member before it is looked at again.
    static func contractListCount(_ list: ListKeys, _ reader: inout JSONSkim.Reader) -> Int? {
        guard reader.peek == UInt8(ascii: "[") else { return nil }
        reader.i += 1
        if reader.peek == UInt8(ascii: "]") { reader.i += 1; return 0 }
        var siblings = SiblingMembers<CheckedMember>(kept: true)
        var entries = 0
        while true {
            guard reader.peek == UInt8(ascii: "{") else { return nil }
            reader.i += 1
            siblings.startObject()
            guard contractEntry(list, &reader, &siblings) else { return nil }
            siblings.endObject(keep: true)
            entries += 1
            switch reader.peek {
            case UInt8(ascii: ","): reader.i += 1
            case UInt8(ascii: "]"): reader.i += 1; return entries
            default: return nil
            }
        }
    }

    /// One list entry from after its `{` to after its `}`: canonical, and
    /// left unchanged by `normalize`.
    private static func contractEntry(_ list: ListKeys, _ reader: inout JSONSkim.Reader,
                                      _ siblings: inout SiblingMembers<CheckedMember>) -> Bool {
        var seen = AddressesSeen()
        var previousKey: Range<Int>? = nil
        // While every member so far has the key of the earlier entry's member at its place, keys
        // taken from the earlier entry are in order: its own were checked.
        var aligned = true
        var count = 0
        if reader.peek == UInt8(ascii: "}") { reader.i += 1; return true }
        while true {
            let earlier = siblings.previous
            let repeated = count < earlier.count ? reader.repeated(earlier, from: count) : (run: 0, sameKey: false)
            if repeated.run > 0 {
                let passed = reader.passRun(repeated.run, of: earlier, from: count, into: &siblings)
                if !aligned, let previousKey, !reader.precedes(previousKey, passed.first.key) { return false }
                previousKey = passed.last.key
                for member in earlier[count..<(count + repeated.run)] { seen.note(member.kind) }
                count += repeated.run
            } else {
                let start = reader.i
                let key: Range<Int>
                let kind: CheckedMember.Kind
                if repeated.sameKey {
                    // The key of the member before at this place: only the value is read.
                    key = earlier[count].key.shifted(by: start - earlier[count].text.lowerBound)
                    kind = earlier[count].kind
                    reader.i = key.upperBound + 2
                } else {
                    guard let read = reader.plainCanonicalString(), reader.peek == UInt8(ascii: ":") else { return false }
                    key = read
                    kind = list.kind(of: UnsafeBufferPointer(rebasing: reader.bytes[key]))
                    reader.i += 1
                    aligned = false
                }
                // Canonical keys are strictly increasing by their bytes.
                if !aligned, let previousKey, !reader.precedes(previousKey, key) { return false }
                previousKey = key
                guard isContractValue(&reader, of: kind) else { return false }
                siblings.record(CheckedMember(text: start..<reader.i, key: key, kind: kind))
                seen.note(kind)
                count += 1
            }
            switch reader.peek {
            case UInt8(ascii: ","):
                reader.i += 1
            case UInt8(ascii: "}"):
                reader.i += 1
                // `normalize` fills the new address key from an old one when it is missing.
                return seen.new || !seen.old
            default: return false
            }
        }
    }

    /// A member's value, canonical; for a number member, a number or null.
    private static func isContractValue(_ reader: inout JSONSkim.Reader, of kind: CheckedMember.Kind) -> Bool {
        guard let first = reader.peek else { return false }
        if kind == .number {
            guard first == UInt8(ascii: "-") || first == UInt8(ascii: "n")
                || (first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9")) else { return false }
        }
        // Lists are members of the document: their entries' values are three levels down.
        return reader.check(depth: 3)?.canonical == true
    }

    /// One member of a list entry, checked: what its key is to the contract.
    fileprivate struct CheckedMember: RepeatableMember {
        enum Kind { case number, newAddress, oldAddress, other }
        var text: Range<Int>
        /// The key's bytes, without quotes.
        var key: Range<Int>
        var kind: Kind

        var keyLength: Int { key.count + 3 }

        func shifted(by offset: Int) -> CheckedMember {
            CheckedMember(text: text.shifted(by: offset), key: key.shifted(by: offset), kind: kind)
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

    /// The keys `contractListCount` looks at in each list: its number
    /// members (`listNumbers`), and the address key `normalize` fills from
    /// the old ones when it is missing.
    struct ListKeys {
        let numbers: [ShortKey]
        let new: ShortKey?
        let old: [ShortKey]

        fileprivate func kind(of key: UnsafeBufferPointer<UInt8>) -> CheckedMember.Kind {
            let head = ShortKey.head(of: key)
            if numbers.contains(where: { $0.matches(key, head) }) { return .number }
            if new?.matches(key, head) == true { return .newAddress }
            if old.contains(where: { $0.matches(key, head) }) { return .oldAddress }
            return .other
        }
    }

    static let contractListKeys: [String: ListKeys] = Dictionary(uniqueKeysWithValues: listNumbers.map { list, numbers in
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
    struct ShortKey {
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
}

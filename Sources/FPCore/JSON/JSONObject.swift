import Foundation

/// A JSON object: its members sorted by the UTF-8 bytes of their keys, each
/// key once.
///
/// Sorted storage is the canonical order, so `CanonicalJSON` writes members
/// as they are (no sort per write), canonical text parses into it without
/// hashing a key (the parser only checks the order), and equality does not
/// depend on how the object was built. Documents have a few dozen keys at
/// most: lookups scan or bisect a short array.
public struct JSONObject: Sendable {
    public typealias Member = (key: String, value: JSONValue)

    /// Sorted by `precedes`, keys unique.
    public private(set) var members: [Member]

    public init() { members = [] }

    public init(_ dictionary: [String: JSONValue]) {
        members = dictionary.sorted { Self.precedes($0.key, $1.key) }
    }

    /// Members in any order; of a repeated key the last one counts (as in CouchDB).
    public init(members unordered: [Member]) {
        var ordered = true
        for k in unordered.indices.dropFirst() where !Self.precedes(unordered[k - 1].key, unordered[k].key) {
            ordered = false
            break
        }
        guard !ordered else {
            members = unordered
            return
        }
        // A stable sort keeps repeated keys in input order; the last of each run wins.
        let sorted = unordered.enumerated().sorted { a, b in
            Self.precedes(a.element.key, b.element.key) || (a.element.key == b.element.key && a.offset < b.offset)
        }
        members = []
        members.reserveCapacity(sorted.count)
        for (_, member) in sorted {
            if let last = members.last, last.key == member.key {
                members[members.count - 1] = member
            } else {
                members.append(member)
            }
        }
    }

    /// The canonical key order: UTF-8 bytes, shorter prefix first. Compared
    /// with memcmp over the strings' own bytes where they have them (native
    /// and small strings): the generic sequence comparison was a tenth of
    /// `fprint import`'s time, every member lookup going through it.
    @inline(__always)
    public static func precedes(_ a: String, _ b: String) -> Bool {
        let fast = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y in
                let n = Swift.min(x.count, y.count)
                let order = n == 0 ? 0 : memcmp(x.baseAddress!, y.baseAddress!, n)
                return order != 0 ? order < 0 : x.count < y.count
            }
        }
        if let known = fast ?? nil { return known }
        return a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }
    public var keys: [String] { members.map(\.key) }
    public var values: [JSONValue] { members.map(\.value) }

    /// Where `key` is, or where it would be inserted.
    private func position(of key: String) -> (index: Int, found: Bool) {
        if members.count <= 8 {
            for (index, member) in members.enumerated() {
                if member.key == key { return (index, true) }
                if Self.precedes(key, member.key) { return (index, false) }
            }
            return (members.count, false)
        }
        var low = 0, high = members.count
        while low < high {
            let mid = (low + high) / 2
            if Self.precedes(members[mid].key, key) { low = mid + 1 } else { high = mid }
        }
        return (low, low < members.count && members[low].key == key)
    }

    public subscript(key: String) -> JSONValue? {
        get {
            // Not `found ? value : nil`: JSONValue is ExpressibleByNilLiteral, so
            // that `nil` would be a present `.null` rather than an absent key.
            let (index, found) = position(of: key)
            guard found else { return Optional.none }
            return members[index].value
        }
        set {
            let (index, found) = position(of: key)
            switch (found, newValue) {
            case (true, .some(let value)): members[index].value = value
            case (true, .none): members.remove(at: index)
            case (false, .some(let value)): members.insert((key, value), at: index)
            case (false, .none): break
            }
        }
    }

    @discardableResult
    public mutating func removeValue(forKey key: String) -> JSONValue? {
        let old = self[key]
        self[key] = nil
        return old
    }

    public func mapValues(_ transform: (JSONValue) throws -> JSONValue) rethrows -> JSONObject {
        var copy = self
        for index in copy.members.indices { copy.members[index].value = try transform(copy.members[index].value) }
        return copy
    }

    /// The members `isIncluded` accepts, still an object.
    public func filter(_ isIncluded: (Member) throws -> Bool) rethrows -> JSONObject {
        var copy = JSONObject()
        copy.members = try members.filter(isIncluded)
        return copy
    }

    public var dictionary: [String: JSONValue] {
        Dictionary(members.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
    }
}

extension JSONObject: Sequence {
    public func makeIterator() -> IndexingIterator<[Member]> { members.makeIterator() }
    public var underestimatedCount: Int { members.count }
}

extension JSONObject: Equatable, Hashable {
    public static func == (a: JSONObject, b: JSONObject) -> Bool {
        a.members.count == b.members.count && a.members.elementsEqual(b.members) { $0.key == $1.key && $0.value == $1.value }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(members.count)
        for member in members {
            hasher.combine(member.key)
            hasher.combine(member.value)
        }
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(members: elements.map { (key: $0.0, value: $0.1) })
    }
}

extension JSONObject: Codable {
    public init(from decoder: any Decoder) throws {
        self.init(try [String: JSONValue](from: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        try dictionary.encode(to: encoder)
    }
}

/// Encodes a Codable value straight into a `JSONValue` tree, without going
/// through JSON text: the measurement engine hashes and stores documents it
/// builds, and a text round trip would double that cost.
public struct JSONValueEncoder: Sendable {
    public init() {}

    public func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        let box = Box()
        try value.encode(to: ValueEncoder(box: box, codingPath: []))
        return box.value ?? .null
    }
}

/// A type that builds its `JSONValue` itself, bypassing the Codable machinery
/// (several allocations per value). Only for values that come by the
/// thousand — one per BLE report — and a test pins each to its Codable form.
public protocol DirectJSONEncodable: Encodable {
    var jsonValue: JSONValue { get }
}

/// A list of such values (a document's `bleScans`) skips the Codable walk too.
extension Array: DirectJSONEncodable where Element: DirectJSONEncodable {
    public var jsonValue: JSONValue { .array(map(\.jsonValue)) }
}

/// Holds the value one encoder level produces; nested containers write back into it.
private class Box {
    var value: JSONValue?
    init(_ value: JSONValue? = nil) { self.value = value }
}

private struct ValueEncoder: Encoder {
    let box: Box
    var codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if box.value == nil { box.value = .object([:]) }
        return KeyedEncodingContainer(KeyedBoxContainer<Key>(box: box, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if box.value == nil { box.value = .array([]) }
        return UnkeyedBoxContainer(box: box, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleBoxContainer(box: box, codingPath: codingPath)
    }
}

/// Encodes one nested value and returns what it produced.
private func encodeNested<T: Encodable>(_ value: T, path: [any CodingKey]) throws -> JSONValue {
    if let v = value as? JSONValue { return v }
    if let direct = value as? any DirectJSONEncodable { return direct.jsonValue }
    let box = Box()
    try value.encode(to: ValueEncoder(box: box, codingPath: path))
    return box.value ?? .object([:])
}

private struct KeyedBoxContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let box: Box
    var codingPath: [any CodingKey]

    private func set(_ v: JSONValue, _ key: Key) { box.value?[key.stringValue] = v }

    mutating func encodeNil(forKey key: Key) throws { set(.null, key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { set(.bool(value), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { set(.string(value), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { set(.double(value), key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { set(.double(Double(value)), key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { set(.int(Int64(value)), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { set(.int(Int64(value)), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { set(.int(Int64(value)), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { set(.int(Int64(value)), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { set(.int(value), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { set(.int(Int64(value)), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { set(.int(Int64(value)), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { set(.int(Int64(value)), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { set(.int(Int64(value)), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { set(.int(Int64(clamping: value)), key) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        set(try encodeNested(value, path: codingPath + [key]), key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        KeyedEncodingContainer(
            KeyedBoxContainer<NestedKey>(box: LinkedBox(parent: box, key: key.stringValue, initial: .object([:])), codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        UnkeyedBoxContainer(box: LinkedBox(parent: box, key: key.stringValue, initial: .array([])), codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder { ValueEncoder(box: box, codingPath: codingPath) }
    mutating func superEncoder(forKey key: Key) -> any Encoder {
        ValueEncoder(box: LinkedBox(parent: box, key: key.stringValue, initial: nil), codingPath: codingPath + [key])
    }
}

/// A box whose every change is copied into a key of its parent object.
private final class LinkedBox: Box {
    let parent: Box
    let key: String
    init(parent: Box, key: String, initial: JSONValue?) {
        self.parent = parent
        self.key = key
        super.init(initial)
        parent.value?[key] = initial ?? .null
    }
    override var value: JSONValue? {
        didSet { parent.value?[key] = value ?? .null }
    }
}

private struct UnkeyedBoxContainer: UnkeyedEncodingContainer {
    let box: Box
    var codingPath: [any CodingKey]
    var count: Int { box.value?.arrayValue?.count ?? 0 }

    private func append(_ v: JSONValue) {
        guard case .array(var a) = box.value else { return }
        // Drop the box's reference first so the append happens in place: otherwise
        // every element copies the whole array (quadratic for 10,000s of BLE reports).
        if type(of: box) == Box.self { box.value = nil }
        a.append(v)
        box.value = .array(a)
    }

    mutating func encodeNil() throws { append(.null) }
    mutating func encode(_ value: Bool) throws { append(.bool(value)) }
    mutating func encode(_ value: String) throws { append(.string(value)) }
    mutating func encode(_ value: Double) throws { append(.double(value)) }
    mutating func encode(_ value: Int) throws { append(.int(Int64(value))) }
    mutating func encode(_ value: Int64) throws { append(.int(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        append(try encodeNested(value, path: codingPath))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let index = count
        append(.object([:]))
        return KeyedEncodingContainer(KeyedBoxContainer<NestedKey>(box: IndexedBox(parent: box, index: index, initial: .object([:])), codingPath: codingPath))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let index = count
        append(.array([]))
        return UnkeyedBoxContainer(box: IndexedBox(parent: box, index: index, initial: .array([])), codingPath: codingPath)
    }

    mutating func superEncoder() -> any Encoder {
        let index = count
        append(.null)
        return ValueEncoder(box: IndexedBox(parent: box, index: index, initial: nil), codingPath: codingPath)
    }
}

/// A box whose every change is copied into an element of its parent array.
private final class IndexedBox: Box {
    let parent: Box
    let index: Int
    init(parent: Box, index: Int, initial: JSONValue?) {
        self.parent = parent
        self.index = index
        super.init(initial)
    }
    override var value: JSONValue? {
        didSet {
            guard case .array(var a) = parent.value, index < a.count else { return }
            a[index] = value ?? .null
            parent.value = .array(a)
        }
    }
}

private struct SingleBoxContainer: SingleValueEncodingContainer {
    let box: Box
    var codingPath: [any CodingKey]

    mutating func encodeNil() throws { box.value = .null }
    mutating func encode(_ value: Bool) throws { box.value = .bool(value) }
    mutating func encode(_ value: String) throws { box.value = .string(value) }
    mutating func encode(_ value: Double) throws { box.value = .double(value) }
    mutating func encode(_ value: Float) throws { box.value = .double(Double(value)) }
    mutating func encode(_ value: Int) throws { box.value = .int(Int64(value)) }
    mutating func encode(_ value: Int8) throws { box.value = .int(Int64(value)) }
    mutating func encode(_ value: Int16) throws { box.value = .int(Int64(value)) }
    mutating func encode(_ value: Int32) throws { box.value = .int(Int64(value)) }
    mutating func encode(_ value: Int64) throws { box.value = .int(value) }
    mutating func encode(_ value: UInt) throws { box.value = .int(Int64(value)) }
    mutating func encode(_ value: UInt8) throws { box.value = .int(Int64(value)) }
    mutating func encode(_ value: UInt16) throws { box.value = .int(Int64(value)) }
    mutating func encode(_ value: UInt32) throws { box.value = .int(Int64(value)) }
    mutating func encode(_ value: UInt64) throws { box.value = .int(Int64(clamping: value)) }
    mutating func encode<T: Encodable>(_ value: T) throws { box.value = try encodeNested(value, path: codingPath) }
}

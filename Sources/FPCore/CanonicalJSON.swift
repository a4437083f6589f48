import Foundation

/// The one byte-exact serialisation of a JSON value: keys sorted by their
/// UTF-8 bytes, no white space, whole numbers without a fraction. Revision ids
/// hash this form, so two equal documents always get the same revision.
public enum CanonicalJSON {
    public static func string(_ value: JSONValue) -> String {
        var out = [UInt8]()
        out.reserveCapacity(1024)
        write(value, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    public static func data(_ value: JSONValue) -> Data {
        var out = [UInt8]()
        out.reserveCapacity(1024)
        write(value, into: &out)
        return Data(out)
    }

    /// Parses JSON text into a value; numbers without fraction or exponent stay integers.
    public static func parse(_ data: Data) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: data)
    }

    public static func parse(_ text: String) throws -> JSONValue {
        try parse(Data(text.utf8))
    }

    /// Encodes any Codable value into a JSONValue tree.
    public static func value<T: Encodable>(of encodable: T) throws -> JSONValue {
        let data = try JSONEncoder().encode(encodable)
        return try parse(data)
    }

    /// Decodes a Codable type from a JSONValue tree.
    public static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try JSONDecoder().decode(type, from: data(value))
    }

    static func write(_ value: JSONValue, into out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: Array("null".utf8))
        case .bool(let b): out.append(contentsOf: Array((b ? "true" : "false").utf8))
        case .int(let i): out.append(contentsOf: Array(String(i).utf8))
        case .double(let d): writeNumber(d, into: &out)
        case .string(let s): writeString(s, into: &out)
        case .array(let a):
            out.append(UInt8(ascii: "["))
            for (i, v) in a.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                write(v, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let o):
            out.append(UInt8(ascii: "{"))
            let keys = o.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            for (i, k) in keys.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                writeString(k, into: &out)
                out.append(UInt8(ascii: ":"))
                write(o[k]!, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    static func writeNumber(_ d: Double, into out: inout [UInt8]) {
        guard d.isFinite else {  // JSON has no NaN/Infinity; null is what CouchDB stores for them
            out.append(contentsOf: Array("null".utf8))
            return
        }
        if d.rounded() == d && abs(d) < 9.0e15 {
            out.append(contentsOf: Array(String(Int64(d)).utf8))
        } else {
            out.append(contentsOf: Array(d.description.utf8))
        }
    }

    static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\""): out.append(contentsOf: [92, 34])
            case UInt8(ascii: "\\"): out.append(contentsOf: [92, 92])
            case 0x0A: out.append(contentsOf: [92, UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [92, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [92, UInt8(ascii: "t")])
            case 0x08: out.append(contentsOf: [92, UInt8(ascii: "b")])
            case 0x0C: out.append(contentsOf: [92, UInt8(ascii: "f")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [92, UInt8(ascii: "u"), 48, 48, hex[Int(b >> 4)], hex[Int(b & 15)]])
            default: out.append(b)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

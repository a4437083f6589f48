import FPHex
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
        Data(bytes(value))
    }

    /// The canonical form as UTF-8 bytes (what the store hashes and compresses).
    public static func bytes(_ value: JSONValue) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(1024)
        write(value, into: &out)
        return out
    }

    /// Parses JSON text into a value; numbers without fraction or exponent stay integers.
    public static func parse(_ data: Data) throws(JSONParseError) -> JSONValue {
        try JSONParser.parse([UInt8](data))
    }

    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try JSONParser.parse(Array(text.utf8))
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

    private static let nullBytes: [UInt8] = Array("null".utf8)
    private static let trueBytes: [UInt8] = Array("true".utf8)
    private static let falseBytes: [UInt8] = Array("false".utf8)

    /// Appends the canonical form of `value` to `out` (for writers that
    /// assemble larger JSON texts around stored ones).
    public static func write(_ value: JSONValue, into out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: nullBytes)
        case .bool(let b): out.append(contentsOf: b ? trueBytes : falseBytes)
        case .int(let i): writeInteger(i, into: &out)
        case .double(let d): writeNumber(d, into: &out)
        case .numberText(let text): out.append(contentsOf: text.utf8)
        case .string(let s): writeString(s, into: &out)
        case .array(let a):
            out.append(UInt8(ascii: "["))
            var first = true
            for v in a {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                write(v, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let o):
            out.append(UInt8(ascii: "{"))
            var first = true
            for (k, v) in o.members {  // already in canonical order
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                writeString(k, into: &out)
                out.append(UInt8(ascii: ":"))
                write(v, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Decimal digits without going through String.
    static func writeInteger(_ i: Int64, into out: inout [UInt8]) {
        if i == 0 { out.append(UInt8(ascii: "0")); return }
        if i == .min { out.append(contentsOf: Array(String(i).utf8)); return }
        var v = i < 0 ? -i : i
        if i < 0 { out.append(UInt8(ascii: "-")) }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var n = 0
        withUnsafeMutableBytes(of: &digits) { buf in
            while v > 0 {
                buf[n] = UInt8(ascii: "0") + UInt8(v % 10)
                v /= 10
                n += 1
            }
            for k in stride(from: n - 1, through: 0, by: -1) { out.append(buf[k]) }
        }
    }

    /// Whether `token` is exactly the text `writeNumber` makes of `d`.
    static func isCanonicalText(_ token: some Collection<UInt8>, of d: Double) -> Bool {
        var written: [UInt8] = []
        writeNumber(d, into: &written)
        return written.elementsEqual(token)
    }

    static func writeNumber(_ d: Double, into out: inout [UInt8]) {
        guard d.isFinite else {  // JSON has no NaN/Infinity; null is what CouchDB stores for them
            out.append(contentsOf: nullBytes)
            return
        }
        if d.rounded() == d && abs(d) < 9.0e15 {
            writeInteger(Int64(d), into: &out)
        } else {
            out.append(contentsOf: d.description.utf8)
        }
    }

    static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { bytes in
            // Copy runs that need no escaping in one go.
            var runStart = 0
            for (k, b) in bytes.enumerated() where b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<k]))
                runStart = k + 1
                switch b {
                case UInt8(ascii: "\""): out.append(contentsOf: [92, 34])
                case UInt8(ascii: "\\"): out.append(contentsOf: [92, 92])
                case 0x0A: out.append(contentsOf: [92, UInt8(ascii: "n")])
                case 0x0D: out.append(contentsOf: [92, UInt8(ascii: "r")])
                case 0x09: out.append(contentsOf: [92, UInt8(ascii: "t")])
                case 0x08: out.append(contentsOf: [92, UInt8(ascii: "b")])
                case 0x0C: out.append(contentsOf: [92, UInt8(ascii: "f")])
                default:
                    out.append(contentsOf: [92, UInt8(ascii: "u"), 48, 48, Hex.lowerDigits[Int(b >> 4)], Hex.lowerDigits[Int(b & 15)]])
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
        }
        out.append(UInt8(ascii: "\""))
    }
}

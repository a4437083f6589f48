import Foundation

/// ISO-8601 UTC timestamps with milliseconds (`2026-11-22T06:21:43.123Z`),
/// the one time format of fprint documents.
public enum ISOTime {
    public static func string(_ date: Date) -> String {
        let ms = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        return string(millisecondsSince1970: ms)
    }

    public static func string(millisecondsSince1970 ms: Int64) -> String {
        let seconds = ms >= 0 ? ms / 1000 : (ms - 999) / 1000
        let millis = ms - seconds * 1000
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        // Digits by hand: `String(format:)` goes through Foundation's
        // formatter and dynamic casts, and every stored measurement calls this.
        var out: [UInt8] = []
        out.reserveCapacity(24)
        func digits(_ value: Int, _ width: Int) {
            var value = value
            if value < 0 {
                out.append(UInt8(ascii: "-"))
                value = -value
            }
            let text = Array(String(value).utf8)
            if text.count < width { out += repeatElement(UInt8(ascii: "0"), count: width - text.count) }
            out += text
        }
        digits(Int(parts.tm_year) + 1900, 4)
        out.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mon) + 1, 2)
        out.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mday), 2)
        out.append(UInt8(ascii: "T"))
        digits(Int(parts.tm_hour), 2)
        out.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_min), 2)
        out.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_sec), 2)
        out.append(UInt8(ascii: "."))
        digits(Int(millis), 3)
        out.append(UInt8(ascii: "Z"))
        return String(decoding: out, as: UTF8.self)
    }

    /// Parses ISO-8601 with or without fraction, with `Z` or a ±hh:mm offset.
    public static func parse(_ text: String) -> Date? {
        let full = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        if let d = try? full.parse(text) { return d }
        let plain = Date.ISO8601FormatStyle()
        return try? plain.parse(text)
    }

    /// Milliseconds since 1970 of an ISO string, for sortable index columns.
    public static func milliseconds(_ text: String) -> Int64? {
        parse(text).map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }
    }
}

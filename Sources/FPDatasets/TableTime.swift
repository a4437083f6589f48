import Foundation

/// How a table's time column is written. `auto` tells them apart by the
/// text: 14 or 17 digits starting 19/20 with a valid date are local
/// `yyyyMMddHHmmss[SSS]` (the UJI long-term `tms` files), any other number
/// is Unix time whose unit its size gives (< 10¹¹ s, < 10¹⁴ ms, < 10¹⁷ µs,
/// else ns: pandas writes nanoseconds as `1.627997452227e+18`).
package enum TimeUnit: String, Sendable, CaseIterable {
    case auto, s, ms, us, ns, compact
}

/// Reads time cells into ms since 1970 (UTC).
package struct TableTime: Sendable {
    package var unit: TimeUnit
    /// For `compact` local times.
    package var timeZone: TimeZone

    package init(unit: TimeUnit = .auto, timeZone: TimeZone = .current) {
        self.unit = unit
        self.timeZone = timeZone
    }

    /// The cell's time, or nil with the reason. The text is read, not its
    /// double: 17 digits do not fit a double's 53 bits.
    package func milliseconds(_ text: String) -> Result<Int64, TimeFailure> {
        let t = text.trimmingCharacters(in: .whitespaces)
        let compact = Self.compactFields(t)
        switch unit {
        case .compact:
            guard let compact else { return .failure(.init("not a time yyyyMMddHHmmss[SSS]")) }
            return .success(local(compact))
        case .auto where compact != nil:
            return .success(local(compact!))
        default:
            guard let value = Double(t), value.isFinite else { return .failure(.init("not a time (a number or yyyyMMddHHmmss[SSS])")) }
            let magnitude = abs(value)
            let perMs: Double
            switch unit {
            case .s: perMs = 1e-3
            case .ms: perMs = 1
            case .us: perMs = 1e3
            case .ns: perMs = 1e6
            default: perMs = magnitude < 1e11 ? 1e-3 : magnitude < 1e14 ? 1 : magnitude < 1e17 ? 1e3 : 1e6
            }
            // To the µs first: 1.627997452227e+18 ns / 10⁶ is 1627997452226.9998 in binary.
            let ms = ((value / perMs * 1000).rounded() / 1000).rounded(.down)
            guard abs(ms) < 1e15 else { return .failure(.init("a time beyond the year 30,000")) }
            return .success(Int64(ms))
        }
    }

    package struct TimeFailure: Error, Equatable {
        package let reason: String
        package init(_ reason: String) { self.reason = reason }
    }

    struct Fields: Equatable {
        var year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, ms: Int
    }

    /// `yyyyMMddHHmmss` or `yyyyMMddHHmmssSSS` with a valid date and time, else nil.
    static func compactFields(_ t: String) -> Fields? {
        let b = Array(t.utf8)
        guard b.count == 14 || b.count == 17, b.allSatisfy({ $0 >= 48 && $0 <= 57 }),
            b[0] == UInt8(ascii: "1") && b[1] == UInt8(ascii: "9") || b[0] == UInt8(ascii: "2") && b[1] == UInt8(ascii: "0")
        else { return nil }
        func n(_ from: Int, _ count: Int) -> Int { b[from..<(from + count)].reduce(0) { $0 * 10 + Int($1 - 48) } }
        let f = Fields(year: n(0, 4), month: n(4, 2), day: n(6, 2), hour: n(8, 2), minute: n(10, 2), second: n(12, 2),
                       ms: b.count == 17 ? n(14, 3) : 0)
        guard (1...12).contains(f.month), (1...daysIn(f.month, f.year)).contains(f.day), f.hour < 24, f.minute < 60,
            f.second < 61
        else { return nil }
        return f
    }

    static func daysIn(_ month: Int, _ year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a civil date (proleptic Gregorian; H. Hinnant's algorithm).
    static func daysFromCivil(_ y0: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// A local wall-clock time in `timeZone` as UTC ms (an hour skipped or
    /// repeated at a DST change takes the offset in force just before it).
    func local(_ f: Fields) -> Int64 {
        let wall = Int64(Self.daysFromCivil(f.year, f.month, f.day)) * 86_400 + Int64(f.hour * 3600 + f.minute * 60 + f.second)
        let guess = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(wall)))
        let offset = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(wall - Int64(guess))))
        return (wall - Int64(offset)) * 1000 + Int64(f.ms)
    }
}

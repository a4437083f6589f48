import Foundation

/// The unit a figure's limit is written in. Limits are stored as written
/// ("5 Mbit/s", "10 min"), so the config reads as the user typed it; a
/// number without its unit is refused: "5" could be bit/s or Mbit/s.
package enum AlertUnit: Sendable {
    case rate
    case milliseconds
    case percent
    case dBm
    case duration
    case beacons

    /// Unit names and what one of each is in the base unit.
    var names: [(name: String, factor: Double)] {
        switch self {
        case .rate: [("Mbit/s", 1e6), ("kbit/s", 1e3), ("Gbit/s", 1e9), ("bit/s", 1)]
        case .milliseconds: [("ms", 1)]
        case .percent: [("%", 1)]
        case .dBm: [("dBm", 1)]
        case .duration: Self.durations
        case .beacons: [("beacons", 1), ("beacon", 1)]
        }
    }

    static let durations: [(name: String, factor: Double)] = [("s", 1000), ("min", 60_000), ("h", 3_600_000), ("d", 86_400_000)]

    /// "Mbit/s (or kbit/s, Gbit/s, bit/s)".
    var expected: String {
        let all = names.map(\.name)
        return all.count == 1 ? all[0] : "\(all[0]) (or \(all.dropFirst().joined(separator: ", ")))"
    }

    /// `text` ("5 Mbit/s", "-80dBm") in the base unit, or why not.
    package func parse(_ text: String) -> Result<Double, AlertRuleError> {
        Self.parse(text, names: names, expected: expected)
    }

    /// A hold time or silence ("10 min", "30 s") in ms.
    package static func parseDuration(_ text: String) -> Result<Int64, AlertRuleError> {
        switch parse(text, names: durations, expected: "s, min, h or d") {
        case .success(let ms) where ms >= 0: .success(Int64(ms.rounded()))
        case .success: .failure(AlertRuleError("a time must not be negative, found \"\(text)\""))
        case .failure(let e): .failure(e)
        }
    }

    private static func parse(_ text: String, names: [(name: String, factor: Double)], expected: String) -> Result<Double, AlertRuleError> {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let numberEnd = trimmed.firstIndex { !"+-.0123456789eE".contains($0) } ?? trimmed.endIndex
        let numberText = String(trimmed[..<numberEnd])
        let unitText = trimmed[numberEnd...].trimmingCharacters(in: .whitespaces)
        guard let number = Double(numberText), number.isFinite else {
            return .failure(AlertRuleError("expected a number and its unit \(expected), found \"\(text)\""))
        }
        guard !unitText.isEmpty else {
            return .failure(AlertRuleError("\"\(text)\" has no unit: write it with \(expected)"))
        }
        guard let unit = names.first(where: { $0.name == unitText }) else {
            return .failure(AlertRuleError("\"\(unitText)\" is not a unit here: write \(expected)"))
        }
        return .success(number * unit.factor)
    }

    /// A base-unit value as the user would write it.
    package func text(_ value: Double) -> String {
        switch self {
        case .rate: Self.trimmed(value / 1e6) + " Mbit/s"
        case .milliseconds: Self.trimmed(value) + " ms"
        case .percent: Self.trimmed(value) + " %"
        case .dBm: Self.trimmed(value) + " dBm"
        case .duration: Self.duration(Int64(value))
        case .beacons: Self.trimmed(value) + (value == 1 ? " beacon" : " beacons")
        }
    }

    /// "90 s", "10 min", "2 h", "1.5 d": the largest unit that gives a short number.
    package static func duration(_ ms: Int64) -> String {
        for (name, factor) in durations.reversed() where Double(ms) >= factor {
            return trimmed(Double(ms) / factor) + " " + name
        }
        return trimmed(Double(ms) / 1000) + " s"
    }

    /// The unit values are given in to people and in JSON (silence in seconds).
    package var shownUnit: String {
        switch self {
        case .rate: "Mbit/s"
        case .milliseconds: "ms"
        case .percent: "%"
        case .dBm: "dBm"
        case .duration: "s"
        case .beacons: "beacons"
        }
    }

    /// A base-unit value in `shownUnit`, to two decimals.
    package func shown(_ value: Double) -> Double {
        let v: Double = switch self {
        case .rate: value / 1e6
        case .duration: value / 1000
        default: value
        }
        return (v * 100).rounded() / 100
    }

    /// At most two decimals, none when whole.
    static func trimmed(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        return rounded == rounded.rounded() ? String(Int64(rounded)) : String(format: "%g", rounded)
    }
}

/// Why a rule cannot be read: one line, its place added by whoever knows it.
package struct AlertRuleError: Error, Sendable, Equatable, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

import FPAnalysis
import FPProbe
import Foundation

/// What a Network page address asks for: the figure (`metric`), the period
/// the chart gathers by (`by`) and a time range (`from`, `to`, local times
/// of the dashboard's zone, `2026-11-28` or `2026-11-28T14:00`), and the
/// links that change one of them and keep the others.
struct NetworkRequest {
    struct Refusal: Error {
        var message: String
    }

    var metric: ProbeMetric
    var by: TimeBucket
    /// From the start, up to (not including) the end; nil: all time.
    var range: DateInterval?
    var zone: TimeZone

    init(_ query: [String: String], zone: TimeZone) throws(Refusal) {
        self.zone = zone
        let metricText = query["metric"] ?? ProbeMetric.down.rawValue
        guard let metric = ProbeMetric(rawValue: metricText) else {
            throw Refusal(message: "metric \"\(metricText)\" is not one of "
                + ProbeMetric.allCases.map(\.rawValue).joined(separator: ", ") + ".")
        }
        let byText = query["by"] ?? TimeBucket.day.rawValue
        guard let by = TimeBucket(rawValue: byText) else {
            throw Refusal(message: "by \"\(byText)\" is not one of " + TimeBucket.allCases.map(\.rawValue).joined(separator: ", ") + ".")
        }
        (self.metric, self.by) = (metric, by)
        let from = try Self.time(query["from"], name: "from", zone: zone)
        let to = try Self.time(query["to"], name: "to", zone: zone)
        switch (from, to) {
        case (nil, nil): range = nil
        case (let from?, let to?):
            guard from < to else { throw Refusal(message: "from (\(query["from"]!)) must come before to (\(query["to"]!)).") }
            range = DateInterval(start: from, end: to)
        default: throw Refusal(message: "give both from and to, or neither (all time).")
        }
    }

    static func time(_ text: String?, name: String, zone: TimeZone) throws(Refusal) -> Date? {
        guard let text else { return nil }
        for pattern in ["yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd"] {
            if let date = formatter(pattern, zone).date(from: text) { return date }
        }
        throw Refusal(message: "\(name) \"\(text)\" is not a time: write 2026-11-28 or 2026-11-28T14:00 (\(zone.identifier)).")
    }

    static func formatter(_ pattern: String, _ zone: TimeZone) -> DateFormatter {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = zone
        f.dateFormat = pattern
        f.isLenient = false
        return f
    }

    static func format(_ date: Date, _ pattern: String, _ zone: TimeZone) -> String { formatter(pattern, zone).string(from: date) }

    func contains(_ date: Date) -> Bool {
        guard let range else { return true }
        return date >= range.start && date < range.end
    }

    /// "Times in Europe/Prague (UTC+01:00), the dashboard machine's time zone".
    var zoneCaption: String {
        let seconds = zone.secondsFromGMT(for: range?.start ?? Date())
        let offset = String(format: "UTC%@%02d:%02d", seconds < 0 ? "−" : "+", abs(seconds) / 3600, abs(seconds) % 3600 / 60)
        return "Times in \(zone.identifier) (\(offset)), the dashboard machine's time zone"
    }

    /// "Nov 28 2026, 00:00 to Nov 29 2026, 00:00" or "all time".
    var rangeText: String {
        guard let range else { return "all time" }
        let f = Self.formatter("MMM d yyyy, HH:mm", zone)
        return "\(f.string(from: range.start)) to \(f.string(from: range.end))"
    }

    /// A period in full for a tooltip: "Nov 28 2026 14:00–15:00", "Nov 28 2026", "week 2026-W48", "Nov 2026", "2026".
    func periodTitle(_ period: DateInterval, by: TimeBucket) -> String {
        switch by {
        case .hour: Self.format(period.start, "MMM d yyyy HH:mm", zone) + "–" + Self.format(period.end, "HH:mm", zone)
        case .day: Self.format(period.start, "EEE MMM d yyyy", zone)
        case .week: "week " + by.label(period.start, in: TimeBucket.calendar(zone))
        case .month: Self.format(period.start, "MMMM yyyy", zone)
        case .year: Self.format(period.start, "yyyy", zone)
        }
    }

    /// This page's address with some of its parameters changed.
    func href(metric: ProbeMetric? = nil, by: TimeBucket? = nil) -> String {
        link(metric ?? self.metric, by ?? self.by, range)
    }

    func href(by: TimeBucket? = nil, from: Date?, to: Date?) -> String {
        link(metric, by ?? self.by, from.flatMap { f in to.map { DateInterval(start: f, end: $0) } })
    }

    private func link(_ metric: ProbeMetric, _ by: TimeBucket, _ range: DateInterval?) -> String {
        var query = "?metric=\(metric.rawValue)&by=\(by.rawValue)"
        if let range {
            query += "&from=" + Self.format(range.start, "yyyy-MM-dd'T'HH:mm", zone) + "&to=" + Self.format(range.end, "yyyy-MM-dd'T'HH:mm", zone)
        }
        return query
    }
}

import Foundation

extension SVGPlot {
    /// Steps a time axis may tick at, in seconds: seconds to weeks.
    static let timeSteps: [Double] = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200,
                                      86400, 172_800, 604_800, 1_209_600, 2_592_000]

    /// Ticks of a UTC time axis from `t0` to `t1` (seconds since 1970): the
    /// finest step of `timeSteps` with at most `target` intervals, at whole
    /// multiples of it (minutes on the minute, days at midnight UTC), each
    /// labelled as the span needs: 14:05:30, 14:05, Nov 28 14:00 or Nov 28.
    /// `caption`: the axis label, naming the day when every tick is on one.
    package static func timeTicks(_ t0: Double, _ t1: Double, target: Int = 6)
        -> (ticks: [(value: Double, label: String)], caption: String)
    {
        let span = max(t1 - t0, 1)
        let step = timeSteps.first { span / $0 <= Double(target) } ?? (span / Double(target) / 86400).rounded(.up) * 86400
        let first = (t0 / step).rounded(.up), last = (t1 / step).rounded(.down)
        let values = first <= last ? stride(from: first, through: last, by: 1).map { $0 * step } : [t0]
        let day = DateFormatter.utc("yyyy-MM-dd")
        let oneDay = day.string(from: Date(timeIntervalSince1970: t0)) == day.string(from: Date(timeIntervalSince1970: t1))
        let format = step >= 86400 ? "MMM d" : step < 60 ? "HH:mm:ss" : oneDay ? "HH:mm" : "MMM d HH:mm"
        let formatter = DateFormatter.utc(format)
        let ticks = values.map { ($0, formatter.string(from: Date(timeIntervalSince1970: $0))) }
        let year = DateFormatter.utc("yyyy").string(from: Date(timeIntervalSince1970: t0))
        return (ticks, oneDay ? "time (UTC, \(day.string(from: Date(timeIntervalSince1970: t0))))" : "time (UTC, \(year))")
    }
}

extension DateFormatter {
    /// A fixed-format formatter of UTC times (English month names, whatever the locale).
    static func utc(_ format: String) -> DateFormatter {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = format
        return f
    }
}

import Foundation

/// A calendar period values are gathered by: the dashboard's Network chart
/// (`?by=day`). Periods follow one time zone's calendar (days from local
/// midnight, ISO weeks from Monday), so a bucket is what a person there
/// calls "Tuesday" or "March", whatever the clock change.
package enum TimeBucket: String, CaseIterable, Sendable {
    case hour, day, week, month, year

    /// What a bucket opens into: a year its months, a month or week its days, a day its hours.
    package var finer: TimeBucket? {
        switch self {
        case .year: .month
        case .month, .week: .day
        case .day: .hour
        case .hour: nil
        }
    }

    package var component: Calendar.Component {
        switch self {
        case .hour: .hour
        case .day: .day
        case .week: .weekOfYear
        case .month: .month
        case .year: .year
        }
    }

    /// The calendar periods are counted in: ISO 8601 (weeks start on Monday) in `zone`.
    package static func calendar(_ zone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = zone
        calendar.locale = Locale(identifier: "en_US_POSIX")
        return calendar
    }

    /// The period holding `date`: from its first instant, up to (not including) the next period's.
    package func interval(of date: Date, in calendar: Calendar) -> DateInterval {
        // Every instant lies in exactly one hour, day, week, month and year of a calendar.
        calendar.dateInterval(of: component, for: date)!
    }

    /// The period's name as a chart's axis says it: "14:00", "Nov 28", "2026-W48", "Nov 2026", "2026".
    package func label(_ start: Date, in calendar: Calendar) -> String {
        let c = calendar.dateComponents([.year, .month, .day, .hour, .yearForWeekOfYear, .weekOfYear], from: start)
        switch self {
        case .hour: return String(format: "%02d:00", c.hour!)
        case .day: return "\(Self.months[c.month! - 1]) \(c.day!)"
        case .week: return String(format: "%04d-W%02d", c.yearForWeekOfYear!, c.weekOfYear!)
        case .month: return "\(Self.months[c.month! - 1]) \(c.year!)"
        case .year: return String(c.year!)
        }
    }

    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
}

/// The values of one period: how many, and their least, median and greatest.
package struct TimeBucketSummary: Sendable, Equatable {
    package var interval: DateInterval
    package var count: Int
    package var min: Double
    package var median: Double
    package var max: Double

    package init(interval: DateInterval, count: Int, min: Double, median: Double, max: Double) {
        (self.interval, self.count, self.min, self.median, self.max) = (interval, count, min, median, max)
    }

    /// The values per period of `by`, oldest first; periods without a value are left out.
    /// The median of an even count is the mean of the middle two, as everywhere in fprint.
    package static func summarize(_ samples: [(time: Date, value: Double)], by: TimeBucket, in calendar: Calendar)
        -> [TimeBucketSummary]
    {
        var byStart: [Date: (interval: DateInterval, values: [Double])] = [:]
        for s in samples {
            let interval = by.interval(of: s.time, in: calendar)
            byStart[interval.start, default: (interval, [])].values.append(s.value)
        }
        return byStart.values.sorted { $0.interval.start < $1.interval.start }.map { b in
            TimeBucketSummary(interval: b.interval, count: b.values.count, min: b.values.min()!,
                              median: Reduction.median(b.values)!, max: b.values.max()!)
        }
    }

    /// Every period of `by` from the one holding `first` to the one holding `last`, in order
    /// (the chart's slots, gaps included).
    package static func periods(from first: Date, through last: Date, by: TimeBucket, in calendar: Calendar) -> [DateInterval] {
        var out: [DateInterval] = []
        var interval = by.interval(of: first, in: calendar)
        while interval.start <= last {
            out.append(interval)
            interval = by.interval(of: interval.end, in: calendar)
        }
        return out
    }
}

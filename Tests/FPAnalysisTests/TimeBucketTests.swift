import FPAnalysis
import Foundation
import Testing

/// The Network chart's periods in one fixed zone (Europe/Prague: UTC+1 in
/// winter, +2 in summer, clocks back on Oct 25 2026 and forward on Mar 29 2026).
@Suite struct TimeBucketTests {
    let zone = TimeZone(identifier: "Europe/Prague")!
    var calendar: Calendar { TimeBucket.calendar(zone) }

    /// A local time of the zone.
    func at(_ text: String) -> Date {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = zone
        f.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return f.date(from: text)!
    }

    @Test func periodsStartAtLocalBoundaries() {
        let t = at("2026-11-26 00:30:00")  // Thursday, 23:30 UTC the day before
        #expect(TimeBucket.hour.interval(of: t, in: calendar) == DateInterval(start: at("2026-11-26 00:00:00"), end: at("2026-11-26 01:00:00")))
        // The local day, not the UTC one (in UTC this instant is still Nov 25).
        #expect(TimeBucket.day.interval(of: t, in: calendar) == DateInterval(start: at("2026-11-26 00:00:00"), end: at("2026-11-27 00:00:00")))
        // ISO week: Monday Nov 23 to Monday Nov 30.
        #expect(TimeBucket.week.interval(of: t, in: calendar) == DateInterval(start: at("2026-11-23 00:00:00"), end: at("2026-11-30 00:00:00")))
        #expect(TimeBucket.month.interval(of: t, in: calendar) == DateInterval(start: at("2026-11-01 00:00:00"), end: at("2026-12-01 00:00:00")))
        #expect(TimeBucket.year.interval(of: t, in: calendar) == DateInterval(start: at("2026-01-01 00:00:00"), end: at("2027-01-01 00:00:00")))
        #expect(TimeBucket.week.label(at("2026-11-23 00:00:00"), in: calendar) == "2026-W48")
        // Jan 1 2027 is a Friday: it belongs to the last ISO week of 2026.
        #expect(TimeBucket.week.label(TimeBucket.week.interval(of: at("2027-01-01 12:00:00"), in: calendar).start, in: calendar) == "2026-W53")
        #expect(TimeBucket.day.label(t, in: calendar) == "Nov 26" && TimeBucket.month.label(t, in: calendar) == "Nov 2026")
    }

    @Test func aDayOfTheClockChangeHasItsRealLength() {
        // Oct 25 2026 has 25 hours in Prague: the day's hours are 25 slots.
        let day = TimeBucket.day.interval(of: at("2026-10-25 12:00:00"), in: calendar)
        #expect(day.duration == 25 * 3600)
        let hours = TimeBucketSummary.periods(from: day.start, through: day.end.addingTimeInterval(-1), by: .hour, in: calendar)
        #expect(hours.count == 25)
        #expect(hours.allSatisfy { $0.duration == 3600 })
    }

    @Test func eachBucketHasItsCountMinMedianAndMax() {
        let samples: [(time: Date, value: Double)] = [
            (at("2026-11-26 23:59:59"), 10), (at("2026-11-26 08:00:00"), 30), (at("2026-11-26 12:00:00"), 20),
            (at("2026-11-26 13:00:00"), 50),
            (at("2026-11-27 00:00:00"), 7),  // the next local day begins
            (at("2026-11-29 09:00:00"), 4), (at("2026-11-29 10:00:00"), 6),
        ]
        let days = TimeBucketSummary.summarize(samples, by: .day, in: calendar)
        #expect(days.count == 3)
        #expect(days.map(\.count) == [4, 1, 2])
        // Nov 26: 10, 20, 30, 50 → median the mean of 20 and 30.
        #expect(days[0].min == 10 && days[0].median == 25 && days[0].max == 50)
        #expect(days[1].median == 7 && days[1].interval.start == at("2026-11-27 00:00:00"))
        #expect(days[2].median == 5)
        // One ISO week (Mon 23 – Sun 29): all seven values.
        let weeks = TimeBucketSummary.summarize(samples, by: .week, in: calendar)
        #expect(weeks.count == 1 && weeks[0].count == 7 && weeks[0].median == 10 && weeks[0].min == 4 && weeks[0].max == 50)
        // The chart's slots from the first day to the last: Nov 28 is an empty slot.
        let slots = TimeBucketSummary.periods(from: days[0].interval.start, through: days[2].interval.start, by: .day, in: calendar)
        #expect(slots.map { TimeBucket.day.label($0.start, in: calendar) } == ["Nov 26", "Nov 27", "Nov 28", "Nov 29"])
    }

    @Test func drillingDownOpensAPeriodIntoItsFinerOnes() {
        #expect(TimeBucket.year.finer == .month && TimeBucket.month.finer == .day && TimeBucket.week.finer == .day)
        #expect(TimeBucket.day.finer == .hour && TimeBucket.hour.finer == nil)
        for (by, inside) in [(TimeBucket.year, 12), (.month, 30), (.week, 7), (.day, 24)] {
            let period = by.interval(of: at("2026-11-26 15:20:00"), in: calendar)
            let finer = TimeBucketSummary.periods(from: period.start, through: period.end.addingTimeInterval(-1), by: by.finer!, in: calendar)
            #expect(finer.count == inside, "\(by)")
            #expect(finer.first?.start == period.start && finer.last?.end == period.end, "\(by)")
        }
    }
}

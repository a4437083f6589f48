import Foundation
import Testing

@testable import FPAnalysis

/// The probe plots' time axis and colour scale.
@Suite struct ProbePlotScaleTests {
    /// 2026-11-01T00:00:00Z.
    static let day = 1_793_491_200.0

    @Test func aTimeAxisTicksAsItsSpanNeeds() {
        // Two minutes: every 30 s, with seconds.
        let short = SVGPlot.timeTicks(Self.day + 3600, Self.day + 3720)
        #expect(short.ticks.map(\.label) == ["01:00:00", "01:00:30", "01:01:00", "01:01:30", "01:02:00"])
        #expect(short.caption == "time (UTC, 2026-11-01)")
        // Three weeks: a tick a week, at midnight UTC, as dates.
        let long = SVGPlot.timeTicks(Self.day, Self.day + 21 * 86400)
        #expect(long.ticks.allSatisfy { $0.value.truncatingRemainder(dividingBy: 86400) == 0 })
        #expect(long.ticks.count <= 7 && long.ticks.count >= 3)
        #expect(long.ticks.allSatisfy { $0.label.hasPrefix("Nov ") }, "\(long.ticks.map(\.label))")
        #expect(long.caption == "time (UTC, 2026)")
    }

    @Test func theBetterEndIsYellowWhicheverWayTheFigureGoes() {
        let down = SVGPlot.ValueScale(name: "download", unit: "Mbit/s", higherIsBetter: true, values: [3, 37.5])
        #expect(down.hi == 40)
        #expect(down.color(40) == "#fde725" && down.color(0) == "#440154")
        let rtt = SVGPlot.ValueScale(name: "rtt", unit: "ms", higherIsBetter: false, values: [12, 180])
        #expect(rtt.hi == 200)
        #expect(rtt.color(0) == "#fde725" && rtt.color(200) == "#440154")
        #expect(rtt.direction == "yellow is better: less ms")
        // All zero (no loss anywhere): a scale of 0 … 1, not of nothing.
        #expect(SVGPlot.ValueScale(name: "loss", unit: "%", higherIsBetter: false, values: [0, 0]).hi == 1)
    }
}

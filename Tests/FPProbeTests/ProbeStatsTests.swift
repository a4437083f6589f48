import FPProbe
import Testing

@Suite struct ProbeStatsTests {
    /// RFC 3550 §6.4.1 by hand: sent 20 ms apart, arrivals 25, 15, 25 ms apart,
    /// so |D| = 5, 5, 5 and J = 5/16, then J + (5 − J)/16 twice.
    @Test func jitterFollowsRFC3550() throws {
        let packets: [(sent: Double, received: Double)] = [(0, 100), (20, 125), (40, 140), (60, 165)]
        let j1 = 5.0 / 16
        let j2 = j1 + (5 - j1) / 16
        let j3 = j2 + (5 - j2) / 16
        #expect(j3 == 0.880126953125)
        #expect(try #require(ProbeStats.jitter(packets)) == j3)
    }

    /// A constant clock offset and a constant delay cancel; one packet has no jitter.
    @Test func jitterIgnoresClockOffset() throws {
        let even: [(sent: Double, received: Double)] = (0..<50).map { i in (Double(i) * 20, 1_000_000 + Double(i) * 20) }
        #expect(try #require(ProbeStats.jitter(even)) == 0)
        #expect(ProbeStats.jitter([(0, 5)]) == nil)
    }

    /// Alternating ±2 ms of delay: |D| = 4 ms each time, so J tends to 4 ms.
    @Test func jitterConvergesToMeanDeviation() throws {
        var packets: [(sent: Double, received: Double)] = []
        for i in 0..<400 {
            let sent = Double(i) * 20
            packets.append((sent, sent + (i % 2 == 0 ? 2.0 : -2.0)))
        }
        #expect(abs(try #require(ProbeStats.jitter(packets)) - 4) < 1e-6)
    }

    @Test func lossPercent() {
        #expect(ProbeStats.lossPercent(sent: 200, received: 190) == 5)
        #expect(ProbeStats.lossPercent(sent: 200, received: 200) == 0)
        #expect(ProbeStats.lossPercent(sent: 0, received: 0) == 0)
        // More echoes than datagrams cannot make the loss negative.
        #expect(ProbeStats.lossPercent(sent: 10, received: 12) == 0)
    }

    /// The first 10 % of the bytes (slow start) is left out: the rate counts
    /// from the first sample at or past 10 % of the total.
    @Test func throughputLeavesOutTheFirstTenPercent() throws {
        let samples: [(seconds: Double, bytes: Int)] = [(0.5, 50), (1, 100), (2, 1000), (3, 2000)]
        // 10 % of 2000 is 200: the first sample past it is (2 s, 1000); (2000 − 1000) × 8 / 1 s.
        #expect(try #require(ProbeStats.throughput(samples)) == 8000)
        let steady: [(seconds: Double, bytes: Int)] = (1...10).map { i in (Double(i), i * 1_250_000) }
        // 10 Mbit/s throughout: from (1 s, 1.25 MB) to (10 s, 12.5 MB).
        #expect(try #require(ProbeStats.throughput(steady)) == 10_000_000)
        #expect(ProbeStats.throughput([]) == nil)
        #expect(ProbeStats.throughput([(1, 100)]) == nil)
    }

    @Test func summaryOfRoundTrips() throws {
        let s = try #require(ProbeStats.summary([80, 82, 79, 90]))
        #expect(s.min == 79 && s.max == 90 && s.avg == 82.75 && s.median == 81 && s.count == 4)
        #expect(try #require(ProbeStats.summary([3, 1, 2])).median == 2)
        #expect(ProbeStats.summary([]) == nil)
    }
}

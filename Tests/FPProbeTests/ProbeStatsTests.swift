import FPProbe
import Testing

@Suite struct ProbeStatsTests {
    @Test func placeholder() { #expect(ProbeStats.lossPercent(sent: 4, received: 3) == 25) }
}

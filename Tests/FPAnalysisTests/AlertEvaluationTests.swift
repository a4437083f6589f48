import FPCore
import Testing
@testable import FPAnalysis

@Suite struct AlertEvaluationTests {
    let t0: Int64 = 1_795_600_000_000
    let minute: Int64 = 60_000

    /// A document with one probe whose download is `mbit` Mbit/s, `m` minutes after t0.
    func probe(_ id: String, minutes m: Int64, download mbit: Double, map: String = "J1NP", link: String = "wlan0") -> AlertFacts {
        var d = AlertFacts(id: id, at: t0 + m * minute, map: map)
        d.probes = [.init(at: t0 + m * minute, interface: link, ssid: "eduroam", figures: [.download: mbit * 1e6])]
        return d
    }

    let slow = AlertRule(id: "slow", figure: .download, scope: .map("J1NP"), comparison: .below, limit: 5e6, holdMs: 10 * 60_000)

    @Test func aRunHeldForTheHoldTimeRaisesAndTheFirstGoodValueClears() {
        let docs = [probe("a", minutes: 0, download: 20), probe("b", minutes: 5, download: 3), probe("c", minutes: 10, download: 2),
                    probe("d", minutes: 15, download: 4), probe("e", minutes: 20, download: 30)]
        let alerts = AlertEvaluation.evaluate([slow], docs.shuffled(), now: t0 + 60 * minute)
        #expect(alerts.count == 1)
        let a = alerts[0]
        #expect(a.subject == "map J1NP")
        #expect(a.since == t0 + 15 * minute)  // first crossing (5) + 10 min hold
        #expect(a.until == t0 + 20 * minute)
        #expect(a.values.map(\.document) == ["b", "c", "d"])
        #expect(a.worst == 2e6)
        #expect(!a.isActive)
    }

    @Test func aRunShorterThanTheHoldRaisesNothing() {
        let docs = [probe("b", minutes: 5, download: 3), probe("c", minutes: 10, download: 2), probe("e", minutes: 14, download: 30)]
        #expect(AlertEvaluation.evaluate([slow], docs, now: t0 + 60 * minute).isEmpty)
    }

    /// Values every 5 min: the bad ones at 0 and 5 stand until the good one at 12, 12 min of crossing.
    @Test func aValueStandsUntilTheNextOne() {
        let rule = AlertRule(id: "slow", figure: .download, scope: .everywhere, comparison: .below, limit: 5e6, holdMs: 8 * 60_000)
        let docs = [probe("a", minutes: 0, download: 3), probe("b", minutes: 5, download: 3), probe("c", minutes: 12, download: 30)]
        let alerts = AlertEvaluation.evaluate([rule], docs, now: t0 + 60 * minute)
        #expect(alerts.map(\.since) == [t0 + 8 * minute])
        #expect(alerts.map(\.until) == [t0 + 12 * minute])
        #expect(alerts.first?.values.map(\.document) == ["a", "b"])
        // Ended exactly when the hold would have passed: never raised.
        let tight = AlertRule(id: "slow", figure: .download, scope: .everywhere, comparison: .below, limit: 5e6, holdMs: 12 * 60_000)
        #expect(AlertEvaluation.evaluate([tight], docs, now: t0 + 60 * minute).isEmpty)
    }

    @Test func aRunStillCrossingIsActiveOnceNowPassesTheHold() {
        let docs = [probe("a", minutes: 0, download: 20), probe("b", minutes: 5, download: 3)]
        #expect(AlertEvaluation.evaluate([slow], docs, now: t0 + 14 * minute).isEmpty)
        let active = AlertEvaluation.evaluate([slow], docs, now: t0 + 16 * minute)
        #expect(active.map(\.since) == [t0 + 15 * minute])
        #expect(active.first?.isActive == true)
    }

    @Test func scopeKeepsOtherMapsAndLinksOut() {
        let docs = [probe("x", minutes: 0, download: 1, map: "J2NP"), probe("y", minutes: 1, download: 1, link: "eth0")]
        let noHold = AlertRule(id: "s", figure: .download, scope: .map("J1NP"), comparison: .below, limit: 5e6)
        #expect(AlertEvaluation.evaluate([noHold], docs, now: t0 + 5 * minute).map(\.values.first?.document) == ["y"])
        let onLink = AlertRule(id: "s", figure: .download, scope: .link("eduroam"), comparison: .below, limit: 5e6)
        #expect(AlertEvaluation.evaluate([onLink], docs, now: t0 + 5 * minute).count == 1)  // both by SSID, one run
        let onEth = AlertRule(id: "s", figure: .download, scope: .link("eth0"), comparison: .below, limit: 5e6)
        #expect(AlertEvaluation.evaluate([onEth], docs, now: t0 + 5 * minute).map(\.values.first?.document) == ["y"])
    }

    @Test func silenceRunsFromTheLastReportPlusTheLimit() {
        let mac = "AA:BB:CC:DD:EE:01"
        var a = AlertFacts(id: "a", at: t0, map: "J1NP")
        a.beacons[mac] = .init(medianRSSI: -70, heard: [t0, t0 + minute])
        var b = AlertFacts(id: "b", at: t0 + 200 * minute, map: "J1NP")
        b.beacons[mac] = .init(medianRSSI: -72, heard: [t0 + 200 * minute])
        let quiet = AlertRule(id: "q", figure: .silence, scope: .beacon(mac), comparison: .above, limit: Double(120 * minute))
        let alerts = AlertEvaluation.evaluate([quiet], [a, b], now: t0 + 400 * minute)
        #expect(alerts.map(\.since) == [t0 + 121 * minute, t0 + 320 * minute])
        #expect(alerts.map(\.until) == [t0 + 200 * minute, nil])
        #expect(alerts[0].values == [AlertValue(at: t0 + minute, value: Double(199 * minute), document: "a")])
    }

    @Test func aBeaconNeverHeardIsSilentFromTheFirstDocument() {
        let quiet = AlertRule(id: "q", figure: .silence, scope: .beacon("AA:BB:CC:DD:EE:09"), comparison: .above, limit: Double(60 * minute))
        let docs = [AlertFacts(id: "a", at: t0, map: "J1NP")]
        #expect(AlertEvaluation.evaluate([quiet], docs, now: t0 + 30 * minute).isEmpty)
        #expect(AlertEvaluation.evaluate([quiet], docs, now: t0 + 90 * minute).map(\.since) == [t0 + 60 * minute])
    }

    @Test func coverageAlertsPerCell() {
        func point(_ id: String, _ x: Int, beacons: Int, m: Int64) -> AlertFacts {
            var d = AlertFacts(id: id, at: t0 + m * minute, map: "J1NP")
            d.cell = .init(x: x, y: 10, beacons: beacons)
            return d
        }
        let gaps = AlertRule(id: "gaps", figure: .coverage, scope: .map("J1NP"), comparison: .below, limit: 3)
        let alerts = AlertEvaluation.evaluate([gaps], [point("a", 1, beacons: 2, m: 0), point("b", 2, beacons: 4, m: 1), point("c", 1, beacons: 3, m: 2)],
                                              now: t0 + 10 * minute)
        #expect(alerts.map(\.subject) == ["J1NP cell (1, 10)"])
        #expect(alerts.map(\.until) == [t0 + 2 * minute])
    }

    @Test func rssiReadsTheBeaconsMedianPerDocument() {
        let mac = "AA:BB:CC:DD:EE:01"
        var a = AlertFacts(id: "a", at: t0, map: "J1NP")
        a.beacons[mac] = .init(medianRSSI: -85, heard: [t0])
        let weak = AlertRule(id: "w", figure: .rssi, scope: .beacon(mac), comparison: .below, limit: -80)
        #expect(AlertEvaluation.evaluate([weak], [a], now: t0).map(\.worst) == [-85])
        let fine = AlertRule(id: "w", figure: .rssi, scope: .beacon(mac), comparison: .below, limit: -90)
        #expect(AlertEvaluation.evaluate([fine], [a], now: t0).isEmpty)
    }
}

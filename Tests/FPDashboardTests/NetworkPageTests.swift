import FPAnalysis
import FPCore
@testable import FPDashboard
import FPGateway
import FPStore
import Foundation
import Hummingbird
import FPHTTPTestSupport
import Testing

/// The Network page of the gateway's dashboard: probe runs on J1NP over
/// three days in Europe/Prague, charted per day and hour with the rules' limits.
@Suite struct NetworkPageTests {
    /// A periodic probe document (`fprint probe --every`'s shape, phases without signatures) at (x, y).
    static func probeRun(at time: String, down: Double?, rtt: Double, x: Int, y: Int, map: String = "J1NP") -> JSONValue {
        var phases: [JSONValue] = [
            ["phase": "udp", "status": "ok", "rttMs": ["median": .double(rtt)], "lossUpPercent": 1, "lossDownPercent": 0,
             "jitterUpMs": 2, "jitterDownMs": 4],
        ]
        phases.insert(down.map { ["phase": "down", "status": "ok", "bitsPerSecond": .double($0 * 1e6)] }
                      ?? ["phase": "down", "status": "timeout", "reason": "no data for 5 s"], at: 0)
        return ["mode": "probe", "level": .string(map), "x": .int(Int64(x)), "y": .int(Int64(y)), "createdAt": .string(time),
                "startTime": .string(time), "couchbase_sync_gateway_id": "carol",
                "networkProbes": [["startedAt": .string(time), "phases": .array(phases),
                                   "link": ["interface": "wlan0", "kind": "wifi", "ssid": "lab", "bssid": "02:00:00:00:01:00",
                                            "signalDbm": -61]]]]
    }

    /// Nov 26 (local): 10, 20, 40 Mbit/s at 08:10, 08:40, 14:00; Nov 27 00:30 local (Nov 26 23:30 UTC): 5;
    /// Nov 28: a failed download; a J2NP run that is not this map's.
    static let runs: [(String, JSONValue)] = [
        ("r1", probeRun(at: "2026-11-26T07:10:00.000Z", down: 10, rtt: 20, x: 400, y: 700)),
        ("r2", probeRun(at: "2026-11-26T07:40:00.000Z", down: 20, rtt: 30, x: 420, y: 710)),
        ("r3", probeRun(at: "2026-11-26T13:00:00.000Z", down: 40, rtt: 80, x: 1000, y: 1200)),
        ("r4", probeRun(at: "2026-11-26T23:30:00.000Z", down: 5, rtt: 25, x: 1500, y: 1500)),
        ("r5", probeRun(at: "2026-11-28T09:00:00.000Z", down: nil, rtt: 20, x: 1500, y: 1500)),
        ("r6", probeRun(at: "2026-11-28T09:00:00.000Z", down: 99, rtt: 10, x: 500, y: 500, map: "J2NP")),
    ]

    func fixture(rules: [AlertRule] = []) throws -> DashboardFixture {
        var f = try DashboardFixture()
        try f.seed()
        _ = try f.store.insert(Self.runs.map { NewDocument(id: $0.0, body: $0.1) })
        f.config.alertRules = rules
        return f
    }

    func bars(_ page: Page) -> [(label: String, count: Int, median: String)] {
        page.text.matches(of: /<g class="bucket" data-count="(\d+)" data-median="([^"]+)" data-label="([^"]+)">/)
            .map { (String($0.3), Int($0.1)!, String($0.2)) }
    }

    @Test func theRunsPerDayAndHourInTheLocalZoneWithTheLimits() async throws {
        let slow = AlertRule(id: "slow", figure: .download, scope: .map("J1NP"), comparison: .below, limit: 8e6)
        let elsewhere = AlertRule(id: "other", figure: .download, scope: .map("J2NP"), comparison: .below, limit: 50e6)
        let rtt = AlertRule(id: "laggy", figure: .rtt, scope: .everywhere, comparison: .above, limit: 100)
        let f = try fixture()
        let dashboard = LocalDashboard.make(store: f.store, options: .init(
            maps: f.config.dashboardMaps, alertRules: [slow, elsewhere, rtt], timeZone: TimeZone(identifier: "Europe/Prague")!))
        try await Application(responder: LocalResponder(dashboard: dashboard)).test(.router) { client in
            let page = try await client.page(.get, "/_dashboard/network/J1NP?metric=down&by=day")
            #expect(page.status == .ok)
            // Days of Prague: r4 (23:30 UTC) is on Nov 27; Nov 28's run has no download figure.
            let days = bars(page)
            #expect(days.map(\.label) == ["Nov 26", "Nov 27"], "\(days)")
            #expect(days.first?.count == 3 && days.first?.median == "20", "\(days)")
            #expect(page.text.contains("Times in Europe/Prague (UTC+01:00)"))
            // The J1NP rule at 8 Mbit/s is drawn; J2NP's is not, nor the RTT rule on the download chart.
            #expect(page.count("<g class=\"limit\"") == 1 && page.text.contains("<g class=\"limit\" data-value=\"8\">"))
            // A day opens into its hours (local midnight to midnight).
            #expect(page.text.contains("href=\"?metric=down&amp;by=hour&amp;from=2026-11-26T00:00&amp;to=2026-11-27T00:00\""))
            // Heatmap with its unit, and the table: 5 runs of J1NP, newest first, the failed phase a dash.
            #expect(page.text.contains(">Mbit/s</text>") && page.text.contains("Download on J1NP: 4 probes, 1 without a figure"))
            #expect(page.text.contains("<small id=\"table-note\">5, newest first</small>"))
            let rows = page.text.components(separatedBy: "<tr><td title=\"").dropFirst().map { String($0.prefix(400)) }
            #expect(rows.count == 5 && rows.first?.hasPrefix("r5\">2026-11-28 10:00:00</td>") == true, "\(rows.first ?? "")")
            #expect(rows.first?.contains("<td>wlan0 (wifi) · lab 02:00:00:00:01:00 · -61 dBm</td><td>J1NP (1500, 1500)</td><td class=\"num\">—</td>") == true,
                    "\(rows.first ?? "")")

            let hours = try await client.page(.get, "/_dashboard/network/J1NP?metric=down&by=hour&from=2026-11-26T00:00&to=2026-11-27T00:00")
            #expect(bars(hours).map(\.label) == ["08:00", "14:00"] && bars(hours).first?.median == "15", "\(bars(hours))")
            #expect(hours.count("class=\"bucket-label\"") == 12, "every other of the 24 hours is labelled")
            #expect(hours.text.contains("3 runs") && !hours.text.contains("2026-11-27 00:30"))

            let rttPage = try await client.page(.get, "/_dashboard/network/J1NP?metric=rtt&by=week")
            #expect(bars(rttPage).map(\.label) == ["2026-W48"] && bars(rttPage).first?.count == 5)
            #expect(rttPage.text.contains("<g class=\"limit\" data-value=\"100\">") && rttPage.text.contains(">ms</text>"))
        }
    }

    @Test func aViewerOfTheGatewaySeesItAndTheIndexLinksToIt() async throws {
        var changed = try fixture()
        changed.config.alertRules = [AlertRule(id: "slow", figure: .download, scope: .everywhere, comparison: .below, limit: 8e6)]
        let f = changed
        try await f.app.test(.router) { client in
            let viewer = f.cookie("vera", role: .viewer)
            let page = try await client.page(.get, "/_dashboard/network/J1NP", cookie: viewer)
            #expect(page.status == .ok && page.count("<g class=\"bucket\"") >= 1)
            #expect(page.text.contains("<g class=\"limit\" data-value=\"8\">"), "the gateway passes its rules")
            // The index and the map page link to it; J2NP has a run too.
            let index = try await client.page(.get, "/_dashboard/", cookie: viewer)
            #expect(index.text.contains("<a class=\"network-link\" href=\"/_dashboard/network/J1NP\">network (5 probes)</a>"))
            #expect(index.count("class=\"network-link\"") == 2)
            let map = try await client.page(.get, "/_dashboard/maps/J1NP", cookie: viewer)
            #expect(map.text.contains("href=\"/_dashboard/network/J1NP\">Network (5 probes)</a>"))
        }
    }

    @Test func badAddressesAreOneLineAndAMapWithoutRunsSaysSo() async throws {
        let f = try fixture()
        try await f.app.test(.router) { client in
            let viewer = f.cookie("vera", role: .viewer)
            let metric = try await client.page(.get, "/_dashboard/network/J1NP?metric=speed", cookie: viewer)
            #expect(metric.status == .badRequest && metric.text.contains("metric &quot;speed&quot; is not one of down, up, rtt, loss, jitter."))
            let from = try await client.page(.get, "/_dashboard/network/J1NP?from=yesterday&to=2026-11-27", cookie: viewer)
            #expect(from.status == .badRequest && from.text.contains("from &quot;yesterday&quot; is not a time"))
            let order = try await client.page(.get, "/_dashboard/network/J1NP?from=2026-11-27&to=2026-11-26", cookie: viewer)
            #expect(order.status == .badRequest && order.text.contains("must come before to"))
            let unknown = try await client.page(.get, "/_dashboard/network/NOPE", cookie: viewer)
            #expect(unknown.status == .notFound)
            // J1NP's plain measurements only: a clear line, no empty chart.
            try f.store.delete(ids: Self.runs.map(\.0), evenIfSynced: true)
            let empty = try await client.page(.get, "/_dashboard/network/J1NP", cookie: viewer)
            #expect(empty.status == .ok && empty.text.contains("id=\"no-runs\">No probe runs on this map yet"))
            #expect(!empty.text.contains("network-chart"))
            let index = try await client.page(.get, "/_dashboard/", cookie: viewer)
            #expect(!index.text.contains("network-link"))
            // Anonymous: to the login, and back here after it.
            let anonymous = try await client.page(.get, "/_dashboard/network/J1NP?metric=rtt")
            #expect(anonymous.status == .seeOther || anonymous.status == .found)
            #expect(anonymous.headers[.location] == "/_dashboard/login?next=%2F_dashboard%2Fnetwork%2FJ1NP%3Fmetric%3Drtt")
        }
    }

    @Test func theGatewaysIndexListsTheLimitAlerts() async throws {
        var changed = try fixture()
        let slow = AlertRule(id: "slow", figure: .download, scope: .map("J1NP"), comparison: .below, limit: 8e6)
        changed.config.dashboardAlerts = {
            [Alert(rule: slow, subject: "map J1NP", since: 1_795_600_000_000, until: nil,
                   values: [AlertValue(at: 1_795_600_000_000, value: 5e6, document: "r4")], worst: 5e6)]
        }
        let f = changed
        try await f.app.test(.router) { client in
            let index = try await client.page(.get, "/_dashboard/", cookie: f.cookie("vera", role: .viewer))
            #expect(index.text.contains("<h2>Limits and alerts</h2>") && index.text.contains("1 active"))
            #expect(index.text.contains("<td>slow</td><td>map J1NP</td>"))
        }
    }
}

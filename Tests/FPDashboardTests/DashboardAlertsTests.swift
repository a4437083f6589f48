import FPAnalysis
import FPCore
@testable import FPDashboard
import Foundation
import Hummingbird
import FPHTTPTestSupport
import Testing

/// The index lists what `fprint alerts --history` lists: active alerts first, then past ones.
@Suite struct DashboardAlertsTests {
    @Test func theIndexListsActiveAndPastAlerts() async throws {
        let f = try DashboardFixture()
        let slow = AlertRule(id: "slow", figure: .download, scope: .map("J1NP"), comparison: .below, limit: 5e6, holdMs: 600_000)
        let t: Int64 = 1_795_600_000_000
        let alerts = [
            Alert(rule: slow, subject: "map J1NP", since: t, until: t + 300_000, values: [AlertValue(at: t, value: 3e6, document: "a")], worst: 2.5e6),
            Alert(rule: slow, subject: "map J1NP", since: t + 900_000, until: nil, values: [AlertValue(at: t + 900_000, value: 4e6, document: "b")], worst: 4e6),
        ]
        let dashboard = LocalDashboard.make(store: f.store, options: .init(alerts: { alerts }))
        try await Application(responder: LocalResponder(dashboard: dashboard)).test(.router) { client in
            let index = try await client.page(.get, "/_dashboard/")
            #expect(index.text.contains("<h2>Limits and alerts</h2>"))
            #expect(index.text.contains("1 active, 1 past"))
            let rows = index.text.components(separatedBy: "<tr class=\"").dropFirst().map { String($0.prefix { $0 != "\n" }) }
            #expect(rows.count == 2)
            #expect(rows.first?.hasPrefix("active\"><td>slow</td><td>map J1NP</td><td>2026-11-25 10:01</td><td>active</td><td>4 Mbit/s</td>") == true, "\(rows)")
            #expect(rows.last?.contains("<td>2026-11-25 09:46</td><td>2026-11-25 09:51</td><td>2.5 Mbit/s</td><td>download &lt; 5 Mbit/s on map J1NP for 10 min</td>") == true, "\(rows)")
        }
        // Without rules there is no section.
        let plain = LocalDashboard.make(store: f.store, options: .init())
        try await Application(responder: LocalResponder(dashboard: plain)).test(.router) { client in
            let index = try await client.page(.get, "/_dashboard/")
            #expect(index.status == .ok)
            #expect(!index.text.contains("Limits and alerts"))
        }
    }
}

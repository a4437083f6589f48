import FPCore
@testable import FPDashboard
import FPGateway
import FPStore
import Foundation
import HTTPTypes
import Hummingbird
import FPHTTPTestSupport
import Testing

/// My uploads in pages, what `fprint dashboard` shows instead of the
/// gateway's own pages, and walks of one route drawn apart.
@Suite struct DashboardUploadsTests {
    /// `count` documents signed by carol, a minute apart, the last the newest.
    static func uploads(_ f: DashboardFixture, count: Int) throws {
        _ = try f.store.insert((0..<count).map { i in
            NewDocument(id: String(format: "up-%03d", i), body: DashboardFixture.measurement(
                x: 100 + i, y: 700, owner: "carol", createdAt: String(format: "2026-11-21T%02d:%02d:00.000Z", i / 60, i % 60)))
        })
    }

    /// The dates of a page's rows, top to bottom.
    static func created(_ page: Page) -> [String] {
        page.text.components(separatedBy: "<tr><td>").dropFirst().map { String($0.prefix(16)) }
    }

    @Test func myUploadsComeFiftyAPageNewestFirst() async throws {
        let f = try DashboardFixture()
        try Self.uploads(f, count: 120)
        try await f.app.test(.router) { client in
            let carol = f.cookie("carol", role: .user)
            let first = try await client.page(.get, "/_dashboard/mine", cookie: carol)
            #expect(first.status == .ok)
            #expect(first.text.contains("<span id=\"mine-count\">120</span>"))
            #expect(first.text.contains("<span id=\"mine-range\">1–50 of 120</span>"))
            #expect(first.count("<code>up-") == 50)
            #expect(Self.created(first).first == "2026-11-21 01:59" && Self.created(first).last == "2026-11-21 01:10")
            #expect(first.text.contains("href=\"?page=2\"") && !first.text.contains("rel=\"prev\""))
            let last = try await client.page(.get, "/_dashboard/mine?page=3", cookie: carol)
            #expect(last.text.contains("101–120 of 120") && last.count("<code>up-") == 20)
            #expect(last.text.contains("<code>up-000</code>") && !last.text.contains("rel=\"next\""))
            #expect(last.text.contains("href=\"?page=2\""))
            let past = try await client.page(.get, "/_dashboard/mine?page=4", cookie: carol)
            #expect(past.status == .notFound && past.text.contains("page=4 is past the last page (3) of 120 documents."))
            let bad = try await client.page(.get, "/_dashboard/mine?page=two", cookie: carol)
            #expect(bad.status == .badRequest && bad.text.contains("page=two is not a page number (1 to 3)."))
            // Someone else's documents are not theirs.
            let dora = try await client.page(.get, "/_dashboard/mine", cookie: f.cookie("dora", role: .user))
            #expect(dora.text.contains("<span id=\"mine-count\">0</span>") && !dora.text.contains("mine-range"))
        }
    }

    @Test func fprintDashboardListsTheDatabaseAndHasNoAdminPage() async throws {
        let f = try DashboardFixture()
        try f.seed()
        try Self.uploads(f, count: 60)
        let dashboard = LocalDashboard.make(store: f.store, options: .init(maps: f.config.dashboardMaps))
        try await Application(responder: LocalResponder(dashboard: dashboard)).test(.router) { client in
            let index = try await client.page(.get, "/_dashboard/")
            #expect(!index.text.contains("href=\"/_dashboard/admin\"") && !index.text.contains("My uploads"))
            #expect(index.text.contains("<a href=\"/_dashboard/mine\">Documents</a>"))
            // Every document of the file (6 seeded, 60 more), whoever signed it.
            let documents = try await client.page(.get, "/_dashboard/mine")
            #expect(documents.status == .ok)
            #expect(documents.text.contains("<h1>Documents</h1>"))
            #expect(documents.text.contains("<span id=\"mine-count\">66</span> documents in this database"))
            #expect(documents.text.contains("1–50 of 66"))
            #expect(documents.text.contains("<td>alice</td>") && documents.text.contains("<td>carol</td>"))
            let second = try await client.page(.get, "/_dashboard/mine?page=2")
            #expect(second.text.contains("51–66 of 66") && second.count("<code>") == 16)
            let admin = try await client.page(.get, "/_dashboard/admin")
            #expect(admin.status == .notFound)
            #expect(admin.text.contains("fprint dashboard has no accounts or tokens: the Admin page is the gateway"))
        }
        // The gateway keeps both for its users.
        try await f.app.test(.router) { client in
            let root = try await client.page(.get, "/_dashboard/", cookie: f.cookie("root", role: .admin))
            #expect(root.text.contains("href=\"/_dashboard/admin\"") && root.text.contains(">My uploads</a>"))
        }
    }

    /// Two walks of one route (the same positions): each its own colour,
    /// dash and offset, so the second does not cover the first, and a legend sample each.
    @Test func twoWalksOfOneRouteAreDrawnApart() async throws {
        let f = try DashboardFixture()
        _ = try f.store.insert((0..<2).flatMap { walk in
            (0..<4).map { i in
                NewDocument(id: "w\(walk)-\(i)", body: DashboardFixture.measurement(
                    x: 300 + 400 * i, y: 600, owner: "carol", session: "walk-\(walk)", seq: i + 1,
                    createdAt: "2026-11-2\(walk + 1)T10:00:0\(i).000Z"))
            }
        })
        let dashboard = LocalDashboard.make(store: f.store, options: .init(maps: f.config.dashboardMaps))
        try await Application(responder: LocalResponder(dashboard: dashboard)).test(.router) { client in
            let map = try await client.page(.get, "/_dashboard/maps/J1NP")
            let tracks = map.text.components(separatedBy: "<polyline class=\"track\"").dropFirst().map { String($0.prefix { $0 != ">" }) }
            func attribute(_ name: String, _ track: String) -> String? {
                guard let at = track.range(of: " \(name)=\"") else { return nil }
                return String(track[at.upperBound...].prefix { $0 != "\"" })
            }
            #expect(tracks.count == 2)
            #expect(Set(tracks.map { attribute("points", $0) }).count == 1, "one route")
            #expect(Set(tracks.map { attribute("stroke", $0) }).count == 2, "\(tracks)")
            #expect(Set(tracks.map { attribute("stroke-dasharray", $0) ?? "solid" }).count == 2, "\(tracks)")
            #expect(Set(tracks.map { attribute("transform", $0) }).count == 2, "\(tracks)")
            #expect(map.count("<li class=\"walk\"><svg class=\"sample\"") == 2)
            #expect(map.text.contains("stroke-dasharray=\"7 3\"/></svg>walk walk-1 by carol"))
        }
    }
}

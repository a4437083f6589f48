import FPCore
@testable import FPDashboard
import FPGateway
import FPStore
import Foundation
import HTTPTypes
import Hummingbird
import FPHTTPTestSupport
import Testing

/// What the pages show of a seeded survey, and the live event stream.
@Suite struct DashboardPageTests {
    @Test func theMapPageDrawsEveryPointTheWalkAndAHeatmap() async throws {
        let f = try DashboardFixture()
        try f.seed()
        try await f.app.test(.router) { client in
            let cookie = f.cookie("vera", role: .viewer)
            let page = try await client.page(.get, "/_dashboard/maps/J1NP", cookie: cookie)
            #expect(page.status == .ok)
            #expect(page.count("<circle class=\"point\"") == 5)
            #expect(page.text.contains("<span id=\"point-count\">5</span>"))
            #expect(page.count("<polyline class=\"track\"") == 1)
            #expect(page.text.contains("<polyline class=\"track\" data-session=\"s1\""))
            #expect(page.text.contains("<polygon class=\"outline\""))
            // The heatmap of the transmitter heard most (both are heard at all five), from FPAnalysis.
            #expect(page.text.contains("<div id=\"heatmap\">"))
            #expect(page.count("class=\"heard\"") == 5)
            #expect(page.text.contains("<option value=\"BLE:c0:c4:42:69:da:1c\" selected>"))
            let other = try await client.page(.get, "/_dashboard/maps/J1NP?tx=BLE%3Ac3%3A9f%3Ac5%3Aaf%3Ad7%3A60", cookie: cookie)
            #expect(other.text.contains("<option value=\"BLE:c3:9f:c5:af:d7:60\" selected>"))
            #expect(other.text.contains("BLE:c3:9f:c5:af:d7:60 on J1NP"))
            // Two beacons everywhere: every measured cell is a gap (3 are needed).
            #expect(page.text.contains("with fewer than 3"))
            #expect(page.text.contains("class=\"gap\"") || page.text.contains("url(#gap)"))
            #expect(page.headers[.contentSecurityPolicy]?.contains("script-src 'self'") == true)
            #expect(try await client.page(.get, "/_dashboard/maps/NOPE", cookie: cookie).status == .notFound)
        }
    }

    @Test func theIndexCountsMapsAndActivityCountsPeriods() async throws {
        let f = try DashboardFixture()
        try f.seed()
        try await f.app.test(.router) { client in
            let cookie = f.cookie("vera", role: .viewer)
            let index = try await client.page(.get, "/_dashboard/", cookie: cookie)
            #expect(index.text.contains("<a href=\"/_dashboard/maps/J1NP\">J1NP</a> first floor</td><td class=\"num\">5</td>"))
            #expect(index.text.contains("<a href=\"/_dashboard/maps/J2NP\">J2NP</a>"))
            #expect(index.text.contains("alice, carol"))
            #expect(index.text.contains("No beacon registry is configured"))
            let days = try await client.page(.get, "/_dashboard/activity?by=day", cookie: cookie)
            #expect(days.text.contains("<tr><td>2026-11-24</td><td class=\"num\">2</td><td>alice 2</td><td>J1NP 2</td></tr>"))
            #expect(days.text.contains("<tr><td>2026-11-20</td><td class=\"num\">4</td><td>carol 4</td><td>J1NP 3, J2NP 1</td></tr>"))
            #expect(days.count("<rect class=\"bar\"") == 2)
            let months = try await client.page(.get, "/_dashboard/activity?by=month", cookie: cookie)
            #expect(months.text.contains("<tr><td>2026-11</td><td class=\"num\">6</td>"))
            let weeks = try await client.page(.get, "/_dashboard/activity?by=week", cookie: cookie)
            #expect(weeks.text.contains("<tr><td>2026-W47</td><td class=\"num\">4</td>"))
            #expect(weeks.text.contains("<tr><td>2026-W48</td><td class=\"num\">2</td>"))
        }
    }

    @Test func aNewDocumentReachesTheCachedPlotsOnTheNextLook() async throws {
        let f = try DashboardFixture()
        try f.seed()
        try await f.app.test(.router) { client in
            let cookie = f.cookie("vera", role: .viewer)
            #expect(try await client.page(.get, "/_dashboard/maps/J1NP", cookie: cookie).count("class=\"heard\"") == 5)
            _ = try f.store.insert([NewDocument(id: "late", body: DashboardFixture.measurement(x: 900, y: 900, owner: "carol"))])
            let again = try await client.page(.get, "/_dashboard/maps/J1NP", cookie: cookie)
            #expect(again.count("<circle class=\"point\"") == 6)
            #expect(again.count("class=\"heard\"") == 6)
        }
    }

    @Test func theErrorsPageRunsLeaveOneOutPerRadioSet() async throws {
        let f = try DashboardFixture()
        try f.seed()
        try await f.app.test(.router) { client in
            let cookie = f.cookie("vera", role: .viewer)
            let page = try await client.page(.get, "/_dashboard/maps/J1NP/errors", cookie: cookie)
            #expect(page.status == .ok)
            // Wi-Fi heard nothing, so it locates nothing; BLE and both locate all five.
            #expect(page.text.contains("<tr><td>ble WKNN k=3</td><td class=\"num\">5</td>"))
            #expect(page.text.contains("<tr><td>combined WKNN k=3</td><td class=\"num\">5</td>"))
            #expect(page.count("class=\"cdf\"") == 2)
            let lone = try await client.page(.get, "/_dashboard/maps/J2NP/errors", cookie: cookie)
            #expect(lone.text.contains("needs at least 2 measurements on the map; it has 1"))
            #expect(!lone.text.contains("class=\"cdf\""))
        }
    }

    @Test func mapIdsTravelAsOnePathSegment() async throws {
        let f = try DashboardFixture()
        _ = try f.store.insert([NewDocument(id: "odd", body: DashboardFixture.measurement(map: "J 1/NP", x: 10, y: 10, owner: "c"))])
        try await f.app.test(.router) { client in
            let cookie = f.cookie("vera", role: .viewer)
            let index = try await client.page(.get, "/_dashboard/", cookie: cookie)
            #expect(index.text.contains("href=\"/_dashboard/maps/J%201%2FNP\""))
            let map = try await client.page(.get, "/_dashboard/maps/J%201%2FNP", cookie: cookie)
            #expect(map.status == .ok)
            #expect(map.count("<circle class=\"point\"") == 1)
        }
    }

    @Test func documentTextIsEscapedInPages() async throws {
        let f = try DashboardFixture()
        _ = try f.store.insert([NewDocument(id: "x", body: DashboardFixture.measurement(
            map: "<script>alert(1)</script>", x: 10, y: 10, owner: "<b>mallory</b>"))])
        try await f.app.test(.router) { client in
            let index = try await client.page(.get, "/_dashboard/", cookie: f.cookie("root", role: .admin))
            #expect(!index.text.contains("<script>alert"))
            #expect(index.text.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
            #expect(!index.text.contains("<b>mallory"))
            let admin = try await client.page(.get, "/_dashboard/admin", cookie: f.cookie("root", role: .admin))
            #expect(admin.text.contains("&lt;b&gt;mallory&lt;/b&gt;"))
        }
    }

    @Test func theEventStreamDeliversANewDocumentOfItsMap() async throws {
        let f = try DashboardFixture()
        try f.seed()
        let index = SurveyIndex(store: f.store)
        let start = try f.store.lastSequence()
        let store = f.store
        let wait: Dashboard.ChangeWait = { since, timeout in
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                if (try? store.lastSequence()) ?? 0 > since { return true }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return true
        }
        let received = Task { () -> String in
            var text = ""
            do {
                try await Dashboard.stream(map: "J1NP", from: start, index: index, wait: wait, lifetime: .seconds(5)) { chunk in
                    text += chunk
                    if text.contains("fresh") { throw CancellationError() }
                }
            } catch {}
            return text
        }
        try await Task.sleep(for: .milliseconds(100))
        // Another map's document is not this stream's; the new J1NP one is.
        _ = try f.store.insert([NewDocument(id: "elsewhere", body: DashboardFixture.measurement(map: "J2NP", x: 1, y: 1, owner: "carol"))])
        _ = try f.store.insert([NewDocument(id: "fresh", body: DashboardFixture.measurement(x: 700, y: 900, owner: "carol"))])
        let text = await received.value
        #expect(text.hasPrefix("retry: 1000\n\n"))
        #expect(text.contains("event: point\ndata: {\"id\":\"fresh\",\"owner\":\"carol\",\"session\":null,\"x\":700,\"y\":900}\n\n"))
        #expect(!text.contains("elsewhere"))
        #expect(!text.contains("walk-0"))
    }

    @Test func theEventStreamNeedsALoginAndIsBounded() async throws {
        let f = try DashboardFixture()
        try await f.app.test(.router) { client in
            let refused = try await client.page(.get, "/_dashboard/events?map=J1NP")
            #expect(refused.status == .unauthorized)
        }
        let slots = StreamSlots(total: 3, perClient: 2)
        #expect(await slots.take("a"))
        #expect(await slots.take("a"))
        #expect(await !slots.take("a"))
        #expect(await slots.take("b"))
        #expect(await !slots.take("c"))
        await slots.release("a")
        #expect(await slots.take("c"))
        #expect(await slots.inUse == 3)
    }

    /// Two walks on one map: a colour each, and a legend naming the walk and its surveyor.
    @Test func twoWalksGetTwoColoursAndALegend() async throws {
        let f = try DashboardFixture()
        try f.seed()
        _ = try f.store.insert((0..<2).map { i in
            NewDocument(id: "walk2-\(i)", body: DashboardFixture.measurement(x: 400, y: 900 + 200 * i, owner: "dora", session: "s2", seq: i + 1))
        })
        let dashboard = LocalDashboard.make(store: f.store, options: .init(maps: f.config.dashboardMaps))
        try await Application(responder: LocalResponder(dashboard: dashboard)).test(.router) { client in
            let map = try await client.page(.get, "/_dashboard/maps/J1NP")
            let strokes = map.text.components(separatedBy: "<polyline class=\"track\"").dropFirst().compactMap { line -> String? in
                guard let at = line.range(of: "stroke=\"") else { return nil }
                return String(line[at.upperBound...].prefix(7))
            }
            #expect(strokes.count == 2 && Set(strokes).count == 2, "\(strokes)")
            #expect(map.text.contains("walk s1 by carol") && map.text.contains("walk s2 by dora, ") && map.text.contains(", 2 points"))
            #expect(map.count("<li class=\"walk\"><svg class=\"sample\"") == 2)
        }
    }

    @Test func localModeNeedsNoLogin() async throws {
        let f = try DashboardFixture()
        try f.seed()
        let dashboard = LocalDashboard.make(store: f.store, options: .init())
        let app = Application(responder: LocalResponder(dashboard: dashboard))
        try await app.test(.router) { client in
            let index = try await client.page(.get, "/_dashboard/")
            #expect(index.status == .ok)
            #expect(index.text.contains("local (admin)"))
            #expect(!index.text.contains("Log out"))
            #expect(try await client.page(.get, "/_dashboard/login").headers[.location] == "/_dashboard/")
            #expect(try await client.page(.get, "/").headers[.location] == "/_dashboard/")
            let map = try await client.page(.get, "/_dashboard/maps/J1NP")
            #expect(map.count("<circle class=\"point\"") == 5)
        }
        // DNS rebinding: a browser on another site's name is not answered.
        for host in ["evil.example:8080", "127.0.0.1.evil.example", "localhost.evil"] {
            #expect(!LocalResponder.isLoopbackHost(host), "\(host)")
        }
        for host in ["127.0.0.1:8080", "localhost", "LOCALHOST:1", "[::1]:8080", "[::1]"] {
            #expect(LocalResponder.isLoopbackHost(host), "\(host)")
        }
    }
}

import FPCore
@testable import FPDashboard
import FPGateway
import Foundation
import HTTPTypes
import Hummingbird
import FPHTTPTestSupport
import Testing

/// The Survey page's HTTP side: only `fprint dashboard` has it, its actions
/// need this page's origin and token, one job runs at a time, and the
/// answers say why a click was refused. (What a click measures and stores
/// is Tests/browser/survey_test.py's, with the real runner in Chromium.)
@Suite struct SurveyPageTests {
    /// Takes orders into the real one-job slot and leaves them running; refuses points right of x = 2400.
    final class HeldDesk: SurveyDesk {
        let slot = SurveySlot()
        let orders = OrderLog()
        var describe: String { "5 s at a point, simulated radios" }
        func routes(map: String) -> [SurveyRoute] {
            [SurveyRoute(id: "loop", name: "Loop", points: [MapPoint(x: 100, y: 100), MapPoint(x: 900, y: 100)])]
        }
        func current() -> SurveyJob? { slot.current() }
        func start(_ order: SurveyOrder) throws(SurveyRefusal) -> SurveyJob {
            if case .point(_, let x, _) = order, x > 2400 { throw SurveyRefusal(.offMap, "(\(x), …) is outside map J1NP's outline") }
            let job = try slot.begin(order, map: "J1NP", durationS: 5)
            orders.append(order)
            return job
        }
    }

    final class OrderLog: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [SurveyOrder] = []
        func append(_ order: SurveyOrder) { lock.withLock { list.append(order) } }
        var all: [SurveyOrder] { lock.withLock { list } }
    }

    static func token(in page: String) throws -> String {
        let start = try #require(page.range(of: "data-token=\"")).upperBound
        return String(page[start...].prefix(64))
    }

    @Test func actionsNeedThisPagesOriginAndToken() async throws {
        let f = try DashboardFixture()
        let desk = HeldDesk()
        let dashboard = LocalDashboard.make(store: f.store, options: .init(maps: f.config.dashboardMaps, survey: desk))
        try await Application(responder: LocalResponder(dashboard: dashboard)).test(.router) { client in
            let page = try await client.page(.get, "/_dashboard/survey/maps/J1NP")
            #expect(page.status == .ok && page.text.contains("id=\"survey-wrap\"") && page.text.contains("survey.js"))
            #expect(page.text.contains("data-points=\"100,100 900,100\""))
            let token = try Self.token(in: page.text)
            #expect(token.count == 64 && token.allSatisfy(\.isHexDigit))
            let point = "map=J1NP&x=363.44&y=701"
            for (form, origin) in [(point, "http://localhost"), (point + "&token=" + String(repeating: "0", count: 64), "http://localhost"),
                                   (point + "&token=" + token, "http://evil.example"), (point + "&token=" + token, nil)] {
                let answer = try await client.page(.post, "/_dashboard/survey/measure", form: form, origin: origin)
                #expect(answer.status == .forbidden, "\(form) from \(origin ?? "nowhere")")
            }
            #expect(desk.orders.all.isEmpty)

            let started = try await client.page(.post, "/_dashboard/survey/measure", form: point + "&token=" + token)
            #expect(started.status == .accepted && started.text.contains("\"state\":\"running\""), "\(started.text)")
            // The click is kept to a tenth of a map unit.
            #expect(desk.orders.all == [.point(map: "J1NP", x: 363.4, y: 701)])
            // Another tab, the same moment: refused, saying what runs.
            let second = try await client.page(.post, "/_dashboard/survey/walk", form: "scenario=loop&token=" + token)
            #expect(second.status == .conflict && second.text.contains("already running (point (363.4, 701) on J1NP"), "\(second.text)")
            let status = try await client.page(.get, "/_dashboard/survey/status")
            #expect(status.text.contains("\"job\":1") && status.text.contains("\"kind\":\"point\""), "\(status.text)")
        }
    }

    @Test func refusalsSayWhy() async throws {
        let f = try DashboardFixture()
        let desk = HeldDesk()
        let dashboard = LocalDashboard.make(store: f.store, options: .init(maps: f.config.dashboardMaps, survey: desk))
        try await Application(responder: LocalResponder(dashboard: dashboard)).test(.router) { client in
            let token = try Self.token(in: try await client.page(.get, "/_dashboard/survey/maps/J1NP").text)
            let off = try await client.page(.post, "/_dashboard/survey/measure", form: "map=J1NP&x=2450&y=10&token=" + token)
            #expect(off.status == .unprocessableContent && off.text.contains("outside map J1NP's outline"), "\(off.text)")
            let bad = try await client.page(.post, "/_dashboard/survey/measure", form: "map=J1NP&x=abc&y=10&token=" + token)
            #expect(bad.status == .badRequest && bad.text.contains("numbers"))
            let large = try await client.page(.post, "/_dashboard/survey/measure",
                                              form: "token=" + token + "&pad=" + String(repeating: "x", count: 4000))
            #expect(large.status == .contentTooLarge)
            #expect(try await client.page(.get, "/_dashboard/survey/maps/NOPE").status == .notFound)
            #expect(desk.orders.all.isEmpty)
        }
    }

    /// The boxes take metres (J1NP: 2500 × 3000 units at 2 cm are 50 × 60 m),
    /// the page carries the scale its script converts them with, both axes are
    /// named, and the count of cells without a point is one the script can update.
    @Test func thePageTakesMetresAndNamesBothAxes() async throws {
        let f = try DashboardFixture()
        let dashboard = LocalDashboard.make(store: f.store, options: .init(maps: f.config.dashboardMaps, survey: HeldDesk()))
        try await Application(responder: LocalResponder(dashboard: dashboard)).test(.router) { client in
            let page = try await client.page(.get, "/_dashboard/survey/maps/J1NP").text
            #expect(page.contains("<input id=\"x\" name=\"x\" type=\"number\" step=\"any\" min=\"0\" max=\"50\" required> m</label>"), "\(page)")
            #expect(page.contains("<input id=\"y\" name=\"y\" type=\"number\" step=\"any\" min=\"0\" max=\"60\" required> m</label>"))
            #expect(page.contains("data-meters-per-unit=\"0.02"), "\(page)")
            #expect(page.contains(">x (m)</text>") && page.contains("class=\"y-label\"") && page.contains(">y (m)</text>"))
            #expect(page.contains("<span id=\"unsurveyed-count\">"))
            #expect(page.contains("id=\"survey-stopped\"") && page.contains("data-since=\""))
        }
    }

    /// A live view's last event at a stop says the server stopped and what
    /// the job was then: the Survey page's banner is made from it.
    @Test func theStreamSaysTheServerStopped() async throws {
        let f = try DashboardFixture()
        let desk = HeldDesk()
        _ = try desk.start(.walk(scenario: "loop"))
        let index = SurveyIndex(store: f.store)
        var text = ""
        // The server stops at the first wait.
        try await Dashboard.stream(map: "J1NP", from: 0, index: index, wait: { _, _ in false }, lifetime: .seconds(30),
                                   stopped: { Dashboard.stoppedEvent(job: desk.current()) }) { text += $0 }
        #expect(text.hasPrefix("retry: 1000\n\nevent: stopped\ndata: {\"job\":{"), "\(text)")
        #expect(text.hasSuffix("}}\n\n") && text.contains("\"state\":\"running\"") && text.contains("\"scenario\":\"loop\""), "\(text)")
        #expect(Dashboard.stoppedEvent(job: nil) == "event: stopped\ndata: {\"job\":null}\n\n")
    }

    /// The gateway measures nothing: no Survey page, and a POST there reads no body.
    @Test func theGatewayHasNoSurveyPage() async throws {
        let f = try DashboardFixture()
        try f.seed()
        try await f.app.test(.router) { client in
            let cookie = f.cookie("root", role: .admin)
            let page = try await client.page(.get, "/_dashboard/survey", cookie: cookie)
            #expect(page.status == .notFound && page.text.contains("fprint dashboard"))
            let post = try await client.page(.post, "/_dashboard/survey/measure", cookie: cookie, form: "map=J1NP&x=1&y=1")
            #expect(post.status == .notFound)
            let index = try await client.page(.get, "/_dashboard/", cookie: cookie)
            #expect(!index.text.contains("/_dashboard/survey"))
        }
    }

    @Test func unsurveyedCellsAreThoseWithoutAPointInsideTheOutline() {
        // 12 × 6 m at 1 cm a unit: 3 m cells, 4 × 2; the outline leaves out the right-hand 3 m.
        let map = DashboardMap(id: "R", metersPerUnit: 0.01, width: 1200, height: 600,
                               outline: [MapPoint(x: 0, y: 0), MapPoint(x: 900, y: 0), MapPoint(x: 900, y: 600), MapPoint(x: 0, y: 600)])
        let point = SurveyPoint(id: "a", map: "R", x: 100, y: 100, createdAtMs: 0, session: nil, seq: nil, owner: "-")
        let frame = FloorPlot.Frame(map: map, points: [point], size: 800)
        let cells = Pages.unsurveyedCells(map: map, frame: frame, points: [point]).map { "\($0.column),\($0.row)" }
        #expect(Set(cells) == ["1,0", "2,0", "0,1", "1,1", "2,1"], "\(cells)")
    }
    @Test func unsurveyedCellsAreDrawnOnlyIndoors() {
        // 12 × 6 m at 1 cm a unit, the outline a triangle: cells across its slope are cut to it, those beyond it not counted.
        let outline = [MapPoint(x: 0, y: 0), MapPoint(x: 1200, y: 0), MapPoint(x: 0, y: 600)]
        let map = DashboardMap(id: "T", metersPerUnit: 0.01, width: 1200, height: 600, outline: outline)
        let frame = FloorPlot.Frame(map: map, points: [], size: 800)
        let cells = Pages.unsurveyedCells(map: map, frame: frame, points: [])
        #expect(Set(cells.map { "\($0.column),\($0.row)" }) == ["0,0", "1,0", "2,0", "3,0", "0,1", "1,1"], "\(cells)")
        let layer = Pages.cellLayer(frame, unsurveyed: cells, side: 300, weak: [], weakSide: 200,
                                    outline: outline.map { (x: $0.x, y: $0.y) }).joined()
        #expect(layer.contains("<clipPath id=\"survey-floor\"><polygon points=\""), "\(layer)")
        #expect(layer.contains("<g class=\"unsurveyed\" fill=\"#ffb74d\" fill-opacity=\"0.22\" stroke=\"none\" clip-path=\"url(#survey-floor)\">"))
        #expect(layer.contains("<g class=\"weak\" fill=\"#d62728\" fill-opacity=\"0.35\" stroke=\"none\" clip-path=\"url(#survey-floor)\">"))
    }
}

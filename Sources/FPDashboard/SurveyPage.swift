import FPAnalysis
import FPCore
import Foundation
import HTTPTypes
import Hummingbird

/// The Survey page of `fprint dashboard`: the plan with its measured
/// points, the cells still unsurveyed and those with too few beacons;
/// a click (or typed coordinates) measures there, a button walks a route.
/// Its actions are POSTs from this page only: same origin, and the
/// page's token (CSRF) in the form.
extension Pages {
    /// Unsurveyed cells are this many metres a side.
    static let unsurveyedCell = 3.0

    func surveyIndex(_ desk: any SurveyDesk) -> Response {
        let maps = dashboard.options.maps.keys.sorted().map { id in
            ["id": id, "link": Self.link(id), "description": dashboard.options.maps[id]?.description ?? "",
             "routes": desk.routes(map: id).count] as [String: Any]
        }
        return page("Survey", "surveyIndex", ["maps": maps, "settings": desk.describe])
    }

    func survey(_ id: String, desk: any SurveyDesk) async throws -> Response {
        guard let map = dashboard.options.maps[id] else {
            return Responses.message(.notFound, heading: "No such map",
                                     text: "Map \(id) is not in the app config: add it with `fprint map add`.",
                                     user: user, canLogout: canLogout, head: head)
        }
        let sequence = try await dashboard.index.lastSequence()
        let points = try await dashboard.index.snapshot().filter { $0.map == id }
        let shown = Array(points.sorted { $0.createdAtMs > $1.createdAtMs }.prefix(dashboard.options.maxMapPoints))
        let frame = FloorPlot.Frame(map: map, points: shown, size: 800)
        let (store, limit, registry) = (dashboard.store, dashboard.options.maxMapPoints, dashboard.options.registries[id])
        let plots = try await dashboard.plots.plots(map: id, sequence: sequence) {
            let fps = try await SurveyReads.fingerprints(store, map: id, limit: limit)
            return MapPlots(map: map, fingerprints: fps, mapWidth: frame.mapWidth, mapHeight: frame.mapHeight, registry: registry)
        }
        let unsurveyed = Self.unsurveyedCells(map: map, frame: frame, points: shown)
        let floor = FloorPlot.svg(map: map, points: shown, beacons: registry?.entries ?? []) { frame in
            Self.cellLayer(frame, unsurveyed: unsurveyed, side: Self.unsurveyedCell / map.metersPerUnit,
                           weak: plots.weakCells, weakSide: MapPlots.coverageCell / map.metersPerUnit,
                           outline: map.outline?.map { (x: $0.x, y: $0.y) })
        }
        let routes = desk.routes(map: id).map { route in
            ["id": route.id, "name": route.name, "points": route.points.map { String(format: "%g,%g", $0.x, $0.y) }.joined(separator: " "),
             "floors": route.floorMaps.isEmpty ? "" : " (" + route.floorMaps.joined(separator: " → ") + ")"] as [String: Any]
        }
        let context: [String: Any] = [
            "id": id, "link": Self.link(id), "description": map.description, "points": shown.count,
            "floor": floor, "routes": routes, "settings": desk.describe, "token": dashboard.surveyToken,
            "unsurveyed": unsurveyed.count, "weak": plots.weakCells.count, "needed": Coverage.needed,
            // The boxes take metres, as the axes show; the script turns them into map units.
            "width": String(format: "%g", (frame.mapWidth * map.metersPerUnit * 100).rounded(.up) / 100),
            "height": String(format: "%g", (frame.mapHeight * map.metersPerUnit * 100).rounded(.up) / 100),
            "metersPerUnit": String(format: "%.17g", map.metersPerUnit), "since": String(sequence),
        ]
        return page("Survey \(id)", "survey", context, script: "survey.js")
    }

    /// Cells of the floor (any part inside its outline) with no measured point in them.
    static func unsurveyedCells(map: DashboardMap, frame: FloorPlot.Frame, points: [SurveyPoint]) -> [(column: Int, row: Int)] {
        let side = unsurveyedCell / map.metersPerUnit
        let columns = Int((frame.mapWidth / side).rounded(.up)), rows = Int((frame.mapHeight / side).rounded(.up))
        guard columns * rows <= 40_000 else { return [] }  // a plan in millimetres: no grid worth drawing
        var measured = Set<Int>()
        for p in points { measured.insert(Int(p.y / side) * columns + Int(p.x / side)) }
        let outline = map.outline?.map { (x: $0.x, y: $0.y) }
        var out: [(column: Int, row: Int)] = []
        for row in 0..<rows {
            for column in 0..<columns where !measured.contains(row * columns + column) {
                // The centre and corners pulled in a little (a corner on the outline is not "in").
                let x0 = Double(column) * side, y0 = Double(row) * side, m = side * 0.02
                let probes = [(x0 + side / 2, y0 + side / 2), (x0 + m, y0 + m), (x0 + side - m, y0 + m), (x0 + m, y0 + side - m),
                              (x0 + side - m, y0 + side - m)]
                if let outline, !probes.contains(where: { SVGPlot.inside(outline, x: $0.0, y: $0.1) }) { continue }
                out.append((column, row))
            }
        }
        return out
    }

    /// Unsurveyed cells hatched lightly, measured cells with too few beacons in red.
    /// `side`, `weakSide`: the cells' sides in map units. Both are cut to the
    /// outline: a cell partly indoors is drawn, but only its indoor part.
    static func cellLayer(_ frame: FloorPlot.Frame, unsurveyed: [(column: Int, row: Int)], side: Double,
                          weak: [SVGPlot.CoverageCell], weakSide: Double, outline: [(x: Double, y: Double)]? = nil) -> [String] {
        let clip = SVGPlot.outlineClip(outline, id: "survey-floor", left: frame.left, top: frame.top, scale: frame.scale)
        let clipped = clip == nil ? "" : " clip-path=\"url(#survey-floor)\""
        var out = clip.map { [$0] } ?? []
        out.append("<g class=\"unsurveyed\" fill=\"#ffb74d\" fill-opacity=\"0.22\" stroke=\"none\"\(clipped)>")
        let w = String(format: "%.1f", side * frame.scale)
        for c in unsurveyed {
            out.append("<rect x=\"\(frame.x(Double(c.column) * side))\" y=\"\(frame.y(Double(c.row) * side))\" width=\"\(w)\" height=\"\(w)\"/>")
        }
        out.append("</g><g class=\"weak\" fill=\"#d62728\" fill-opacity=\"0.35\" stroke=\"none\"\(clipped)>")
        let v = String(format: "%.1f", weakSide * frame.scale)
        for c in weak {
            out.append("<rect x=\"\(frame.x(Double(c.column) * weakSide))\" y=\"\(frame.y(Double(c.row) * weakSide))\" width=\"\(v)\" height=\"\(v)\"><title>\(c.beacons) beacons</title></rect>")
        }
        out.append("</g>")
        return out
    }

    /// The job running or last ended, as JSON (the page asks twice a second while one runs).
    func surveyStatus(_ desk: any SurveyDesk) -> Response {
        Responses.json(.ok, SurveyStatus(job: desk.current(), settings: desk.describe), head: head)
    }
}

struct SurveyStatus: Encodable {
    var job: SurveyJob?
    var settings: String
}

/// `POST /_dashboard/survey/measure` (map, x, y) and `…/survey/walk`
/// (scenario): checked for origin before the body is read, and for the
/// page's token after; answered with the job or the refusal as JSON.
extension Dashboard {
    static let surveyFormLimit = 1 << 10

    /// The Survey page's paths: `survey`, `survey/maps/<map>`, `survey/status`, and the POSTs.
    func survey(_ rest: [String], method: HTTPRequest.Method, request: inout Request, pages: Pages) async throws -> Response {
        // The gateway measures nothing: its dashboard has no Survey page (and reads no body for one).
        guard let desk = options.survey else {
            return Responses.message(.notFound, heading: "Not found",
                                     text: "The Survey page is served by `fprint dashboard` on the machine that measures.",
                                     user: pages.user, canLogout: pages.canLogout, head: pages.head)
        }
        switch (method, rest.count) {
        case (.post, 2): return await surveyAction(rest[1], &request, desk: desk)
        case (.get, 1): return pages.surveyIndex(desk)
        case (.get, 2) where rest[1] == "status": return pages.surveyStatus(desk)
        case (.get, 3) where rest[1] == "maps": return try await pages.survey(rest[2], desk: desk)
        default:
            return Responses.message(.notFound, heading: "Not found", text: "There is no such survey page.",
                                     user: pages.user, canLogout: pages.canLogout, head: pages.head)
        }
    }

    func surveyAction(_ action: String, _ request: inout Request, desk: any SurveyDesk) async -> Response {
        guard sameOrigin(request) else { return surveyError(.forbidden, "The request did not come from this dashboard's page.") }
        guard let form = await Form.read(&request, limit: Self.surveyFormLimit) else {
            return surveyError(.contentTooLarge, "The form is too large.")
        }
        guard let token = form["token"], Self.sameSecret(token, surveyToken) else {
            return surveyError(.forbidden, "The page's token is missing or stale: reload the page.")
        }
        let order: SurveyOrder
        switch action {
        case "measure":
            guard let map = form["map"], !map.isEmpty else { return surveyError(.badRequest, "Name the map.") }
            guard let x = form["x"].flatMap(Double.init), let y = form["y"].flatMap(Double.init), x.isFinite, y.isFinite else {
                return surveyError(.badRequest, "x and y must be numbers (map units: the page converts its metres).")
            }
            order = .point(map: map, x: (x * 10).rounded() / 10, y: (y * 10).rounded() / 10)
        case "walk":
            guard let scenario = form["scenario"], !scenario.isEmpty else { return surveyError(.badRequest, "Choose a route.") }
            order = .walk(scenario: scenario)
        default:
            return surveyError(.notFound, "There is no such survey action.")
        }
        do {
            return Responses.json(.accepted, SurveyStatus(job: try desk.start(order), settings: desk.describe))
        } catch {
            let status: HTTPResponse.Status = switch error.reason {
            case .busy: .conflict
            case .offMap: .unprocessableContent
            case .unknown: .notFound
            }
            return surveyError(status, error.message)
        }
    }

    func surveyError(_ status: HTTPResponse.Status, _ message: String) -> Response {
        Responses.json(status, ["error": message])
    }

    /// Compares without stopping at the first difference (the time says nothing of the token).
    static func sameSecret(_ given: String, _ secret: String) -> Bool {
        let a = Array(given.utf8), b = Array(secret.utf8)
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

import FPAnalysis
import FPCore
import FPHex
import Foundation
import HTTPTypes
import Hummingbird

/// The pages for one user's request: each gathers its numbers and renders its template.
struct Pages {
    let dashboard: Dashboard
    let user: DashboardUser
    let head: Bool

    var canLogout: Bool { dashboard.access != nil }

    func page(_ title: String, _ template: String, _ context: [String: Any], script: String? = nil,
              status: HTTPResponse.Status = .ok) -> Response {
        Responses.page(status, title: title, user: user, canLogout: canLogout, content: Templates.render(template, context),
                       script: script, canSurvey: dashboard.options.survey != nil, head: head)
    }

    /// A map's floor-plan picture, which its plots link to.
    func floorPlan(_ id: String) -> Response {
        guard let plan = dashboard.options.maps[id]?.floorPlan else {
            return Responses.message(.notFound, heading: "Not found", text: "Map \(id) has no floor-plan picture.",
                                     user: user, canLogout: canLogout, head: head)
        }
        // Another user's bytes (an SVG may hold script): data, never a page of the dashboard.
        var headers = Responses.securityHeaders()
        UntrustedBytes.mark(&headers)
        headers[.contentType] = plan.header.mediaType
        // The same for every page of the map, and only for this browser.
        headers[.cacheControl] = "private, max-age=300"
        return Responses.body(.ok, headers, Data(plan.bytes), head: head)
    }

    func forbidden(_ why: String) -> Response {
        Responses.message(.forbidden, heading: "Forbidden", text: why, user: user, canLogout: canLogout, head: head)
    }

    /// A map id as one path segment (a "/" in it is encoded too).
    static func link(_ id: String) -> String { PercentEncoding.encode(id) }

    static func time(_ ms: Int64) -> String {
        ms > 0 ? String(ISOTime.string(millisecondsSince1970: ms).prefix(16)).replacingOccurrences(of: "T", with: " ") : ""
    }

    /// Maps with their counts, latest activity and surveyors; beacon alerts.
    func index() async throws -> Response {
        let points = try await dashboard.index.snapshot()
        let byMap = Dictionary(grouping: points, by: \.map)
        let ids = Set(byMap.keys).union(dashboard.options.maps.keys).sorted()
        let rows: [[String: Any]] = ids.map { id in
            let list = byMap[id] ?? []
            let owners = Set(list.map(\.owner)).subtracting([MeasurementDocument.unsignedOwner]).sorted()
            var row: [String: Any] = ["id": id.isEmpty ? "(no map)" : id, "link": Self.link(id),
                    "description": dashboard.options.maps[id]?.description ?? "", "points": list.count,
                    "walks": Set(list.compactMap(\.session)).count, "latest": Self.time(list.map(\.createdAtMs).max() ?? 0),
                    "surveyors": owners.joined(separator: ", ")]
            // Only maps with probes link to their Network page (a Mustache section shows for 0 too).
            let probes = list.reduce(0) { $0 + $1.probes }
            if probes > 0 { row["probeRuns"] = probes }
            return row
        }
        var context: [String: Any] = ["maps": rows]
        if dashboard.options.registries.isEmpty {
            context["healthNote"] = "No beacon registry is configured, so no beacon is checked."
        } else {
            context["health"] = try await beaconHealth(points).context
        }
        if let alerts = dashboard.options.alerts {
            context["limitAlerts"] = AlertsPanel(alerts: try await alerts()).context
        }
        return page("Maps", "index", context)
    }

    private func beaconHealth(_ points: [SurveyPoint]) async throws -> BeaconHealthPanel {
        let registries = dashboard.options.registries
        let (store, limit) = (dashboard.store, dashboard.options.maxMapPoints)
        let surveyed = Set(points.map(\.map))
        return try await dashboard.plots.health(sequence: try await dashboard.index.lastSequence()) {
            BeaconHealthPanel(registries: registries, sightings: try await SurveyReads.sightings(store, registries: registries.keys.sorted().map { registries[$0]! }, limit: limit),
                              surveyed: surveyed, now: Int64(Date().timeIntervalSince1970 * 1000))
        }
    }

    /// Floor with points and walks, a heatmap of one transmitter, coverage.
    func map(_ id: String, transmitter: String?) async throws -> Response {
        // One snapshot for every figure (counts, floor, legend, plots), so they
        // agree, also when the live view fetches the page again after a sync.
        let (all, sequence) = try await dashboard.index.snapshotWithSequence()
        let points = all.filter { $0.map == id }
        guard !points.isEmpty || dashboard.options.maps[id] != nil else {
            return Responses.message(.notFound, heading: "No such map", text: "No measurement is on map \(id).",
                                     user: user, canLogout: canLogout, head: head)
        }
        let map = dashboard.options.maps[id] ?? DashboardMap(id: id)
        let shown = Array(points.sorted { $0.createdAtMs > $1.createdAtMs }.prefix(dashboard.options.maxMapPoints))
        let frame = FloorPlot.Frame(map: map, points: shown, size: 800)
        var context: [String: Any] = [
            "id": id, "link": Self.link(id),
            "description": map.description, "points": shown.count, "sequence": String(sequence),
            "walks": Set(shown.compactMap(\.session)).count,
            "floor": FloorPlot.svg(map: map, points: shown, beacons: dashboard.options.registries[id]?.entries ?? []),
            "walkLegend": FloorPlot.walks(shown).map { ["sample": FloorPlot.legendSample($0.style), "label": $0.label] },
            "hasBeacons": !(dashboard.options.registries[id]?.entries.isEmpty ?? true),
        ]
        let probes = points.reduce(0) { $0 + $1.probes }
        if probes > 0 { context["probeRuns"] = probes }
        let (store, limit, registry) = (dashboard.store, dashboard.options.maxMapPoints, dashboard.options.registries[id])
        let drawn = Set(shown.map(\.id))
        let plots = try await dashboard.plots.plots(map: id, sequence: sequence) {
            // The snapshot's documents only: one stored after it waits for the next look.
            let fps = try await SurveyReads.fingerprints(store, map: id, limit: limit).filter { drawn.contains($0.id) }
            return MapPlots(map: map, fingerprints: fps, mapWidth: frame.mapWidth, mapHeight: frame.mapHeight, registry: registry)
        }
        let ranked = plots.transmitters()
        let chosen = ranked.first { $0.id == transmitter }?.id ?? ranked.first?.id
        context["transmitters"] = ranked.prefix(200).map { ["id": $0.id, "count": $0.count, "selected": $0.id == chosen] as [String: Any] }
        if let chosen { context["heatmap"] = SurveyReads.inline(plots.heatmap(chosen)) }
        let coverage = plots.coverage
        context["coverage"] = SurveyReads.inline(coverage.svg)
        context["coverageNote"] = "\(coverage.cells) cells of 2 m measured, \(coverage.gaps) with fewer than \(Coverage.needed) "
            + (registry == nil ? "BLE transmitters" : "registered beacons") + " at −90 dBm or stronger."
        return page(id, "map", context, script: "app.js")
    }

    /// Documents per day, week or month, by surveyor and by map.
    func activity(by period: String) async throws -> Response {
        let bucket = Activity.Period(rawValue: period) ?? .day
        let rows = Activity.rows(try await dashboard.index.snapshot(), by: bucket)
        let context: [String: Any] = [
            bucket.rawValue: true, "period": bucket.rawValue.capitalized, "chart": Activity.chart(rows),
            "rows": rows.map { ["label": $0.label, "count": $0.count, "owners": Activity.describe($0.owners),
                                "maps": Activity.describe($0.maps)] as [String: Any] },
        ]
        return page("Activity", "activity", context)
    }

    /// Rows of the uploads table per page.
    static let uploadsPerPage = 50

    /// The documents this user signed, newest first, `uploadsPerPage` a page
    /// (`?page=`, from 1). Locally (`fprint dashboard`) every document of the
    /// database is the user's: nobody signs there, a sync signs with the gateway's name.
    func mine(page asked: String?) async throws -> Response {
        let local = dashboard.access == nil
        let mine = try await dashboard.index.snapshot().filter { local || $0.owner == user.name }
            .sorted { ($0.createdAtMs, $0.id) > ($1.createdAtMs, $1.id) }
        let pages = max(1, (mine.count + Self.uploadsPerPage - 1) / Self.uploadsPerPage)
        guard let number = Int(asked ?? "1"), number >= 1 else {
            return Responses.message(.badRequest, heading: "Bad page", text: "page=\(asked ?? "") is not a page number (1 to \(pages)).",
                                     user: user, canLogout: canLogout, head: head)
        }
        guard number <= pages else {
            return Responses.message(.notFound, heading: "No such page",
                                     text: "page=\(number) is past the last page (\(pages)) of \(mine.count) documents.",
                                     user: user, canLogout: canLogout, head: head)
        }
        let first = (number - 1) * Self.uploadsPerPage
        let shown = mine[first..<min(mine.count, first + Self.uploadsPerPage)]
        var context: [String: Any] = [
            "heading": local ? "Documents" : "My uploads", "local": local, "count": mine.count,
            "what": local ? "documents in this database" : "documents signed by \(user.name)",
            "rows": shown.map { ["created": Self.time($0.createdAtMs), "map": $0.map, "x": String(format: "%g", $0.x),
                                 "y": String(format: "%g", $0.y), "session": $0.session ?? "", "id": $0.id,
                                 "owner": $0.owner == MeasurementDocument.unsignedOwner ? "(unsigned)" : $0.owner] as [String: Any] },
        ]
        if !shown.isEmpty { context["range"] = "\(first + 1)–\(first + shown.count) of \(mine.count)" }
        if pages > 1 {
            var pager: [String: Any] = ["page": number, "pages": pages]
            if number > 1 { pager["previous"] = number - 1 }
            if number < pages { pager["next"] = number + 1 }
            context["pager"] = pager
        }
        return page(local ? "Documents" : "My uploads", "mine", context)
    }

    /// The users file and the signers the data knows (the gateway's only: `fprint dashboard` has no accounts).
    /// `extra`: the token form's outcome (`issued` or `issueError`).
    func admin(status: HTTPResponse.Status = .ok, _ extra: [String: Any] = [:]) async throws -> Response {
        let accounts = (dashboard.access?.accounts() ?? []).sorted { $0.name < $1.name }
        let byOwner = Dictionary(grouping: try await dashboard.index.snapshot(), by: \.owner)
        var context: [String: Any] = [
            "maxDays": Dashboard.maxTokenDays, "sessionsPerUser": Dashboard.sessionsPerUser,
            "accounts": accounts.map { ["name": $0.name, "role": $0.role.rawValue] },
            "accountsNote": "The gateway has no users file (tokens only).",
            "credentials": (dashboard.access?.credentials() ?? []).map { c in
                ["id": c.id, "user": c.user, "role": c.role.rawValue, "note": c.note, "issued": Self.time(c.issuedAt * 1000),
                 "expires": Self.time(c.expiresAt * 1000), "revoked": c.revoked && !c.superseded,
                 "superseded": c.superseded] as [String: Any]
            },
            "signers": byOwner.sorted { $0.key < $1.key }.map { owner, list in
                ["name": owner == MeasurementDocument.unsignedOwner ? "(unsigned)" : owner, "count": list.count,
                 "latest": Self.time(list.map(\.createdAtMs).max() ?? 0)] as [String: Any]
            },
        ]
        context.merge(extra) { _, new in new }
        return page("Admin", "admin", context, status: status)
    }
}

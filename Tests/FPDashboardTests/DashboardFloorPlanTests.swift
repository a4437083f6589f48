import FPAnalysis
import FPCore
@testable import FPDashboard
import FPGateway
import FPStore
import FPTestSupport
import Foundation
import HTTPTypes
import FPHTTPTestSupport
import NIOCore
import Testing

/// Maps and registries the CLI hands the gateway: the plan's picture under
/// each plot of the map page, and beacon alerts on the index.
@Suite struct DashboardFloorPlanTests {
    /// A PNG's signature and IHDR: 500 × 600 px, enough to place it.
    static let png = PNGHeader.bytes(width: 500, height: 600)

    @Test func theMapPageDrawsThePictureUnderEveryPlotWithItsOwnClip() async throws {
        var f = try DashboardFixture()
        let header = try #require(ImageHeader(Self.png))
        let plan = SVGPlot.FloorPlan(header: header, bytes: Self.png, x: 0, y: 0, unitsPerPixel: 5)
        let registry = try BeaconRegistry(json: [["mac": "AA:BB:CC:DD:EE:FF", "x": 100, "y": 100]], source: "test")
        f.config.dashboardMaps = ["J1NP": DashboardMap(id: "J1NP", description: "first floor", metersPerUnit: 45.0 / 2250,
                                                       width: 2500, height: 3000, floorPlan: plan)]
        f.config.beaconRegistries = ["J1NP": registry]
        try f.seed()
        let fixture = f
        try await fixture.app.test(.router) { client in
            let cookie = fixture.cookie("vera", role: .viewer)
            let page = try await client.page(.get, "/_dashboard/maps/J1NP", cookie: cookie)
            #expect(page.status == .ok)
            // The floor view, the heatmap and the coverage plot, each clipped by its own id.
            #expect(page.count("<image class=\"floor-plan\"") == 3)
            for id in ["floor-area", "heatmap-area", "coverage-area"] {
                #expect(page.count("<clipPath id=\"\(id)\">") == 1 && page.text.contains("clip-path=\"url(#\(id))\""), "\(id)")
            }
            // All three link to the picture, which is sent once, byte for byte, to logged-in people only.
            #expect(page.count("href=\"/_dashboard/floor-plans/J1NP\"") == 3 && !page.text.contains("data:image"))
            let picture = try await client.execute(uri: "/_dashboard/floor-plans/J1NP", method: .get,
                                                   headers: [.cookie: cookie]) { $0 }
            #expect(picture.status == .ok && picture.headers[.contentType] == "image/png")
            #expect(Array(picture.body.readableBytesView) == Self.png)
            let anonymous = try await client.page(.get, "/_dashboard/floor-plans/J1NP")
            #expect(anonymous.status == .seeOther && anonymous.headers[.location] == "/_dashboard/login?next=%2F_dashboard%2Ffloor-plans%2FJ1NP")
            #expect(try await client.page(.get, "/_dashboard/floor-plans/J2NP", cookie: cookie).status == .notFound)
            // Over a picture the floor is not filled, or it would hide it.
            #expect(page.text.contains("<rect class=\"outline\"") && page.text.contains("fill=\"none\" stroke=\"#90a4ae\""))
            // The registered beacon is never heard on the surveyed map: an alert on the index.
            let index = try await client.page(.get, "/_dashboard/", cookie: cookie)
            #expect(!index.text.contains("No beacon registry is configured"))
            #expect(index.text.contains("AA:BB:CC:DD:EE:FF"), "\(index.text)")
        }
    }
}

/// The index's beacon alerts count what `fprint beacons --health` counts,
/// Eddystone-TLM telemetry included.
@Suite struct DashboardBeaconAlertTests {
    @Test func aLowBatteryReportedByTelemetryIsAnAlert() async throws {
        var f = try DashboardFixture()
        f.config.beaconRegistries = ["J1NP": try BeaconRegistry(json: [["mac": "C0:C4:42:69:DA:1C", "x": 100, "y": 100],
                                                                          ["mac": "C3:9F:C5:AF:D7:60", "x": 900, "y": 100]],
                                                                 source: "test")]
        guard case .object(var tired) = DashboardFixture.measurement(x: 300, y: 300, owner: "alice",
                                                                     createdAt: ISOTime.string(Date())) else { return }
        tired["bleScans"] = [["address": "C0:C4:42:69:DA:1C", "rssi": -61, "time": 10,
                              "beacon": ["batteryMilliVolts": 2100, "temperature": 21.5]],
                             ["address": "C3:9F:C5:AF:D7:60", "rssi": -70, "time": 20]]
        _ = try f.store.insert([NewDocument(id: "tlm", body: .object(tired))])
        let fixture = f
        try await fixture.app.test(.router) { client in
            let index = try await client.page(.get, "/_dashboard/", cookie: fixture.cookie("vera", role: .viewer))
            #expect(index.text.contains("C0:C4:42:69:DA:1C") && index.text.contains("battery 2100 mV"), "\(index.text)")
            // The other beacon was heard just now, with no telemetry: nothing to say about it.
            #expect(!index.text.contains("C3:9F:C5:AF:D7:60"))
            // The alert says where the beacon is and links to it on its map, where it is drawn.
            #expect(index.text.contains("href=\"/_dashboard/maps/J1NP#beacon-C0C44269DA1C\"") && index.text.contains("at (100, 100)"))
            let map = try await client.page(.get, "/_dashboard/maps/J1NP", cookie: fixture.cookie("vera", role: .viewer))
            #expect(map.text.contains("<g class=\"beacon\" id=\"beacon-C0C44269DA1C\"") && map.count("<g class=\"beacon\"") == 2)
            // The heatmap marks the transmitter it shows and the map's other beacon, as `fprint plot heatmap` does.
            #expect(map.count("<path class=\"transmitter\"") == 1 && map.count("<path class=\"beacon\"") == 1, "\(map.text)")
        }
    }

    /// As `fprint beacons --health` counts: a map nobody surveyed says so, not "every beacon is fine"
    /// and not a "never heard" line per beacon.
    @Test func aMapNobodySurveyedIsSaidToBeSo() async throws {
        var f = try DashboardFixture()
        try f.seed()
        f.config.beaconRegistries = [
            "J1NP": try BeaconRegistry(json: [["mac": "C0:00:00:00:00:99", "x": 100, "y": 100]], source: "test"),
            "J9NP": try BeaconRegistry(json: [["mac": "D0:00:00:00:00:01", "x": 1, "y": 1], ["mac": "D0:00:00:00:00:02", "x": 2, "y": 2]],
                                       source: "test"),
        ]
        let fixture = f
        try await fixture.app.test(.router) { client in
            let index = try await client.page(.get, "/_dashboard/", cookie: fixture.cookie("vera", role: .viewer))
            #expect(index.text.contains("not surveyed yet: no measurement on this map (2 never heard)"), "\(index.text)")
            #expect(!index.text.contains("D0:00:00:00:00:01") && !index.text.contains("Every registered beacon is fine"))
            #expect(index.text.contains("J1NP C0:00:00:00:00:99</a>\nat (100, 100): never heard"), "\(index.text)")
        }
    }
}

import FPCore
import Testing
@testable import FPConfig

/// A map's geo anchor turns GNSS fixes into map points and back.
@Suite struct MapGeoTests {
    let scale = MapScale(meters: 1, units: 10)  // 10 units a metre

    @Test func northUpPlansGrowDownwardToTheSouth() {
        let geo = MapGeo(lat: 50.2040, long: 15.8296, at: MapPoint(x: 100, y: 200))
        let north = LocalTangentPlane(originLat: 50.2040, originLong: 15.8296).coordinate(east: 0, north: 10)
        let p = geo.point(lat: north.lat, long: north.long, scale: scale)
        #expect(abs(p.x - 100) < 1e-6 && abs(p.y - 100) < 1e-6, "10 m north is 100 units up: \(p)")
    }

    @Test func aPlanTurnedEastHasEastUp() {
        let geo = MapGeo(lat: 50.2040, long: 15.8296, at: MapPoint(x: 100, y: 200), bearingDeg: 90)
        let east = LocalTangentPlane(originLat: 50.2040, originLong: 15.8296).coordinate(east: 10, north: 0)
        let p = geo.point(lat: east.lat, long: east.long, scale: scale)
        #expect(abs(p.x - 100) < 1e-6 && abs(p.y - 100) < 1e-6, "with up to the east, 10 m east is 100 units up: \(p)")
    }

    @Test(arguments: [0.0, 37.5, -120, 180])
    func pointsAndCoordinatesRoundTrip(bearing: Double) {
        let geo = MapGeo(lat: -33.8568, long: 151.2153, at: MapPoint(x: 40, y: 60), bearingDeg: bearing)
        for point in [MapPoint(x: 0, y: 0), MapPoint(x: 2500, y: 3000), MapPoint(x: 40, y: 60)] {
            let c = geo.coordinate(of: point, scale: scale)
            let back = geo.point(lat: c.lat, long: c.long, scale: scale)
            #expect(abs(back.x - point.x) < 1e-6 && abs(back.y - point.y) < 1e-6, "\(point) → \(c) → \(back)")
        }
    }

    @Test func theAppConfigReadsAndChecksIt() throws {
        func config(_ geo: String) throws -> AppConfig {
            try AppConfig(json: try CanonicalJSON.parse(#"{"gatewayURL":"http://127.0.0.1:5984/fprint","authURL":"http://127.0.0.1:5984/_session","scenariosURL":"s.json","maps":[{"id":"A","location":"","description":"","mapURL":"","geo":\#(geo)}]}"#), source: "app.json")
        }
        let map = try #require(try config(#"{"lat":50.2,"long":15.8,"x":3,"y":4,"bearingDeg":12}"#).maps.first)
        #expect(map.geo == MapGeo(lat: 50.2, long: 15.8, at: MapPoint(x: 3, y: 4), bearingDeg: 12))
        #expect(try config(#"{"lat":50.2,"long":15.8}"#).maps.first?.geo == MapGeo(lat: 50.2, long: 15.8))
        #expect(throws: ConfigError.self) { try config(#"{"lat":91,"long":15.8}"#) }
        #expect(throws: ConfigError.self) { try config(#"{"long":15.8}"#) }
        do { _ = try config(#"{"lat":"50","long":15.8}"#) } catch { #expect("\(error)".contains("$.maps[0].geo.lat"), "\(error)") }
    }
}

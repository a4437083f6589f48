import FPCore
import Foundation

/// Where a map lies on the Earth (`maps[].geo`): the latitude/longitude of
/// one map point and the bearing of the map's "up" (clockwise from true
/// north). Plans are pictures, so y grows downward. `probe --every --here`
/// places runs from GNSS with it.
package struct MapGeo: Sendable, Equatable {
    package var lat: Double
    package var long: Double
    /// The map point (map units) at lat/long.
    package var at: MapPoint
    package var bearingDeg: Double

    package init(lat: Double, long: Double, at: MapPoint = MapPoint(x: 0, y: 0), bearingDeg: Double = 0) {
        (self.lat, self.long, self.at, self.bearingDeg) = (lat, long, at, bearingDeg)
    }

    /// The map point of a latitude/longitude.
    package func point(lat: Double, long: Double, scale: MapScale) -> MapPoint {
        let en = LocalTangentPlane(originLat: self.lat, originLong: self.long).eastNorth(lat: lat, long: long)
        // Turn east/north back into the map's right/up (the map is turned by the bearing).
        let theta = bearingDeg * .pi / 180
        let right = en.east * cos(theta) - en.north * sin(theta)
        let up = en.east * sin(theta) + en.north * cos(theta)
        return MapPoint(x: at.x + right / scale.metersPerUnit, y: at.y - up / scale.metersPerUnit)
    }

    /// The latitude/longitude of a map point.
    package func coordinate(of point: MapPoint, scale: MapScale) -> (lat: Double, long: Double) {
        let right = (point.x - at.x) * scale.metersPerUnit, up = (at.y - point.y) * scale.metersPerUnit
        let theta = bearingDeg * .pi / 180
        return LocalTangentPlane(originLat: lat, originLong: long)
            .coordinate(east: right * cos(theta) + up * sin(theta), north: -right * sin(theta) + up * cos(theta))
    }

    /// `{"lat", "long", "x", "y", "bearingDeg"}` as the app config keeps it.
    package var json: JSONValue {
        .object(JSONObject(["lat": .double(lat), "long": .double(long), "x": .double(at.x), "y": .double(at.y),
                            "bearingDeg": .double(bearingDeg)]))
    }

    /// Reads `maps[i].geo`.
    static func read(_ value: JSONValue, at path: String, reader r: JSONReader) throws(ConfigError) -> MapGeo {
        let o = try r.object(value, at: path)
        let lat = try r.number(o, "lat", at: path), long = try r.number(o, "long", at: path)
        guard (-90...90).contains(lat) else { throw r.error("\(path).lat", "expected degrees −90…90, found \(lat)") }
        guard (-180...180).contains(long) else { throw r.error("\(path).long", "expected degrees −180…180, found \(long)") }
        // The map point and bearing default to the plan's corner and north up.
        let x = o["x"] == nil ? 0 : try r.number(o, "x", at: path)
        let y = o["y"] == nil ? 0 : try r.number(o, "y", at: path)
        let bearing = o["bearingDeg"] == nil ? 0 : try r.number(o, "bearingDeg", at: path)
        return MapGeo(lat: lat, long: long, at: MapPoint(x: x, y: y), bearingDeg: bearing)
    }
}

import FPConfig
import FPCore
import Foundation

/// Points and calibrations as typed on the command line: `"x,y x,y …"`
/// (map units; for a new map, the picture's pixels) and `"x1,y1 x2,y2 12.5m"`.
/// Errors name the option and the part that is wrong.
enum PlanGeometryText {
    static func points(_ text: String, option: String) throws -> [MapPoint] {
        let parts = text.split(whereSeparator: { $0 == " " || $0 == ";" || $0 == "\n" })
        guard !parts.isEmpty else { throw CommandFailure("\(option): no points given (write them as \"x,y x,y …\")", .usage) }
        return try parts.enumerated().map { i, part in try point(String(part), option: option, index: i + 1) }
    }

    static func point(_ text: String, option: String, index: Int) throws -> MapPoint {
        let xy = text.split(separator: ",", omittingEmptySubsequences: false)
        guard xy.count == 2, let x = Double(xy[0]), let y = Double(xy[1]), x.isFinite, y.isFinite else {
            throw CommandFailure("\(option): point \(index) \"\(text)\" is not x,y (two numbers and a comma, no spaces)", .usage)
        }
        return MapPoint(x: x, y: y)
    }

    /// Two points and the metres between them: what one map unit measures.
    static func calibration(_ text: String) throws -> (a: MapPoint, b: MapPoint, meters: Double) {
        let parts = text.split(separator: " ").map(String.init)
        guard parts.count == 3 else {
            throw CommandFailure("--calibrate: expected \"x1,y1 x2,y2 DISTANCEm\" (two points in picture pixels and the metres between them), got \"\(text)\"", .usage)
        }
        let a = try point(parts[0], option: "--calibrate", index: 1), b = try point(parts[1], option: "--calibrate", index: 2)
        var distance = parts[2].lowercased()
        if distance.hasSuffix("m") { distance.removeLast() }
        guard let meters = Double(distance), meters.isFinite, meters > 0 else {
            throw CommandFailure("--calibrate: \"\(parts[2])\" is not a distance in metres above 0 (e.g. 12.5m)", .usage)
        }
        guard a.distance(to: b) > 0 else {
            throw CommandFailure("--calibrate: the two points are the same (\(text)); pick two points a known distance apart", .usage)
        }
        return (a, b, meters)
    }

    /// `"LAT,LONG [X,Y [BEARING]]"`: the map point X,Y (default 0,0) at
    /// LAT,LONG, the plan's up BEARING degrees clockwise from north.
    static func geo(_ text: String) throws -> MapGeo {
        let parts = text.split(separator: " ").map(String.init)
        let form = "expected \"LAT,LONG [X,Y [BEARING]]\" (degrees, the map point at them, the plan's up in degrees from north)"
        guard (1...3).contains(parts.count) else { throw CommandFailure("--geo: \(form), got \"\(text)\"", .usage) }
        let latLong = parts[0].split(separator: ",", omittingEmptySubsequences: false)
        guard latLong.count == 2, let lat = Double(latLong[0]), let long = Double(latLong[1]) else {
            throw CommandFailure("--geo: \"\(parts[0])\" is not LAT,LONG in degrees (e.g. 50.2093,15.8328)", .usage)
        }
        guard (-90...90).contains(lat), (-180...180).contains(long) else {
            throw CommandFailure("--geo: latitude must be −90…90 and longitude −180…180 degrees, got \(parts[0])", .usage)
        }
        let at = parts.count > 1 ? try point(parts[1], option: "--geo", index: 2) : MapPoint(x: 0, y: 0)
        var bearing = 0.0
        if parts.count > 2 {
            guard let b = Double(parts[2]), (-360...360).contains(b) else {
                throw CommandFailure("--geo: bearing \"\(parts[2])\" is not degrees −360…360", .usage)
            }
            bearing = b
        }
        return MapGeo(lat: lat, long: long, at: at, bearingDeg: bearing)
    }
}

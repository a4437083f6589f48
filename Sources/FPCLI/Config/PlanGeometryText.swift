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
}

import Foundation

/// Metres east and north of an origin ↔ latitude/longitude, on the WGS-84
/// ellipsoid's local tangent plane: exact enough (far below GNSS noise) for
/// points a few hundred metres from the origin, which a building's are.
public struct LocalTangentPlane: Sendable, Equatable {
    public var originLat: Double
    public var originLong: Double

    public init(originLat: Double, originLong: Double) {
        (self.originLat, self.originLong) = (originLat, originLong)
    }

    /// The radii of curvature along the meridian and across it at the origin.
    private var radii: (meridian: Double, normal: Double) {
        let a = 6_378_137.0, f = 1 / 298.257_223_563
        let e2 = f * (2 - f)
        let phi = originLat * .pi / 180
        let w = 1 - e2 * sin(phi) * sin(phi)
        return (a * (1 - e2) / (w * w.squareRoot()), a / w.squareRoot())
    }

    public func coordinate(east: Double, north: Double) -> (lat: Double, long: Double) {
        let r = radii
        return (originLat + north / r.meridian * 180 / .pi,
                originLong + east / (r.normal * cos(originLat * .pi / 180)) * 180 / .pi)
    }

    public func eastNorth(lat: Double, long: Double) -> (east: Double, north: Double) {
        let r = radii
        return ((long - originLong) * .pi / 180 * r.normal * cos(originLat * .pi / 180),
                (lat - originLat) * .pi / 180 * r.meridian)
    }
}

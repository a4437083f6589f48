import Testing
@testable import FPCore

@Suite struct RouteTests {
    // The J1NP loop of Radio F-Prints: segments of 637, 1162, 1171, 1180 and 506 units.
    let route = Route(waypoints: [
        MapPoint(x: 1000, y: 1863), MapPoint(x: 363, y: 1863), MapPoint(x: 363, y: 701),
        MapPoint(x: 1534, y: 701), MapPoint(x: 1534, y: 1881), MapPoint(x: 1028, y: 1881),
    ])!

    @Test func lengthIsTheSumOfSegments() {
        #expect(route.length == 637 + 1162 + 1171 + 1180 + 506)
    }

    @Test(arguments: [
        (0.0, 1000.0, 1863.0), (637.0, 363.0, 1863.0), (700.0, 363.0, 1800.0),
        (637.0 + 1162 + 100, 463.0, 701.0), (4656.0, 1028.0, 1881.0), (99_999.0, 1028.0, 1881.0), (-5.0, 1000.0, 1863.0),
    ])
    func pointsAlongTheRoute(d: Double, x: Double, y: Double) {
        let p = route.point(atDistance: d)
        #expect(abs(p.x - x) < 1e-9 && abs(p.y - y) < 1e-9)
    }

    @Test func nextWaypoint() {
        #expect(route.nextWaypointIndex(atDistance: 0) == 1)
        #expect(route.nextWaypointIndex(atDistance: 700) == 2)
        #expect(route.nextWaypointIndex(atDistance: 5000) == 5)
    }

    @Test func needsTwoWaypoints() {
        #expect(Route(waypoints: [MapPoint(x: 0, y: 0)]) == nil)
    }

    @Test func paceFormula() {
        #expect(WalkPace(correction: 0).metersPerSecond == 1.0)
        #expect(WalkPace(correction: -10).metersPerSecond == 0.5)
        #expect(WalkPace(correction: 10).metersPerSecond == 1.5)
        #expect(WalkPace(correction: 0).unitsPerSecond(scale: .jBuilding) == 50)
    }
}

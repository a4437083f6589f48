import FPCore
import Foundation
import Testing
@testable import FPCLI

/// A walk's "get ready" countdown and its guidance in metres and direction (issue 12).
@Suite("Walk guidance")
struct WalkGuidanceTests {
    @Test(arguments: [
        ((10.0, 0.0), "→ right"), ((10.0, -10.0), "↗ up-right"), ((0.0, -10.0), "↑ up"), ((-10.0, -10.0), "↖ up-left"),
        ((-10.0, 0.0), "← left"), ((-10.0, 10.0), "↙ down-left"), ((0.0, 10.0), "↓ down"), ((10.0, 10.0), "↘ down-right"),
        ((10.0, 3.0), "→ right"), ((3.0, 10.0), "↓ down"),
    ])
    func directionsOnThePlanHaveYGrowingDown(delta: (Double, Double), expected: String) {
        #expect(WalkGuidance.direction(dx: delta.0, dy: delta.1) == expected)
    }

    @Test func theNextWaypointIsGivenInMetres() throws {
        let route = try #require(Route(waypoints: [MapPoint(x: 1000, y: 1863), MapPoint(x: 363, y: 1863), MapPoint(x: 363, y: 701)]))
        #expect(WalkGuidance.toward(1, of: route, from: MapPoint(x: 995, y: 1863), scale: .jBuilding) == "next: waypoint 2, 12.6 m ← left")
        #expect(WalkGuidance.toward(2, of: route, from: MapPoint(x: 363, y: 701), scale: .jBuilding) == "next: waypoint 3, 0.0 m")
    }

    @Test func aPipedWalkAsksForItsCountdownAndShowsMetres() async throws {
        let fp = try FprintRunner()
        let w = try await fp.run(["walk", "--scenario", "scenarioJ1NP1", "--simulate", "--fast", "--ready", "2"])
        #expect(w.status == 0, "\(w.stderr)")
        let lines = w.stderr.split(separator: "\n").map(String.init)
        let at = "stand at waypoint 1 (1000, 1863) = 20.0 m right, 37.3 m down from the plan's origin"
        let ready = try #require(lines.firstIndex(of: "get ready: the walk starts in 2 s; \(at)"))
        #expect(lines[ready + 1] == "get ready: the walk starts in 1 s; \(at)")
        #expect(lines[ready + 2] == "go: walk with the target")
        let firstProgress = try #require(lines.first { $0.hasPrefix("walk  ") })
        #expect(firstProgress.contains("next: waypoint 2, 12.6 m ← left"), "\(firstProgress)")
        #expect(firstProgress.contains("target (19.9, 37.3) m"), "\(firstProgress)")  // 0.1 s along, 0.1 m left of waypoint 1
    }

    @Test func noCountdownWhenPipedUnlessAsked() async throws {
        let fp = try FprintRunner()
        let w = try await fp.run(["walk", "--scenario", "scenarioJ1NP1", "--simulate", "--fast"])
        #expect(w.status == 0, "\(w.stderr)")
        #expect(!w.stderr.contains("get ready"))
    }

    @Test func ctrlCDuringTheCountdownStoresNothing() async throws {
        let fp = try FprintRunner()
        let w = try await fp.run(["walk", "--scenario", "scenarioJ1NP1", "--simulate", "--ready", "60"], interruptAfter: 1)
        #expect(w.status == 130)
        #expect(w.stderr.contains("get ready"))
        #expect(w.stderr.contains("interrupted: nothing stored"), "\(w.stderr)")
        #expect(w.stdout.isEmpty)
    }
}

import FPCore
import Testing

@testable import FPCLI
@testable import FPConfig

/// Floors as they are walked in `track --simulate`: stairs that take seconds
/// and blend the two floors' signals, a lift whose car shields every signal.
@Suite struct FloorPassageTests {
    /// 100 m on floor 1 (map A), then `via` to floor 2 (map B, 100 m more), at 1 m/s and 1 unit = 1 m.
    func simulation(via: FloorTransition, floors: [String: Int] = ["A": 1, "B": 2]) throws -> TrackSimulation {
        let next = Scenario.Leg(mapID: "B", route: try #require(Route(waypoints: [MapPoint(x: 100, y: 10), MapPoint(x: 100, y: 110)])), via: via)
        let scenario = try #require(Scenario(scenarioID: "s", name: "s", mapID: "A", points: [MapPoint(x: 0, y: 0), MapPoint(x: 100, y: 0)],
                                             then: [next]))
        return TrackSimulation(scenario: scenario, environments: [], floors: floors, pace: WalkPace(correction: 0),
                               scale: MapScale(meters: 1, units: 1), seed: 1)
    }

    @Test func stairsBlendTheFloorsOverFifteenSeconds() throws {
        let sim = try simulation(via: .stairs)
        // 100 s walking, 15 s of stairs, 100 s walking.
        #expect(sim.durationMs == 215_000)
        #expect(sim.lossDb(from: "A", atMs: 100_000) == 0 && sim.lossDb(from: "B", atMs: 100_000) == 15)
        // Halfway up, each floor is half a floor away; the one left fades as the next grows.
        #expect(sim.lossDb(from: "A", atMs: 107_500) == 8 && sim.lossDb(from: "B", atMs: 107_500) == 8)
        #expect(sim.lossDb(from: "A", atMs: 104_000)! < sim.lossDb(from: "A", atMs: 111_000)!)
        #expect(sim.lossDb(from: "A", atMs: 115_000) == 15 && sim.lossDb(from: "B", atMs: 115_000) == 0)
        // The true floor is the nearer one; the walker moves from the stairs' foot to their head.
        #expect(sim.truth(atMs: 107_000).map == "A" && sim.truth(atMs: 108_000).map == "B")
        #expect(sim.truth(atMs: 107_500).point == MapPoint(x: 100, y: 5))
        #expect(sim.truth(atMs: 165_000) == ("B", MapPoint(x: 100, y: 60)))
    }

    @Test func aLiftShieldsEverySignalAndPassesTheFloorsBetween() throws {
        let sim = try simulation(via: .lift, floors: ["A": 3, "B": 1, "M": 2])
        // Doors 8 s and 4 s a floor: 16 s for two floors; then 10 m from the lift to B's route, and its 100 m.
        #expect(sim.durationMs == 226_000)
        // Doors closing: still at floor 3, but inside the car's 10 dB.
        #expect(sim.lossDb(from: "A", atMs: 102_000) == 10 && sim.lossDb(from: "B", atMs: 102_000) == 40)
        // Riding past floor 2 (M), which is the true map there.
        #expect(sim.lossDb(from: "M", atMs: 108_000) == 10 && sim.truth(atMs: 108_000).map == "M")
        // The car stands at its door on each floor; out of it, no car.
        #expect(sim.truth(atMs: 102_000).point == MapPoint(x: 100, y: 0) && sim.truth(atMs: 116_000).point == MapPoint(x: 100, y: 0))
        #expect(sim.lossDb(from: "B", atMs: 115_000) == 10 && sim.lossDb(from: "B", atMs: 116_000) == 0)
    }

    /// Issue 59: the lift's shaft is at one place on every floor it serves, so the
    /// true position does not jump sideways while the car rides (B's route
    /// starts 10 m away: the walker leaves the car and walks there).
    @Test func aLiftIsAtOnePlaceOnEveryFloorItServes() throws {
        let sim = try simulation(via: .lift, floors: ["A": 3, "B": 1, "M": 2])
        let inCar = stride(from: 100_000, through: 116_000, by: 500).map { sim.truth(atMs: $0) }
        #expect(Set(inCar.map(\.map)) == ["A", "M", "B"])
        #expect(inCar.allSatisfy { $0.point == MapPoint(x: 100, y: 0) })
        // Out of the car, the walk to B's first point is walked at the pace, not jumped.
        #expect(sim.truth(atMs: 121_000) == ("B", MapPoint(x: 100, y: 5)))
        #expect(sim.truth(atMs: 126_000) == ("B", MapPoint(x: 100, y: 10)))
    }

    @Test func mapsWithoutAFloorAreHeardOnlyOnThemselves() throws {
        let sim = try simulation(via: .stairs, floors: ["A": 1])
        // No floor for B: no passage (a jump, as two unrelated maps), and A is not heard from B.
        #expect(sim.durationMs == 200_000)
        #expect(sim.lossDb(from: "A", atMs: 50_000) == 0 && sim.lossDb(from: "B", atMs: 50_000) == nil)
        #expect(sim.lossDb(from: "A", atMs: 150_000) == nil && sim.lossDb(from: "B", atMs: 150_000) == 0)
    }

    /// What a sample loses on its way, and when that puts it below the receiver.
    @Test func aLoweredSampleIsDroppedBelowTheSensitivity() {
        let scan = BLEScan(address: "AA:BB:CC:DD:EE:FF", addressType: "public", rssi: -80, time: 5)
        #expect(TrackSimulation.lowered(.ble(scan), by: 15, sensitivityDbm: -100) == .ble(BLEScan(address: scan.address, addressType: "public", rssi: -95, time: 5)))
        #expect(TrackSimulation.lowered(.ble(scan), by: 25, sensitivityDbm: -100) == nil)
        #expect(TrackSimulation.lowered(.ble(scan), by: 0, sensitivityDbm: -60) == .ble(scan))
    }
}

/// Issue 59: where each floor is left or reached, from the scenarios that cross floors.
@Suite struct FloorPassagePlacesTests {
    @Test func stairsEndsAndALiftsCarOnEveryFloorItServes() throws {
        func leg(_ map: String, _ points: [(Double, Double)], via: FloorTransition) throws -> Scenario.Leg {
            Scenario.Leg(mapID: map, route: try #require(Route(waypoints: points.map { MapPoint(x: $0.0, y: $0.1) })), via: via)
        }
        let up = try #require(Scenario(scenarioID: "up", name: "up", mapID: "F1", points: [MapPoint(x: 0, y: 0), MapPoint(x: 50, y: 0)],
                                       then: [try leg("F2", [(55, 5), (55, 40)], via: .stairs)]))
        let down = try #require(Scenario(scenarioID: "down", name: "down", mapID: "F3", points: [MapPoint(x: 0, y: 90), MapPoint(x: 20, y: 90)],
                                         then: [try leg("F1", [(30, 80), (30, 60)], via: .lift)]))
        let flat = try #require(Scenario(scenarioID: "flat", name: "flat", mapID: "F1", points: [MapPoint(x: 0, y: 0), MapPoint(x: 9, y: 9)]))
        let places = ScenarioSet(scenarios: [up, down, flat]).passages(floors: ["F1": 1, "F2": 2, "F3": 3])
        // Stairs: the leg before ends there, the one after starts there; the lift: its car at (20, 90) on floors 3, 2 and 1.
        #expect(places["F1"] == [MapPoint(x: 50, y: 0), MapPoint(x: 20, y: 90)])
        #expect(places["F2"] == [MapPoint(x: 55, y: 5), MapPoint(x: 20, y: 90)])
        #expect(places["F3"] == [MapPoint(x: 20, y: 90)])
    }
}

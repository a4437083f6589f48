import FPCore
import Foundation
import Testing

@testable import FPConfig

/// A scenario's optional `then` legs: the route goes on over other maps (`fprint track --simulate`).
@Suite struct ScenarioLegsTests {
    @Test func theShippedFloorChangeGoesFromJ2NPToJ3NP() throws {
        let config = try AppConfig.parse(
            Data(contentsOf: Support.repoRoot.appendingPathComponent("Config/app-config.json")), source: "app-config.json")
        let set = try ScenarioSet.parse(
            Data(contentsOf: Support.repoRoot.appendingPathComponent("Scenarios/scenarios.json")), source: "scenarios.json",
            appConfig: config)
        let s = try #require(set.scenario(id: "scenarioJ2J3"))
        #expect(s.legs.map(\.mapID) == ["J2NP", "J3NP"])
        // A walk records one map: its own points are the J2NP part alone.
        #expect(s.mapID == "J2NP" && s.route == s.legs[0].route && s.then.count == 1)
        // The stairs: the J3NP leg starts within a few metres of where the J2NP leg ends.
        let gap = s.points.last!.distance(to: s.then[0].route.waypoints[0]) * MapScale.jBuilding.metersPerUnit
        #expect(gap < 5)
        #expect(s.then[0].via == .stairs)
        // Two floors down by lift, starting near where the J3NP leg ends.
        let lift = try #require(set.scenario(id: "scenarioJ3J1"))
        #expect(lift.legs.map(\.mapID) == ["J3NP", "J1NP"] && lift.then[0].via == .lift)
        #expect(lift.points.last!.distance(to: lift.then[0].route.waypoints[0]) * MapScale.jBuilding.metersPerUnit < 5)
        // Scenarios without `then` have one leg.
        #expect(set.scenario(id: "scenarioJ1NP1")?.legs.count == 1)
    }

    @Test(arguments: [
        (#"{"mapID": "J9NP", "points": [{"X": 1, "Y": 1}, {"X": 2, "Y": 2}]}"#,
         #"s.json: $.scenarios[0].then[0].mapID: "J9NP" names no map of the app config (maps: J1NP, J2NP)"#),
        (#"{"mapID": "J2NP", "points": [{"X": 1, "Y": 1}]}"#, "s.json: $.scenarios[0].then[0].points: a leg needs at least 2 points"),
        (#"{"mapID": "J2NP"}"#, "s.json: $.scenarios[0].then[0].points: missing (expected an array)"),
        (#"{"mapID": "J2NP", "via": "rope", "points": [{"X": 1, "Y": 1}, {"X": 2, "Y": 2}]}"#,
         #"s.json: $.scenarios[0].then[0].via: "rope" is not a way between floors (stairs or lift)"#),
    ])
    func badLegsAreNamed(leg: String, message: String) throws {
        let config = try AppConfig.parse(Support.fixtureData("app-config.json"), source: "app-config.json")
        let text = #"{"scenarios": [{"scenarioID": "s", "name": "n", "mapID": "J1NP", "points": [{"X": 1, "Y": 1}, {"X": 5, "Y": 5}], "then": ["#
            + leg + "]}]}"
        #expect(throws: ConfigError(message)) { try ScenarioSet.parse(Data(text.utf8), source: "s.json", appConfig: config) }
    }
}

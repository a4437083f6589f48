import FPCore
import FPNet
import Foundation
import Testing

@testable import FPConfig

@Suite struct ConfigParsingTests {
    // MARK: The Radio F-Prints fixtures

    @Test func readsTheFixtureAppConfig() throws {
        let config = try AppConfig.parse(Support.fixtureData("app-config.json"), source: "app-config.json")
        #expect(config.gatewayURL == "http://beacon.uhk.cz/beacongw")
        #expect(config.authURL == "http://beacon.uhk.cz/auth")
        #expect(config.scenariosURL == "http://beacon.uhk.cz/app-scenario.json")
        #expect(config.maps.map(\.id) == ["J1NP", "J2NP"])
        let j1 = try #require(config.map(id: "J1NP"))
        #expect(j1.location == "Univerzita Hradec Králové")
        #expect(j1.description == "Hradecká 1249/6 - Budova J 1NP")
        #expect(j1.mapURL == "http://beacon.uhk.cz/fimnav-webview/?map=J1NP")
        #expect(j1.scale == .jBuilding)  // the old config has no scale
        #expect(j1.floor == nil)
    }

    @Test func readsTheFixtureScenarios() throws {
        let config = try AppConfig.parse(Support.fixtureData("app-config.json"), source: "app-config.json")
        let set = try ScenarioSet.parse(Support.fixtureData("app-scenario.json"), source: "app-scenario.json",
                                        appConfig: config)
        #expect(set.scenarios.map(\.scenarioID) == ["scenarioJ1NP1", "scenarioJ2NP1"])
        let j1 = try #require(set.scenario(id: "scenarioJ1NP1"))
        #expect(j1.name == "FIM UHK - 1 NP (okruh)")
        #expect(j1.mapID == "J1NP")
        #expect(j1.points.count == 6)
        #expect(j1.points.first == MapPoint(x: 1000, y: 1863))
        #expect(j1.points.last == MapPoint(x: 1028, y: 1881))
        #expect(j1.route.waypoints == j1.points)
        #expect(set.scenario(id: "scenarioJ2NP1")?.points.count == 10)
    }

    /// The copies in Fixtures/ must stay identical to the shared originals.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: sharedFixtures.path),
                   "../shared/fixtures is not checked out next to the repository"))
    func fixtureCopiesMatchTheSharedOriginals() throws {
        let pairs = [("app-config.json", "radio-fprints/app-config.json"),
                     ("app-scenario.json", "radio-fprints/app-scenario.json"),
                     ("fim-beacons.json", "beacons/fim-beacons.json")]
        for (copy, original) in pairs {
            let shared = try Data(contentsOf: Self.sharedFixtures.appendingPathComponent(original))
            #expect(try Support.fixtureData(copy) == shared, "Fixtures/\(copy) differs from shared/fixtures/\(original)")
        }
    }

    static let sharedFixtures = Support.repoRoot.deletingLastPathComponent().appendingPathComponent("shared/fixtures")

    // MARK: Shipped data

    @Test func theShippedConfigAndScenariosLoad() throws {
        let loader = ConfigLoader(cacheDirectory: "/nonexistent", transport: NoNetwork())
        let loaded = try loader.load(from: Support.repoRoot.appendingPathComponent("Config/app-config.json").path)
        #expect(!loaded.fromCache)
        #expect(loaded.warning == nil)
        #expect(loaded.baseDirectory == Support.repoRoot.appendingPathComponent("Config").path)
        #expect(loaded.scenariosSource == Support.repoRoot.appendingPathComponent("Scenarios/scenarios.json").path)

        let config = loaded.appConfig
        #expect(config.gatewayURL == "http://127.0.0.1:5984/fprint")
        #expect(config.authURL == "http://127.0.0.1:5984/_session")
        #expect(config.scenariosURL == "../Scenarios/scenarios.json")
        #expect(config.maps.map(\.id) == ["J1NP", "J2NP", "J3NP"])
        for (i, map) in config.maps.enumerated() {
            #expect(map.scale == MapScale(meters: 45, units: 2250))
            #expect(map.floor == i + 1)
            #expect(map.extent == MapExtent(width: 2500, height: 3000))
            #expect(map.description.hasSuffix("Budova J \(i + 1)NP"))
            #expect(map.mapURL == "http://beacon.uhk.cz/fimnav-webview/?map=\(map.id)")
        }

        // The two fixture scenarios verbatim, then the J3NP loop.
        let fixture = try ScenarioSet.parse(Support.fixtureData("app-scenario.json"), source: "fixture")
        #expect(Array(try loaded.scenarios.scenarios.prefix(2)) == fixture.scenarios)
        #expect(try loaded.scenarios.scenarios.map(\.scenarioID) == ["scenarioJ1NP1", "scenarioJ2NP1", "scenarioJ3NP1", "scenarioJ2J3", "scenarioJ3J1"])
    }

    /// The J3NP loop: 6–10 waypoints, axis-aligned segments, inside the
    /// bounding box of the J3NP beacons, and a loop (ends near its start).
    @Test func theJ3NPLoopStaysAmongTheBeacons() throws {
        let set = try ScenarioSet.parse(
            Data(contentsOf: Support.repoRoot.appendingPathComponent("Scenarios/scenarios.json")), source: "scenarios.json")
        let loop = try #require(set.scenario(id: "scenarioJ3NP1"))
        #expect(loop.name == "FIM UHK - 3 NP (okruh)")
        #expect(loop.mapID == "J3NP")
        #expect((6...10).contains(loop.points.count))

        let registry = try CanonicalJSON.parse(Support.fixtureData("fim-beacons.json"))
        let beacons = (registry.arrayValue ?? []).filter { $0["floor"] == "J3NP" }
        #expect(beacons.count == 17)
        let xs = beacons.compactMap { $0["x"]?.doubleValue }, ys = beacons.compactMap { $0["y"]?.doubleValue }
        let (minX, maxX, minY, maxY) = (try #require(xs.min()), try #require(xs.max()),
                                        try #require(ys.min()), try #require(ys.max()))
        for p in loop.points {
            #expect((minX...maxX).contains(p.x) && (minY...maxY).contains(p.y), "\(p) is outside the beacons' area")
        }
        for (a, b) in zip(loop.points, loop.points.dropFirst()) {
            #expect(a.x == b.x || a.y == b.y, "segment \(a) → \(b) is not axis-aligned")
        }
        let first = try #require(loop.points.first), last = try #require(loop.points.last)
        #expect(first.distance(to: last) < 100)
    }

    // MARK: Bad app configs: exact one-line messages

    static let validMap = #"{"id": "J1NP", "location": "L", "description": "D", "mapURL": "http://m/"}"#

    static func appConfig(maps: String = "[\(validMap)]", gateway: String = #""http://gw/db""#) -> String {
        #"{"gatewayURL": \#(gateway), "authURL": "http://gw/_session", "scenariosURL": "s.json", "maps": \#(maps)}"#
    }

    static let badAppConfigs: [(String, String)] = [
        (appConfig(maps: "[\(validMap), {\"id\": 7, \"location\": \"L\", \"description\": \"D\", \"mapURL\": \"u\"}]"),
         "$.maps[1].id: expected a string, found number"),
        ("{\n  \"gatewayURL\": \"http://gw\",\n  \"authURL\": x\n}",
         "not valid JSON near line 3, column 14: unexpected \"x\" where a value should be"),
        ("{\"maps\": [1, 2,]}", "not valid JSON near line 1, column 16: trailing comma before \"]\""),
        ("{\"gatewayURL\": \"http://gw\"", "not valid JSON near line 1, column 27: unexpected end of the document"),
        ("{\"gatewayURL\": \"http://gw}", "not valid JSON near line 1, column 16: string is never closed"),
        ("", "not valid JSON near line 1, column 1: the document is empty"),
        ("{\"a\": 01}", "not valid JSON near line 1, column 7: numbers must not have leading zeros"),
        ("{\"a\": 1} {}", "not valid JSON near line 1, column 10: unexpected \"{\" after the end of the JSON value"),
        ("{\"description\": \"Budova\u{0A}J\"}",
         "not valid JSON near line 1, column 24: unescaped line break inside a string (did a closing \" go missing?)"),
        ("[]", "$: expected an object, found array"),
        (#"{"authURL": "http://gw/_session", "scenariosURL": "s.json", "maps": []}"#,
         "$.gatewayURL: missing (expected an http(s) URL)"),
        (appConfig(gateway: #""ftp://gw/db""#), "$.gatewayURL: expected an http(s) URL, found \"ftp://gw/db\""),
        (appConfig(gateway: "5984"), "$.gatewayURL: expected an http(s) URL, found number"),
        (appConfig(maps: "[]"), "$.maps: an app config needs at least 1 map, found 0"),
        (appConfig(maps: "{}"), "$.maps: expected an array, found object"),
        (appConfig(maps: "[\(validMap), \(validMap)]"), "$.maps[1].id: duplicate map id \"J1NP\", first used at $.maps[0]"),
        (appConfig(maps: #"[{"id": "", "location": "L", "description": "D", "mapURL": "u"}]"#),
         "$.maps[0].id: must not be empty"),
        (appConfig(maps: #"[{"id": "J1NP", "location": "L", "mapURL": "u"}]"#),
         "$.maps[0].description: missing (expected a string)"),
        (appConfig(maps: #"[{"id": "J1NP", "location": "L", "description": "D", "mapURL": "u", "scale": {"meters": 0, "units": 2250}}]"#),
         "$.maps[0].scale.meters: expected a positive number, found 0"),
        (appConfig(maps: #"[{"id": "J1NP", "location": "L", "description": "D", "mapURL": "u", "scale": {"meters": 45}}]"#),
         "$.maps[0].scale.units: missing (expected a number)"),
        (appConfig(maps: #"[{"id": "J1NP", "location": "L", "description": "D", "mapURL": "u", "floor": "1"}]"#),
         "$.maps[0].floor: expected a whole number, found string"),
        (appConfig(maps: #"[{"id": "J1NP", "location": "L", "description": "D", "mapURL": "u", "floor": 1.5}]"#),
         "$.maps[0].floor: expected a whole number, found 1.5"),
        (appConfig(maps: #"[{"id": "J1NP", "location": "L", "description": "D", "mapURL": "u", "extent": {"width": 2500, "height": -1}}]"#),
         "$.maps[0].extent.height: expected a positive number, found -1"),
        (appConfig(maps: #"[{"id": "J1NP", "location": "L", "description": "D", "mapURL": "u", "extent": {"width": 2500}}]"#),
         "$.maps[0].extent.height: missing (expected a number)"),
        (appConfig(maps: #"[{"id": "J1NP", "location": "L", "description": "D", "mapURL": "u", "outline": [{"x": 0, "y": 0}, {"x": 5, "y": 0}]}]"#),
         "$.maps[0].outline: expected at least 3 points {x, y}, found 2"),
        (appConfig(maps: #"[{"id": "J1NP", "location": "L", "description": "D", "mapURL": "u", "outline": [{"x": 0, "y": 0}, {"x": 5, "y": 0}, {"x": 5, "y": "a"}]}]"#),
         "$.maps[0].outline[2].y: expected a number, found string"),
        (appConfig(maps: #"[{"id": "J1NP", "location": "L", "description": "D", "mapURL": "u", "floorPlan": "J1NP.png"}]"#),
         "$.maps[0].floorPlan: expected an object, found string"),
        (appConfig(maps: #"[{"id": "J1NP", "location": "L", "description": "D", "mapURL": "u", "floorPlan": {"origin": {"x": 0, "y": 0}}}]"#),
         "$.maps[0].floorPlan.image: missing (expected a string)"),
        (appConfig(maps: #"[{"id": "J1NP", "location": "L", "description": "D", "mapURL": "u", "floorPlan": {"image": "p.png", "unitsPerPixel": 0}}]"#),
         "$.maps[0].floorPlan.unitsPerPixel: expected a positive number, found 0"),
        (appConfig(maps: #"[{"id": "J1NP", "location": "L", "description": "D", "mapURL": "u", "floorPlan": {"image": "p.png", "origin": {"x": 1}}}]"#),
         "$.maps[0].floorPlan.origin.y: missing (expected a number)"),
    ]

    @Test(arguments: badAppConfigs)
    func badAppConfigsAreRejectedWithPreciseMessages(_ text: String, _ message: String) {
        #expect(throws: ConfigError("Config/app-config.json: \(message)")) {
            try AppConfig.parse(Data(text.utf8), source: "Config/app-config.json")
        }
    }

    @Test func extrasAreReadAndUnknownKeysIgnored() throws {
        let text = Self.appConfig(maps: #"""
            [{"id": "K1", "location": "L", "description": "D", "mapURL": "u", "floor": -1,
              "scale": {"meters": 10.5, "units": 525}, "color": "red"}]
            """#).replacingOccurrences(of: "}", with: #", "futureKey": [1, 2]}"#)
        let config = try AppConfig.parse(Data(text.utf8), source: "x")
        let map = try #require(config.map(id: "K1"))
        #expect(map.floor == -1)
        #expect(map.scale == MapScale(meters: 10.5, units: 525))
        #expect(map.outline == nil)
    }

    @Test func anOutlineIsReadInOrder() throws {
        let text = Self.appConfig(maps: #"""
            [{"id": "K1", "location": "L", "description": "D", "mapURL": "u",
              "outline": [{"x": 0, "y": 0}, {"x": 100, "y": 0}, {"x": 100, "y": 50.5}, {"x": 0, "y": 50.5}]}]
            """#)
        let map = try #require(try AppConfig.parse(Data(text.utf8), source: "x").map(id: "K1"))
        #expect(map.outline == [MapPoint(x: 0, y: 0), MapPoint(x: 100, y: 0), MapPoint(x: 100, y: 50.5), MapPoint(x: 0, y: 50.5)])
    }

    @Test func aFloorPlanIsReadWithItsDefaults() throws {
        let text = Self.appConfig(maps: #"""
            [{"id": "K1", "location": "L", "description": "D", "mapURL": "u", "floorPlan": {"image": "plans/K1.png"}},
             {"id": "K2", "location": "L", "description": "D", "mapURL": "u",
              "floorPlan": {"image": "/srv/K2.jpg", "origin": {"x": -100, "y": 25.5}, "unitsPerPixel": 2.5}}]
            """#)
        let config = try AppConfig.parse(Data(text.utf8), source: "x")
        #expect(config.map(id: "K1")?.floorPlan == FloorPlanImage(image: "plans/K1.png"))
        #expect(config.map(id: "K2")?.floorPlan == FloorPlanImage(image: "/srv/K2.jpg", origin: MapPoint(x: -100, y: 25.5), unitsPerPixel: 2.5))
    }

    // MARK: Bad scenarios

    static func scenarios(_ points: String = #"[{"X": 1, "Y": 2}, {"X": 3, "Y": 4}]"#, id: String = "s1",
                          mapID: String = "J1NP") -> String {
        #"{"scenarioID": "\#(id)", "name": "N", "mapID": "\#(mapID)", "points": \#(points)}"#
    }

    static let badScenarioSets: [(String, String)] = [
        (#"{"scenarios": [\#(scenarios(#"[{"X": 1, "Y": 2}]"#))]}"#,
         "$.scenarios[0].points: a scenario needs at least 2 points, found 1"),
        (#"{"scenarios": [\#(scenarios("[]"))]}"#, "$.scenarios[0].points: a scenario needs at least 2 points, found 0"),
        (#"{"scenarios": [\#(scenarios()), \#(scenarios())]}"#,
         "$.scenarios[1].scenarioID: duplicate scenario id \"s1\", first used at $.scenarios[0]"),
        (#"{"scenarios": [\#(scenarios(#"[{"X": 1, "Y": 2}, {"X": "3", "Y": 4}]"#))]}"#,
         "$.scenarios[0].points[1].X: expected a number, found string"),
        (#"{"scenarios": [\#(scenarios(#"[{"x": 1, "Y": 2}, {"X": 3, "Y": 4}]"#))]}"#,
         "$.scenarios[0].points[0].X: missing (expected a number; found key \"x\", keys are case-sensitive)"),
        (#"{"scenarios": [\#(scenarios(#"[{"X": 1, "Y": 1e999}, {"X": 3, "Y": 4}]"#))]}"#,
         "not valid JSON near line 1, column 92: number 1e999 is out of range"),
        (#"{"scenarios": [\#(scenarios(#"[[1, 2], [3, 4]]"#))]}"#, "$.scenarios[0].points[0]: expected an object, found array"),
        (#"{"scenarios": {}}"#, "$.scenarios: expected an array, found object"),
        (#"{"scenario": []}"#, "$.scenarios: missing (expected an array)"),
        (#"{"scenarios": [\#(scenarios(mapID: "J9NP"))]}"#,
         "$.scenarios[0].mapID: \"J9NP\" names no map of the app config (maps: J1NP, J2NP)"),
    ]

    @Test(arguments: badScenarioSets)
    func badScenariosAreRejectedWithPreciseMessages(_ text: String, _ message: String) throws {
        let config = try AppConfig.parse(Support.fixtureData("app-config.json"), source: "app-config.json")
        #expect(throws: ConfigError("Scenarios/scenarios.json: \(message)")) {
            try ScenarioSet.parse(Data(text.utf8), source: "Scenarios/scenarios.json", appConfig: config)
        }
    }

    @Test func nonFiniteCoordinatesAreRejected() {
        // JSON text cannot carry infinity (the syntax check calls it out of
        // range); a value built in code can.
        let value: JSONValue = ["scenarios": [["scenarioID": "s", "name": "n", "mapID": "J1NP",
                                               "points": [["X": 1, "Y": .double(.infinity)], ["X": 2, "Y": 2]]]]]
        #expect(throws: ConfigError("mem: $.scenarios[0].points[0].Y: expected a finite number, found infinity")) {
            try ScenarioSet(json: value, source: "mem")
        }
    }

    @Test func intsAndFloatsAreBothCoordinates() throws {
        let text = #"{"scenarios": [\#(Self.scenarios(#"[{"X": 1.5, "Y": 2}, {"X": 3, "Y": -4.25e1}]"#))], "extra": true}"#
        let set = try ScenarioSet.parse(Data(text.utf8), source: "x")
        #expect(set.scenarios.first?.points == [MapPoint(x: 1.5, y: 2), MapPoint(x: 3, y: -42.5)])
        // Without an app config the map ids are not checked.
        #expect(try ScenarioSet.parse(Data(#"{"scenarios": [\#(Self.scenarios(mapID: "ZZ"))]}"#.utf8), source: "x")
            .scenarios.count == 1)
    }

    // MARK: Positions in broken JSON

    @Test func columnsCountCharactersNotBytes() {
        let bytes = Array("{\"popis\": \"Králové\" x}".utf8)
        do {
            _ = try JSONParser.parse(bytes)
            Issue.record("broken JSON was accepted")
        } catch {
            #expect(error.reason == "unexpected \"x\" where \",\" or \"}\" should be")
            #expect(error.line == 1 && error.column == 21)
        }
    }

    @Test func validJSONPassesTheSyntaxCheck() throws {
        for text in [#"{"a": [1, -2.5e+3, true, false, null, "\u00e9\n"], "b": {}}"#, "[]", "0", "\u{FEFF}{}"] {
            #expect((try? JSONParser.parse(Array(text.utf8))) != nil, "\(text)")
        }
        #expect(throws: JSONParseError(offset: 1, line: 1, column: 2, reason: "not UTF-8 text")) {
            try JSONParser.parse([0x7B, 0xFF, 0x7D])
        }
    }
}

/// A transport for tests that must not touch the network.
struct NoNetwork: BlockingHTTPTransport {
    func sendBlocking(_ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        throw HTTPError.unreachable(url: request.url.absoluteString, reason: "no network in this test")
    }
}

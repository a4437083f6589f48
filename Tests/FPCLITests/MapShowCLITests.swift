import Foundation
import Testing

/// `fprint map show ID`: a map's facts as text and JSON, and its drawing
/// (plan, outline, scale bar, points, beacons, routes) as SVG or PNG.
@Suite struct MapShowCLITests {
    /// The command's words (top-level `map-show` until the `fprint map` group exists).
    static let show = ["map", "show"]

    /// J3NP of the shipped config: the plot's scale (720 px for 2,500 units) and where a map point lands.
    static let scale = 720.0 / 2500
    static func pixel(_ x: Double, _ y: Double) -> (x: Int, y: Int) { (Int(50 + x * scale), Int(40 + y * scale)) }

    func measure(_ fp: FprintRunner, _ map: String, _ x: Int, _ y: Int) async throws {
        let m = try await fp.run(["measure", "--map", map, "--x", "\(x)", "--y", "\(y)", "--simulate", "--fast",
                                  "--duration", "5", "--seed", "1", "--no-wifi", "--no-cell", "--no-location"])
        #expect(m.status == 0, "\(m.stderr)")
    }

    @Test func textAndJSONSayWhatTheMapIsAndWhatLiesOnIt() async throws {
        let fp = try FprintRunner()
        let empty = try await fp.run(Self.show + ["J3NP"])
        #expect(empty.status == 0, "\(empty.stderr)")
        let text = empty.stdout
        for part in ["map         J3NP (floor 3): Hradecká 1249/6 - Budova J 3NP",
                     "scale       45 m = 2250 map units (0.02 m a unit); the plan is 50 × 60 m",
                     "extent      x 0–2500, y 0–3000 map units", "outline     none (the extent's rectangle)",
                     "floor plan  none", "measured    no database at \(fp.db)",
                     "beacons     17 placed, from ", "Config/beacons/J3NP.json",
                     "routes      scenarioJ3NP1 (", "scenarioJ2J3 (", "scenarioJ3J1 ("] {
            #expect(text.contains(part), "\(part)\n\(text)")
        }

        try await measure(fp, "J3NP", 1000, 1200)
        try await measure(fp, "J3NP", 1000, 1200)
        try await measure(fp, "J3NP", 400, 700)
        try await measure(fp, "J1NP", 400, 700)
        let r = try await fp.run(Self.show + ["J3NP", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let out = try fp.json(r.stdout)
        #expect(out["id"] as? String == "J3NP" && out["floor"] as? Int == 3)
        let scale = try #require(out["scale"] as? [String: Any])
        #expect(scale["metersPerUnit"] as? Double == 0.02 && scale["meters"] as? Double == 45)
        let size = try #require(out["sizeMeters"] as? [String: Any])
        #expect(size["width"] as? Double == 50 && size["height"] as? Double == 60)
        #expect(out["outline"] is NSNull && out["floorPlan"] is NSNull)
        #expect(out["measurements"] as? Int == 3 && out["measuredPoints"] as? Int == 2)
        #expect(out["beacons"] as? Int == 17)
        #expect((out["beaconRegistry"] as? String)?.hasSuffix("Config/beacons/J3NP.json") == true)
        let routes = try #require(out["routes"] as? [[String: Any]])
        #expect(routes.map { $0["scenarioID"] as? String } == ["scenarioJ3NP1", "scenarioJ2J3", "scenarioJ3J1"])
        #expect(routes.allSatisfy { ($0["lengthMeters"] as? Double ?? 0) > 5 })
        let again = try await fp.run(Self.show + ["J3NP"])
        #expect(again.stdout.contains("measured    3 measurements at 2 points in \(fp.db)"), "\(again.stdout)")
    }

    /// The repository's config with J1NP given a floor plan and an outline,
    /// and the scenarios beside the copy.
    func configWithPlan(_ fp: FprintRunner) throws -> [String] {
        let root = FprintRunner.repositoryRoot
        var config = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: root.appendingPathComponent("Config/app-config.json"))) as? [String: Any])
        var maps = try #require(config["maps"] as? [[String: Any]])
        maps[0]["floorPlan"] = ["image": "plan.png", "origin": ["x": -100, "y": -50], "unitsPerPixel": 5]
        maps[0]["outline"] = [["x": 100, "y": 100], ["x": 2300, "y": 100], ["x": 2300, "y": 2900], ["x": 100, "y": 2900]]
        config["maps"] = maps
        config["scenariosURL"] = "scenarios.json"
        try JSONSerialization.data(withJSONObject: config).write(to: fp.home.appendingPathComponent("app-config.json"))
        try Data(contentsOf: root.appendingPathComponent("Scenarios/scenarios.json")).write(to: fp.home.appendingPathComponent("scenarios.json"))
        try Data(contentsOf: FloorPlanCLITests.fixture).write(to: fp.home.appendingPathComponent("plan.png"))
        return ["--config", fp.home.appendingPathComponent("app-config.json").path]
    }

    @Test func theSVGDrawsPlanOutlineScaleBarPointsBeaconsAndRoutes() async throws {
        let fp = try FprintRunner()
        let config = try configWithPlan(fp)
        try await measure(fp, "J1NP", 400, 700)
        let sheet = fp.home.appendingPathComponent("j1.csv")
        try "mac,x,y,name\nAA:00:00:00:00:01,500,600,Door\nAA:00:00:00:00:02,1500,2000,\n".write(to: sheet, atomically: true, encoding: .utf8)
        #expect(try await fp.run(["beacons", "import", sheet.path, "--map", "J1NP"] + config).status == 0)

        let file = fp.home.appendingPathComponent("j1.svg").path
        let r = try await fp.run(Self.show + ["J1NP", "-o", file] + config)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("wrote \(file): 1 measured point, 2 beacons, 2 routes"), "\(r.stderr)")
        let svg = try String(contentsOfFile: file, encoding: .utf8)
        func count(_ s: String) -> Int { svg.components(separatedBy: s).count - 1 }
        #expect(count("<image class=\"floor-plan\"") == 1 && svg.contains("href=\"data:image/png;base64,"))
        #expect(count("<polygon class=\"outline\"") == 1)
        #expect(count("class=\"beacon\"") == 2 && count("class=\"point\"") == 1 && count("<g class=\"route\"") == 2)
        // Labels: the sheet's name, else the address's last two bytes; routes by name.
        #expect(svg.contains(">Door</text>") && svg.contains(">00:02</text>"))
        #expect(svg.contains(">FIM UHK - 1 NP (okruh)</text>") && svg.contains(">FIM UHK - 3 NP, lift, 1 NP (track: two floors down)</text>"))
        // 50 m wide: a 10 m scale bar, 144 px long (720 px for 50 m).
        let bar = try #require(svg.firstMatch(of: /<g class="scale-bar">.*?<path d="M([0-9.]+) [0-9.]+V[0-9.]+H([0-9.]+)V[^"]*".*?>10 m<\/text>/))
        #expect(abs(Double(bar.2)! - Double(bar.1)! - 144) < 0.2)
        // The door beacon's diamond is centred on (500, 600).
        let door = try #require(svg.firstMatch(of: /<path class="beacon" d="M([0-9.]+) ([0-9.]+)L/))
        #expect(abs(Double(door.1)! - (50 + 500 * Self.scale)) < 0.1 && abs(Double(door.2)! + 7 - (40 + 600 * Self.scale)) < 0.1)
    }

    @Test(.enabled(if: PlotPNGTests.canRender)) func thePNGShowsBeaconMarkersWhereTheBeaconsAre() async throws {
        guard PNGRendererProbe.requireInstalled() else { return }
        let fp = try FprintRunner()
        try await measure(fp, "J3NP", 1000, 1200)
        let file = fp.home.appendingPathComponent("j3.png").path
        let r = try await fp.run(Self.show + ["J3NP", "-o", file])
        #expect(r.status == 0, "\(r.stderr)")
        let png = try PNGImage(Data(contentsOf: URL(fileURLWithPath: file)))
        // 800 px wide; 3,000 units high at 720/2,500 px a unit, with title, axes and legend (a row per route: 3) around it.
        #expect(png.width == 800 && png.height == Int(40 + 3000 * Self.scale + 72) + 3 * 18)
        func isBeacon(_ p: (Int, Int, Int)) -> Bool { abs(p.0 - 0xcc) < 12 && p.1 < 12 && abs(p.2 - 0x77) < 12 }
        let registry = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: FprintRunner.repositoryRoot
            .appendingPathComponent("Config/beacons/J3NP.json"))) as? [Any]).compactMap { $0 as? [String: Any] }
        let marked = registry.filter { b in
            let at = Self.pixel(b["x"] as? Double ?? -1, b["y"] as? Double ?? -1)
            return isBeacon(png.rgb(at.x, at.y))
        }
        // A label of a neighbour may cover a marker's centre, never most of them.
        #expect(marked.count >= registry.count - 2, "\(marked.count) of \(registry.count) beacons marked")
        // Nowhere else is that colour but at markers and their labels: the page's corner is white.
        #expect(png.rgb(790, 10) == (255, 255, 255))
        let measured = Self.pixel(1000, 1200)
        #expect(!isBeacon(png.rgb(measured.x, measured.y)))
    }

    @Test(arguments: [
        (["J3NP", "-o", "map.jpg"], Int32(64), "-o map.jpg: the drawing is a .png or an .svg file"),
        (["J3NP", "-o", "map"], Int32(64), "-o map: the drawing is a .png or an .svg file"),
        (["NOPE"], Int32(66), "unknown map 'NOPE'"),
    ])
    func badArgumentsAreNamed(args: [String], status: Int32, message: String) async throws {
        let fp = try FprintRunner()
        let r = try await fp.run(Self.show + args)
        #expect(r.status == status, "\(r.stderr)")
        #expect(r.stderr.contains(message), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: fp.home.appendingPathComponent("map.jpg").path))
    }
}

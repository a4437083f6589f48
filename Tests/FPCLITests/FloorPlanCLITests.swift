import Foundation
import Testing

/// `maps[].floorPlan`: the plan's picture under heatmap, coverage and track
/// plots, placed by its origin and scale, embedded in the SVG.
@Suite struct FloorPlanCLITests {
    static let fixture = FprintRunner.repositoryRoot.appendingPathComponent("Tests/FPCLITests/Fixtures/floor-plan.png")
    let repoConfig = ["--config", FprintRunner.repositoryRoot.appendingPathComponent("Config/app-config.json").path]

    /// The repository's app config with a floor plan for J1NP: `plans/J1NP.png`
    /// beside the copy (450 × 600 px at 5 units a pixel, top left at (−100, −50)).
    func configWithFloorPlan(_ fp: FprintRunner, image: String = "plans/J1NP.png") throws -> [String] {
        let source = FprintRunner.repositoryRoot.appendingPathComponent("Config/app-config.json")
        var config = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: source)) as? [String: Any])
        var maps = try #require(config["maps"] as? [[String: Any]])
        let index = try #require(maps.firstIndex { $0["id"] as? String == "J1NP" })
        maps[index]["floorPlan"] = ["image": image, "origin": ["x": -100, "y": -50], "unitsPerPixel": 5]
        config["maps"] = maps
        let path = fp.home.appendingPathComponent("app-config.json")
        try JSONSerialization.data(withJSONObject: config).write(to: path)
        try FileManager.default.createDirectory(at: fp.home.appendingPathComponent("plans"), withIntermediateDirectories: true)
        return ["--config", path.path]
    }

    /// The seeded J1NP walk every test here plots.
    func walkJ1NP(_ fp: FprintRunner) async throws {
        let walk = try await fp.run(["walk", "--scenario", "scenarioJ1NP1", "--simulate", "--fast", "--seed", "1"] + repoConfig)
        #expect(walk.status == 0, "\(walk.stderr)")
    }

    /// x, y, width and height of the SVG's floor-plan image, and its href.
    func floorPlanImage(_ svg: String) throws -> (x: Double, y: Double, width: Double, height: Double, href: Substring) {
        let m = try #require(svg.firstMatch(of: /<image class="floor-plan" x="([-0-9.]+)" y="([-0-9.]+)" width="([0-9.]+)" height="([0-9.]+)"[^>]* href="([^"]+)"/))
        return (Double(m.1)!, Double(m.2)!, Double(m.3)!, Double(m.4)!, m.5)
    }

    @Test func thePictureIsPlacedByItsOriginAndScaleInEveryMapPlot() async throws {
        let fp = try FprintRunner()
        try await walkJ1NP(fp)
        let config = try configWithFloorPlan(fp)
        let png = try Data(contentsOf: Self.fixture)
        try png.write(to: fp.home.appendingPathComponent("plans/J1NP.png"))

        let heat = fp.home.appendingPathComponent("heat.svg").path
        let h = try await fp.run(["plot", "heatmap", "--map", "J1NP", "--transmitter", "06:13:6F:EB:57:10", "-o", heat] + config)
        #expect(h.status == 0, "\(h.stderr)")
        let image = try floorPlanImage(try String(contentsOfFile: heat, encoding: .utf8))
        // The whole picture, byte for byte, as a data URL: the SVG stands alone.
        #expect(image.href == "data:image/png;base64," + png.base64EncodedString())
        // 450 × 600 px × 5 units: 2,250 × 3,000 units, starting 100 units left of the plan's origin.
        #expect(abs(image.height / image.width - 3000.0 / 2250.0) < 0.002)
        let left = 50.0, scale = image.width / 2250
        #expect(abs((image.x - left) / scale - -100) < 0.5)
        #expect(abs((image.y - 40) / scale - -50) < 0.5)
        // Nothing of the picture is lost: the plot reaches its bottom edge.
        let svg = try String(contentsOfFile: heat, encoding: .utf8)
        let clip = try #require(svg.firstMatch(of: /<clipPath id="heatmap-area"><rect x="[0-9.]+" y="[0-9.]+" width="([0-9.]+)" height="([0-9.]+)"/))
        #expect(Double(clip.2)! / scale >= 2950 - 0.5)

        let coverage = fp.home.appendingPathComponent("coverage.svg").path
        let c = try await fp.run(["plot", "coverage", "--map", "J1NP", "-o", coverage] + config)
        #expect(c.status == 0, "\(c.stderr)")
        #expect(try floorPlanImage(try String(contentsOfFile: coverage, encoding: .utf8)).href == image.href)

        let without = fp.home.appendingPathComponent("plain.svg").path
        let n = try await fp.run(["plot", "heatmap", "--map", "J1NP", "--transmitter", "06:13:6F:EB:57:10", "--no-floor-plan",
                                  "-o", without] + config)
        let plain = try String(contentsOfFile: without, encoding: .utf8)
        #expect(n.status == 0 && !plain.contains("floor-plan"))
    }

    @Test func trackPlotsDrawThePictureToo() async throws {
        let fp = try FprintRunner()
        let config = try configWithFloorPlan(fp, image: Self.fixture.path)  // an absolute path
        let lines = fp.home.appendingPathComponent("walk.jsonl")
        try Data("""
            {"t_ms": 0, "x": 300, "y": 700, "map": "J1NP"}
            {"t_ms": 1000, "x": 400, "y": 720, "map": "J1NP"}

            """.utf8).write(to: lines)
        let out = fp.home.appendingPathComponent("track.svg").path
        let r = try await fp.run(["plot", "track", lines.path, "-o", out] + config)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try floorPlanImage(try String(contentsOfFile: out, encoding: .utf8)).href.hasPrefix("data:image/png;base64,iVBORw0KGgo"))
    }

    @Test func aMissingOrBrokenPictureFailsClearlyAndWritesNothing() async throws {
        let fp = try FprintRunner()
        try await walkJ1NP(fp)
        let config = try configWithFloorPlan(fp)
        let out = fp.home.appendingPathComponent("heat.svg").path
        let args = ["plot", "heatmap", "--map", "J1NP", "--transmitter", "06:13:6F:EB:57:10", "-o", out] + config
        let missing = try await fp.run(args)
        #expect(missing.status == 66, "\(missing.stderr)")
        #expect(missing.stderr.contains("map J1NP: floor plan \(fp.home.path)/plans/J1NP.png: no such file"), "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))

        try Data("not a picture".utf8).write(to: fp.home.appendingPathComponent("plans/J1NP.png"))
        let broken = try await fp.run(args)
        #expect(broken.status == 65 && broken.stderr.contains("is not a PNG, JPEG or SVG image"), "\(broken.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test(.enabled(if: PlotPNGTests.canRender)) func theRenderedPlotShowsThePictureWhereTheConfigPutsIt() async throws {
        guard PNGRendererProbe.requireInstalled() else { return }
        let fp = try FprintRunner()
        try await walkJ1NP(fp)
        let config = try configWithFloorPlan(fp)
        try Data(contentsOf: Self.fixture).write(to: fp.home.appendingPathComponent("plans/J1NP.png"))
        let svgPath = fp.home.appendingPathComponent("heat.svg").path, pngPath = fp.home.appendingPathComponent("heat.png").path
        let args = ["plot", "heatmap", "--map", "J1NP", "--transmitter", "06:13:6F:EB:57:10"] + config
        #expect(try await fp.run(args + ["-o", svgPath]).status == 0)
        #expect(try await fp.run(args + ["-o", pngPath]).status == 0)
        let image = try floorPlanImage(try String(contentsOfFile: svgPath, encoding: .utf8))
        let png = try PNGImage(Data(contentsOf: URL(fileURLWithPath: pngPath)))
        // The picture's red square spans pixels 20–60: its centre, map (100, 150), is
        // red at half opacity over white; the page left of the plot stays white.
        let scale = image.width / 2250
        let (r, g, b) = png.rgb(Int(50 + 100 * scale), Int(40 + 150 * scale))
        #expect(r > 230 && g < 170 && b < 170, "\(r) \(g) \(b)")
        #expect(png.rgb(2, 2) == (255, 255, 255))
    }
}

/// `fprint dashboard` reads the same pictures before it serves: one it
/// cannot read stops it with the plots' message, before it listens.
@Suite struct DashboardFloorPlanCLITests {
    @Test func theLocalDashboardRefusesAMissingPicture() async throws {
        let fp = try FprintRunner()
        try fp.createEmptyDatabase()
        let config = try FloorPlanCLITests().configWithFloorPlan(fp)
        let r = try await fp.run(["dashboard", "--port", "0", "--db", fp.db] + config)
        #expect(r.status == 66, "\(r.stderr)")
        #expect(r.stderr.contains("map J1NP: floor plan \(fp.home.path)/plans/J1NP.png: no such file"), "\(r.stderr)")
        #expect(!r.stderr.contains("serving"))
    }
}

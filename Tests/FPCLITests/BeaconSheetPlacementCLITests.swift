import Foundation
import Testing

/// A facility manager's sheet in metres under a bare `x,y` header is read as
/// map units and lands in the plan's corner: the import says so and how to
/// read it (`--metres`, `--origin` for a datum that is not the picture's
/// corner), and names beacons outside the outline.
@Suite struct BeaconSheetPlacementCLITests {
    /// LAB1: the example plan (1200 × 700 units, 0.025 m a unit), outlined 40…1160 × 40…660.
    static func lab() async throws -> FprintRunner {
        let fp = try FprintRunner()
        let add = try await fp.run(["map", "add", "LAB1", "--image", StairsWalkCLITests.plan, "--floor", "1",
                                    "--calibrate", "100,100 1100,100 25m", "--outline", "40,40 1160,40 1160,660 40,660"])
        #expect(add.status == 0, "\(add.stderr)")
        return fp
    }

    static let sheet = """
        address,x,y
        C0:FF:EE:00:00:01,4.5,6.2
        C0:FF:EE:00:00:02,12,3.5

        """

    func registry(_ fp: FprintRunner) throws -> [[String: Any]] {
        let file = fp.home.appendingPathComponent("config/fprint/beacons/LAB1.json")
        return try #require(JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [[String: Any]])
    }

    @Test func metresReadAsUnitsAreNamedWithTheWayToReadThem() async throws {
        let fp = try await Self.lab()
        let file = fp.home.appendingPathComponent("sheet.csv")
        try Self.sheet.write(to: file, atomically: true, encoding: .utf8)
        let r = try await fp.run(["beacons", "import", file.path, "--map", "LAB1"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("every beacon lies within x ≤ 12, y ≤ 6.2 of a 1200 × 700-unit plan") && r.stderr.contains("--metres"),
                "\(r.stderr)")
        #expect(r.stderr.contains("sheet.csv:2: warning: C0:FF:EE:00:00:01 at (4.5, 6.2) is outside map LAB1's outline"), "\(r.stderr)")

        // Read as metres from a datum at (40, 40): 40 + 4.5 m / 0.025 = 220, 40 + 6.2 / 0.025 = 288
        let metres = try await fp.run(["beacons", "import", file.path, "--map", "LAB1", "--metres", "--origin", "40,40", "--replace"])
        #expect(metres.status == 0, "\(metres.stderr)")
        #expect(!metres.stderr.contains("warning"), "\(metres.stderr)")
        let placed = try registry(fp).map { ($0["x"] as? Double ?? -1, $0["y"] as? Double ?? -1) }
        #expect(placed.map(\.0) == [220, 520] && placed.map(\.1) == [288, 180], "\(placed)")
    }

    @Test func anOriginWithoutMetresOrUnreadableIsRefusedAndNothingWritten() async throws {
        let fp = try await Self.lab()
        let file = fp.home.appendingPathComponent("sheet.csv")
        try Self.sheet.write(to: file, atomically: true, encoding: .utf8)
        let target = fp.home.appendingPathComponent("config/fprint/beacons/LAB1.json").path
        let without = try await fp.run(["beacons", "import", file.path, "--map", "LAB1", "--origin", "40,40"])
        #expect(without.status == 64 && without.stderr.contains("--origin places positions given in metres"), "\(without.stderr)")
        let bad = try await fp.run(["beacons", "import", file.path, "--map", "LAB1", "--metres", "--origin", "forty"])
        #expect(bad.status == 64 && bad.stderr.contains("--origin: cannot read 'forty'"), "\(bad.stderr)")
        #expect(!FileManager.default.fileExists(atPath: target))
    }
}

import FPCore
import FPTestSupport
import Foundation
import Testing

/// `fprint probe --every --here --map M`: each run is placed where gpsd's
/// first fix of the run says, through the map's geo anchor (`map edit --geo`).
@Suite(.serialized) struct ProbeHereCLITests {
    static let plan = FprintRunner.repositoryRoot.appendingPathComponent("Tests/FPCLITests/Fixtures/floor-plan.png").path
    /// The map point (200, 300) of a 450 × 600 px plan 450 m wide (1 m a pixel) lies
    /// where the committed NMEA walk (Hradec Králové) begins, the plan's up to the north.
    static let anchor = "50.2040,15.8296 200,300 0"

    @Test(.enabled(if: ProbeMonitorCLITests.gpsfake != nil || ProcessInfo.processInfo.environment["FPRINT_REQUIRE_REAL"] == "1",
                   "gpsd and gpsfake are not installed (apt-get install gpsd gpsd-clients)"))
    func eachRunIsPlacedWhereGNSSSays() async throws {
        let gpsfake = try #require(ProbeMonitorCLITests.gpsfake, "gpsfake is not installed but FPRINT_REQUIRE_REAL=1")
        let log = FprintRunner.repositoryRoot.appendingPathComponent("Tests/FPLinuxRadiosTests/Fixtures/gnss/hradec-walk.nmea").path
        let fake = try await Gpsfake(gpsfake: gpsfake, log: log)
        defer { fake.stop() }
        let g = try await ProbeCLITests.ProbeGateway()
        defer { g.gateway.kill9() }
        let fp = g.runner
        let add = try await fp.run(["map", "add", "YARD", "--image", Self.plan, "--width-m", "450", "--geo", Self.anchor])
        #expect(add.status == 0 && add.stdout.contains("map point 200,300 at 50.204000, 15.829600"), "\(add.stdout)\(add.stderr)")
        var ready = false
        for _ in 0..<50 where !ready {
            ready = try await fp.run(["doctor", "--json", "--gpsd", "127.0.0.1:\(fake.port)"]).stdout.contains("fix")
            if !ready { try await Task.sleep(nanoseconds: 200_000_000) }
        }
        let r = try await fp.run(["probe", "--server", g.server, "--token", g.token, "--every", "3s", "--count", "2",
                                  "--map", "YARD", "--here", "--seconds", "0.5", "--datagrams", "20", "--pings", "0",
                                  "--gpsd", "127.0.0.1:\(fake.port)", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let docs = try r.lines.map(fp.json)
        #expect(docs.count == 2)
        for doc in docs {
            let start = try #require((doc["networkProbes"] as? [[String: Any]])?.first?["gnssStart"] as? [String: Any], "\(doc)")
            let (lat, long) = (try #require(start["lat"] as? Double), try #require(start["long"] as? Double))
            // Independently of fprint's ellipsoid: a sphere of 6,371 km is within 0.3 % over these few metres.
            let east = (long - 15.8296) * .pi / 180 * 6_371_000 * cos(50.204 * .pi / 180)
            let north = (lat - 50.2040) * .pi / 180 * 6_371_000
            let position = try #require(doc["position"] as? [String: Any])
            #expect(doc["level"] as? String == "YARD" && position["rule"] as? String == "gnss", "\(doc)")
            #expect(abs((position["x"] as? Double ?? 0) - (200 + east)) < 0.5, "x \(position) for \(east) m east")
            #expect(abs((position["y"] as? Double ?? 0) - (300 - north)) < 0.5, "y \(position) for \(north) m north")
        }
        // The walk moves north: the second run lies further up the plan.
        let ys = docs.compactMap { ($0["position"] as? [String: Any])?["y"] as? Double }
        #expect(ys.count == 2 && ys[1] < ys[0], "\(ys)")
    }

    @Test func aFixOffTheMapOrNoFixLeavesTheRunWithoutAPlace() async throws {
        let g = try await ProbeCLITests.ProbeGateway()
        defer { g.gateway.kill9() }
        let fp = g.runner
        #expect(try await fp.run(["map", "add", "YARD", "--image", Self.plan, "--width-m", "450", "--geo", Self.anchor]).status == 0)
        // No gpsd: the run is stored, without a place, and says why.
        let r = try await fp.run(["probe", "--server", g.server, "--token", g.token, "--every", "1s", "--count", "1",
                                  "--map", "YARD", "--here"] + ProbeMonitorCLITests.quick + ["--json"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("probe run #1: no GNSS fix at its start: stored without a place"), "\(r.stderr)")
        let doc = try fp.json(try #require(r.lines.first))
        #expect(doc["level"] == nil && doc["position"] == nil, "\(doc)")
    }

    @Test(arguments: [
        (["--here"], "--here needs --every"),
        (["--every", "1m", "--here"], "--here needs --map"),
        (["--every", "1m", "--here", "--map", "J1NP", "--x", "1", "--y", "2"], "give --map without --x and --y"),
        (["--every", "1m", "--here", "--map", "J1NP"], "map J1NP has no geo anchor"),
    ])
    func hereNeedsAMapWithAGeoAnchor(args: [String], message: String) async throws {
        let fp = try FprintRunner()
        let r = try await fp.run(["probe", "--server", "127.0.0.1:1", "--token", "x"] + args)
        #expect(r.status == 64, "\(r.status) \(r.stderr)")
        // The message is the first line (usage follows, as for every option error); nothing is stored.
        #expect(r.stderr.split(separator: "\n").first?.contains(message) == true, "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: fp.db))
    }

    @Test(arguments: [
        ("50.2", "is not LAT,LONG"), ("95,15 0,0", "latitude must be −90…90"), ("50,15 1;2", "point 2"),
        ("50,15 0,0 north", "bearing \"north\""), ("50,15 0,0 0 extra", "expected \"LAT,LONG [X,Y [BEARING]]\""),
    ])
    func badGeoIsOneLineAndChangesNothing(geo: String, message: String) async throws {
        let fp = try FprintRunner()
        #expect(try await fp.run(["map", "add", "YARD", "--image", Self.plan, "--width-m", "450"]).status == 0)
        let before = try await fp.run(["map", "show", "YARD", "--json"]).stdout
        let r = try await fp.run(["map", "edit", "YARD", "--geo", geo])
        #expect(r.status == 64 && r.stderr.contains("--geo") && r.stderr.contains(message), "\(r.status) \(r.stderr)")
        #expect(try await fp.run(["map", "show", "YARD", "--json"]).stdout == before)
    }
}

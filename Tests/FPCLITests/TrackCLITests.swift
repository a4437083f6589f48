import FPHCI
import Foundation
import Testing

/// `fprint track` as a user runs it: simulated walks pinned per map and method,
/// floor detection across two maps, the thesis' vectors through a btsnoop
/// replay, a stored walk replayed, and bad input.
@Suite struct TrackCLITests {
    /// A survey walk (the radiomap, seed 1), then a tracked walk of the same
    /// scenario with other noise (seed 7); beacons with the environments' path-loss
    /// exponent 2.2 (a calibrated registry). The figures are this seed's, pinned,
    /// on the ideal simulation (`--ideal`): they pin the filter's arithmetic,
    /// not how good tracking is in a building (docs/positioning.md, realistic model).
    static let pinned: [(map: String, method: String, median: Double, p90: Double)] = [
        ("J1NP", "wknn", 1.048, 3.208), ("J1NP", "beacons", 0.955, 1.915), ("J1NP", "fused", 1.010, 2.912),
        ("J2NP", "wknn", 0.961, 2.736), ("J2NP", "beacons", 1.757, 3.333), ("J2NP", "fused", 0.949, 2.650),
        ("J3NP", "wknn", 0.807, 2.774), ("J3NP", "beacons", 1.506, 3.844), ("J3NP", "fused", 0.752, 2.676),
    ]

    func summary(_ fp: FprintRunner, _ args: [String]) async throws -> [String: Any] {
        let r = try await fp.run(["track"] + args + ["--fast", "--truth", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let last = try #require(r.lines.last)
        // On a walk's survey WKNN and fused say what their accuracy was made of; the beacons have no belief.
        let beacons = args.contains("beacons")
        for line in r.lines.dropLast() {
            let o = try fp.json(line)
            let accuracy = try #require(o["accuracy_m"] as? Double)
            if beacons { #expect(o["accuracy_parts"] == nil); continue }
            let parts = try #require(o["accuracy_parts"] as? [String: Double], "\(line)")
            #expect(Set(parts.keys) == ["kalman_m", "snap_m", "belief_mode_m", "belief_radius_m", "belief_share_near", "kalman_recent_m"])
            // The stated accuracy is the largest part (AccuracyParts.stated), from the printed (rounded) parts.
            let kalman = parts["kalman_m"]!, mode = parts["belief_mode_m"]!
            let largest = max(0.75 * kalman * (kalman * parts["kalman_recent_m"]!).squareRoot() / 2.72, 1.1 * parts["snap_m"]!,
                              (mode < 12 ? 0.5 : 0.15) * mode, parts["belief_share_near"]! >= 0.2 ? 0.4 * parts["belief_radius_m"]! : 0)
            #expect(abs(accuracy - largest) < 0.01, "\(line)")
        }
        return try #require(try fp.json(last)["summary"] as? [String: Any])
    }

    @Test(arguments: ["J1NP", "J2NP", "J3NP"])
    func simulatedWalkErrorsArePinnedAndFusionIsNeverWorseThanTheWorseMethod(map: String) async throws {
        let fp = try FprintRunner()
        #expect(try await fp.run(["walk", "--scenario", "scenario\(map)1", "--simulate", "--ideal", "--fast", "--seed", "1"]).status == 0)
        var medians: [String: Double] = [:]
        for row in Self.pinned where row.map == map {
            let s = try await summary(fp, ["--simulate", "--ideal", "--scenario", "scenario\(map)1", "--seed", "7", "--method", row.method,
                                           "--path-loss-exponent", "2.2"])
            let median = try #require(s["median_m"] as? Double), p90 = try #require(s["p90_m"] as? Double)
            #expect(abs(median - row.median) < 0.05, "\(map) \(row.method) median \(median), pinned \(row.median)")
            #expect(abs(p90 - row.p90) < 0.05, "\(map) \(row.method) p90 \(p90), pinned \(row.p90)")
            #expect(s["floor_hit_rate"] as? Double == 1 && s["first_fix_s"] as? Double == 1)
            medians[row.method] = median
        }
        // Fused is never worse than the worse method and within 0.1 m of the better
        // one; it does not always beat both (J1NP: the beacons alone, at 0.96 m).
        let fused = try #require(medians["fused"])
        let better = min(medians["wknn"]!, medians["beacons"]!), worse = max(medians["wknn"]!, medians["beacons"]!)
        #expect(fused < worse && fused < better + 0.1, "\(medians)")
    }

    /// The realistic building's stairs take 15 s, the floor left fading as the
    /// next grows: the change is reported a few seconds after the passage's
    /// middle, never before it with a hold of 3 windows, and sooner with 1.
    @Test func autoMapFollowsTheWalkerUpTheStairs() async throws {
        let fp = try FprintRunner()
        for map in ["J2NP", "J3NP"] {
            #expect(try await fp.run(["walk", "--scenario", "scenario\(map)1", "--simulate", "--fast", "--seed", "1"]).status == 0)
        }
        func track(hold: Int) async throws -> (positions: [[String: Any]], summary: [String: Any]) {
            let r = try await fp.run(["track", "--auto-map", "--simulate", "--scenario", "scenarioJ2J3", "--seed", "7", "--fast",
                                      "--truth", "--json", "--hold", String(hold)])
            #expect(r.status == 0, "\(r.stderr)")
            let rows = try r.lines.map(fp.json)
            return (rows.filter { $0["summary"] == nil }, try #require(rows.last?["summary"] as? [String: Any]))
        }
        let (positions, summary) = try await track(hold: 3)
        let maps = positions.compactMap { $0["map"] as? String }
        let truths = positions.compactMap { ($0["truth"] as? [String: Any])?["map"] as? String }
        #expect(maps.count == positions.count && truths.count == positions.count)
        // One change, J2NP → J3NP, after the passage's middle and within a few seconds of it.
        let change = try #require(maps.firstIndex(of: "J3NP"))
        let middle = try #require(truths.firstIndex(of: "J3NP"))
        #expect(maps[..<change].allSatisfy { $0 == "J2NP" } && maps[change...].allSatisfy { $0 == "J3NP" })
        #expect(change >= middle && change <= middle + 8, "passage's middle at \(middle), change at \(change)")
        #expect(summary["map_changes"] as? Int == 1)
        let delays = try #require(summary["floor_change_delays_s"] as? [Double])
        #expect(delays.count == 1 && (0...8).contains(delays[0]), "\(delays)")
        // Less sure while the signals cross over on the stairs, sure on each floor.
        let confidence = positions.compactMap { $0["map_confidence"] as? Double }
        #expect(confidence.count == positions.count && confidence.allSatisfy { (0...1).contains($0) })
        #expect(confidence[(middle - 3)...(middle + 3)].contains { $0 < 0.9 } && confidence.last! > 0.9)
        #expect((summary["floor_hit_rate"] as? Double ?? 0) > 0.9)
        // The hold is what the change waits for: one window reports it sooner.
        let eager = try await track(hold: 1).summary
        let eagerDelays = try #require(eager["floor_change_delays_s"] as? [Double])
        #expect(eagerDelays.count == 1 && eagerDelays[0] < delays[0], "hold 1: \(eagerDelays), hold 3: \(delays)")
    }

    /// A lift two floors down: the car passes the floor between, and the
    /// walker is found on the floor arrived at.
    @Test func autoMapFollowsTheLiftDownTwoFloors() async throws {
        let fp = try FprintRunner()
        for map in ["J1NP", "J2NP", "J3NP"] {
            #expect(try await fp.run(["walk", "--scenario", "scenario\(map)1", "--simulate", "--fast", "--seed", "1"]).status == 0)
        }
        let r = try await fp.run(["track", "--auto-map", "--simulate", "--scenario", "scenarioJ3J1", "--seed", "7", "--fast",
                                  "--truth", "--json", "--hold", "1"])
        #expect(r.status == 0, "\(r.stderr)")
        let rows = try r.lines.map(fp.json)
        let positions = rows.filter { $0["summary"] == nil }
        let truths = positions.compactMap { ($0["truth"] as? [String: Any])?["map"] as? String }
        // The truth: J3NP, a few seconds on J2NP while riding past it, J1NP.
        #expect(truths.first == "J3NP" && truths.last == "J1NP" && truths.contains("J2NP"))
        #expect(truths.filter { $0 == "J2NP" }.count <= 5)
        #expect(positions.first?["map"] as? String == "J3NP" && positions.last?["map"] as? String == "J1NP")
        let summary = try #require(rows.last?["summary"] as? [String: Any])
        #expect((summary["floor_change_delays_s"] as? [Any])?.count == 2)
        #expect((summary["floor_hit_rate"] as? Double ?? 0) > 0.9)
    }

    /// `--simulate` is the realistic building by default, `--ideal` the law
    /// alone; `--off-route` walks inside the scenario's route.
    @Test func theSimulationIsRealisticUnlessIdealAndMayLeaveTheRoute() async throws {
        let fp = try FprintRunner()
        func run(_ extra: [String]) async throws -> [[String: Any]] {
            let r = try await fp.run(["track", "--simulate", "--scenario", "scenarioJ1NP1", "--seed", "7", "--method", "beacons",
                                      "--path-loss-exponent", "2.2", "--fast", "--truth", "--json", "--duration", "10"] + extra)
            #expect(r.status == 0, "\(r.stderr)")
            return try r.lines.map(fp.json).filter { $0["summary"] == nil }
        }
        func fixes(_ rows: [[String: Any]]) -> [Double] {
            rows.compactMap { (($0["fixes"] as? [String: Any])?["beacons"] as? [String: Any])?["x_m"] as? Double }
        }
        func truths(_ rows: [[String: Any]]) -> [(Double, Double)] {
            rows.compactMap { r in (r["truth"] as? [String: Any]).flatMap { t in (t["x"] as? Double).flatMap { x in (t["y"] as? Double).map { (x, $0) } } } }
        }
        let realistic = try await run([]), ideal = try await run(["--ideal"]), inside = try await run(["--off-route", "3"])
        #expect(realistic.count == 10 && ideal.count == 10 && inside.count == 10)
        // Same seed, same route: only the building differs.
        #expect(truths(realistic).map(\.0) == truths(ideal).map(\.0))
        #expect(fixes(realistic) != fixes(ideal))
        // 3 m inside (150 units at 45 m = 2250): every waypoint moved 3 m towards the route's middle.
        let first = try #require(truths(realistic).first), moved = try #require(truths(inside).first)
        let shift = ((first.0 - moved.0) * (first.0 - moved.0) + (first.1 - moved.1) * (first.1 - moved.1)).squareRoot() * 0.02
        #expect(shift > 1 && shift < 3.5, "moved \(shift) m")
    }

    /// An LE Advertising Report event (H4) of one iBeacon, laid out as the thesis' vector
    /// `043e2a02010300ffeeddccbbaa1e0201061aff4c000215…35bec4` with another address and RSSI.
    static func iBeaconEvent(address: [UInt8], rssi: Int8) -> [UInt8] {
        let data: [UInt8] = [0x02, 0x01, 0x06, 0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15,
                             0xFB, 0x0B, 0x57, 0xA2, 0x82, 0x28, 0x44, 0xCD, 0x91, 0x3A, 0x94, 0xA1, 0x22, 0xBA, 0x12, 0x06,
                             0x00, 0x01, 0x00, 0x35, 0xBE]
        let report: [UInt8] = [0x01,  // Num_Reports
                               0x03,  // ADV_NONCONN_IND
                               0x00] + address.reversed() + [UInt8(data.count)] + data + [UInt8(bitPattern: rssi)]
        return [0x04, 0x3E, UInt8(report.count + 1), 0x02] + report
    }

    @Test func theThesisVectorsThroughABtsnoopReplay() async throws {
        // The event of the vector as printed decodes (AA:BB:CC:DD:EE:FF, RSSI −60) …
        let printed = Self.iBeaconEvent(address: [0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF], rssi: -60)
        #expect(printed.map { String(format: "%02x", $0) }.joined()
            == "043e2a02010300ffeeddccbbaa1e0201061aff4c000215fb0b57a2822844cd913a94a122ba120600010035bec4")
        // … and four such beacons at the corners of a 10 × 10 m square (500 units at 45 m = 2250)
        // reporting −80, −84, −83, −85 every 100 ms for 3 s put the walker at (3.27454, 3.89896) m.
        let fp = try FprintRunner()
        let addresses: [[UInt8]] = (0..<4).map { [0xA0 + UInt8($0), 0, 0, 0, 0, 1] }
        var packets: [BtsnoopWriter.Packet] = []
        for step in 0...30 {
            for (a, rssi) in zip(addresses, [-80, -84, -83, -85] as [Int8]) {
                packets.append(.init(timestampMicros: 1_795_000_000_000_000 + Int64(step) * 100_000,
                                     h4: Self.iBeaconEvent(address: a, rssi: rssi), received: true))
            }
        }
        let capture = fp.home.appendingPathComponent("square.btsnoop")
        try Data(BtsnoopWriter.h4File(packets)).write(to: capture)
        let registry = fp.home.appendingPathComponent("square.json")
        let corners = [(0, 0), (500, 0), (0, 500), (500, 500)]
        try ("[" + zip(addresses, corners).map { a, c in
            "{\"mac\": \"\(a.map { String(format: "%02X", $0) }.joined(separator: ":"))\", \"x\": \(c.0), \"y\": \(c.1), \"measuredPower\": -66}"
        }.joined(separator: ", ") + "]").write(to: registry, atomically: true, encoding: .utf8)
        let r = try await fp.run(["track", "--map", "SQ", "--method", "beacons", "--beacons", registry.path,
                                  "--ble-source", "btsnoop:" + capture.path, "--fast", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let rows = try r.lines.map(fp.json)
        let positions = rows.filter { $0["summary"] == nil }
        #expect(positions.count == 3)
        for p in positions {
            let fix = try #require((p["fixes"] as? [String: Any])?["beacons"] as? [String: Any])
            #expect(abs((fix["x_m"] as? Double ?? 0) - 3.27454) < 2e-5 && abs((fix["y_m"] as? Double ?? 0) - 3.89896) < 2e-5)
            #expect(abs((p["x_m"] as? Double ?? 0) - 3.275) < 1e-3 && abs((p["y_m"] as? Double ?? 0) - 3.899) < 1e-3)
            #expect(p["transmitters_used"] as? Int == 4 && p["method"] as? String == "beacons" && p["map"] as? String == "SQ")
        }
        #expect((rows.last?["summary"] as? [String: Any])?["samples"] as? Int == 124)
    }

    @Test func aStoredWalkReplaysAsAStream() async throws {
        let fp = try FprintRunner()
        #expect(try await fp.run(["walk", "--scenario", "scenarioJ3NP1", "--simulate", "--fast", "--seed", "1"]).status == 0)
        let second = try await fp.run(["walk", "--scenario", "scenarioJ3NP1", "--simulate", "--fast", "--seed", "5"])
        let first = try #require(second.lines.first)
        let session = try #require(try fp.json(try await fp.run(["show", first, "--json"]).stdout)["sessionId"] as? String)
        let r = try await fp.run(["track", "--session", session, "--truth", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let rows = try r.lines.map(fp.json)
        let summary = try #require(rows.last?["summary"] as? [String: Any])
        // 60 documents of 2 s: a position a second, positioned against the other walk only.
        #expect((summary["positions"] as? Int ?? 0) >= 115)
        #expect((summary["median_m"] as? Double ?? 99) < 2 && summary["floor_hit_rate"] as? Double == 1)
        #expect(rows.dropLast().allSatisfy { $0["map"] as? String == "J3NP" && $0["truth"] != nil })
    }

    @Test(arguments: [
        (["track", "--map", "J1NP", "--auto-map"], Int32(64), "give --map M or --auto-map, not both"),
        (["track", "--map", "J1NP", "--truth"], Int32(64), "--truth needs a known true path"),
        (["track", "--map", "J1NP", "--interval", "10ms"], Int32(64), "--interval must be a duration of at least 100ms"),
        (["track", "--simulate", "--map", "J1NP"], Int32(64), "--simulate walks a scenario"),
        (["track", "--simulate", "--scenario", "nope"], Int32(66), "nope"),
        (["track", "--simulate", "--scenario", "scenarioJ1NP1", "--method", "wknn", "--fast"], Int32(66),
         "J1NP: no stored radiomap"),
        (["track", "--session", "nope"], Int32(66), "no documents of walk session nope"),
        (["track", "--map", "J1NP", "--off-route", "3"], Int32(64), "--off-route moves the simulated walker: add --simulate"),
    ])
    func badInput(args: [String], status: Int32, message: String) async throws {
        try await FprintRunner.expectRefusal(args, status: status, message: message)
    }
}

@Suite struct TrackPlotCLITests {
    @Test func plotsTheTruePathTheEstimatesAndTheErrors() async throws {
        let fp = try FprintRunner()
        #expect(try await fp.run(["walk", "--scenario", "scenarioJ1NP1", "--simulate", "--fast", "--seed", "1"]).status == 0)
        let r = try await fp.run(["track", "--simulate", "--scenario", "scenarioJ1NP1", "--seed", "7", "--fast", "--truth",
                                  "--json", "--duration", "20"])
        #expect(r.status == 0, "\(r.stderr)")
        let jsonl = fp.home.appendingPathComponent("walk.jsonl")
        try r.stdout.write(to: jsonl, atomically: true, encoding: .utf8)
        let svg = fp.home.appendingPathComponent("track.svg")
        let p = try await fp.run(["plot", "track", jsonl.path, "-o", svg.path])
        #expect(p.status == 0, "\(p.stderr)")
        let text = try String(contentsOf: svg, encoding: .utf8)
        #expect(text.contains("<title>Track on J1NP: fused, BLE") && text.contains(" (20 positions)</title>"), "\(text.prefix(300))")
        for cls in ["truth", "estimate", "error", "accuracy"] { #expect(text.contains("class=\"\(cls)\""), "\(cls)") }
        #expect(text.components(separatedBy: "class=\"fix\"").count - 1 == 20)
        // Up to five accuracy circles by default (one centred in another's left out), the legend counting them, and no outline but the frame.
        let circles = text.components(separatedBy: "class=\"accuracy-circle\"").count - 1
        #expect((1...5).contains(circles) && text.contains("stated accuracy of \(circles) position") && !text.contains("<polygon"))
        // An outline from a CSV of corners (ble-flat-robot's layout.csv shape), and as many circles as asked.
        let walls = fp.home.appendingPathComponent("layout.csv")
        try "x,y\n0.0,0.0\n1800,0.0\n1800,1000\n0.0,1000\n".write(to: walls, atomically: true, encoding: .utf8)
        let o = try await fp.run(["plot", "track", jsonl.path, "--outline", walls.path, "--circles", "3"])
        #expect(o.status == 0, "\(o.stderr)")
        #expect(o.stdout.contains("<polygon class=\"outline\" points=\"50.0,50.0 554.0,50.0 554.0,330.0 50.0,330.0\""), "\(o.stdout.firstMatch(of: /<polygon[^>]*>/).map { String($0.0) } ?? "no polygon")")
        #expect((1...3).contains(o.stdout.components(separatedBy: "class=\"accuracy-circle\"").count - 1))
        try "x,y\n0,0\n1,x\n".write(to: walls, atomically: true, encoding: .utf8)
        let w = try await fp.run(["plot", "track", jsonl.path, "--outline", walls.path])
        #expect(w.status == 65 && w.stderr.contains("layout.csv: line 3, column 2"), "\(w.stderr)")
        // Not a track: named with its line.
        let bad = fp.home.appendingPathComponent("bad.jsonl")
        try "{\"x\": 1}\n".write(to: bad, atomically: true, encoding: .utf8)
        let b = try await fp.run(["plot", "track", bad.path])
        #expect(b.status == 65 && b.stderr.contains("line 1 is no position of `fprint track --json`"), "\(b.stderr)")
    }
}

import Foundation
import Testing

/// `plot heatmap --metric`, `plot series --probes` and `export probes-csv`
/// (per phase and `--per run`) on imported documents carrying networkProbes[].
@Suite struct ProbePlotCLITests {
    typealias F = ProbeResultsFixture

    /// J1NP (0.02 m a unit, 2 m squares of 100 units):
    ///   a1 (400, 700): down 10 and 20 Mbit/s, RTT 20 and 30 ms, 08:00 and 08:30: both in square (4, 7)
    ///   b2: a walk's probe from (1000, 1200) to (1080, 1260): down 40, RTT 80, loss 2 % up 3 % down, 10:00
    ///   c3 (1500, 1500): down failed (timeout), RTT 20, 12:00
    ///   e5: a periodic probe document (mode "probe", no radios) at its x/y (2000, 2000), no positionStart: down 30, RTT 50,
    ///       no startedAt (created 13:59 + startMs 60 s = 14:00), over a cellular link with GNSS fixes
    /// J3NP d4 (500, 500) 13:00; J2NP f6 on Nov 3 09:00.
    static var documents: [(id: String, body: [String: Any])] {
        let link: [String: Any] = ["interface": "wwan0", "kind": "cellular", "signalDbm": -97,
                                   "cell": ["mcc": "230", "mnc": "03", "tac": "1234", "ci": "5678901"]]
        let fixes: [String: Any] = [
            "gnssStart": ["lat": 50.2041, "long": 15.8294, "alt": 240.5, "accuracy": 4.5, "time": "2026-11-01T13:59:58Z"],
            "gnssEnd": ["lat": 50.2043, "long": 15.8296, "alt": 241, "accuracy": 6, "time": "2026-11-01T14:00:09Z"],
        ]
        var probeDoc: [String: Any] = ["level": "J1NP", "x": 2000, "y": 2000, "mode": "probe", "type": "probe", "createdAt": "2026-11-01T13:59:00.000Z"]
        probeDoc["networkProbes"] = [F.probe(down: 30, rtt: 50, at: "",
                                             extra: ["startedAt": NSNull(), "startMs": 60000, "link": link].merging(fixes) { a, _ in a })]
        return [
            ("a1", F.document("J1NP", 400, 700, created: "2026-11-01T08:00:00.000Z", probes: [
                F.probe(down: 10, rtt: 20, at: "2026-11-01T08:00:05.000Z", from: (400, 700),
                        extra: ["link": ["interface": "wlan0", "kind": "wifi", "ssid": "lab", "bssid": "02:00:00:00:01:00", "signalDbm": -61]]),
                F.probe(down: 20, rtt: 30, at: "2026-11-01T08:30:00.000Z", from: (420, 710)),
            ])),
            ("b2", F.document("J1NP", 1000, 1200, created: "2026-11-01T10:00:00.000Z", probes: [
                F.probe(down: 40, rtt: 80, lossUp: 2, lossDown: 3, at: "2026-11-01T10:00:00.000Z", from: (1000, 1200), to: (1080, 1260)),
            ])),
            ("c3", F.document("J1NP", 1500, 1500, created: "2026-11-01T12:00:00.000Z", probes: [
                F.probe(down: nil, rtt: 20, at: "2026-11-01T12:00:00.000Z", from: (1500, 1500)),
            ])),
            ("d4", F.document("J3NP", 500, 500, created: "2026-11-01T13:00:00.000Z", probes: [
                F.probe(down: 99, rtt: 10, at: "2026-11-01T13:00:00.000Z", from: (500, 500)),
            ])),
            ("e5", probeDoc),
            ("f6", F.document("J2NP", 500, 500, created: "2026-11-03T09:00:00.000Z", probes: [
                F.probe(down: 15, rtt: 35, at: "2026-11-03T09:00:00.000Z", from: (500, 500)),
            ])),
        ]
    }

    func count(_ text: String, _ part: String) -> Int { text.components(separatedBy: part).count - 1 }

    /// A heatmap square's fill: the `rect class="cell"` whose title names `median`.
    func fill(_ svg: String, median: String) -> String? {
        svg.split(separator: "\n").first { $0.contains("class=\"cell\"") && $0.contains("<title>median \(median) ") }
            .flatMap { $0.firstMatch(of: /fill="(#[0-9a-f]{6})"/).map { String($0.1) } }
    }

    @Test func heatmapShowsEachSquaresMedianInItsUnitClippedToTheOutline() async throws {
        let fp = try FprintRunner()
        let config = try F.configWithOutline(fp)
        try await importDocuments(fp, Self.documents)
        let out = fp.home.appendingPathComponent("down.svg").path
        let r = try await fp.run(["plot", "heatmap", "--map", "J1NP", "--metric", "down", "-o", out] + config)
        #expect(r.status == 0, "\(r.stderr)")
        let svg = try String(contentsOfFile: out, encoding: .utf8)
        // Squares (4, 7), (10, 12), (20, 20): c3 has no download figure; J3NP's probe is elsewhere.
        #expect(count(svg, "class=\"cell\"") == 3, "\(svg)")
        #expect(svg.contains("<title>median 15.0 Mbit/s of 2 probes</title>"))
        #expect(count(svg, "<circle class=\"probe\"") == 4 && count(svg, "class=\"no-figure\"") == 1)
        #expect(count(svg, "class=\"probe-path\"") == 1)  // b2 moved while it probed
        #expect(svg.contains("<text class=\"unit\" x=") && svg.contains(">Mbit/s</text>"))
        #expect(svg.contains("yellow is better: more Mbit/s") && svg.contains("▲ more is better"))
        #expect(svg.contains("not interpolated"))
        #expect(svg.contains("<clipPath id=\"probe-floor\"><polygon points=\"") && svg.contains("<g class=\"cells\" clip-path=\"url(#probe-floor)\">"))
        // 0 … 40 Mbit/s: the 40 square is viridis' yellow end.
        #expect(fill(svg, median: "40.0 Mbit/s") == "#fde725")
        #expect(svg.contains("<title>Download on J1NP: 4 probes, 1 without a figure, median 25.0 Mbit/s</title>"), "\(svg.prefix(600))")

        // RTT: less is better, so the slowest square is the dark end.
        let rtt = try await fp.run(["plot", "heatmap", "--map", "J1NP", "--metric", "rtt"] + config)
        #expect(rtt.status == 0, "\(rtt.stderr)")
        #expect(count(rtt.stdout, "class=\"cell\"") == 4)
        #expect(fill(rtt.stdout, median: "80.0 ms") == "#440154")
        #expect(rtt.stdout.contains("yellow is better: less ms") && rtt.stdout.contains(">ms</text>"))

        let png = fp.home.appendingPathComponent("down.png").path
        let p = try await fp.run(["plot", "heatmap", "--map", "J1NP", "--metric", "down", "-o", png] + config)
        #expect(p.status == 0, "\(p.stderr)")
        let image = try PNGImage(Data(contentsOf: URL(fileURLWithPath: png)))
        // 0.2533 px a unit from (50, 40): square (10, 12) spans x 303–329, y 344–369; nothing drawn at (600, 2500).
        let (red, green, blue) = image.rgb(320, 348)
        #expect(red > 230 && green > 210 && blue < 70, "\(image.rgb(320, 348))")
        #expect(image.rgb(202, 673) == (255, 255, 255))
    }

    @Test func aMapWithoutProbesIsOneLineAndExit66() async throws {
        let fp = try FprintRunner()
        try await importDocuments(fp, [("n1", doc(400, 700, rssi: -60, minute: 0))])
        let r = try await fp.run(["plot", "heatmap", "--map", "J1NP", "--metric", "loss"])
        #expect(r.status == 66, "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1 && r.stderr.contains("no network probes on map J1NP"), "\(r.stderr)")
        let series = try await fp.run(["plot", "series", "--probes", "--metric", "up", "--map", "J2NP"])
        #expect(series.status == 66 && series.stderr.contains("no network probes on map J2NP"), "\(series.stderr)")
        let both = try await fp.run(["plot", "heatmap", "--map", "J1NP", "--metric", "up", "--transmitter", "AA:BB:CC:DD:EE:FF"])
        #expect(both.status == 64, "\(both.stderr)")
        let noMetric = try await fp.run(["plot", "series", "--probes"])
        #expect(noMetric.status == 64 && noMetric.stderr.contains("--metric"), "\(noMetric.stderr)")
        // An option series lacks leaves its value as the id: the error names it.
        let stray = try await fp.run(["plot", "series", "--probes", "--config", "mine.json", "--metric", "up"])
        #expect(stray.status == 64 && stray.stderr.contains("'mine.json' was taken for a document id"), "\(stray.stderr)")
    }

    @Test func seriesHasATimeAxisInUTCAndTheUnitOnY() async throws {
        let fp = try FprintRunner()
        try await importDocuments(fp, Self.documents)
        let r = try await fp.run(["plot", "series", "--probes", "--metric", "down", "--map", "J1NP"])
        #expect(r.status == 0, "\(r.stderr)")
        let svg = r.stdout
        #expect(count(svg, "<circle class=\"probe\"") == 4 && count(svg, "class=\"no-figure\"") == 1, "\(svg)")
        // 08:00 … 14:00 of one day: ticks every 2 h, the day in the caption.
        let ticks = svg.matches(of: /class="time-tick"[^>]*>([^<]+)</).map { String($0.1) }
        #expect(ticks == ["08:00", "10:00", "12:00", "14:00"], "\(ticks)")
        #expect(svg.contains(">time (UTC, 2026-11-01)</text>"))
        #expect(svg.contains(">download (Mbit/s)</text>"))
        // e5 has no startedAt: its document's createdAt plus startMs.
        #expect(svg.contains("e5 probe 1 2026-11-01 14:00:00 UTC: 30.0 Mbit/s"), "\(svg)")

        let since = try await fp.run(["plot", "series", "--probes", "--metric", "rtt", "--since", "2026-11-01T11:00:00Z"])
        #expect(since.status == 0, "\(since.stderr)")
        #expect(count(since.stdout, "<circle class=\"probe\"") == 4)  // c3, d4, e5, f6: every map
        let days = since.stdout.matches(of: /class="time-tick"[^>]*>([^<]+)</).map { String($0.1) }
        #expect(days.contains("Nov 2 00:00") && since.stdout.contains(">time (UTC, 2026)</text>"), "\(days)")
        #expect(since.stdout.contains(">round-trip time (UDP median) (ms)</text>") && since.stdout.contains("less is better"))

        let png = fp.home.appendingPathComponent("rtt.png").path
        let p = try await fp.run(["plot", "series", "--probes", "--metric", "rtt", "-o", png])
        #expect(p.status == 0 && FileManager.default.fileExists(atPath: png), "\(p.stderr)")
    }

    /// Fields of a CSV line, quoted ones with commas and doubled quotes.
    static func fields(_ line: Substring) -> [String] {
        var out: [String] = [], field = "", quoted = false
        let chars = Array(line)
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if quoted && c == "\"" && i + 1 < chars.count && chars[i + 1] == "\"" {
                field.append("\"")
                i += 1
            } else if c == "\"" {
                quoted.toggle()
            } else if c == "," && !quoted {
                out.append(field)
                field = ""
            } else {
                field.append(c)
            }
            i += 1
        }
        out.append(field)
        return out
    }

    func table(_ text: String) -> (header: [String], rows: [[String: String]]) {
        let lines = text.split(separator: "\n")
        let header = Self.fields(lines[0])
        return (header, lines.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, Self.fields($0))) })
    }

    @Test func probesCSVCarriesLinkAndGNSSPerPhaseAndPerRun() async throws {
        let fp = try FprintRunner()
        try await importDocuments(fp, Self.documents)
        let phases = try await fp.run(["export", "probes-csv"])
        #expect(phases.status == 0, "\(phases.stderr)")
        let perPhase = table(phases.stdout)
        #expect(perPhase.header.first == "doc_id" && perPhase.header.last == "gnss_end_time")
        #expect(perPhase.rows.count == 7 * 4)  // every probe's down, up, udp, ping; e5 (no measurement) too
        let e5 = perPhase.rows.filter { $0["doc_id"] == "e5" }
        #expect(e5.count == 4 && e5.allSatisfy { $0["link_kind"] == "cellular" && $0["gnss_start_lat"] == "50.2041" })
        #expect(e5.first?["link_cell"] == #"{"ci":"5678901","mcc":"230","mnc":"03","tac":"1234"}"#, "\(e5.first ?? [:])")
        #expect(e5.first?["gnss_end_time"] == "2026-11-01T14:00:09Z" && e5.first?["link_signal_dbm"] == "-97")
        let a1 = perPhase.rows.first { $0["doc_id"] == "a1" && $0["phase"] == "down" }
        #expect(a1?["link_ssid"] == "lab" && a1?["link_signal_dbm"] == "-61" && a1?["gnss_start_lat"] == "")

        let runs = try await fp.run(["export", "probes-csv", "--per", "run"])
        #expect(runs.status == 0, "\(runs.stderr)")
        let perRun = table(runs.stdout)
        #expect(perRun.rows.count == 7 && perRun.rows.allSatisfy { $0.count == perRun.header.count })
        let b2 = try #require(perRun.rows.first { $0["doc_id"] == "b2" })
        #expect(b2["down_bits_per_second"] == "40000000" && b2["up_bits_per_second"] == "5000000" && b2["rtt_median_ms"] == "80")
        #expect(b2["loss_percent"] == "4.94" && b2["jitter_ms"] == "2" && b2["loss_up_percent"] == "2")
        #expect(b2["x"] == "1040" && b2["y"] == "1230" && b2["x_end"] == "1080")
        #expect(b2["failed"] == "ping unavailable" && b2["unverified"] == "")
        let c3 = try #require(perRun.rows.first { $0["doc_id"] == "c3" })
        #expect(c3["down_bits_per_second"] == "" && c3["failed"] == "down timeout; ping unavailable")
        let e5run = try #require(perRun.rows.first { $0["doc_id"] == "e5" })
        #expect(e5run["link_interface"] == "wwan0" && e5run["gnss_end_alt"] == "241" && e5run["x"] == "2000")
        #expect(e5run["down_bits_per_second"] == "30000000")

        let refused = try await fp.run(["export", "csv", "--per", "run"])
        #expect(refused.status == 64, "\(refused.stderr)")
    }
}

import FPCore
import FPTestSupport
import Foundation
import Testing
@testable import FPLinuxRadios

@Suite struct GPSDReportTests {
    /// A session recorded from gpsd 3.22 fed by gpsfake with Fixtures/gnss/hradec-walk.nmea.
    @Test func recordedSessionYieldsFixesWithSatellites() throws {
        let lines = try Fixtures.text("gnss/gpsd-3.22-session.jsonl").split(separator: "\n")
        #expect(GPSDReport(line: lines[0]) == .version(release: "3.22"))
        #expect(GPSDReport(line: lines[1]) == .devices(count: 1))
        var tracker = GPSDFixTracker()
        var fixes: [GeoFix] = []
        for (i, line) in lines.enumerated() {
            let report = try #require(GPSDReport(line: line), "line \(i + 1)")
            if let fix = tracker.feed(report, atMs: i * 100) { fixes.append(fix) }
        }
        // gpsd's first two TPVs (before the epoch's RMC) carry a position but no time and come
        // before any SKY: fixes, with the satellite counts unknown.
        #expect(fixes.count == 5)
        let first = try #require(fixes.first)
        #expect(abs(first.lat - 50.204038333) < 1e-9 && abs(first.long - 15.82966) < 1e-9)
        #expect(first.time == 400 && first.fixMode == 3 && first.alt == 235.4)  // altMSL, not altHAE 280
        #expect(first.satellitesUsed == nil && first.fixTime == nil && first.accuracy == 17.1)
        let timed = fixes[2]
        #expect(timed.time == 700 && timed.fixTime == "2026-11-22T07:30:06.000Z")
        #expect(timed.satellitesUsed == 8 && timed.satellitesVisible == 9)
        #expect(timed.speed == 0.998 && timed.track == 39.5)
        #expect(fixes[3].lat > timed.lat && fixes[3].long > timed.long)  // walking north-east
    }

    @Test func noFixReasons() {
        var t = GPSDFixTracker()
        #expect(t.noFixReason == "gpsd sent no position report during the measurement")
        _ = t.feed(GPSDReport(line: #"{"class":"TPV","device":"/dev/ttyACM0","mode":1}"#)!, atMs: 5)
        #expect(t.noFixReason == "the receiver had no fix during the measurement (gpsd mode 1)")
        _ = t.feed(GPSDReport(line: #"{"class":"DEVICES","devices":[]}"#)!, atMs: 6)
        #expect(t.noFixReason == "gpsd has no GPS receiver attached")
        #expect(t.fixes == 0)
    }

    @Test func skyWithoutCountsKeepsThePreviousView() {
        var t = GPSDFixTracker()
        _ = t.feed(GPSDReport(line: #"{"class":"SKY","satellites":[{"PRN":1,"used":true},{"PRN":2,"used":false}]}"#)!, atMs: 0)
        _ = t.feed(GPSDReport(line: #"{"class":"SKY","hdop":0.9}"#)!, atMs: 1)
        let fix = t.feed(GPSDReport(line: #"{"class":"TPV","mode":2,"lat":1.5,"lon":2.5,"epx":3,"epy":4,"alt":99}"#)!, atMs: 2)
        #expect(fix?.satellitesUsed == 1 && fix?.satellitesVisible == 2)
        #expect(fix?.accuracy == 4 && fix?.alt == nil)  // 2D fix: no altitude
    }

    @Test(arguments: ["", "not json", "{}", #"{"class":"TPV"}"#, "[1,2]"])
    func garbageIsNotAReport(line: String) {
        #expect(GPSDReport(line: line) == nil)
    }

    @Test func endpointParsing() {
        #expect(GPSDEndpoint("gps.local:3000") == GPSDEndpoint(host: "gps.local", port: 3000))
        #expect(GPSDEndpoint("gps.local") == GPSDEndpoint(host: "gps.local", port: 2947))
        #expect(GPSDEndpoint(":4000") == GPSDEndpoint(host: "127.0.0.1", port: 4000))
        #expect(GPSDEndpoint("[::1]:5000") == GPSDEndpoint(host: "::1", port: 5000))
        #expect(GPSDEndpoint("host:0") == nil && GPSDEndpoint("host:x") == nil && GPSDEndpoint("[::1") == nil)
    }
}

@Suite(.serialized) struct GPSDProviderTests {
    @Test func nobodyListeningIsUnavailableWithTheReason() async throws {
        let port = try freeTCPPort()
        let provider = GPSDProvider(endpoint: GPSDEndpoint(host: "127.0.0.1", port: port))
        let status = await provider.start(context: realContext(), sink: SampleSink())
        #expect(status.status == .unavailable)
        #expect(status.reason == "gpsd is not reachable at 127.0.0.1:\(port): Connection refused")
    }

    /// Real gpsd, fed by gpsfake from the committed NMEA log.
    @Test(.enabled(if: toolsInstalled("gpsfake", "gpsd"), "gpsd and gpsfake are not installed (apt-get install gpsd gpsd-clients)"))
    func realGpsdThroughGpsfakeDeliversFixes() async throws {
        guard let gpsfake = requireTool("gpsfake"), requireTool("gpsd") != nil else { return }
        let log = try Fixtures.url("gnss/hradec-walk.nmea").path
        // -c 0.05: 6 sentences per epoch, so about 3 fixes a second.
        let fake = try await Gpsfake(gpsfake: gpsfake, log: log)
        defer { fake.stop() }
        let port = fake.port

        let endpoint = GPSDEndpoint(host: "127.0.0.1", port: port)
        // gpsfake needs a moment to start its gpsd.
        var status = ProviderStatus(status: .unavailable, source: "")
        let provider = GPSDProvider(endpoint: endpoint)
        let sink = SampleSink()
        let clock = MonotonicClock()
        let context = CaptureContext(clock: clock, level: "J1NP") { _ in MapPoint(x: 0, y: 0) }
        for _ in 0..<50 {
            status = await provider.start(context: context, sink: sink)
            if status.status == .ok { break }
            try await Task.sleep(nanoseconds: 200_000_000)
        }
        #expect(status.status == .ok && status.source == "gpsd:127.0.0.1:\(port)")
        try await Task.sleep(nanoseconds: 3_000_000_000)
        await provider.stop()
        let stoppedAt = clock.elapsedMs()
        #expect(await provider.finalStatus() == nil)
        let fixes = sink.drain().compactMap { if case .geo(let f) = $0 { f } else { nil } }
        #expect(fixes.count >= 3)
        // gpsfake replays the log in a loop; at each restart gpsd may briefly report a 2D fix.
        #expect(fixes.contains { $0.fixMode == 3 && $0.satellitesUsed == 8 && $0.alt == 235.4 })
        for fix in fixes {
            #expect(abs(fix.lat - 50.2040) < 0.001 && abs(fix.long - 15.8296) < 0.001)
            #expect(fix.fixMode == 2 || fix.fixMode == 3)
            #expect(fix.time >= 0 && fix.time <= stoppedAt)
        }
        #expect(fixes.map(\.time) == fixes.map(\.time).sorted())
    }
}

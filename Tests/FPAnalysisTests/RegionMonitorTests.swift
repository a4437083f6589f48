import FPAnalysis
import FPCore
import Testing

@Suite("iBeacon regions: enter, hysteresis, exit")
struct RegionMonitorTests {
    static let uuid = "FB0B57A2-8228-44CD-913A-94A122BA1206"

    static func sighting(_ ms: Int, major: Int = 1, minor: Int = 53, uuid: String = uuid, rssi: Int? = -60,
                         address: String = "00:AA:01:01:00:01") -> RegionMonitor.Sighting {
        .init(address: address, beacon: Beacon(type: "ibeacon", uuid: uuid, major: major, minor: minor, measuredPower: -59),
              rssi: rssi, atMs: ms)
    }

    @Test func regionsMatchUUIDThenMajorThenMinor() {
        let b = Beacon(type: "ibeacon", uuid: Self.uuid.lowercased(), major: 1, minor: 53)
        #expect(BeaconRegion(uuid: Self.uuid).contains(b))
        #expect(BeaconRegion(uuid: Self.uuid, major: 1).contains(b))
        #expect(BeaconRegion(uuid: Self.uuid, major: 1, minor: 53).contains(b))
        #expect(!BeaconRegion(uuid: Self.uuid, major: 2).contains(b))
        #expect(!BeaconRegion(uuid: Self.uuid, major: 1, minor: 54).contains(b))
        #expect(!BeaconRegion(uuid: "00000000-0000-0000-0000-000000000000").contains(b))
        #expect(!BeaconRegion(uuid: Self.uuid).contains(Beacon(type: "eddystone-uid", namespace: "00", instance: "01")))
    }

    /// One sighting is not an arrival; the second within the window is.
    @Test func enterNeedsTwoSightingsWithinTheWindow() {
        var m = RegionMonitor(region: BeaconRegion(uuid: Self.uuid))
        #expect(m.observe(Self.sighting(0)).isEmpty)
        // The next one comes after the 10 s window: still only one in it.
        #expect(m.observe(Self.sighting(10_000)).isEmpty)
        let events = m.observe(Self.sighting(12_000))
        #expect(events.map(\.kind) == [.enter])
        #expect(events.first?.atMs == 12_000)
        #expect(events.first?.beacons.map(\.atMs) == [12_000])  // the latest sighting per beacon
        #expect(m.inside)
        // Inside: more sightings make no more events.
        #expect(m.observe(Self.sighting(13_000)).isEmpty)
    }

    /// Exit after exitAfter silent: not a moment before, and timed from the last sighting.
    @Test func exitAfterTheConfiguredSilence() {
        var m = RegionMonitor(region: BeaconRegion(uuid: Self.uuid, major: 1))
        m.exitAfterMs = 30_000
        _ = m.observe(Self.sighting(0))
        _ = m.observe(Self.sighting(500))
        _ = m.observe(Self.sighting(2000, minor: 54, address: "00:AA:01:01:00:02"))
        // Another region's beacon keeps nothing alive.
        _ = m.observe(Self.sighting(20_000, major: 9))
        #expect(m.tick(nowMs: 31_999).isEmpty)
        let exit = m.tick(nowMs: 32_000)
        #expect(exit.map(\.kind) == [.exit])
        #expect(exit.first?.atMs == 32_000)
        #expect(exit.first?.beacons.map(\.beacon.minor) == [53, 54])
        #expect(!m.inside)
        #expect(m.tick(nowMs: 90_000).isEmpty)  // one exit only
        // Back again: a new enter needs two sightings anew.
        #expect(m.observe(Self.sighting(100_000)).isEmpty)
        #expect(m.observe(Self.sighting(100_100)).map(\.kind) == [.enter])
    }

    /// Gaps shorter than exitAfter are no exit (hysteresis on the way out).
    @Test func shortGapsAreNoExit() {
        var m = RegionMonitor(region: BeaconRegion(uuid: Self.uuid))
        m.exitAfterMs = 5000
        var events: [RegionMonitor.Event] = []
        for ms in stride(from: 0, through: 60_000, by: 4900) {
            events += m.observe(Self.sighting(ms))
            events += m.tick(nowMs: ms + 100)
        }
        #expect(events.map(\.kind) == [.enter])
    }

    /// A sighting weaker than the minimum does not count; one without RSSI (the emulator's) does.
    @Test func minimumRSSI() {
        var m = RegionMonitor(region: BeaconRegion(uuid: Self.uuid))
        m.minimumRSSI = -70
        #expect(m.observe(Self.sighting(0, rssi: -80)).isEmpty)
        #expect(m.observe(Self.sighting(100, rssi: -85)).isEmpty)
        #expect(!m.inside)
        #expect(m.observe(Self.sighting(200, rssi: nil)).isEmpty)
        #expect(m.observe(Self.sighting(300, rssi: -65)).map(\.kind) == [.enter])
    }

    /// The exit comes from a sighting's arrival too, not only a tick: a replay's next report.
    @Test func aLateSightingFirstClosesTheOldVisit() {
        var m = RegionMonitor(region: BeaconRegion(uuid: Self.uuid))
        m.enterSightings = 1
        #expect(m.observe(Self.sighting(0)).map(\.kind) == [.enter])
        #expect(m.observe(Self.sighting(40_000)).map(\.kind) == [.exit, .enter])
    }
}

import FPCore

/// An iBeacon region as CoreLocation had them: a UUID, optionally narrowed to
/// one major, and within it to one minor.
package struct BeaconRegion: Sendable, Equatable {
    package var uuid: String
    package var major: Int?
    package var minor: Int?

    package init(uuid: String, major: Int? = nil, minor: Int? = nil) {
        self.uuid = uuid.uppercased()
        self.major = major
        self.minor = minor
    }

    /// iBeacons (and AltBeacons, which carry the same three ids) inside the region.
    package func contains(_ b: Beacon) -> Bool {
        guard b.type == "ibeacon" || b.type == "altbeacon", b.uuid?.uppercased() == uuid else { return false }
        if let major, b.major != major { return false }
        if let minor, b.minor != minor { return false }
        return true
    }
}

/// Enter and exit of one region, with hysteresis both ways: enter once
/// `enterSightings` sightings of the region's beacons fall within
/// `enterWindowMs` (one stray packet does not count as arriving), and exit
/// once none was heard for `exitAfterMs` (a few missed packets do not count
/// as leaving). A sighting weaker than `minimumRSSI` is not one.
package struct RegionMonitor: Sendable {
    package struct Sighting: Sendable, Equatable {
        package var address: String
        package var beacon: Beacon
        package var rssi: Int?
        package var atMs: Int
        package init(address: String, beacon: Beacon, rssi: Int?, atMs: Int) {
            self.address = address
            self.beacon = beacon
            self.rssi = rssi
            self.atMs = atMs
        }
    }

    package struct Event: Sendable, Equatable {
        package enum Kind: String, Sendable { case enter, exit }
        package var kind: Kind
        package var atMs: Int
        /// Enter: the sightings that made it (the latest per beacon); exit: the
        /// last sighting of each beacon heard while inside.
        package var beacons: [Sighting]
    }

    package let region: BeaconRegion
    package var enterSightings = 2
    package var enterWindowMs = 10_000
    package var exitAfterMs = 30_000
    package var minimumRSSI: Int?

    package private(set) var inside = false
    private var recent: [Sighting] = []
    /// While inside: the last sighting per beacon (address and ids).
    private var heardInside: [String: Sighting] = [:]
    private var lastSeenMs: Int?

    package init(region: BeaconRegion) { self.region = region }

    /// A sighting of any beacon; events it causes (an enter at most).
    package mutating func observe(_ s: Sighting) -> [Event] {
        var events = tick(nowMs: s.atMs)
        guard region.contains(s.beacon) else { return events }
        if let minimumRSSI, let rssi = s.rssi, rssi < minimumRSSI { return events }
        lastSeenMs = s.atMs
        if inside {
            heardInside[Self.key(s)] = s
            return events
        }
        recent.append(s)
        recent.removeAll { s.atMs - $0.atMs >= enterWindowMs }
        if recent.count >= enterSightings {
            inside = true
            var latest: [String: Sighting] = [:]
            for r in recent { latest[Self.key(r)] = r }
            heardInside = latest
            recent = []
            events.append(Event(kind: .enter, atMs: s.atMs, beacons: Self.ordered(latest)))
        }
        return events
    }

    /// Time passing: an exit once the region was silent for `exitAfterMs`.
    package mutating func tick(nowMs: Int) -> [Event] {
        guard inside, let last = lastSeenMs, nowMs - last >= exitAfterMs else { return [] }
        inside = false
        let event = Event(kind: .exit, atMs: last + exitAfterMs, beacons: Self.ordered(heardInside))
        heardInside = [:]
        return [event]
    }

    static func key(_ s: Sighting) -> String {
        "\(s.address) \(s.beacon.uuid ?? "") \(s.beacon.major ?? -1) \(s.beacon.minor ?? -1)"
    }

    static func ordered(_ byKey: [String: Sighting]) -> [Sighting] {
        byKey.values.sorted { ($0.address, $0.beacon.major ?? 0, $0.beacon.minor ?? 0) < ($1.address, $1.beacon.major ?? 0, $1.beacon.minor ?? 0) }
    }
}

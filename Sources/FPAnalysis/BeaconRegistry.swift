import FPCore

/// A beacon registry in the shape of the FIM building's `fim-beacons.json`
/// (radio-localization-eval): a JSON array whose entries are null (skipped,
/// the original's first entry is) or `{mac, uuid, major, minor, floor, x, y}`
/// with x/y in map units. fprint reads an optional `measuredPower` (dBm at
/// 1 m), `name`, and an Eddystone-UID `namespace`/`instance` per beacon.
/// Entries without a position are kept out of positioning.
///
/// An entry is known by its `mac`, its iBeacon uuid/major/minor and its
/// Eddystone namespace/instance, any of which may be missing as long as one
/// is there. A report is matched by the identity it advertises first (so a
/// beacon whose random address rotates stays one beacon), then by its
/// address. An advertised identity that several entries share tells them
/// apart by nothing: those entries are matched by address alone.
package struct BeaconRegistry: Sendable, Equatable {
    package struct Entry: Sendable, Equatable {
        package var mac: String?
        /// `.iBeacon` and `.eddystoneUID`, when the registry gives them.
        package var iBeacon: BeaconIdentity?
        package var eddystone: BeaconIdentity?
        package var floor: String?
        package var x: Double
        package var y: Double
        package var measuredPower: Double?
        /// What the deployment sheet calls it (`fprint beacons import`).
        package var name: String?

        package init(mac: String?, iBeacon: BeaconIdentity? = nil, eddystone: BeaconIdentity? = nil, floor: String? = nil,
                     x: Double, y: Double, measuredPower: Double? = nil, name: String? = nil) {
            self.mac = mac
            self.iBeacon = iBeacon
            self.eddystone = eddystone
            self.floor = floor
            self.x = x
            self.y = y
            self.measuredPower = measuredPower
            self.name = name
        }

        /// Advertised identities first, then the address.
        package var identities: [BeaconIdentity] { [iBeacon, eddystone, mac.map(BeaconIdentity.mac)].compactMap { $0 } }

        /// What tables, marks and health call it: its MAC, else its advertised identity's text.
        package var id: String { mac ?? (iBeacon ?? eddystone)?.text ?? "" }

        /// A few characters for a mark on a plot: the MAC's last two bytes, an iBeacon's
        /// major/minor, an Eddystone instance's last two bytes.
        package var shortLabel: String {
            if let mac { return String(mac.suffix(5)) }
            switch iBeacon ?? eddystone {
            case .iBeacon(_, let major, let minor)?: return "\(major)/\(minor)"
            case .eddystoneUID(_, let instance)?: return String(instance.suffix(4))
            default: return id
            }
        }
    }

    package private(set) var entries: [Entry]
    /// Transmitter id (`Fingerprint.bleID`, of an address or an identity) → entry index.
    private var byTransmitter: [String: Int] = [:]

    package init(entries: [Entry]) {
        self.entries = entries
        index()
    }

    /// `source` names the file in errors.
    package init(json: JSONValue, source: String) throws(FingerprintError) {
        guard case .array(let items) = json else { throw FingerprintError("\(source): $: expected an array of beacons") }
        var out: [Entry] = []
        for (i, item) in items.enumerated() {
            if item.isNull { continue }
            guard case .object(let o) = item else { throw FingerprintError("\(source): $[\(i)]: expected an object or null") }
            if let e = try Self.entry(o, at: "\(source): $[\(i)]") { out.append(e) }
        }
        entries = out
        index()
    }

    /// One placed entry; nil for one without a position.
    private static func entry(_ o: JSONObject, at: String) throws(FingerprintError) -> Entry? {
        let mac = o["mac"]?.stringValue.flatMap { $0.isEmpty ? nil : $0.uppercased() }
        func text(_ key: String) -> String? {
            guard let v = o[key], !v.isNull else { return nil }
            return v.stringValue ?? v.intValue.map { String($0) }
        }
        let iBeaconGiven = ["uuid", "major", "minor"].filter { text($0) != nil }
        let eddystoneGiven = ["namespace", "instance"].filter { text($0) != nil }
        var iBeacon: BeaconIdentity?, eddystone: BeaconIdentity?
        if iBeaconGiven.count == 3 {
            iBeacon = BeaconIdentity.iBeacon(uuid: text("uuid")!, major: text("major")!, minor: text("minor")!)
        }
        if eddystoneGiven.count == 2 {
            eddystone = BeaconIdentity.eddystone(namespace: text("namespace")!, instance: text("instance")!)
        }
        if mac == nil {
            // Without an address, the advertised identity is all the entry is known by: it must be whole.
            if iBeaconGiven.isEmpty && eddystoneGiven.isEmpty {
                throw FingerprintError("\(at).mac: expected a MAC address (or an iBeacon uuid/major/minor, or an Eddystone namespace/instance)")
            }
            if !iBeaconGiven.isEmpty && iBeacon == nil {
                throw FingerprintError("\(at).uuid: expected an iBeacon uuid (32 hex digits), major and minor (0–65535)")
            }
            if !eddystoneGiven.isEmpty && eddystone == nil {
                throw FingerprintError("\(at).namespace: expected an Eddystone namespace (10 bytes of hex) and instance (6 bytes)")
            }
        }
        guard let x = o["x"]?.doubleValue, let y = o["y"]?.doubleValue else { return nil }  // not placed
        var mp: Double?
        if let v = o["measuredPower"], !v.isNull {
            guard let d = v.doubleValue, (-120.0...0).contains(d) else {
                throw FingerprintError("\(at).measuredPower: expected dBm between −120 and 0")
            }
            mp = d
        }
        return Entry(mac: mac, iBeacon: iBeacon, eddystone: eddystone, floor: o["floor"]?.stringValue, x: x, y: y,
                     measuredPower: mp, name: o["name"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 })
    }

    private mutating func index() {
        var shared: Set<BeaconIdentity> = []
        var first: [BeaconIdentity: Int] = [:]
        for (i, e) in entries.enumerated() {
            for id in [e.iBeacon, e.eddystone].compactMap({ $0 }) {
                if first[id] != nil && first[id] != i { shared.insert(id) } else { first[id] = i }
            }
        }
        byTransmitter = [:]
        for (i, e) in entries.enumerated() {
            for id in e.identities where !shared.contains(id) {
                let key = Fingerprint.bleID(id)
                if byTransmitter[key] == nil { byTransmitter[key] = i }
            }
        }
    }

    /// The entry a report with this advertised identity (or address, as `.mac`) belongs to.
    package func entry(identity: BeaconIdentity) -> Entry? { entryIndex(transmitter: Fingerprint.bleID(identity)).map { entries[$0] } }

    package func entry(address: String) -> Entry? {
        entry(identity: .mac(BeaconIdentity.mac(address) ?? address.uppercased()))
    }

    /// The entry a report belongs to: by its advertised identity first, then its address.
    package func entry(address: String, identity: BeaconIdentity?) -> Entry? {
        if let identity, let e = entry(identity: identity) { return e }
        return entry(address: address)
    }

    /// The entry index of a fingerprint's BLE transmitter id: by the identity
    /// `identities` (a fingerprint's `bleIdentities`) says it advertised, then
    /// by the id itself (an address's, or an identity's when keyed by identity).
    package func entryIndex(transmitter: String, identities: [String: BeaconIdentity] = [:]) -> Int? {
        if let id = identities[transmitter], let i = byTransmitter[Fingerprint.bleID(id)] { return i }
        return byTransmitter[transmitter]
    }

    /// Every transmitter id an entry may be heard under (its address's and its identities').
    package var transmitterIDs: Set<String> { Set(byTransmitter.keys) }

    /// The one transmitter id `resolving` gives an entry: its address's, else its advertised identity's.
    package func key(of entry: Entry) -> String { Fingerprint.bleID(entry.mac.map(BeaconIdentity.mac) ?? entry.identities[0]) }

    /// `key(of:)` of every entry: the transmitters `resolving` leaves a fingerprint's registry beacons under.
    package var keys: Set<String> { Set(entries.map(key(of:))) }

    /// `fp` with each BLE transmitter matched to an entry (identity first) renamed
    /// to that entry's `key(of:)`: a beacon's rotating addresses become one
    /// transmitter, for counts by transmitter (coverage). Others are left as they are.
    package func resolving(_ fp: Fingerprint) -> Fingerprint {
        var out = fp
        var renamed: [String: String] = [:]
        for i in out.ble.indices {
            let t = out.ble[i].transmitter
            if renamed[t] == nil { renamed[t] = entryIndex(transmitter: t, identities: fp.bleIdentities).map { key(of: entries[$0]) } ?? t }
            out.ble[i].transmitter = renamed[t]!
        }
        return out
    }

    package static func == (a: BeaconRegistry, b: BeaconRegistry) -> Bool { a.entries == b.entries }
}

/// A document's canonical JSON written in one pass into one buffer: its BLE
/// entries (100,000s in a replayed capture) go straight from `BLEScan` to
/// text, never through a `JSONValue` tree (which took ~600 bytes and a dozen
/// allocations an entry). The rest of the document is small and goes
/// through its value. The bytes equal `CanonicalJSON.bytes` of the
/// encoded document (`CanonicalDocumentTests` pins it).
extension MeasurementDocument {
    /// `extra`: members added at the top level (a measurement's network
    /// probes); one named like an encoded member replaces it.
    public func canonicalBytes(adding extra: [JSONObject.Member] = []) throws -> [UInt8] {
        try canonicalText(adding: extra).text
    }

    /// `canonicalBytes`, with the top-level members as `JSONSkim` would
    /// find them, recorded while writing (a store takes them instead of
    /// reading the text again: `SQLiteDocumentStore.insert(id:ownText:members:)`).
    public func canonicalText(adding extra: [JSONObject.Member] = []) throws -> (text: [UInt8], members: [JSONSkim.Member]) {
        var rest = self
        rest.bleScans = []
        guard case .object(var object) = try JSONValueEncoder().encode(rest) else { return (CanonicalJSON.bytes(.null), []) }
        for (key, value) in extra { object[key] = value }
        var out: [UInt8] = []
        out.reserveCapacity(4096 + bleScans.count * 320)  // untouched pages cost no memory; a regrowth copies it all
        out.append(UInt8(ascii: "{"))
        var first = true
        var scansWritten = false
        var members: [JSONSkim.Member] = []
        /// Writes the separator and the key; returns where the member starts.
        func startMember(_ key: String) -> Int {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            let start = out.count
            CanonicalJSON.writeString(key, into: &out)
            out.append(UInt8(ascii: ":"))
            return start
        }
        func endMember(_ key: String, from start: Int, valueFrom valueStart: Int, count: Int) {
            let node = JSONSkim.Node(value: valueStart..<out.count, isCanonical: true, count: count)
            members.append(JSONSkim.Member(key: key, text: start..<out.count, node: node))
        }
        func writeScans() {
            let start = startMember("bleScans"), valueStart = out.count
            out.append(UInt8(ascii: "["))
            let scans = bleScans
            if scans.count >= 32_768 {
                // A replay's 100,000s of entries: the second half is written
                // on another core meanwhile and joined after the first.
                let half = scans.count / 2
                let (_, rest) = inParallel(
                    { Self.writeEntries(scans[..<half], into: &out) },
                    { Self.entriesText(scans[half...]) })
                out.append(UInt8(ascii: ","))
                out.append(contentsOf: rest)
            } else {
                Self.writeEntries(scans[...], into: &out)
            }
            out.append(UInt8(ascii: "]"))
            endMember("bleScans", from: start, valueFrom: valueStart, count: bleScans.count)
            scansWritten = true
        }
        for (key, value) in object.members {
            if key == "bleScans" {
                writeScans()
                continue
            }
            if !scansWritten && !bleScans.isEmpty && JSONObject.precedes("bleScans", key) { writeScans() }
            let start = startMember(key), valueStart = out.count
            CanonicalJSON.write(value, into: &out)
            let count = switch value {
            case .array(let elements): elements.count
            case .object(let object): object.members.count
            default: 0
            }
            endMember(key, from: start, valueFrom: valueStart, count: count)
        }
        if !scansWritten && !bleScans.isEmpty { writeScans() }
        out.append(UInt8(ascii: "}"))
        return (out, members)
    }
}

extension MeasurementDocument {
    /// Entries' text, comma-separated, on its own.
    static func entriesText(_ scans: ArraySlice<BLEScan>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(scans.count * 320)  // untouched pages cost no memory; a regrowth copies it all
        writeEntries(scans, into: &out)
        return out
    }

    static func writeEntries(_ scans: ArraySlice<BLEScan>, into out: inout [UInt8]) {
        scans.withUnsafeBufferPointer { scans in  // read in place: a copy of each entry retains its strings
            for n in scans.indices {
                if n > 0 { out.append(UInt8(ascii: ",")) }
                scans[n].writeCanonical(into: &out)
            }
        }
    }
}

extension BLEScan {
    /// `jsonValue`'s canonical text, written directly.
    func writeCanonical(into out: inout [UInt8]) {
        var w = CanonicalMembers(&out)
        w.string("address", address, &out)
        if let addressType { w.string("addressType", addressType, &out) }
        if let beacon { w.key("beacon", &out); beacon.writeCanonical(into: &out) }
        if let companyId { w.int("companyId", companyId, &out) }
        if let controller { w.int("controller", controller, &out) }
        if let data { w.string("data", data, &out) }
        if let eventType { w.string("eventType", eventType, &out) }
        if let name { w.string("name", name, &out) }
        if let rssi { w.int("rssi", rssi, &out) }
        if let serviceUuids {
            w.key("serviceUuids", &out)
            out.append(UInt8(ascii: "["))
            for (n, uuid) in serviceUuids.enumerated() {
                if n > 0 { out.append(UInt8(ascii: ",")) }
                CanonicalJSON.writeString(uuid, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        }
        w.int("time", time, &out)
        if let txPower { w.int("txPower", txPower, &out) }
        out.append(UInt8(ascii: "}"))
    }
}

extension Beacon {
    func writeCanonical(into out: inout [UInt8]) {
        var w = CanonicalMembers(&out)
        if let advertisingCount { w.int("advertisingCount", advertisingCount, &out) }
        if let batteryMilliVolts { w.int("batteryMilliVolts", batteryMilliVolts, &out) }
        if let companyId { w.int("companyId", companyId, &out) }
        if let instance { w.string("instance", instance, &out) }
        if let major { w.int("major", major, &out) }
        if let measuredPower { w.int("measuredPower", measuredPower, &out) }
        if let minor { w.int("minor", minor, &out) }
        if let namespace { w.string("namespace", namespace, &out) }
        if let temperature { w.key("temperature", &out); CanonicalJSON.writeNumber(temperature, into: &out) }
        w.string("type", type, &out)
        if let uptimeTenths { w.int("uptimeTenths", uptimeTenths, &out) }
        if let url { w.string("url", url, &out) }
        if let uuid { w.string("uuid", uuid, &out) }
        out.append(UInt8(ascii: "}"))
    }
}

/// The members of one object, appended in the order given (the caller's:
/// canonical key order); opens the object, the caller closes it.
struct CanonicalMembers {
    private var first = true

    init(_ out: inout [UInt8]) { out.append(UInt8(ascii: "{")) }

    mutating func key(_ key: StaticString, _ out: inout [UInt8]) {
        if !first { out.append(UInt8(ascii: ",")) }
        first = false
        out.append(UInt8(ascii: "\""))
        out.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
        out.append(UInt8(ascii: "\""))
        out.append(UInt8(ascii: ":"))
    }

    mutating func string(_ key: StaticString, _ value: String, _ out: inout [UInt8]) {
        self.key(key, &out)
        CanonicalJSON.writeString(value, into: &out)
    }

    mutating func int(_ key: StaticString, _ value: Int, _ out: inout [UInt8]) {
        self.key(key, &out)
        CanonicalJSON.writeInteger(Int64(value), into: &out)
    }
}

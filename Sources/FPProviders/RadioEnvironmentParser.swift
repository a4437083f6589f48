import FPCore
import Foundation

// Radio environment file, version 1 (also Config/environments/README.md).
//
// One JSON object per floor. Positions are map units of that floor's plan;
// distances become metres through `scale`. Keys starting with "_" are
// comments and ignored; any other unknown key is an error (it is a typo).
//
// {
//   "map": "J3NP",                         required, the map id the file simulates
//   "name": "FIM UHK, building J, 3NP",    optional, defaults to map
//   "seed": 42,                            optional integer ≥ 0, default seed for the CLI
//   "scale": {"meters": 45, "units": 2250},               required, both > 0
//   "propagation": {                                      required
//     "pathLossExponent": 2.2,             n > 0
//     "shadowingSigmaDb": 4.0,             σ ≥ 0 of the per-sample noise
//     "sensitivityDbm": -100 },            weaker samples are not heard
//   "geo": {                               optional; without it GNSS is unavailable
//     "originLat": 50.2043, "originLong": 15.8293,        WGS-84 of the map point originX/originY
//     "originX": 0, "originY": 0,          optional, default 0
//     "rotationDeg": 0,                    optional, bearing of the map's "up", clockwise from north
//     "yAxis": "down",                     optional, "down" (image coordinates, default) or "up"
//     "accuracyM": 12,                     RMS horizontal error of the fixes, ≥ 0
//     "altM": 246 },                       optional altitude of the fixes
//   "ble": [ {                             optional array
//     "address": "C5:D5:21:51:D7:90",      MAC, unique in the file
//     "addressType": "random",             optional, "public" (default) or "random"
//     "x": 1441, "y": 303,
//     "measuredPower": -66,                integer dBm, RSSI at 1 m
//     "intervalMs": 100,                   integer > 0, advInterval (+0–10 ms advDelay)
//     "name": null,                        optional local name
//     "beacon": {"type": "ibeacon", "uuid": "B9407F30-…", "major": 55184, "minor": 8529} } ],
//                                          or {"type": "eddystone-uid", "namespace": 20 hex, "instance": 12 hex}
//                                          or {"type": "eddystone-url", "url": "https://…"}
//   "wifi": [ {                            optional array; one entry per BSS
//     "mac": "02:1B:3C:4D:5E:60", "ssid": "eduroam",      mac unique, ssid may be "" (hidden)
//     "x": 900, "y": 1200,
//     "frequency": 2437,                   MHz, a 2.4/5/6 GHz channel centre
//     "rssiAt1m": -35 } ],                 dBm
//   "cell": [ {                            optional array
//     "type": "lte",                       gsm | umts | lte | nr
//     "cid": 26140161, "lac": 20511,       integers ≥ 0 (LTE: ECI and TAC)
//     "psc": 181,                          optional integer ≥ 0 (PSC, or PCI for LTE/NR)
//     "mcc": "230", "mnc": "01",           3 digits, 2–3 digits
//     "serving": true,                     optional, default false; at most one serving cell
//     "x": -20000, "y": -8000,             the mast, usually far off the plan
//     "rssiAt1m": -22 } ]                  dBm
// }
//
// Errors are one line naming the file, the JSON path and the problem:
//   J3NP.json: $.ble[3].x: expected a number

/// A problem in a radio environment file.
package struct RadioEnvironmentError: Error, Equatable, CustomStringConvertible, LocalizedError {
    package var file: String
    /// JSON path like `$.ble[3].x`; empty for problems with the file as a whole.
    package var path: String
    package var problem: String

    package init(file: String, path: String, problem: String) {
        self.file = file
        self.path = path
        self.problem = problem
    }

    package var description: String { path.isEmpty ? "\(file): \(problem)" : "\(file): \(path): \(problem)" }
    package var errorDescription: String? { description }
}

extension RadioEnvironment {
    /// Reads and validates an environment file. Errors name `path` as given;
    /// `source` (for statuses) is its last component.
    package static func load(path: String) throws -> RadioEnvironment {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            let problem = FileManager.default.fileExists(atPath: path)
                ? "cannot read: \(error.localizedDescription)" : "no such file"
            throw RadioEnvironmentError(file: path, path: "", problem: problem)
        }
        return try RadioEnvironment(data: data, source: (path as NSString).lastPathComponent, errorLabel: path)
    }

    /// Parses environment JSON; `source` names it in statuses and errors.
    package init(data: Data, source: String) throws {
        try self.init(data: data, source: source, errorLabel: source)
    }

    init(data: Data, source: String, errorLabel: String) throws {
        let root: JSONValue
        do {
            root = try CanonicalJSON.parse(data)
        } catch {
            // The parser's own error says where: "not valid JSON near line 1, column 14: …".
            throw RadioEnvironmentError(file: errorLabel, path: "", problem: error.description)
        }
        self = try EnvironmentParser(file: errorLabel, source: source).environment(JSONNode(root))
    }
}

/// Walks the parsed JSON tree (FPCore's `JSONNode`: values with their paths);
/// every accessor names the path it failed at.
private struct EnvironmentParser {

    let file: String
    let source: String

    func fail(_ node: JSONNode, _ problem: String) -> RadioEnvironmentError {
        RadioEnvironmentError(file: file, path: node.path, problem: problem)
    }

    // MARK: typed accessors

    /// An object whose keys are all in `allowed` (or comments starting with "_").
    func object(_ node: JSONNode, allowed: [String]) throws -> Fields {
        guard case .object(let members) = node.value else { throw fail(node, "expected an object") }
        for key in members.keys.sorted() where !key.hasPrefix("_") && !allowed.contains(key) {
            throw fail(JSONNode(.null, at: node.path(of: key)), "unknown key")
        }
        return Fields(file: file, node: node)
    }

    func array(_ node: JSONNode) throws -> [JSONNode] {
        guard let elements = node.elements else { throw fail(node, "expected an array") }
        return elements
    }

    func number(_ node: JSONNode) throws -> Double {
        guard let d = node.value.doubleValue else { throw fail(node, "expected a number") }
        guard d.isFinite else { throw fail(node, "must be finite") }
        return d
    }

    func number(_ node: JSONNode, _ range: ClosedRange<Double>) throws -> Double {
        let d = try number(node)
        guard range.contains(d) else { throw fail(node, "must be between \(fmt(range.lowerBound)) and \(fmt(range.upperBound))") }
        return d
    }

    func positive(_ node: JSONNode) throws -> Double {
        let d = try number(node)
        guard d > 0 else { throw fail(node, "must be greater than 0") }
        return d
    }

    func nonNegative(_ node: JSONNode) throws -> Double {
        let d = try number(node)
        guard d >= 0 else { throw fail(node, "must not be negative") }
        return d
    }

    func integer(_ node: JSONNode, _ range: ClosedRange<Int64>) throws -> Int {
        guard let i = node.value.intValue else { throw fail(node, "expected an integer") }
        // Upper bounds of Int32.max and beyond only keep arithmetic safe: not worth printing for small values.
        if range.upperBound >= Int64(Int32.max), i < range.lowerBound {
            switch range.lowerBound {
            case 0: throw fail(node, "must not be negative")
            case 1: throw fail(node, "must be greater than 0")
            default: throw fail(node, "must be at least \(range.lowerBound)")
            }
        }
        guard range.contains(i) else { throw fail(node, "must be between \(range.lowerBound) and \(range.upperBound)") }
        return Int(i)
    }

    func string(_ node: JSONNode) throws -> String {
        guard let s = node.value.stringValue else { throw fail(node, "expected a string") }
        return s
    }

    func nonEmptyString(_ node: JSONNode) throws -> String {
        let s = try string(node)
        guard !s.isEmpty else { throw fail(node, "must not be empty") }
        return s
    }

    func bool(_ node: JSONNode) throws -> Bool {
        guard let b = node.value.boolValue else { throw fail(node, "expected true or false") }
        return b
    }

    func oneOf(_ node: JSONNode, _ choices: [String]) throws -> String {
        let s = try string(node)
        guard choices.contains(s) else { throw fail(node, "expected one of " + choices.map { "\"\($0)\"" }.joined(separator: ", ")) }
        return s
    }

    /// `AA:BB:CC:DD:EE:FF` (either case), returned upper case as BlueZ prints it.
    func mac(_ node: JSONNode) throws -> String {
        let s = try string(node)
        let parts = s.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 6, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isHexDigit) }) else {
            throw fail(node, "expected a MAC address like C5:D5:21:51:D7:90")
        }
        return s.uppercased()
    }

    func hex(_ node: JSONNode, digits: Int) throws -> String {
        let s = try string(node)
        guard s.count == digits, s.allSatisfy(\.isHexDigit) else { throw fail(node, "expected \(digits) hex digits") }
        return s.lowercased()
    }

    func digits(_ node: JSONNode, _ counts: ClosedRange<Int>, what: String) throws -> String {
        let s = try string(node)
        guard counts.contains(s.count), s.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw fail(node, "expected \(what) as a string of \(counts.lowerBound == counts.upperBound ? "\(counts.lowerBound)" : "\(counts.lowerBound)–\(counts.upperBound)") digits")
        }
        return s
    }

    func point(_ f: Fields) throws -> MapPoint {
        MapPoint(x: try number(f.required("x")), y: try number(f.required("y")))
    }

    private func fmt(_ d: Double) -> String { d.rounded() == d ? String(Int64(d)) : String(d) }

    // MARK: the document

    func environment(_ root: JSONNode) throws -> RadioEnvironment {
        let f = try object(root, allowed: ["map", "name", "seed", "scale", "propagation", "geo", "ble", "wifi", "cell"])
        let map = try nonEmptyString(f.required("map"))
        var env = RadioEnvironment(map: map, name: try f.optional("name").map(nonEmptyString), source: source)
        env.seed = try f.optional("seed").map { UInt64(try integer($0, 0...Int64.max)) }
        let scale = try object(f.required("scale"), allowed: ["meters", "units"])
        env.scale = MapScale(meters: try positive(scale.required("meters")), units: try positive(scale.required("units")))
        let p = try object(f.required("propagation"), allowed: ["pathLossExponent", "shadowingSigmaDb", "sensitivityDbm"])
        env.propagation = RadioEnvironment.Propagation(
            pathLossExponent: try positive(p.required("pathLossExponent")),
            shadowingSigmaDb: try nonNegative(p.required("shadowingSigmaDb")),
            sensitivityDbm: try number(p.required("sensitivityDbm")))
        env.geo = try f.optional("geo").map(geo)
        env.ble = try f.optional("ble").map { try array($0).map(bleTransmitter) } ?? []
        env.wifi = try f.optional("wifi").map { try array($0).map(accessPoint) } ?? []
        env.cells = try f.optional("cell").map { try array($0).map(cell) } ?? []
        try checkUnique(f, "ble", "address", env.ble.map(\.address))
        try checkUnique(f, "ble", "beacon", env.ble.map { $0.beacon.map(beaconKey) })
        try checkUnique(f, "wifi", "mac", env.wifi.map(\.mac))
        try checkUnique(f, "cell", "cid", env.cells.map { "\($0.type)/\($0.mcc)/\($0.mnc)/\($0.lac)/\($0.cid)" })
        let serving = env.cells.indices.filter { env.cells[$0].serving }
        if serving.count > 1 {
            throw fail(JSONNode(.null, at: "$.cell[\(serving[1])].serving"), "a second serving cell (the first is $.cell[\(serving[0])])")
        }
        return env
    }

    /// Duplicates are reported at the later entry, pointing at the first.
    private func checkUnique(_ f: Fields, _ list: String, _ key: String, _ ids: [String?]) throws {
        var first: [String: Int] = [:]
        for (i, id) in ids.enumerated() {
            guard let id else { continue }
            if let j = first[id] { throw fail(JSONNode(.null, at: "$.\(list)[\(i)].\(key)"), "duplicate of $.\(list)[\(j)]") }
            first[id] = i
        }
    }

    private func beaconKey(_ b: Beacon) -> String {
        [b.type, b.uuid ?? "", b.major.map(String.init) ?? "", b.minor.map(String.init) ?? "",
         b.namespace ?? "", b.instance ?? "", b.url ?? ""].joined(separator: "/")
    }

    func geo(_ node: JSONNode) throws -> RadioEnvironment.GeoAnchor {
        let f = try object(node, allowed: ["originLat", "originLong", "originX", "originY", "rotationDeg", "yAxis",
                                            "accuracyM", "altM"])
        return RadioEnvironment.GeoAnchor(
            originLat: try number(f.required("originLat"), -90...90),
            originLong: try number(f.required("originLong"), -180...180),
            originX: try f.optional("originX").map(number) ?? 0,
            originY: try f.optional("originY").map(number) ?? 0,
            rotationDeg: try f.optional("rotationDeg").map(number) ?? 0,
            yAxisDown: try f.optional("yAxis").map { try oneOf($0, ["down", "up"]) == "down" } ?? true,
            accuracyM: try nonNegative(f.required("accuracyM")),
            altM: try f.optional("altM").map(number))
    }

    func bleTransmitter(_ node: JSONNode) throws -> RadioEnvironment.BLETransmitter {
        let f = try object(node, allowed: ["address", "addressType", "x", "y", "measuredPower", "intervalMs", "name", "beacon"])
        let address = try mac(f.required("address"))
        let addressType = try f.optional("addressType").map { try oneOf($0, ["public", "random"]) } ?? "public"
        let position = try point(f)
        let power = try integer(f.required("measuredPower"), -127...20)
        let interval = try integer(f.required("intervalMs"), 1...Int64(Int32.max))
        let name = try f.optional("name").map(string)
        var beacon = try f.optional("beacon").map(self.beacon)
        beacon?.measuredPower = power
        return RadioEnvironment.BLETransmitter(address: address, addressType: addressType, position: position,
                                               measuredPower: power, intervalMs: interval, name: name, beacon: beacon)
    }

    func beacon(_ node: JSONNode) throws -> Beacon {
        guard case .object = node.value else { throw fail(node, "expected an object") }
        guard let typeNode = node.member("type") else { throw fail(JSONNode(.null, at: node.path(of: "type")), "missing") }
        switch try oneOf(typeNode, ["ibeacon", "eddystone-uid", "eddystone-url"]) {
        case "ibeacon":
            let f = try object(node, allowed: ["type", "uuid", "major", "minor"])
            let uuidNode = try f.required("uuid")
            guard let uuid = UUID(uuidString: try string(uuidNode)) else {
                throw fail(uuidNode, "expected a UUID like B9407F30-F5F8-466E-AFF9-25556B57FE6D")
            }
            return Beacon(type: "ibeacon", uuid: uuid.uuidString, major: try integer(f.required("major"), 0...65535),
                          minor: try integer(f.required("minor"), 0...65535))
        case "eddystone-uid":
            let f = try object(node, allowed: ["type", "namespace", "instance"])
            return Beacon(type: "eddystone-uid", namespace: try hex(f.required("namespace"), digits: 20),
                          instance: try hex(f.required("instance"), digits: 12))
        default:
            let f = try object(node, allowed: ["type", "url"])
            return Beacon(type: "eddystone-url", url: try nonEmptyString(f.required("url")))
        }
    }

    func accessPoint(_ node: JSONNode) throws -> RadioEnvironment.WiFiAccessPoint {
        let f = try object(node, allowed: ["mac", "ssid", "x", "y", "frequency", "rssiAt1m"])
        let mac = try mac(f.required("mac"))
        let ssid = try string(f.required("ssid"))
        let position = try point(f)
        let frequencyNode = try f.required("frequency")
        let frequency = try integer(frequencyNode, 1...100_000)
        guard WiFiChannel.number(frequencyMHz: frequency) != nil else {
            throw fail(frequencyNode, "\(frequency) MHz is not a 2.4, 5 or 6 GHz Wi-Fi channel")
        }
        return RadioEnvironment.WiFiAccessPoint(mac: mac, ssid: ssid, position: position, frequency: frequency,
                                                rssiAt1m: try number(f.required("rssiAt1m")))
    }

    func cell(_ node: JSONNode) throws -> RadioEnvironment.Cell {
        let f = try object(node, allowed: ["type", "cid", "lac", "psc", "mcc", "mnc", "serving", "x", "y", "rssiAt1m"])
        return RadioEnvironment.Cell(
            type: try oneOf(f.required("type"), ["gsm", "umts", "lte", "nr"]),
            cid: try integer(f.required("cid"), 0...Int64.max),
            lac: try integer(f.required("lac"), 0...Int64.max),
            psc: try f.optional("psc").map { try integer($0, 0...Int64.max) },
            mcc: try digits(f.required("mcc"), 3...3, what: "MCC"),
            mnc: try digits(f.required("mnc"), 2...3, what: "MNC"),
            serving: try f.optional("serving").map(bool) ?? false,
            position: try point(f),
            rssiAt1m: try number(f.required("rssiAt1m")))
    }
}

/// The members of one JSON object; `null` counts as absent for optional keys.
private struct Fields {
    let file: String
    let node: JSONNode

    func required(_ key: String) throws -> JSONNode {
        guard let member = node.member(key) else {
            throw RadioEnvironmentError(file: file, path: node.path(of: key), problem: "missing")
        }
        return member
    }

    func optional(_ key: String) -> JSONNode? {
        guard let member = node.member(key), member.value != .null else { return nil }
        return member
    }
}

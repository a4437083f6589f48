import FPCore
import FPTestSupport
import Foundation
import Testing
@testable import FPProviders

struct ParseErrorCase: Sendable, CustomTestStringConvertible {
    let path: String
    let value: JSONValue?
    let message: String
    var testDescription: String { "\(path) = \(value.map(CanonicalJSON.string) ?? "(removed)")" }
    init(_ path: String, _ value: JSONValue?, _ message: String) {
        self.path = path
        self.value = value
        self.message = message
    }
}

@Suite struct EnvironmentParsing {
    @Test func parsesTheBaseDocument() throws {
        let env = try environment(editing(baseEnvironmentJSON, "ble.1.address", "c5:d5:21:51:d7:aa"))
        #expect(env.map == "T1")
        #expect(env.name == "T1")
        #expect(env.source == "T1.json")
        #expect(env.seed == nil)
        #expect(env.scale == MapScale(meters: 45, units: 2250))
        #expect(env.propagation == .init(pathLossExponent: 2, shadowingSigmaDb: 0, sensitivityDbm: -100))
        #expect(env.geo == .init(originLat: 50.2, originLong: 15.8, originX: 0, originY: 0, rotationDeg: 0,
                                 yAxisDown: true, accuracyM: 5, altM: nil))
        #expect(env.ble.count == 2)
        #expect(env.ble[0].beacon == Beacon(type: "ibeacon", uuid: "B9407F30-F5F8-466E-AFF9-25556B57FE6D",
                                            major: 1, minor: 2, measuredPower: -66))
        #expect(env.ble[0].eventType == "ADV_NONCONN_IND")
        #expect(env.ble[1].address == "C5:D5:21:51:D7:AA")  // normalised to upper case
        #expect(env.ble[1].addressType == "public")
        #expect(env.ble[1].beacon == nil && env.ble[1].eventType == "ADV_IND")
        #expect(env.wifi.map(\.channel) == [6, 36])
        #expect(env.cells.map(\.serving) == [true, false])
        #expect(env.cells[1].psc == nil)
    }

    @Test func optionalKeysAndComments() throws {
        var json = editing(baseEnvironmentJSON, "_comment", "anything goes here")
        json = editing(json, "ble.0._note", 1)
        json = editing(json, "name", "Test floor")
        json = editing(json, "seed", 42)
        json = editing(json, "ble.1.name", nil)
        json = editing(json, "geo.yAxis", "up")
        json = editing(json, "geo.altM", 244)
        json = editing(json, "ble.1.beacon", ["type": "eddystone-uid", "namespace": "EDD1EBEAC04E5DEFA017", "instance": "0BDB87539B67"])
        json = editing(json, "wifi", nil)
        json = editing(json, "cell", nil)
        let env = try environment(json)
        #expect(env.name == "Test floor")
        #expect(env.seed == 42)
        #expect(env.geo?.yAxisDown == false && env.geo?.altM == 244)
        #expect(env.ble[1].beacon == Beacon(type: "eddystone-uid", measuredPower: -66, namespace: "edd1ebeac04e5defa017",
                                            instance: "0bdb87539b67"))
        #expect(env.wifi.isEmpty && env.cells.isEmpty)
    }

    static let errorCases: [ParseErrorCase] = [
        .init("map", nil, "T1.json: $.map: missing"),
        .init("map", "", "T1.json: $.map: must not be empty"),
        .init("ble.1.x", "12", "T1.json: $.ble[1].x: expected a number"),
        .init("ble.0.y", nil, "T1.json: $.ble[0].y: missing"),
        .init("ble.0.address", "C5:D5:21:51:D7", "T1.json: $.ble[0].address: expected a MAC address like C5:D5:21:51:D7:90"),
        .init("ble.0.address", "C5:D5:21:51:D7:9G", "T1.json: $.ble[0].address: expected a MAC address like C5:D5:21:51:D7:90"),
        .init("ble.1.address", "c5:d5:21:51:d7:90", "T1.json: $.ble[1].address: duplicate of $.ble[0]"),
        .init("ble.0.addressType", "static", "T1.json: $.ble[0].addressType: expected one of \"public\", \"random\""),
        .init("ble.0.intervalMs", 0, "T1.json: $.ble[0].intervalMs: must be greater than 0"),
        .init("ble.0.intervalMs", 100.5, "T1.json: $.ble[0].intervalMs: expected an integer"),
        .init("ble.0.measuredPower", nil, "T1.json: $.ble[0].measuredPower: missing"),
        .init("ble.0.measuredPower", 30, "T1.json: $.ble[0].measuredPower: must be between -127 and 20"),
        .init("ble.0.mesuredPower", -66, "T1.json: $.ble[0].mesuredPower: unknown key"),
        .init("ble.0.beacon.major", 70000, "T1.json: $.ble[0].beacon.major: must be between 0 and 65535"),
        .init("ble.0.beacon.uuid", "B9407F30", "T1.json: $.ble[0].beacon.uuid: expected a UUID like B9407F30-F5F8-466E-AFF9-25556B57FE6D"),
        .init("ble.0.beacon.type", "altbeacon",
              "T1.json: $.ble[0].beacon.type: expected one of \"ibeacon\", \"eddystone-uid\", \"eddystone-url\""),
        .init("ble.0.beacon.type", nil, "T1.json: $.ble[0].beacon.type: missing"),
        .init("ble.0.beacon.url", "https://uhk.cz", "T1.json: $.ble[0].beacon.url: unknown key"),
        .init("ble.1.beacon", ["type": "ibeacon", "uuid": "b9407f30-f5f8-466e-aff9-25556b57fe6d", "major": 1, "minor": 2],
              "T1.json: $.ble[1].beacon: duplicate of $.ble[0]"),
        .init("ble", ["address": "C5:D5:21:51:D7:90"], "T1.json: $.ble: expected an array"),
        .init("ble.0", .null, "T1.json: $.ble[0]: expected an object"),
        .init("wifi.1.frequency", 2400, "T1.json: $.wifi[1].frequency: 2400 MHz is not a 2.4, 5 or 6 GHz Wi-Fi channel"),
        .init("wifi.1.mac", "02:00:00:00:00:01", "T1.json: $.wifi[1].mac: duplicate of $.wifi[0]"),
        .init("wifi.0.ssid", 5, "T1.json: $.wifi[0].ssid: expected a string"),
        .init("wifi.0.rssiAt1m", nil, "T1.json: $.wifi[0].rssiAt1m: missing"),
        .init("cell.1.serving", true, "T1.json: $.cell[1].serving: a second serving cell (the first is $.cell[0])"),
        .init("cell.1.cid", 1, "T1.json: $.cell[1].cid: duplicate of $.cell[0]"),
        .init("cell.0.serving", "yes", "T1.json: $.cell[0].serving: expected true or false"),
        .init("cell.0.mcc", 230, "T1.json: $.cell[0].mcc: expected a string"),
        .init("cell.0.mcc", "23", "T1.json: $.cell[0].mcc: expected MCC as a string of 3 digits"),
        .init("cell.0.mnc", "1", "T1.json: $.cell[0].mnc: expected MNC as a string of 2–3 digits"),
        .init("cell.0.type", "5g", "T1.json: $.cell[0].type: expected one of \"gsm\", \"umts\", \"lte\", \"nr\""),
        .init("cell.0.lac", -1, "T1.json: $.cell[0].lac: must not be negative"),
        .init("scale.units", 0, "T1.json: $.scale.units: must be greater than 0"),
        .init("scale", nil, "T1.json: $.scale: missing"),
        .init("propagation.shadowingSigmaDb", -1, "T1.json: $.propagation.shadowingSigmaDb: must not be negative"),
        .init("propagation.wallLossDb", 0, "T1.json: $.propagation.wallLossDb: unknown key"),
        .init("geo.originLat", 91, "T1.json: $.geo.originLat: must be between -90 and 90"),
        .init("geo.originLong", -180.5, "T1.json: $.geo.originLong: must be between -180 and 180"),
        .init("geo.yAxis", "left", "T1.json: $.geo.yAxis: expected one of \"down\", \"up\""),
        .init("seed", -1, "T1.json: $.seed: must not be negative"),
        .init("floor", "J3NP", "T1.json: $.floor: unknown key"),
    ]

    @Test(arguments: errorCases) func rejects(_ c: ParseErrorCase) {
        let json = editing(baseEnvironmentJSON, c.path, c.value)
        #expect(json != baseEnvironmentJSON, "the edit must change the document")
        do {
            _ = try environment(json)
            Issue.record("parsed, expected \(c.message)")
        } catch {
            #expect("\(error)" == c.message)
        }
    }

    @Test func rejectsANonObjectRoot() {
        #expect(throws: RadioEnvironmentError(file: "T1.json", path: "$", problem: "expected an object")) {
            try RadioEnvironment(data: Data("[1, 2]".utf8), source: "T1.json")
        }
    }

    @Test func syntaxErrorsSayWhere() throws {
        let error = try #require(throws: RadioEnvironmentError.self) {
            try RadioEnvironment(data: Data("{\"map\": \"T1\",, }".utf8), source: "T1.json")
        }
        #expect(error.description.hasPrefix("T1.json: not valid JSON near line 1, column 14: "), "\(error)")
    }

    @Test func loadNamesThePathAndUsesTheFileNameAsSource() throws {
        let dir = try makeTemporaryFolder("fprint-env")
        defer { try? FileManager.default.removeItem(at: dir) }
        let good = dir.appendingPathComponent("T1.json").path
        try CanonicalJSON.data(baseEnvironmentJSON).write(to: URL(fileURLWithPath: good))
        #expect(try RadioEnvironment.load(path: good).source == "T1.json")

        let bad = dir.appendingPathComponent("bad.json").path
        try CanonicalJSON.data(editing(baseEnvironmentJSON, "ble.0.x", true)).write(to: URL(fileURLWithPath: bad))
        #expect(throws: RadioEnvironmentError(file: bad, path: "$.ble[0].x", problem: "expected a number")) {
            try RadioEnvironment.load(path: bad)
        }
        let missing = dir.appendingPathComponent("none.json").path
        #expect(throws: RadioEnvironmentError(file: missing, path: "", problem: "no such file")) {
            try RadioEnvironment.load(path: missing)
        }
    }

    @Test func wifiChannels() {
        #expect(WiFiChannel.number(frequencyMHz: 2412) == 1)
        #expect(WiFiChannel.number(frequencyMHz: 2437) == 6)
        #expect(WiFiChannel.number(frequencyMHz: 2472) == 13)
        #expect(WiFiChannel.number(frequencyMHz: 2484) == 14)
        #expect(WiFiChannel.number(frequencyMHz: 5180) == 36)
        #expect(WiFiChannel.number(frequencyMHz: 5825) == 165)
        #expect(WiFiChannel.number(frequencyMHz: 5955) == 1)
        #expect(WiFiChannel.number(frequencyMHz: 2413) == nil)
        #expect(WiFiChannel.number(frequencyMHz: 3000) == nil)
    }
}

@Suite struct ShippedEnvironments {
    @Test(arguments: ["J1NP", "J2NP", "J3NP"]) func parses(_ map: String) throws {
        let env = try RadioEnvironment.load(path: shippedEnvironmentPath(map))
        #expect(env.map == map)
        #expect(env.source == "\(map).json")
        #expect(env.scale == .jBuilding)
        #expect(env.ble.count >= 15)
        #expect(env.wifi.count >= 18)
        #expect((3...5).contains(env.cells.count))
        #expect(env.cells.filter(\.serving).count == 1)
        #expect(env.cells.allSatisfy { $0.mcc == "230" && $0.type == "lte" })
        #expect(env.ble.allSatisfy { $0.beacon?.uuid == "B9407F30-F5F8-466E-AFF9-25556B57FE6D" })
        let geo = try #require(env.geo)
        #expect(abs(geo.originLat - 50.204) < 0.002 && abs(geo.originLong - 15.8296) < 0.002)
        // Beacons sit on the floor the scenarios walk (with a margin for rooms beside the corridors).
        let extents: [String: (x: ClosedRange<Double>, y: ClosedRange<Double>)] = [
            "J1NP": (263...1634, 601...1981), "J2NP": (395...2096, 613...3063), "J3NP": (100...1900, 250...2700),
        ]
        let box = try #require(extents[map])
        for b in env.ble { #expect(box.x.contains(b.position.x) && box.y.contains(b.position.y), "\(b.address)") }
    }

    @Test func j3npHasTheRegistryBeacons() throws {
        let env = try RadioEnvironment.load(path: shippedEnvironmentPath("J3NP"))
        #expect(env.ble.count == 17)
        let first = try #require(env.ble.first { $0.address == "C5:D5:21:51:D7:90" })
        #expect(first.position == MapPoint(x: 1441, y: 303))
        #expect(first.beacon?.major == 55184 && first.beacon?.minor == 8529)
        let paper17 = try #require(env.ble.first { $0.address == "EF:F8:A4:20:26:8C" })
        #expect(paper17.position == MapPoint(x: 181, y: 628) && paper17.beacon?.major == 9868)
    }

    /// A surveyor standing next to beacon 5 (FD:1D:71:EC:33:60 at 1296/747) hears it loudest.
    @Test(arguments: [UInt64(1), 2, 3]) func nearestBeaconIsStrongest(seed: UInt64) async throws {
        let env = try RadioEnvironment.load(path: shippedEnvironmentPath("J3NP"))
        let providers = SimulatedRadios.providers(environment: env, seed: seed, radios: [.ble])
        let result = await run(providers, level: "J3NP", ticks: ticks(every: 100, until: 20_000)) { _ in
            MapPoint(x: 1320, y: 760)
        }
        #expect(result.statuses.map(\.status) == [.ok])
        var levels: [String: [Double]] = [:]
        for scan in result.perTick.joined().compactMap(\.bleScan) { levels[scan.address, default: []].append(Double(scan.rssi ?? -200)) }
        let strongest = levels.max { mean($0.value) < mean($1.value) }
        #expect(strongest?.key == "FD:1D:71:EC:33:60")
        #expect(levels.count >= 8, "a point on the floor hears many beacons")
    }
}

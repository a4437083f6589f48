import FPCore
import Foundation

extension Fingerprint {
    /// Reads a document straight from its JSON text, decoding only the keys
    /// eval needs: several times faster than building the whole JSON tree,
    /// which matters with thousands of documents of thousands of samples.
    /// Same rules as `init(id:body:)`.
    package init(id: String, json: Data) throws(FingerprintError) {
        let lean: Lean
        do {
            lean = try JSONDecoder().decode(Lean.self, from: json)
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            throw FingerprintError("document \(id): $\(path): \(context.debugDescription)")
        } catch {
            throw FingerprintError("document \(id): cannot read it as a measurement: \(error)")
        }
        if lean.mode == "probe" { throw FingerprintError("document \(id): a network probe run, not a fingerprint") }
        func whole(_ v: Double?, _ key: String) throws(FingerprintError) -> Int {
            guard let v else { throw FingerprintError("document \(id): no \(key) (map position)") }
            guard v.rounded() == v, abs(v) < 9e15 else {
                throw FingerprintError("document \(id): \(key) is \(v), not a whole number of map units")
            }
            return Int(v)
        }
        var ble: [Sample] = [], wifi: [Sample] = []
        var identities: [String: BeaconIdentity] = [:]
        for (i, s) in (lean.bleScans ?? []).enumerated() {
            guard let address = s.address else { throw FingerprintError("document \(id): bleScans[\(i)] has no address") }
            let transmitter = Self.bleID(address)
            if identities[transmitter] == nil, let b = s.beacon?.identity { identities[transmitter] = b }
            guard let rssi = s.rssi else { continue }
            ble.append(Sample(transmitter: transmitter, rssi: rssi, time: Self.wholeTime(s.time)))
        }
        for (i, s) in (lean.wifiScans ?? []).enumerated() {
            guard let mac = s.mac else { throw FingerprintError("document \(id): wifiScans[\(i)] has no mac") }
            guard let rssi = s.rssi else { continue }
            wifi.append(Sample(transmitter: Self.wifiID(mac), rssi: rssi, time: Self.wholeTime(s.time)))
        }
        self.init(id: id, level: lean.level ?? "", x: try whole(lean.x, "x"), y: try whole(lean.y, "y"), ble: ble,
                  wifi: wifi)
        // The labels' keys are lenient and few: read from the parsed tree (this path is the rare one).
        labels = Labels(body: (try? JSONParser.parse([UInt8](json))) ?? .null)
        bleIdentities = identities
    }

    static func wholeTime(_ t: Double?) -> Int {
        guard let t, t.isFinite else { return 0 }
        return Int(clamping: Int64(max(-9e15, min(9e15, t)).rounded(.down)))
    }

    private struct Lean: Decodable {
        var mode: String?
        var x: Double?
        var y: Double?
        var level: String?
        var bleScans: [Scan]?
        var wifiScans: [Scan]?
    }

    private struct Scan: Decodable {
        var address: String?
        var mac: String?
        var rssi: Double?
        var time: Double?
        var beacon: LeanBeacon?
    }

    /// A report's beacon object, read leniently: what is not an identity is none, never an error.
    private struct LeanBeacon: Decodable {
        var identity: BeaconIdentity?
        init(from decoder: Decoder) throws {
            identity = (try? JSONValue(from: decoder)).flatMap(BeaconIdentity.init(json:))
        }
    }
}

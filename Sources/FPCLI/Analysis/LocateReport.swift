import FPAnalysis
import FPCore
import Foundation

/// One located measurement, printed as text or JSON.
struct LocateReport {
    var fingerprint: Fingerprint
    /// Whether the document's x/y are a known true position (a stored survey point).
    var truth: Bool
    var seq: Int?
    var metersPerUnit: Double
    var wknn: Estimate?
    var neighbours: [(id: String, distance: Double)] = []
    var beacons: BeaconLocator.Result?
    var smoothed: (x: Double, y: Double)?

    init(fingerprint: Fingerprint, truth: Bool, seq: Int?, metersPerUnit: Double) {
        self.fingerprint = fingerprint
        self.truth = truth
        self.seq = seq
        self.metersPerUnit = metersPerUnit
    }

    /// Metres from the true position, when there is one.
    func error(_ x: Double, _ y: Double) -> Double? {
        guard truth else { return nil }
        let dx = x - Double(fingerprint.x), dy = y - Double(fingerprint.y)
        return (dx * dx + dy * dy).squareRoot() * metersPerUnit
    }

    static func num(_ d: Double?) -> JSONValue { d.map { .double($0) } ?? .null }

    var json: JSONValue {
        var o: JSONObject = ["id": .string(fingerprint.id), "level": .string(fingerprint.level)]
        o["truth"] = truth ? ["x": .int(Int64(fingerprint.x)), "y": .int(Int64(fingerprint.y))] : .null
        if let seq { o["seq"] = .int(Int64(seq)) }
        o["wknn"] = wknn.map { e in
            ["x": .double(e.x), "y": .double(e.y), "level": .string(e.level), "error": Self.num(error(e.x, e.y)),
             "neighbours": .array(neighbours.map { ["id": .string($0.id), "distance": .double($0.distance)] })]
        } ?? .null
        o["beacons"] = beacons.map { b in
            ["x": .double(b.x), "y": .double(b.y), "error": Self.num(error(b.x, b.y)),
             "initial": ["x": .double(b.initialX), "y": .double(b.initialY)],
             "used": .array(b.beacons.map { ["mac": .string($0.mac), "rssi": .double($0.rssi),
                                              "distanceMeters": .double($0.distanceMeters)] })]
        } ?? .null
        if let s = smoothed { o["smoothed"] = ["x": .double(s.x), "y": .double(s.y), "error": Self.num(error(s.x, s.y))] }
        return .object(o)
    }

    var lines: [String] {
        func err(_ x: Double, _ y: Double) -> String { error(x, y).map { String(format: ", error %.2f m", $0) } ?? "" }
        var out = ["\(fingerprint.id)\(seq.map { " seq \($0)" } ?? "") on \(fingerprint.level)"
            + (truth ? " (surveyed at x \(fingerprint.x), y \(fingerprint.y))" : "")]
        if let w = wknn {
            out.append(String(format: "  radiomap WKNN: x %.1f, y %.1f on %@", w.x, w.y, w.level) + err(w.x, w.y))
            out.append("    neighbours: " + neighbours.map { "\($0.id.prefix(8)) (d \(String(format: "%.2f", $0.distance)))" }
                .joined(separator: ", "))
        } else {
            out.append("  radiomap WKNN: no estimate (no transmitter in common with the radiomap)")
        }
        if let b = beacons {
            out.append(String(format: "  beacons: x %.1f, y %.1f", b.x, b.y) + err(b.x, b.y)
                + String(format: " (triples' mean x %.1f, y %.1f; %d beacons)", b.initialX, b.initialY, b.beacons.count))
        } else {
            out.append("  beacons: no estimate (fewer than 3 registry beacons heard, or no registry)")
        }
        if let s = smoothed { out.append(String(format: "  smoothed: x %.1f, y %.1f", s.x, s.y) + err(s.x, s.y)) }
        return out
    }
}

import FPCore
import Foundation

/// One network probe as plots and `export probes-csv --per run` see it: an
/// element of any stored document's `networkProbes[]` (measure, walk, or a
/// periodic probe document), with its place, time and headline figures.
package struct ProbeRun: Sendable {
    package let docID: String
    package let doc: JSONValue
    /// 1-based, in the document's `networkProbes[]`.
    package let number: Int
    package let json: JSONValue
    package let phases: [StoredProbePhase]

    /// The document's map, if it has one.
    package var map: String? { doc["level"]?.stringValue }

    /// Where the probe ran, in map units: halfway between positionStart and
    /// positionEnd (a walk moves on while it probes), else the document's x/y
    /// when the document is on a map.
    package var position: (x: Double, y: Double)? {
        if let s = point(json["positionStart"]) {
            guard let e = point(json["positionEnd"]) else { return s }
            return ((s.x + e.x) / 2, (s.y + e.y) / 2)
        }
        guard map != nil, let x = doc["x"]?.doubleValue, let y = doc["y"]?.doubleValue else { return nil }
        return (x, y)
    }

    package var start: (x: Double, y: Double)? { point(json["positionStart"]) }
    package var end: (x: Double, y: Double)? { point(json["positionEnd"]) }

    private func point(_ v: JSONValue?) -> (x: Double, y: Double)? {
        guard let x = v?["x"]?.doubleValue, let y = v?["y"]?.doubleValue else { return nil }
        return (x, y)
    }

    /// When the probe started: its own `startedAt`, else the document's
    /// createdAt plus the probe's startMs (offset into the measurement).
    package var time: Date? {
        if let own = json["startedAt"]?.stringValue.flatMap(ISOTime.parse) { return own }
        guard let created = doc["createdAt"]?.stringValue.flatMap(ISOTime.parse) else { return nil }
        return created.addingTimeInterval(Double(json["startMs"]?.intValue ?? 0) / 1000)
    }

    /// A phase's figures when it ran to the end (`ok`): the signed result's where signed.
    package func figures(_ phase: String) -> JSONValue? {
        guard let p = phases.first(where: { $0.name == phase }), p.status == ProbeStatus.ok.rawValue, !p.figures.isEmpty else { return nil }
        return .object(p.figures)
    }

    /// The phases whose figures are not the server's signed result as it
    /// stands (no signature, or edited beside it); the ping is never signed and is not named.
    package var unverified: [String] { phases.filter { $0.unverifiedBecause != nil }.map(\.name) }

    /// "udp no-udp-answer": the phases that did not end `ok` (skipped ones included), with their status.
    package var failed: [String] {
        phases.filter { $0.status != ProbeStatus.ok.rawValue }.map { "\($0.name) \($0.status)" }
    }

    /// Every probe of the documents, in document order.
    package static func all(_ docs: [(id: String, body: JSONValue)]) -> [ProbeRun] {
        docs.flatMap { d in
            (d.body["networkProbes"]?.arrayValue ?? []).enumerated().map { n, json in
                ProbeRun(docID: d.id, doc: d.body, number: n + 1, json: json,
                         phases: (json["phases"]?.arrayValue ?? []).map { StoredProbePhase($0) })
            }
        }
    }
}

/// The figure a probe plot shows, in the unit it is shown in.
package enum ProbeMetric: String, CaseIterable, Sendable {
    case down, up, rtt, loss, jitter

    /// What the axis or colour bar is called.
    package var name: String {
        switch self {
        case .down: "download"
        case .up: "upload"
        case .rtt: "round-trip time (UDP median)"
        case .loss: "UDP loss (round trip)"
        case .jitter: "UDP jitter (mean of both ways)"
        }
    }

    package var unit: String {
        switch self {
        case .down, .up: "Mbit/s"
        case .rtt, .jitter: "ms"
        case .loss: "%"
        }
    }

    /// More is better for throughput; for delay, loss and jitter less is.
    package var higherIsBetter: Bool { self == .down || self == .up }

    /// The phase the figure comes from.
    package var phase: String {
        switch self {
        case .down: "down"
        case .up: "up"
        case .rtt, .loss, .jitter: "udp"
        }
    }

    /// The probe's figure in `unit`; nil when its phase did not end `ok` or lacks it.
    /// Loss is of the round trip (a datagram lost either way): 1 − (1 − up)(1 − down).
    /// Jitter is the mean of the two directions' RFC 3550 jitter.
    package func value(_ run: ProbeRun) -> Double? {
        guard let f = run.figures(phase) else { return nil }
        switch self {
        case .down, .up: return f["bitsPerSecond"]?.doubleValue.map { $0 / 1e6 }
        case .rtt: return f["rttMs"]?["median"]?.doubleValue
        case .loss:
            guard let up = f["lossUpPercent"]?.doubleValue, let down = f["lossDownPercent"]?.doubleValue else { return nil }
            return 100 * (1 - (1 - up / 100) * (1 - down / 100))
        case .jitter:
            let both = [f["jitterUpMs"]?.doubleValue, f["jitterDownMs"]?.doubleValue].compactMap { $0 }
            return both.isEmpty ? nil : both.reduce(0, +) / Double(both.count)
        }
    }
}

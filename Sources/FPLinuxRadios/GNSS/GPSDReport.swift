import FPCore
import Foundation

/// One line of gpsd's JSON protocol (https://gpsd.io/gpsd_json.html). Only the
/// classes fprint acts on are modelled; unknown classes decode to `.other`.
package enum GPSDReport: Sendable, Equatable {
    case version(release: String)
    case devices(count: Int)
    case tpv(TPV)
    case sky(Sky)
    case error(message: String)
    case other(className: String)

    /// Time-position-velocity. `mode` 0/1 = no fix, 2 = 2D, 3 = 3D.
    package struct TPV: Sendable, Equatable, Decodable {
        package var mode: Int
        package var time: String?
        package var lat: Double?
        package var lon: Double?
        package var altMSL: Double?
        package var alt: Double?
        package var altHAE: Double?
        package var eph: Double?
        package var epx: Double?
        package var epy: Double?
        package var speed: Double?
        package var track: Double?

        /// A position gpsd stands behind: mode ≥ 2 with both coordinates.
        package var hasFix: Bool { mode >= 2 && lat != nil && lon != nil }
        /// Horizontal error in metres: `eph` where given, else the larger axis error.
        package var horizontalError: Double? {
            if let eph { return eph }
            if let epx, let epy { return max(epx, epy) }
            return nil
        }
    }

    package struct Sky: Sendable, Equatable {
        package var used: Int?
        package var visible: Int?
    }

    private struct Envelope: Decodable {
        var `class`: String
        var release: String?
        var devices: [Ignored]?
        var message: String?
        var satellites: [Satellite]?
        var uSat: Int?
        var nSat: Int?
    }
    private struct Ignored: Decodable {}
    private struct Satellite: Decodable { var used: Bool? }

    /// Parses one line; nil when it is not a JSON object with a `class` (gpsd never sends that).
    package init?(line: some StringProtocol) {
        let data = Data(line.utf8)
        guard let env = try? JSONDecoder().decode(Envelope.self, from: data) else { return nil }
        switch env.class {
        case "VERSION": self = .version(release: env.release ?? "?")
        case "DEVICES": self = .devices(count: env.devices?.count ?? 0)
        case "ERROR": self = .error(message: env.message ?? "")
        case "TPV":
            guard let tpv = try? JSONDecoder().decode(TPV.self, from: data) else { return nil }
            self = .tpv(tpv)
        case "SKY":
            // Older gpsd (< 3.21) gives no uSat/nSat: count the satellite list. A SKY with
            // only DOPs (no list, no counts) says nothing about satellites: keep nil.
            let used = env.uSat ?? env.satellites.map { $0.filter { $0.used == true }.count }
            let visible = env.nSat ?? env.satellites?.count
            self = .sky(Sky(used: used, visible: visible))
        default: self = .other(className: env.class)
        }
    }
}

/// Turns a stream of gpsd reports into fixes: remembers the latest sky view
/// (gpsd sends SKY separately from TPV) and what went wrong when no fix comes.
package struct GPSDFixTracker: Sendable {
    package private(set) var sky = GPSDReport.Sky(used: nil, visible: nil)
    package private(set) var lastMode: Int?
    package private(set) var fixes = 0
    package private(set) var deviceCount: Int?
    package private(set) var lastError: String?

    package init() {}

    /// Feeds one report; returns a fix (timed `atMs`) when the report is a TPV with a position.
    package mutating func feed(_ report: GPSDReport, atMs ms: Int) -> GeoFix? {
        switch report {
        case .devices(let n): deviceCount = n
        case .error(let m): lastError = m
        case .sky(let s):
            if s.used != nil || s.visible != nil { sky = s }
        case .tpv(let tpv):
            lastMode = tpv.mode
            guard tpv.hasFix, let lat = tpv.lat, let lon = tpv.lon else { return nil }
            var fix = GeoFix(lat: lat, long: lon, time: ms, alt: tpv.mode >= 3 ? (tpv.altMSL ?? tpv.alt ?? tpv.altHAE) : nil,
                             accuracy: tpv.horizontalError)
            fix.fixMode = tpv.mode
            fix.satellitesUsed = sky.used
            fix.satellitesVisible = sky.visible
            fix.speed = tpv.speed
            fix.track = tpv.track
            fix.fixTime = tpv.time
            fixes += 1
            return fix
        case .version, .other: break
        }
        return nil
    }

    /// Why there were no fixes, for the document's provider status.
    package var noFixReason: String {
        if deviceCount == 0 { return "gpsd has no GPS receiver attached" }
        if let lastError, !lastError.isEmpty { return "gpsd reported an error: \(lastError)" }
        switch lastMode {
        case nil: return "gpsd sent no position report during the measurement"
        case let m?: return "the receiver had no fix during the measurement (gpsd mode \(m))"
        }
    }
}

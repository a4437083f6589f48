import FPCore
import FPProbe
import Foundation

/// `fprint show`'s section for a document's `networkProbes[]`: the signed
/// results' figures, and a mark on any phase whose figures are not signed
/// or differ from its signed result.
enum RenderProbes {
    /// ", LTE cell 230-03 TAC 4011 CID 1234567, RSRP -95 dBm"
    static func cellText(_ cell: JSONValue) -> String {
        var text = ", " + (cell["type"]?.stringValue?.uppercased() ?? "cell")
        text += " cell \(cell["mcc"]?.stringValue ?? "?")-\(cell["mnc"]?.stringValue ?? "?")"
        if let area = cell["tac"]?.intValue ?? cell["lac"]?.intValue { text += (cell["tac"] != nil ? " TAC " : " LAC ") + String(area) }
        if let cid = cell["cid"]?.intValue { text += " CID \(cid)" }
        if let rsrp = cell["rsrp"]?.doubleValue { text += String(format: ", RSRP %.0f dBm", rsrp) }
        return text
    }

    static func lines(_ probes: [JSONValue]) -> [String] {
        var lines: [String] = []
        for (n, probe) in probes.enumerated() {
            var head = "probe \(n + 1): \(probe["server"]?.stringValue ?? "?"), \(probe["startedAt"]?.stringValue ?? "?")"
            if let i = probe["interface"] {
                head += " via \(i["name"]?.stringValue ?? "?") (\(i["type"]?.stringValue ?? "?")"
                    + (i["ssid"]?.stringValue.map { ", SSID \($0)" } ?? "")
                    + (i["signalDbm"]?.intValue.map { ", \($0) dBm" } ?? "")
                    + (i["operator"]?.stringValue.map { ", operator \($0)" } ?? "")
                    + (i["cell"].map(cellText) ?? "") + ")"
            }
            if let s = probe["positionStart"], let e = probe["positionEnd"] {
                head += String(format: ", from (%.0f, %.0f) to (%.0f, %.0f)", s["x"]?.doubleValue ?? 0, s["y"]?.doubleValue ?? 0,
                               e["x"]?.doubleValue ?? 0, e["y"]?.doubleValue ?? 0)
            }
            lines.append(head)
            let rows = (probe["phases"]?.arrayValue ?? []).map { json -> [String] in
                let p = StoredProbePhase(json)
                return [p.name, p.status, summary(p) + mark(p)]
            }
            lines += Terminal.table(["PHASE", "STATUS", "RESULT"], rows).map { "  " + $0 }
        }
        return lines
    }

    /// ` [UNVERIFIED: why]` for a phase whose figures cannot be trusted.
    static func mark(_ p: StoredProbePhase) -> String {
        p.unverifiedBecause.map { " [UNVERIFIED: \($0)]" } ?? ""
    }

    static func summary(_ p: StoredProbePhase) -> String {
        guard p.status == ProbeStatus.ok.rawValue else { return p.reason ?? "" }
        let f = JSONValue.object(p.figures)
        switch p.name {
        case "down", "up":
            return String(format: "%.2f Mbit/s", (f["bitsPerSecond"]?.doubleValue ?? 0) / 1e6)
        case "udp":
            return String(format: "loss ↑ %.1f %% ↓ %.1f %%, jitter ↑ %.1f ms ↓ %.1f ms, RTT median %.1f ms",
                          f["lossUpPercent"]?.doubleValue ?? 0, f["lossDownPercent"]?.doubleValue ?? 0,
                          f["jitterUpMs"]?.doubleValue ?? 0, f["jitterDownMs"]?.doubleValue ?? 0,
                          f["rttMs"]?["median"]?.doubleValue ?? 0)
        case "ping":
            return String(format: "RTT median %.1f ms, loss %.1f %%", f["rttMs"]?["median"]?.doubleValue ?? 0,
                          f["lossPercent"]?.doubleValue ?? 0)
        default: return ""
        }
    }
}

import FPCore
import FPProbe
import Foundation

/// `fprint probe`'s table: one row per phase, its figures in words (the
/// signed result's, as `show` and `export probes-csv` give them).
enum ProbeTable {
    static func lines(_ report: ProbeReport) -> [String] {
        var head = "probe of \(report.server)"
        if let i = report.interface {
            head += " via \(i.name) (\(i.type)\(i.ssid.map { ", SSID \($0)" } ?? "")\(i.bssid.map { ", BSSID \($0)" } ?? "")"
                + "\(i.operator.map { ", operator \($0)" } ?? ""))"
        }
        let rows = report.phases.map { phase -> [String] in
            let stored = StoredProbePhase(phase.json)
            return [stored.name, stored.status, summary(stored) + RenderProbes.mark(stored)]
        }
        return [head] + Terminal.table(["PHASE", "STATUS", "RESULT"], rows)
    }

    static func summary(_ phase: StoredProbePhase) -> String {
        guard phase.status == ProbeStatus.ok.rawValue else { return phase.reason ?? "" }
        let f = JSONValue.object(phase.figures)
        switch phase.name {
        case "down", "up":
            let bps = f["bitsPerSecond"]?.doubleValue ?? 0
            let bytes = f["bytes"]?.doubleValue ?? 0
            return "\(mbit(bps)) Mbit/s (\(String(format: "%.1f", bytes / 1e6)) MB in \(String(format: "%.1f", f["seconds"]?.doubleValue ?? 0)) s)"
                + (f["truncated"]?.boolValue == true ? ", stopped at the server's bound" : "")
        case "udp":
            var text = "loss ↑ \(ms(f["lossUpPercent"])) % ↓ \(ms(f["lossDownPercent"])) %"
            text += ", jitter ↑ \(ms(f["jitterUpMs"])) ms ↓ \(ms(f["jitterDownMs"])) ms"
            return text + ", RTT " + rtt(f["rttMs"]) + " (\(f["echoesReceived"]?.intValue ?? 0) of \(f["sent"]?.intValue ?? 0) echoed)"
        case "ping":
            return "RTT " + rtt(f["rttMs"]) + ", loss \(ms(f["lossPercent"])) %"
        default:
            return ""
        }
    }

    static func mbit(_ bps: Double) -> String { String(format: "%.2f", bps / 1e6) }
    static func ms(_ v: JSONValue?) -> String { v?.doubleValue.map { String(format: "%.1f", $0) } ?? "–" }

    static func rtt(_ v: JSONValue?) -> String {
        guard let v else { return "–" }
        return "min/avg/max/median \(ms(v["min"]))/\(ms(v["avg"]))/\(ms(v["max"]))/\(ms(v["median"])) ms"
    }
}

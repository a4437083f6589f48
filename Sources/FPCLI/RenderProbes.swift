import FPCore
import Foundation

/// `fprint show`'s section for a document's `networkProbes[]`.
enum RenderProbes {
    static func lines(_ probes: [JSONValue]) -> [String] {
        var lines: [String] = []
        for (n, probe) in probes.enumerated() {
            var head = "probe \(n + 1): \(probe["server"]?.stringValue ?? "?"), \(probe["startedAt"]?.stringValue ?? "?")"
            if let i = probe["interface"] {
                head += " via \(i["name"]?.stringValue ?? "?") (\(i["type"]?.stringValue ?? "?")"
                    + (i["ssid"]?.stringValue.map { ", SSID \($0)" } ?? "") + (i["operator"]?.stringValue.map { ", operator \($0)" } ?? "") + ")"
            }
            if let s = probe["positionStart"], let e = probe["positionEnd"] {
                head += String(format: ", from (%.0f, %.0f) to (%.0f, %.0f)", s["x"]?.doubleValue ?? 0, s["y"]?.doubleValue ?? 0,
                               e["x"]?.doubleValue ?? 0, e["y"]?.doubleValue ?? 0)
            }
            lines.append(head)
            let rows = (probe["phases"]?.arrayValue ?? []).map { p -> [String] in
                [p["phase"]?.stringValue ?? "?", p["status"]?.stringValue ?? "?", summary(p)]
            }
            lines += Terminal.table(["PHASE", "STATUS", "RESULT"], rows).map { "  " + $0 }
        }
        return lines
    }

    static func summary(_ p: JSONValue) -> String {
        guard p["status"]?.stringValue == "ok" else { return p["reason"]?.stringValue ?? "" }
        switch p["phase"]?.stringValue {
        case "down", "up":
            return String(format: "%.2f Mbit/s", (p["bitsPerSecond"]?.doubleValue ?? 0) / 1e6)
        case "udp":
            return String(format: "loss ↑ %.1f %% ↓ %.1f %%, jitter ↑ %.1f ms ↓ %.1f ms, RTT median %.1f ms",
                          p["lossUpPercent"]?.doubleValue ?? 0, p["lossDownPercent"]?.doubleValue ?? 0,
                          p["jitterUpMs"]?.doubleValue ?? 0, p["jitterDownMs"]?.doubleValue ?? 0,
                          p["rttMs"]?["median"]?.doubleValue ?? 0)
        case "ping":
            return String(format: "RTT median %.1f ms, loss %.1f %%", p["rttMs"]?["median"]?.doubleValue ?? 0,
                          p["lossPercent"]?.doubleValue ?? 0)
        default: return ""
        }
    }
}

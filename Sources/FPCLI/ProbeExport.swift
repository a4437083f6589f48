import FPAnalysis
import FPCore

/// `fprint export probes-csv`: one row per phase of each document's `networkProbes[]`.
enum ProbeExport {
    static let header = "doc_id,created_at,map,probe,server,interface,interface_type,ssid,bssid,operator,started_at,ended_at,"
        + "x_start,y_start,x_end,y_end,phase,status,status_code,bits_per_second,loss_up_percent,loss_down_percent,"
        + "loss_percent,jitter_up_ms,jitter_down_ms,rtt_min_ms,rtt_avg_ms,rtt_max_ms,rtt_median_ms,reason"

    static func csv(_ docs: [Export.Document]) -> String {
        var out = header + "\n"
        for d in docs {
            for (n, probe) in (d.body["networkProbes"]?.arrayValue ?? []).enumerated() {
                let i = probe["interface"]
                let common: [JSONValue?] = [
                    .string(d.id), d.body["createdAt"], d.body["level"], .int(Int64(n + 1)), probe["server"],
                    i?["name"], i?["type"], i?["ssid"], i?["bssid"], i?["operator"], probe["startedAt"], probe["endedAt"],
                    probe["positionStart"]?["x"], probe["positionStart"]?["y"], probe["positionEnd"]?["x"], probe["positionEnd"]?["y"],
                ]
                for p in probe["phases"]?.arrayValue ?? [] {
                    let rtt = p["rttMs"]
                    let cells: [JSONValue?] = common + [
                        p["phase"], p["status"], p["statusCode"], p["bitsPerSecond"], p["lossUpPercent"], p["lossDownPercent"],
                        p["lossPercent"], p["jitterUpMs"], p["jitterDownMs"], rtt?["min"], rtt?["avg"], rtt?["max"], rtt?["median"],
                        p["reason"],
                    ]
                    out += cells.map { Export.csvCell($0) }.joined(separator: ",") + "\n"
                }
            }
        }
        return out
    }
}

import FPAnalysis
import FPCore
import FPProbe

/// `fprint export probes-csv`: one row per phase of each document's
/// `networkProbes[]`, with the signed result's figures; `signed` says what
/// they rest on: yes, altered (the copy beside the signed result had been
/// edited; the signed figures are given), no (a phase the server measures,
/// without a signature: its figures as stored), client (the ping), or empty
/// (no figures). Both forms end with the link the probe ran over and its
/// GNSS fixes at start and end (`ProbeLinkColumns`), empty where not stored.
enum ProbeExport {
    static let header = "doc_id,created_at,map,probe,server,interface,interface_type,ssid,bssid,operator,started_at,ended_at,"
        + "x_start,y_start,x_end,y_end,phase,status,status_code,bits_per_second,loss_up_percent,loss_down_percent,"
        + "loss_percent,jitter_up_ms,jitter_down_ms,rtt_min_ms,rtt_avg_ms,rtt_max_ms,rtt_median_ms,reason,signed,"
        + ProbeLinkColumns.header

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
                let linkCells = ProbeLinkColumns.cells(probe)
                for json in probe["phases"]?.arrayValue ?? [] {
                    let p = StoredProbePhase(json)
                    let f = JSONValue.object(p.figures)
                    let rtt = f["rttMs"]
                    let cells: [JSONValue?] = common + [
                        json["phase"], json["status"], json["statusCode"], f["bitsPerSecond"], f["lossUpPercent"], f["lossDownPercent"],
                        f["lossPercent"], f["jitterUpMs"], f["jitterDownMs"], rtt?["min"], rtt?["avg"], rtt?["max"], rtt?["median"],
                        json["reason"], .string(signedCell(p)),
                    ]
                    out += (cells.map { Export.csvCell($0) } + linkCells).joined(separator: ",") + "\n"
                }
            }
        }
        return out
    }

    static func signedCell(_ p: StoredProbePhase) -> String {
        switch p.standing {
        case .signed: "yes"
        case .unverified: p.signed == nil ? "no" : "altered"
        case .clientMeasured: "client"
        case .noFigures: ""
        }
    }
}

import FPAnalysis
import FPCore
import FPProbe

/// The columns both probe CSVs end with: the link a probe ran over
/// (`networkProbes[].link`) and the GNSS fix where it started and ended
/// (`gnssStart`, `gnssEnd`); empty where the probe does not carry them.
enum ProbeLinkColumns {
    static let linkKeys = ["interface", "kind", "ssid", "bssid", "signalDbm", "frequencyMHz", "cell"]
    static let gnssKeys = ["lat", "long", "alt", "accuracy", "time"]

    static let header = "link_interface,link_kind,link_ssid,link_bssid,link_signal_dbm,link_frequency_mhz,link_cell,"
        + ["start", "end"].map { at in gnssKeys.map { "gnss_\(at)_\($0)" }.joined(separator: ",") }
        .joined(separator: ",")

    static func cells(_ probe: JSONValue) -> [String] {
        let link = probe["link"]
        return linkKeys.map { key in
            // A cell may be stored as an object (its ids): written as its JSON, in one quoted field.
            if let cell = link?[key], case .object = cell { return Export.csvCell(.string(CanonicalJSON.string(cell))) }
            return Export.csvCell(link?[key])
        } + ["gnssStart", "gnssEnd"].flatMap { fix in gnssKeys.map { Export.csvCell(probe[fix]?[$0]) } }
    }
}

/// `fprint export probes-csv --per run`: one row per probe, its figures side
/// by side (as MBTest kept them), with its time, place, link and GNSS fixes.
enum ProbeExportRuns {
    static let header = "doc_id,created_at,map,probe,server,started_at,ended_at,x,y,x_start,y_start,x_end,y_end,"
        + "down_bits_per_second,up_bits_per_second,rtt_median_ms,loss_percent,jitter_ms,loss_up_percent,loss_down_percent,"
        + "jitter_up_ms,jitter_down_ms,ping_rtt_median_ms,ping_loss_percent,failed,unverified,"
        + "interface,interface_type,ssid,bssid,operator," + ProbeLinkColumns.header

    static func csv(_ docs: [Export.Document]) -> String {
        var out = header + "\n"
        for run in ProbeRun.all(docs.map { ($0.id, $0.body) }) {
            let p = run.json, i = p["interface"], udp = run.figures("udp"), ping = run.figures("ping")
            let at = run.position
            func number(_ v: Double?) -> JSONValue? { v.map { .double(ProbeStats.rounded($0)) } }
            let cells: [JSONValue?] = [
                .string(run.docID), run.doc["createdAt"], run.doc["level"], .int(Int64(run.number)), p["server"],
                p["startedAt"], p["endedAt"], number(at?.x), number(at?.y),
                p["positionStart"]?["x"], p["positionStart"]?["y"], p["positionEnd"]?["x"], p["positionEnd"]?["y"],
                run.figures("down")?["bitsPerSecond"], run.figures("up")?["bitsPerSecond"], udp?["rttMs"]?["median"],
                number(ProbeMetric.loss.value(run)), number(ProbeMetric.jitter.value(run)),
                udp?["lossUpPercent"], udp?["lossDownPercent"], udp?["jitterUpMs"], udp?["jitterDownMs"],
                ping?["rttMs"]?["median"], ping?["lossPercent"],
                .string(run.failed.joined(separator: "; ")), .string(run.unverified.joined(separator: " ")),
                i?["name"], i?["type"], i?["ssid"], i?["bssid"], i?["operator"],
            ]
            out += (cells.map { Export.csvCell($0) } + ProbeLinkColumns.cells(p)).joined(separator: ",") + "\n"
        }
        return out
    }
}

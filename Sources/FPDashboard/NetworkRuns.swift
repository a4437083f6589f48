import FPAnalysis
import FPCore
import FPProbe
import Foundation

/// One network probe of a map as the Network page shows it: when, where,
/// over which link and its figures, read once from its document
/// (`networkProbes[]` of a measurement, a walk or `fprint probe --every`)
/// as `fprint plot` and `export probes-csv --per run` read it.
struct NetworkRun: Sendable {
    var document: String
    var number: Int
    var time: Date?
    var position: (x: Double, y: Double)?
    var start: (x: Double, y: Double)?
    var end: (x: Double, y: Double)?
    /// Per metric its figure in the metric's unit; absent: its phase did not end ok.
    var figures: [ProbeMetric: Double]
    /// "wlan0 (wifi) · lab 02:00:00:00:01:00 · −61 dBm"; empty when the probe names no link.
    var link: String

    init(_ run: ProbeRun) {
        document = run.docID
        number = run.number
        time = run.time
        position = run.position
        (start, end) = (run.start, run.end)
        figures = Dictionary(uniqueKeysWithValues: ProbeMetric.allCases.compactMap { m in m.value(run).map { (m, $0) } })
        link = Self.link(run.json)
    }

    var label: String { "\(document.prefix(8)) probe \(number)" }

    /// The link a probe names (`link`, else the older `interface`): interface
    /// and kind, then the Wi-Fi network and signal or the cellular operator and cell.
    static func link(_ probe: JSONValue) -> String {
        let link = probe["link"], interface = probe["interface"]
        var parts: [String] = []
        if let name = link?["interface"]?.stringValue ?? interface?["name"]?.stringValue {
            let kind = link?["kind"]?.stringValue ?? interface?["type"]?.stringValue
            parts.append(name + (kind.map { " (\($0))" } ?? ""))
        }
        let network = [link?["ssid"]?.stringValue ?? interface?["ssid"]?.stringValue,
                       link?["bssid"]?.stringValue ?? interface?["bssid"]?.stringValue,
                       link?["operator"]?.stringValue ?? interface?["operator"]?.stringValue].compactMap { $0 }
        if !network.isEmpty { parts.append(network.joined(separator: " ")) }
        if let signal = link?["signalDbm"]?.doubleValue { parts.append(String(format: "%.0f dBm", signal)) }
        if let cell = link?["cell"] {
            // A cell's ids as "mcc 230 mnc 03 …" in the stored order, or a cell given as one string.
            let text = cell.stringValue ?? (cell.objectValue ?? [:]).map { "\($0.key) \($0.value.stringValue ?? CanonicalJSON.string($0.value))" }
                .joined(separator: " ")
            parts.append("cell " + text)
        }
        return parts.joined(separator: " · ")
    }

    /// The probes of a map's documents (those the index counts probes in),
    /// off the cooperative pool; the newest `limit` documents at most.
    static func read(_ store: any ReplicableStore, documents: [SurveyPoint], limit: Int) async throws -> [NetworkRun] {
        let newest = documents.sorted { $0.createdAtMs > $1.createdAtMs }.prefix(limit).map(\.id)
        return try await BlockingWork.run("fprint.dashboard.store") { () throws -> [NetworkRun] in
            var docs: [(id: String, body: JSONValue)] = []
            for id in newest {
                guard let stored = try store.document(id: id, includeDeleted: false), !stored.deleted else { continue }
                docs.append((id, stored.body))
            }
            return ProbeRun.all(docs).map(NetworkRun.init)
        }
    }
}

/// The probe runs of the latest map looked at, for the store sequence they
/// were read at: switching the metric or the period reads nothing again.
actor NetworkRunCache {
    private var latest: (map: String, sequence: Int64, runs: [NetworkRun])?

    func runs(map: String, sequence: Int64, read: @Sendable () async throws -> [NetworkRun]) async throws -> [NetworkRun] {
        if let latest, latest.map == map, latest.sequence == sequence { return latest.runs }
        let runs = try await read()
        latest = (map, sequence, runs)
        return runs
    }
}

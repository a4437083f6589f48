import FPAnalysis
import FPCore
import FPProbe
import FPStore
import Foundation

/// Reads what the rules need of every stored document (any mode: static,
/// walk, periodic probes): probe figures from `networkProbes[]` as shown
/// (a phase's signed result, as `show` and the CSV take them), beacon
/// reports from `bleScans[]`.
enum AlertFactsReader {
    static func read(_ store: SQLiteDocumentStore, rules: [AlertRule]) throws -> [AlertFacts] {
        let macs = Set(rules.compactMap { rule -> String? in if case .beacon(let mac) = rule.scope { mac } else { nil } })
        let coverage = rules.contains { $0.figure == .coverage }
        let read = try store.readDocuments(ListQuery()) { text in facts(text, macs: macs, coverage: coverage) }
        DamageLog.shared.record(read.damaged)
        return read.documents.compactMap { $0 }
    }

    static func facts(_ text: DocumentText, macs: Set<String>, coverage: Bool) -> AlertFacts? {
        // Probe rules alone need only documents with probes: the others are not parsed (most of a survey's).
        if macs.isEmpty && !coverage && !text.body.contains("\"networkProbes\":[{") { return nil }
        guard let doc = try? CanonicalJSON.parse(Data(text.body.utf8)), doc.objectValue != nil else { return nil }
        let start = (doc["startTime"]?.stringValue).flatMap(ISOTime.milliseconds)
            ?? (doc["createdAt"]?.stringValue).flatMap(ISOTime.milliseconds) ?? text.createdAtMs
        var facts = AlertFacts(id: text.id, at: start, map: doc["level"]?.stringValue)
        facts.probes = (doc["networkProbes"]?.arrayValue ?? []).map { probe($0, documentStart: start) }
        if !macs.isEmpty || coverage, let scans = doc["bleScans"]?.arrayValue {
            var rssi: [String: [Double]] = [:]
            var ruleRSSI: [String: [Double]] = [:]
            var heard: [String: [Int64]] = [:]
            // A rule's beacon is its MAC or the identity it advertises: a report counts under both,
            // a frame without an identity (Eddystone-TLM) under the one its address advertised here.
            var advertised: [String: String] = [:]
            if !macs.isEmpty {
                for scan in scans {
                    guard let mac = scan["address"]?.stringValue?.uppercased(), advertised[mac] == nil,
                          let id = scan["beacon"].flatMap(BeaconIdentity.init(json:)) else { continue }
                    advertised[mac] = id.text
                }
            }
            for scan in scans {
                guard let mac = scan["address"]?.stringValue?.uppercased() else { continue }
                let r = scan["rssi"]?.doubleValue
                if let r { rssi[mac, default: []].append(r) }
                let identity = scan["beacon"].flatMap(BeaconIdentity.init(json:))?.text ?? advertised[mac]
                for key in [mac, identity].compactMap({ $0 }) where macs.contains(key) {
                    if let r { ruleRSSI[key, default: []].append(r) }
                    heard[key, default: []].append(start + (scan["time"]?.intValue ?? 0))
                }
            }
            for key in macs where heard[key] != nil {
                facts.beacons[key] = .init(medianRSSI: Reduction.median(ruleRSSI[key] ?? []), heard: heard[key]!)
            }
            // Coverage counts every BLE transmitter whose median is at least -90 dBm (`fprint coverage`'s default).
            if coverage, let x = doc["x"]?.doubleValue, let y = doc["y"]?.doubleValue {
                let count = rssi.values.filter { (Reduction.median($0) ?? -200) >= -90 }.count
                facts.cell = .init(x: Int(x.rounded()), y: Int(y.rounded()), beacons: count)
            }
        }
        return facts
    }

    /// A probe's figures in base units; phases that did not succeed give none.
    static func probe(_ json: JSONValue, documentStart: Int64) -> AlertFacts.Probe {
        let at = (json["startedAt"]?.stringValue).flatMap(ISOTime.milliseconds) ?? documentStart
        var phases: [String: JSONObject] = [:]
        for phase in json["phases"]?.arrayValue ?? [] {
            let p = StoredProbePhase(phase)
            if p.status == ProbeStatus.ok.rawValue { phases[p.name] = p.figures }
        }
        func number(_ phase: String, _ key: String) -> Double? { phases[phase]?[key]?.doubleValue }
        func worse(_ phase: String, _ a: String, _ b: String) -> Double? {
            let both = [number(phase, a), number(phase, b)].compactMap { $0 }
            return both.max()
        }
        var figures: [AlertFigure: Double] = [:]
        figures[.download] = number("down", "bitsPerSecond")
        figures[.upload] = number("up", "bitsPerSecond")
        figures[.rtt] = phases["udp"]?["rttMs"]?["median"]?.doubleValue ?? phases["ping"]?["rttMs"]?["median"]?.doubleValue
        figures[.loss] = worse("udp", "lossUpPercent", "lossDownPercent") ?? number("ping", "lossPercent")
        figures[.jitter] = worse("udp", "jitterUpMs", "jitterDownMs")
        let interface = json["interface"]
        return AlertFacts.Probe(at: at, interface: interface?["name"]?.stringValue, ssid: interface?["ssid"]?.stringValue, figures: figures)
    }
}

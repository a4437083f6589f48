import ArgumentParser
import FPAnalysis
import FPConfig
import FPCore
import FPStore
import Foundation

struct ExportCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write stored measurements in formats other tools read.",
        discussion: """
            Formats:
              couch-view  {"rows":[{"id":…,"value":<document>}]}: radio-localization-eval's file input; `fprint import` reads it back
              jsonl       one document per line, with its _id; `fprint import` reads it back
              csv         one row per observation (BLE report, Wi-Fi BSS, cell): doc id, time, map, x, y, radio, transmitter, rssi, …
              probes-csv  one row per phase of each network probe (networkProbes[] of any document): throughput, loss, jitter, RTT, status, link, GNSS; --per run: one row per probe, its figures side by side
              comford     a directory with Samples.csv, RSSI.csv and APs.csv (columns: docs/surveying.md, "fprint export")
              wigle       WiGLE CSV 1.6 of GPS-tagged Wi-Fi and BLE (documents without a GNSS fix are left out)
              geojson     a GeoJSON FeatureCollection, one point per GPS-tagged document
              attachments every attachment, byte for byte, as DIR/<document id>/<name> (needs --output DIR)

            Documents are written in file order: the order they reached this database (an imported file's own row order), which radio-localization-eval breaks ties in. Output goes to stdout unless --output is given (comford needs --output DIR).

            Examples:
              fprint export couch-view --map J3NP > couchdump.json
              fprint export jsonl --since 7d --output week.jsonl
              fprint export comford --map J1NP --output comford-J1NP
              fprint export wigle --output fprint-wigle.csv
              fprint export probes-csv --per run --map J1NP > probes.csv
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case couchView = "couch-view", jsonl, csv, probesCSV = "probes-csv", comford, wigle, geojson, attachments
    }

    @Argument(help: "couch-view, jsonl, csv, probes-csv, comford, wigle, geojson or attachments.") var format: Format
    @OptionGroup var filters: FilterOptions
    @Option(name: [.short, .long], help: "Output file (comford, attachments: directory).", completion: .file()) var output: String?
    @Option(help: "probes-csv: a row per phase (default) or per run (a probe's figures side by side).") var per: ProbeRows?
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var configOptions: ConfigOptions

    enum ProbeRows: String, ExpressibleByArgument, CaseIterable { case phase, run }

    func validate() throws {
        if per != nil && format != .probesCSV { throw ValidationError("--per is for probes-csv") }
        if format == .comford && output == nil { throw ValidationError("comford writes three files: give --output DIR") }
        if format == .attachments && output == nil { throw ValidationError("attachments are files: give --output DIR") }
    }

    func perform() async throws {
        let ws = Workspace(storeOptions: storeOptions, configOptions: configOptions)
        let store = try ws.openStore(.read)
        let texts = try AnalysisInput.documents(store, filters)
        var docs: [Export.Document] = []
        for t in texts {
            guard let body = try? CanonicalJSON.parse(t.body) else {
                DamageLog.shared.record([DamagedDocument(id: t.id, rev: t.rev, reason: "it is not valid JSON")])
                continue
            }
            docs.append(Export.Document(id: t.id, body: body))
        }
        if ![.couchView, .jsonl, .attachments].contains(format) {
            // Backups and attachment files carry every document; the other formats describe measurements only.
            // Legacy documents go out as the converter reads them.
            var skipped = SkippedDocuments()
            var legacy = LegacyReads()
            docs = docs.compactMap { d in
                guard let not = NotMeasurement.classify(id: d.id, body: d.body) else { return d }
                // Probe runs (and any document carrying probes) are what probes-csv is for;
                // the other formats describe radio readings.
                if format == .probesCSV, d.body["networkProbes"]?.arrayValue?.isEmpty == false { return d }
                if not.kind == "probe" { return nil }
                if let converted = not.converted {
                    legacy.add(level: converted["level"]?.stringValue ?? "")
                    return Export.Document(id: d.id, body: converted)
                }
                skipped.add(level: d.body["level"]?.stringValue)
                return nil
            }
            legacy.report()
            skipped.report()
        }
        if format == .couchView || format == .jsonl {
            // Formats `fprint import` reads back carry attachment bytes inline, so nothing stays behind.
            do {
                docs = try docs.map { Export.Document(id: $0.id, body: try store.inliningAttachments(of: $0.body, id: $0.id, rev: nil)) }
            } catch let damage as DamagedDocument {
                throw CommandFailure("\(damage); `fprint check` tells more", .dataError)
            }
        }
        switch format {
        case .couchView: try write(Export.couchView(docs))
        case .jsonl: try write(Export.jsonLines(docs))
        case .csv: try write(Export.csv(docs))
        case .probesCSV: try write(per == .run ? ProbeExportRuns.csv(docs) : ProbeExport.csv(docs))
        case .geojson:
            let r = Export.geoJSON(docs)
            try write(r.text)
            if r.withoutFix > 0 { Terminal.err("\(r.withoutFix) documents without a GNSS fix left out") }
        case .wigle:
            let host = ProcessInfo.processInfo.hostName
            let r = Export.wigle(docs, appRelease: "fprint \(Fprint.version)", model: "Linux", release: "Linux",
                                 device: host)
            try write(r.text)
            if r.withoutFix > 0 { Terminal.err("\(r.withoutFix) documents without a GNSS fix left out") }
        case .attachments:
            let files = try ExportAttachments.write(docs.map { ($0.id, $0.body) }, store: store, into: output!)
            Terminal.err("wrote \(files) attachments")
        case .comford:
            let loaded = try ws.configIfAny()
            let levels = Set(docs.compactMap { $0.body["level"]?.stringValue })
            let scales = try AnalysisInput.scales(ws, levels: levels)
            let files: (samples: String, rssi: String, aps: String)
            do {
                files = try Export.comford(docs, metersPerUnit: { scales[$0] ?? MapScale.jBuilding.metersPerUnit },
                                           floor: { loaded?.appConfig.map(id: $0)?.floor })
            } catch {
                throw CommandFailure("\(error)", .dataError)
            }
            let dir = output!
            do {
                try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            } catch {
                throw CommandFailure("\(dir): cannot create the directory: \(error.localizedDescription)", .ioError)
            }
            for (name, text) in [("Samples.csv", files.samples), ("RSSI.csv", files.rssi), ("APs.csv", files.aps)] {
                try writeFile("\(dir)/\(name)", text)
            }
        }
        Terminal.err("exported \(Terminal.counted(docs.count, "document")) (\(format.rawValue))")
    }

    func write(_ text: String) throws {
        if let output { try writeFile(output, text) } else { FileHandle.standardOutput.write(Data(text.utf8)) }
    }

    func writeFile(_ path: String, _ text: String) throws {
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw CommandFailure("\(path): cannot write the file: \(error.localizedDescription)", .ioError)
        }
    }
}

import ArgumentParser
import FPCore
import FPDatasets
import FPStore
import Foundation

extension TimeUnit: ExpressibleByArgument {}
extension FingerprintTable.Radio: ExpressibleByArgument {}

/// Which columns of a fingerprint table mean what: `fprint import` stores
/// the rows, `fprint track --table` replays them; one reader (`TableReader`).
struct TableColumnOptions: ParsableArguments {
    @Option(name: .customLong("x-column"), help: "Table: the column of x (metres).") var x: String?
    @Option(name: .customLong("y-column"), help: "Table: the column of y (metres).") var y: String?
    @Option(name: .customLong("floor-column"), help: "Table: the column of the floor (a whole number).") var floor: String?
    @Option(name: .customLong("time-column"), help: "Table: the column of the time.") var time: String?
    @Option(name: .customLong("time-unit"), help: "Table: auto, s, ms, us, ns (Unix time) or compact (yyyyMMddHHmmss[SSS], local).")
    var timeUnit: TimeUnit = .auto
    @Option(name: .customLong("transmitter-prefix"), help: "Table: columns whose header starts with this are transmitters (repeatable).")
    var transmitterPrefix: [String] = []
    @Option(help: "Table: the radio of the transmitter columns: wifi or ble.") var radio: FingerprintTable.Radio = .wifi
    @Option(name: .customLong("not-heard"), help: "Table: the RSSI meaning not heard (e.g. 100), or empty (an empty cell; the default).")
    var notHeard: String?

    /// The options given, by name.
    var given: [String] {
        [("--x-column", x != nil), ("--y-column", y != nil), ("--floor-column", floor != nil), ("--time-column", time != nil),
         ("--time-unit", timeUnit != .auto), ("--transmitter-prefix", !transmitterPrefix.isEmpty),
         ("--radio", radio != .wifi), ("--not-heard", notHeard != nil)].filter(\.1).map(\.0)
    }

    func validate() throws {
        if let notHeard, notHeard != "empty", Double(notHeard)?.isFinite != true {
            throw ValidationError("--not-heard: '\(notHeard)' is neither a number nor 'empty'")
        }
    }

    var mapping: TableMapping {
        var m = TableMapping(x: x, y: y, floor: floor, time: time, transmitterPrefixes: transmitterPrefix, radio: radio,
                             notHeard: notHeard == nil || notHeard == "empty" ? nil : Double(notHeard!))
        m.timeFormat.unit = timeUnit
        return m
    }
}

/// `fprint import`'s options for fingerprint tables (and `--dataset`,
/// `--map`, `--tag` for the UJI layout too).
struct TableImportOptions: ParsableArguments {
    @OptionGroup var columns: TableColumnOptions
    @Option(help: "The dataset's name, in ids and provenance (default: the folder's name; a table's file name).")
    var dataset: String?
    @Option(help: "The map of each fingerprint: {floor}, {dataset} and {COLUMN} (a tag) are filled in (default UJI-LIB-{floor}; a table: {dataset}, -{floor} with a floor column).")
    var map: String?
    @Option(name: .customLong("tag"), help: "A tag every imported fingerprint gets: key=value (repeatable).") var tags: [String] = []

    var x: String? { columns.x }
    var y: String? { columns.y }
    var floor: String? { columns.floor }
    var transmitterPrefix: [String] { columns.transmitterPrefix }
    var mapping: TableMapping { columns.mapping }
    /// The table-only options given, by name.
    var mappingGiven: [String] { columns.given }

    /// Every dataset option given.
    var given: [String] {
        mappingGiven + [("--dataset", dataset != nil), ("--map", map != nil), ("--tag", !tags.isEmpty)].filter(\.1).map(\.0)
    }

    func validate() throws {
        try columns.validate()
        _ = try extraTags()
        if let dataset, dataset.isEmpty || dataset.contains(":") || dataset.hasPrefix("_") {
            throw ValidationError("--dataset: '\(dataset)' must be a non-empty name without ':' that does not start with '_'")
        }
        if let map, map.isEmpty { throw ValidationError("--map must not be empty") }
    }

    func extraTags() throws -> [TableRow.Tag] {
        try tags.map { text in
            let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty else { throw ValidationError("--tag: '\(text)' is not key=value") }
            return TableRow.Tag(parts[0], parts[1])
        }
    }
}

/// The dataset imports: everything read and checked before anything is
/// stored, then stored in one transaction, so a bad cell imports nothing.
enum DatasetImport {
    static func uji(_ root: String, options: TableImportOptions, timeZone: String?, store: SQLiteDocumentStore,
                    quiet: Bool) throws -> JSONObject {
        let zone = timeZone.flatMap(TimeZone.init(identifier:)) ?? TimeZone(identifier: "Europe/Madrid")!
        let campaigns: [UJILongTerm.Campaign]
        do { campaigns = try UJILongTerm.campaigns(root: root) } catch { throw failure(error, root: root) }
        var documents = TableDocuments(format: "uji-longterm", dataset: options.dataset ?? defaultName(root),
                                       mapTemplate: options.map ?? "UJI-LIB-{floor}", importedAt: ISOTime.string(Date()))
        documents.extraTags = try options.extraTags()
        do {
            try documents.checkTemplate(tagKeys: ["month", "campaign", "set", "point"], hasFloor: true, file: root)
        } catch { throw CommandFailure(error.description, .usage) }
        let time = TableTime(unit: .auto, timeZone: zone)
        let progress = ImportProgress(total: campaigns.count, quiet: quiet)
        // The next campaign is read and converted while the store takes the last one's batch.
        let documentsMaker = documents
        var made = 0
        let batches = ReadAhead(depth: 1, name: "fprint.dataset-read") { () -> Result<[NewDocument], DatasetError>? in
            guard made < campaigns.count else { return nil }
            let c = campaigns[made]
            made += 1
            return Result { () throws(DatasetError) -> [NewDocument] in
                try documentsMaker.documents(try UJILongTerm.read(c, time: time), stem: "\(c.month):\(c.name)")
            }
        }
        defer { batches.cancel() }
        var taken = 0
        let count = try store.insertNew { () throws(CommandFailure) -> [NewDocument]? in
            // `produce` never throws: a campaign's error comes as its Result.
            guard let batch = try? batches.next() else { return nil }
            let c = campaigns[taken]
            taken += 1
            do throws(DatasetError) {
                let docs = try batch.get()
                progress.advance("month \(c.month) \(c.name)", rows: docs.count)
                return docs
            } catch {
                throw failure(error, root: root)
            }
        }
        progress.end()
        if !quiet {
            Terminal.err("\(root) (uji-longterm, \(Terminal.counted(campaigns.count, "campaign"))): imported \(count.inserted), already present \(count.alreadyPresent)")
        }
        return ["file": .string(root), "format": "uji-longterm", "dataset": .string(documents.dataset),
                "campaigns": .int(Int64(campaigns.count)), "imported": .int(Int64(count.inserted)),
                "alreadyPresent": .int(Int64(count.alreadyPresent))]
    }

    static func tables(_ files: [String], options: TableImportOptions, timeZone: String?, store: SQLiteDocumentStore,
                       quiet: Bool) throws -> [JSONObject] {
        var mapping = options.mapping
        mapping.timeFormat.timeZone = timeZone.flatMap(TimeZone.init(identifier:)) ?? .current
        var read: [(file: String, documents: [NewDocument], dataset: String)] = []
        for file in files {
            let name = options.dataset ?? URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
            var documents = TableDocuments(format: "table", dataset: name,
                                           mapTemplate: options.map ?? (options.floor == nil ? "{dataset}" : "{dataset}-{floor}"),
                                           importedAt: ISOTime.string(Date()))
            documents.extraTags = try options.extraTags()
            do {
                let csv = try CSVFile.read(path: file)
                let cols = try TableReader.columns(header: try csv.header(), mapping: mapping, file: file)
                do {
                    try documents.checkTemplate(tagKeys: cols.tags.map(\.name), hasFloor: options.floor != nil, file: file)
                } catch { throw CommandFailure(error.description, .usage) }
                let table = try TableReader.read(csv, mapping: mapping)
                let stem = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
                read.append((file, try documents.documents(table, stem: stem), name))
            } catch let error as DatasetError {
                throw CommandFailure(error.description, .dataError)
            }
        }
        var index = 0
        // One transaction for every file: a failure anywhere (the disk, a bad id) stores none of them.
        let count = try store.insertNew { () -> [NewDocument]? in
            guard index < read.count else { return nil }
            defer { index += 1 }
            return read[index].documents
        }
        if !quiet {
            for entry in read { Terminal.err("\(entry.file) (table, dataset \(entry.dataset)): \(Terminal.counted(entry.documents.count, "fingerprint"))") }
            Terminal.err("imported \(count.inserted), already present \(count.alreadyPresent)")
        }
        let files: [JSONValue] = read.map { entry in
            ["file": .string(entry.file), "dataset": .string(entry.dataset), "fingerprints": .int(Int64(entry.documents.count))]
        }
        return [["format": "table", "files": .array(files), "imported": .int(Int64(count.inserted)),
                 "alreadyPresent": .int(Int64(count.alreadyPresent))]]
    }

    /// A dataset error as the user can find it: files relative to the dataset (as provenance keeps them) under its folder.
    static func failure(_ error: DatasetError, root: String) -> CommandFailure {
        var e = error
        if !e.file.hasPrefix("/") && e.file != root { e.file = (root as NSString).appendingPathComponent(e.file) }
        return CommandFailure(e.description, .dataError)
    }

    /// A folder's name as the dataset's (`…/uji-lib-longterm/db` → `uji-lib-longterm`).
    static func defaultName(_ root: String) -> String {
        let url = URL(fileURLWithPath: root).standardizedFileURL
        let name = url.lastPathComponent == "db" ? url.deletingLastPathComponent().lastPathComponent : url.lastPathComponent
        return name.isEmpty ? "dataset" : name.replacingOccurrences(of: ":", with: "-")
    }
}

/// Progress of a long import on stderr: rewritten in place on a terminal, a line every ~10 % otherwise.
final class ImportProgress {
    let total: Int
    let quiet: Bool
    var finished = 0
    var rows = 0
    var lastPlain = -1

    init(total: Int, quiet: Bool) {
        self.total = total
        self.quiet = quiet
    }

    func advance(_ what: String, rows more: Int) {
        finished += 1
        rows += more
        guard !quiet else { return }
        let line = "import: \(finished)/\(total) \(what), \(rows) fingerprints"
        if Terminal.stderrIsTTY {
            Terminal.status(line)
        } else if finished * 10 / max(1, total) != lastPlain {
            lastPlain = finished * 10 / max(1, total)
            Terminal.err(line)
        }
    }

    func end() {
        if !quiet && Terminal.stderrIsTTY { Terminal.endStatus() }
    }
}

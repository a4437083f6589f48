import ArgumentParser
import FPCore
import FPDatasets
import FPStore
import Foundation

struct Import: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import measurement documents (Radio F-Prints, the Android collector, CouchDB dumps) or public fingerprint datasets.",
        discussion: """
            JSON (the default for files): one document or an array, JSON lines, CouchDB `_all_docs?include_docs=true` dumps and couch-view files ({"rows":[{"id":…,"value":…}]}). Numbers stored as strings become numbers, local times become ISO-8601 UTC (originals kept under `legacy`), BLE `uuid` becomes `address`. Each file is imported whole or not at all; documents whose id is already stored are skipped.

            Fingerprint datasets become one static measurement per fingerprint: its map (a floor of a building, e.g. UJI-LIB-3, in metres), position (`x`/`y` whole metres, `position` exact), time, readings (Wi-Fi `mac` or BLE `address` = the dataset's column name, e.g. WAP001) and tags a selection can use (`fprint eval --train campaign=trn01`); `imported` says where each came from (dataset, file, row, line) and lists the table's transmitter columns. They are not simulated and were not recorded by this machine. A bad cell names its file, line and column, and nothing is imported.

            --format uji-longterm (a folder holding db/MM/…, found by itself): the UJI long-term Wi-Fi database, every month and campaign, tagged month, campaign (trn01, tst03, …), set (train, test) and point (the ids file); not heard = 100; times yyyyMMddHHmmssSSS in --timezone (default Europe/Madrid, where it was recorded).

            --format table (a .csv file, found by itself): a table with a header, mapped by --x-column, --y-column, --floor-column, --time-column and --transmitter-prefix; every other column becomes a tag. Not heard: an empty cell, or --not-heard VALUE.

            Examples:
              fprint import old-ios-export.json
              fprint import --timezone Europe/Prague dump.json more.jsonl
              fprint import uji-lib-longterm/
              fprint import ble-flat-robot/calibration_df.csv --dataset ble-flat-robot --radio ble --transmitter-prefix rssi_ --x-column x --y-column y --time-column ts --tag set=train
              fprint import trainingData.csv --dataset UJIIndoorLoc --transmitter-prefix WAP --not-heard 100 --x-column LONGITUDE --y-column LATITUDE --floor-column FLOOR --time-column TIMESTAMP --map 'UJIIndoorLoc-{BUILDINGID}-{floor}'
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case auto, json, ujiLongterm = "uji-longterm", table
    }

    @Argument(help: "Files to import (a folder for uji-longterm).", completion: .file()) var files: [String]
    @Option(help: "What the files are: auto (a folder with db/ or month folders: uji-longterm, a .csv: table, else json), json, uji-longterm, table.")
    var format: Format = .auto
    @Option(help: "Time zone of local times (old documents: default this machine's; uji-longterm: Europe/Madrid).")
    var timezone: String?
    @OptionGroup var table: TableImportOptions
    @Flag(help: "Print a JSON summary.") var json = false
    @OptionGroup var storeOptions: StoreOptions

    func validate() throws {
        if files.isEmpty { throw ValidationError("name at least one file to import") }
        if let timezone, TimeZone(identifier: timezone) == nil {
            throw ValidationError("--timezone: unknown time zone '\(timezone)'")
        }
        try table.validate()
        let formats = Set(files.map(resolved))
        if formats.count > 1 {
            let found = formats.map(\.rawValue).sorted().joined(separator: ", ")
            throw ValidationError("import files of one format at a time (found \(found))")
        }
        switch formats.first {
        case .json?:
            if let option = table.given.first {
                throw ValidationError("\(option) applies to datasets (--format table or uji-longterm)")
            }
        case .ujiLongterm?:
            if let option = table.mappingGiven.first {
                throw ValidationError("\(option) applies to --format table; the UJI layout maps itself")
            }
            if files.count > 1 { throw ValidationError("import one uji-longterm folder at a time") }
        case .table?:
            if table.x == nil || table.y == nil {
                throw ValidationError("a table needs --x-column and --y-column (a stored measurement has a position)")
            }
            if table.transmitterPrefix.isEmpty { throw ValidationError("a table needs --transmitter-prefix (e.g. WAP or rssi_)") }
        default: break
        }
    }

    /// The format of one file: as given, or from what the path is.
    func resolved(_ file: String) -> Format {
        guard format == .auto else { return format }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory), isDirectory.boolValue {
            return UJILongTerm.looksLike(file) ? .ujiLongterm : .json  // json: "is a directory; name the files in it"
        }
        return file.lowercased().hasSuffix(".csv") ? .table : .json
    }

    func perform() async throws {
        let store = try Workspace(storeOptions: storeOptions).openStore(.write)
        let summary: [JSONObject]
        switch resolved(files[0]) {
        case .ujiLongterm:
            summary = [try DatasetImport.uji(files[0], options: table, timeZone: timezone, store: store, quiet: json)]
        case .table:
            summary = try DatasetImport.tables(files, options: table, timeZone: timezone, store: store, quiet: json)
        default:
            summary = try importJSON(store)
        }
        if json { Terminal.out(CanonicalJSON.string(.array(summary.map { .object($0) }))) }
    }

    /// The earlier apps' documents, each file in a transaction of its own.
    func importJSON(_ store: SQLiteDocumentStore) throws -> [JSONObject] {
        let zone = timezone.flatMap(TimeZone.init(identifier:)) ?? .current
        var summary: [JSONObject] = []
        for file in files {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory), isDirectory.boolValue {
                throw CommandFailure("\(file): is a directory; name the files in it (e.g. \(file)/*.json)", .dataError)
            }
            if let lines = try openLines(file, zone) {
                summary.append(try importLines(lines, into: store))
                continue
            }
            guard let data = FileManager.default.contents(atPath: file) else {
                let exists = FileManager.default.fileExists(atPath: file)
                throw CommandFailure("\(file): \(exists ? "cannot read the file (permission?)" : "no such file")",
                                     exists ? .ioError : .notFound)
            }
            let source: LegacyImport.Source
            do {
                source = try LegacyImport.Source(data, source: file, timeZone: zone)
            } catch {
                throw CommandFailure("\(error)", .dataError)
            }
            // Converted a batch at a time on every core and stored as they
            // come, in one transaction: the file is never held as values whole.
            var next = 0
            var passedOver = source.skipped
            let count = try store.insertNew { () throws(CommandFailure) -> [NewDocument]? in
                guard next < source.count else { return nil }
                let indices = Array(next..<min(next + 32, source.count))
                next += indices.count
                return try Self.converted(indices, passedOver: &passedOver) { i throws(LegacyImport.ImportError) in
                    try source.document(at: i)
                }
            }
            summary.append(reported(file: file, format: source.format, count, passedOver: passedOver))
        }
        return summary
    }

    /// `convert` of each item on every core; the first error fails the import (nothing is stored).
    static func converted<T: Sendable>(_ items: [T], passedOver: inout Int,
                                       _ convert: @Sendable (T) throws(LegacyImport.ImportError) -> NewDocument?)
        throws(CommandFailure) -> [NewDocument]
    {
        let results = concurrentMap(items) { item in Result { () throws(LegacyImport.ImportError) in try convert(item) } }
        var documents: [NewDocument] = []
        for result in results {
            do {
                if let document = try result.get() { documents.append(document) } else { passedOver += 1 }
            } catch {
                throw CommandFailure("\(error)", .dataError)
            }
        }
        return documents
    }

    /// One file's line of the summary, said on stderr unless --json.
    func reported(file: String, format: LegacyImport.Format, _ count: SQLiteDocumentStore.NewDocumentCount, passedOver: Int)
        -> JSONObject
    {
        if !json {
            Terminal.err("\(file) (\(format.rawValue)): imported \(count.inserted), already present \(count.alreadyPresent), passed over \(passedOver)")
        }
        return ["file": .string(file), "format": .string(format.rawValue), "imported": .int(Int64(count.inserted)),
                "alreadyPresent": .int(Int64(count.alreadyPresent)), "passedOver": .int(Int64(passedOver))]
    }

    /// The file as a stream of JSON lines, nil when it has another shape.
    func openLines(_ file: String, _ zone: TimeZone) throws -> LegacyImport.LineStream? {
        guard FileManager.default.fileExists(atPath: file) else { throw CommandFailure("\(file): no such file", .notFound) }
        do {
            return try LegacyImport.LineStream.open(path: file, source: file, timeZone: zone)
        } catch {
            throw CommandFailure("\(error)", .ioError)
        }
    }

    /// A JSON lines file, a batch of lines at a time: read, converted on
    /// every core and stored as they come, in one transaction (a bad line
    /// anywhere stores nothing). Three stages overlap: the next batch is read
    /// while the one before is converted, and that one is converted while the
    /// store hashes, compresses and writes the one before it (its writing is
    /// serial: a core would otherwise wait).
    func importLines(_ lines: LegacyImport.LineStream, into store: SQLiteDocumentStore) throws -> JSONObject {
        let converter = lines.converter
        let reading = ReadAhead(name: "fprint.import-read") { () throws(LegacyImport.ImportError) in
            let batch = try lines.nextLines(32)
            return batch.isEmpty ? nil : batch
        }
        defer { reading.cancel() }
        let converting = ReadAhead(depth: 1, name: "fprint.import-convert") { () throws -> (documents: [NewDocument], passedOver: Int)? in
            let batch: [LegacyImport.Line]
            do {
                guard let read = try reading.next() else { return nil }
                batch = read
            } catch { throw CommandFailure("\(error)", .ioError) }
            var passedOver = 0
            let documents = try Self.converted(batch, passedOver: &passedOver) { line throws(LegacyImport.ImportError) in
                try converter.document(line)
            }
            return (documents, passedOver)
        }
        defer { converting.cancel() }
        var passedOver = 0
        let count = try store.insertNew { () throws(CommandFailure) -> [NewDocument]? in
            do {
                guard let converted = try converting.next() else { return nil }
                passedOver += converted.passedOver
                return converted.documents
            } catch let failure as CommandFailure {
                throw failure
            } catch {
                throw CommandFailure("\(error)", .ioError)
            }
        }
        return reported(file: lines.source, format: .jsonl, count, passedOver: passedOver)
    }
}

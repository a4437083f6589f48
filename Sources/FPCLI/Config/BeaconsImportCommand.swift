import ArgumentParser
import FPConfig
import FPCore
import Foundation

extension BeaconsCommand {
    /// `fprint beacons import FILE.csv --map ID`: a deployed-beacon sheet →
    /// `beacons/<ID>.json` in the user's config folder, checked whole first.
    struct Import: ReportingCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Read a deployed-beacon spreadsheet (CSV) into a map's beacon registry in your config folder.",
            discussion: """
                The sheet's first row names its columns, in any order and case: address (or mac), x and y (map units; metres with --metres, a unit column saying m, or headers x_m/y_m, turned into map units with the map's scale), tx power (or measured power: the RSSI at 1 m, dBm), name, an iBeacon uuid/major/minor and an Eddystone namespace/instance. Each row needs an address, an iBeacon uuid/major/minor or an Eddystone namespace/instance (any or all): a report is matched to its beacon by the identity it advertises first, then by its address, so a beacon whose random address rotates is known by its identity alone. Other columns are left out and named. Comma, semicolon or tab separated.

                Every row is checked (a bad address, a uuid that is not 32 hex digits, a major or minor outside 0–65535, a namespace that is not 10 bytes of hex or an instance not 6, a position outside the map, an address or identity given twice, …) and each problem is printed as FILE:LINE: what; any problem and nothing is written (exit 65). The registry is written whole (a temporary file renamed) to beacons/<map>.json in $XDG_CONFIG_HOME/fprint, where it wins over the registry shipped beside the app config. An existing one there is kept unless --replace (overwrite) or --merge (the sheet's beacons added; one with the same address or identity replaced).

                Examples:
                  fprint beacons import deployed.csv --map J2NP --dry-run
                  fprint beacons import deployed.csv --map J2NP --metres
                  fprint beacons import survey-datum.csv --map LAB1 --metres --origin 40,40
                  fprint beacons import more.csv --map J2NP --merge --json
                """)

        @Argument(help: "The CSV sheet (a header row, then one beacon a row).", completion: .file()) var file: String
        @Option(help: "The map the beacons are on.") var map: String
        @Flag(name: [.customLong("metres"), .customLong("meters")],
              help: "x and y are metres from the plan's origin (unless a unit column or x_m/y_m headers say otherwise).")
        var metres = false
        @Option(help: ArgumentHelp("Where the sheet's metres start on the plan, in map units (the building datum's place on the picture; default the top-left corner).", valueName: "x,y"))
        var origin: String?
        @Flag(help: "Overwrite the map's registry in your config folder.") var replace = false
        @Flag(help: "Add the sheet's beacons to the map's registry in your config folder (same address or identity: replaced).") var merge = false
        @Flag(name: .customLong("dry-run"), help: "Check the sheet and show what would be written; write nothing.") var dryRun = false
        @Flag(help: "Print one JSON object: the registry written (or that would be) and the counts.") var json = false
        @OptionGroup var configOptions: ConfigOptions

        static let maxBytes = 16 << 20

        func validate() throws {
            if replace && merge { throw ValidationError("--replace and --merge exclude each other") }
            if let origin, Self.point(origin) == nil {
                throw ValidationError("--origin: cannot read '\(origin)': give the datum's place on the plan as x,y in map units (e.g. 120,80)")
            }
        }

        /// "120,80" (or "120 80") as a point.
        static func point(_ text: String) -> MapPoint? {
            let parts = text.split(whereSeparator: { $0 == "," || $0 == " " }).compactMap { Double($0) }
            guard parts.count == 2, parts.allSatisfy(\.isFinite) else { return nil }
            return MapPoint(x: parts[0], y: parts[1])
        }

        func perform() async throws {
            let ws = Workspace(configOptions: configOptions)
            let loaded = try ws.loadConfig()
            let info = try ws.map(map, in: loaded)
            let text = try Self.read(file)
            let sheet: BeaconSheet
            do {
                sheet = try BeaconSheet(text: text, file: file, map: info, metres: metres, origin: origin.flatMap(Self.point))
            } catch {
                for line in error.lines.prefix(50) { Terminal.err(line) }
                if error.lines.count > 50 { Terminal.err("… and \(error.lines.count - 50) more") }
                throw CommandFailure("\(file): \(Terminal.counted(error.lines.count, "problem")); nothing written", .dataError)
            }
            if origin != nil, !sheet.rows.contains(where: \.inMetres) {
                throw CommandFailure("--origin places positions given in metres, and \(file) gives none (--metres, a unit column saying m, or x_m/y_m headers); nothing written", .usage)
            }
            for warning in sheet.placementWarnings(map: info, file: file) { Terminal.err(warning) }
            let folder = ws.paths.configDirectory + "/beacons"
            let target = "\(folder)/\(map).json"
            let exists = FileManager.default.fileExists(atPath: target)
            if exists && !replace && !merge && !dryRun {
                throw CommandFailure("\(target) exists: --replace overwrites it, --merge adds the sheet's beacons to it", .usage)
            }
            let merged = try Self.merge(sheet.rows.map { $0.json(map: map) },
                                        into: merge && exists ? Self.existing(target) : [])
            let shipped = loaded.baseDirectory.map { "\($0)/beacons/\(map).json" }
                .flatMap { $0 != target && FileManager.default.fileExists(atPath: $0) ? $0 : nil }
            if !dryRun {
                try Self.makePrivateFolder(ws.paths.configDirectory)
                try Self.makePrivateFolder(folder)
                let text = "[\n" + merged.entries.map { " " + CanonicalJSON.string(.object($0)) }.joined(separator: ",\n") + "\n]\n"
                do { try Files.writeAtomically(Data(text.utf8), to: target, permissions: 0o600) } catch {
                    throw CommandFailure(error.description, .ioError)
                }
            }
            report(sheet, merged: merged, target: target, exists: exists, shipped: shipped, metersPerUnit: info.scale.metersPerUnit)
        }

        private func report(_ sheet: BeaconSheet, merged: Merged, target: String, exists: Bool, shipped: String?,
                            metersPerUnit: Double) {
            let converted = sheet.rows.filter(\.inMetres).count
            if json {
                let out: JSONObject = [
                    "map": .string(map), "file": .string(target), "written": .bool(!dryRun), "rows": .int(Int64(sheet.rowCount)),
                    "added": .int(Int64(merged.added)), "replaced": .int(Int64(merged.replaced)), "kept": .int(Int64(merged.kept)),
                    "convertedFromMetres": .int(Int64(converted)), "ignoredColumns": .array(sheet.ignoredColumns.map(JSONValue.string)),
                    "overrides": shipped.map(JSONValue.string) ?? .null, "beacons": .array(merged.entries.map(JSONValue.object)),
                ]
                Terminal.out(CanonicalJSON.string(.object(out)))
                return
            }
            let rows = sheet.rows.map { r in
                [r.mac ?? "", r.name ?? "", String(format: "%g", r.x), String(format: "%g", r.y),
                 r.measuredPower.map { String(format: "%g", $0) } ?? "", r.uuid.map { "\($0) \(r.major!)/\(r.minor!)" } ?? "",
                 r.namespace.map { "\($0)/\(r.instance!)" } ?? ""]
            }
            for line in Terminal.table(["MAC", "NAME", "X", "Y", "POWER@1M", "IBEACON", "EDDYSTONE"], rows, rightAligned: [2, 3, 4]) {
                Terminal.out(line)
            }
            if !sheet.ignoredColumns.isEmpty { Terminal.err("columns left out: \(sheet.ignoredColumns.joined(separator: ", "))") }
            var summary = "\(file): \(Terminal.counted(sheet.rowCount, "row")), \(Terminal.counted(sheet.rows.count, "beacon"))"
            if converted > 0 {
                summary += String(format: " (%d placed in metres, at %g m a map unit)", converted, metersPerUnit)
            }
            if merge && exists { summary += "; \(merged.added) added, \(merged.replaced) replaced, \(merged.kept) kept" }
            Terminal.err(summary)
            if dryRun {
                let note = exists && !replace && !merge ? " (it exists: the import needs --replace or --merge)" : ""
                Terminal.err("dry run: nothing written; would write \(Terminal.counted(merged.entries.count, "beacon")) to \(target)\(note)")
            } else {
                Terminal.err("wrote \(Terminal.counted(merged.entries.count, "beacon")) to \(target)"
                    + (shipped.map { "; it is used instead of \($0)" } ?? ""))
            }
        }

        /// The sheet's entries merged into `existing` (in its order; same MAC or advertised identity: the sheet's), new ones after.
        struct Merged {
            var entries: [JSONObject]
            var added = 0, replaced = 0, kept = 0
        }

        static func merge(_ sheet: [JSONObject], into existing: [JSONObject]) throws -> Merged {
            var byIdentity: [BeaconIdentity: Int] = [:]
            for (i, entry) in sheet.enumerated() {
                for id in Self.identities(entry) where byIdentity[id] == nil { byIdentity[id] = i }
            }
            var out = Merged(entries: [])
            var used = Set<Int>()
            for old in existing {
                if let i = Self.identities(old).lazy.compactMap({ byIdentity[$0] }).first {
                    // One sheet row replaces the first old entry it shares an identity with; later ones go.
                    if used.insert(i).inserted {
                        out.entries.append(sheet[i])
                        out.replaced += 1
                    }
                } else {
                    out.entries.append(old)
                    out.kept += 1
                }
            }
            for (i, entry) in sheet.enumerated() where !used.contains(i) {
                out.entries.append(entry)
                out.added += 1
            }
            return out
        }

        /// What a registry entry (or a sheet's) is known by: its MAC and advertised identities.
        static func identities(_ o: JSONObject) -> [BeaconIdentity] {
            func text(_ key: String) -> String? { o[key]?.stringValue ?? o[key]?.intValue.map { String($0) } }
            var out: [BeaconIdentity] = []
            if let mac = text("mac").flatMap(BeaconIdentity.mac) { out.append(.mac(mac)) }
            if let u = text("uuid"), let ma = text("major"), let mi = text("minor"),
               let id = BeaconIdentity.iBeacon(uuid: u, major: ma, minor: mi) { out.append(id) }
            if let ns = text("namespace"), let inst = text("instance"), let id = BeaconIdentity.eddystone(namespace: ns, instance: inst) {
                out.append(id)
            }
            return out
        }

        /// The user's registry for --merge: it must be one (65 naming it otherwise).
        static func existing(_ path: String) throws -> [JSONObject] {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw CommandFailure("\(path): cannot read the beacon registry", .ioError)
            }
            guard let value = try? CanonicalJSON.parse(data), case .array(let items) = value else {
                throw CommandFailure("\(path): not a beacon registry (a JSON array); --replace overwrites it", .dataError)
            }
            return items.compactMap(\.objectValue)
        }

        static func read(_ path: String) throws -> String {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw CommandFailure("\(path): no such file", .notFound)
            }
            guard !isDirectory.boolValue else { throw CommandFailure("\(path): is a directory, not a CSV file", .usage) }
            guard let handle = FileHandle(forReadingAtPath: path), let data = try? handle.read(upToCount: maxBytes + 1) else {
                throw CommandFailure("\(path): cannot be read", .ioError)
            }
            try? handle.close()
            guard data.count <= maxBytes else { throw CommandFailure("\(path): over \(maxBytes >> 20) MiB: not a beacon sheet", .dataError) }
            guard let text = String(data: data, encoding: .utf8) else {
                throw CommandFailure("\(path): not UTF-8 text (save the sheet as CSV UTF-8)", .dataError)
            }
            return text
        }

        /// A folder of the user's config, private to the user when fprint makes it (one that exists is left as it is).
        static func makePrivateFolder(_ path: String) throws {
            guard !FileManager.default.fileExists(atPath: path) else { return }
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])
            } catch {
                throw CommandFailure("\(path): cannot create the folder: \(error.localizedDescription)", .ioError)
            }
            // The new folder's name must outlive a power cut with the sheet written into it.
            DirectorySync.sync(containing: path)
        }
    }
}

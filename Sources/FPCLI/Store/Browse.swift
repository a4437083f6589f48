import ArgumentParser
import FPCore
import FPStore
import FPSync
import Foundation

struct List: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List stored measurements, newest first.",
        discussion: """
            On a terminal the list is grouped by day. Without --limit the table shows the newest 100 (--all for every one); --json prints one JSON object per line, all of them unless --limit is given. --unsynced also lists deletions not yet synced (SYNC "no (deleted)"; "deleted": true in --json), with the gateway's reason when it refused one.

            Examples:
              fprint list
              fprint list --map J1NP --since 2026-11-01
              fprint list --unsynced --json
              fprint list --owner alice --device pixel-7 --os android
              fprint list --foreign
            """)

    @Option(help: "Only this map.") var map: String?
    @Option(help: "Only documents created at or after this time (ISO date or date-time, or 30m/12h/7d ago).")
    var since: String?
    @Flag(help: "Only documents not yet synced to a gateway, deletions included.") var unsynced = false
    @Option(help: "Only static or walk documents.") var mode: MeasurementDocument.Mode?
    @Option(help: "Only the documents of one walk session.") var session: String?
    @Flag(help: "Only documents that are not measurements (legacy, other apps', design documents).") var foreign = false
    @Option(help: "Only documents signed by this owner (couchbase_sync_gateway_id).") var owner: String?
    @Option(help: "Only documents of this device id (deviceId).") var device: String?
    @Option(help: "Only documents whose OS (osName osId) contains this text, any case.") var os: String?
    @Option(help: "At most this many documents.") var limit: Int?
    @Flag(help: "Every matching document (the table shows the newest 100 otherwise).") var all = false
    @Flag(help: "One JSON object per line.") var json = false
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var configOptions: ConfigOptions

    func validate() throws {
        if let since, Self.parseSince(since, now: Date()) == nil {
            throw ValidationError("--since: cannot read '\(since)': use 2026-11-22, 2026-11-22T08:00:00Z or 30m/12h/7d")
        }
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
        if all && limit != nil { throw ValidationError("--all and --limit exclude each other") }
    }

    static let defaultTableRows = 100

    static func parseSince(_ text: String, now: Date) -> Int64? {
        if let ms = ISOTime.milliseconds(text) { return ms }
        if let ms = ISOTime.milliseconds(text + "T00:00:00Z") { return ms }
        guard let unit = text.last, let n = Double(text.dropLast()), n >= 0 else { return nil }
        let seconds: Double
        switch unit {
        case "m": seconds = n * 60
        case "h": seconds = n * 3600
        case "d": seconds = n * 86400
        default: return nil
        }
        return Int64((now.timeIntervalSince1970 - seconds) * 1000)
    }

    func perform() async throws {
        let ws = Workspace(storeOptions: storeOptions, configOptions: configOptions)
        let store = try ws.openStore(.read)
        // A table stops at the newest 100 unless asked: a surveyor wants today's work, fast.
        let shown = limit ?? (json || all ? nil : Self.defaultTableRows)
        var query = ListQuery(
            level: map, sinceMs: since.flatMap { Self.parseSince($0, now: Date()) }, unsyncedOnly: unsynced,
            mode: mode?.rawValue, sessionId: session, limit: shown.map { $0 + 1 },
            // Pending deletions are pending too: listed (`deleted`) with what was deleted.
            includeDeletions: unsynced)
        // --foreign, owner, device and OS are not summary filters: the limit applies after them.
        let bodyFilter = ListedBodies.Filter(owner: owner, deviceId: device, os: os)
        if foreign || !bodyFilter.isEmpty { query.limit = nil }
        var items = try store.list(query)
        if foreign { items.removeAll { NotMeasurement.measurementModes.contains($0.mode) || $0.mode == ProbeRunDocument.mode } }
        if !bodyFilter.isEmpty { items = ListedBodies.matching(items, bodyFilter, store: store) }
        let more = shown.map { items.count > $0 } ?? false
        if let shown, more { items.removeLast(items.count - shown) }
        let notMeasurements = ListedBodies.notMeasurements(items, store: store)
        // Refusals matter where pending documents are shown.
        let refused = Dictionary(try RefusalLog(store: store).all().map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        if json {
            let severalLeaves = try store.documentsWithSeveralLeaves(among: items.map(\.id))
            var out: [UInt8] = []
            for var item in items {
                if severalLeaves.contains(item.id) { item.conflicts = try store.conflicts(id: item.id).count }
                ListEntry(summary: item, refusal: item.synced ? nil : refused[item.id],
                          notMeasurement: notMeasurements[item.id]).appendLine(to: &out)
                if out.count >= 1 << 16 { Terminal.out(bytes: &out) }
            }
            Terminal.out(bytes: &out)
        } else {
            // MODE says what a document that is not a measurement is (legacy, foreign, design).
            let marked = items.map { item in
                var item = item
                if let kind = notMeasurements[item.id]?.kind { item.mode = kind }
                return item
            }
            for line in Render.listLines(marked, groupByDay: Terminal.stdoutIsTTY) { Terminal.out(line) }
            // Where each map is, under the table (a column would pass 80): a named config must load.
            if !items.isEmpty {
                let config = configOptions.config == nil ? try? ws.configIfAny() : try ws.configIfAny()
                let locations = ListedBodies.locationLines(levels: items.map(\.level), config: config)
                if !locations.isEmpty { Terminal.out(""); for line in locations { Terminal.out(line) } }
            }
            let shownRefused = items.compactMap { $0.synced ? nil : refused[$0.id] }
            if !shownRefused.isEmpty {
                Terminal.out("")
                Terminal.out("refused by the gateway (offered again at each sync):")
                for r in shownRefused {
                    Terminal.out(ControlText.escaped("  \(r.id.prefix(8))  \(r.reason)  (\(r.gateway))"))
                }
            }
            if more && limit == nil { Terminal.err("(newest \(items.count) shown; --all lists every one)") }
        }
    }
}

extension MeasurementDocument.Mode: ExpressibleByArgument {}

/// One line of `list --json`: the summary's members, sorted by name as all
/// fprint JSON is, `sessionId` and `seq` only when set, and the gateway's
/// refusal of a pending document. Written straight to bytes: JSONEncoder
/// took a tenth of `list --json --limit 100` at 100,000 documents.
struct ListEntry {
    var summary: DocumentSummary
    var refusal: Refusal?
    var notMeasurement: NotMeasurement?

    var json: JSONValue {
        let s = summary
        var object: JSONObject = [
            "id": .string(s.id), "rev": .string(s.rev), "createdAtMs": .int(s.createdAtMs),
            "createdAt": .string(s.createdAt), "level": .string(s.level), "mode": .string(s.mode),
            "x": .double(s.x), "y": .double(s.y), "bleCount": .int(Int64(s.bleCount)),
            "wifiCount": .int(Int64(s.wifiCount)), "cellCount": .int(Int64(s.cellCount)),
            "geoCount": .int(Int64(s.geoCount)), "synced": .bool(s.synced),
            "conflicts": .int(Int64(s.conflicts)), "deleted": .bool(s.deleted),
        ]
        if let notMeasurement {
            object["mode"] = .string(notMeasurement.kind)
            object["notMeasurement"] = .string(notMeasurement.why)
        }
        if let sessionId = s.sessionId { object["sessionId"] = .string(sessionId) }
        if let seq = s.seq { object["seq"] = .int(Int64(seq)) }
        if let refusal {
            object["refused"] = ["reason": .string(refusal.reason), "gateway": .string(refusal.gateway),
                                 "time": .string(refusal.time)]
        }
        return .object(object)
    }

    func appendLine(to out: inout [UInt8]) {
        CanonicalJSON.write(json, into: &out)
        out.append(UInt8(ascii: "\n"))
    }
}

struct Show: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one measurement: measurement info, cellular, Wi-Fi, BLE, geolocation.",
        discussion: """
            ID may be any unique prefix of the document id. Cellular, Wi-Fi and BLE are summarised per transmitter: how often it was heard (N), its median, lowest and highest RSSI, and when it was first and last heard (ms from the measurement start), most heard first. --samples prints every sample instead, sorted by time. --json prints the stored document with _id and _rev.

            Examples:
              fprint show 3f2a9c
              fprint show 3f2a9c --samples
              fprint show 3f2a9c --json | jq '.bleScans | length'
            """)

    @Argument(help: "Document id or a unique prefix of it.") var id: String
    @Flag(help: "Print the document as JSON.") var json = false
    @Flag(help: "Print every sample, in time order, instead of a row per transmitter.") var samples = false
    @OptionGroup var storeOptions: StoreOptions

    func perform() async throws {
        let store = try Workspace(storeOptions: storeOptions).openStore(.read)
        let fullID = try store.resolve(idPrefix: id)
        guard let stored = try store.document(id: fullID, includeDeleted: false) else {
            throw StoreError.notFound(id: id)
        }
        if json {
            Terminal.out(Workspace.documentJSON(stored))
            return
        }
        // A document sync brought that is not a measurement is shown as it is stored, with why.
        var notMeasurement = NotMeasurement.classify(id: fullID, body: stored.body)
        var doc: MeasurementDocument?
        let body = notMeasurement?.converted ?? stored.body
        if notMeasurement == nil || notMeasurement?.converted != nil {
            do {
                doc = try CanonicalJSON.decode(MeasurementDocument.self, from: Self.wholeDecibels(body))
            } catch {
                notMeasurement = .malformed(error)
            }
        }
        if notMeasurement?.kind == "probe" {
            for line in ProbeRunDocument.showLines(id: fullID, rev: stored.rev.description, body: stored.body) { Terminal.out(line) }
            return
        }
        guard let doc else {
            Terminal.out(Workspace.documentJSON(stored))
            Terminal.err("\(fullID) is not read as a measurement: \(notMeasurement?.why ?? "unknown")")
            return
        }
        if let notMeasurement, notMeasurement.converted != nil { Terminal.err("\(fullID): \(notMeasurement.why)") }
        let synced = try store.isSynced(id: fullID)
        let attachments = (stored.body["_attachments"]?.objectValue ?? [:]).map { member in
            "\(member.key) (\(member.value["content_type"]?.stringValue ?? "?"), "
                + "\(member.value["length"]?.intValue.map { "\($0) bytes" } ?? "size unknown"))"
        }
        for line in Render.showLines(id: fullID, rev: stored.rev.description, doc: doc, synced: synced,
                                     conflicts: try store.conflicts(id: fullID).map(\.description),
                                     attachments: attachments, samples: samples,
                                     networkProbes: body["networkProbes"]?.arrayValue ?? [])
        {
            Terminal.out(line)
        }
    }
}

extension Show {
    /// The body with fractional RSSI rounded to whole dBm, as the contract's
    /// integer RSSI reads it: imported datasets (ble-flat-robot) and the old
    /// apps' documents have fractions, and the table shows them to the dB.
    /// `--json` prints the stored values.
    static func wholeDecibels(_ body: JSONValue) -> JSONValue {
        guard case .object(var o) = body else { return body }
        for list in ["bleScans", "wifiScans", "cellScans"] {
            guard case .array(var items)? = o[list] else { continue }
            var changed = false
            for i in items.indices {
                guard case .object(var item) = items[i], let rssi = item["rssi"], case .double(let v) = rssi,
                    v.isFinite, v.rounded() != v
                else { continue }
                item["rssi"] = .int(Int64(v.rounded()))
                items[i] = .object(item)
                changed = true
            }
            if changed { o[list] = .array(items) }
        }
        return .object(o)
    }
}

struct Delete: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete measurements: by id, a walk session, or unsynced ones by map and date.",
        discussion: """
            Each deletion is kept as a tombstone, so a later sync replicates it. Documents already synced to a gateway are refused (as in Radio F-Prints) unless --synced-too, whose tombstones then delete them on the gateway at the next sync. All the chosen documents are deleted in one transaction, or none is.

            More than one document asks for confirmation on a terminal; elsewhere (a script) it needs --yes.

            Examples:
              fprint delete 3f2a9c
              fprint delete 3f2a9c 81d0e4 --yes
              fprint delete --session 5b1c… --yes
              fprint delete --unsynced --map J1NP --before 2026-11-01
            """)

    @Argument(help: "Document ids or unique prefixes of them.") var ids: [String] = []
    @Option(help: "Every document of one walk session.") var session: String?
    @Flag(help: "With --map and/or --before: only documents never synced (required unless --synced-too).") var unsynced = false
    @Option(help: "Only documents of this map.") var map: String?
    @Option(help: "Only documents created before this date (2026-11-01, 2026-11-01T08:00:00Z, or 30m/12h/7d ago).")
    var before: String?
    @Flag(help: "Also delete documents already synced; their deletion replicates to the gateway.") var syncedToo = false
    @Flag(name: .shortAndLong, help: "Do not ask for confirmation.") var yes = false
    @OptionGroup var storeOptions: StoreOptions

    func validate() throws {
        let filtered = map != nil || before != nil || unsynced
        let ways = [!ids.isEmpty, session != nil, filtered].filter { $0 }.count
        if ways == 0 { throw ValidationError("name documents: ids, --session, or --unsynced with --map/--before") }
        if ways > 1 { throw ValidationError("choose one of: ids, --session, or --map/--before filters") }
        if filtered, map == nil, before == nil { throw ValidationError("--unsynced needs --map and/or --before") }
        if filtered, !unsynced, !syncedToo { throw ValidationError("--map/--before need --unsynced (or --synced-too)") }
        if let before, List.parseSince(before, now: Date()) == nil {
            throw ValidationError("--before: cannot read '\(before)': use 2026-11-22, 2026-11-22T08:00:00Z or 30m/12h/7d")
        }
    }

    func perform() async throws {
        let store = try Workspace(storeOptions: storeOptions).openStore(.write)
        let chosen: [String]
        if !ids.isEmpty {
            chosen = try ids.map { try store.resolve(idPrefix: $0) }
        } else {
            let query = ListQuery(level: map, unsyncedOnly: unsynced, sessionId: session,
                                  beforeMs: before.flatMap { List.parseSince($0, now: Date()) })
            chosen = try store.list(query).map(\.id)
            if chosen.isEmpty { throw CommandFailure("no documents match", .notFound) }
        }
        let unique = Array(Set(chosen)).sorted()
        if unique.count > 1, !yes {
            guard Terminal.stdinIsTTY else {
                throw CommandFailure("\(Terminal.counted(unique.count, "document")) chosen: add --yes to delete them without a prompt", .usage)
            }
            FileHandle.standardError.write(Data("delete \(Terminal.counted(unique.count, "document"))? [y/N] ".utf8))
            guard let answer = readLine(), ["y", "yes"].contains(answer.lowercased()) else {
                Terminal.err("nothing deleted")
                return
            }
        }
        try store.delete(ids: unique, evenIfSynced: syncedToo)
        for id in unique { Terminal.out(id) }
        Terminal.err("deleted \(Terminal.counted(unique.count, "document"))")
    }
}

import ArgumentParser
import FPAnalysis
import FPConfig
import FPCore
import FPStore
import Foundation

/// The document filters shared by eval, export, plot and coverage (as `list`'s).
struct FilterOptions: ParsableArguments {
    @Option(help: "Only this map.") var map: String?
    @Option(help: "Only documents created at or after this time (ISO date or date-time, or 30m/12h/7d ago).")
    var since: String?
    @Option(help: "Only static or walk documents.") var mode: MeasurementDocument.Mode?
    @Option(help: "Only the documents of one walk session.") var session: String?

    func validate() throws {
        if let since, List.parseSince(since, now: Date()) == nil {
            throw ValidationError("--since: cannot read '\(since)': use 2026-11-22, 2026-11-22T08:00:00Z or 30m/12h/7d")
        }
    }

    var query: ListQuery {
        ListQuery(level: map, sinceMs: since.flatMap { List.parseSince($0, now: Date()) }, mode: mode?.rawValue,
                  sessionId: session)
    }
}

enum AnalysisInput {
    /// Stored documents matching the filters, in file order (the order they reached the store: an import's rows).
    /// Damaged ones are named on stderr and left out (`DamageLog`).
    static func documents(_ store: SQLiteDocumentStore, _ filters: FilterOptions) throws -> [DocumentText] {
        try texts(store, filters.query)
    }

    static func texts(_ store: SQLiteDocumentStore, _ query: ListQuery) throws -> [DocumentText] {
        let read = try store.readDocumentTexts(query)
        DamageLog.shared.record(read.damaged)
        return read.documents
    }

    /// The documents matching the filters as fingerprints, in file order,
    /// each read as it comes out of the store (the texts are not kept). A
    /// document that is not a measurement (legacy, another app's, malformed)
    /// is skipped and counted on stderr, never failing the command; damaged
    /// ones are named on stderr and left out.
    static func fingerprints(_ store: SQLiteDocumentStore, _ filters: FilterOptions) throws -> [Fingerprint] {
        try readFingerprints(store, filters.query).fingerprints
    }

    /// The same, and whether every document was read as a measurement (none
    /// damaged, legacy, skipped or a probe run): only such a read is packed.
    static func readFingerprints(_ store: SQLiteDocumentStore, _ query: ListQuery) throws
        -> (fingerprints: [Fingerprint], clean: Bool)
    {
        // Texts are read in file order a few MB at a time, and each batch is read as fingerprints
        // on every core while the store reads the next (an imported dataset is 60,000 documents:
        // reading them was half of eval's time). At most two batches wait, so memory stays flat.
        let parsed = ParsedBatches()
        var pending: [DocumentText] = []
        var pendingBytes = 0
        func flush() {
            guard !pending.isEmpty else { return }
            parsed.parse(pending)
            pending.removeAll(keepingCapacity: true)
            pendingBytes = 0
        }
        let read = try store.readDocuments(query) { t in
            pending.append(t)
            pendingBytes += t.body.utf8.count
            if pendingBytes > 4 << 20 || pending.count >= 2048 { flush() }
        }
        flush()
        DamageLog.shared.record(read.damaged)
        let results = parsed.results()
        let clean = read.damaged.isEmpty && results.allSatisfy { if case .measurement = $0 { true } else { false } }
        return (kept(results), clean)
    }

    /// Texts read already as fingerprints; documents that are not measurements are skipped and counted.
    static func fingerprints(_ texts: [DocumentText]) throws -> [Fingerprint] {
        let names = TransmitterNames()
        return kept(texts.map { ParsedBatches.read($0, names: names) })
    }

    /// The fingerprints read; the documents that are not measurements counted on stderr by map.
    static func kept(_ results: [DocumentReading]) -> [Fingerprint] {
        var skipped = SkippedDocuments()
        var legacy = LegacyReads()
        var out: [Fingerprint] = []
        out.reserveCapacity(results.count)
        for result in results {
            switch result {
            case .measurement(let fp): out.append(fp)
            case .legacy(let fp):
                out.append(fp)
                legacy.add(level: fp.level)
            case .probeRun: continue  // network monitoring, not a fingerprint: nothing to say
            case .unread(let unread):
                // A document that claims to be a measurement is named: it is rare, and someone should look.
                if let named = unread.named { Terminal.err("warning: skipped \(named)") }
                skipped.add(level: unread.level)
            }
        }
        legacy.report()
        skipped.report()
        return out
    }

    /// One stored document as a fingerprint (an id prefix is resolved).
    static func fingerprint(_ store: SQLiteDocumentStore, idPrefix: String) throws -> Fingerprint {
        let full = try store.resolve(idPrefix: idPrefix)
        guard let stored = try store.document(id: full, includeDeleted: false) else { throw StoreError.notFound(id: idPrefix) }
        var body = stored.body
        if let legacy = LegacyReading.measurementBody(id: full, body: body) {
            do { body = try legacy.get() } catch { throw CommandFailure(error.description, .dataError) }
        }
        do { return try Fingerprint(id: full, body: body) } catch { throw CommandFailure(error.description, .dataError) }
    }

    /// Metres per map unit by map id from the app config; maps it does not
    /// know (or all, without an app config) get the J building's 45 m = 2250
    /// units, with one warning each. Eval, locate, export and plot share it.
    static func scales(_ ws: Workspace, levels: Set<String>) throws -> [String: Double] {
        scales(try ws.configIfAny(), levels: levels)
    }

    /// Metres per unit for the maps of `fps`: an imported dataset's maps are in
    /// metres (every fingerprint's `position.unit` says so) and need no app
    /// config; the others as `scales(ws, levels:)`, warnings included.
    static func scales(_ ws: Workspace, of fps: [Fingerprint]) throws -> [String: Double] {
        var maps = MapUnits()
        for fp in fps { maps.add(fp) }
        return try scales(ws, of: maps)
    }

    static func scales(_ ws: Workspace, of maps: MapUnits) throws -> [String: Double] {
        var out = maps.others.isEmpty ? [:] : try scales(ws, levels: maps.others)
        for level in maps.metres.subtracting(maps.others) { out[level] = 1 }
        return out
    }

    /// The same from an app config already read (nil: none was found).
    static func scales(_ loaded: LoadedConfig?, levels: Set<String>) -> [String: Double] {
        var out: [String: Double] = [:]
        for level in levels.sorted() {
            if let m = loaded?.appConfig.map(id: level) {
                out[level] = m.scale.metersPerUnit
            } else {
                let why = loaded == nil ? "no app config was found" : "map '\(level)' is not in the app config"
                Terminal.err("warning: \(why): map \(level.isEmpty ? "(none)" : level) uses 45 m = 2250 units")
                out[level] = MapScale.jBuilding.metersPerUnit
            }
        }
        return out
    }
}

/// The maps fingerprints were taken on, by unit: in metres (imported
/// datasets) or in map units. Taken in runs: a map's fingerprints come
/// together, and hashing every one's level was 15 ms of 63,504.
struct MapUnits {
    private(set) var metres = Set<String>(), others = Set<String>()
    private var last: (level: String, inMetres: Bool)?

    mutating func add(_ fp: Fingerprint) {
        guard last?.level != fp.level || last?.inMetres != fp.labels.inMetres else { return }
        last = (fp.level, fp.labels.inMetres)
        if fp.labels.inMetres { metres.insert(fp.level) } else { others.insert(fp.level) }
    }
}

/// Batches of stored texts read as fingerprints on a queue of their own, in
/// order, each batch on every core (`concurrentMap`, one `TransmitterNames`
/// per half).
final class ParsedBatches: @unchecked Sendable {
    private let queue = DispatchQueue(label: "fprint.fingerprints")
    private let group = DispatchGroup()
    private let slots = DispatchSemaphore(value: 2)
    private let lock = NSLock()
    private var batches: [[DocumentReading]] = []  // guarded by `lock`

    /// Queues a batch; waits while two are queued already.
    func parse(_ texts: [DocumentText]) {
        slots.wait()
        let index = lock.withLock {
            batches.append([])
            return batches.count - 1
        }
        queue.async(group: group) { [self] in
            let halves = [0..<texts.count / 2, texts.count / 2..<texts.count]
            let parts = concurrentMap(halves) { range in
                let names = TransmitterNames()
                return texts[range].map { Self.read($0, names: names) }
            }
            lock.withLock { batches[index] = parts[0] + parts[1] }
            slots.signal()
        }
    }

    /// Every batch's fingerprints in order, once all are read.
    func results() -> [DocumentReading] {
        group.wait()
        return lock.withLock { batches.flatMap { $0 } }
    }

    /// One text as a fingerprint (a legacy one through the converter), or
    /// the map of a document that is not a measurement.
    static func read(_ t: DocumentText, names: TransmitterNames) -> DocumentReading {
        do { return .measurement(try Fingerprint(id: t.id, text: t.body, names: names)) } catch {
            // Only the few that fail are parsed again, for the map the count names.
            let body = try? CanonicalJSON.parse(t.body)
            if body?["mode"]?.stringValue == ProbeRunDocument.mode { return .probeRun }
            if let body, case .success(let converted)? = LegacyReading.measurementBody(id: t.id, body: body),
                let fp = try? Fingerprint(id: t.id, body: converted)
            {
                return .legacy(fp)
            }
            let claims = body?["mode"]?.stringValue.map(NotMeasurement.measurementModes.contains) ?? false
            return .unread(Unread(level: body?["level"]?.stringValue, named: claims ? "\(error)" : nil))
        }
    }
}

/// What one stored document is to a reading command.
enum DocumentReading {
    case measurement(Fingerprint)
    /// A legacy Radio F-Prints document read through the converter.
    case legacy(Fingerprint)
    /// A run of `fprint probe --every`: no readings to localise with.
    case probeRun
    case unread(Unread)
}

/// A stored document not read as a measurement, with its map if it names
/// one, and the reason when it claims to be one (its mode is static or walk).
struct Unread: Error {
    var level: String?
    var named: String?
}

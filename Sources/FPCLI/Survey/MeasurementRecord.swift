import FPCore
import FPSession
import FPStore
import Foundation

/// How a measurement becomes stored documents, whoever took it: `fprint
/// measure`, `fprint walk` and the dashboard's Survey page store alike.
/// Nothing here prints; callers say what was stored.
enum MeasurementRecord {
    struct Point {
        var id: String
        /// "BLE 412, Wi-Fi 31, …" for the one line a person reads.
        var summary: String
        /// The stored document (only when `keepStored`: `--json` prints it).
        var stored: [StoredDocument]
        /// Raw capture losses and the like, for stderr.
        var notes: [String]
    }

    /// One static measurement. `doc` is consumed: its entries are let go
    /// once encoded (a replay's can be 100,000s).
    static func point(_ doc: consuming MeasurementDocument, setup: CaptureSetup, into store: SQLiteDocumentStore, _ ws: Workspace,
                      networkProbes: [JSONValue] = [], keepStored: Bool) throws -> Point {
        let id = Workspace.newDocumentID()
        let summary = "BLE \(doc.bleScans.count), Wi-Fi \(doc.wifiScans.count), cellular \(doc.cellScans.count), GNSS \(doc.geolocation.count)"
            + (networkProbes.isEmpty ? "" : ", \(Terminal.counted(networkProbes.count, "network probe"))")
            + Workspace.unavailableNote(doc)
        let probes: [JSONObject.Member] = networkProbes.isEmpty ? [] : [("networkProbes", .array(networkProbes))]
        if setup.rawHCI == nil && !keepStored {
            // Written in one pass as canonical text and stored as it is: a
            // replayed capture's 100,000s of entries never become a value tree.
            let (text, members) = try doc.canonicalText(adding: probes)
            doc.bleScans = []
            try Rescue.insert(id: id, ownText: text, members: members, into: store, ws)
            return Point(id: id, summary: summary, stored: [], notes: [])
        }
        var body = try JSONValueEncoder().encode(doc)
        for (key, value) in probes { body[key] = value }
        doc.bleScans = []
        var new = NewDocument(id: id, body: body)
        var notes: [String] = []
        if let log = setup.rawHCI {
            new = RawEvidence.document(id: id, body: body, log: log, clock: setup.clock, fromMs: 0, toMs: doc.durationMs,
                                       lastWindow: true)
            if let note = RawEvidence.droppedNote(log) { notes.append(note) }
        }
        return Point(id: id, summary: summary, stored: try Rescue.insert([new], into: store, ws), notes: notes)
    }

    /// A walk's documents, ready to store in one go: network probes joined to
    /// the windows they started in, each window's raw capture attached.
    static func walk(_ docs: [MeasurementDocument], of walk: Walk, setup: CaptureSetup, probes: [WalkProber.Done]?) throws
        -> (documents: [NewDocument], notes: [String])
    {
        let encoder = JSONValueEncoder()
        let lastEnd = docs.compactMap { $0.window?.endMs }.max()
        var bodies = try docs.map { try encoder.encode($0) }
        if let probes { WalkProber.attach(probes, to: &bodies, windows: walk.windows, walk: walk) }
        let news = zip(docs, bodies).map { doc, body in
            let id = Workspace.newDocumentID()
            guard let log = setup.rawHCI, let window = doc.window else { return NewDocument(id: id, body: body) }
            return RawEvidence.document(id: id, body: body, log: log, clock: setup.clock, fromMs: window.startMs,
                                        toMs: window.endMs, lastWindow: window.endMs == lastEnd)
        }
        let notes = setup.rawHCI.flatMap { RawEvidence.droppedNote($0) }.map { [$0] } ?? []
        return (news, notes)
    }
}

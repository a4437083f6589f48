/// A stored document: its id, winning revision and body (without `_id`/`_rev`).
public struct StoredDocument: Sendable, Equatable {
    public var id: String
    public var rev: Revision
    public var body: JSONValue
    public var deleted: Bool
    /// Local update sequence of the last change.
    public var seq: Int64

    public init(id: String, rev: Revision, body: JSONValue, deleted: Bool = false, seq: Int64) {
        self.id = id
        self.rev = rev
        self.body = body
        self.deleted = deleted
        self.seq = seq
    }
}

/// The columns `fprint list` shows, read without parsing bodies.
public struct DocumentSummary: Sendable, Equatable, Codable {
    public var id: String
    public var rev: String
    public var createdAtMs: Int64
    public var createdAt: String
    public var level: String
    public var mode: String
    public var x: Double
    public var y: Double
    public var sessionId: String?
    public var seq: Int?
    public var bleCount: Int
    public var wifiCount: Int
    public var cellCount: Int
    public var geoCount: Int
    public var synced: Bool
    public var conflicts: Int
    /// A deletion (its summary is that of the last live revision): listed
    /// only when asked (`ListQuery.includeDeletions`).
    public var deleted: Bool

    public init(id: String, rev: String, createdAtMs: Int64, createdAt: String, level: String, mode: String,
                x: Double, y: Double, sessionId: String?, seq: Int?, bleCount: Int, wifiCount: Int,
                cellCount: Int, geoCount: Int, synced: Bool, conflicts: Int = 0, deleted: Bool = false) {
        self.id = id
        self.rev = rev
        self.createdAtMs = createdAtMs
        self.createdAt = createdAt
        self.level = level
        self.mode = mode
        self.x = x
        self.y = y
        self.sessionId = sessionId
        self.seq = seq
        self.bleCount = bleCount
        self.wifiCount = wifiCount
        self.cellCount = cellCount
        self.geoCount = geoCount
        self.synced = synced
        self.conflicts = conflicts
        self.deleted = deleted
    }
}

/// What `fprint list` asks for. Results are newest first.
public struct ListQuery: Sendable, Equatable {
    public var level: String?
    public var sinceMs: Int64?
    public var unsyncedOnly: Bool
    public var mode: String?
    public var sessionId: String?
    public var limit: Int?
    /// Created before this time (ms since 1970), exclusive.
    public var beforeMs: Int64?
    /// Deleted documents too (tombstones, with their last live summary):
    /// with `unsyncedOnly`, the deletions not yet synced.
    public var includeDeletions: Bool

    public init(level: String? = nil, sinceMs: Int64? = nil, unsyncedOnly: Bool = false, mode: String? = nil,
                sessionId: String? = nil, limit: Int? = nil, beforeMs: Int64? = nil, includeDeletions: Bool = false) {
        self.level = level
        self.includeDeletions = includeDeletions
        self.sinceMs = sinceMs
        self.beforeMs = beforeMs
        self.unsyncedOnly = unsyncedOnly
        self.mode = mode
        self.sessionId = sessionId
        self.limit = limit
    }
}

/// A new document to store: id and body. Its first revision is computed by the store.
public struct NewDocument: Sendable, Equatable {
    public var id: String
    /// What the store is handed: a value, or canonical text it stores as
    /// it is (a line of `fprint export` coming back through `fprint import`).
    public var content: Content
    /// The bytes of those attachments, by digest.
    public var attachmentData: [String: [UInt8]]

    public enum Content: Sendable {
        case value(JSONValue)
        /// Text `JSONSkim` judged canonical, with its top-level members.
        case canonicalText([UInt8], members: [JSONSkim.Member])
    }

    public init(id: String, body: JSONValue, attachmentData: [String: [UInt8]] = [:]) {
        self.id = id
        self.content = .value(body)
        self.attachmentData = attachmentData
    }

    public init(id: String, canonicalText: [UInt8], members: [JSONSkim.Member]) {
        self.id = id
        self.content = .canonicalText(canonicalText, members: members)
        self.attachmentData = [:]
    }

    /// The body as a value; holds the stubs of its attachments, if any
    /// (`Attachments.stub`). Canonical text is parsed for it: for tests and
    /// rare readers, not the store's path.
    public var body: JSONValue {
        get {
            switch content {
            case .value(let value): return value
            case .canonicalText(let text, _): return (try? JSONParser.parse(text)) ?? .null
            }
        }
        set { content = .value(newValue) }
    }

    /// Whether the body carries `_attachments` (whose stubs the store
    /// checks against the bytes it keeps); text is told by its members, unparsed.
    public var hasAttachments: Bool {
        switch content {
        case .value(let value): return value["_attachments"] != nil
        case .canonicalText(_, let members): return members.contains { $0.key == "_attachments" }
        }
    }

    public static func == (a: NewDocument, b: NewDocument) -> Bool {
        a.id == b.id && a.body == b.body && a.attachmentData == b.attachmentData
    }
}

/// A new body for an existing document, valid while `expected` is its revision.
public struct DocumentUpdate: Sendable, Equatable {
    public var id: String
    /// The new body: a value, or text the store takes as it is when it is
    /// canonical (checked there), such as a stored body with one member
    /// changed in place (`Replicator.signUnsigned`).
    public var body: Body
    public var expected: Revision

    public enum Body: Sendable, Equatable {
        case value(JSONValue)
        case text([UInt8])
    }

    public init(id: String, body: JSONValue, expected: Revision) {
        self.id = id
        self.body = .value(body)
        self.expected = expected
    }

    public init(id: String, canonicalBody: [UInt8], expected: Revision) {
        self.id = id
        self.body = .text(canonicalBody)
        self.expected = expected
    }
}

/// A document `updateWhereCurrent` changed: its new winning revision.
public struct AppliedUpdate: Sendable, Equatable {
    public var id: String
    public var rev: Revision
    public init(id: String, rev: Revision) {
        self.id = id
        self.rev = rev
    }
}

public enum StoreError: Error, Equatable, CustomStringConvertible {
    case notFound(id: String)
    case conflict(id: String)
    case alreadySynced(id: String)
    case invalid(String)
    case io(String)
    /// An id prefix that names several documents: `matches` are the first few of `count`.
    case ambiguous(prefix: String, matches: [String], count: Int)

    public var description: String {
        switch self {
        case .notFound(let id): "no document with id \(id)"
        case .conflict(let id): "document \(id) was changed by someone else (revision conflict)"
        case .alreadySynced(let id): "document \(id) is already synced to the gateway; only unsynced documents may be deleted"
        case .invalid(let why): why
        case .io(let why): why
        case .ambiguous(let prefix, let matches, let count):
            "id prefix \(prefix) names \(count) documents: \(matches.joined(separator: ", "))\(count > matches.count ? ", …" : ""); give more of the id"
        }
    }
}

/// The document store every command and, later, the replicator use.
/// Implementations are atomic per call: a batch is stored whole or not at all.
/// Calls throw `StoreError` only, except those that read stored bodies
/// (`document`, and `revision`, `revisionText`, `attachmentBytes` of
/// `ReplicableStore`), which also throw `DamagedDocument` for a body that
/// cannot be read, so a reader of many documents can skip and name it.
public protocol DocumentStore: Sendable {
    /// Stores new documents in one transaction; returns them with their revisions.
    @discardableResult
    func insert(_ documents: [NewDocument]) throws(StoreError) -> [StoredDocument]
    /// The current winning revision, nil if absent. Deleted documents are returned only when asked.
    func document(id: String, includeDeleted: Bool) throws -> StoredDocument?
    /// Replaces a document's body; `expected` must be its current revision.
    @discardableResult
    func update(id: String, body: JSONValue, expected: Revision) throws(StoreError) -> StoredDocument
    /// Several updates in one transaction (one commit, one fsync). An update
    /// whose `expected` revision is no longer current, or whose document is
    /// gone, is skipped and left out of the result; the others are applied.
    @discardableResult
    func updateWhereCurrent(_ updates: [DocumentUpdate]) throws(StoreError) -> [AppliedUpdate]
    /// Deletes documents in one transaction, each leaving a tombstone
    /// revision (which replicates). Synced documents are refused
    /// (`alreadySynced`) unless `evenIfSynced`; one refusal deletes none.
    func delete(ids: [String], evenIfSynced: Bool) throws(StoreError)
    /// Summaries, newest first.
    func list(_ query: ListQuery) throws(StoreError) -> [DocumentSummary]
    /// Finds the full id of a document from a unique prefix.
    func resolve(idPrefix: String) throws(StoreError) -> String
    /// Marks documents as present on the gateway (deletion then refuses them).
    func markSynced(ids: [String]) throws(StoreError)
    /// Non-replicated `_local` documents (checkpoints, settings).
    func localDocument(id: String) throws(StoreError) -> JSONValue?
    func putLocalDocument(id: String, body: JSONValue) throws(StoreError)
    /// Number of live (non-deleted) documents.
    func count() throws(StoreError) -> Int
}

extension DocumentStore {
    /// Deletes one unsynced document, leaving a tombstone revision.
    public func delete(id: String) throws(StoreError) { try delete(ids: [id], evenIfSynced: false) }
}

/// What CouchDB-style replication needs from a store, beyond `DocumentStore`.
/// Both the replicator (FPSync) and the gateway (FPGateway) depend on this
/// protocol only, so neither ever sees GRDB.

/// One entry of a `_changes` feed: the latest change of a document, with every
/// leaf of its revision tree (the winner first), as `style=all_docs` lists them.
public struct ChangeEntry: Sendable, Equatable {
    public var seq: Int64
    public var id: String
    /// The winning revision.
    public var rev: Revision
    public var deleted: Bool
    /// All leaves, winner first (conflicts and deleted branches after it).
    public var leaves: [Revision]

    public init(seq: Int64, id: String, rev: Revision, deleted: Bool, leaves: [Revision]) {
        self.seq = seq
        self.id = id
        self.rev = rev
        self.deleted = deleted
        self.leaves = leaves
    }
}

/// One revision with its ancestry, as `_bulk_docs` with `new_edits:false`
/// carries it and `GET ?revs=true` returns it.
public struct RevisionContent: Sendable, Equatable {
    public var id: String
    public var rev: Revision
    public var deleted: Bool
    /// The body without `_` keys other than `_attachments`. A tombstone keeps
    /// the members it was given (`{"why":…}`), as CouchDB does. A revision
    /// received as text is parsed only if this is read.
    public var body: JSONValue {
        get {
            switch storage {
            case .tree(let value): return value
            case .text(let text, _):
                // `JSONSkim` checked the text, and accepts nothing the parser refuses.
                do { return try JSONParser.parse(text) } catch { preconditionFailure("checked body text: \(error)") }
            }
        }
        set { storage = .tree(newValue) }
    }
    /// The body's text when the revision arrived as text (`received`): the
    /// store keeps it as it is. Its members are in the order the peer sent
    /// them, so it is canonical only when the peer's text was.
    public var bodyText: [UInt8]? {
        if case .text(let text, _) = storage { text } else { nil }
    }
    /// The top-level members of `bodyText` (ranges in it), when the
    /// splitter had them: the store then reads its columns without a scan.
    public var bodyMembers: [JSONSkim.Member]? {
        if case .text(_, let members) = storage { members } else { nil }
    }
    private var storage: Body
    private enum Body: Sendable { case tree(JSONValue), text([UInt8], members: [JSONSkim.Member]?) }
    /// The revision's ancestry, newest first, starting with `rev` itself
    /// (CouchDB's `_revisions`). May be pruned: the oldest entry's parent may be unknown.
    public var history: [Revision]
    /// Bytes of attachments new with this revision, by digest; the body
    /// holds their stubs (`Attachments.stubbing`).
    public var attachmentData: [String: [UInt8]]

    public init(id: String, rev: Revision, deleted: Bool, body: JSONValue, history: [Revision],
                attachmentData: [String: [UInt8]] = [:]) {
        self.id = id
        self.rev = rev
        self.deleted = deleted
        self.storage = .tree(body)
        self.history = history
        self.attachmentData = attachmentData
    }

    /// A revision whose body is `bodyText`, an object's text `JSONSkim`
    /// checked, without `_` keys other than `_attachments` (the store checks
    /// that): stored as it is, without a parse. `members`, if given, are its
    /// top-level members (ranges in it).
    public init(id: String, rev: Revision, deleted: Bool, bodyText: [UInt8], members: [JSONSkim.Member]? = nil,
                history: [Revision], attachmentData: [String: [UInt8]] = [:]) {
        self.id = id
        self.rev = rev
        self.deleted = deleted
        self.storage = .text(bodyText, members: members)
        self.history = history
        self.attachmentData = attachmentData
    }

    public static func == (a: RevisionContent, b: RevisionContent) -> Bool {
        guard a.id == b.id, a.rev == b.rev, a.deleted == b.deleted, a.history == b.history,
              a.attachmentData == b.attachmentData else { return false }
        if let x = a.bodyText, let y = b.bodyText { return x == y }
        return a.body == b.body
    }

    /// CouchDB's `_revisions` object: `{"start": N, "ids": [hash…]}`.
    public var revisionsJSON: JSONValue { Self.revisionsJSON(history, rev: rev) }

    static func revisionsJSON(_ history: [Revision], rev: Revision) -> JSONValue {
        ["start": .int(Int64(history.first?.generation ?? rev.generation)), "ids": .array(history.map { .string($0.hash) })]
    }

    /// Reads `_revisions`; nil if absent or malformed. Consecutive generations
    /// are implied, newest first.
    public static func history(fromRevisions value: JSONValue?) -> [Revision]? {
        guard let object = value?.objectValue, let start64 = object["start"]?.intValue, let start = Int(exactly: start64),
              let ids = object["ids"]?.arrayValue, !ids.isEmpty, start >= ids.count else { return nil }
        var revs: [Revision] = []
        for (offset, id) in ids.enumerated() {
            guard let hash = id.stringValue, !hash.isEmpty else { return nil }
            revs.append(Revision(generation: start - offset, hash: hash))
        }
        return revs
    }
}

/// A stored revision as text: its body exactly as stored, never parsed.
/// Replication moves revisions as text (push, `_bulk_get`), so a revision
/// read from the store goes onto the wire without a parse and a
/// re-serialisation.
public struct RevisionText: Sendable, Equatable {
    public var id: String
    public var rev: Revision
    public var deleted: Bool
    /// Ancestry newest first, starting with `rev` (as in `RevisionContent`).
    public var history: [Revision]
    /// The body's JSON object text (`{}` for tombstones), as stored:
    /// canonical for revisions fprint made, the peer's members in the
    /// peer's order for revisions received (`RevisionContent.received`).
    public var bodyText: String

    public init(id: String, rev: Revision, deleted: Bool, history: [Revision], bodyText: String) {
        self.id = id
        self.rev = rev
        self.deleted = deleted
        self.history = history
        self.bodyText = bodyText
    }

    /// `bodyText` under its earlier name, which the dashboard still uses;
    /// the text is canonical only for revisions fprint made.
    public var canonicalBody: String { bodyText }

    /// The revision as a CouchDB document: `_id`, `_rev`, `_deleted` when
    /// deleted, `_revisions` when asked and any `extra` members (such as
    /// `_conflicts`), spliced in front of the body's own members, which keep
    /// their text and order. The body never holds `_` keys but
    /// `_attachments` (the store refuses them), so the result has no
    /// duplicate keys. Bytes, because that is what every caller puts on the wire.
    public func documentJSON(revisions: Bool, extra: JSONObject = [:]) -> [UInt8] {
        var head = extra
        head["_id"] = .string(id)
        head["_rev"] = .string(rev.description)
        if deleted { head["_deleted"] = true }
        if revisions { head["_revisions"] = RevisionContent.revisionsJSON(history, rev: rev) }
        var out = CanonicalJSON.bytes(.object(head))
        var body = bodyText
        body.withUTF8 { text in
            let members = UnsafeBufferPointer(rebasing: text.dropFirst())  // after the body's "{"
            guard members.first != UInt8(ascii: "}") else { return }
            out.removeLast()  // the head's "}"
            out.reserveCapacity(out.count + members.count + 1)
            out.append(UInt8(ascii: ","))
            out.append(contentsOf: members)
        }
        return out
    }

    /// The parsed form.
    public func content() throws(JSONParseError) -> RevisionContent {
        RevisionContent(id: id, rev: rev, deleted: deleted, body: try CanonicalJSON.parse(bodyText), history: history)
    }
}

/// A row of `_all_docs`.
public struct AllDocsRow: Sendable, Equatable {
    public var id: String
    public var rev: Revision
    public var deleted: Bool
    public init(id: String, rev: Revision, deleted: Bool) {
        self.id = id
        self.rev = rev
        self.deleted = deleted
    }
}

public protocol ReplicableStore: DocumentStore {
    /// The latest change of each document after `since`, in sequence order.
    func changeFeed(since: Int64, limit: Int) throws(StoreError) -> [ChangeEntry]
    /// How many documents changed after `since` (the push's total).
    func changeCount(since: Int64) throws(StoreError) -> Int
    /// The last update sequence handed out (0 when empty).
    func lastSequence() throws(StoreError) -> Int64
    /// How many documents are deleted (CouchDB's `doc_del_count`).
    func deletedCount() throws(StoreError) -> Int
    /// A random id of this database, made at creation (part of the replication id).
    func databaseUUID() throws(StoreError) -> String
    /// For each document id, the revisions of `revs` this store does not have.
    /// Ids with nothing missing are left out (CouchDB's `_revs_diff`).
    func revsDiff(_ revs: [String: [Revision]]) throws(StoreError) -> [String: [Revision]]
    /// Stores revisions made elsewhere, with their ancestry, in one transaction
    /// (`new_edits:false`): no generation check; a revision already present is
    /// skipped; siblings become conflicts; the winner is CouchDB's
    /// deterministic choice. `markSynced` says they came from the gateway.
    func putReplicated(_ revisions: [RevisionContent], markSynced: Bool) throws(StoreError)
    /// A new local edit (`new_edits:true`): `parent` must be the current
    /// winner (nil for a new or deleted document). Returns the new revision.
    /// `attachmentData` holds the bytes of attachments new in this edit (the
    /// body holds their stubs). `attachmentOrder` is the order of the
    /// attachments' names as given (the store keeps it; see AttachmentOrder).
    @discardableResult
    func edit(id: String, body: JSONValue, parent: Revision?, deleted: Bool,
              attachmentData: [String: [UInt8]], attachmentOrder: [String]) throws(StoreError) -> Revision
    /// The bytes of an attachment of `id` by digest; nil when unknown.
    func attachmentBytes(id: String, digest: String) throws -> [UInt8]?
    /// Whether the store has those bytes (without reading them).
    func hasAttachment(id: String, digest: String) throws(StoreError) -> Bool
    /// One revision with its ancestry; nil if unknown or its body was
    /// discarded (it is no longer a leaf).
    func revision(id: String, rev: Revision) throws -> RevisionContent?
    /// The same, with the body as the stored canonical text (unparsed).
    func revisionText(id: String, rev: Revision) throws -> RevisionText?
    /// All leaves of a document, winner first; empty if unknown.
    func leaves(id: String) throws(StoreError) -> [(rev: Revision, deleted: Bool)]
    /// Of these documents, those marked synced: accepted by a gateway, or
    /// received from one. The push signs only documents that are neither.
    func synced(ids: [String]) throws(StoreError) -> Set<String>
    /// Non-winning, non-deleted leaves: the conflicts `fprint show` lists.
    func conflicts(id: String) throws(StoreError) -> [Revision]
    /// `_all_docs` rows in id order (deleted documents left out).
    func allDocs(startKey: String?, endKey: String?, limit: Int?) throws(StoreError) -> [AllDocsRow]
    /// Deletes a `_local` document; false if there was none.
    @discardableResult
    func deleteLocalDocument(id: String) throws(StoreError) -> Bool
}

extension ReplicableStore {
    /// A new local edit without new attachment bytes.
    @discardableResult
    public func edit(id: String, body: JSONValue, parent: Revision?, deleted: Bool) throws(StoreError) -> Revision {
        try edit(id: id, body: body, parent: parent, deleted: deleted, attachmentData: [:], attachmentOrder: [])
    }

    /// A new local edit whose attachments keep their canonical order.
    @discardableResult
    public func edit(id: String, body: JSONValue, parent: Revision?, deleted: Bool,
                     attachmentData: [String: [UInt8]]) throws(StoreError) -> Revision {
        try edit(id: id, body: body, parent: parent, deleted: deleted, attachmentData: attachmentData, attachmentOrder: [])
    }
}

/// CouchDB's winner rule: a live leaf beats a deleted one, then the higher
/// generation, then the greater hash string.
public enum RevisionWinner {
    public static func sorted(_ leaves: [(rev: Revision, deleted: Bool)]) -> [(rev: Revision, deleted: Bool)] {
        leaves.sorted { a, b in
            if a.deleted != b.deleted { return !a.deleted }
            return a.rev > b.rev
        }
    }
}

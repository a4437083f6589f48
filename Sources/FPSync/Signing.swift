import FPCore

extension Replicator {
    /// Signs the unsigned documents among `changes` with the user's id, as
    /// the iOS app did before uploading: documents this store made and never
    /// synced whose `couchbase_sync_gateway_id` is `"-"` or missing (an
    /// imported Android dump has none) get the user's id as a new revision.
    /// A document received from a peer, or once accepted by one, is never
    /// signed. Nothing is stored here: the signed revision goes up with its
    /// batch and is stored once the gateway accepts it (`keepSigned`), so a
    /// refused or failed push leaves the document as it was, unsigned, for
    /// the next user who syncs it. Without a user id an unsigned document
    /// stops the push: nothing is ever pushed without a signer.
    /// Returns each signed revision (canonical text, a child of the change's
    /// revision) by id. Runs inside `storeWork` (it reads the store).
    func signUnsigned(_ changes: [ChangeEntry], damaged: inout [DamagedDocument]) throws -> [String: RevisionText] {
        let live = changes.filter { !$0.deleted }
        guard !live.isEmpty else { return [:] }
        let synced = try store.synced(ids: live.map(\.id))
        var signed: [String: RevisionText] = [:]
        for entry in live where !synced.contains(entry.id) {
            guard let stored = try storeRead(&damaged, { try store.revisionText(id: entry.id, rev: entry.rev) }) else { continue }
            let text: [UInt8]?
            do {
                text = try Self.signedText(Array(stored.bodyText.utf8)) { () throws(SyncError) in
                    guard let userID, !userID.isEmpty else { throw SyncError.noSigner(entry.id) }
                    return userID
                }
            } catch is SigningError {
                let damage = DamagedDocument(id: entry.id, rev: entry.rev.description, reason: "it is not a JSON object")
                if !damaged.contains(damage) { damaged.append(damage) }
                continue
            }
            guard let text else { continue }
            let rev = Revision.next(after: entry.rev, canonicalBody: text)
            signed[entry.id] = RevisionText(id: entry.id, rev: rev, deleted: false, history: [rev] + stored.history,
                                            bodyText: String(decoding: text, as: UTF8.self))
        }
        return signed
    }

    /// The body signed by `owner` as canonical text, or nil when it has a
    /// signer already (`owner` is then never asked). Canonical text (what
    /// fprint stores for what it made) gets the owner's value changed in
    /// place, or its member inserted where the key sorts: no parse, no
    /// rewrite. Other text is signed through its value. Throws
    /// `SigningError` when the body is not an object.
    static func signedText(_ body: [UInt8], owner: () throws(SyncError) -> String) throws -> [UInt8]? {
        let skim = JSONSkim(body)
        guard let node = skim.value(in: 0..<body.count, levels: 1), let members = node.members, node.isCanonical else {
            guard let parsed = try? JSONParser.parse(body), var object = parsed.objectValue else { throw SigningError() }
            guard needsSigner(object[ownerKey]) else { return nil }
            object[ownerKey] = .string(try owner())
            return CanonicalJSON.bytes(.object(object))
        }
        let current = members.first { $0.key == ownerKey }
        if let current, !needsSigner(try? skim.parse(current.value)) { return nil }
        let value = CanonicalJSON.bytes(.string(try owner()))
        if let current { return Array(body[..<current.value.lowerBound]) + value + body[current.value.upperBound...] }
        let member = CanonicalJSON.bytes(.string(ownerKey)) + [UInt8(ascii: ":")] + value
        if let next = members.first(where: { JSONObject.precedes(ownerKey, $0.key) }) {
            return Array(body[..<next.text.lowerBound]) + member + [UInt8(ascii: ",")] + body[next.text.lowerBound...]
        }
        return Array(body.dropLast()) + (members.isEmpty ? [] : [UInt8(ascii: ",")]) + member + [UInt8(ascii: "}")]
    }

    /// Missing, `null` or `"-"`: nobody signed the document yet.
    static func needsSigner(_ owner: JSONValue?) -> Bool {
        guard let owner else { return true }
        return owner == .null || owner == .string(unsigned)
    }

    /// Stores the signed revisions of the documents the gateway accepted,
    /// as children of the revisions they signed, and marks every accepted
    /// document synced: one transaction each. A document edited meanwhile
    /// keeps its edit, and the signed revision becomes a conflict of it, as
    /// it already is on the gateway.
    func keepSigned(_ signed: [RevisionText], synced ids: [String]) throws {
        try store.putReplicated(signed.map { revision in
            RevisionContent(id: revision.id, rev: revision.rev, deleted: false, bodyText: Array(revision.bodyText.utf8),
                            history: revision.history)
        }, markSynced: true)
        try store.markSynced(ids: ids)
    }
}

/// A stored body that is not a JSON object: the document counts as damaged.
struct SigningError: Error {}

import FPCore

extension Replicator {
    /// The documents among `changes` that may need signing, as stored:
    /// documents this store made and never synced. A document received from
    /// a peer, or once accepted by one, is never signed. Runs inside
    /// `storeWork`; `sign` then signs them away from the store.
    func unsignedRevisions(_ changes: [ChangeEntry], damaged: inout [DamagedDocument]) throws -> [RevisionText] {
        let live = changes.filter { !$0.deleted }
        guard !live.isEmpty else { return [] }
        let synced = try store.synced(ids: live.map(\.id))
        var unsigned: [RevisionText] = []
        for entry in live where !synced.contains(entry.id) {
            guard let stored = try storeRead(&damaged, { try store.revisionText(id: entry.id, rev: entry.rev) }) else { continue }
            unsigned.append(stored)
        }
        return unsigned
    }

    /// Signs the unsigned documents with the user's id, as the iOS app did
    /// before uploading: those whose `couchbase_sync_gateway_id` is `"-"`
    /// or missing (an imported Android dump has none) get the user's id as
    /// a new revision. Nothing is stored here: the signed revision goes up
    /// with its batch and is stored once the gateway accepts it
    /// (`keepSigned`), so a refused or failed push leaves the document as it
    /// was, unsigned, for the next user who syncs it. Without a user id an
    /// unsigned document stops the push: nothing is ever pushed without a
    /// signer. Returns each signed revision (canonical text, a child of the
    /// stored revision) by id. The documents are signed on every core.
    func sign(_ unsigned: [RevisionText], damaged: inout [DamagedDocument]) throws(SyncError) -> [String: SignedRevision] {
        enum Outcome: Sendable {
            case signed(SignedRevision)
            case signedAlready
            case noSigner
            case notAnObject
        }
        let userID = userID
        let outcomes = concurrentMap(unsigned) { stored -> Outcome in
            let body: SignedBody?
            do {
                body = try Self.signedBody(Array(stored.bodyText.utf8)) { () throws(SyncError) in
                    guard let userID, !userID.isEmpty else { throw SyncError.noSigner(stored.id) }
                    return userID
                }
            } catch is SigningError {
                return .notAnObject
            } catch {
                return .noSigner
            }
            guard let body else { return .signedAlready }
            let rev = Revision.next(after: stored.rev, canonicalBody: body.text)
            let revision = RevisionText(id: stored.id, rev: rev, deleted: false, history: [rev] + stored.history,
                                        bodyText: String(decoding: body.text, as: UTF8.self))
            return .signed(SignedRevision(revision: revision, members: body.members))
        }
        // In the feed's order: the first document without a signer stops the push.
        var signed: [String: SignedRevision] = [:]
        for (stored, outcome) in zip(unsigned, outcomes) {
            switch outcome {
            case .noSigner:
                throw SyncError.noSigner(stored.id)
            case .notAnObject:
                let damage = DamagedDocument(id: stored.id, rev: stored.rev.description, reason: "it is not a JSON object")
                if !damaged.contains(damage) { damaged.append(damage) }
            case .signedAlready:
                continue
            case .signed(let revision):
                signed[stored.id] = revision
            }
        }
        return signed
    }

    /// The body signed by `owner` as canonical text, or nil when it has a
    /// signer already (`owner` is then never asked). Throws `SigningError`
    /// when the body is not an object.
    static func signedText(_ body: [UInt8], owner: () throws(SyncError) -> String) throws -> [UInt8]? {
        try signedBody(body, owner: owner)?.text
    }

    /// `signedText`, with the members of the signed text when it was made
    /// by splicing: canonical text (what fprint stores for what it made)
    /// gets the owner's value changed in place, or its member inserted where
    /// the key sorts: no parse, no rewrite, and the members found by the
    /// check of the unsigned text, moved by the bytes spliced in, are those
    /// of the signed text (storing it then reads none of it again). Other
    /// text is signed through its value (no members).
    static func signedBody(_ body: [UInt8], owner: () throws(SyncError) -> String) throws -> SignedBody? {
        let skim = JSONSkim(body)
        guard let node = skim.value(in: 0..<body.count, levels: 1), let members = node.members, node.isCanonical else {
            guard let parsed = try? JSONParser.parse(body), var object = parsed.objectValue else { throw SigningError() }
            guard needsSigner(object[ownerKey]) else { return nil }
            object[ownerKey] = .string(try owner())
            return SignedBody(text: CanonicalJSON.bytes(.object(object)), members: nil)
        }
        let current = members.firstIndex { $0.key == ownerKey }
        if let current, !needsSigner(try? skim.parse(members[current].value)) { return nil }
        let value = CanonicalJSON.bytes(.string(try owner()))
        if let current {
            let old = members[current].value
            let text = Array(body[..<old.lowerBound]) + value + body[old.upperBound...]
            let valueRange = old.lowerBound..<(old.lowerBound + value.count)
            var signed = members
            signed[current] = JSONSkim.Member(key: ownerKey, text: members[current].text.lowerBound..<valueRange.upperBound,
                                              node: JSONSkim.Node(value: valueRange, isCanonical: true, count: 0))
            SignedBody.shift(&signed, from: current + 1, by: value.count - old.count)
            return SignedBody(text: text, members: signed)
        }
        let key = CanonicalJSON.bytes(.string(ownerKey)) + [UInt8(ascii: ":")]
        let next = members.firstIndex { JSONObject.precedes(ownerKey, $0.key) }
        // Where the member goes, and what is spliced there: the member and a
        // comma before the next one, or a comma and the member before `}`.
        let at = next.map { members[$0].text.lowerBound } ?? node.value.upperBound - 1
        let comma = next == nil && !members.isEmpty
        let spliced = next != nil ? key + value + [UInt8(ascii: ",")] : (comma ? [UInt8(ascii: ",")] : []) + key + value
        let start = at + (comma ? 1 : 0)
        let member = JSONSkim.Member(key: ownerKey, text: start..<(start + key.count + value.count),
                                     node: JSONSkim.Node(value: (start + key.count)..<(start + key.count + value.count),
                                                         isCanonical: true, count: 0))
        var signed = members
        let index = next ?? members.count
        SignedBody.shift(&signed, from: index, by: spliced.count)
        signed.insert(member, at: index)
        return SignedBody(text: Array(body[..<at]) + spliced + body[at...], members: signed)
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
    func keepSigned(_ signed: [SignedRevision], synced ids: [String]) throws {
        try store.putReplicated(signed.map { signed in
            let revision = signed.revision
            return RevisionContent(id: revision.id, rev: revision.rev, deleted: false,
                                   bodyText: Array(revision.bodyText.utf8), members: signed.members,
                                   history: revision.history)
        }, markSynced: true)
        try store.markSynced(ids: ids)
    }
}

/// A stored body that is not a JSON object: the document counts as damaged.
struct SigningError: Error {}

/// A signed body: its canonical text and, when it was spliced, the members
/// of that text (as `JSONSkim.value(in:levels: 1)` finds them).
struct SignedBody: Sendable {
    var text: [UInt8]
    var members: [JSONSkim.Member]?

    /// Moves the members from `index` on (and anything collected inside
    /// them) by `offset` bytes.
    static func shift(_ members: inout [JSONSkim.Member], from index: Int, by offset: Int) {
        guard offset != 0 else { return }
        for i in members.indices where i >= index {
            members[i].text = (members[i].text.lowerBound + offset)..<(members[i].text.upperBound + offset)
            shift(&members[i].node, by: offset)
        }
    }

    static func shift(_ node: inout JSONSkim.Node, by offset: Int) {
        node.value = (node.value.lowerBound + offset)..<(node.value.upperBound + offset)
        if var members = node.members {
            shift(&members, from: 0, by: offset)
            node.members = members
        }
        if let elements = node.elements {
            node.elements = elements.map { element in
                var element = element
                shift(&element, by: offset)
                return element
            }
        }
    }
}

/// A revision signed for this push, with the members of its text when known.
struct SignedRevision: Sendable {
    var revision: RevisionText
    var members: [JSONSkim.Member]?

    var rev: Revision { revision.rev }
}

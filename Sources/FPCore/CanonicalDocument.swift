extension RevisionContent {
    /// A CouchDB document (`_id`, `_rev`, `_revisions`, `_deleted` beside the
    /// body) whose text is canonical, split without parsing its body: the `_`
    /// members are read on their own and the body is the other members' text
    /// as it came, which is canonical too (still sorted, nothing rewritten).
    ///
    /// nil when this way does not apply: text that is not canonical,
    /// attachments (their bytes become stubs), a `_` member of an odd shape.
    /// Callers then parse the document, which also words any error.
    /// `document` is an element this skim accepted (checked and judged).
    public static func fromCanonical(_ skim: JSONSkim, document: JSONSkim.Element) -> RevisionContent? {
        fromCanonical(skim, document: document, reading: nil)?.content
    }

    /// `fromCanonical(_:document:)`, and the value of the body's member
    /// `key` (parsed alone), for a caller that needs one, such as the signer.
    public static func fromCanonical(_ skim: JSONSkim, document: JSONSkim.Element,
                                     reading key: String?) -> (content: RevisionContent, value: JSONValue?)? {
        var read: JSONValue?
        // The document was checked when its container was: its members, if
        // not collected then, are found by skipping values, not checking them.
        guard document.isCanonical, let members = document.members ?? skim.shallowMembers(of: document.value)
        else { return nil }
        var bodyMembers: [JSONSkim.Member] = []
        bodyMembers.reserveCapacity(members.count)
        var id: String?, rev: Revision?, deleted = false, history: [Revision]?
        var body: [UInt8] = []
        body.reserveCapacity(document.value.count)
        body.append(UInt8(ascii: "{"))
        for member in members {
            guard member.key.hasPrefix("_") else {
                if member.key == key { read = try? skim.parse(member.value) }
                if body.count > 1 { body.append(UInt8(ascii: ",")) }
                // Ranges move from the document's text to the body's.
                let shift = body.count - member.text.lowerBound
                body.append(contentsOf: skim.bytes[member.text])
                bodyMembers.append(JSONSkim.Member(
                    key: member.key, text: (member.text.lowerBound + shift)..<(member.text.upperBound + shift),
                    node: JSONSkim.Node(value: (member.value.lowerBound + shift)..<(member.value.upperBound + shift),
                                        isCanonical: true, count: member.node.count)))
                continue
            }
            guard member.key != "_attachments", let value = try? skim.parse(member.value) else { return nil }
            switch member.key {
            case "_id":
                guard let text = value.stringValue else { return nil }
                id = text
            case "_rev":
                guard let text = value.stringValue, let parsed = Revision(text) else { return nil }
                rev = parsed
            case "_deleted":
                guard let flag = value.boolValue else { return nil }
                deleted = flag
            case "_revisions":
                guard let parsed = RevisionContent.history(fromRevisions: value) else { return nil }
                history = parsed
            default:
                continue  // `_conflicts`, `_local_seq`, …: the protocol's, not the body's
            }
        }
        body.append(UInt8(ascii: "}"))
        guard let id, !id.isEmpty, let rev else { return nil }
        let chain = history ?? [rev]
        guard chain.first == rev else { return nil }
        return (RevisionContent(id: id, rev: rev, deleted: deleted, canonicalBody: body, members: bodyMembers, history: chain),
                read)
    }
}

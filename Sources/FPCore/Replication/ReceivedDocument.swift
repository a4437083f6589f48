extension RevisionContent {
    /// A CouchDB document as a peer sent it (`_id`, `_rev`, `_revisions`,
    /// `_deleted` beside the body), split without rewriting its body: the
    /// body is the other members in the order they came, each with the text
    /// it came with (number text, string escapes, nested members in their
    /// order), only white space between tokens left out. Inline and
    /// multipart (`followed`, by name) attachments become stubs and bytes
    /// (`Attachments.stubbing`, the peer's digests kept), written where
    /// `_attachments` was. This text is what the store keeps and what the
    /// gateway and the push send on: a peer gets its revision back as it
    /// sent it. Only revisions fprint makes are canonical (DESIGN.md §5).
    ///
    /// `document` is a value this skim accepted (checked). nil when this way
    /// does not apply: not an object, a member named twice, a `_` member of
    /// an odd shape; callers then parse the document, which words any error.
    /// `reading` names a body member whose value is parsed on the way (the
    /// signer, for the gateway's check). Throws for attachments that cannot
    /// be taken as given.
    public static func received(_ skim: JSONSkim, document: JSONSkim.Node, reading key: String? = nil,
                                followed: [String: [UInt8]] = [:]) throws(AttachmentError)
        -> (content: RevisionContent, value: JSONValue?)?
    {
        guard skim.bytes.indices.contains(document.value.lowerBound),
              skim.bytes[document.value.lowerBound] == UInt8(ascii: "{"),
              let members = document.members ?? skim.shallowMembers(of: document.value),
              Set(members.map(\.key)).count == members.count
        else { return nil }
        // The protocol's members first.
        var id: String?, rev: Revision?, deleted = false, history: [Revision]?, attachments: JSONValue?
        var order: [String] = []
        for member in members where member.key.hasPrefix("_") {
            guard let value = try? skim.parse(member.value) else { return nil }
            switch member.key {
            case "_id":
                guard let text = value.stringValue, !text.isEmpty else { return nil }
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
            case "_attachments":
                attachments = value
                order = Attachments.order(skim, member.value)
            default:
                continue  // `_conflicts`, `_local_seq`, …: the protocol's, not the body's
            }
        }
        guard let id, let rev else { return nil }
        let chain = history ?? [rev]
        guard chain.first == rev else { return nil }
        var stubbed = Attachments.Stubbed(body: [:], data: [:])
        if let attachments {
            stubbed = try Attachments.stubbing(["_attachments": attachments], revpos: 0, keepDigests: true,
                                               followed: followed)
        }

        var read: JSONValue?
        var body: [UInt8] = [UInt8(ascii: "{")]
        body.reserveCapacity(document.value.count)
        var bodyMembers: [JSONSkim.Member] = []
        bodyMembers.reserveCapacity(members.count)
        for member in members where !member.key.hasPrefix("_") || member.key == "_attachments" {
            if body.count > 1 { body.append(UInt8(ascii: ",")) }
            let start = body.count
            let valueStart: Int
            if member.key == "_attachments" {
                // Spelled as readers search for it, with the stubs the store keeps, in the peer's order.
                body += Attachments.key
                valueStart = body.count
                Attachments.write(stubbed.body["_attachments"] ?? [:], order: order, into: &body)
            } else {
                // The key as it came (escapes and all), then its value without white space.
                body += skim.bytes[member.text.lowerBound..<Self.keyEnd(skim.bytes, member)]
                body.append(UInt8(ascii: ":"))
                valueStart = body.count
                if member.key == key { read = try? skim.parse(member.value) }
                if member.node.isCanonical {
                    body += skim.bytes[member.value]
                } else {
                    Self.appendWithoutSpace(skim.bytes[member.value], to: &body)
                }
            }
            bodyMembers.append(JSONSkim.Member(
                key: member.key, text: start..<body.count,
                node: JSONSkim.Node(value: valueStart..<body.count, isCanonical: false, count: member.node.count)))
        }
        body.append(UInt8(ascii: "}"))
        var content = RevisionContent(id: id, rev: rev, deleted: deleted, bodyText: body, members: bodyMembers,
                                      history: chain)
        content.attachmentData = stubbed.data
        return (content, read)
    }

    /// Where a member's key text ends (after its closing quote): the text
    /// between the key and the value is white space and one colon.
    static func keyEnd(_ bytes: [UInt8], _ member: JSONSkim.Member) -> Int {
        var end = member.value.lowerBound
        while end > member.text.lowerBound, bytes[end - 1] != UInt8(ascii: ":") { end -= 1 }
        end -= 1
        while end > member.text.lowerBound, JSONSkim.isSpace(bytes[end - 1]) { end -= 1 }
        return end
    }

    /// Checked JSON text without the white space between its tokens; strings
    /// are copied as they are.
    static func appendWithoutSpace(_ text: ArraySlice<UInt8>, to out: inout [UInt8]) {
        var inString = false, escaped = false
        for byte in text {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if JSONSkim.isSpace(byte) {
                continue
            }
            out.append(byte)
        }
    }
}

extension JSONSkim {
    /// JSON's white space between tokens.
    @inline(__always)
    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }
}

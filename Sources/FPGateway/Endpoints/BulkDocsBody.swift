import FPCore

/// The documents of a `_bulk_docs` body. Replicated revisions
/// (`new_edits:false`) whose text is canonical, as fprint's own push sends
/// them, are split without a parse (`RevisionContent.fromCanonical`) and
/// stored as they came; anything else is parsed, one document at a time.
enum BulkDocsBody {
    enum Document {
        /// A replicated revision as canonical text, with its body's signer.
        case canonical(RevisionContent, owner: String?)
        case parsed(JSONValue)
    }

    static func read(_ request: CouchRequest) throws -> (docs: [Document], newEdits: Bool) {
        let skim = JSONSkim([UInt8](request.body))
        // The body's own members are found without a check; each one used is
        // checked on its own (the documents in one pass), the rest must parse.
        guard let members = skim.shallowMembers(of: 0..<skim.bytes.count) else {
            // Broken or unusual text: the parser's path, which words the error.
            return try parsed(request.json())
        }
        var newEdits = true
        var docs: [JSONSkim.Element]?
        for member in members {
            switch member.key {
            case "docs":
                docs = skim.elements(of: member.value)
                if docs == nil, skim.value(in: member.value) == nil { return try parsed(request.json()) }
            default:
                guard let value = try? skim.parse(member.value) else { return try parsed(request.json()) }
                if member.key == "new_edits" { newEdits = value.boolValue ?? true }
            }
        }
        guard let docs else { throw CouchError.badRequest("POST body must include `docs` parameter.") }
        return (try docs.map { element in
            if !newEdits, let (content, owner) = RevisionContent.fromCanonical(skim, document: element,
                                                                             reading: CouchHandler.ownerKey) {
                return .canonical(content, owner: owner?.stringValue)
            }
            return .parsed(try skim.parse(element.value))
        }, newEdits)
    }

    static func parsed(_ body: JSONValue) throws -> (docs: [Document], newEdits: Bool) {
        guard let docs = body["docs"]?.arrayValue else { throw CouchError.badRequest("POST body must include `docs` parameter.") }
        return (docs.map { .parsed($0) }, body["new_edits"]?.boolValue ?? true)
    }
}

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

        /// The document's id, where it has one.
        var id: String? {
            switch self {
            case .canonical(let content, _): content.id
            case .parsed(let value): value["_id"]?.stringValue
            }
        }
    }

    static func read(_ request: CouchRequest) throws -> (docs: [Document], newEdits: Bool) {
        let skim = JSONSkim([UInt8](request.body))
        // One checking pass, collecting the body's members, the documents
        // and each document's members.
        guard let root = skim.value(in: 0..<skim.bytes.count, levels: 3), root.members != nil else {
            // Broken or unusual text (or not an object): the parser's path, which words the error.
            return try parsed(request.json())
        }
        let newEdits = (try root["new_edits"].map { try skim.parse($0.value) })?.boolValue ?? true
        guard let docs = root["docs"]?.elements else { throw CouchError.badRequest("POST body must include `docs` parameter.") }
        return (try docs.map { node in
            if !newEdits, let (content, owner) = RevisionContent.fromCanonical(skim, document: node,
                                                                             reading: CouchHandler.ownerKey) {
                return .canonical(content, owner: owner?.stringValue)
            }
            return .parsed(try skim.parse(node.value))
        }, newEdits)
    }

    static func parsed(_ body: JSONValue) throws -> (docs: [Document], newEdits: Bool) {
        guard let docs = body["docs"]?.arrayValue else { throw CouchError.badRequest("POST body must include `docs` parameter.") }
        return (docs.map { .parsed($0) }, body["new_edits"]?.boolValue ?? true)
    }
}

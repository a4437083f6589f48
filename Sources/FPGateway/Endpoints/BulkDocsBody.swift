import FPCore

/// The documents of a `_bulk_docs` body. Replicated revisions
/// (`new_edits:false`) are split from their text as it came
/// (`RevisionContent.received`): stored without a parse, members in the
/// peer's order; anything else is parsed, one document at a time.
enum BulkDocsBody {
    enum Document {
        /// A replicated revision as the text it came as, with its body's signer.
        case received(RevisionContent, owner: String?)
        /// With its attachments' names in the order its text gives them.
        case parsed(JSONValue, attachmentOrder: [String])
        /// A replicated revision refused as it is read (an attachment that
        /// cannot be taken as given): its own entry in the answer.
        case refused(id: String, CouchError)

        /// The document's id, where it has one.
        var id: String? {
            switch self {
            case .received(let content, _): content.id
            case .parsed(let value, _): value["_id"]?.stringValue
            case .refused(let id, _): id
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
        return (try docs.map { node -> Document in
            // An id the store cannot keep exactly is refused in its own entry.
            if let id = node["_id"].flatMap({ try? skim.parse($0.value) })?.stringValue,
               let refusal = DocumentIDs.refusal(id, "document id") {
                return .refused(id: id, refusal)
            }
            if !newEdits {
                do {
                    if let (content, owner) = try RevisionContent.received(skim, document: node, reading: CouchHandler.ownerKey) {
                        return .received(content, owner: owner?.stringValue)
                    }
                } catch {
                    let id = node["_id"].flatMap { try? skim.parse($0.value) }?.stringValue ?? "?"
                    return .refused(id: id, .badRequest("document \(id): \(error)"))
                }
            }
            let order = node["_attachments"].map { Attachments.order(skim, $0.value) } ?? []
            return .parsed(try skim.parse(node.value), attachmentOrder: order)
        }, newEdits)
    }

    static func parsed(_ body: JSONValue) throws -> (docs: [Document], newEdits: Bool) {
        guard let docs = body["docs"]?.arrayValue else { throw CouchError.badRequest("POST body must include `docs` parameter.") }
        return (docs.map { doc in
            if let id = doc["_id"]?.stringValue, let refusal = DocumentIDs.refusal(id, "document id") {
                return .refused(id: id, refusal)
            }
            return .parsed(doc, attachmentOrder: [])
        }, body["new_edits"]?.boolValue ?? true)
    }
}

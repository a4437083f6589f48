import FPCore
import Foundation
import HTTPTypes

/// `_all_docs`: every document's winning revision by id, by key range or by
/// a list of keys; streamed, so `include_docs=true` holds one batch of rows
/// (`RowBatch`) at a time: with `attachments=true` (bytes inline) a batch
/// ends past 1 MiB and is held within the body budget, so an answer holds
/// about one large document at a time.
extension CouchHandler {
    func allDocs(_ request: CouchRequest) throws -> Reply {
        func jsonString(_ name: String) throws -> String? {
            guard let text = request.query[name] else { return nil }
            guard let value = try? CanonicalJSON.parse(text), let s = value.stringValue else {
                throw CouchError.badRequest("\(name) must be a JSON string")
            }
            return s
        }
        let includeDocs = request.flag("include_docs")
        // CouchDB inlines the bytes (`data`) of the included documents' attachments on request.
        let attachments = includeDocs && request.flag("attachments")
        var keys: [String]?
        if let text = request.query["keys"] {
            guard let array = (try? CanonicalJSON.parse(text))?.arrayValue else { throw CouchError.badRequest("keys must be a JSON array") }
            keys = array.compactMap(\.stringValue)
        }
        if request.method == .post {
            guard let array = try request.json()["keys"]?.arrayValue else { throw CouchError.badRequest("`keys` body member must be an array.") }
            keys = array.compactMap(\.stringValue)
        }
        if let keys {
            try Self.checkIDCount(keys.count, "_all_docs keys")
            try DocumentIDs.check(keys, "an _all_docs key")
        }
        var limit: Int?
        if let text = request.query["limit"] {
            guard let value = Int(text), value >= 0 else { throw CouchError.badRequest("limit must be a non-negative integer") }
            limit = value
        }
        let total = try store.count()
        // Rows are (id, revision, deleted) or a key that was not found (nil).
        var rows: [(key: String, row: AllDocsRow?)] = []
        if let keys {
            for key in keys.prefix(limit ?? Int.max) {
                let leaf = try store.leaves(id: key).first
                rows.append((key, leaf.map { AllDocsRow(id: key, rev: $0.rev, deleted: $0.deleted) }))
            }
        } else {
            let start = try jsonString("startkey") ?? jsonString("start_key")
            let end = try jsonString("endkey") ?? jsonString("end_key")
            rows = try store.allDocs(startKey: start, endKey: end, limit: limit).map { ($0.id, $0) }
        }
        let (store, budget) = (self.store, self.budget)
        let found = rows
        return .stream(.ok) { out in
            try await out.append(#"{"total_rows":\#(total),"offset":0,"rows":["#)
            try await out.appendRows(found, budget: budget) { item in
                guard let row = item.row else {
                    return CanonicalJSON.bytes(["key": .string(item.key), "error": "not_found"])
                }
                var value: JSONValue = ["rev": .string(row.rev.description)]
                if row.deleted { value["deleted"] = true }
                var bytes = CanonicalJSON.bytes(["id": .string(row.id), "key": .string(row.id), "value": value])
                if includeDocs {
                    bytes.removeLast()
                    bytes += Array(#","doc":"#.utf8)
                    do {
                        if !row.deleted, let stored = try store.revisionText(id: row.id, rev: row.rev) {
                            bytes += try Self.documentBytes(store, stored, revs: false, attachments: attachments)
                        } else {
                            bytes += Array("null".utf8)
                        }
                    } catch let damage as DamagedDocument {
                        // Every intact document still goes out; this one says why it cannot.
                        bytes += Array(#"null,"error":"#.utf8)
                        CanonicalJSON.write(CouchError.damagedEntry(damage), into: &bytes)
                    }
                    bytes.append(UInt8(ascii: "}"))
                }
                return bytes
            }
            try await out.append("]}")
        }
    }
}

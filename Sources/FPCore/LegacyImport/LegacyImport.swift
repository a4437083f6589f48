import Foundation

/// Reads measurement documents written by the earlier apps (iOS Radio F-Prints,
/// the Android collector, CouchDB dumps of their gateway) and normalises them
/// to fprint's contract without losing anything:
/// - numbers stored as strings become JSON numbers;
/// - local-time strings become ISO-8601 UTC with ms, the original kept under `legacy`;
/// - BLE `uuid` (iOS peripheral id) or `bssid` becomes `address`, Wi-Fi `bssid` becomes `mac`;
/// - `_rev` of a dump is kept under `legacy._rev`; unknown keys are kept as they are.
public enum LegacyImport {
    public enum Format: String, Sendable { case json, jsonl, couchAllDocs = "couchdb-all-docs", couchView = "couch-view" }

    public struct Parsed: Sendable {
        public var format: Format
        public var documents: [NewDocument]
        /// Design documents and rows without a document body that were passed over.
        public var skipped: Int
    }

    public struct ImportError: Error, CustomStringConvertible, Equatable {
        public let description: String
        init(_ d: String) { description = d }
    }

    /// Parses a whole file. `source` names it in errors; `timeZone` is what local
    /// times in old documents are taken to be in.
    public static func parse(_ data: Data, source: String, timeZone: TimeZone = .current,
                             importedAt: Date = Date()) throws(ImportError) -> Parsed {
        var raw: [(id: String?, value: JSONValue, path: String)] = []
        var format = Format.json
        var skipped = 0
        let parsedWhole = Result { () throws(JSONParseError) in try JSONParser.parse([UInt8](data)) }
        if case .success(let whole) = parsedWhole {
            switch whole {
            case _ where whole.objectValue?["rows"] != nil || Self.areCouchRows(whole):
                // A dump's `rows`, or the rows array alone, copied out of one.
                let prefix = whole.arrayValue == nil ? "$.rows" : "$"
                guard case .array(let rows)? = whole.arrayValue == nil ? whole["rows"] : whole else {
                    throw ImportError("\(source): $.rows: expected an array")
                }
                format = rows.contains { $0["doc"] != nil } ? .couchAllDocs : .couchView
                for (i, row) in rows.enumerated() {
                    guard case .object = row else { throw ImportError("\(source): \(prefix)[\(i)]: expected an object") }
                    let id = row["id"]?.stringValue
                    // `_all_docs` rows carry the body under `doc` (null when deleted); views under `value`.
                    let body = format == .couchAllDocs ? row["doc"] : row["value"]
                    if let body, case .object = body {
                        raw.append((id, body, "\(prefix)[\(i)].\(format == .couchAllDocs ? "doc" : "value")"))
                    } else {
                        skipped += 1  // a deleted row, or `_all_docs` without include_docs
                    }
                }
            case .object:
                raw.append((nil, whole, "$"))
            case .array(let items):
                for (i, item) in items.enumerated() { raw.append((nil, item, "$[\(i)]")) }
            default:
                throw ImportError("\(source): $: expected a document, an array of documents or a CouchDB dump")
            }
        } else {
            format = .jsonl
            let text = String(decoding: data, as: UTF8.self)
            for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
                if trimmed.isEmpty { continue }
                do throws(JSONParseError) {
                    raw.append((nil, try JSONParser.parse(Array(trimmed.utf8)), "line \(n + 1)"))
                } catch {
                    // A first line that is no document alone: one JSON document
                    // spread over lines, whose own error says where it breaks.
                    if raw.isEmpty, case .failure(let whole) = parsedWhole {
                        throw ImportError("\(source): line \(whole.line), column \(whole.column): not valid JSON (\(whole.reason))")
                    }
                    throw ImportError("\(source): line \(n + 1), column \(error.column): not valid JSON (\(error.reason))")
                }
            }
            if raw.isEmpty { throw ImportError("\(source): no documents found") }
        }

        var documents: [NewDocument] = []
        let stamp = Self.stamp(format, source: source, at: importedAt)
        for entry in raw {
            if let document = try Self.document(entry.value, rowID: entry.id, path: "\(source): \(entry.path)",
                                                timeZone: timeZone, stamp: stamp) {
                documents.append(document)
            } else {
                skipped += 1
            }
        }
        return Parsed(format: format, documents: documents, skipped: skipped)
    }

    /// The `imported` member documents of one file get.
    static func stamp(_ format: Format, source: String, at importedAt: Date) -> JSONValue {
        ["format": .string(format.rawValue), "file": .string(source), "at": .string(ISOTime.string(importedAt))]
    }

    /// One document of a file in fprint's contract; nil for a design
    /// document (passed over). `rowID` is a dump row's `id`, used when the
    /// document has no `_id`.
    static func document(_ value: JSONValue, rowID: String?, path: String, timeZone: TimeZone,
                         stamp: JSONValue) throws(ImportError) -> NewDocument? {
        guard case .object(var doc) = value else {
            throw ImportError("\(path): expected an object")
        }
        var id = doc["_id"]?.stringValue ?? rowID
        if id?.hasPrefix("_design/") == true { return nil }
        if id == nil || id?.isEmpty == true { id = UUID().uuidString.lowercased() }
        var legacy: JSONObject = doc["legacy"]?.objectValue ?? [:]
        if let rev = doc["_rev"] { legacy["_rev"] = rev }
        for key in ["_id", "_rev", "_revisions", "_conflicts", "_deleted_conflicts", "_local_seq"] { doc[key] = nil }
        // Documents already in fprint's contract (written by fprint, schemaVersion ≥ 1, or
        // imported before) that need no conversion come back unchanged, so
        // `fprint export` → `fprint import` round-trips to identical bodies.
        let normalised = (doc["schemaVersion"]?.intValue ?? 0) >= 1 || doc["imported"] != nil
        let legacyBefore = doc["legacy"]?.objectValue ?? [:]
        try normalize(&doc, legacy: &legacy, timeZone: timeZone, path: path)
        if !normalised { addTimes(&doc) }
        try checkUsable(doc, path: path)
        if !legacy.isEmpty { doc["legacy"] = .object(legacy) }
        if !(normalised && legacy == legacyBefore) { doc["imported"] = stamp }
        // Inline attachments (a rescue file, a CouchDB dump with attachments=true) become stubs and bytes.
        let stubbed: Attachments.Stubbed
        do {
            stubbed = try Attachments.stubbing(.object(doc), revpos: 1, keepDigests: true)
        } catch {
            throw ImportError("\(path): \(error)")
        }
        return NewDocument(id: id ?? "", body: stubbed.body, attachmentData: stubbed.data)
    }

    // Keys whose values are numbers in the contract, by list.
    static let topNumbers: Set<String> = [
        "x", "y", "batteryLevel", "gyroX", "gyroY", "gyroZ", "magX", "magY", "magZ", "accX", "accY", "accZ",
        "durationMs", "seq",
    ]
    /// Each list's keys in sorted order (the first bad value named is the first by name).
    static let listNumbers: [String: [String]] = [
        "bleScans": ["rssi", "time", "txPower"],
        "wifiScans": ["channel", "frequency", "rssi", "time"],
        "cellScans": ["cid", "lac", "psc", "rssi", "time"],
        "geolocation": ["accuracy", "alt", "lat", "long", "time"],
    ]
    static let timeKeys = ["startTime", "endTime", "createdAt"]

    static func normalize(_ doc: inout JSONObject, legacy: inout JSONObject, timeZone: TimeZone,
                          path: String) throws(ImportError) {
        for key in topNumbers { if let v = doc[key], let n = number(v) { doc[key] = n } }
        for key in timeKeys {
            guard let v = doc[key] else { continue }
            if case .string(let s) = v, ISOTime.isCanonical(s) { continue }
            guard let ms = LegacyTime.milliseconds(v, timeZone: timeZone) else {
                throw ImportError("\(path).\(key): cannot read the time \(CanonicalJSON.string(v))")
            }
            legacy[key] = v
            doc[key] = .string(ISOTime.string(millisecondsSince1970: ms))
        }
        for (list, keys) in listNumbers {
            guard let value = doc[list] else { continue }
            guard case .array(var items) = value else {
                if value.isNull { doc[list] = .array([]); continue }
                throw ImportError("\(path).\(list): expected an array")
            }
            for i in items.indices {
                guard case .object(var item) = items[i] else {
                    throw ImportError("\(path).\(list)[\(i)]: expected an object")
                }
                // Only text turns into a number: one look at each member, no lookups.
                for member in item.members {
                    guard case .string = member.value, keys.contains(member.key), let n = number(member.value) else { continue }
                    item[member.key] = n
                }
                switch list {
                case "bleScans":
                    if item["address"] == nil, let uuid = item["uuid"] {
                        item["address"] = uuid
                        item["uuid"] = nil
                        if item["addressType"] == nil { item["addressType"] = "ios-peripheral-uuid" }
                    } else if item["address"] == nil, let bssid = item["bssid"] {
                        item["address"] = bssid
                        item["bssid"] = nil
                    }
                case "wifiScans":
                    if item["mac"] == nil, let bssid = item["bssid"] {
                        item["mac"] = bssid
                        item["bssid"] = nil
                    }
                default: break
                }
                items[i] = .object(item)
            }
            doc[list] = .array(items)
        }
        if doc["mode"] == nil { doc["mode"] = doc["sessionId"] == nil ? "static" : "walk" }
        if doc["schemaVersion"] == nil { doc["schemaVersion"] = 0 }  // 0: written before fprint
    }

    /// What eval and locate need of a stored measurement: a whole-number map
    /// position, and numbers where the contract has them. A file failing it
    /// is refused whole, naming the first bad value.
    static func checkUsable(_ doc: JSONObject, path: String) throws(ImportError) {
        for key in ["x", "y"] {
            guard let value = doc[key] else { throw ImportError("\(path).\(key): missing (a measurement needs its map position)") }
            guard let number = value.doubleValue, number.rounded() == number else {
                throw ImportError("\(path).\(key): expected a whole number of map units, found \(CanonicalJSON.string(value))")
            }
        }
        for (list, keys) in listNumbers {
            for (i, item) in (doc[list]?.arrayValue ?? []).enumerated() {
                // Members come in key order, as `keys` do: the first bad one is named.
                for member in item.objectValue?.members ?? [] {
                    let value = member.value
                    guard !value.isNull, value.doubleValue == nil, keys.contains(member.key) else { continue }
                    throw ImportError("\(path).\(list)[\(i)].\(member.key): expected a number, found \(CanonicalJSON.string(value))")
                }
            }
        }
    }

    /// An array whose every element is a CouchDB row (`id` with `value` or `doc`, no `_id`).
    static func areCouchRows(_ value: JSONValue) -> Bool {
        guard let items = value.arrayValue, !items.isEmpty else { return false }
        return items.allSatisfy { item in
            item["_id"] == nil && item["id"]?.stringValue != nil && (item["value"] != nil || item["doc"] != nil)
        }
    }

    /// A number, or a string that holds exactly one; nil leaves the value alone.
    static func number(_ v: JSONValue) -> JSONValue? {
        guard case .string(let s) = v else { return nil }
        let t = s.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: ",", with: ".")
        if let i = Int64(t) { return .int(i) }
        if let d = Double(t), d.isFinite { return .double(d) }
        return nil
    }
}

/// Time formats seen in the old apps' documents.
enum LegacyTime {
    static let patterns = [
        "yyyy-MM-dd HH:mm:ss.SSS", "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd'T'HH:mm:ss.SSS", "yyyy-MM-dd'T'HH:mm:ss",
        "dd.MM.yyyy HH:mm:ss", "d. M. yyyy H:mm:ss", "yyyy/MM/dd HH:mm:ss", "MM/dd/yyyy HH:mm:ss",
    ]

    static func milliseconds(_ v: JSONValue, timeZone: TimeZone) -> Int64? {
        switch v {
        case .int(let i): return i > 100_000_000_000 ? i : i * 1000  // epoch ms or epoch s
        case .double(let d): return d > 1e11 ? Int64(d) : Int64(d * 1000)
        case .numberText: return v.doubleValue.flatMap { milliseconds(.double($0), timeZone: timeZone) }
        case .string(let s):
            if let n = LegacyImport.number(v) { return milliseconds(n, timeZone: timeZone) }
            if let ms = ISOTime.milliseconds(s) { return ms }  // ISO with an offset
            let f = DateFormatter()
            f.locale = Locale(identifier: "en_US_POSIX")
            f.timeZone = timeZone
            for p in patterns {
                f.dateFormat = p
                if let d = f.date(from: s) { return Int64((d.timeIntervalSince1970 * 1000).rounded()) }
            }
            return nil
        default: return nil
        }
    }
}

extension ISOTime {
    /// True for fprint's own form: `YYYY-MM-DDTHH:MM:SS.mmmZ`.
    public static func isCanonical(_ s: String) -> Bool {
        let b = Array(s.utf8)
        guard b.count == 24, b[23] == UInt8(ascii: "Z"), b[10] == UInt8(ascii: "T"), b[19] == UInt8(ascii: ".") else {
            return false
        }
        return milliseconds(s) != nil
    }
}

import Foundation

extension LegacyImport {
    /// A file's documents, found by where their text is and converted one at
    /// a time (`document(at:)`, from any thread), so that a large dump is
    /// never held as one tree of values: a couch-view file or CouchDB dump of
    /// 100 MB took ~600 MB that way. `{"rows":[…]}` files and JSON lines are
    /// read like this; other shapes (one document, an array of them) are
    /// parsed whole by `parse`, with the same results and errors.
    public struct Source: Sendable {
        public let format: Format
        /// Rows passed over while the file was read whole (rows without a
        /// body or design documents met later answer nil from `document(at:)`).
        public let skipped: Int
        let data: Data
        let source: String
        let timeZone: TimeZone
        let stamp: JSONValue
        let entries: Entries

        enum Entries: Sendable {
            /// `$.rows[i]`: byte ranges of the rows.
            case rows([Range<Int>])
            /// Non-empty lines, trimmed, with their 1-based numbers.
            case lines([(range: Range<Int>, number: Int)])
            case whole([NewDocument])
        }

        /// How many entries `document(at:)` takes.
        public var count: Int {
            switch entries {
            case .rows(let r): r.count
            case .lines(let l): l.count
            case .whole(let d): d.count
            }
        }

        public init(_ data: Data, source: String, timeZone: TimeZone = .current, importedAt: Date = Date())
            throws(ImportError)
        {
            self.data = data
            self.source = source
            self.timeZone = timeZone
            let found = data.withUnsafeBytes { raw in Self.find(raw.bindMemory(to: UInt8.self)) }
            if let found {
                format = found.format
                entries = found.entries
                skipped = 0
            } else {
                let parsed = try LegacyImport.parse(data, source: source, timeZone: timeZone, importedAt: importedAt)
                format = parsed.format
                entries = .whole(parsed.documents)
                skipped = parsed.skipped
            }
            stamp = LegacyImport.stamp(format, source: source, at: importedAt)
        }

        /// The `i`th document in contract form; nil when passed over (a row
        /// without a body, a design document).
        public func document(at i: Int) throws(ImportError) -> NewDocument? {
            switch entries {
            case .whole(let documents):
                return documents[i]
            case .rows(let rows):
                if let unchanged = contractRow(rows[i]) { return unchanged }
                let value = try parse(rows[i]) { e in ImportError("\(source): $.rows[\(i)]: not valid JSON (\(e.reason))") }
                guard case .object = value else { throw ImportError("\(source): $.rows[\(i)]: expected an object") }
                let key = format == .couchAllDocs ? "doc" : "value"
                // `_all_docs` rows carry the body under `doc` (null when deleted); views under `value`.
                guard let body = value[key], case .object = body else { return nil }
                return try LegacyImport.document(body, rowID: value["id"]?.stringValue, path: "\(source): $.rows[\(i)].\(key)",
                                                 timeZone: timeZone, stamp: stamp)
            case .lines(let lines):
                let line = lines[i]
                let copied = data.withUnsafeBytes { raw in
                    Line(copying: UnsafeBufferPointer(rebasing: raw.bindMemory(to: UInt8.self)[line.range]), number: line.number)
                }
                if let unchanged = LegacyImport.contractDocument(copied) {
                    return unchanged
                }
                // Every line was skimmed already, and what the skim accepts the parser does.
                let value = try parse(line.range) { e in
                    ImportError("\(source): line \(line.number), column \(e.column): not valid JSON (\(e.reason))")
                }
                return try LegacyImport.document(value, rowID: nil, path: "\(source): line \(line.number)",
                                                 timeZone: timeZone, stamp: stamp)
            }
        }

        /// A row whose body is already in the contract, stored as its text
        /// (`contractDocument`); nil for anything else, even a row the
        /// converting path reads (an id with escapes, a member named twice).
        private func contractRow(_ row: Range<Int>) -> NewDocument? {
            let bodyKey = format == .couchAllDocs ? "doc" : "value"
            return data.withUnsafeBytes { raw -> NewDocument? in
                // Refused before the row's members are skimmed (`contractDocument` checks the body again).
                guard LegacyImport.namesSchemaVersion(UnsafeRawBufferPointer(rebasing: raw[row])) else { return nil }
                let bytes = raw.bindMemory(to: UInt8.self)
                // The row's other members are checked as the parser would
                // read them; the body is checked by `contractDocument`.
                var id: Range<Int>?, body: Range<Int>?, keys: [[UInt8]] = []
                guard JSONSkim.forEachMember(in: bytes, of: row, { key, value in
                    guard !keys.contains(where: { $0.elementsEqual(key) }) else { return false }
                    keys.append(Array(key))
                    if key.elementsEqual(bodyKey.utf8) {
                        body = value
                        return true
                    }
                    if key.elementsEqual("id".utf8) { id = value }
                    return JSONSkim.isValue(bytes, in: value)
                }), let body, bytes[body.lowerBound] == UInt8(ascii: "{") else { return nil }
                var rowID: String?
                if let id {
                    guard let plain = LegacyImport.plainString(bytes, id) else { return nil }
                    rowID = plain
                }
                return LegacyImport.contractDocument([UInt8](bytes[body]), rowID: rowID)
            }
        }

        private func parse(_ range: Range<Int>, _ failure: (JSONParseError) -> ImportError) throws(ImportError) -> JSONValue {
            do {
                return try JSONParser.parse(data.withUnsafeBytes { [UInt8]($0[range]) })
            } catch {
                throw failure(error)
            }
        }

        /// Rows or lines, when the file is one of those shapes for sure; nil:
        /// read it whole.
        static func find(_ bytes: UnsafeBufferPointer<UInt8>) -> (format: Format, entries: Entries)? {
            // Each row is parsed on its own later; the rest of the file is
            // checked here (one pass less over a large file than checking it whole).
            var rows: Range<Int>?
            let object = JSONSkim.forEachMember(in: bytes, of: 0..<bytes.count) { key, value in
                if key.elementsEqual("rows".utf8) {
                    guard rows == nil else { return false }  // twice: the whole reading decides
                    rows = value
                    return true
                }
                return JSONSkim.isValue(bytes, in: value)
            }
            if object {
                guard let rows else { return nil }
                var ranges: [Range<Int>] = []
                var allDocs = false
                // A row that is no object, like any other fault the whole reading
                // finds before converting a document, is left to it: errors
                // come in the same order.
                guard JSONSkim.forEachElement(in: bytes, of: rows, { row in
                    guard bytes[row.lowerBound] == UInt8(ascii: "{") else { return false }
                    ranges.append(row)
                    if !allDocs {
                        _ = JSONSkim.forEachMember(in: bytes, of: row) { key, _ in
                            if key.elementsEqual("doc".utf8) { allDocs = true }
                            return !allDocs
                        }
                    }
                    return true
                }) else { return nil }  // not an array: the whole reading says so
                return (allDocs ? .couchAllDocs : .couchView, .rows(ranges))
            }
            // JSON lines: at least two lines, each one value.
            var lines: [(range: Range<Int>, number: Int)] = []
            var start = 0, number = 1
            while start < bytes.count {
                var end = start
                while end < bytes.count && bytes[end] != UInt8(ascii: "\n") { end += 1 }
                var a = start, b = end
                while a < b && isSpace(bytes[a]) { a += 1 }
                while b > a && isSpace(bytes[b - 1]) { b -= 1 }
                if a < b { lines.append((a..<b, number)) }
                start = end + 1
                number += 1
            }
            guard lines.count >= 2, lines.allSatisfy({ JSONSkim.isValue(bytes, in: $0.range) }) else { return nil }
            return (.jsonl, .lines(lines))
        }

        static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0D || b == 0x0A }
    }
}

/// The order of a document's attachments. CouchDB 3.5 keeps `_attachments`
/// in the order the writer gave them (a standalone attachment PUT puts its
/// one first) and answers in that order everywhere; `JSONObject` sorts its
/// members, so the order travels beside the value, read from the text it
/// came as, and is written where `_attachments` is.
extension Attachments {
    /// The names of `_attachments` in the order the document text gives
    /// them; empty when it has none or is not an object.
    public static func order(inDocument text: [UInt8]) -> [String] {
        var start = 0, end = text.count
        while start < end, JSONSkim.isSpace(text[start]) { start += 1 }
        while end > start, JSONSkim.isSpace(text[end - 1]) { end -= 1 }
        let skim = JSONSkim(text)
        // Of a member named twice the last counts, as in the parser.
        guard let member = skim.shallowMembers(of: start..<end)?.last(where: { $0.key == "_attachments" }) else {
            return []
        }
        return order(skim, member.value)
    }

    /// The member names of the `_attachments` value at `range` of a skim, in text order.
    public static func order(_ skim: JSONSkim, _ range: Range<Int>) -> [String] {
        skim.shallowMembers(of: range)?.map(\.key) ?? []
    }

    /// The names of `entries` in `order` (names it lacks passed over, each
    /// once), any beyond them after, in canonical order.
    public static func names(of entries: JSONObject, in order: [String]) -> [String] {
        var seen = Set<String>()
        return (order + entries.keys).filter { entries[$0] != nil && seen.insert($0).inserted }
    }

    /// `_attachments`' value with its members in `order` (`names(of:in:)`),
    /// each entry written canonically.
    public static func write(_ entries: JSONValue, order: [String], into out: inout [UInt8]) {
        guard !order.isEmpty, let object = entries.objectValue else {
            CanonicalJSON.write(entries, into: &out)
            return
        }
        out.append(UInt8(ascii: "{"))
        for (index, name) in names(of: object, in: order).enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            CanonicalJSON.write(.string(name), into: &out)
            out.append(UInt8(ascii: ":"))
            CanonicalJSON.write(object[name] ?? .null, into: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// A body as the store keeps a revision fprint makes: canonical, but
    /// for `_attachments`, whose members go in `order`.
    public static func bodyBytes(_ body: JSONValue, order: [String]) -> [UInt8] {
        guard !order.isEmpty, let object = body.objectValue, let entries = object["_attachments"] else {
            return CanonicalJSON.bytes(body)
        }
        var out: [UInt8] = [UInt8(ascii: "{")]
        for (key, value) in object.members {
            if out.count > 1 { out.append(UInt8(ascii: ",")) }
            CanonicalJSON.write(.string(key), into: &out)
            out.append(UInt8(ascii: ":"))
            if key == "_attachments" {
                write(entries, order: order, into: &out)
            } else {
                CanonicalJSON.write(value, into: &out)
            }
        }
        out.append(UInt8(ascii: "}"))
        return out
    }
}

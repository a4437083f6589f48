import Crypto
import Foundation

/// Attachments as CouchDB carries them in a document's `_attachments`: with
/// their bytes inline (`"data"`, base64) on the way in and, when asked, on
/// the way out; as stubs (`"stub": true`, `digest`, `length`, `revpos`) in a
/// stored body. The bytes are kept beside the body, once per document and
/// digest, so a new revision that keeps an attachment costs nothing.
public enum Attachments {
    /// CouchDB's digest: `md5-` and the base64 of the MD5 of the bytes.
    public static func digest(of bytes: [UInt8]) -> String {
        "md5-" + Data(Insecure.MD5.hash(data: bytes)).base64EncodedString()
    }

    /// A body whose inline attachments became stubs, and their bytes by digest.
    public struct Stubbed: Sendable, Equatable {
        public var body: JSONValue
        public var data: [String: [UInt8]]
    }

    /// Turns every inline attachment of `body` into a stub. In a new edit
    /// every attachment with bytes gets `revpos` (this revision's
    /// generation), whatever it names, as CouchDB 3.5 does; a revision made
    /// elsewhere (`keepDigests`) keeps the revpos its peer gave, 0 included,
    /// and `revpos` goes to those naming none (CouchDB stores 0). `followed`
    /// holds the bytes of entries marked `"follows": true` (multipart bodies)
    /// by name. A revision made elsewhere (`keepDigests`) keeps the digests
    /// its peer gave: CouchDB's digest of a gzip-encoded attachment is that of
    /// the encoded bytes, and the stub must come back as it was sent. Stubs
    /// are kept as they are; whether their bytes are known is the store's check.
    public static func stubbing(_ body: JSONValue, revpos: Int, keepDigests: Bool,
                                followed: [String: [UInt8]] = [:]) throws(AttachmentError) -> Stubbed {
        guard let all = body["_attachments"] else { return Stubbed(body: body, data: [:]) }
        guard let entries = all.objectValue else { throw AttachmentError(name: nil, "`_attachments` must be an object") }
        var stubs = JSONObject()
        var data: [String: [UInt8]] = [:]
        for (name, entry) in entries {
            guard let object = entry.objectValue else { throw AttachmentError(name: name, "must be an object") }
            if object["stub"]?.boolValue == true {
                guard object["digest"]?.stringValue != nil else { throw AttachmentError(name: name, "is a stub without a digest") }
                stubs[name] = entry
                continue
            }
            let bytes: [UInt8]
            if object["follows"]?.boolValue == true {
                guard let part = followed[name] else {
                    throw AttachmentError(name: name, "says its bytes follow, but no part of the body carried them")
                }
                bytes = part
            } else {
                guard let base64 = object["data"]?.stringValue else {
                    throw AttachmentError(name: name, "needs either inline `data` or `\"stub\": true`")
                }
                guard let decoded = Data(base64Encoded: base64) else { throw AttachmentError(name: name, "has data that is not base64") }
                bytes = [UInt8](decoded)
            }
            if let declared = object["length"]?.intValue, declared != bytes.count {
                throw AttachmentError(name: name, "declares \(declared) bytes but carries \(bytes.count)")
            }
            let given = keepDigests ? object["digest"]?.stringValue : nil
            let digest = given ?? Self.digest(of: bytes)
            data[digest] = bytes
            stubs[name] = stub(contentType: object["content_type"]?.stringValue, digest: digest, length: bytes.count,
                               revpos: keepDigests ? object["revpos"]?.intValue.map { Int($0) } ?? revpos : revpos)
        }
        var stubbed = body
        stubbed["_attachments"] = .object(stubs)
        return Stubbed(body: stubbed, data: data)
    }

    public static func stub(contentType: String?, digest: String, length: Int, revpos: Int) -> JSONValue {
        ["content_type": .string(contentType ?? "application/octet-stream"), "digest": .string(digest),
         "length": .int(Int64(length)), "revpos": .int(Int64(revpos)), "stub": true]
    }

    /// The stubs of a stored body: name, digest, content type.
    public static func stubs(of body: JSONValue) -> [(name: String, digest: String, contentType: String)] {
        guard let entries = body["_attachments"]?.objectValue else { return [] }
        return entries.compactMap { member in
            guard let digest = member.value["digest"]?.stringValue else { return nil }
            return (member.key, digest, member.value["content_type"]?.stringValue ?? "application/octet-stream")
        }
    }

    /// Names of the entries whose bytes follow in a multipart body (`"follows": true`),
    /// in `_attachments` order (`text` the document's JSON, which gives it): the
    /// parts without a filename are matched in that order, as CouchDB matches them.
    public static func following(in doc: JSONValue, text: [UInt8]) -> [String] {
        let entries = doc["_attachments"]?.objectValue ?? [:]
        return names(of: entries, in: order(inDocument: text)).filter { entries[$0]?["follows"]?.boolValue == true }
    }

    /// The body with the bytes of its stubs inline, as `attachments=true`
    /// answers: `data` instead of `stub` and `length`. Stubs with a `revpos`
    /// at or below `since` (the newest revision the asker has, `atts_since`)
    /// stay stubs. `bytes` finds the bytes of a digest.
    public static func inlined(_ body: JSONValue, since: Int? = nil,
                               bytes: (String) throws -> [UInt8]) rethrows -> JSONValue {
        guard let entries = body["_attachments"]?.objectValue else { return body }
        var inline = JSONObject()
        for (name, entry) in entries {
            guard var object = entry.objectValue, let digest = object["digest"]?.stringValue else {
                inline[name] = entry
                continue
            }
            if let since, let revpos = object["revpos"]?.intValue, revpos <= since {
                inline[name] = entry
                continue
            }
            object["stub"] = nil
            object["length"] = nil
            object["data"] = .string(Data(try bytes(digest)).base64EncodedString())
            inline[name] = .object(object)
        }
        var out = body
        out["_attachments"] = .object(inline)
        return out
    }
}

/// An attachment that cannot be taken as given; the gateway answers 400.
public struct AttachmentError: Error, Equatable, CustomStringConvertible, Sendable {
    public var name: String?
    public var reason: String
    public init(name: String?, _ reason: String) {
        self.name = name
        self.reason = reason
    }
    public var description: String { name.map { "attachment \($0) \(reason)" } ?? reason }
}

extension RevisionText {
    /// Whether the body may hold `_attachments`: a byte search, so the many
    /// bodies without any are never parsed (a false positive costs one parse).
    public var mayHaveAttachments: Bool {
        var text = bodyText
        return text.withUTF8 { Attachments.mayHaveAttachments(UnsafeRawBufferPointer($0)) }
    }
}

extension Attachments {
    /// Whether body text without white space may hold `_attachments` (a byte search).
    public static func mayHaveAttachments(_ body: [UInt8]) -> Bool {
        body.withUnsafeBytes { mayHaveAttachments($0) }
    }

    static func mayHaveAttachments(_ body: UnsafeRawBufferPointer) -> Bool {
        guard let base = body.baseAddress, body.count >= key.count else { return false }
        // `_` is rare in a body: memchr finds each, then the key is compared around it.
        return key.withUnsafeBytes { key in
            var from = 1
            while from < body.count, let hit = memchr(base + from, 0x5F, body.count - from) {
                let at = base.distance(to: hit)
                if at + key.count - 1 <= body.count, body[at - 1] == 0x22,
                   memcmp(hit, key.baseAddress! + 1, key.count - 1) == 0 {
                    return true
                }
                from = at + 1
            }
            return false
        }
    }
}

extension Attachments {
    static let key = Array(#""_attachments":"#.utf8)
}

extension RevisionText {
    /// The revision with the value of its body's `_attachments` replaced by
    /// what `transform` makes of it (given the value and its names in their
    /// stored order), its entries written canonically in that order; every
    /// other member keeps its text and place. Unchanged when there is none.
    /// A body that is not an object or stubs that are not JSON make it damaged.
    public func replacingAttachments(_ transform: (_ stubs: JSONValue, _ order: [String]) throws -> JSONValue) throws
        -> RevisionText
    {
        let damaged = { (why: String) in DamagedDocument(id: id, rev: rev.description, reason: why) }
        let text = Array(bodyText.utf8)
        let skim = JSONSkim(text)
        guard let members = skim.shallowMembers(of: 0..<text.count) else { throw damaged("it is not a JSON object") }
        guard let member = members.first(where: { $0.key == "_attachments" }) else { return self }
        let stubs: JSONValue
        do {
            stubs = try skim.parse(member.value)
        } catch {
            throw damaged("it is not valid JSON (\(error))")
        }
        let order = Attachments.order(skim, member.value)
        var out = Array(text[..<member.value.lowerBound])
        Attachments.write(try transform(stubs, order), order: order, into: &out)
        out += text[member.value.upperBound...]
        var result = self
        result.bodyText = String(decoding: out, as: UTF8.self)
        return result
    }
}

extension ReplicableStore {
    /// The revision with the bytes of its attachments inline (`data` for
    /// `stub`), for a peer that lacks them: what a push and `attachments=true`
    /// send. Attachments up to revpos `since` stay stubs. Only the value of
    /// `_attachments` is rewritten: the other members keep their text and
    /// order. Bytes that cannot be found make the revision damaged, never
    /// sent without them.
    public func inliningAttachments(_ stored: RevisionText, since: Int? = nil) throws -> RevisionText {
        guard stored.mayHaveAttachments else { return stored }
        return try stored.replacingAttachments { stubs, _ in
            try inliningAttachments(of: ["_attachments": stubs], id: stored.id, rev: stored.rev.description,
                                    since: since)["_attachments"] ?? stubs
        }
    }

    /// A parsed body of document `id` with its attachments' bytes inline.
    public func inliningAttachments(of body: JSONValue, id: String, rev: String?, since: Int? = nil) throws -> JSONValue {
        try Attachments.inlined(body, since: since) { digest in
            guard let bytes = try attachmentBytes(id: id, digest: digest) else {
                throw DamagedDocument(id: id, rev: rev, reason: "the bytes of attachment \(digest) are missing")
            }
            return bytes
        }
    }
}

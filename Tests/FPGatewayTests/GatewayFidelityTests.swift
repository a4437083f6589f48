import FPCore
import FPGateway
import FPStore
import Foundation
import HTTPTypes
import Hummingbird
import FPHTTPTestSupport
import Testing

/// What a peer sends comes back as it was sent: number text, tombstone
/// bodies, attachments. The requests are CouchDB 3.5's recorded ones and the
/// expected answers are CouchDB's own (Fixtures/couchdb-3.5-answers.txt).
@Suite struct GatewayFidelityTests {
    let transcript: CouchTranscript
    init() throws { transcript = try CouchTranscript() }

    @Test func replicatedNumberTextIsServedAsSent() async throws {
        let f = try GatewayFixture()
        let put = try transcript.exchange("truth/_bulk_docs", "\"num\"")
        let couch = try transcript.exchange("PASSWORD http://127.0.0.1:5984/truth/num")
        try await f.app.test(.router) { client in
            let answer = try await client.call(.post, "/fprint/_bulk_docs", token: f.token("root", admin: true),
                                               raw: put.requestBody)
            #expect(answer.status == .created && answer.json == [])
            let got = try await client.text(.get, "/fprint/num?revs=true", token: f.token("root", admin: true))
            // CouchDB keeps these four texts; so do we.
            for kept in [#""big":123456789012345678901234567890"#, #""f":1.0"#, #""neg":-125.0"#, #""e":1.5e-7"#] {
                #expect(couch.answerBody.contains(kept) && got.contains(kept), "\(kept) in \(got)")
            }
            // CouchDB rewrites these two (2000.0, 0.0); we keep what was sent.
            #expect(got.contains(#""E":2E+3"#) && got.contains(#""z":-0.0"#), "\(got)")
            // The _bulk_get a replicator reads splices the same stored text.
            let bulk = try await client.text(.post, "/fprint/_bulk_get?revs=true", token: f.token("root", admin: true),
                                             raw: #"{"docs":[{"id":"num"}]}"#)
            #expect(bulk.contains(#""big":123456789012345678901234567890"#) && bulk.contains(#""f":1.0"#), "\(bulk)")
        }
    }

    @Test func aReplicatedTombstoneKeepsItsBody() async throws {
        let f = try GatewayFixture()
        let put = try transcript.exchange("truth/_bulk_docs", "\"tomb\"")
        let couch = try transcript.exchange("truth/tomb?rev=2-bb&revs=true")
        try await f.app.test(.router) { client in
            let admin = f.token("root", admin: true)
            _ = try await client.call(.post, "/fprint/_bulk_docs", token: admin, raw: put.requestBody)
            let got = try await client.call(.get, "/fprint/tomb?rev=2-bb&revs=true", token: admin)
            #expect(got.status == .ok)
            #expect(got.json == (try CanonicalJSON.parse(couch.answerBody)))
            let info = try await client.call(.get, "/fprint", token: admin)
            #expect(info.json["doc_del_count"] == 1)
        }
    }

    @Test func aLoneSurrogateIsRefusedNotReplaced() async throws {
        let f = try GatewayFixture()
        try await f.app.test(.router) { client in
            let admin = f.token("root", admin: true)
            let raw = #"{"new_edits":false,"docs":[{"_id":"s","_rev":"1-0123456789abcdef0123456789abcdef","t":"\ud800"}]}"#
            let answer = try await client.call(.post, "/fprint/_bulk_docs", token: admin, raw: raw)
            #expect(answer.status == .badRequest)
            #expect(answer.json["reason"]?.stringValue?.contains(#"\ud800"#) == true, "\(answer.json)")
            #expect(try await client.call(.get, "/fprint/s", token: admin).status == .notFound)
        }
    }

    @Test func inlineAttachmentsBecomeCouchDBsStubsAndComeBack() async throws {
        let f = try GatewayFixture()
        let put = try transcript.exchange("truth/_bulk_docs", "\"att\"")
        let couchBulkGet = try transcript.exchange("_bulk_get?revs=true&attachments=true", "application/json http")
        let couchFile = try transcript.exchange("truth/att/note.txt")
        try await f.app.test(.router) { client in
            let admin = f.token("root", admin: true)
            let created = try await client.call(.post, "/fprint/_bulk_docs", token: admin, raw: put.requestBody)
            #expect(created.json.arrayValue?.first?["ok"] == true)
            // The stub has CouchDB's members. CouchDB's digest is that of the
            // gzip it keeps text in, which no one else can reproduce; ours
            // is the MD5 of the bytes, in the same form.
            let stubbed = try await client.call(.get, "/fprint/att", token: admin)
            let couchStub = #"{"note.txt":{"content_type":"text/plain","revpos":1,"digest":"md5-QiJmCdO7NdnMqO0noL9fxA==","length":12,"stub":true}}"#
            let ourDigest = "md5-xhO8tLr9zkINmse9csutgw=="  // base64(md5("hello fprint"))
            #expect(stubbed.json["_attachments"] == (try CanonicalJSON.parse(couchStub.replacingOccurrences(
                of: "md5-QiJmCdO7NdnMqO0noL9fxA==", with: ourDigest))))
            // The bytes, as CouchDB serves them.
            let file = try await client.text(.get, "/fprint/att/note.txt", token: admin)
            #expect(file == couchFile.answerBody)
            let head = try await client.call(.get, "/fprint/att/note.txt", token: admin)
            #expect(head.headers[.contentType] == couchFile.headers["content-type"])
            #expect(head.headers[.eTag] == "\"\(ourDigest.dropFirst(4))\"")  // CouchDB's form: the digest, quoted
            #expect(couchFile.headers["etag"] == "\"QiJmCdO7NdnMqO0noL9fxA==\"")
            // Inline again for a replicator: the same _attachments as CouchDB's.
            let bulk = try await client.call(.post, "/fprint/_bulk_get?revs=true&attachments=true", token: admin,
                                             raw: #"{"docs":[{"id":"att"}]}"#)
            let couch = try CanonicalJSON.parse(couchBulkGet.answerBody.replacingOccurrences(
                of: "md5-QiJmCdO7NdnMqO0noL9fxA==", with: ourDigest))
            let ours = bulk.json["results"]?.arrayValue?.first?["docs"]?.arrayValue?.first?["ok"]
            #expect(ours?["_attachments"] == couch["results"]?.arrayValue?.first?["docs"]?.arrayValue?.first?["ok"]?["_attachments"])
            let single = try await client.call(.get, "/fprint/att?attachments=true", token: admin)
            #expect(single.json["_attachments"] == ours?["_attachments"])
            // atts_since at the attachment's revision keeps the stub.
            let rev = try #require(stubbed.json["_rev"]?.stringValue)
            let since = try await client.call(.get, "/fprint/att?attachments=true&atts_since=%5B%22\(rev)%22%5D", token: admin)
            #expect(since.json["_attachments"]?["note.txt"]?["stub"] == true)
        }
    }

    @Test func couchDBsMultipartPutWithAGzipPartIsStored() async throws {
        let f = try GatewayFixture()
        let recorded = [UInt8](try fixtureData("couchdb-replicator-multipart-put-with-attachment.bin"))
        // Request line and headers end at the first empty line ("\n\n"); the body follows.
        let split = try #require((0..<(recorded.count - 1)).first { recorded[$0] == 10 && recorded[$0 + 1] == 10 })
        let head = String(decoding: recorded[..<split], as: UTF8.self).components(separatedBy: "\n")
        let contentType = try #require(head.first { $0.hasPrefix("Content-Type:") }).dropFirst("Content-Type:".count)
            .trimmingCharacters(in: .whitespaces)
        let body = ByteBuffer(bytes: recorded[(split + 2)...])
        try await f.app.test(.router) { client in
            let admin = f.token("root", admin: true)
            let status = try await client.execute(uri: "/fprint/att?new_edits=false", method: .put,
                                                  headers: [.authorization: "Bearer \(admin)", .contentType: contentType],
                                                  body: body) { $0.status }
            #expect(status == .created)
            let file = try await client.text(.get, "/fprint/att/note.txt", token: admin)
            #expect(file == "hello world")
            let stored = try await client.call(.get, "/fprint/att", token: admin)
            #expect(stored.json["_rev"] == "1-0123abcd")
            // The peer's digest (of the gzip bytes) is kept, so the stub comes back as sent.
            #expect(stored.json["_attachments"]?["note.txt"]?["digest"] == "md5-7mkg+nM0HN26sZkLN8KVSA==")
            #expect(stored.json["_attachments"]?["note.txt"]?["length"] == 11)
        }
    }

    @Test func aStubOfUnknownBytesIsRefusedWith412() async throws {
        let f = try GatewayFixture()
        try await f.app.test(.router) { client in
            let admin = f.token("root", admin: true)
            let raw = #"{"docs":[{"_id":"x","_attachments":{"a":{"stub":true,"digest":"md5-AAAAAAAAAAAAAAAAAAAAAA==","revpos":1}}}]}"#
            let answer = try await client.call(.post, "/fprint/_bulk_docs", token: admin, raw: raw)
            #expect(answer.json.arrayValue?.first?["error"] == "missing_stub")
            let bad = #"{"docs":[{"_id":"y","_attachments":{"a":{"data":"not base64!"}}}]}"#
            #expect(try await client.call(.post, "/fprint/_bulk_docs", token: admin, raw: bad).json.arrayValue?.first?["error"] == "bad_request")
            #expect(try await client.call(.get, "/fprint/x", token: admin).status == .notFound)
        }
    }

    @Test func attachmentsArePutReplacedAndDeletedOneByOne() async throws {
        let f = try GatewayFixture()
        try await f.app.test(.router) { client in
            let admin = f.token("root", admin: true)
            let first = try await client.execute(uri: "/fprint/raw/capture.btsnoop", method: .put,
                                                 headers: [.authorization: "Bearer \(admin)", .contentType: "application/octet-stream"],
                                                 body: ByteBuffer(bytes: [0, 1, 2, 255])) { $0.status }
            #expect(first == .created)
            let doc = try await client.call(.get, "/fprint/raw", token: admin)
            let rev = try #require(doc.json["_rev"]?.stringValue)
            let bytes = try await client.execute(uri: "/fprint/raw/capture.btsnoop", method: .get,
                                                 headers: [.authorization: "Bearer \(admin)"]) { Array($0.body.readableBytesView) }
            #expect(bytes == [0, 1, 2, 255])
            let deleted = try await client.call(.delete, "/fprint/raw/capture.btsnoop?rev=\(rev)", token: admin)
            #expect(deleted.status == .ok)
            #expect(try await client.call(.get, "/fprint/raw/capture.btsnoop", token: admin).status == .notFound)
        }
    }

    /// `open_revs` asked for `multipart/mixed` answers as CouchDB 3.5's
    /// chttpd does (`send_docs_multipart`), which is what its replicator
    /// reads, without `attachments=true`: a revision with attachments is a
    /// `multipart/related` part, its JSON marking them `"follows": true`,
    /// then their bytes; `atts_since` naming the revision leaves them stubs
    /// (a plain JSON part); an unknown revision is an `error="true"` part.
    @Test func openRevsAnswersMultipartAsCouchDBDoes() async throws {
        let f = try GatewayFixture()
        try await f.app.test(.router) { client in
            let admin = f.token("root", admin: true)
            // A replicated revision (a peer's: its members keep their order).
            let rev = "1-0123456789abcdef0123456789abcdef"
            let made = try await client.call(.post, "/fprint/_bulk_docs", token: admin, raw: #"""
                {"new_edits":false,"docs":[{"_id":"m","_rev":"\#(rev)","z":1,"a":2,
                "_attachments":{"a.txt":{"content_type":"text/plain","revpos":1,"data":"aGk="}}}]}
                """#)
            #expect(made.status == .created && made.json == [])
            func ask(_ query: String) async throws -> (String, String) {
                try await client.execute(uri: "/fprint/m?revs=true&latest=true&" + query, method: .get,
                                         headers: [.authorization: "Bearer \(admin)", .accept: "multipart/mixed"]) { response in
                    (response.headers[.contentType] ?? "", String(buffer: response.body))
                }
            }
            let (contentType, text) = try await ask("open_revs=%5B%22\(rev)%22,%221-0123%22%5D")
            #expect(contentType.hasPrefix("multipart/mixed; boundary=\""))
            let boundary = String(contentType.split(separator: "\"")[1])
            let parts = text.components(separatedBy: "--\(boundary)")
            try #require(parts.count == 4, "\(text)")
            let related = try #require(parts[1].firstMatch(of: /^\r\nContent-Type: multipart\/related; boundary="([0-9a-f]+)"\r\n\r\n/))
            let inner = String(related.1)
            let innerParts = parts[1].components(separatedBy: "--\(inner)")
            try #require(innerParts.count == 4, "\(parts[1])")
            #expect(innerParts[1].hasPrefix("\r\nContent-Type: application/json\r\n\r\n{"))
            let jsonText = try #require(innerParts[1].components(separatedBy: "\r\n\r\n").last)
            let json = try CanonicalJSON.parse(jsonText.trimmingCharacters(in: .newlines))
            #expect(json["_attachments"]?["a.txt"] == ["content_type": "text/plain", "digest": "md5-SfaKXIST7CwL9ImCHCH8Ow==",
                                                     "follows": true, "length": 2, "revpos": 1])
            // The body keeps the order it was written in.
            #expect(innerParts[1].contains(#""z":1,"a":2"#), "\(innerParts[1])")
            #expect(innerParts[2] == "\r\nContent-Disposition: attachment; filename=\"a.txt\"\r\nContent-Type: text/plain\r\n"
                    + "Content-Length: 2\r\n\r\nhi\r\n")
            #expect(innerParts[3] == "--\r\n")
            #expect(parts[2] == "\r\nContent-Type: application/json; error=\"true\"\r\n\r\n{\"missing\":\"1-0123\"}\r\n")
            #expect(parts[3] == "--")

            // The asker has this revision: its attachment stays a stub.
            let (_, since) = try await ask("open_revs=all&atts_since=%5B%22\(rev)%22%5D")
            #expect(!since.contains("multipart/related") && since.contains(#""stub":true"#), "\(since)")
            // JSON answers keep stubs unless asked (attachments=true or atts_since of an older revision).
            let plain = try await client.text(.get, "/fprint/m?open_revs=all", token: admin)
            #expect(plain.contains(#""stub":true"#) && !plain.contains("data"), "\(plain)")
            let inline = try await client.text(.get, "/fprint/m?open_revs=all&atts_since=%5B%221-0123%22%5D", token: admin)
            #expect(inline.contains(#""data":"aGk=""#), "\(inline)")
        }
    }

    /// `_bulk_get` asked for `multipart/mixed` answers as Sync Gateway 1.5
    /// did (recorded): one JSON part per document, the same as in the JSON
    /// answer, and an `error="true"` part for a missing one, byte for byte
    /// the recorded one.
    @Test func bulkGetAnswersMultipartAsSyncGatewayDid() async throws {
        let recorded = String(decoding: try fixtureData("sg15-bulk_get-multipart.txt"), as: UTF8.self)
        let sgError = try #require(recorded.split(separator: "\r\n").first { $0.hasPrefix(#"{"error":"not_found","id":"nope""#) })
        let f = try GatewayFixture()
        try await f.app.test(.router) { client in
            let admin = f.token("root", admin: true)
            _ = try await client.call(.post, "/fprint/_bulk_docs", token: admin, raw: """
                {"docs":[{"_id":"a","x":1.0},{"_id":"m","_attachments":{"a.txt":{"content_type":"text/plain","data":"aGk="}}}]}
                """)
            let ask = #"{"docs":[{"id":"a"},{"id":"m"},{"id":"nope","rev":"1-x"}]}"#
            let uri = "/fprint/_bulk_get?revs=true&attachments=true"
            let json = try await client.call(.post, uri, token: admin, raw: ask)
            let docs = try #require(json.json["results"]?.arrayValue?.compactMap { $0["docs"]?.arrayValue?.first?["ok"] })
            #expect(docs.count == 2)
            let (contentType, text) = try await client.execute(
                uri: uri, method: .post,
                headers: [.authorization: "Bearer \(admin)", .accept: "multipart/mixed", .contentType: "application/json"],
                body: ByteBuffer(string: ask)) { response in (response.headers[.contentType] ?? "", String(buffer: response.body)) }
            #expect(contentType.hasPrefix("multipart/mixed; boundary=\""))
            let boundary = String(contentType.split(separator: "\"")[1])
            let parts = text.components(separatedBy: "--\(boundary)")
            try #require(parts.count == 5, "\(text)")
            let head = "\r\nContent-Type: application/json\r\n\r\n"
            for (n, doc) in docs.enumerated() {
                #expect(parts[n + 1].hasPrefix(head) && parts[n + 1].hasSuffix("}\r\n"))
                #expect(try CanonicalJSON.parse(String(parts[n + 1].dropFirst(head.count))) == doc)
            }
            #expect(parts[1].contains(#""x":1.0"#) && parts[2].contains(#""data":"aGk=""#))
            #expect(parts[3] == "\r\nContent-Type: application/json; error=\"true\"\r\n\r\n\(sgError)\r\n")
            #expect(parts[4].hasPrefix("--"))
        }
    }

    @Test func selectorFilterKeepsOnlyEqualDocumentsAndRefusesTheRest() async throws {
        let f = try GatewayFixture()
        try await f.app.test(.router) { client in
            let admin = f.token("root", admin: true)
            _ = try await client.call(.post, "/fprint/_bulk_docs", token: admin, raw: """
                {"docs":[{"_id":"a","level":"J1NP","map":{"floor":1}},{"_id":"b","level":"J2","map":{"floor":1}},
                {"_id":"c","level":"J1NP","map":{"floor":2}}]}
                """)
            let feed = try await client.call(.post, "/fprint/_changes?filter=_selector", token: admin,
                                             raw: #"{"selector":{"level":"J1NP","map.floor":{"$eq":1}}}"#)
            #expect(feed.json["results"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["a"])
            let refused = try await client.call(.post, "/fprint/_changes?filter=_selector", token: admin,
                                                raw: #"{"selector":{"map.floor":{"$gt":1}}}"#)
            #expect(refused.status == .badRequest)
            #expect(refused.json["reason"]?.stringValue?.contains("$gt") == true)
        }
    }
}

extension TestClientProtocol {
    /// The answer body as text, for checks on the exact bytes.
    func text(_ method: HTTPRequest.Method, _ uri: String, token: String, raw: String? = nil) async throws -> String {
        var headers: HTTPFields = [.authorization: "Bearer \(token)"]
        if raw != nil { headers[.contentType] = "application/json" }
        return try await execute(uri: uri, method: method, headers: headers,
                                 body: raw.map { ByteBuffer(string: $0) }) { String(buffer: $0.body) }
    }
}

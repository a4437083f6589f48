import FPCore
import FPGateway
import FPNet
import FPStore
import FPSync
import Foundation
import Testing

/// A peer's revisions travel store → gateway → second store → gateway and
/// come back identical in value: number text (CouchDB 3.5 keeps `1.0`, big
/// integers and `1.5e-7` the same way), attachments with the peer's digest,
/// a tombstone's body.
@Suite(.serialized) struct FidelityRoundTripTests {
    static let capture: [UInt8] = Array("btsnoop\0".utf8) + [0, 0, 0, 1, 0, 0, 3, 0xEA, 0xFF, 0x00]

    /// The documents as a peer serves them with `revs=true&attachments=true`.
    static var peerDocuments: [String] {
        let data = Data(capture).base64EncodedString()
        let digest = Attachments.digest(of: capture)
        return [
            #"{"_id":"num","_rev":"1-0123456789abcdef0123456789abcdef","couchbase_sync_gateway_id":"alice","#
                + #""big":123456789012345678901234567890,"f":1.0,"neg":-125.0,"e":1.5e-7,"E":2E+3,"z":-0.0,"#
                + #""_revisions":{"start":1,"ids":["0123456789abcdef0123456789abcdef"]},"#
                + #""_attachments":{"raw.btsnoop":{"content_type":"application/vnd.btsnoop","revpos":1,"#
                + #""digest":"\#(digest)","data":"\#(data)"}}}"#,
            #"{"_id":"tomb","_rev":"2-bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb","_deleted":true,"why":"withdrawn","#
                + #""couchbase_sync_gateway_id":"alice","#
                + #""_revisions":{"start":2,"ids":["bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb","aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"]}}"#,
        ]
    }

    @Test func aPeersRevisionsComeBackIdenticalInValue() async throws {
        let first = try await LiveGateway()
        let second = try await LiveGateway()
        defer { Task { await first.running.stop(); await second.running.stop() } }
        let origin = try SQLiteDocumentStore.inMemory()
        let relay = try SQLiteDocumentStore.inMemory()
        let sent = try Self.peerDocuments.map { try CanonicalJSON.parse($0) }
        try origin.putReplicated(try sent.map { try BulkGetAnswer.content(of: $0) }, markSynced: false)

        let toFirst = first.replicator(origin, user: "alice")
        let push = try await toFirst.push()
        #expect(push.written == 2 && push.rejected.isEmpty)
        let fromFirst = first.replicator(relay, user: "alice")
        let pull = try await fromFirst.pull()
        #expect(pull.written == 2)
        let toSecond = second.replicator(relay, user: "alice")
        _ = try await toSecond.push()

        for (gateway, name) in [(first, "first"), (second, "second")] {
            for doc in sent {
                let id = try #require(doc["_id"]?.stringValue), rev = try #require(doc["_rev"]?.stringValue)
                let served = try await Self.get(gateway, "\(id)?rev=\(rev)&revs=true&attachments=true")
                #expect(try CanonicalJSON.parse(served) == doc, "\(name) gateway served \(served)")
            }
        }
        // The bytes themselves, from the far end.
        let bytes = try await Self.getBytes(second, "num/raw.btsnoop")
        #expect(bytes == Self.capture)
        // The relay store holds the number text, not a rewrite of it.
        let rev = try #require(Revision("1-0123456789abcdef0123456789abcdef"))
        let text = try #require(try relay.revisionText(id: "num", rev: rev))
        #expect(text.bodyText.contains(#""big":123456789012345678901234567890"#) && text.bodyText.contains(#""f":1.0"#))
    }

    static func get(_ gateway: LiveGateway, _ path: String) async throws -> String {
        String(decoding: try await getBytes(gateway, path), as: UTF8.self)
    }

    static func getBytes(_ gateway: LiveGateway, _ path: String) async throws -> [UInt8] {
        let url = try #require(URL(string: "http://127.0.0.1:\(gateway.running.port)/fprint/\(path)"))
        let response = try await CurlHTTPTransport().send(HTTPRequest(url: url, headers: ["Authorization": "Bearer \(gateway.token("alice"))"]))
        #expect(response.status == 200, "GET \(path) answered \(response.status)")
        return [UInt8](response.body)
    }
}

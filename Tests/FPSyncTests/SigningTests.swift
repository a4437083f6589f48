import FPCore
import Foundation
import Testing
@testable import FPSync

/// What signing makes of a stored body: the canonical text of the body with
/// the signer's id, spliced into canonical text without a parse, or nothing
/// when the body has a signer.
@Suite struct SigningTests {
    static let key = MeasurementDocument.ownerKey

    func signed(_ body: [UInt8], by owner: String = "ana") throws -> [UInt8]? {
        try Replicator.signedText(body) { () throws(SyncError) in owner }
    }

    @Test(arguments: [
        #"{"couchbase_sync_gateway_id":"-","x":1}"#,  // "-": the value replaced in place
        #"{"couchbase_sync_gateway_id":null,"x":1}"#,  // null: nobody
        #"{"a":1,"level":"J1NP","x":1}"#,  // none: inserted where the key sorts (middle)
        #"{"a":1,"bleScans":[]}"#,  // … at the end
        #"{"deviceId":"d","type":"scan"}"#,  // … after every earlier key
        #"{}"#,  // … alone
        #"{"_attachments":{"r":{"stub":true}},"b":2}"#,  // `_` keys sort first
    ])
    func canonicalBodiesGetTheSignerAsTheWriterWouldWriteIt(_ text: String) throws {
        var value = try JSONParser.parse(Array(text.utf8))
        value[Self.key] = "ana"
        #expect(try signed(Array(text.utf8)) == CanonicalJSON.bytes(value))
    }

    /// The members handed to the store with a spliced signature are those a
    /// check of the signed text finds: keys, ranges, counts. A wrong range
    /// would store a wrong summary (`list` reads it).
    @Test(arguments: [
        #"{"couchbase_sync_gateway_id":"-","x":1}"#,
        #"{"couchbase_sync_gateway_id":null,"x":[1,2,3]}"#,
        #"{"a":1,"level":"J1NP","x":1}"#,
        #"{"a":[{"b":1},{"b":2}],"bleScans":[],"z":{"k":"v"}}"#,
        #"{"deviceId":"d","type":"scan","wifiScans":[1,2]}"#,
        #"{}"#,
        #"{"_attachments":{"r":{"stub":true}},"b":2}"#,
        #"{"bleScans":[[1],[2]],"couchbase_sync_gateway_id":"-","createdAt":"2026-11-27T07:00:00.000Z"}"#,
    ])
    func aSplicedSignatureComesWithTheMembersOfTheSignedText(_ text: String) throws {
        let body = try #require(try Replicator.signedBody(Array(text.utf8)) { () throws(SyncError) in "ana-ü" })
        let members = try #require(body.members)
        let checked = try #require(JSONSkim(body.text).value(in: 0..<body.text.count, levels: 1)?.members)
        func described(_ list: [JSONSkim.Member]) -> [String] {
            list.map { "\($0.key) \($0.text) \($0.value) \($0.isCanonical) \($0.node.count.map(String.init) ?? "-")" }
        }
        #expect(described(members) == described(checked))
        #expect(body.text == (try signed(Array(text.utf8), by: "ana-ü")))
    }

    @Test func aPeersTextIsSignedThroughItsValueAndComesOutCanonical() throws {
        let text = Array(#"{ "z": 1.0, "a": [2, 1] }"#.utf8)
        #expect(try signed(text) == Array(#"{"a":[2,1],"couchbase_sync_gateway_id":"ana","z":1.0}"#.utf8))
    }

    @Test func aSignedBodyIsLeftAloneAndNobodyIsAsked() throws {
        for text in [#"{"couchbase_sync_gateway_id":"bob","x":1}"#, #"{ "couchbase_sync_gateway_id" : "bob" }"#] {
            let result = try Replicator.signedText(Array(text.utf8)) { () throws(SyncError) in
                Issue.record("the signer was asked for \(text)")
                return "ana"
            }
            #expect(result == nil)
        }
    }

    @Test func withoutASignerAnUnsignedBodyStopsThePush() throws {
        #expect(throws: SyncError.noSigner("d1")) {
            try Replicator.signedText(Array(#"{"x":1}"#.utf8)) { () throws(SyncError) in throw .noSigner("d1") }
        }
    }

    @Test func aBodyThatIsNoObjectIsDamaged() {
        for text in ["[1]", "{", "\"-\""] {
            #expect(throws: SigningError.self) { try signed(Array(text.utf8)) }
        }
    }
}

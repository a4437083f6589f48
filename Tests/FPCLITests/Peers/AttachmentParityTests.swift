import FPNet
import FPTestSupport
import Foundation
import Testing

extension CouchDBPeers {
    /// Attachments as CouchDB 3.5.0 answers them, and `fprint gateway` the
    /// same: the same requests to both, the answers compared on the order of
    /// `_attachments`, on `revpos`, and on the bytes `attachments=true` puts
    /// inline in `_all_docs` and `_changes`. A gateway and databases per test;
    /// the CouchDB of `CouchDBPeers`.
    @Suite struct AttachmentParityTests {
        /// Three attachments, not in name order.
        static let unsorted = #"{"x":1,"_attachments":{"zeta.txt":{"content_type":"text/plain","data":"WlpaWg=="},"#
            + #""alpha.txt":{"content_type":"text/plain","data":"QUFB"},"#
            + #""mid.bin":{"content_type":"application/octet-stream","data":"TU1NTU0="}}}"#
        static let multipartType = #"multipart/related; boundary="attachment-parity""#
        /// A multipart/related PUT of two attachments, `z.txt` before `a.txt`.
        static let multipartDocument = AttachmentText.multipart(
            #"{"_attachments":{"z.txt":{"content_type":"text/plain","follows":true,"length":3},"#
                + #""a.txt":{"content_type":"text/plain","follows":true,"length":3}}}"#,
            parts: ["AAA", "BBB"])

        /// `d1` (unsorted, then `beta.txt` PUT on its own, which CouchDB puts
        /// first), `m1` (multipart), `b1` (`_bulk_docs`) and `plain` (none) on a side.
        static func fill(_ side: ParitySide) async throws {
            try await side.must(.put, "/d1", json: unsorted)
            try await side.must(.post, "/_bulk_docs", json: #"{"docs":["# + unsorted.dropLast() + #","_id":"b1"}]}"#)
            try await side.must(.put, "/m1", body: multipartDocument, contentType: multipartType)
            try await side.must(.put, "/plain", json: #"{"x":2}"#)
            let rev = try #require(try await side.must(.get, "/d1").object["_rev"] as? String)
            try await side.must(.put, "/d1/beta.txt?rev=\(rev)", body: Data("hello".utf8), contentType: "text/plain")
        }

        static func sides(_ couch: CouchDB, _ gateway: ReplicatorTests.Gateway, _ prefix: String) async throws -> [ParitySide] {
            [.couch(couch, try await couch.newDatabase(prefix)), .gateway(gateway)]
        }

        /// Every way a document is read, the attachments in CouchDB's order:
        /// as given by a PUT, a standalone attachment PUT first; in multipart
        /// answers the parts follow it too.
        @Test func attachmentsKeepTheOrderTheyWereGivenInEveryAnswer() async throws {
            let couch = try CouchDB.current()
            let gateway = try await ReplicatorTests.gateway()
            defer { gateway.process.kill9() }
            let sides = try await Self.sides(couch, gateway, "att-order")
            for side in sides { try await Self.fill(side) }
            // The premise, as measured: CouchDB keeps the order given.
            let premise = try await sides[0].must(.get, "/d1").text
            #expect(AttachmentText.orders(premise) == [["beta.txt", "zeta.txt", "alpha.txt", "mid.bin"]], "\(premise)")

            let bulk = #"{"docs":[{"id":"d1"},{"id":"m1"}]}"#
            let reads: [(method: HTTPMethod, path: String, json: String?, accept: String)] = [
                (.get, "/d1", nil, "application/json"),
                (.get, "/m1", nil, "application/json"),
                (.get, "/b1", nil, "application/json"),
                (.get, "/d1?attachments=true", nil, "application/json"),
                (.get, "/m1?attachments=true", nil, "application/json"),
                (.get, "/d1?open_revs=all", nil, "application/json"),
                (.get, "/d1?open_revs=all&attachments=true", nil, "application/json"),
                (.get, "/d1?open_revs=all", nil, "multipart/mixed"),
                (.get, "/m1?open_revs=all&revs=true", nil, "multipart/mixed"),
                (.post, "/_bulk_get", bulk, "application/json"),
                (.post, "/_bulk_get?attachments=true", bulk, "application/json"),
                (.get, "/_all_docs?include_docs=true", nil, "application/json"),
                (.get, "/_all_docs?include_docs=true&attachments=true", nil, "application/json"),
            ]
            for read in reads {
                var texts: [String] = []
                for side in sides {
                    texts.append(try await side.must(read.method, read.path, json: read.json, accept: read.accept).text)
                }
                let what = "\(read.method) \(read.path) (\(read.accept))"
                #expect(!AttachmentText.orders(texts[0]).isEmpty, "\(what): \(texts[0].prefix(300))")
                #expect(AttachmentText.orders(texts[1]) == AttachmentText.orders(texts[0]),
                        "\(what)\nCouchDB: \(texts[0].prefix(600))\ngateway: \(texts[1].prefix(600))")
                #expect(AttachmentText.partNames(texts[1]) == AttachmentText.partNames(texts[0]), "\(what)")
            }
            // `_changes` lists documents in an order of its own (CouchDB's shards): compared by document.
            var changes: [[[String]]] = []
            for side in sides {
                let text = try await side.must(.get, "/_changes?include_docs=true").text
                changes.append(AttachmentText.orders(text).sorted { $0.joined(separator: "/") < $1.joined(separator: "/") })
            }
            #expect(changes[1] == changes[0])
        }

        /// Replication both ways keeps the order: CouchDB's replicator from
        /// CouchDB to the gateway (multipart PUTs) and from the gateway to
        /// CouchDB (`open_revs` multipart), and `fprint sync` pulling from
        /// CouchDB and pushing to an empty database.
        @Test func attachmentOrderSurvivesReplicationBothWays() async throws {
            let couch = try CouchDB.current()
            let gateway = try await ReplicatorTests.gateway()
            defer { gateway.process.kill9() }
            let source = try await couch.newDatabase("att-src")
            let couchSide = ParitySide.couch(couch, source), gatewaySide = ParitySide.gateway(gateway)
            try await Self.fill(couchSide)
            // Made on the gateway, CouchDB's replicator carries it on.
            try await gatewaySide.must(.put, "/g1", json: Self.unsorted)
            func order(_ side: ParitySide, _ id: String) async throws -> [[String]] {
                AttachmentText.orders(try await side.must(.get, "/\(id)").text)
            }
            let expected = ["d1": try await order(couchSide, "d1"), "m1": try await order(couchSide, "m1"),
                            "g1": [["zeta.txt", "alpha.txt", "mid.bin"]]]

            let into = try await ReplicatorTests.replicate(couch, from: couch.adminURL(source), to: gateway.url)
            #expect(into["ok"] as? Bool == true, "\(into)")
            for id in ["d1", "m1"] { #expect(try await order(gatewaySide, id) == expected[id], "CouchDB → gateway: \(id)") }

            let onward = try await couch.newDatabase("att-onward")
            let out = try await ReplicatorTests.replicate(couch, from: gateway.url, to: couch.adminURL(onward))
            #expect(out["ok"] as? Bool == true, "\(out)")
            for id in ["d1", "m1", "g1"] {
                #expect(try await order(.couch(couch, onward), id) == expected[id], "gateway → CouchDB: \(id)")
            }

            let fp = try FprintRunner()
            let pull = try await fp.run(["sync", "--gateway", couch.adminURL(source), "--pull-only"])
            #expect(pull.status == 0, "\(pull.stderr)")
            let pushed = try await couch.newDatabase("att-pushed")
            let push = try await fp.run(["sync", "--gateway", couch.adminURL(pushed), "--push-only"])
            #expect(push.status == 0, "\(push.stderr)")
            for id in ["d1", "m1"] {
                #expect(try await order(.couch(couch, pushed), id) == expected[id], "fprint sync pull, push: \(id)")
            }
        }

        /// `revpos` as CouchDB 3.5 stores it: a replicated revision
        /// (`new_edits=false`, `_bulk_docs` or a multipart PUT) keeps the
        /// revpos its writer gave, 0 included, and one without gets 0; a new
        /// edit gives every attachment with bytes the new generation, whatever
        /// it names (0 or 5).
        @Test func revposIsStoredAsCouchDBStoresIt() async throws {
            let couch = try CouchDB.current()
            let gateway = try await ReplicatorTests.gateway()
            defer { gateway.process.kill9() }
            let sides = try await Self.sides(couch, gateway, "att-revpos")
            let (h1, h2, h3) = (String(repeating: "a", count: 32), String(repeating: "b", count: 32),
                                String(repeating: "c", count: 32))
            let replicated = #"{"new_edits":false,"docs":[{"_id":"r0","_rev":"2-\#(h1)","#
                + #""_revisions":{"start":2,"ids":["\#(h1)","\#(h2)"]},"_attachments":{"#
                + #""b.txt":{"content_type":"text/plain","revpos":0,"data":"QUFB"},"#
                + #""a.txt":{"content_type":"text/plain","data":"QkJC"},"#
                + #""c.txt":{"content_type":"text/plain","revpos":1,"data":"Q0ND"}}}]}"#
            let replicatedPart = AttachmentText.multipart(
                #"{"_id":"m0","_rev":"3-\#(h1)","_revisions":{"start":3,"ids":["\#(h1)","\#(h2)","\#(h3)"]},"#
                    + #""_attachments":{"z.txt":{"content_type":"text/plain","revpos":0,"follows":true,"length":3},"#
                    + #""a.txt":{"content_type":"text/plain","revpos":2,"follows":true,"length":3}}}"#,
                parts: ["AAA", "BBB"])
            let editedPart = AttachmentText.multipart(
                #"{"_attachments":{"z.txt":{"content_type":"text/plain","revpos":0,"follows":true,"length":3}}}"#,
                parts: ["AAA"])
            for side in sides {
                try await side.must(.post, "/_bulk_docs", json: replicated)
                try await side.must(.put, "/m0?new_edits=false", body: replicatedPart, contentType: Self.multipartType)
                try await side.must(.put, "/e0", json: #"{"_attachments":{"b.txt":{"content_type":"text/plain","revpos":0,"data":"QUFB"}}}"#)
                try await side.must(.put, "/e5", json: #"{"_attachments":{"b.txt":{"content_type":"text/plain","revpos":5,"data":"QUFB"}}}"#)
                try await side.must(.put, "/em", body: editedPart, contentType: Self.multipartType)
            }
            // The premise, as measured on CouchDB 3.5.0.
            let expected: [String: [String: Int]] = ["r0": ["b.txt": 0, "a.txt": 0, "c.txt": 1], "m0": ["z.txt": 0, "a.txt": 2],
                                                     "e0": ["b.txt": 1], "e5": ["b.txt": 1], "em": ["z.txt": 1]]
            for (id, revpos) in expected.sorted(by: { $0.key < $1.key }) {
                var seen: [[String: Int]] = [], entries: [[String: [String: Any]]] = [], parts: [[String]] = []
                for side in sides {
                    // What CouchDB's replicator reads: every attachment follows, revpos 0 too.
                    parts.append(AttachmentText.partNames(try await side.must(.get, "/\(id)?open_revs=all",
                                                                              accept: "multipart/mixed").text))
                    for path in ["/\(id)", "/\(id)?attachments=true"] {
                        let doc = try await side.must(.get, path).json
                        entries.append(AttachmentText.entries(doc))
                        seen.append(entries.last!.compactMapValues { $0["revpos"] as? Int })
                    }
                    let bulk = try await side.must(.post, "/_bulk_get", json: #"{"docs":[{"id":"\#(id)"}]}"#).object
                    let result = (bulk["results"] as? [[String: Any]])?.first?["docs"] as? [[String: Any]]
                    seen.append(AttachmentText.entries(result?.first?["ok"]).compactMapValues { $0["revpos"] as? Int })
                }
                #expect(seen[0] == revpos, "CouchDB's premise for \(id): \(seen[0])")
                #expect(parts[0].count == revpos.count && parts[1] == parts[0], "\(id): parts \(parts)")
                #expect(Set(seen.map { $0 }).count == 1, "\(id): CouchDB \(seen[0...2]), gateway \(seen[3...5])")
                // Content types and lengths (stubs) and bytes (inline) agree too.
                #expect(NSDictionary(dictionary: entries[2]) == NSDictionary(dictionary: entries[0]), "\(id): \(entries)")
                #expect(NSDictionary(dictionary: entries[3]) == NSDictionary(dictionary: entries[1]), "\(id): \(entries)")
            }
        }

        /// `attachments=true` in `_all_docs` and `_changes` with
        /// `include_docs=true` puts the bytes inline (`data`, base64, no
        /// `stub` or `length`), as CouchDB does; without `include_docs` it
        /// changes nothing; without it the docs keep their stubs.
        @Test func allDocsAndChangesCarryTheBytesWhenAsked() async throws {
            let couch = try CouchDB.current()
            let gateway = try await ReplicatorTests.gateway()
            defer { gateway.process.kill9() }
            let sides = try await Self.sides(couch, gateway, "att-inline")
            for side in sides { try await Self.fill(side) }
            let reads: [(method: HTTPMethod, path: String, json: String?)] = [
                (.get, "/_all_docs?include_docs=true&attachments=true", nil),
                (.post, "/_all_docs?include_docs=true&attachments=true", #"{"keys":["m1","d1","b1","plain"]}"#),
                (.get, "/_all_docs?attachments=true", nil),
                (.get, "/_all_docs?include_docs=true", nil),
                (.get, "/_changes?include_docs=true&attachments=true", nil),
                (.post, "/_changes?include_docs=true&attachments=true", "{}"),
                (.get, "/_changes?attachments=true", nil),
                (.get, "/_changes?include_docs=true", nil),
            ]
            for read in reads {
                var documents: [[String: Any]] = []
                for side in sides {
                    let answer = try await side.must(read.method, read.path, json: read.json).object
                    let rows = (answer["rows"] ?? answer["results"]) as? [[String: Any]] ?? []
                    var byID: [String: Any] = [:]
                    for row in rows {
                        guard let id = (row["id"] ?? row["key"]) as? String else { continue }
                        byID[id] = row["doc"].map { AttachmentText.entries($0) as Any } ?? "no doc"
                    }
                    documents.append(byID)
                }
                let what = "\(read.method) \(read.path)"
                #expect(documents[0].count == 4, "\(what): \(documents[0])")
                #expect(NSDictionary(dictionary: documents[1]) == NSDictionary(dictionary: documents[0]),
                        "\(what)\nCouchDB: \(documents[0])\ngateway: \(documents[1])")
                if read.path.contains("include_docs=true&attachments=true") {
                    let d1 = documents[0]["d1"] as? [String: [String: Any]] ?? [:]
                    #expect(d1["zeta.txt"]?["data"] as? String == "WlpaWg==", "the premise: CouchDB inlines, \(d1)")
                }
            }
        }
    }
}

import FPCore
import FPNet
import FPStore
import FPTestSupport
import Foundation
import Testing

extension CouchDBPeers {
    /// What a CouchDB that refuses documents (its `validate_doc_update`, the
    /// rules fprint's gateway applies) does to a sync: who signs what, what
    /// stays pending, what the exit says. Each test has its own database and
    /// users on the CouchDB of `CouchDBPeers`.
    @Suite struct RefusalTests {
        /// The gateway's rules as a design document: viewers write nothing,
        /// users only documents signed with their name, deletions only by admins.
        static let rules = #"""
            {"validate_doc_update": "function(newDoc, oldDoc, userCtx) { if (userCtx.roles.indexOf('_admin') !== -1) return; if (userCtx.roles.indexOf('viewer') !== -1) throw({forbidden: 'viewers may read but not write'}); if (newDoc._deleted) throw({forbidden: 'deletions are kept for review'}); if (newDoc.couchbase_sync_gateway_id !== userCtx.name) throw({forbidden: 'document ' + newDoc._id + ' must be signed with your id'}); if (oldDoc && oldDoc.couchbase_sync_gateway_id !== userCtx.name) throw({forbidden: 'document ' + newDoc._id + ' belongs to another user'}); }"}
            """#

        /// A database with the rules and three users of its own (alice and bob
        /// write, victor views); returns it and a URL maker for each user.
        static func ruledDatabase(_ couch: CouchDB) async throws -> (db: String, url: (String) -> String) {
            let db = try await couch.newDatabase("ruled")
            try await couch.must(.put, "\(db)/_design/rules", json: rules)
            let suffix = db.split(separator: "-").last!
            for (user, roles) in [("alice", ["user"]), ("bob", ["user"]), ("victor", ["viewer"])] {
                try await couch.createUser("\(user)-\(suffix)", password: "pw", roles: roles)
            }
            // CouchDB 3 opens a new database to admins only.
            try await couch.must(.put, "\(db)/_security", json: #"{"members":{"roles":["user","viewer"]}}"#)
            let node = couch.url
            return (db, { user in "http://\(user)-\(suffix):pw@\(node.host!):\(node.port!)/\(db)" })
        }

        static func owner(_ fp: FprintRunner, _ id: String) throws -> JSONValue? {
            try SQLiteDocumentStore(path: fp.db).document(id: id, includeDeleted: false)?.body[MeasurementDocument.ownerKey]
        }

        /// The sequence of issue 27: alice syncs; a new measurement; a viewer's
        /// sync is refused (77, naming the document) and leaves it unsigned and
        /// pending; bob's sync then signs it as bob, and nothing is left over.
        @Test func aRefusedPushLeavesTheDocumentUnsignedForTheNextUser() async throws {
            let couch = try CouchDB.current()
            let (db, url) = try await Self.ruledDatabase(couch)
            let fp = try FprintRunner()
            let first = try await fp.measureOne()
            let alice = try await fp.run(["sync", "--gateway", url("alice")])
            #expect(alice.status == 0, "\(alice.stderr)")
            #expect(try Self.owner(fp, first)?.stringValue?.hasPrefix("alice") == true)

            let pending = try await fp.measureOne()
            let viewer = try await fp.run(["sync", "--gateway", url("victor")])
            #expect(viewer.status == 77, "\(viewer.stderr)")
            #expect(viewer.stderr.contains("error: the gateway refused 1 document (\(pending)): forbidden: viewers may read but not write"),
                    "\(viewer.stderr)")
            #expect(try Self.owner(fp, pending) == .string("-"))
            let listed = try await fp.run(["list", "--unsynced", "--json"])
            #expect(listed.lines.count == 1 && listed.stdout.contains(pending) && listed.stdout.contains("viewers may read"),
                    "\(listed.stdout)")
            // The refusal names the revision here (the unsigned one), not the signed one that was not kept.
            let here = try #require(try SQLiteDocumentStore(path: fp.db).document(id: pending, includeDeleted: false)?.rev)
            let refusedNow = try fp.json(try await fp.run(["status", "--json"]).stdout)["refused"] as? [[String: Any]]
            #expect(refusedNow?.first?["rev"] as? String == here.description, "\(refusedNow ?? [])")

            let bob = try await fp.run(["sync", "--gateway", url("bob")])
            #expect(bob.status == 0, "\(bob.stderr)")
            #expect(bob.stdout.contains("signed 1 as bob"), "\(bob.stdout)")
            #expect(try Self.owner(fp, pending)?.stringValue?.hasPrefix("bob") == true)
            let served = try await couch.must(.get, "\(db)/\(pending)").object
            #expect((served["couchbase_sync_gateway_id"] as? String)?.hasPrefix("bob") == true)
            // Nothing left for anyone to clear: no refusal, nothing pending.
            let status = try await fp.run(["status", "--json"])
            let summary = try fp.json(status.stdout)
            #expect(summary["pending"] as? Int == 0)
            #expect((summary["refused"] as? [Any])?.isEmpty == true, "\(status.stdout)")
        }

        /// A document someone else signed is refused by the rules: the sync
        /// exits 77 naming it, and its owner stays as it was.
        @Test func aRefusalExits77NamingTheDocument() async throws {
            let couch = try CouchDB.current()
            let (_, url) = try await Self.ruledDatabase(couch)
            let fp = try FprintRunner()
            let id = try await fp.measureOne()
            let store = try SQLiteDocumentStore(path: fp.db)
            let doc = try #require(try store.document(id: id, includeDeleted: false))
            var body = doc.body
            body[MeasurementDocument.ownerKey] = "mallory"
            try store.update(id: id, body: body, expected: doc.rev)
            let sync = try await fp.run(["sync", "--gateway", url("alice")])
            #expect(sync.status == 77, "\(sync.stderr)")
            #expect(sync.stderr.contains("refused by the gateway: \(id): forbidden: document \(id) must be signed with your id"),
                    "\(sync.stderr)")
            #expect(sync.stderr.contains("error: the gateway refused 1 document (\(id))"), "\(sync.stderr)")
            // Refused is neither sent nor "already there".
            #expect(sync.stderr.contains("push: sent 0/1 (1 refused)") && !sync.stderr.contains("already there"), "\(sync.stderr)")
            #expect(try Self.owner(fp, id) == "mallory")
        }

        /// A deletion the peer refuses stays pending: `list --unsynced` shows
        /// it (and `--json` says `deleted` and why), `status` counts it.
        @Test func aRefusedDeletionIsPendingAndListed() async throws {
            let couch = try CouchDB.current()
            let (_, url) = try await Self.ruledDatabase(couch)
            let fp = try FprintRunner()
            let id = try await fp.measureOne()
            #expect(try await fp.run(["sync", "--gateway", url("alice")]).status == 0)
            #expect(try await fp.run(["delete", id, "--synced-too"]).status == 0)
            let sync = try await fp.run(["sync", "--gateway", url("alice")])
            #expect(sync.status == 77, "\(sync.stderr)")
            #expect(sync.stderr.contains("error: the gateway refused 1 document (\(id)): forbidden: deletions are kept for review"),
                    "\(sync.stderr)")
            let listed = try await fp.run(["list", "--unsynced", "--json"])
            let first = try #require(listed.lines.first)
            let line = try fp.json(first)
            #expect(listed.lines.count == 1)
            #expect(line["id"] as? String == id && line["deleted"] as? Bool == true)
            #expect((line["refused"] as? [String: Any])?["reason"] as? String == "forbidden: deletions are kept for review")
            let table = try await fp.run(["list", "--unsynced"])
            #expect(table.stdout.contains("no (deleted)") && table.stdout.contains("deletions are kept for review"), "\(table.stdout)")
            let status = try await fp.run(["status"])
            #expect(status.stdout.contains("pending:    1 not yet synced"), "\(status.stdout)")
            #expect(try fp.json(try await fp.run(["status", "--json"]).stdout)["pending"] as? Int == 1)
        }

        /// Documents imported from an Android dump carry no owner: they are
        /// signed at their first push like `-` ones. A document received from a
        /// peer without an owner is never signed: it goes on as it came.
        @Test func importedDocumentsAreSignedAtTheirFirstPushReceivedOnesNever() async throws {
            let couch = try CouchDB.current()
            let (db, url) = try await Self.ruledDatabase(couch)
            let fp = try FprintRunner()
            let dump = fp.home.appendingPathComponent("android.jsonl")
            let lines = (1...40).map { n in
                #"{"_id":"and-\#(n)","type":"scan","deviceId":"a1b2","createdAt":"2017-05-12T14:34:\#(n + 10)+02:00","x":\#(n),"y":1863,"level":"J1NP","bleScans":[],"wifiScans":[],"cellScans":[]}"#
            }
            try lines.joined(separator: "\n").write(to: dump, atomically: true, encoding: .utf8)
            let imported = try await fp.run(["import", dump.path])
            #expect(imported.status == 0, "\(imported.stderr)")
            #expect(try Self.owner(fp, "and-1") == nil)
            let sync = try await fp.run(["sync", "--gateway", url("bob")])
            #expect(sync.status == 0, "\(sync.stderr)")
            #expect(sync.stdout.contains("sent 40 of 40 changed, signed 40 as bob"), "\(sync.stdout)")
            let rows = try await couch.must(.get, "\(db)/_all_docs?include_docs=true").object["rows"] as? [[String: Any]] ?? []
            let signed = rows.compactMap { ($0["doc"] as? [String: Any])?["couchbase_sync_gateway_id"] as? String }
            #expect(signed.count == 40 && signed.allSatisfy { $0.hasPrefix("bob") }, "\(signed)")

            // A peer's document without an owner: received, then pushed on unchanged.
            let plain = try await couch.newDatabase("plain"), onward = try await couch.newDatabase("onward")
            try await couch.must(.put, "\(onward)/_security", json: #"{"members":{"roles":["user"]}}"#)
            let put = try await couch.must(.put, "\(plain)/peer-doc", json: #"{"type":"scan","level":"J1NP","x":1,"y":2}"#)
            let rev = try #require(put.object["rev"] as? String)
            let other = try FprintRunner()
            #expect(try await other.run(["sync", "--gateway", couch.adminURL(plain), "--pull-only"]).status == 0)
            let pushed = try await other.run(["sync", "--gateway", url("bob").replacingOccurrences(of: "/\(db)", with: "/\(onward)")])
            #expect(pushed.status == 0, "\(pushed.stderr)")
            #expect(!pushed.stdout.contains("signed"), "\(pushed.stdout)")
            let served = try await couch.must(.get, "\(onward)/peer-doc").object
            #expect(served["_rev"] as? String == rev && served["couchbase_sync_gateway_id"] == nil)
        }

        /// A design document met on pull is skipped and said so, not counted as
        /// "already here"; a push that signs prints its progress line once;
        /// `--quiet` prints no summary.
        @Test func designDocumentsProgressAndQuiet() async throws {
            let couch = try CouchDB.current()
            let (db, url) = try await Self.ruledDatabase(couch)
            let fp = try await SyncTests.walked()
            let push = try await fp.run(["sync", "--gateway", url("alice"), "--push-only"])
            #expect(push.status == 0, "\(push.stderr)")
            #expect(push.stderr.components(separatedBy: "push: sent 47/47").count - 1 == 1, "\(push.stderr)")

            let other = try FprintRunner()
            let pull = try await other.run(["sync", "--gateway", couch.adminURL(db), "--pull-only"])
            #expect(pull.status == 0, "\(pull.stderr)")
            #expect(pull.stdout.contains("received 47 of 47 changed (1 design document skipped)"), "\(pull.stdout)")
            #expect(!pull.stdout.contains("already here") && !pull.stderr.contains("already here"), "\(pull.stdout)\(pull.stderr)")

            let quiet = try await fp.run(["sync", "--gateway", url("alice"), "--quiet"])
            #expect(quiet.status == 0, "\(quiet.stderr)")
            #expect(quiet.stdout.isEmpty && quiet.stderr.isEmpty, "\(quiet.stdout)\(quiet.stderr)")
        }
    }
}

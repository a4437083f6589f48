import FPCore
import FPNet
import FPStore
import FPTestSupport
import Foundation
import Testing

extension CouchDBPeers {
    /// `fprint sync` against a real Apache CouchDB 3.5.0: push, pull, conflicts,
    /// a peer's text kept, attachments both ways, cookie login. A database per
    /// test on the CouchDB of `CouchDBPeers`.
    @Suite struct SyncTests {
        /// A sandbox holding one simulated walk of scenarioJ1NP1 (47 documents).
        static func walked() async throws -> FprintRunner {
            let fp = try FprintRunner()
            let walk = try await fp.run(["walk", "--scenario", "scenarioJ1NP1", "--simulate", "--fast"])
            #expect(walk.status == 0, "\(walk.stderr)")
            return fp
        }

        /// Every document of a local store: id → winning revision.
        static func local(_ fp: FprintRunner, db: String? = nil) throws -> [String: String] {
            try documentSet(db ?? fp.db).filter { !$0.value.hasSuffix("-deleted") }
        }

        /// Push 47 documents, pull them into a second store, edit one on both
        /// sides: CouchDB and both stores end with the same revisions, the same
        /// winner and the same conflict.
        @Test func pushPullAndConflictsAgreeWithCouchDB() async throws {
            let couch = try CouchDB.current()
            let db = try await couch.newDatabase("sync")
            let url = couch.adminURL(db)
            let fp = try await Self.walked()
            let push = try await fp.run(["sync", "--gateway", url, "--push-only"])
            #expect(push.status == 0, "\(push.stderr)")
            #expect(push.stdout.contains("sent 47 of 47 changed"), "\(push.stdout)")
            #expect(try await couch.revisions(db) == Self.local(fp))

            var other = fp
            other.environment["FPRINT_DB"] = fp.home.appendingPathComponent("other.sqlite").path
            let pull = try await other.run(["sync", "--gateway", url, "--pull-only"])
            #expect(pull.status == 0, "\(pull.stderr)")
            #expect(pull.stdout.contains("received 47 of 47 changed"), "\(pull.stdout)")
            #expect(try Self.local(other, db: other.environment["FPRINT_DB"]) == Self.local(fp))

            // Both devices edit the same document before syncing again.
            let id = try #require(Self.local(fp).keys.sorted().first)
            for (path, note) in [(fp.db, "here"), (other.environment["FPRINT_DB"]!, "there")] {
                let store = try SQLiteDocumentStore(path: path)
                let doc = try #require(try store.document(id: id, includeDeleted: false))
                var body = doc.body
                body["note"] = .string(note)
                try store.update(id: id, body: body, expected: doc.rev)
            }
            for runner in [fp, other, fp] {
                let r = try await runner.run(["sync", "--gateway", url])
                #expect(r.status == 0, "\(r.stderr)")
            }
            let doc = try await couch.must(.get, "\(db)/\(id)?conflicts=true").object
            let conflicts = try #require(doc["_conflicts"] as? [String])
            #expect(conflicts.count == 1)
            for path in [fp.db, other.environment["FPRINT_DB"]!] {
                let store = try SQLiteDocumentStore(path: path)
                #expect(try store.document(id: id, includeDeleted: false)?.rev.description == doc["_rev"] as? String)
                #expect(try store.conflicts(id: id).map(\.description) == conflicts)
            }
            #expect(try await couch.revisions(db) == Self.local(fp))
        }

        /// A document written to CouchDB with its members in an order of its
        /// own and numbers CouchDB keeps as written, and a deletion with a
        /// body: pulled into fprint, pushed to an empty database, each is
        /// served there byte for byte as at its source (same revision, same text).
        @Test func aPeersDocumentComesBackAsItWasSent() async throws {
            let couch = try CouchDB.current()
            let source = try await couch.newDatabase("text-src"), target = try await couch.newDatabase("text-dst")
            let sent = #"{"type":"scan","tenth":0.1,"one":1.0,"big":123456789012345678901234567890,"small":1.5e-7,"#
                + #""zeta":{"z":1,"a":[-125.0,3]},"alpha":"é","level":"J1NP","x":1,"y":2}"#
            try await couch.must(.put, "\(source)/k1", json: sent)
            // And a deletion that keeps a body (why, and a number as written).
            let tomb = try await couch.must(.put, "\(source)/tomb", json: #"{"type":"scan","x":1.50}"#).object
            let deletion = try await couch.must(.put, "\(source)/tomb?rev=\(tomb["rev"] as? String ?? "")",
                                                json: #"{"_deleted":true,"why":"measured twice","x":1.50}"#).object
            let tombRev = try #require(deletion["rev"] as? String)
            let fp = try FprintRunner()
            let pull = try await fp.run(["sync", "--gateway", couch.adminURL(source), "--pull-only"])
            #expect(pull.status == 0, "\(pull.stderr)")
            let push = try await fp.run(["sync", "--gateway", couch.adminURL(target), "--push-only"])
            #expect(push.status == 0, "\(push.stderr)")
            let original = try await couch.must(.get, "\(source)/k1").text
            #expect(try await couch.must(.get, "\(target)/k1").text == original)
            #expect(original.contains(#""type":"scan","tenth":0.1,"one":1.0,"big":123456789012345678901234567890"#))
            let tombstone = try await couch.must(.get, "\(source)/tomb?rev=\(tombRev)").text
            #expect(try await couch.must(.get, "\(target)/tomb?rev=\(tombRev)").text == tombstone)
            #expect(tombstone.contains(#""why":"measured twice""#) && tombstone.contains(#""_deleted":true"#), "\(tombstone)")
        }

        /// Attachments both ways: a `--keep-raw` capture pushed arrives with
        /// its bytes; CouchDB's own attachments (a text one it compresses, a
        /// binary one) pulled into fprint are written out byte for byte and
        /// pushed on to an empty database unchanged.
        @Test func attachmentsTravelBothWays() async throws {
            let couch = try CouchDB.current()
            let db = try await couch.newDatabase("att"), onward = try await couch.newDatabase("att-onward")
            let fp = try FprintRunner()
            let measured = try await fp.run(["measure", "--map", "J1NP", "--x", "1", "--y", "1", "--duration", "5", "--fast",
                                             "--ble-source", "btsnoop:" + BLECLITests.capture("csacca__horizon-74-at-ble-adv"),
                                             "--keep-raw", "--json"])
            #expect(measured.status == 0, "\(measured.stderr)")
            let line = try #require(measured.lines.first)
            let id = try #require(try fp.json(line)["_id"] as? String)
            let out = fp.home.appendingPathComponent("out")
            #expect(try await fp.run(["export", "attachments", "--output", out.path]).status == 0)
            let raw = try Data(contentsOf: out.appendingPathComponent("\(id)/raw.btsnoop"))
            #expect(try await fp.run(["sync", "--gateway", couch.adminURL(db), "--push-only"]).status == 0)
            #expect(try await couch.must(.get, "\(db)/\(id)/raw.btsnoop", accept: "*/*").body == raw)

            // CouchDB's own: a text attachment (stored gzip-compressed) and bytes.
            let text = Data(String(repeating: "hello fprint ", count: 200).utf8)
            let binary = Data((0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            let created = try await couch.must(.put, "\(db)/peer", json: #"{"type":"scan","level":"J1NP"}"#).object
            var rev = try #require(created["rev"] as? String)
            for (name, type, bytes) in [("note.txt", "text/plain", text), ("blob.bin", "application/octet-stream", binary)] {
                let answer = try await couch.request(.put, "\(db)/peer/\(name)?rev=\(rev)", body: bytes, contentType: type)
                #expect(answer.status == 201, "\(answer.text)")
                rev = try #require(answer.object["rev"] as? String)
            }
            let pull = try await fp.run(["sync", "--gateway", couch.adminURL(db), "--pull-only"])
            #expect(pull.status == 0, "\(pull.stderr)")
            let written = fp.home.appendingPathComponent("pulled")
            #expect(try await fp.run(["export", "attachments", "--output", written.path]).status == 0)
            #expect(try Data(contentsOf: written.appendingPathComponent("peer/note.txt")) == text)
            #expect(try Data(contentsOf: written.appendingPathComponent("peer/blob.bin")) == binary)
            #expect(try await fp.run(["sync", "--gateway", couch.adminURL(onward), "--push-only"]).status == 0)
            #expect(try await couch.must(.get, "\(onward)/peer/note.txt", accept: "*/*").body == text)
            #expect(try await couch.must(.get, "\(onward)/peer/blob.bin", accept: "*/*").body == binary)
            #expect(try await couch.revisions(onward) == couch.revisions(db))
        }

        /// `fprint login` against CouchDB: a form `POST /_session`, the cookie
        /// stored; a sync with it reaches a members-only database and signs the
        /// documents with the CouchDB user's name.
        @Test func aCookieLoginSyncsAndSignsAsTheUser() async throws {
            let couch = try CouchDB.current()
            let db = try await couch.newDatabase("cookie")
            try await couch.createUser("carol", password: "s3cret pass")
            try await couch.must(.put, "\(db)/_security", json: #"{"members":{"names":["carol"],"roles":[]}}"#)
            var fp = try await Self.walked()
            let url = couch.plainURL(db)
            let login = try await fp.run(["login", "--user", "carol", "--gateway", url], stdin: "s3cret pass\n")
            #expect(login.status == 0, "\(login.stderr)")
            let status = try await fp.run(["status", "--gateway", url])
            #expect(status.stdout.contains("CouchDB session of user carol"), "\(status.stdout)")
            let sync = try await fp.run(["sync", "--gateway", url])
            #expect(sync.status == 0, "\(sync.stderr)")
            #expect(sync.stdout.contains("signed 47 as carol"), "\(sync.stdout)")
            let rows = try await couch.must(.get, "\(db)/_all_docs?include_docs=true").object["rows"] as? [[String: Any]] ?? []
            #expect(rows.count == 47)
            #expect(rows.allSatisfy { ($0["doc"] as? [String: Any])?["couchbase_sync_gateway_id"] as? String == "carol" })
            // Without the cookie the database is closed.
            fp.environment["XDG_CONFIG_HOME"] = fp.home.appendingPathComponent("elsewhere").path
            let anonymous = try await fp.run(["sync", "--gateway", url, "--pull-only"])
            #expect(anonymous.status == 77, "\(anonymous.stderr)")
        }

        /// The session's life against CouchDB itself: a wrong password is
        /// CouchDB's refusal (77); the cookie is kept per URL in a 0600 file;
        /// a cookie CouchDB no longer takes (the user's salt changed) gets a
        /// 401 and fprint logs in again with the stored password; a cookie
        /// that expired here is renewed before the first request. Neither the
        /// password nor a cookie is ever printed.
        @Test func aSessionCookieIsRenewedWhenRefusedOrExpired() async throws {
            let couch = try CouchDB.current()
            let db = try await couch.newDatabase("renew")
            let user = "dave-\(db.suffix(8))", password = "pw of dave"
            try await couch.createUser(user, password: password)
            try await couch.must(.put, "\(db)/_security", json: #"{"members":{"names":["\#(user)"],"roles":[]}}"#)
            let fp = try FprintRunner()
            let url = couch.plainURL(db)
            let wrong = try await fp.run(["login", "--user", user, "--gateway", url], stdin: "not it\n")
            #expect(wrong.status == 77 && wrong.stderr.contains("Name or password is incorrect."), "\(wrong.stderr)")
            let login = try await fp.run(["login", "--user", user, "--gateway", url], stdin: "\(password)\n")
            #expect(login.status == 0, "\(login.stderr)")
            let file = fp.home.appendingPathComponent("config/fprint/credentials.json")
            #expect(try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int == 0o600)
            func stored() throws -> [String: Any] {
                let all = try fp.json(String(contentsOf: file, encoding: .utf8))["gateways"] as? [String: [String: Any]]
                return all?[url] ?? [:]
            }
            let first = try #require(try stored()["cookie"] as? String)
            #expect(try stored()["type"] as? String == "session")
            var outputs = [login.stdout, login.stderr]

            // CouchDB stops taking the cookie: the user's password is set again (a new salt).
            let userDoc = try await couch.must(.get, "_users/org.couchdb.user:\(user)").object
            let rev = try #require(userDoc["_rev"] as? String)
            try await couch.must(.put, "_users/org.couchdb.user:\(user)?rev=\(rev)",
                                 json: #"{"name":"\#(user)","password":"\#(password)","roles":[],"type":"user"}"#)
            // Once CouchDB's user cache has the change, the old cookie names nobody.
            #expect(await CouchDB.eventually {
                let answer = try? await CouchDB.send(.get, couch.url.appendingPathComponent("_session"), user: nil,
                                                     cookie: "AuthSession=\(first)")
                return (answer?.object["userCtx"] as? [String: Any])?["name"] is NSNull
            })
            _ = try await fp.measureOne()
            let refused = try await fp.run(["sync", "--gateway", url])
            #expect(refused.status == 0, "\(refused.stderr)")
            #expect(refused.stdout.contains("sent 1 of 1 changed, signed 1 as \(user)"), "\(refused.stdout)")
            let second = try #require(try stored()["cookie"] as? String)
            #expect(second != first)
            outputs += [refused.stdout, refused.stderr]

            // Expired here: logged in again before anything else, the new lifetime stored.
            var all = try fp.json(String(contentsOf: file, encoding: .utf8))
            var gateways = all["gateways"] as? [String: [String: Any]] ?? [:]
            gateways[url]?["expiresAtMs"] = Int(Date().timeIntervalSince1970 * 1000) - 1000
            all["gateways"] = gateways
            try JSONSerialization.data(withJSONObject: all).write(to: file)
            let expired = try await fp.run(["sync", "--gateway", url])
            #expect(expired.status == 0, "\(expired.stderr)")
            #expect(try stored()["expiresAtMs"] as? Int ?? 0 > Int(Date().timeIntervalSince1970 * 1000) + 300_000)
            #expect(try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int == 0o600)
            outputs += [expired.stdout, expired.stderr]
            for text in outputs {
                #expect(!text.contains(password) && !text.contains(first) && !text.contains(second), "\(text)")
            }
        }
    }
}

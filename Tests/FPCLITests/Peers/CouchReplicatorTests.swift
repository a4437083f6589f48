import FPCore
import FPNet
import FPStore
import FPTestSupport
import Foundation
import Testing

extension CouchDBPeers {
    /// CouchDB 3.5.0's own replicator with `fprint gateway` as its source and as
    /// its target, one-shot and continuous, with attachments (fprint's
    /// `--keep-raw` captures, CouchDB's text and binary ones) and a design
    /// document. A gateway and databases per test; the CouchDB of `CouchDBPeers`.
    @Suite struct ReplicatorTests {
        /// A gateway with an admin user the replicator logs in as (form
        /// `POST /_session`, as its session plugin does), and a sandbox to fill it.
        struct Gateway {
            var runner: FprintRunner
            var process: GatewayProcess
            /// `http://replicator:pw@127.0.0.1:PORT/fprint`.
            var url: String
        }

        static func gateway() async throws -> Gateway {
            let runner = try FprintRunner()
            let users = runner.home.appendingPathComponent("users").path
            try "replicator:pw:admin\n".write(toFile: users, atomically: true, encoding: .utf8)
            chmod(users, 0o600)
            let process = try await GatewayProcess(runner: runner, db: runner.home.appendingPathComponent("gw.sqlite").path,
                                                   secret: runner.home.appendingPathComponent("secret").path,
                                                   extra: ["--users", users])
            return Gateway(runner: runner, process: process, url: "http://replicator:pw@127.0.0.1:\(process.port)/fprint")
        }

        /// One walk and two `--keep-raw` measurements into the gateway, by `fprint sync`.
        static func fill(_ gateway: Gateway) async throws {
            let fp = gateway.runner
            #expect(try await fp.run(["walk", "--scenario", "scenarioJ1NP1", "--simulate", "--fast"]).status == 0)
            for x in ["1", "2"] {
                let m = try await fp.run(["measure", "--map", "J1NP", "--x", x, "--y", "1", "--duration", "5", "--fast",
                                          "--ble-source", "btsnoop:" + BLECLITests.capture("csacca__horizon-74-at-ble-adv"),
                                          "--keep-raw"])
                #expect(m.status == 0, "\(m.stderr)")
            }
            let sync = try await fp.run(["sync", "--gateway", gateway.url, "--push-only"])
            #expect(sync.status == 0, "\(sync.stderr)")
        }

        /// `POST /_replicate` (one-shot; CouchDB answers once the job ended).
        static func replicate(_ couch: CouchDB, from source: String, to target: String) async throws -> [String: Any] {
            let answer = try await couch.request(.post, "_replicate", json: #"{"source":"\#(source)","target":"\#(target)"}"#)
            #expect(answer.status == 200, "\(answer.text)")
            return answer.object
        }

        /// The attachment bytes of every document with `raw.btsnoop`, by id, as the sandbox exports them.
        static func captures(_ fp: FprintRunner) async throws -> [String: Data] {
            let out = fp.home.appendingPathComponent("export-\(UUID().uuidString)")
            #expect(try await fp.run(["export", "attachments", "--output", out.path]).status == 0)
            var found: [String: Data] = [:]
            for id in (try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? [] {
                found[id] = try Data(contentsOf: out.appendingPathComponent("\(id)/raw.btsnoop"))
            }
            return found
        }

        /// The gateway as the source of a one-shot replication: every document
        /// arrives with its revision, and the captures with their bytes
        /// (CouchDB's replicator reads them with `open_revs` and
        /// `multipart/mixed`, without `attachments=true`).
        @Test func oneShotFromTheGatewayCopiesEverythingWithAttachments() async throws {
            let couch = try CouchDB.current()
            let gateway = try await Self.gateway()
            defer { gateway.process.kill9() }
            try await Self.fill(gateway)
            let target = try await couch.newDatabase("from-gw")
            let result = try await Self.replicate(couch, from: gateway.url, to: couch.adminURL(target))
            #expect(result["ok"] as? Bool == true, "\(result)")
            let history = (result["history"] as? [[String: Any]])?.first ?? [:]
            #expect(history["doc_write_failures"] as? Int == 0, "\(result)")
            #expect(try await couch.revisions(target) == documentSet(gateway.process.db))
            let captures = try await Self.captures(gateway.runner)
            #expect(captures.count == 2)
            for (id, bytes) in captures {
                #expect(try await couch.must(.get, "\(target)/\(id)/raw.btsnoop", accept: "*/*").body == bytes)
            }
        }

        /// A continuous job from the gateway keeps copying: what is synced into
        /// the gateway later arrives too, and the job keeps running.
        @Test func continuousFromTheGatewayFollowsNewDocuments() async throws {
            let couch = try CouchDB.current()
            let gateway = try await Self.gateway()
            defer { gateway.process.kill9() }
            try await Self.fill(gateway)
            let target = try await couch.newDatabase("cont-from-gw")
            let job = "job-\(target)"
            try await couch.must(.put, "_replicator/\(job)", json: #"""
                {"source":"\#(gateway.url)","target":"\#(couch.adminURL(target))","continuous":true}
                """#)
            #expect(await CouchDB.eventually { (try? await couch.revisions(target)) == (try? documentSet(gateway.process.db)) })
            let more = try await gateway.runner.run(["walk", "--scenario", "scenarioJ1NP1", "--simulate", "--fast"])
            #expect(more.status == 0)
            #expect(try await gateway.runner.run(["sync", "--gateway", gateway.url, "--push-only"]).status == 0)
            #expect(try documentSet(gateway.process.db).count == 96)
            #expect(await CouchDB.eventually { (try? await couch.revisions(target)) == (try? documentSet(gateway.process.db)) })
            let state = try await couch.must(.get, "_scheduler/docs/_replicator/\(job)").object
            #expect(state["state"] as? String == "running", "\(state)")
            try await Self.stop(couch, job: job)
            for (id, bytes) in try await Self.captures(gateway.runner) {
                #expect(try await couch.must(.get, "\(target)/\(id)/raw.btsnoop", accept: "*/*").body == bytes)
            }
        }

        /// A CouchDB database with what peers hold: fprint's documents, one with
        /// a text attachment CouchDB compresses and a binary one, one whose
        /// members and numbers are in an order and form of their own, and a
        /// design document. Returns the name and the text document's answer.
        static func peerDatabase(_ couch: CouchDB, prefix: String) async throws -> String {
            let db = try await couch.newDatabase(prefix)
            let fp = try await SyncTests.walked()
            #expect(try await fp.run(["sync", "--gateway", couch.adminURL(db), "--push-only"]).status == 0)
            try await couch.must(.put, "\(db)/ordered", json: #"{"type":"scan","tenth":0.1,"one":1.0,"big":123456789012345678901234567890,"zeta":{"z":1,"a":[-125.0]},"alpha":"é"}"#)
            let created = try await couch.must(.put, "\(db)/with-files", json: #"{"type":"scan","level":"J1NP"}"#).object
            var rev = try #require(created["rev"] as? String)
            for (name, type, bytes) in [("note.txt", "text/plain", Data(String(repeating: "fprint ", count: 300).utf8)),
                                        ("blob.bin", "application/octet-stream", Data((0..<2000).map { UInt8(truncatingIfNeeded: $0 &* 13) }))] {
                let answer = try await couch.request(.put, "\(db)/with-files/\(name)?rev=\(rev)", body: bytes, contentType: type)
                #expect(answer.status == 201, "\(answer.text)")
                rev = try #require(answer.object["rev"] as? String)
            }
            try await couch.must(.put, "\(db)/_design/views", json: #"{"views":{"all":{"map":"function(doc){emit(doc._id,null)}"}}}"#)
            // A tombstone with a body of its own (a deletion that says why).
            let tomb = try await couch.must(.put, "\(db)/tomb", json: #"{"type":"scan","x":1.50}"#).object
            try await couch.must(.put, "\(db)/tomb?rev=\(tomb["rev"] as? String ?? "")",
                                 json: #"{"_deleted":true,"why":"measured twice","x":1.50}"#)
            return db
        }

        /// The documents a database holds, as `documentSet` gives a store's:
        /// id → winning revision, `-deleted` after a deletion's; design
        /// documents left out (the gateway stores none).
        static func expected(_ couch: CouchDB, _ db: String) async throws -> [String: String] {
            let rows = try await couch.must(.get, "\(db)/_changes").object["results"] as? [[String: Any]] ?? []
            var out: [String: String] = [:]
            for row in rows {
                guard let id = row["id"] as? String, !id.hasPrefix("_design/"),
                      let rev = (row["changes"] as? [[String: Any]])?.first?["rev"] as? String else { continue }
                out[id] = rev + (row["deleted"] as? Bool == true ? "-deleted" : "")
            }
            return out
        }

        /// The gateway as the target: everything but the design document (403,
        /// which the replicator skips) arrives, attachments byte for byte, and
        /// the gateway serves a document as CouchDB does, text and all.
        @Test func oneShotIntoTheGatewayKeepsTextAndAttachments() async throws {
            let couch = try CouchDB.current()
            let gateway = try await Self.gateway()
            defer { gateway.process.kill9() }
            let source = try await Self.peerDatabase(couch, prefix: "to-gw")
            let result = try await Self.replicate(couch, from: couch.adminURL(source), to: gateway.url)
            #expect(result["ok"] as? Bool == true, "\(result)")
            #expect(try documentSet(gateway.process.db) == (try await Self.expected(couch, source)))
            try await Self.expectServedAsCouchDB(couch, source, gateway)

            // And on again into an empty database: the same revisions, text and
            // bytes (the text attachment arrived gzip-encoded and is sent plain).
            let onward = try await couch.newDatabase("gw-onward")
            let back = try await Self.replicate(couch, from: gateway.url, to: couch.adminURL(onward))
            #expect(back["ok"] as? Bool == true, "\(back)")
            #expect(try await Self.expected(couch, onward) == (try await Self.expected(couch, source)))
            let tombRev = try #require(try await Self.expected(couch, source)["tomb"]?.replacingOccurrences(of: "-deleted", with: ""))
            for path in ["ordered", "with-files/note.txt", "with-files/blob.bin", "tomb?rev=\(tombRev)"] {
                #expect(try await couch.request(.get, "\(onward)/\(path)", accept: "*/*").body
                        == (try await couch.request(.get, "\(source)/\(path)", accept: "*/*").body), "\(path)")
            }
        }

        /// A continuous job into the gateway, and documents added to CouchDB
        /// afterwards arrive too.
        @Test func continuousIntoTheGatewayFollowsNewDocuments() async throws {
            let couch = try CouchDB.current()
            let gateway = try await Self.gateway()
            defer { gateway.process.kill9() }
            let source = try await Self.peerDatabase(couch, prefix: "cont-to-gw")
            let job = "job-\(source)"
            try await couch.must(.put, "_replicator/\(job)", json: #"""
                {"source":"\#(couch.adminURL(source))","target":"\#(gateway.url)","continuous":true}
                """#)
            #expect(await CouchDB.eventually { (try? documentSet(gateway.process.db)) == (try? await Self.expected(couch, source)) })
            try await couch.must(.put, "\(source)/later", json: #"{"type":"scan","n":2.50}"#)
            #expect(await CouchDB.eventually { (try? documentSet(gateway.process.db)) == (try? await Self.expected(couch, source)) })
            let state = try await couch.must(.get, "_scheduler/docs/_replicator/\(job)").object
            #expect(state["state"] as? String == "running", "\(state)")
            try await Self.stop(couch, job: job)
            try await Self.expectServedAsCouchDB(couch, source, gateway)
        }

        /// The gateway answers `GET` of the peer's documents with CouchDB's own
        /// text, and their attachments with CouchDB's bytes.
        static func expectServedAsCouchDB(_ couch: CouchDB, _ source: String, _ gateway: Gateway) async throws {
            func fromGateway(_ path: String) async throws -> CouchDB.Answer {
                let answer = try await CouchDB.send(.get, URL(string: "http://127.0.0.1:\(gateway.process.port)/fprint/\(path)")!,
                                                    user: ("replicator", "pw"), accept: "*/*")
                #expect(answer.status == 200, "GET \(path): \(answer.text)")
                return answer
            }
            for id in ["ordered", "later"] where try await couch.request(.get, "\(source)/\(id)").status == 200 {
                let served = try await fromGateway(id).text.trimmingCharacters(in: .newlines)
                #expect(served == (try await couch.must(.get, "\(source)/\(id)").text.trimmingCharacters(in: .newlines)))
            }
            for name in ["note.txt", "blob.bin"] {
                #expect(try await fromGateway("with-files/\(name)").body
                        == (try await couch.request(.get, "\(source)/with-files/\(name)", accept: "*/*").body))
            }
        }

        /// Ends a continuous job (deleting its `_replicator` document).
        static func stop(_ couch: CouchDB, job: String) async throws {
            let rev = try await couch.must(.get, "_replicator/\(job)").object["_rev"] as? String ?? ""
            try await couch.must(.delete, "_replicator/\(job)?rev=\(rev)")
        }
    }
}

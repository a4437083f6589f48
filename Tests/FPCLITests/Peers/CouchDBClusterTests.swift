import FPCore
import FPNet
import FPStore
import FPTestSupport
import Foundation
import Testing

/// `fprint sync` against a real three-node CouchDB 3.5.0 cluster (n=3, q=2)
/// whose node the push talks to is killed in the middle of the push: the
/// sync fails as unreachable, nothing is lost, and the next sync through a
/// surviving node completes with every document there, signed once.
@Suite(.enabled(if: RealPeers.couchDBRuns, RealPeers.couchDBNote), SharedCouchDB(nodes: 3))
struct CouchDBClusterTests {
    /// An Android-style dump of `count` documents without an owner: each is
    /// signed at its first push, so a push cut short leaves some signed
    /// (accepted) and some not.
    static func dump(_ fp: FprintRunner, count: Int) throws -> URL {
        let file = fp.home.appendingPathComponent("android.jsonl")
        let lines = (1...count).map { n in
            #"{"_id":"and-\#(n)","type":"scan","deviceId":"a1b2","createdAt":"2017-05-12T14:\#(10 + n / 60):\#(10 + n % 50)+02:00","x":\#(n),"y":1863,"level":"J1NP","bleScans":[],"wifiScans":[],"cellScans":[]}"#
        }
        try lines.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    @Test func aNodeKilledMidPushLosesNothingAndTheNextSyncCompletes() async throws {
        let couch = try CouchDB.current()
        #expect(couch.nodes.count == 3)
        let db = try await couch.newDatabase("cluster")
        let fp = try FprintRunner()
        let imported = try await fp.run(["import", try Self.dump(fp, count: 400).path])
        #expect(imported.status == 0, "\(imported.stderr)")

        // The push through node 1, 20 documents a batch; once a batch is
        // through and more are left, the sync is held (SIGSTOP) while node 1
        // is killed, then let go: it is cut off in the middle of its push.
        let sync = try await BackgroundFprint(fp, ["sync", "--gateway", couch.adminURL(db, node: 0), "--push-only",
                                             "--batch-size", "20"])
        let (exit, said) = (sync.exit, sync.stderr)
        let cut = Handover<Int?>()
        let (pid, node) = (sync.pid, couch.pids[0])
        // On a plain thread: the hold must come while the push is under way,
        // and a task on the cooperative pool may wait seconds under load.
        Thread {
            while true {
                let lines = String(decoding: said.soFar, as: UTF8.self).split(separator: "\n")
                if let sent = lines.compactMap(Self.sentSoFar).first(where: { $0 > 0 && $0 < 400 }) {
                    kill(pid, SIGSTOP)
                    kill(node, SIGKILL)
                    // A bound only against hanging: a killed process is gone within moments.
                    for _ in 0..<30_000 where kill(node, 0) == 0 && !Self.isZombie(node) { usleep(10_000) }
                    kill(pid, SIGCONT)
                    cut.fulfil(sent)
                    return
                }
                if exit.isFulfilled { cut.fulfil(nil); return }
                usleep(5_000)
            }
        }.start()
        let sentBeforeTheCut = await cut.value()
        let status = await exit.value()
        let stderr = String(decoding: await said.data(), as: UTF8.self)
        #expect(sentBeforeTheCut != nil, "the push ended before a node could be killed: \(stderr)")
        #expect(status == 75, "\(stderr)")
        #expect(stderr.contains("error: gateway unreachable"), "\(stderr)")

        // Nothing lost here: 400 documents, those accepted before the cut signed.
        let store = try SQLiteDocumentStore(path: fp.db)
        #expect(try store.count() == 400)
        let owners = try (1...400).map { try store.document(id: "and-\($0)", includeDeleted: false)?.body[MeasurementDocument.ownerKey] }
        #expect(owners.allSatisfy { $0 == nil || $0 == "admin" })
        #expect(owners.contains("admin"), "no batch was accepted before the cut")

        // The next sync, through node 2, completes; it signs the rest.
        let next = try await fp.run(["sync", "--gateway", couch.adminURL(db, node: 1)])
        #expect(next.status == 0, "\(next.stderr)")
        let local = try documentSet(fp.db)
        #expect(local.count == 400 && local.values.allSatisfy { $0.hasPrefix("2-") }, "\(local.values.sorted().prefix(5))")
        #expect(try (1...400).allSatisfy {
            try SQLiteDocumentStore(path: fp.db).document(id: "and-\($0)", includeDeleted: false)?.body[MeasurementDocument.ownerKey] == "admin"
        })
        // Every document, as stored here, through each surviving node.
        for survivor in [1, 2] {
            #expect(try await couch.revisions(db, node: survivor) == local, "node \(survivor + 1)")
        }
        // And once more: nothing left to send, no conflict anywhere.
        let again = try await fp.run(["sync", "--gateway", couch.adminURL(db, node: 2)])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("sent 0 of"), "\(again.stdout)")
        let conflicted = try await couch.must(.get, "\(db)/_all_docs?include_docs=true&conflicts=true", node: 2)
            .object["rows"] as? [[String: Any]] ?? []
        #expect(conflicted.count == 400)
        #expect(conflicted.allSatisfy { ($0["doc"] as? [String: Any])?["_conflicts"] == nil })
    }

    /// N of `push: sent N/M …`.
    static func sentSoFar(_ line: Substring) -> Int? {
        guard line.hasPrefix("push: sent "), let slash = line.firstIndex(of: "/") else { return nil }
        return Int(line[line.index(line.startIndex, offsetBy: 11)..<slash])
    }

    static func isZombie(_ pid: Int32) -> Bool {
        (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))?.contains(") Z ") == true
    }
}

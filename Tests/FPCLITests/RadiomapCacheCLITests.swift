import FPCore
import FPStore
import Foundation
import Testing

/// `fprint eval` reads the packed radiomap beside the database while it was made
/// from exactly the stored documents, and never after any of them changed.
@Suite struct RadiomapCacheCLITests {
    static let args = ["eval", "--train", "campaign=trn01", "--test", "set=test", "--group-by", "month", "--method", "knn1", "--csv"]

    func modified(_ path: String) throws -> Date {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date)
    }

    @Test func aChangedDocumentIsSeenAtOnce() async throws {
        let fp = try await EvalHoldoutCLITests.imported()
        let pack = fp.db + "-radiomap"
        let first = try await fp.run(Self.args)
        #expect(first.status == 0, "\(first.stderr)")
        // knn1: every test fingerprint's nearest is its own point (EvalHoldoutCLITests): all errors 0.
        #expect(first.lines.dropFirst().allSatisfy { $0.hasPrefix("01,knn1,6,4,0.0,") || $0.hasPrefix("02,knn1,6,4,0.0,") },
                "\(first.stdout)")
        #expect(FileManager.default.fileExists(atPath: pack))
        let packed = try modified(pack)

        // Unchanged documents: the same figures, from the pack as it was (not made again).
        let second = try await fp.run(Self.args)
        #expect(second.status == 0 && second.stdout == first.stdout, "\(second.stderr)")
        #expect(try modified(pack) == packed)

        // Month 01's first test fingerprint moved 3 m: its error is 3 now, so month 01's mean is 0.75.
        let store = try SQLiteDocumentStore(path: fp.db)
        let id = try #require(try store.list(ListQuery()).map(\.id).first { $0.hasSuffix(":01:tst01:1") })
        let stored = try #require(try store.document(id: id, includeDeleted: false))
        var body = stored.body
        let x = try #require(body["position"]?["x"]?.doubleValue)
        body["position"]?["x"] = .double(x + 3)
        _ = try store.update(id: id, body: body, expected: stored.rev)
        let moved = try await fp.run(Self.args)
        #expect(moved.status == 0, "\(moved.stderr)")
        #expect(moved.lines.dropFirst().first?.hasPrefix("01,knn1,6,4,0.75,") == true, "\(moved.stdout)")
        #expect(moved.lines.last?.hasPrefix("02,knn1,6,4,0.0,") == true, "\(moved.stdout)")

        // A deleted one is gone from the next evaluation.
        let deleted = try await fp.run(["delete", id])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        let after = try await fp.run(Self.args)
        #expect(after.lines.dropFirst().first?.hasPrefix("01,knn1,6,3,0.0,") == true, "\(after.stdout)")
    }

    /// A pack that is not one (damaged, or another file at that name) is ignored and replaced.
    @Test func aDamagedPackIsReadPast() async throws {
        let fp = try await EvalHoldoutCLITests.imported()
        try Data("FPPK not a pack".utf8).write(to: URL(fileURLWithPath: fp.db + "-radiomap"))
        let r = try await fp.run(Self.args)
        #expect(r.status == 0 && r.lines.count == 3, "\(r.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: fp.db + "-radiomap")).count > 100)
    }
}

import Foundation
import Testing

/// Converted legacy documents carry their original start as `createdAt`
/// and their duration, read from the iOS app's local times in --timezone.
@Suite struct LegacyTimesCLITests {
    static let fixture = FprintRunner.repositoryRoot
        .appendingPathComponent("Tests/FPCoreTests/Fixtures/legacy-ios-all-docs.json").path

    @Test func convertedDocumentsKeepTheirStartAndDuration() async throws {
        let fp = try FprintRunner()
        let imported = try await fp.run(["import", "--timezone", "Europe/Prague", Self.fixture])
        #expect(imported.status == 0, "\(imported.stderr)")
        // "2017-05-12 14:33:21" and "12.05.2017 14:40:02" in Prague (CEST, UTC+2)
        let first = "0B6F1D2E-6C1A-4C5E-9C63-2B1F6B0E8A11", second = "5E2C7A90-1B3D-4F6E-8A9C-0D1E2F3A4B5C"
        let json = try await fp.run(["list", "--json"])
        let created = Dictionary(uniqueKeysWithValues: try json.lines.map { line in
            let o = try fp.json(line)
            return (o["id"] as? String ?? "", o["createdAt"] as? String ?? "")
        })
        #expect(created[first] == "2017-05-12T12:33:21.000Z", "\(json.stdout)")
        #expect(created[second] == "2017-05-12T12:40:02.000Z", "\(json.stdout)")

        let since = try await fp.run(["list", "--since", "2017-01-01", "--json"])
        #expect(since.lines.count == 2, "\(since.stdout)")
        let before = try await fp.run(["list", "--since", "2017-05-12T12:35:00Z", "--json"])
        #expect(before.lines.count == 1 && before.stdout.contains(second), "\(before.stdout)")

        let csv = try await fp.run(["export", "csv"])
        #expect(csv.status == 0, "\(csv.stderr)")
        let rows = csv.lines.filter { $0.hasPrefix(first + ",") }
        #expect(!rows.isEmpty && rows.allSatisfy { $0.hasPrefix(first + ",2017-05-12T12:33:21.000Z,") }, "\(csv.stdout)")

        let show = try await fp.run(["show", first])
        #expect(show.status == 0, "\(show.stderr)")
        #expect(show.stdout.contains("20000 ms"), "\(show.stdout)")
        // The originals are kept as they were written
        let raw = try fp.json(try await fp.run(["show", first, "--json"]).stdout)
        let legacy = raw["legacy"] as? [String: Any]
        #expect(legacy?["startTime"] as? String == "2017-05-12 14:33:21")
    }
}

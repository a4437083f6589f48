import Foundation
import Testing

/// docs/datasets.md's "paper's protocol" command, as written there, takes
/// test campaigns tst01…tst05 of each month only: later months of the full
/// UJI dataset have ten, which `set=test` would take in too.
@Suite struct UJIProtocolDocCLITests {
    /// The doc's `--json > months.json` line, split as a shell splits it.
    static func docArguments() throws -> [String] {
        let doc = try String(contentsOf: FprintRunner.repositoryRoot.appendingPathComponent("docs/datasets.md"), encoding: .utf8)
        let line = try #require(doc.split(separator: "\n").first { $0.hasPrefix("fprint eval") && $0.hasSuffix("--json > months.json") })
        var words: [String] = [], word = "", quoted = false
        for c in line.dropFirst("fprint ".count).dropLast(" > months.json".count) {
            if c == "'" { quoted.toggle() } else if c == " " && !quoted { words.append(word); word = "" } else { word.append(c) }
        }
        return words + [word]
    }

    @Test func theDocsSelectionKeepsToTheFirstFiveTestCampaigns() async throws {
        let fp = try FprintRunner()
        // The mini layout named as the doc names the dataset, month 02 with a sixth test campaign.
        let folder = fp.home.appendingPathComponent("uji-lib-longterm")
        try FileManager.default.copyItem(atPath: DatasetFixtures.path("uji-mini"), toPath: folder.path)
        let month = folder.appendingPathComponent("db/02")
        for part in ["rss", "crd", "tms", "ids"] {
            try FileManager.default.copyItem(at: month.appendingPathComponent("tst01\(part).csv"),
                                             to: month.appendingPathComponent("tst06\(part).csv"))
        }
        let imported = try await fp.run(["import", folder.path])
        #expect(imported.status == 0, "\(imported.stderr)")

        let args = try Self.docArguments()
        #expect(args.contains("dataset=uji-lib-longterm,campaign=tst01|tst02|tst03|tst04|tst05"), "\(args)")
        let eval = try await fp.run(args)
        #expect(eval.status == 0, "\(eval.stderr)")
        let groups = try #require(try fp.json(eval.stdout)["groups"] as? [[String: Any]])
        let tests = Dictionary(uniqueKeysWithValues: groups.map { ($0["group"] as? String ?? "", $0["test"] as? Int ?? -1) })
        #expect(tests == ["01": 4, "02": 4], "\(tests)")

        // What set=test would have taken: tst06 too.
        var wide = args
        wide[wide.firstIndex(of: "--test")! + 1] = "dataset=uji-lib-longterm,set=test"
        let all = try fp.json(try await fp.run(wide).stdout)["groups"] as? [[String: Any]]
        #expect(all?.first { $0["group"] as? String == "02" }?["test"] as? Int == 8)
    }
}

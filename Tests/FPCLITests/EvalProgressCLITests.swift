import FPTestSupport
import Foundation
import Testing
@testable import FPCLI

/// A train/test evaluation says what it selected before the long work (on
/// a terminal or piped), and on a terminal shows its progress: with the
/// UJI layout (`uji-mini`, 2 months × 4 test fingerprints) and the
/// ble-flat-robot layout (`ble-flat-mini`, 4 rows as set=train and again as
/// set=test) imported, `set=train`/`set=test` take both datasets, as
/// docs/datasets.md's robot example did.
@Suite struct EvalProgressCLITests {
    static func bothImported() async throws -> FprintRunner {
        let fp = try FprintRunner()
        #expect(try await fp.run(["import", DatasetFixtures.path("uji-mini")]).status == 0)
        let train = try await fp.run(["import", DatasetFixtures.path("ble-flat-mini.csv")] + DatasetFixtures.flatMapping + ["--tag", "set=train"])
        #expect(train.status == 0, "\(train.stderr)")
        // Another file name: the same file's rows would be the same documents.
        let testFile = fp.home.appendingPathComponent("test_robot_df.csv")
        try FileManager.default.copyItem(atPath: DatasetFixtures.path("ble-flat-mini.csv"), toPath: testFile.path)
        let test = try await fp.run(["import", testFile.path] + DatasetFixtures.flatMapping + ["--tag", "set=test"])
        #expect(test.status == 0, "\(test.stderr)")
        return fp
    }

    static let bothSets = ["eval", "--train", "set=train", "--test", "set=test", "--method", "knn1,gk4k12"]

    @Test func pipedOutputGainsOnlyTheSelectionLine() async throws {
        let fp = try await Self.bothImported()
        let r = try await fp.run(Self.bothSets)
        #expect(r.status == 0, "\(r.stderr)")
        let selected = r.stderr.split(separator: "\n").filter { $0.hasPrefix("selected: ") }
        #expect(selected == ["selected: train 16 fingerprints from 2 datasets (uji-mini 12, ble-flat-robot 4), test 12 from 2 datasets (uji-mini 8, ble-flat-robot 4); --train set=train spans 2 datasets: add dataset=NAME to keep to one"],
                "\(r.stderr)")
        // No progress and no escape on a pipe; the rest as before: the figures on stdout, the time last on stderr.
        #expect(!r.stderr.contains("\u{1B}") && !r.stderr.contains("test searches"), "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 2 && r.stderr.hasSuffix("s\n"), "\(r.stderr)")
        #expect(!r.stdout.contains("selected") && r.lines.first?.hasPrefix("METHOD") == true, "\(r.stdout)")
    }

    @Test func aDatasetTermKeepsToOne() async throws {
        let fp = try await Self.bothImported()
        let r = try await fp.run(["eval", "--train", "dataset=ble-flat-robot,set=train", "--test", "dataset=ble-flat-robot,set=test",
                                  "--method", "knn1", "--csv"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("selected: train 4 fingerprints (ble-flat-robot), test 4 (ble-flat-robot)\n"), "\(r.stderr)")
        #expect(!r.stderr.contains("spans"), "\(r.stderr)")
        #expect(r.lines.dropFirst().allSatisfy { $0.contains(",4,4,") }, "\(r.stdout)")  // train 4, test 4
    }

    @Test func aTerminalShowsTheSelectionAndTheProgress() async throws {
        let fp = try await Self.bothImported()
        let started = ContinuousClock.now
        let term = try fp.onTerminal(Self.bothSets, columns: 80)
        #expect(await term.exitStatus() == 0, "\(term.transcript)")
        let seconds = LiveTableCLITests.seconds(ContinuousClock.now - started)
        let rows = term.rows
        #expect(rows.contains { $0.hasPrefix("selected: train 16 fingerprints from 2 datasets (uji-mini 12, ble-flat-robot 4)") },
                "\(term.transcript)")
        // 12 test fingerprints, 2 passes (kNN, then the Gaussian kernel).
        let progress = rows.filter { $0.hasPrefix("eval: ") && $0.contains(" of 24 test searches") }
        #expect(!progress.isEmpty, "\(term.transcript)")
        #expect(Double(progress.count) <= 4 * seconds + 2, "\(progress.count) redraws in \(seconds) s")
        // Cleared before the figures: the screen keeps the selection and the table, no progress line.
        let screen = ScreenModel(width: 80, output: term.transcript)
        #expect(!screen.text.contains { $0.contains("test searches") }, "\(screen.text)")
        #expect(screen.text.contains { $0.hasPrefix("METHOD") }, "\(screen.text)")
    }

    @Test func theTimeLeftReadsAsTime() {
        #expect(EvalProgress.line(done: 25, total: 100, elapsed: .seconds(10), width: 80)
            == "eval: 25 of 100 test searches · 25 % · about 30 s left")
        #expect(EvalProgress.line(done: 1_000, total: 67_608, elapsed: .seconds(60), width: 80).hasSuffix("about 1 h 6 min left"))
        #expect(EvalProgress.line(done: 0, total: 67_608, elapsed: .zero, width: 80) == "eval: 0 of 67,608 test searches · 0 %")
    }
}

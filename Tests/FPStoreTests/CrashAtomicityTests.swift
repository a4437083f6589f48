import FPCore
import FPStore
import FPTestSupport
import Foundation
import Testing

/// SIGKILL at any moment leaves each batch either whole or absent, and every
/// batch reported as committed is stored.
@Suite struct CrashAtomicityTests {
    static let executableName = "fprint-store-torture"

    /// The torture binary is built next to the test runner (the products
    /// folder, e.g. `.build/debug`). `FPRINT_STORE_TORTURE` may point at it.
    static func locateTorture() -> (URL?, [String]) {
        var folders: [URL] = [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
        if let runner = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            folders.append(URL(fileURLWithPath: runner).deletingLastPathComponent())
        }
        var candidates = folders.map { $0.appendingPathComponent(executableName) }
        if let explicit = ProcessInfo.processInfo.environment["FPRINT_STORE_TORTURE"] {
            candidates.insert(URL(fileURLWithPath: explicit), at: 0)
        }
        let found = candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
        return (found, candidates.map(\.path))
    }

    // A hang guard, not a speed goal: six kill rounds take ~5 s in a serial debug run
    // (`make test`) and ~90 s when parallel tests crowd the two-core machine.
    @Test(.timeLimit(.minutes(5)))
    func killedWriterLeavesWholeBatches() async throws {
        let (torture, searched) = Self.locateTorture()
        let executable = try #require(
            torture, "\(Self.executableName) not found (build it: swift build --build-tests); looked at \(searched)")
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("torture.sqlite").path

        // What earlier rounds stored and verified; each round must keep it.
        var committedSoFar = Set<Int>()
        var idsSoFar = Set<String>()
        var sequenceSoFar: Int64 = 0
        for round in 1...6 {
            // Given the torture writer running on the same file as before
            let observer = try SQLiteDocumentStore(path: path)
            let documentsBefore = try observer.count()
            let process = Process()
            process.executableURL = executable
            process.arguments = [path]
            let stdout = Pipe()
            let stderr = Pipe()
            process.standardOutput = stdout
            process.standardError = stderr
            // Both pipes drained on threads of their own, so the writer never
            // blocks on a full pipe and no test thread waits on it.
            let printedOut = PipeDrain(stdout.fileHandleForReading, name: "torture-out")
            let printedErr = PipeDrain(stderr.fileHandleForReading, name: "torture-err")
            let exit = try await process.startAwaitingExit()

            // When it has stored at least one new batch, and then writes for a while more,
            let deadline = Date().addingTimeInterval(180)  // a bound only against hanging
            while try observer.count() == documentsBefore && process.isRunning && Date() < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            try await Task.sleep(for: .milliseconds(100 + 60 * round))
            // it is killed without warning
            #expect(process.isRunning, "the torture writer stopped on its own in round \(round)")
            kill(process.processIdentifier, SIGKILL)
            _ = await exit.value()
            let printed = String(decoding: await printedOut.data(), as: UTF8.self)
            let errors = String(decoding: await printedErr.data(), as: UTF8.self)
            #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL,
                    "round \(round): writer ended with \(process.terminationStatus); stderr: \(errors)")

            // Then the reopened database is sound and holds whole batches only.
            // Bodies are parsed for this round's new documents only (earlier
            // ones were checked before and are never rewritten), and checks
            // run in plain loops with one #expect each: parsing and thousands
            // of #expect calls would otherwise dominate the test's time.
            let store = try SQLiteDocumentStore(path: path)
            #expect(try store.integrityCheck() == [])
            var newBatches: [Int: [StoredDocument]] = [:]
            var unlabelled: [String] = []
            for document in try store.changes(since: sequenceSoFar, limit: Int.max) {
                if let batch = document.body["batch"]?.intValue {
                    newBatches[Int(batch), default: []].append(document)
                } else {
                    unlabelled.append(document.id)
                }
            }
            var partial: [Int] = []
            var badRevisions: [String] = []
            for (batch, documents) in newBatches {
                let size = Int(documents.first?.body["batchSize"]?.intValue ?? -1)
                if Set(documents.map(\.id)) != Set((0..<max(0, size)).map { "torture-\(batch)-\($0)" }) {
                    partial.append(batch)
                }
                for document in documents where document.rev != Revision.next(after: nil, body: document.body) {
                    badRevisions.append(document.id)
                }
            }
            #expect(unlabelled.isEmpty, "documents without a batch: \(unlabelled)")
            #expect(partial.isEmpty, "round \(round): batches stored in part: \(partial.sorted())")
            #expect(badRevisions.isEmpty, "round \(round): revisions that do not match their bodies: \(badRevisions)")
            #expect(committedSoFar.isDisjoint(with: newBatches.keys), "round \(round): a batch number was reused")
            let batches = committedSoFar.union(newBatches.keys)
            // And nothing else is stored: earlier rounds' documents plus this round's
            let allIds = Set(try store.list(ListQuery()).map(\.id))
            #expect(allIds == idsSoFar.union(newBatches.values.joined().map(\.id)),
                    "round \(round): stored documents differ from the checked batches")
            // And every batch announced as committed is there (a batch may be
            // stored but unannounced when the kill fell between commit and print)
            let lines = printed.split(separator: "\n", omittingEmptySubsequences: true)
            let complete = printed.hasSuffix("\n") ? lines : lines.dropLast()
            let announced = Set(complete.compactMap { Int($0) })
            #expect(announced.count > 0, "round \(round): no batch was committed; stderr: \(errors)")
            #expect(announced.isSubset(of: batches),
                    "round \(round): committed but missing: \(announced.subtracting(batches).sorted())")
            committedSoFar = batches
            idsSoFar = allIds
            sequenceSoFar = try store.lastSequence()
        }
    }
}

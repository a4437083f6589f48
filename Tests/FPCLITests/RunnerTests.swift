import Foundation
import Testing

/// The runner the CLI tests share must survive children that write a lot to both streams.
@Suite("CLI test runner")
struct RunnerTests {
    /// Filled by the runner's thread, read after it signalled.
    final class Outcome: @unchecked Sendable {
        var pid: Int32 = 0
        var result: FprintRunner.Result?
        let done = DispatchSemaphore(value: 0)
    }

    @Test func aChildFillingStderrBeforeStdoutCompletes() throws {
        // Over a megabyte to stderr first, then to stdout: a runner that reads
        // stdout to its end before touching stderr waits forever here (the child
        // blocks on the full stderr pipe).
        let bytes = 1_500_000
        let script = "head -c \(bytes) /dev/zero | tr '\\0' e >&2; head -c \(bytes) /dev/zero | tr '\\0' o"
        let outcome = Outcome()
        let thread = Thread {
            // Foundation's Process makes the child a process group leader, so a deadlock can be ended whole.
            outcome.result = try? FprintRunner.runProcess(
                URL(fileURLWithPath: "/bin/sh"), ["-c", script], started: { outcome.pid = $0 })
            outcome.done.signal()
        }
        thread.start()
        // A deadlocked runner fails the test instead of hanging the suite. SIGKILL,
        // because children of test processes may inherit blocked signals (even timeout(1)'s alarm).
        if outcome.done.wait(timeout: .now() + 60) == .timedOut {
            kill(-outcome.pid, SIGKILL)
            outcome.done.wait()
            Issue.record("the runner was still waiting after 60 s: it deadlocked on a full pipe")
        }
        let result = try #require(outcome.result)
        #expect(result.status == 0)
        #expect(result.stderr.utf8.count == bytes)
        #expect(result.stdout.utf8.count == bytes)
        #expect(result.stderr.utf8.allSatisfy { $0 == UInt8(ascii: "e") })
        #expect(result.stdout.utf8.allSatisfy { $0 == UInt8(ascii: "o") })
    }
}

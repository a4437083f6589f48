import FPTestSupport
import Foundation
import Testing

/// The runner the CLI tests share must survive children that write a lot to both streams.
@Suite("CLI test runner")
struct RunnerTests {
    @Test func aChildFillingStderrBeforeStdoutCompletes() async throws {
        // Over a megabyte to stderr first, then to stdout: a runner that reads
        // stdout to its end before touching stderr waits forever here (the child
        // blocks on the full stderr pipe).
        let bytes = 1_500_000
        let script = "head -c \(bytes) /dev/zero | tr '\\0' e >&2; head -c \(bytes) /dev/zero | tr '\\0' o"
        let outcome = Handover<FprintRunner.Result?>()
        let pid = Handover<Int32>()
        Task {
            // Foundation's Process makes the child a process group leader, so a deadlock can be ended whole.
            outcome.fulfil(try? await FprintRunner.runProcess(
                URL(fileURLWithPath: "/bin/sh"), ["-c", script], started: { pid.fulfil($0) }))
        }
        // A deadlocked runner fails the test instead of hanging the suite. SIGKILL,
        // because children of test processes may inherit blocked signals (even timeout(1)'s alarm).
        // 300 s: a bound only against the deadlock, with room for a machine
        // whose cores are busy with other work (3 MB through pipes takes a second alone).
        guard let finished = await outcome.value(within: 300) else {
            kill(-(await pid.value()), SIGKILL)
            _ = await outcome.value()
            Issue.record("the runner was still waiting after 300 s: it deadlocked on a full pipe")
            return
        }
        let result = try #require(finished)
        #expect(result.status == 0)
        #expect(result.stderr.utf8.count == bytes)
        #expect(result.stdout.utf8.count == bytes)
        #expect(result.stderr.utf8.allSatisfy { $0 == UInt8(ascii: "e") })
        #expect(result.stdout.utf8.allSatisfy { $0 == UInt8(ascii: "o") })
    }
}

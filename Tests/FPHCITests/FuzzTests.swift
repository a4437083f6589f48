import FPHCI
import FPHCIFuzz
import Foundation
import Testing

@Suite("Fuzzing the parsers (a few seconds; `make fuzz` runs minutes)")
struct FuzzTests {
    @Test func mutatedRealEventsNeverCrashOrBreakInvariants() async throws {
        var corpus: [[UInt8]] = []
        for name in Fixtures.captureNames { corpus += HCIFuzzer.corpus(btsnoop: try Fixtures.capture(name + ".btsnoop")) }
        #expect(corpus.count > 8000)
        var fuzzer = HCIFuzzer(corpus: corpus, seed: 42)
        // A fixed number of mutations (120,000, about 1.5 s of CPU here), not a
        // time: a busy machine must not make the test explore less.
        for _ in 0..<60 {
            fuzzer.run(iterations: 2000)
            await Task.yield()  // let the suites beside it have the pool's threads too
        }
        #expect(fuzzer.violations == [])
        // The mutations must reach both outcomes, or the fuzzer is not exploring.
        #expect(fuzzer.parsedReports > 1000)
        #expect(fuzzer.rejected > 1000)
    }

    @Test func everyRealEventParsesUnmutated() throws {
        var fuzzer = HCIFuzzer(corpus: [], seed: 1)
        for name in Fixtures.captureNames {
            for e in HCIFuzzer.corpus(btsnoop: try Fixtures.capture(name + ".btsnoop")) { fuzzer.run(e) }
        }
        #expect(fuzzer.rejected == 0)
        #expect(fuzzer.parsedReports == 8800)
    }
}

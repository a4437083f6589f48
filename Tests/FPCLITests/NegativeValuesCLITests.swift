import Foundation
import Testing

/// Negative numbers the docs pass as values, not options (found by Tests/cli-tour.sh).
@Suite("Negative values")
struct NegativeValuesCLITests {
    @Test func configSetTakesANegativeSpeedCorrection() async throws {
        let fp = try FprintRunner()
        let set = try await fp.run(["config", "set", "speed-correction", "-2"])
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stderr == "speed-correction = -2\n")
        let get = try await fp.run(["config", "get", "speed-correction"])
        #expect(get.stdout.trimmingCharacters(in: .whitespacesAndNewlines).hasSuffix("-2"), "\(get.stdout)")
        let two = try await fp.run(["config", "set", "speed-correction", "1", "2"])
        #expect(two.status == 64)
        #expect(two.stderr.hasPrefix("Error: config set takes one key and one value, got 2 values"))
    }

    @Test func walkTakesANegativeSpeedCorrection() async throws {
        let fp = try FprintRunner()
        let w = try await fp.run(["walk", "--scenario", "scenarioJ1NP1", "--speed-correction", "-3", "--simulate", "--fast"])
        #expect(w.status == 0, "\(w.stderr)")
        #expect(w.stderr.contains("at 0.85 m/s"), "\(w.stderr)")  // 1 m/s × (1 + 0.05 × −3)
        let off = try await fp.run(["walk", "--scenario", "scenarioJ1NP1", "--speed-correction", "-11", "--simulate", "--fast"])
        #expect(off.status == 64)
        #expect(off.stderr.hasPrefix("Error: --speed-correction must be −10…+10, got -11"))
    }
}

/// A small, fast, seedable generator (SplitMix64) so simulated radios and
/// tie-breaks repeat exactly for a given `--seed`.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A standard normal deviate (Box–Muller), for shadowing noise.
    public mutating func nextGaussian() -> Double {
        let u1 = max(Double.leastNonzeroMagnitude, Double.random(in: 0..<1, using: &self))
        let u2 = Double.random(in: 0..<1, using: &self)
        return (-2 * _log(u1)).squareRoot() * _cos(2 * Double.pi * u2)
    }

    /// Derives an independent stream for one named component.
    public func fork(_ label: String) -> SeededRandom {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in label.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01B3 }
        return SeededRandom(seed: state ^ h)
    }
}

#if canImport(Glibc)
import Glibc
private func _log(_ x: Double) -> Double { Glibc.log(x) }
private func _cos(_ x: Double) -> Double { Glibc.cos(x) }
#else
import Foundation
private func _log(_ x: Double) -> Double { Foundation.log(x) }
private func _cos(_ x: Double) -> Double { Foundation.cos(x) }
#endif

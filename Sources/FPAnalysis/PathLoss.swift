import Foundation

/// RSSI → distance with the log-distance path-loss model:
/// RSSI = P₁ − 10·n·log₁₀(d), so d = 10^((P₁ − RSSI) / (10·n)) metres, where P₁
/// is the beacon's measured power (RSSI at 1 m) and n the path-loss exponent
/// (2 in free space, 2.5–4 indoors).
package struct PathLoss: Sendable, Equatable {
    package var exponent: Double
    package init(exponent: Double = 2) { self.exponent = exponent }

    package func distance(rssi: Double, measuredPower: Double) -> Double {
        pow(10, (measuredPower - rssi) / (10 * exponent))
    }

    /// The ratio model some beacon SDKs use instead; reported for comparison only.
    package static func ratio(rssi: Double, measuredPower: Double) -> Double { rssi / measuredPower }
}

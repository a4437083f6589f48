import ArgumentParser
import FPAnalysis

/// Which BLE readings eval, locate and track use and what they are keyed by.
struct BLEReadingOptions: ParsableArguments {
    @Option(name: .customLong("min-rssi"), parsing: .unconditional,
            help: ArgumentHelp("Leave out BLE readings weaker than this, as the positioning thesis did (Wi-Fi readings are all kept; default: every reading).",
                               valueName: "dBm"))
    var minRSSI: Double?
    @Option(name: .customLong("ble-key"),
            help: "What BLE transmitters are keyed by: address (the evaluator's) or identity (the iBeacon/Eddystone-UID id an address advertised, so a rotating address is one transmitter).")
    var bleKey: BLEKey = .address

    func validate() throws {
        if let minRSSI, !(minRSSI.isFinite && minRSSI <= 0) {
            throw ValidationError("--min-rssi must be a dBm value ≤ 0 (e.g. --min-rssi=-85), got \(minRSSI)")
        }
    }

    /// `fp` keyed by --ble-key and without the readings under --min-rssi.
    func apply(_ fp: Fingerprint) -> Fingerprint { fp.keyed(by: bleKey).droppingBLE(weakerThan: minRSSI) }

    func apply(_ fps: [Fingerprint]) -> [Fingerprint] {
        guard bleKey != .address || minRSSI != nil else { return fps }
        return fps.map(apply)
    }
}

extension BLEKey: ExpressibleByArgument {}

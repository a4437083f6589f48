import FPCore

/// The real radio providers of this version. BLE over BlueZ HCI, Wi-Fi over
/// nl80211, GNSS through gpsd and cells through ModemManager arrive with their
/// own issues; until then each reports why it cannot record, into the document.
enum RealRadios {
    static func provider(for radio: Radio) -> any RadioProvider {
        let reason: String
        switch radio {
        case .ble: reason = "BLE capture through BlueZ HCI sockets is not in this version yet"
        case .wifi: reason = "Wi-Fi scanning over nl80211 is not in this version yet"
        case .cell: reason = "cellular cells through ModemManager are not in this version yet"
        case .location: reason = "GNSS through gpsd is not in this version yet"
        }
        return UnavailableRadio(radio: radio, reason: reason)
    }
}

/// A provider that records nothing and says why.
struct UnavailableRadio: RadioProvider {
    let radio: Radio
    let reason: String

    func start(context: CaptureContext, sink: SampleSink) async -> ProviderStatus {
        ProviderStatus(status: .unavailable, source: "none", reason: reason)
    }
    func advance(toMs ms: Int) async {}
    func stop() async {}
}

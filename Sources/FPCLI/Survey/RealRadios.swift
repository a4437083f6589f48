import FPCore
import Foundation
import FPLinuxRadios

/// The real providers of Wi-Fi (nl80211), cells (ModemManager) and GNSS (gpsd).
/// BLE is chosen by `--ble-source` in `Workspace.captureSetup` (FPBLE), so it
/// never reaches here.
enum RealRadios {
    /// The real provider for a radio. Each finds out at `start` whether it can
    /// record and otherwise reports `unavailable` with the reason.
    static func provider(for radio: Radio, options: CaptureOptions) -> any RadioProvider {
        switch radio {
        case .ble: return UnavailableRadio(radio: radio, reason: "BLE comes from --ble-source, not from here")
        case .wifi:
            return NL80211Provider(interface: options.wifiInterface,
                                   recordTo: ProcessInfo.processInfo.environment["FPRINT_NL80211_RECORD"])
        case .cell: return ModemManagerProvider()
        case .location: return GPSDProvider(endpoint: options.gpsd.flatMap(GPSDEndpoint.init) ?? .default)
        }
    }

    /// Motion sensors of this machine (IIO sysfs; `FPRINT_IIO_ROOT` points tests at a fake tree).
    static func sensors(environment: [String: String]) -> any MotionSensorReader {
        IIOMotionSensors(root: environment["FPRINT_IIO_ROOT"] ?? "/sys/bus/iio/devices")
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

import FPCore
import FPHCI

extension BeaconFrame {
    /// The identity a registry matches this frame by (iBeacon, AltBeacon as its
    /// iBeacon triple, Eddystone-UID); nil for frames without one (URL, TLM).
    package var identity: BeaconIdentity? { BeaconIdentity(beacon: ReportMapper.beacon(self)) }
}

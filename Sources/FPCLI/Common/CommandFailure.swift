import FPCore
import FPSync
import Foundation

/// Exit codes, documented in docs/exit-codes.md. Close to sysexits(3) where one fits.
package enum ExitStatus: Int32, CaseIterable, Sendable {
    case ok = 0
    case failure = 1
    case alerts = 3  // fprint alerts, beacons --fail-on-alert: something needs looking at
    case usage = 64  // bad arguments (swift-argument-parser's validation failures)
    case dataError = 65  // a file, config, scenario or environment that cannot be read as it is
    case notFound = 66  // no such document, map or scenario
    case unavailable = 69  // nothing to record with: no radio available
    case ioError = 74  // the database or a file could not be written
    case gatewayUnreachable = 75  // sync: no answer from the gateway (EX_TEMPFAIL: try again later)
    case protocolError = 76  // sync: the peer broke the replication protocol (EX_PROTOCOL)
    case authRejected = 77  // sync/login: token or credentials refused (EX_NOPERM)
    case portInUse = 78  // gateway: the address is taken by another server (EX_CONFIG: choose --port)
    case noBluetooth = 80  // the kernel has no AF_BLUETOOTH (EAFNOSUPPORT)
    case blePermission = 81  // raw HCI without CAP_NET_RAW/CAP_NET_ADMIN
    case adapterUnavailable = 82  // no such adapter, adapter down, or busy (--exclusive on an up adapter)
    case noLE = 83  // the controller has no Bluetooth Low Energy
    case hciFailure = 84  // an HCI command failed or timed out (e.g. Command Disallowed)
    case interrupted = 130  // Ctrl-C or SIGTERM: nothing was stored

    var meaning: String {
        switch self {
        case .ok: "success"
        case .failure: "other failure"
        case .alerts: "an alert is active (fprint alerts), or a beacon has one (beacons --fail-on-alert)"
        case .usage: "invalid arguments or settings"
        case .dataError: "invalid input data (config, scenario, environment, import file)"
        case .notFound: "document, map or scenario not found, or no database at the path"
        case .unavailable: "no radio available to record"
        case .ioError: "database or file could not be read or written, or damaged documents were skipped"
        case .gatewayUnreachable: "gateway unreachable (after retries)"
        case .protocolError: "the gateway broke the replication protocol"
        case .authRejected: "token or credentials rejected by the gateway"
        case .portInUse: "gateway: the port is in use by another server"
        case .noBluetooth: "the kernel has no Bluetooth sockets (AF_BLUETOOTH)"
        case .blePermission: "no permission for raw HCI (CAP_NET_RAW, CAP_NET_ADMIN)"
        case .adapterUnavailable: "Bluetooth adapter absent, down, or busy"
        case .noLE: "Bluetooth controller without LE"
        case .hciFailure: "an HCI command failed or timed out"
        case .interrupted: "interrupted; nothing stored"
        }
    }
}

/// A one-line failure with its exit code.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String
    let status: ExitStatus
    init(_ message: String, _ status: ExitStatus = .failure) {
        description = message
        self.status = status
    }
}

extension CommandFailure {
    /// Exit codes per sync failure (docs/exit-codes.md).
    init(_ error: SyncError) {
        switch error {
        case .unreachable: self.init(error.description, .gatewayUnreachable)
        case .authRejected, .noSigner: self.init(error.description, .authRejected)
        case .protocolError: self.init(error.description, .protocolError)
        case .store: self.init(error.description, .ioError)
        case .cancelled: self.init(error.description, .interrupted)
        }
    }
}

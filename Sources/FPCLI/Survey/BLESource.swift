import ArgumentParser
import CMalloc
import FPBLE
import FPCore
import FPHCI
import FPSession
import FPTransport
import Foundation

/// Where BLE comes from: `hci:hci0` (kernel HCI socket), `btsnoop:FILE` (replay), `sim`.
enum BLESource: Equatable, ExpressibleByArgument, CustomStringConvertible {
    case hci(UInt16)
    case btsnoop(String)
    case sim

    init?(argument: String) {
        if argument == "sim" || argument == "simulated" { self = .sim; return }
        if argument.hasPrefix("btsnoop:") {
            let path = String(argument.dropFirst("btsnoop:".count))
            guard !path.isEmpty else { return nil }
            self = .btsnoop(path)
            return
        }
        var name = Substring(argument)
        if name.hasPrefix("hci:") { name = name.dropFirst(4) }
        guard name.hasPrefix("hci"), let n = UInt16(name.dropFirst(3)) else { return nil }
        self = .hci(n)
    }

    var description: String {
        switch self {
        case .hci(let n): "hci:hci\(n)"
        case .btsnoop(let p): "btsnoop:\(p)"
        case .sim: "sim"
        }
    }

    static var defaultValueDescription: String { "hci:hci0" }
}

/// Turns BLE failures into the documented one-line messages and exit codes.
enum BLEFailure {
    static func failure(_ e: HCISocketError, device: UInt16?) -> CommandFailure {
        switch e {
        case .noBluetooth: return CommandFailure(e.description, .noBluetooth)
        case .permission(let op):
            // Where the package is installed, the fprint group is the way, not setcap.
            guard let advice = RadioHelper.permissionAdvice() else { return CommandFailure(e.description, .blePermission) }
            return CommandFailure("permission denied for \(op): raw HCI needs CAP_NET_RAW and CAP_NET_ADMIN; \(advice)", .blePermission)
        case .noAdapter, .adapterDown:
            return CommandFailure(e.description + "; " + existingAdapters(), .adapterUnavailable)
        case .adapterBusy, .closed: return CommandFailure(e.description, .adapterUnavailable)
        case .noLE: return CommandFailure(e.description, .noLE)
        case .command, .noAnswer, .system: return CommandFailure(e.description, .hciFailure)
        }
    }

    /// "adapters here: hci0 (up), hci1 (down)" or "no Bluetooth adapter exists".
    static func existingAdapters() -> String {
        guard let list = try? FPTransport.Adapters.list(), !list.isEmpty else { return "no Bluetooth adapter exists on this machine" }
        return "adapters here: " + list.map { "\($0.name) (\($0.up ? "up" : "down"))" }.joined(separator: ", ")
    }

    /// The BLE provider for a source; an explicit source that cannot work fails the command.
    /// `keepRaw`: a replay keeps a copy of every packet for `--keep-raw` (else only the reports).
    /// `stream`: a replay decodes the capture as it plays, a piece at a time (`fprint track`,
    /// which stores nothing), instead of loading it whole for a document.
    static func provider(_ source: BLESource, explicit: Bool, exclusive: Bool, passive: Bool, keepRaw: Bool = false,
                         stream: Bool = false) throws -> any RadioProvider
    {
        switch source {
        case .btsnoop(let path) where stream && !keepRaw:
            let replay: BtsnoopStreamProvider
            do { replay = try BtsnoopStreamProvider(path: path) } catch { throw captureFailure(path, error) }
            warnIfTailDropped(path, dropped: replay.droppedTailBytes, packets: replay.packetCount)
            return replay
        case .btsnoop(let path):
            // A replay makes and frees arrays of tens of MB one after another
            // (the file, its reports, the samples, the document's text): each
            // gets its own mapping and goes back to the kernel when freed.
            // glibc would otherwise raise its threshold after the first such
            // free and keep the later ones resident in the heap.
            _ = mallopt(M_MMAP_THRESHOLD, 256 << 10)
            let capture: BtsnoopCapture
            do { capture = try BtsnoopCapture(path: path, keepPackets: keepRaw) } catch { throw captureFailure(path, error) }
            warnIfTailDropped(path, dropped: capture.droppedTailBytes, packets: capture.packetCount)
            return BtsnoopReplayProvider(capture: capture)
        case .hci(let device):
            let socket: HCISocket
            do { socket = try HCIScanProvider.preflight(device: device, exclusive: exclusive) } catch {
                if explicit { throw failure(error, device: device) }
                return UnavailableRadio(radio: .ble, reason: error.description)
            }
            return HCIScanProvider(device: device, exclusive: exclusive, parameters: .init(active: !passive), socket: socket)
        case .sim:
            throw CommandFailure("internal: simulated BLE is built by the workspace", .failure)
        }
    }
}

extension BLEFailure {
    /// A capture that is not there is "not found", as a missing floor-plan picture is.
    static func captureFailure(_ path: String, _ error: BtsnoopCapture.LoadError) -> CommandFailure {
        let missing = !FileManager.default.fileExists(atPath: path)
        return CommandFailure(missing ? "\(path): no such file" : error.description, missing ? .notFound : .dataError)
    }

    static func warnIfTailDropped(_ path: String, dropped: Int, packets: Int) {
        guard dropped > 0 else { return }
        Terminal.err("warning: \(path): the last record is cut short; its \(dropped) bytes are dropped"
            + " and the \(packets) intact packets before it replayed")
    }
}

/// What the CLI asks of a btsnoop replay among a setup's providers.
enum Replay {
    static func provider(in setup: CaptureSetup) -> (any BtsnoopReplaying)? {
        setup.providers.lazy.compactMap { $0 as? any BtsnoopReplaying }.first
    }

    /// One warning when the measurement ended before the capture's last report
    /// (the document's BLE status carries the same reason).
    static func warnIfCut(_ setup: CaptureSetup, hint: String) {
        guard let replay = provider(in: setup), let note = replay.cutShort else { return }
        Terminal.err("warning: \(replay.path): \(note); \(hint)")
    }
}

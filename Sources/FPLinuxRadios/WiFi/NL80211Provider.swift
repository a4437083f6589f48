#if canImport(Glibc)
import Glibc
#endif
import FPCore
import FPHex
import Foundation
import SystemPackage

/// Wi-Fi access points over nl80211: scans triggered back to back for the whole
/// measurement (needs CAP_NET_ADMIN; without it the kernel's cached results are
/// read, and the status says so), results dumped twice a second, and each BSS
/// reported once per new sighting, dated when the kernel last heard it.
package final class NL80211Provider: RadioProvider, @unchecked Sendable {
    package let radio = Radio.wifi
    package let interfaceName: String?
    private let lock = NSLock()
    private var reader: ReaderThread?
    private var emitted = 0
    private var loopError: String?

    /// When set, the first non-empty scan dump's raw genl payloads are written there as hex
    /// lines: how the test fixtures were recorded in the VM (`FPRINT_NL80211_RECORD`).
    let recordPath: String?

    package init(interface: String? = nil, recordTo recordPath: String? = nil) {
        self.interfaceName = interface
        self.recordPath = recordPath
    }

    /// Wi-Fi interfaces the kernel's nl80211 knows (for `fprint doctor` and the default choice).
    package static func interfaces() throws -> [(index: Int, name: String, station: Bool)] {
        let s = try GenericNetlinkSocket()
        let family = try s.familyID("nl80211")
        return try s.transact(family: family, cmd: NL80211.CMD_GET_INTERFACE, dump: true, attributes: [])
            .compactMap(NL80211.interface(fromGenlPayload:))
    }

    /// The interface to scan on, or why there is none.
    func resolve() -> Result<(family: UInt16, index: Int, name: String), NetlinkError> {
        do {
            let s = try GenericNetlinkSocket()
            let family = try s.familyID("nl80211")
            let list = try s.transact(family: family, cmd: NL80211.CMD_GET_INTERFACE, dump: true, attributes: [])
                .compactMap(NL80211.interface(fromGenlPayload:))
            let pick = interfaceName.map { n in list.first { $0.name == n } } ?? list.first { $0.station }
            guard let pick else {
                let what = interfaceName.map { "no nl80211 interface named \($0) (have: \(list.map(\.name).joined(separator: ", ")))" }
                    ?? "no Wi-Fi station interface"
                return .failure(.init(code: .operationNotSupportedByDevice /* ENODEV */, what: what))
            }
            return .success((family, pick.index, pick.name))
        } catch {
            return .failure(error)
        }
    }

    package func preflightReason() -> String? {
        switch resolve() {
        case .success: return nil
        case .failure(let e): return e.code == .noSuchFileOrDirectory ? "the kernel has no nl80211 (no Wi-Fi support)" : e.description
        }
    }

    /// Resolving the interface and the trial scan trigger wait on the kernel: off the cooperative pool.
    package func start(context: CaptureContext, sink: SampleSink) async -> ProviderStatus {
        await BlockingWork.run("fprint.nl80211.start") { [self] in startReading(context: context, sink: sink) }
    }

    private func startReading(context: CaptureContext, sink: SampleSink) -> ProviderStatus {
        let target: (family: UInt16, index: Int, name: String)
        switch resolve() {
        case .success(let t): target = t
        case .failure(let e):
            return ProviderStatus(status: .unavailable, source: "nl80211", reason: e.code == .noSuchFileOrDirectory
                ? "the kernel has no nl80211 (no Wi-Fi support)" : e.description)
        }
        let socket: GenericNetlinkSocket
        do { socket = try GenericNetlinkSocket() } catch {
            return ProviderStatus(status: .unavailable, source: "nl80211:\(target.name)", reason: error.description)
        }
        // One trial trigger decides the mode: permitted (active scans) or not (cached results only).
        let ifattr = NL80211.attr(NL80211.ATTR_IFINDEX, NL80211.le32(UInt32(target.index)))
        let wildcard = NL80211.attr(NL80211.ATTR_SCAN_SSIDS, NL80211.attr(1, []))  // one empty SSID: probe for all
        var scanning = true
        var note: String?
        do {
            _ = try socket.transact(family: target.family, cmd: NL80211.CMD_TRIGGER_SCAN, dump: false,
                                    attributes: ifattr + wildcard)
        } catch {
            if error.code == .notPermitted || error.code == .permissionDenied {
                scanning = false
                note = "no CAP_NET_ADMIN: reading the kernel's cached scan results, not triggering scans"
            } else if error.code != .resourceBusy {
                note = "scan trigger failed (\(error.description)); reading cached results"
                scanning = false
            }
        }
        let clock = context.clock
        let triggering = scanning
        reader = ReaderThread(name: "fprint-nl80211") { [self] shouldStop in
            var lastSeen: [String: UInt64] = [:]
            var recorded = recordPath == nil
            var backoffMs = 250
            var nextTrigger = 0
            while !shouldStop() {
                let now = clock.elapsedMs()
                if triggering && now >= nextTrigger {
                    do {
                        _ = try socket.transact(family: target.family, cmd: NL80211.CMD_TRIGGER_SCAN, dump: false,
                                                attributes: ifattr + wildcard)
                        backoffMs = 250
                        nextTrigger = now + 250
                    } catch {
                        // EBUSY: a scan is running (ours or NetworkManager's): back off, up to 2 s.
                        nextTrigger = now + backoffMs
                        backoffMs = min(backoffMs * 2, 2000)
                    }
                }
                do {
                    let entries = try socket.transact(family: target.family, cmd: NL80211.CMD_GET_SCAN, dump: true,
                                                      attributes: ifattr)
                    if !recorded, let recordPath, !entries.isEmpty {
                        let hex = entries.map { Hex.string($0) }.joined(separator: "\n") + "\n"
                        // A debugging aid (FPRINT_NL80211_RECORD): a failed write only means no recording.
                        recorded = FileManager.default.createFile(atPath: recordPath, contents: Data(hex.utf8))
                    }
                    let readAt = clock.elapsedMs()
                    let bootNow = Self.boottimeNs()
                    for payload in entries {
                        guard let bss = NL80211.bss(fromGenlPayload: payload) else { continue }
                        // Age from the kernel's boottime stamp when given (exact), else its ms counter.
                        let ageMs: Int
                        if let seen = bss.lastSeenBoottimeNs, seen <= bootNow { ageMs = Int((bootNow - seen) / 1_000_000) }
                        else if let ago = bss.seenMsAgo { ageMs = ago } else { continue }
                        let stamp = bss.lastSeenBoottimeNs ?? UInt64(max(0, Int(bootNow / 1_000_000) - ageMs))
                        guard lastSeen[bss.bssid] != stamp else { continue }  // nothing new heard from it
                        lastSeen[bss.bssid] = stamp
                        let time = readAt - ageMs
                        // Heard before this measurement began: a cached leftover, not this measurement's.
                        guard time >= 0 else { continue }
                        let scan = WiFiScan(mac: bss.bssid, ssid: bss.ssid, rssi: bss.signalDBm ?? -100, time: time,
                                            frequency: bss.frequency, channel: NL80211.channel(frequencyMHz: bss.frequency),
                                            ageMs: ageMs, associated: bss.associated ? true : nil)
                        sink.emit(.wifi(scan))
                        lock.withLock { emitted += 1 }
                    }
                } catch {
                    lock.withLock { loopError = "\(error)" }
                }
                Thread.sleep(forTimeInterval: 0.5)
            }
        }
        return ProviderStatus(status: .ok, source: "nl80211:\(target.name)", reason: note)
    }

    static func boottimeNs() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_BOOTTIME, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    package func advance(toMs ms: Int) async {}
    package func stop() async { await reader?.stop() }

    package func finalStatus() async -> ProviderStatus? {
        let (n, err) = lock.withLock { (emitted, loopError) }
        if n > 0 { return nil }
        return ProviderStatus(status: .unavailable, source: "nl80211:\(interfaceName ?? "auto")",
                              reason: err.map { "reading scan results failed: \($0)" } ?? "no access point was heard during the measurement")
    }
}

extension NL80211Provider: PreflightCheck {
    package func preflight() -> String? { preflightReason() }
}

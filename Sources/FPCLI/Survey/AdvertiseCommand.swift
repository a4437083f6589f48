import ArgumentParser
import FPCore
import FPHCI
import FPTransport
import Foundation

/// `fprint advertise`: this machine's controller as an iBeacon or
/// Eddystone-UID beacon until Ctrl-C, SIGTERM or --duration.
struct AdvertiseCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "advertise",
        abstract: "Advertise as an iBeacon or Eddystone-UID beacon from this machine's Bluetooth controller.",
        discussion: """
            Sends raw HCI commands (LE Set Advertising Parameters, Data, Enable; the extended advertising set commands on a controller that refuses the legacy ones) and advertises non-connectable until Ctrl-C, SIGTERM or --duration. Then advertising is turned off (an advertising set of its own is removed) and the controller is left as it was found; the exit is 0.

            --power is written into the frame: for an iBeacon the RSSI expected at 1 m (default -59 dBm), for Eddystone-UID the power at 0 m (default -18 dBm, about 41 dB above the 1 m value). Calibrate it by measuring at 1 m with `fprint scan --proximity`.

            --random-address-every S advertises from a non-resolvable private address, a new one every S seconds (a privacy aid, and a test of scanners that follow beacons by their identity rather than their address). At the end the controller's earlier random address is put back (read from debugfs, as root); where it cannot be read, the last one stays, which the kernel knows and replaces when it needs its own.

            Needs CAP_NET_RAW and CAP_NET_ADMIN (exit 81 without them); exit 82 when the controller is advertising already for another program.

            Examples:
              fprint advertise --ibeacon FB0B57A2-8228-44CD-913A-94A122BA1206 --major 1 --minor 53
              fprint advertise --ibeacon FB0B57A2-8228-44CD-913A-94A122BA1206 --major 1 --minor 53 --power -62 --interval 200 --adapter hci1
              fprint advertise --eddystone-uid 00112233445566778899 AABBCCDDEEFF
            """)

    @Option(help: ArgumentHelp("Advertise an iBeacon with this proximity UUID.", valueName: "uuid")) var ibeacon: String?
    @Option(help: "iBeacon major (0-65535).") var major: Int?
    @Option(help: "iBeacon minor (0-65535).") var minor: Int?
    @Option(name: .customLong("eddystone-uid"), parsing: .upToNextOption,
            help: ArgumentHelp("Advertise an Eddystone-UID: a 10-byte namespace and a 6-byte instance, in hex.",
                               valueName: "namespace instance"))
    var eddystoneUID: [String] = []
    @Option(parsing: .unconditional, help: ArgumentHelp("dBm written into the frame: iBeacon at 1 m (default -59), Eddystone at 0 m (default -18).",
                               valueName: "dbm"))
    var power: Int?
    @Option(help: "Advertising interval in ms, 20 to 10240 (default 100).") var interval = 100
    @Option(help: ArgumentHelp("The controller: hci0 (default), hci1, …", valueName: "hciN")) var adapter = "hci0"
    @Option(name: .customLong("random-address-every"), help: ArgumentHelp("Advertise from a random address, a new one every this many seconds.", valueName: "seconds"))
    var randomAddressEvery: Int?
    @Option(help: "Stop after this many seconds (default: until Ctrl-C or SIGTERM).") var duration: Int?

    func perform() async throws {
        let beacon = try frame()
        guard let units = HCICommand.AdvertisingParameters.units(milliseconds: interval) else {
            throw CommandFailure("--interval \(interval): expected 20 to 10240 ms (the LE advertising interval's range)", .usage)
        }
        if let s = randomAddressEvery, s < 1 { throw CommandFailure("--random-address-every \(s): expected whole seconds, at least 1", .usage) }
        if let d = duration, d < 1 { throw CommandFailure("--duration \(d): expected whole seconds, at least 1", .usage) }
        guard let device = Self.device(adapter) else {
            throw CommandFailure("--adapter \(adapter): expected hciN (hci0, hci1, …)", .usage)
        }
        let advertiser = try await Advertiser.open(device: device)
        let previousRandom = randomAddressEvery == nil ? nil : Self.randomAddress(device: device)
        let address = randomAddressEvery.map { _ in BDAddress.nonResolvablePrivate(UInt64.random(in: 0...UInt64.max)) }
        try await advertiser.start(data: beacon.data, parameters: .init(interval: units, randomAddress: address != nil), randomAddress: address)
        Terminal.err("advertising \(beacon.label) on hci\(device) every \(interval) ms from \(address.map { "random address \($0)" } ?? "its public address");"
            + " Ctrl-C stops")
        let every = randomAddressEvery.map { Duration.seconds($0) }, lasting = duration.map { Duration.seconds($0) }
        do {
            try await Interrupts.cancellable {
                let start = ContinuousClock.now
                let end = lasting.map { start + $0 }
                var rotation = every.map { start + $0 }
                while true {
                    guard let wake = [rotation, end].compactMap({ $0 }).min() else {
                        try await Task.sleep(for: .seconds(3600))
                        continue
                    }
                    try await Task.sleep(until: wake, clock: .continuous)
                    if let end, wake >= end { return }
                    let next = BDAddress.nonResolvablePrivate(UInt64.random(in: 0...UInt64.max))
                    try await advertiser.rotate(to: next)
                    Terminal.err("random address now \(next)")
                    rotation = every.map { wake + $0 }
                }
            }
        } catch is CancellationError {
            // Ctrl-C or SIGTERM: the usual end; advertising stops below.
        } catch {
            try? await advertiser.stop(restoring: previousRandom)
            throw error
        }
        try await advertiser.stop(restoring: previousRandom)
        if randomAddressEvery != nil && previousRandom == nil {
            Terminal.err("advertising stopped; hci\(device) left as it was found but for its random address, which stays the last one set"
                + " (its earlier one was unset, or unreadable without debugfs)")
        } else {
            Terminal.err("advertising stopped; hci\(device) left as it was found")
        }
    }

    /// The frame to send and how to name it, from the identity options; one-line errors (64) otherwise.
    func frame() throws -> (data: [UInt8], label: String) {
        switch (ibeacon, eddystoneUID.isEmpty) {
        case (nil, true): throw CommandFailure("name a beacon: --ibeacon UUID --major M --minor N, or --eddystone-uid NAMESPACE INSTANCE", .usage)
        case (.some, false): throw CommandFailure("--ibeacon and --eddystone-uid exclude each other: advertise one beacon at a time", .usage)
        case (.some(let text), true):
            guard let uuid = BeaconIdentityText.uuid(text) else {
                throw CommandFailure("--ibeacon \(text): expected a UUID (32 hex digits, as FB0B57A2-8228-44CD-913A-94A122BA1206)", .usage)
            }
            let major = try Self.id(major, "--major"), minor = try Self.id(minor, "--minor")
            let power = try Self.dBm(power ?? -59, in: -100...0, "an iBeacon's RSSI at 1 m")
            return (BeaconAdvertisement.iBeacon(uuid: uuid, major: major, minor: minor, measuredPower: power),
                    "iBeacon \(UUIDText.canonical(uuid[...])) \(major)/\(minor) (\(power) dBm at 1 m)")
        case (nil, false):
            if major != nil || minor != nil { throw CommandFailure("--major and --minor belong to --ibeacon, not --eddystone-uid", .usage) }
            guard eddystoneUID.count == 2 else {
                throw CommandFailure("--eddystone-uid: expected two values, NAMESPACE (20 hex digits) and INSTANCE (12 hex digits); got \(eddystoneUID.count)", .usage)
            }
            guard let namespace = BeaconIdentityText.hex(eddystoneUID[0], bytes: 10) else {
                throw CommandFailure("--eddystone-uid namespace \(eddystoneUID[0]): expected 20 hex digits (10 bytes)", .usage)
            }
            guard let instance = BeaconIdentityText.hex(eddystoneUID[1], bytes: 6) else {
                throw CommandFailure("--eddystone-uid instance \(eddystoneUID[1]): expected 12 hex digits (6 bytes)", .usage)
            }
            let power = try Self.dBm(power ?? -18, in: -100...20, "an Eddystone's power at 0 m")
            return (BeaconAdvertisement.eddystoneUID(namespace: namespace, instance: instance, txPowerAt0m: power),
                    "Eddystone-UID \(eddystoneUID[0].lowercased())/\(eddystoneUID[1].lowercased()) (\(power) dBm at 0 m)")
        }
    }

    static func id(_ value: Int?, _ option: String) throws -> UInt16 {
        guard let value else { throw CommandFailure("\(option) is missing: an iBeacon needs --major and --minor (0-65535)", .usage) }
        guard let id = UInt16(exactly: value) else { throw CommandFailure("\(option) \(value): expected 0 to 65535", .usage) }
        return id
    }

    static func dBm(_ value: Int, in range: ClosedRange<Int>, _ what: String) throws -> Int8 {
        guard range.contains(value) else {
            throw CommandFailure("--power \(value): expected \(range.lowerBound) to \(range.upperBound) dBm (\(what))", .usage)
        }
        return Int8(value)
    }

    /// The controller's random address as the kernel last set it (debugfs,
    /// root only); nil when unreadable or never set (all zeros).
    static func randomAddress(device: UInt16) -> BDAddress? {
        guard let text = try? String(contentsOfFile: "/sys/kernel/debug/bluetooth/hci\(device)/random_address", encoding: .utf8),
              let address = BDAddress(text: text.trimmingCharacters(in: .whitespacesAndNewlines)), address.packed != 0
        else { return nil }
        return address
    }

    /// `hci1` or `hci:hci1` → 1.
    static func device(_ text: String) -> UInt16? {
        var name = Substring(text)
        if name.hasPrefix("hci:") { name = name.dropFirst(4) }
        guard name.hasPrefix("hci") else { return nil }
        return UInt16(name.dropFirst(3))
    }
}

/// The controller's socket and its advertising, off the cooperative pool
/// (HCI commands wait on the controller, up to seconds when it does not answer).
final class Advertiser: @unchecked Sendable {
    private let lock = NSLock()
    private var controller: AdvertiseController  // guarded by `lock`
    private let socket: HCISocket

    private init(socket: HCISocket, device: UInt16) {
        self.socket = socket
        controller = AdvertiseController(engine: CommandEngine(transport: socket, deviceName: "hci\(device)"))
    }

    /// The raw channel (shared with bluetoothd), seeing only command answers.
    static func open(device: UInt16) async throws -> Advertiser {
        do {
            return try await BlockingWork.run("fprint.advertise.open") { () throws(HCISocketError) -> Advertiser in
                let socket = try HCISocket(device: device, exclusive: false)
                try socket.setFilter(events: [HCIEvent.commandComplete, HCIEvent.commandStatus])
                return Advertiser(socket: socket, device: device)
            }
        } catch {
            throw BLEFailure.failure(error, device: device)
        }
    }

    func start(data: [UInt8], parameters: HCICommand.AdvertisingParameters, randomAddress: BDAddress?) async throws {
        try await run { (c: inout AdvertiseController) throws(HCISocketError) in
            try c.start(data: data, parameters: parameters, randomAddress: randomAddress)
        }
    }

    func rotate(to address: BDAddress) async throws {
        try await run { (c: inout AdvertiseController) throws(HCISocketError) in try c.rotate(to: address) }
    }

    func stop(restoring randomAddress: BDAddress?) async throws {
        try await run { (c: inout AdvertiseController) throws(HCISocketError) in try c.stop(restoring: randomAddress) }
    }

    private func run(_ body: @escaping @Sendable (inout AdvertiseController) throws(HCISocketError) -> Void) async throws {
        do {
            try await BlockingWork.run("fprint.advertise") { [self] () throws(HCISocketError) in
                lock.lock()
                defer { lock.unlock() }
                try body(&controller)
            }
        } catch {
            throw BLEFailure.failure(error, device: socket.device)
        }
    }
}

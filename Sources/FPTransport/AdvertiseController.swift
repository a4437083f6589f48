import FPHCI

/// Makes a controller advertise one beacon and leaves it as it was found.
///
/// Legacy commands first: Set Advertising Parameters is accepted only while
/// the controller is not advertising, so its success says advertising was
/// off, and `stop` turning it off again restores that. "Command Disallowed"
/// there means the controller is advertising already (bluetoothd) or is in
/// extended mode (legacy commands refused once extended ones were used): a
/// controller with extended advertising then gets a set of its own, which
/// `stop` removes; one without is busy.
package struct AdvertiseController {
    package enum Mode: Sendable, Equatable {
        case legacy
        case extended(handle: UInt8)
    }

    package let engine: CommandEngine
    package private(set) var mode: Mode?

    package init(engine: CommandEngine) { self.engine = engine }

    /// Sets parameters, the address (a random one when given), the data, and enables.
    package mutating func start(data: [UInt8], parameters: HCICommand.AdvertisingParameters,
                                randomAddress: BDAddress?) throws(HCISocketError) {
        var p = parameters
        p.randomAddress = randomAddress != nil
        do {
            try engine.send(.setAdvertisingParameters(p))
        } catch {
            guard case .command(_, _, HCIStatusCode.commandDisallowed) = error else { throw error }
            try startExtended(data: data, parameters: p, randomAddress: randomAddress)
            return
        }
        mode = .legacy
        if let randomAddress { try engine.send(.setRandomAddress(randomAddress)) }
        try engine.send(.setAdvertisingData(data))
        try engine.send(.setAdvertisingEnable(true))
    }

    private mutating func startExtended(data: [UInt8], parameters: HCICommand.AdvertisingParameters,
                                        randomAddress: BDAddress?) throws(HCISocketError) {
        let features = try engine.send(HCICommand(HCICommand.Opcode.leReadLocalFeatures))
        // LE features bit 12: LE Extended Advertising.
        guard features.count >= 3, features[1 + 1] & 0x10 != 0 else {
            throw .adapterBusy("\(engine.deviceName) is advertising already (another program, usually bluetoothd): "
                + "stop that advertisement (bluetoothctl advertise off) and try again")
        }
        let sets = try engine.send(HCICommand(HCICommand.AdvertisingOpcode.readNumberOfSets))
        // The last set: the kernel numbers its own from the first.
        let handle = sets.count >= 2 && sets[1] > 0 ? sets[1] - 1 : 0
        do {
            try engine.send(.setExtendedAdvertisingParameters(handle: handle, parameters))
        } catch {
            guard case .command(_, _, HCIStatusCode.commandDisallowed) = error else { throw error }
            throw .adapterBusy("\(engine.deviceName): advertising set \(handle) is in use by another program (usually bluetoothd): "
                + "stop its advertisement (bluetoothctl advertise off) and try again")
        }
        mode = .extended(handle: handle)
        if let randomAddress { try engine.send(.setAdvertisingSetRandomAddress(handle: handle, randomAddress)) }
        try engine.send(.setExtendedAdvertisingData(handle: handle, data))
        try engine.send(.setExtendedAdvertisingEnable(handle: handle, true))
    }

    /// A new random address: advertising pauses for the change (a controller
    /// refuses a new address while legacy advertising is on).
    package func rotate(to address: BDAddress) throws(HCISocketError) {
        switch mode {
        case .legacy:
            try engine.send(.setAdvertisingEnable(false))
            try engine.send(.setRandomAddress(address))
            try engine.send(.setAdvertisingEnable(true))
        case .extended(let handle):
            try engine.send(.setExtendedAdvertisingEnable(handle: handle, false))
            try engine.send(.setAdvertisingSetRandomAddress(handle: handle, address))
            try engine.send(.setExtendedAdvertisingEnable(handle: handle, true))
        case nil:
            return
        }
    }

    /// Advertising off (legacy), or the set disabled and removed (extended):
    /// the controller as `start` found it. Safe to call when nothing started.
    /// `randomAddress`: the controller's random address before `start` set
    /// one, put back (legacy advertising changes the controller's own; an
    /// extended set's goes with the set).
    package mutating func stop(restoring randomAddress: BDAddress? = nil) throws(HCISocketError) {
        defer { mode = nil }
        switch mode {
        case .legacy:
            try engine.send(.setAdvertisingEnable(false))
            if let randomAddress { try engine.send(.setRandomAddress(randomAddress)) }
        case .extended(let handle):
            try engine.send(.setExtendedAdvertisingEnable(handle: handle, false))
            try engine.send(.removeAdvertisingSet(handle: handle))
        case nil:
            return
        }
    }
}

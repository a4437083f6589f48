import FPHCI

/// Starts and stops LE scanning: extended where the controller has it,
/// legacy otherwise; duplicate filtering off; always leaves scanning disabled.
package struct ScanController {
    package let engine: CommandEngine
    package private(set) var extended = false
    package private(set) var version: LocalVersion?

    package init(engine: CommandEngine) { self.engine = engine }

    /// Reads version and features, then disables any scan, sets parameters and enables.
    package mutating func start(_ parameters: HCICommand.ScanParameters) throws(HCISocketError) {
        version = try? LocalVersion(returnParameters: try engine.send(HCICommand(HCICommand.Opcode.readLocalVersion)))
        let lmp = try engine.send(HCICommand(HCICommand.Opcode.readLocalFeatures))
        // LMP features page 0, byte 4 bit 6: LE Supported (Controller).
        if lmp.count >= 9, lmp[1 + 4] & 0x40 == 0 {
            throw .noLE("\(engine.deviceName) has no Bluetooth Low Energy (a BR/EDR-only controller): use an LE adapter")
        }
        let le = try engine.send(HCICommand(HCICommand.Opcode.leReadLocalFeatures))
        // LE features bit 12: LE Extended Advertising (which brings extended scanning).
        extended = le.count >= 3 && le[1 + 1] & 0x10 != 0
        try stop()
        if extended {
            try engine.send(.setExtendedScanParameters(parameters))
            try engine.send(.setExtendedScanEnable(true))
        } else {
            try engine.send(.setScanParameters(parameters))
            try engine.send(.setScanEnable(true))
        }
    }

    /// Disables scanning. "Command Disallowed" here means it was not scanning: fine.
    package func stop() throws(HCISocketError) {
        do {
            try engine.send(extended ? .setExtendedScanEnable(false) : .setScanEnable(false))
        } catch {
            if case .command(_, _, HCIStatusCode.commandDisallowed) = error { return }
            throw error
        }
    }
}

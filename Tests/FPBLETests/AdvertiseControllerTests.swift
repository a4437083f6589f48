import FPHCI
import FPHex
import FPTransport
import Testing

@Suite("Advertising control: legacy, extended fallback, restore")
struct AdvertiseControllerTests {
    static let data = BeaconAdvertisement.iBeacon(uuid: hex("FB0B57A2822844CD913A94A122BA1206"), major: 1, minor: 53, measuredPower: -59)
    static let params = HCICommand.AdvertisingParameters(interval: 0x00A0, randomAddress: false)
    static let address = BDAddress(0x12, 0x34, 0x56, 0x78, 0x9A, 0xBC)
    static let ok: [UInt8] = [0x00]
    static let disallowed: [UInt8] = [0x0C]

    static func step(_ c: HCICommand, _ ret: [UInt8]) -> (expect: [UInt8], replies: [[UInt8]]) {
        (c.h4, [complete(c.opcode, ret)])
    }

    @Test func legacyStartThenStopTurnsAdvertisingOffAgain() throws {
        let t = ScriptedTransport([
            Self.step(.setAdvertisingParameters(Self.params), Self.ok),
            Self.step(.setAdvertisingData(Self.data), Self.ok),
            Self.step(.setAdvertisingEnable(true), Self.ok),
            Self.step(.setAdvertisingEnable(false), Self.ok),
        ])
        var c = AdvertiseController(engine: CommandEngine(transport: t, deviceName: "hci0"))
        try c.start(data: Self.data, parameters: Self.params, randomAddress: nil)
        #expect(c.mode == .legacy)
        try c.stop()
        #expect(c.mode == nil)
        try c.stop()  // twice: nothing more is sent
        #expect(t.script.isEmpty)
    }

    @Test func randomAddressIsSetBeforeEnablingAndRotatedWhilePaused() throws {
        var random = Self.params
        random.randomAddress = true
        let next = BDAddress(0x01, 0x02, 0x03, 0x04, 0x05, 0x06)
        let t = ScriptedTransport([
            Self.step(.setAdvertisingParameters(random), Self.ok),
            Self.step(.setRandomAddress(Self.address), Self.ok),
            Self.step(.setAdvertisingData(Self.data), Self.ok),
            Self.step(.setAdvertisingEnable(true), Self.ok),
            Self.step(.setAdvertisingEnable(false), Self.ok),
            Self.step(.setRandomAddress(next), Self.ok),
            Self.step(.setAdvertisingEnable(true), Self.ok),
        ])
        var c = AdvertiseController(engine: CommandEngine(transport: t, deviceName: "hci0"))
        try c.start(data: Self.data, parameters: Self.params, randomAddress: Self.address)
        try c.rotate(to: next)
        #expect(t.script.isEmpty)
    }

    /// The controller's earlier random address goes back after advertising stops.
    @Test func stopPutsTheEarlierRandomAddressBack() throws {
        var random = Self.params
        random.randomAddress = true
        let earlier = BDAddress(0xC0, 0x01, 0x02, 0x03, 0x04, 0x05)
        let t = ScriptedTransport([
            Self.step(.setAdvertisingParameters(random), Self.ok),
            Self.step(.setRandomAddress(Self.address), Self.ok),
            Self.step(.setAdvertisingData(Self.data), Self.ok),
            Self.step(.setAdvertisingEnable(true), Self.ok),
            Self.step(.setAdvertisingEnable(false), Self.ok),
            Self.step(.setRandomAddress(earlier), Self.ok),
        ])
        var c = AdvertiseController(engine: CommandEngine(transport: t, deviceName: "hci0"))
        try c.start(data: Self.data, parameters: Self.params, randomAddress: Self.address)
        try c.stop(restoring: earlier)
        #expect(t.script.isEmpty)
    }

    /// Legacy refused (extended mode): a set of its own, removed at stop.
    @Test func extendedControllerGetsItsOwnSetAndLosesItAtStop() throws {
        let t = ScriptedTransport([
            Self.step(.setAdvertisingParameters(Self.params), Self.disallowed),
            Self.step(HCICommand(HCICommand.Opcode.leReadLocalFeatures), [0x00, 0x00, 0x10, 0, 0, 0, 0, 0, 0]),
            Self.step(HCICommand(HCICommand.AdvertisingOpcode.readNumberOfSets), [0x00, 0x04]),
            Self.step(.setExtendedAdvertisingParameters(handle: 3, Self.params), [0x00, 0x00]),
            Self.step(.setExtendedAdvertisingData(handle: 3, Self.data), Self.ok),
            Self.step(.setExtendedAdvertisingEnable(handle: 3, true), Self.ok),
            Self.step(.setExtendedAdvertisingEnable(handle: 3, false), Self.ok),
            Self.step(.removeAdvertisingSet(handle: 3), Self.ok),
        ])
        var c = AdvertiseController(engine: CommandEngine(transport: t, deviceName: "hci0"))
        try c.start(data: Self.data, parameters: Self.params, randomAddress: nil)
        #expect(c.mode == .extended(handle: 3))
        try c.stop()
        #expect(t.script.isEmpty)
    }

    /// Legacy refused and no extended advertising: someone else advertises; nothing is changed.
    @Test func aControllerAdvertisingForSomeoneElseIsBusy() throws {
        let t = ScriptedTransport([
            Self.step(.setAdvertisingParameters(Self.params), Self.disallowed),
            Self.step(HCICommand(HCICommand.Opcode.leReadLocalFeatures), [0x00, 0x01, 0x00, 0, 0, 0, 0, 0, 0]),
        ])
        var c = AdvertiseController(engine: CommandEngine(transport: t, deviceName: "hci0"))
        #expect(throws: HCISocketError.adapterBusy(
            "hci0 is advertising already (another program, usually bluetoothd): stop that advertisement (bluetoothctl advertise off) and try again")) {
            try c.start(data: Self.data, parameters: Self.params, randomAddress: nil)
        }
        #expect(c.mode == nil)
        try c.stop()  // nothing to undo
        #expect(t.script.isEmpty)
    }

    /// Another refusal than Command Disallowed is the command's failure, named.
    @Test func otherRefusalsAreNamed() throws {
        let t = ScriptedTransport([Self.step(.setAdvertisingParameters(Self.params), [0x12])])
        var c = AdvertiseController(engine: CommandEngine(transport: t, deviceName: "hci1"))
        do {
            try c.start(data: Self.data, parameters: Self.params, randomAddress: nil)
            Issue.record("expected a failure")
        } catch {
            #expect(error.description == "hci1: LE Set Advertising Parameters failed: Invalid HCI Command Parameters (0x12)")
        }
    }
}

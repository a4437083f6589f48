import FPHCI

/// Sends HCI commands and waits for their Command Complete/Status by opcode.
///
/// Other events that arrive meanwhile (advertising reports right after a scan
/// enable) go to `onEvent`, so nothing heard is dropped.
package struct CommandEngine {
    package let transport: any HCITransport
    package var timeoutMs: Int32 = 4000
    package var attempts = 3
    package let deviceName: String
    package var onEvent: (HCIEvent) -> Void = { _ in }

    package init(transport: any HCITransport, deviceName: String) {
        self.transport = transport
        self.deviceName = deviceName
    }

    /// The return parameters of a successful command; throws with the HCI error named.
    @discardableResult
    package func send(_ command: HCICommand) throws(HCISocketError) -> [UInt8] {
        for _ in 0..<attempts {
            try transport.write(command.h4)
            if let reply = try awaitReply(command) { return reply }
        }
        throw .noAnswer(device: deviceName, opcode: command.opcode, attempts: attempts, timeoutMs: timeoutMs)
    }

    func awaitReply(_ command: HCICommand) throws(HCISocketError) -> [UInt8]? {
        var waited: Int32 = 0
        while waited < timeoutMs {
            let slice: Int32 = 100
            guard let frame = try transport.read(timeoutMs: slice) else { waited += slice; continue }
            guard let event = try? HCIEvent(h4: frame[...]) else { continue }
            if event.code == HCIEvent.commandComplete, let cc = try? CommandComplete(event), cc.opcode == command.opcode {
                let status = cc.status ?? 0
                if status != HCIStatusCode.success { throw .command(device: deviceName, opcode: command.opcode, status: status) }
                return cc.returnParameters
            }
            if event.code == HCIEvent.commandStatus, let cs = try? CommandStatus(event), cs.opcode == command.opcode {
                if cs.status != HCIStatusCode.success { throw .command(device: deviceName, opcode: command.opcode, status: cs.status) }
                return []
            }
            onEvent(event)
        }
        return nil
    }
}

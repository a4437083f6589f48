import CHCI
import FPHCI
import Glibc

/// One local Bluetooth adapter as the kernel reports it.
package struct AdapterInfo: Sendable, Equatable {
    package var index: Int
    package var name: String
    package var address: String
    package var up: Bool
    package var le: Bool
    /// From Read Local Version (only when the adapter is up and we may ask).
    package var manufacturer: String?
}

package enum Adapters {
    /// Lists adapters with HCIGETDEVLIST/HCIGETDEVINFO on an unbound HCI socket.
    package static func list() throws(HCISocketError) -> [AdapterInfo] {
        let fd: Int32
        switch system_socket(HCIConst.afBluetooth, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), HCIConst.btprotoHCI) {
        case .success(let v): fd = v
        case .failure(let e): throw HCISocketError.from(e, "socket(AF_BLUETOOTH, BTPROTO_HCI)", device: "hci")
        }
        defer { system_close(fd) }
        // struct hci_dev_list_req { u16 dev_num; struct hci_dev_req dev_req[]; } (dev_req = u16 id + u32 opt).
        let max = Int(fp_HCI_MAX_DEV)
        var buf = [UInt8](repeating: 0, count: 4 + max * 8)
        buf[0] = UInt8(max & 0xFF)
        buf[1] = UInt8(max >> 8)
        let r = buf.withUnsafeMutableBytes { system_ioctl(fd, UInt(fp_HCIGETDEVLIST), $0.baseAddress!) }
        if case .failure(let e) = r { throw HCISocketError.from(e, "ioctl HCIGETDEVLIST", device: "hci") }
        let count = Int(buf[0]) | Int(buf[1]) << 8
        var out: [AdapterInfo] = []
        for i in 0..<min(count, max) {
            let id = UInt16(buf[4 + i * 8]) | UInt16(buf[5 + i * 8]) << 8
            var info = hci_dev_info()
            info.dev_id = id
            guard case .success = system_ioctl(fd, UInt(fp_HCIGETDEVINFO), &info) else { continue }
            let name = withUnsafeBytes(of: info.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            let a = withUnsafeBytes(of: info.bdaddr) { Array($0) }
            let address = BDAddress(a[5], a[4], a[3], a[2], a[1], a[0]).description
            let up = info.flags & (1 << UInt32(HCI_UP)) != 0
            let features = withUnsafeBytes(of: info.features) { Array($0) }
            var adapter = AdapterInfo(index: Int(id), name: name, address: address, up: up,
                                      le: features.count > 4 && features[4] & 0x40 != 0)
            if up, let socket = try? HCISocket(device: id, exclusive: false) {
                try? socket.setFilter()
                let engine = CommandEngine(transport: socket, deviceName: name)
                if let reply = try? engine.send(HCICommand(HCICommand.Opcode.readLocalVersion)),
                   let v = try? LocalVersion(returnParameters: reply) {
                    adapter.manufacturer = LocalVersion.manufacturerName(v.manufacturer)
                }
            }
            out.append(adapter)
        }
        return out
    }
}

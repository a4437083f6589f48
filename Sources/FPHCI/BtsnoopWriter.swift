/// Writes btsnoop files (datalink 1002, H4), as `btmon -w` and Android's
/// snoop log do, so `--keep-raw` evidence opens in Wireshark and replays in
/// `--ble-source btsnoop:FILE`.
package enum BtsnoopWriter {
    package struct Packet: Sendable {
        /// Microseconds since the Unix epoch.
        package var timestampMicros: Int64
        /// The H4 type byte, then the packet.
        package var h4: [UInt8]
        /// Controller → host.
        package var received: Bool

        package init(timestampMicros: Int64, h4: [UInt8], received: Bool) {
            self.timestampMicros = timestampMicros
            self.h4 = h4
            self.received = received
        }
    }

    package static func h4File(_ packets: [Packet]) -> [UInt8] {
        var out = BtsnoopFile.magic
        append32(1, to: &out)  // version
        append32(BtsnoopFile.Datalink.h4.rawValue, to: &out)
        for packet in packets {
            append32(UInt32(packet.h4.count), to: &out)  // original length
            append32(UInt32(packet.h4.count), to: &out)  // included length
            // Flags: bit 0 received, bit 1 command or event (not data).
            let type = packet.h4.first.flatMap(H4Type.init(rawValue:))
            let control: UInt32 = type == .command || type == .event ? 2 : 0
            append32((packet.received ? 1 : 0) | control, to: &out)
            append32(0, to: &out)  // cumulative drops
            let time = UInt64(bitPattern: packet.timestampMicros &+ BtsnoopFile.epochOffsetMicros)
            append32(UInt32(time >> 32), to: &out)
            append32(UInt32(time & 0xFFFF_FFFF), to: &out)
            out += packet.h4
        }
        return out
    }

    private static func append32(_ value: UInt32, to out: inout [UInt8]) {
        out += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}

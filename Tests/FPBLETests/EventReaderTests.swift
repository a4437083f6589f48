import FPBLE
import FPCore
import FPHCI
import FPTransport
import Foundation
import Testing

/// The production read loop (`HCIEventReader`) over a real datagram socket:
/// a UDP socket on loopback delivers H4 frames one per read, as an HCI socket does.
@Suite(.serialized) struct EventReaderTests {
    /// A bound UDP socket on 127.0.0.1 and its port.
    static func udpSocket() throws -> (fd: Int32, port: UInt16) {
        let (fd, address) = try loopbackSocket(SOCK_DGRAM)
        return (fd, UInt16(bigEndian: address.sin_port))
    }

    @Test func everyReportOfEveryFrameBecomesASampleAndOtherFramesAreSkipped() async throws {
        // Given the real LE advertising report events of a capture, sent as H4 frames
        let capture = try BtsnoopFile(bytes: Array(Data(contentsOf: ProviderTests.captures
            .appendingPathComponent("csacca__horizon-74-at-ble-adv.btsnoop"))))
        let events = try capture.records().filter { $0.type == .event }.map { [H4Type.event.rawValue] + Array($0.packet) }
        let expected = events.reduce(0) { total, frame in
            total + ((try? AdvertisingReports.parse(HCIEvent(bytes: frame[1...])).count) ?? 0)
        }
        #expect(expected == 412)
        let (fd, port) = try Self.udpSocket()
        let socket = HCISocket(adopting: fd, device: 7)
        let sink = SampleSink()
        let reader = HCIEventReader(clock: MonotonicClock(), sink: sink)
        reader.start(reading: socket, threadName: "test-reader")
        let (sender, _) = try Self.udpSocket()
        defer { close(sender) }
        var to = sockaddr_in()
        to.sin_family = sa_family_t(AF_INET)
        to.sin_addr.s_addr = inet_addr("127.0.0.1")
        to.sin_port = port.bigEndian
        // plus an ACL frame and a truncated event, which must be skipped and counted
        for frame in events + [[0x02, 0x01, 0x00], [H4Type.event.rawValue, 0x3E, 0x20, 0x02, 0x05]] {
            _ = frame.withUnsafeBytes { bytes in
                withUnsafePointer(to: &to) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        sendto(sender, bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
            }
        }
        // When the reader has had time to read them all (a bound only against hanging)
        var samples: [Sample] = []
        let deadline = Date().addingTimeInterval(120)
        while samples.count < expected, Date() < deadline {
            try await Task.sleep(for: .milliseconds(20))
            samples += sink.drain()
        }
        await reader.stop()
        // Then every report is a BLE sample, in order, and the bad event is counted
        #expect(samples.count == expected)
        let scans = samples.compactMap { if case .ble(let s) = $0 { s } else { nil } }
        let replayed = try BtsnoopCapture(path: ProviderTests.captures.appendingPathComponent("csacca__horizon-74-at-ble-adv.btsnoop").path)
        #expect(scans.map(\.address) == replayed.scans.map(\.address))
        #expect(scans.map(\.rssi) == replayed.scans.map(\.rssi))
        #expect(reader.malformedEvents == 1)
    }

    @Test func theReceiveBufferIsSizedForBursts() throws {
        let (fd, _) = try Self.udpSocket()
        let socket = HCISocket(adopting: fd, device: 0)
        // The kernel reports twice what it keeps for bookkeeping; with CAP_NET_ADMIN
        // (root here, fprint's setcap line elsewhere) SO_RCVBUFFORCE passes net.core.rmem_max.
        if geteuid() == 0 {
            #expect(socket.receiveBufferBytes == 2 * Int(HCISocket.requestedReceiveBufferBytes))
        } else {
            #expect(socket.receiveBufferBytes > 0)
        }
    }
}

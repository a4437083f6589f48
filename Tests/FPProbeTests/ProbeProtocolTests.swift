import FPCore
import FPGateway
@testable import FPProbe
import Foundation
import Testing

/// The server's answers to clients that break the protocol, over real loopback sockets.
@Suite struct ProbeProtocolTests {
    static let secret = Data("0123456789abcdef0123456789abcdef".utf8)

    func server() throws -> (ProbeServer, UInt16) {
        let tokens = TokenAuthority(secret: Self.secret)
        let server = ProbeServer(ProbeServer.Config(host: "127.0.0.1", port: 0, signer: ProbeSigner(gatewaySecret: Self.secret)) {
            try tokens.verify($0).subject
        })
        return (server, try server.start())
    }

    /// Sends raw bytes and reads the one answer line.
    func exchange(_ port: UInt16, _ bytes: [UInt8]) async throws -> JSONValue {
        try await BlockingWork.run("probe-raw") { () throws -> JSONValue in
            let fd = try Sock.connect(to: try ProbeAddress.resolve("127.0.0.1", port: port), timeout: 5)
            defer { close(fd) }
            Sock.setTimeouts(fd, seconds: 15)
            try Sock.sendAll(fd, bytes)
            var channel = LineChannel(fd: fd)
            return try channel.readJSON(maxBytes: 1 << 16)
        }
    }

    @Test func aRequestThatIsNotJSONIsRefused() async throws {
        let (server, port) = try server()
        defer { server.stop() }
        let answer = try await exchange(port, Array("hello\n".utf8))
        #expect(answer["ok"]?.boolValue == false)
        #expect(answer["status"]?.stringValue == "protocol-error")
    }

    @Test func anUnknownOpIsRefusedAfterAuthentication() async throws {
        let (server, port) = try server()
        defer { server.stop() }
        let token = TokenAuthority(secret: Self.secret).issue(user: "alice", ttlSeconds: 3600)
        let answer = try await exchange(port, Array("{\"op\":\"shell\",\"token\":\"\(token)\"}\n".utf8))
        #expect(answer["status"]?.stringValue == "protocol-error")
        #expect(answer["reason"]?.stringValue?.contains("unknown op") == true)
        let anonymous = try await exchange(port, Array("{\"op\":\"down\"}\n".utf8))
        #expect(anonymous["status"]?.stringValue == "unauthorized")
    }

    /// The server no longer answers whether a result is valid: results are
    /// checked offline with its public key, and an older client's `verify`
    /// (which sent the token wherever a file said) gets a refusal, not a verdict.
    @Test func theVerifyOpIsGone() async throws {
        let (server, port) = try server()
        defer { server.stop() }
        let token = TokenAuthority(secret: Self.secret).issue(user: "alice", ttlSeconds: 3600)
        let signed = CanonicalJSON.string(try ProbeSigner(gatewaySecret: Self.secret).sign(["phase": "down", "user": "alice"]))
        let answer = try await exchange(port, Array("{\"op\":\"verify\",\"signed\":\(signed),\"token\":\"\(token)\"}\n".utf8))
        #expect(answer["ok"]?.boolValue == false)
        #expect(answer["valid"] == nil)
        #expect(answer["reason"]?.stringValue == "unknown op; expected down, up or udp")
    }

    /// The datagram layout round-trips; foreign and short datagrams are not ours.
    @Test func datagramsParseOnlyWhenWhole() throws {
        let d = ProbeWire.Datagram(kind: .hop, session: 0x0102_0304_0506_0708, seq: 513, clientSentMicros: 1_700_000_000_123_456,
                                   serverReceivedMicros: -5)
        let bytes = d.bytes(size: 200)
        #expect(bytes.count == 200)
        #expect(ProbeWire.Datagram(bytes[...]) == d)
        for n in 0..<ProbeWire.headerSize { #expect(ProbeWire.Datagram(bytes[..<n]) == nil, "prefix \(n)") }
        var foreign = bytes
        foreign[0] = UInt8(ascii: "X")
        #expect(ProbeWire.Datagram(foreign[...]) == nil)
    }

    /// SCM_TIMESTAMPNS among control messages (cmsghdr little-endian: len 8 bytes, level, type; timespec).
    @Test func kernelStampIsReadFromItsControlMessage() {
        func le(_ v: UInt64, _ n: Int) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        let other = le(20, 8) + le(0, 4) + le(99, 4) + [1, 2, 3, 4] + [0, 0, 0, 0]  // a 20-byte message, padded to 24
        let stamp = le(32, 8) + le(UInt64(SOL_SOCKET), 4) + le(35, 4) + le(1_700_000_000, 8) + le(123_456_789, 8)
        let control = other + stamp
        #expect(StampedDatagrams.stamp(control, length: control.count) == 1_700_000_000_123_456)
        #expect(StampedDatagrams.stamp(other, length: other.count) == nil)
    }
}

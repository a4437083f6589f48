import FPCore
import FPGateway
@testable import FPProbe
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The probe server and client over real loopback sockets.
@Suite struct ProbeServerTests {
    static let secret = Data("0123456789abcdef0123456789abcdef".utf8)
    let tokens = TokenAuthority(secret: ProbeServerTests.secret)

    /// The server's bounds, with 4 MB a direction: loopback moves 100 MB in a blink, but it would take
    /// CPU from the tests running beside these.
    static var smallLimits: ProbeLimits {
        var limits = ProbeLimits()
        limits.maxBytes = 4_000_000
        return limits
    }

    func server(_ limits: ProbeLimits = smallLimits, dropUDP: Bool = false) throws -> (ProbeServer, UInt16) {
        let tokens = self.tokens
        var config = ProbeServer.Config(host: "127.0.0.1", port: 0, signer: ProbeSigner(gatewaySecret: Self.secret)) {
            try tokens.verify($0).subject
        }
        config.limits = limits
        config.dropUDP = dropUDP
        let server = ProbeServer(config)
        return (server, try server.start())
    }

    func options(_ port: UInt16, token: String? = nil) -> ProbeOptions {
        var o = ProbeOptions(host: "127.0.0.1", port: port, token: token ?? tokens.issue(user: "alice", ttlSeconds: 3600))
        o.seconds = 0.5
        o.datagrams = 30
        o.spacingMs = 5
        o.pings = 0
        o.udpRetryInterval = 0.3
        return o
    }

    func run(_ options: ProbeOptions) async -> ProbeReport {
        let client = ProbeClient(options)
        return await BlockingWork.run("probe-test") { client.run() }
    }

    @Test func everyPhaseRunsAndIsSignedByTheServer() async throws {
        let (server, port) = try server()
        defer { server.stop() }
        let report = await run(options(port))
        let signer = ProbeSigner(gatewaySecret: Self.secret)
        for name in ["down", "up", "udp"] {
            let phase = try #require(report.phase(name))
            #expect(phase.status == .ok, "\(name): \(phase.reason ?? "")")
            let signed = try #require(phase.signed)
            #expect(ProbeSignatureCheck(signed, trusted: [signer.publicKey]) == .valid(signer.publicKey))
            #expect(signed["result"]?["user"]?.stringValue == "alice")
        }
        let down = JSONValue.object(try #require(report.phase("down")).figures)
        #expect((down["bitsPerSecond"]?.doubleValue ?? 0) > 0)
        let udp = JSONValue.object(try #require(report.phase("udp")).figures)
        #expect(udp["sent"]?.intValue == 30)
        // Loopback loses nothing, and every echo has a round trip.
        #expect(udp["lossUpPercent"]?.doubleValue == 0 && udp["lossDownPercent"]?.doubleValue == 0)
        #expect(udp["rttMs"]?["count"]?.intValue == 30)
        #expect(report.phase("ping")?.status == .skipped)
    }

    /// The server's bounds win over what the client asks for.
    @Test func transfersStopAtTheServersBounds() async throws {
        var limits = Self.smallLimits
        limits.maxBytes = 1_000_000
        limits.maxSeconds = 1
        let (server, port) = try server(limits)
        defer { server.stop() }
        var o = options(port)
        o.seconds = 30
        o.datagrams = 5000  // at 5 ms, 1 s holds 200
        let report = await run(o)
        for name in ["down", "up"] {
            let phase = try #require(report.phase(name))
            #expect(phase.status == .ok, "\(name): \(phase.reason ?? "")")
            let result = try #require(phase.signed?["result"])
            #expect((result["bytes"]?.intValue ?? .max) <= 1_000_000)
            #expect(result["boundSeconds"]?.doubleValue == 1)
        }
        #expect(report.phase("udp")?.signed?["result"]?["datagrams"]?.intValue == 200)
    }

    @Test func aClientOverItsRateLimitIsRefusedClearly() async throws {
        var limits = Self.smallLimits
        limits.perClientPerMinute = 2
        let (server, port) = try server(limits)
        defer { server.stop() }
        let report = await run(options(port))
        #expect(report.phase("down")?.status == .ok)
        #expect(report.phase("up")?.status == .ok)
        let udp = try #require(report.phase("udp"))
        #expect(udp.status == .rateLimited)
        #expect(udp.reason?.contains("too many probes") == true && udp.reason?.contains("try again in") == true)
    }

    /// A client that waits for each answer is never "too many at once": the
    /// server gives an operation's place back before its last answer. Before,
    /// it did so after writing it, and an operation sent the moment the
    /// previous one was answered was refused whenever that thread had not run
    /// on yet (seen as a flaky `probe --verify` on a busy machine, when that
    /// asked the server). Each operation here is an upload of nothing.
    @Test func oneOperationAtATimeIsNeverRefusedAsTooManyAtOnce() async throws {
        var limits = Self.smallLimits
        limits.perClientAtOnce = 1
        limits.perClientPerMinute = 1000
        let (server, port) = try server(limits)
        defer { server.stop() }
        let client = ProbeClient(options(port))
        let answers = await BlockingWork.run("empty-uploads-in-turn") {
            (0..<200).map { _ in
                Result { () throws -> ProbePhase in
                    var (channel, _) = try client.open(["op": "up"])
                    defer { client.cancellation.close(channel.fd) }
                    shutdown(channel.fd, Int32(SHUT_WR))
                    return try client.result("up", &channel)
                }
            }
        }
        let refused = answers.filter { if case .failure = $0 { true } else { false } }
        #expect(refused.count == 0, "\(refused.count) of 200 refused, first: \(refused.first.map { "\($0)" } ?? "")")
        #expect(answers.allSatisfy { (try? $0.get())?.signed != nil })
    }

    @Test func aBadTokenIsRefusedBeforeAnyData() async throws {
        let (server, port) = try server()
        defer { server.stop() }
        let expired = tokens.issue(user: "bob", ttlSeconds: 1, now: Date(timeIntervalSinceNow: -3600))
        let report = await run(options(port, token: expired))
        for name in ["down", "up", "udp"] {
            let phase = try #require(report.phase(name))
            #expect(phase.status == .unauthorized)
            #expect(phase.reason?.contains("expired") == true)
            #expect(phase.signed == nil)
        }
    }

    /// UDP dropped on the way: the hello is re-sent 3 times, then the phase
    /// fails with its status; the TCP phases still run.
    @Test func droppedUDPFailsOnlyTheUDPPhaseAfterRetries() async throws {
        let (server, port) = try server(dropUDP: true)
        defer { server.stop() }
        let report = await run(options(port))
        let udp = try #require(report.phase("udp"))
        #expect(udp.status == .noUDPAnswer)
        #expect(udp.status.code == 4)
        #expect(udp.reason?.contains("after 3 re-sends") == true)
        #expect(report.phase("down")?.status == .ok)
        #expect(report.phase("up")?.status == .ok)
    }

    /// A server that is down: the first phase says so and the others are not
    /// run (each would fail the same way), the reason given.
    @Test func aServerThatIsDownStopsTheProbeAfterTheFirstPhase() async throws {
        let (server, port) = try server()
        server.stop()
        try await Task.sleep(for: .milliseconds(600))  // the accept loop closes the socket within 0.2 s
        let report = await run(options(port))
        let down = try #require(report.phase("down"))
        #expect(down.status == .unreachable)
        #expect(down.reason?.contains("cannot connect to 127.0.0.1:\(port)") == true)
        for name in ["up", "udp", "ping"] {
            let phase = try #require(report.phase(name))
            #expect(phase.status == .skipped, "\(name)")
            #expect(phase.reason == "not run: down could not connect (\(down.reason ?? ""))", "\(name)")
        }
    }

    /// A host that drops packets (here: a listener whose accept queue is full,
    /// so the kernel drops each SYN): the first phase's connect times out and
    /// no other phase tries (before: each waited out its own connect timeout,
    /// then the ping phase ran).
    @Test func aHostThatDropsPacketsStopsTheProbeAfterTheFirstPhase() async throws {
        let listener = try FullListener()
        defer { listener.close() }
        var o = options(listener.port)
        o.connectTimeout = 0.5
        o.pings = 3
        let report = await run(o)
        let down = try #require(report.phase("down"))
        #expect(down.status == .unreachable)
        #expect(down.reason == "cannot connect to 127.0.0.1:\(listener.port): Connection timed out", "\(down.reason ?? "")")
        for name in ["up", "udp", "ping"] {
            let phase = try #require(report.phase(name))
            #expect(phase.status == .skipped, "\(name): \(phase.reason ?? "")")
            #expect(phase.reason?.hasPrefix("not run: down could not connect") == true, "\(name)")
        }
    }

    /// A real result checks offline with the server's public key; with one byte changed, it does not.
    @Test func theServersResultChecksOfflineAndAnEditedOneDoesNot() async throws {
        let (server, port) = try server()
        defer { server.stop() }
        let report = await run(options(port))
        let signed = try #require(report.phase("udp")?.signed)
        let key = ProbeSigner(gatewaySecret: Self.secret).publicKey
        #expect(ProbeSignatureCheck(signed, trusted: [key]) == .valid(key))
        var text = Array(CanonicalJSON.data(signed["result"] ?? nil))
        // The first digit of the result's text.
        let at = try #require(text.firstIndex { (0x30...0x38).contains($0) })
        text[at] += 1
        var edited = signed
        edited["result"] = try CanonicalJSON.parse(Data(text))
        #expect(ProbeSignatureCheck(edited, trusted: [key]) == .altered)
    }
}

/// A TCP listener that never accepts, its queue (backlog 0) filled by one
/// connection: Linux drops every further SYN, as a filtering firewall would.
final class FullListener {
    let fd: Int32
    let filler: Int32
    let port: UInt16

    init() throws {
        fd = try Sock.bound(host: "127.0.0.1", port: 0, datagram: false)
        port = Sock.localPort(fd)
        // Listening again sets the backlog: one connection fills the queue.
        guard listen(fd, 0) == 0 else { throw ProbeSocketError(message: "listen") }
        filler = try Sock.connect(to: ProbeAddress.resolve("127.0.0.1", port: port), timeout: 600)  // a bound only against hanging
    }

    func close() {
        _ = Glibc.close(filler)
        _ = Glibc.close(fd)
    }
}

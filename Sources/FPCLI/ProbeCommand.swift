import ArgumentParser
import FPConfig
import FPCore
import FPProbe
import Foundation

struct ProbeCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe",
        abstract: "Measure network quality against a gateway's probe port: TCP down/up, a UDP train, pings.",
        discussion: """
            The server (`fprint gateway --probe-port P`) times the transfers and echoes and signs each result with its HMAC; the phases are TCP download and upload (bit/s, the first 10 % left out), a UDP train (loss each way, RFC 3550 jitter each way, round-trip times) and an ICMP ping (if this user may open unprivileged ICMP sockets). A phase that fails says why; the others still run, except after one that cannot connect to the server (they are reported as not run).

            The token comes from --token, else $FPRINT_TOKEN, else what `fprint login` stored for the gateway. The server defaults to the configured gateway's host on port 5985.

            --verify FILE asks the server each probe in FILE names (or --server) whether each signed result is as it signed it, and checks that the figures beside it are the signed ones; a phase the server measured without a signature, or whose figures differ from its signed result, does not verify. What that proves: docs/network-quality.md.

            Exit status: 0 every phase ran, 75 the server is unreachable or over its rate limit, 77 the token was refused, 1 another phase failed, 65 --verify: a phase does not verify.

            Examples:
              fprint probe --server gw.example.org:5985
              fprint probe --json --datagrams 500 > probe.json
              fprint probe --verify probe.json
            """)

    @Option(help: ArgumentHelp("Probe server host[:port] (default: the configured gateway's host, port 5985).", valueName: "host[:port]"))
    var server: String?
    @Option(help: ArgumentHelp("Bearer token (prefer $FPRINT_TOKEN or `fprint login`).", valueName: "token"))
    var token: String?
    @Flag(help: "One JSON object on stdout instead of the table.") var json = false
    @Option(help: "Seconds of each TCP direction (the server bounds it to 10).") var seconds = 5.0
    @Option(help: "Datagrams in the UDP train.") var datagrams = 200
    @Option(help: "Milliseconds between datagrams.") var spacingMs = 20.0
    @Option(help: "ICMP pings (0: none).") var pings = 10
    @Option(help: .hidden) var udpRetrySeconds = 4.0
    @Option(help: ArgumentHelp("Check every phase in this file (a probe's JSON, or a document with networkProbes[]) with the server it names: signed, unaltered, its figures the signed ones.",
                               valueName: "path"))
    var verify: String?
    @OptionGroup var configOptions: ConfigOptions

    func validate() throws {
        if !(seconds > 0 && seconds <= 60) { throw ValidationError("--seconds must be in (0, 60]") }
        if !(1...100_000).contains(datagrams) { throw ValidationError("--datagrams must be 1…100000") }
        if !(spacingMs >= 1 && spacingMs <= 1000) { throw ValidationError("--spacing-ms must be 1…1000") }
        if !(0...1000).contains(pings) { throw ValidationError("--pings must be 0…1000") }
        if let server, ProbeTarget.parse(server) == nil { throw ValidationError("--server: use host or host:port") }
    }

    func perform() async throws {
        let workspace = Workspace(configOptions: configOptions)
        if let verify {
            let target = server.flatMap(ProbeTarget.parse)
            return try await ProbeVerify(path: verify, server: target, token: try ProbeTarget.token(token, workspace: workspace),
                                         workspace: workspace).run()
        }
        let target = try ProbeTarget.resolve(server: server, workspace: workspace)
        var options = ProbeOptions(host: target.host, port: target.port, token: try ProbeTarget.token(token, workspace: workspace))
        options.seconds = seconds
        options.datagrams = datagrams
        options.spacingMs = spacingMs
        options.pings = pings
        options.udpRetryInterval = udpRetrySeconds
        let report = try await ProbeRunner.run(options, progress: !json)
        if json {
            Terminal.out(CanonicalJSON.string(report.json))
        } else {
            for line in ProbeTable.lines(report) { Terminal.out(line) }
        }
        if let failure = ProbeRunner.failure(report) { throw failure }
    }
}

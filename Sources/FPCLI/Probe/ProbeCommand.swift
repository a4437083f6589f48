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
            The server (`fprint gateway --probe-port P`) times the transfers and echoes and signs each result with its Ed25519 key; the phases are TCP download and upload (bit/s, the first 10 % left out), a UDP train (loss each way, RFC 3550 jitter each way, round-trip times) and an ICMP ping (if this user may open unprivileged ICMP sockets). A phase that fails says why; the others still run, except after one that cannot connect to the server (they are reported as not run).

            The token comes from --token, else $FPRINT_TOKEN, else what `fprint login` stored for the gateway. The server defaults to the configured gateway's host on port 5985.

            --trust-server URL fetches the public key the gateway at URL signs results with (its /config/probe-key.json, with your token), keeps it in your fprint config folder (probe-keys.json) and prints its fingerprint: compare it with what `fprint gateway probe-key` prints on the gateway. Once is enough; a gateway whose secret changed has a new key to trust.

            --verify FILE checks every signed result in FILE offline, with the keys you trusted: no network and no token (a server the file names is never contacted). A result signed by a key you have not trusted, altered after signing, or signed by an older gateway's shared secret does not verify, nor does a phase the server measured without a signature or whose figures differ from its signed result. What that proves: docs/network-quality.md.

            Exit status: 0 every phase ran, 75 the server is unreachable or over its rate limit, 77 the token was refused, 1 another phase failed, 65 --verify: a phase does not verify, 64 --verify: no server trusted yet; --trust-server: 75 the gateway is unreachable, 77 it refused the token, 76 its answer is not a probe key.

            Examples:
              fprint probe --server gw.example.org:5985
              fprint probe --json --datagrams 500 > probe.json
              fprint probe --trust-server https://gw.example.org
              fprint probe --verify probe.json
              fprint probe --every 10m --for 24h --map J1NP --x 363 --y 701

            Monitoring (--every): one probe run every interval, by the wall clock (a run that would start more than half an interval late, after a suspend or an overrun, is left out: a gap, never a burst), each stored as its own document (mode probe: time, device, the place with --map/--x/--y, the probe with the link it ran over and a GNSS fix at its start and end when gpsd answers). No BLE or Wi-Fi scanning is needed. --count N or --for D ends it (default: until stopped). Ctrl-C or SIGTERM between runs exits 130 at once; during a run, that run is discarded and said so.
            """)

    @Option(help: ArgumentHelp("Probe server host[:port] (default: the configured gateway's host, port 5985).", valueName: "host[:port]"))
    var server: String?
    @Option(help: ArgumentHelp("Bearer token (prefer $FPRINT_TOKEN or `fprint login`).", valueName: "token"))
    var token: String?
    @Flag(help: "One JSON object on stdout instead of the table (also of --trust-server).") var json = false
    @Option(help: "Seconds of each TCP direction (the server bounds it to 10).") var seconds = 5.0
    @Option(help: "Datagrams in the UDP train.") var datagrams = 200
    @Option(help: "Milliseconds between datagrams.") var spacingMs = 20.0
    @Option(help: "ICMP pings (0: none).") var pings = 10
    @Option(help: .hidden) var udpRetrySeconds = 4.0
    @Option(help: ArgumentHelp("Check every phase in this file (a probe's JSON, or a document with networkProbes[]) offline against the keys you trusted: signed, unaltered, its figures the signed ones.",
                               valueName: "path"))
    var verify: String?
    @Option(help: ArgumentHelp("Trust the key the gateway at this URL signs probe results with (fetched with your token; its fingerprint is printed).",
                               valueName: "url"))
    var trustServer: String?
    @OptionGroup var monitoring: ProbeMonitorOptions
    @OptionGroup var configOptions: ConfigOptions

    func validate() throws {
        if !(seconds > 0 && seconds <= 60) { throw ValidationError("--seconds must be in (0, 60]") }
        if !(1...100_000).contains(datagrams) { throw ValidationError("--datagrams must be 1…100000") }
        if !(spacingMs >= 1 && spacingMs <= 1000) { throw ValidationError("--spacing-ms must be 1…1000") }
        if !(0...1000).contains(pings) { throw ValidationError("--pings must be 0…1000") }
        if let server, ProbeTarget.parse(server) == nil { throw ValidationError("--server: use host or host:port") }
        if verify != nil && trustServer != nil { throw ValidationError("give --trust-server or --verify, not both") }
        if verify != nil && (server != nil || token != nil) {
            throw ValidationError("--verify checks offline against the keys you trusted: --server and --token do not apply")
        }
        if monitoring.every != nil && (verify != nil || trustServer != nil) {
            throw ValidationError("--every monitors the network: --verify and --trust-server do not apply")
        }
        if let trustServer {
            if server != nil { throw ValidationError("--trust-server takes the gateway's URL; --server (the probe port) does not apply") }
            if ProbeTrustServer.parse(trustServer) == nil {
                throw ValidationError("--trust-server: use the gateway's http(s) URL, e.g. https://gw.example.org or http://127.0.0.1:5984")
            }
        }
    }

    func perform() async throws {
        let workspace = Workspace(configOptions: configOptions)
        if let verify {
            return try ProbeVerify(path: verify, trusted: try ProbeVerify.trustedKeys(workspace)).run()
        }
        if let trustServer, let url = ProbeTrustServer.parse(trustServer) {
            return try await ProbeTrustServer(url: url, token: token, json: json, workspace: workspace).run()
        }
        let target = try ProbeTarget.resolve(server: server, workspace: workspace)
        var options = ProbeOptions(host: target.host, port: target.port, token: try ProbeTarget.token(token, workspace: workspace))
        options.seconds = seconds
        options.datagrams = datagrams
        options.spacingMs = spacingMs
        options.pings = pings
        options.udpRetryInterval = udpRetrySeconds
        if monitoring.every != nil {
            return try await monitoring.monitor(options, json: json, workspace: workspace)
        }
        let report = try await ProbeRunner.run(options, progress: !json)
        if json {
            Terminal.out(CanonicalJSON.string(report.json))
        } else {
            for line in ProbeTable.lines(report) { Terminal.out(line) }
        }
        if let failure = ProbeRunner.failure(report) { throw failure }
    }
}

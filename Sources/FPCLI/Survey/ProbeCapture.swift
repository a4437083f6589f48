import ArgumentParser
import FPCore
import FPProbe
import Foundation

/// `--probe` for measure and walk: network probes stored in the document's `networkProbes[]`.
struct ProbeCaptureOptions: ParsableArguments {
    @Flag(help: "Also probe network quality (as `fprint probe`) and store it in the document's networkProbes[].")
    var probe = false
    @Option(help: ArgumentHelp("With --probe: the probe server host[:port] (default: the configured gateway's host, port 5985).",
                               valueName: "host[:port]"))
    var probeServer: String?
    @Option(help: "With --probe: seconds of each TCP direction.") var probeSeconds = 3.0
    @Option(help: "With --probe: datagrams of the UDP train.") var probeDatagrams = 200

    func validate() throws {
        if !probe && probeServer != nil { throw ValidationError("--probe-server needs --probe") }
        if !(probeSeconds > 0 && probeSeconds <= 10) { throw ValidationError("--probe-seconds must be in (0, 10]") }
        if !(1...5000).contains(probeDatagrams) { throw ValidationError("--probe-datagrams must be 1…5000") }
        if let probeServer, ProbeTarget.parse(probeServer) == nil { throw ValidationError("--probe-server: use host or host:port") }
    }

    /// The probe's options, resolved before measuring (a missing token fails first); nil without --probe.
    func options(_ ws: Workspace) throws -> ProbeOptions? {
        guard probe else { return nil }
        let target = try ProbeTarget.resolve(server: probeServer, workspace: ws)
        var options = ProbeOptions(host: target.host, port: target.port, token: try ProbeTarget.token(nil, workspace: ws))
        options.seconds = probeSeconds
        options.datagrams = probeDatagrams
        options.pings = 5
        return options
    }
}

/// One `networkProbes[]` element: the probe as `fprint probe --json` prints
/// it, with where the surveyor was when it started and ended.
enum NetworkProbeEntry {
    static func json(_ report: ProbeReport, start: MapPoint, end: MapPoint, startMs: Int? = nil, endMs: Int? = nil) -> JSONValue {
        var v = report.json
        v["positionStart"] = ["x": .double(ProbeStats.rounded(start.x)), "y": .double(ProbeStats.rounded(start.y))]
        v["positionEnd"] = ["x": .double(ProbeStats.rounded(end.x)), "y": .double(ProbeStats.rounded(end.y))]
        if let startMs { v["startMs"] = .int(Int64(startMs)) }
        if let endMs { v["endMs"] = .int(Int64(endMs)) }
        return v
    }

    /// Runs one probe for a document, saying on stderr how it went (a failed phase does not fail the measurement).
    static func run(_ options: ProbeOptions) async throws -> ProbeReport {
        Terminal.err("probing network quality at \(options.host):\(options.port)…")
        let report = try await ProbeRunner.run(options, progress: false)
        let failed = report.phases.filter { $0.status != .ok && $0.status != .skipped }
        if !failed.isEmpty {
            Terminal.err("probe: " + failed.map { "\($0.name) \($0.status.rawValue)" }.joined(separator: ", ") + " (stored as such)")
        }
        return report
    }
}

import FPCore
import FPProbe
import Foundation

/// `fprint probe --verify FILE`: every phase of every probe in the file. Each
/// signed result goes to the server that signed it (the one its probe
/// recorded, or --server) and the figures beside it must be the signed ones;
/// a phase the server should have signed and did not is not taken on trust.
struct ProbeVerify {
    let path: String
    /// --server: asked instead of the servers the file names.
    let server: ProbeTarget?
    let token: String
    let workspace: Workspace

    /// One probe of the file: the server it recorded and its phases.
    struct Probe {
        var server: String?
        var phases: [StoredProbePhase]
    }

    func run() async throws {
        guard let data = path == "-" ? FileHandle.standardInput.readDataToEndOfFile() : FileManager.default.contents(atPath: path) else {
            throw CommandFailure("\(path): cannot read", .ioError)
        }
        guard let value = try? CanonicalJSON.parse(data) else { throw CommandFailure("\(path): not JSON", .dataError) }
        let probes = Self.probes(in: value)
        let total = probes.reduce(0) { $0 + $1.phases.count }
        if !probes.contains(where: { $0.phases.contains { $0.signed != nil || $0.unverifiedBecause != nil } }) {
            throw CommandFailure("\(path): no signed probe results in it", .dataError)
        }
        var bad = 0
        var nonces: [String: String] = [:]
        for (n, probe) in probes.enumerated() {
            var target: ProbeTarget?
            for phase in probe.phases {
                let label = probes.count > 1 ? "probe \(n + 1) \(phase.name)" : phase.name
                var verdict = Self.verdict(phase)
                if let signed = phase.signed {
                    if target == nil { target = try self.target(probe) }
                    if try await !valid(signed, at: target!) {
                        verdict = .bad("INVALID (altered, or signed by another server)")
                    } else if let nonce = signed["result"]?["nonce"]?.stringValue, let first = nonces[nonce] {
                        verdict = .bad("UNVERIFIED (the same signed result as \(first))")
                    } else if let nonce = signed["result"]?["nonce"]?.stringValue {
                        nonces[nonce] = label
                    }
                }
                switch verdict {
                case .good(let text): Terminal.out("\(label): \(text)")
                case .bad(let text):
                    Terminal.out("\(label): \(text)")
                    bad += 1
                }
            }
        }
        if bad > 0 {
            throw CommandFailure("\(path): \(Terminal.counted(bad, "phase")) of \(total) \(bad == 1 ? "does" : "do") not verify", .dataError)
        }
    }

    enum Verdict {
        case good(String), bad(String)
    }

    /// What a phase is, before its signature is asked about.
    static func verdict(_ phase: StoredProbePhase) -> Verdict {
        switch phase.standing {
        case .signed:
            let r = phase.signed?["result"]
            let who = [r?["user"]?.stringValue.map { "for \($0)" }, r?["client"]?.stringValue.map { "from \($0)" },
                       r?["at"]?.stringValue.map { "at \($0)" }].compactMap { $0 }
            return .good("valid" + (who.isEmpty ? "" : " (measured \(who.joined(separator: " ")))"))
        case .unverified(let why): return .bad("UNVERIFIED (\(why))")
        case .clientMeasured: return .good("not signed (measured by the client, not by the server)")
        case .noFigures: return .good("\(phase.status), no figures to verify")
        }
    }

    /// Probes in a probe's JSON, a document with networkProbes[], or one `{result, signature}`.
    static func probes(in value: JSONValue) -> [Probe] {
        if value["result"] != nil && value["signature"] != nil {
            return [Probe(server: nil, phases: [StoredProbePhase(signedResult: value)])]
        }
        return (value["networkProbes"]?.arrayValue ?? [value]).compactMap { report in
            guard let phases = report["phases"]?.arrayValue else { return nil }
            return Probe(server: report["server"]?.stringValue, phases: phases.map { StoredProbePhase($0) })
        }
    }

    /// --server, else the server the probe recorded, else the configured gateway's host.
    func target(_ probe: Probe) throws -> ProbeTarget {
        if let server { return server }
        if let recorded = probe.server, let target = ProbeTarget.parse(recorded) { return target }
        return try ProbeTarget.resolve(server: nil, workspace: workspace)
    }

    /// The server's answer; a failure to get one is one line and its exit status.
    func valid(_ signed: JSONValue, at target: ProbeTarget) async throws -> Bool {
        let client = ProbeClient(ProbeOptions(host: target.host, port: target.port, token: token))
        do {
            return try await ProbeRunner.onItsThread(client, "fprint.probe.verify") { try client.verify(signed) }
        } catch let failure as ProbeFailure {
            throw CommandFailure("cannot verify: \(failure.reason)", ProbeRunner.exitStatus(failure.status))
        } catch let e as ProbeSocketError {
            throw CommandFailure("cannot verify: \(target.host):\(target.port): \(e.description)", e.isTimeout ? .gatewayUnreachable : .protocolError)
        }
    }
}

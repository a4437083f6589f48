import FPCore
import FPProbe
import Foundation

/// `fprint probe --verify FILE`: every phase of every probe in the file,
/// offline. Each signed result must be signed by a server key the user
/// trusted (`--trust-server`) and the figures beside it must be the signed
/// ones; a phase the server should have signed and did not is not taken on
/// trust. No network and no token: what a file says about its server is
/// never contacted (issue 53 item 10: a file naming an impostor got the
/// user's token and a "valid").
struct ProbeVerify {
    let path: String
    let trusted: [TrustedProbeKeys.Entry]

    /// One probe of the file: its phases.
    struct Probe {
        var phases: [StoredProbePhase]
    }

    /// The trusted keys, else the one line that says how to trust one.
    static func trustedKeys(_ workspace: Workspace) throws -> [TrustedProbeKeys.Entry] {
        let keys = TrustedProbeKeys(paths: workspace.paths)
        let entries = try keys.load()
        if entries.isEmpty {
            throw CommandFailure("no probe server is trusted yet (\(keys.path)): run `fprint probe --trust-server URL` with your gateway's URL first",
                                 .usage)
        }
        return entries
    }

    func run() throws {
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
            for phase in probe.phases {
                let label = probes.count > 1 ? "probe \(n + 1) \(phase.name)" : phase.name
                let verdict = verdict(phase, label: label, nonces: &nonces)
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

    /// A phase's signature first, then whether its result was seen before, then what its figures rest on.
    func verdict(_ phase: StoredProbePhase, label: String, nonces: inout [String: String]) -> Verdict {
        guard let signed = phase.signed else { return Self.verdict(phase, signer: nil) }
        let signer: TrustedProbeKeys.Entry?
        switch ProbeSignatureCheck(signed, trusted: trusted.map(\.key)) {
        case .valid(let key): signer = trusted.first { $0.key == key }
        case .altered: return .bad("INVALID (altered after the server signed it)")
        case .untrusted: return .bad("INVALID (signed by a server you have not trusted)")
        case .sharedSecret: return .bad("UNVERIFIED (signed by an older gateway with a shared secret; cannot be checked offline)")
        case .malformed(let why): return .bad("INVALID (\(why))")
        }
        if let nonce = signed["result"]?["nonce"]?.stringValue {
            if let first = nonces[nonce] { return .bad("UNVERIFIED (the same signed result as \(first))") }
            nonces[nonce] = label
        }
        return Self.verdict(phase, signer: signer)
    }

    /// What a phase's figures rest on, its signature aside.
    static func verdict(_ phase: StoredProbePhase, signer: TrustedProbeKeys.Entry?) -> Verdict {
        switch phase.standing {
        case .signed:
            let r = phase.signed?["result"]
            let who = [r?["user"]?.stringValue.map { "for \($0)" }, r?["client"]?.stringValue.map { "from \($0)" },
                       r?["at"]?.stringValue.map { "at \($0)" }].compactMap { $0 }
            let notes = [who.isEmpty ? nil : "measured \(who.joined(separator: " "))", signer.map { "signed by the key of \($0.server)" }]
                .compactMap { $0 }
            return .good("valid" + (notes.isEmpty ? "" : " (\(notes.joined(separator: "; ")))"))
        case .unverified(let why): return .bad("UNVERIFIED (\(why))")
        case .clientMeasured: return .good("not signed (measured by the client, not by the server)")
        case .noFigures: return .good("\(phase.status), no figures to verify")
        }
    }

    /// Probes in a probe's JSON, a document with networkProbes[], or one signed result.
    static func probes(in value: JSONValue) -> [Probe] {
        if value["result"] != nil && value["signature"] != nil {
            return [Probe(phases: [StoredProbePhase(signedResult: value)])]
        }
        return (value["networkProbes"]?.arrayValue ?? [value]).compactMap { report in
            guard let phases = report["phases"]?.arrayValue else { return nil }
            return Probe(phases: phases.map { StoredProbePhase($0) })
        }
    }
}

import FPConfig
import FPCore
import FPProbe
import Foundation

/// Where to probe: host and port.
struct ProbeTarget {
    var host: String
    var port: UInt16

    /// `host`, `host:port`, `[v6]:port`.
    static func parse(_ text: String) -> ProbeTarget? {
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            let host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            if rest.isEmpty { return ProbeTarget(host: host, port: ProbeWire.defaultPort) }
            guard rest.hasPrefix(":"), let port = UInt16(rest.dropFirst()), port > 0 else { return nil }
            return ProbeTarget(host: host, port: port)
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard !text.isEmpty, parts.count <= 2, !parts[0].isEmpty else { return nil }
        if parts.count == 1 { return ProbeTarget(host: text, port: ProbeWire.defaultPort) }
        guard let port = UInt16(parts[1]), port > 0 else { return nil }
        return ProbeTarget(host: String(parts[0]), port: port)
    }

    /// --server, else the configured gateway's host ($FPRINT_GATEWAY, the app config's gatewayURL).
    static func resolve(server: String?, workspace: Workspace) throws -> ProbeTarget {
        if let server, let target = parse(server) { return target }
        var text = workspace.environment["FPRINT_GATEWAY"]
        if text == nil || text!.isEmpty { text = try? workspace.loadConfig().appConfig.gatewayURL }
        guard let text, let host = URL(string: text)?.host, !host.isEmpty else {
            throw CommandFailure("no probe server: give --server HOST[:PORT] (no gateway is configured)", .usage)
        }
        return ProbeTarget(host: host, port: ProbeWire.defaultPort)
    }

    /// --token, else $FPRINT_TOKEN, else the bearer token `fprint login` stored for the gateway.
    static func token(_ explicit: String?, workspace: Workspace) throws -> String {
        if let explicit, !explicit.isEmpty { return explicit }
        if let env = workspace.environment["FPRINT_TOKEN"], !env.isEmpty { return env }
        var gateway = workspace.environment["FPRINT_GATEWAY"]
        if gateway == nil || gateway!.isEmpty { gateway = try? workspace.loadConfig().appConfig.gatewayURL }
        if let gateway, let url = URL(string: gateway),
           case .bearer(let token)? = try CredentialFile(paths: workspace.paths).credential(for: url)?.credential {
            return token
        }
        throw CommandFailure("no token for the probe server: pass --token, set FPRINT_TOKEN or run `fprint login`", .authRejected)
    }
}

/// Runs a probe off the cooperative pool, with progress, and judges its outcome.
enum ProbeRunner {
    static func run(_ options: ProbeOptions, progress: Bool) async throws -> ProbeReport {
        let client = ProbeClient(options)
        var report = try await onItsThread(client, "fprint.probe") {
            client.run { phase in if progress && Terminal.stderrIsTTY { Terminal.status("probe: \(phase)…") } }
        }
        if progress && Terminal.stderrIsTTY { Terminal.endStatus() }
        report.interface = ProbeInterfaceLookup.interface(towards: options.host, port: options.port)
        return report
    }

    /// Runs `body` (the client's blocking sockets) on a thread of its own;
    /// Ctrl-C shuts the sockets down, so the phase in progress ends at once.
    static func onItsThread<T: Sendable>(_ client: ProbeClient, _ label: String,
                                         _ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await Interrupts.cancellable {
            let value = try await withTaskCancellationHandler {
                try await BlockingWork.run(label) { try body() }
            } onCancel: { client.cancellation.cancel() }
            if client.cancellation.isCancelled { throw CancellationError() }
            return value
        }
    }

    /// The exit a report calls for: nil when every phase ran (an ICMP ping this user may not send does not count).
    static func failure(_ report: ProbeReport) -> CommandFailure? {
        let failed = report.phases.filter { $0.status != .ok && $0.status != .skipped && !($0.name == "ping" && $0.status == .unavailable) }
        guard !failed.isEmpty else { return nil }
        let reasons = failed.map { $0.reason ?? $0.status.rawValue }
        // One reason for all (server down, token refused) is said once.
        var what = Set(reasons).count == 1 && failed.count > 1
            ? "\(reasons[0]) (\(failed.map(\.name).joined(separator: ", ")))"
            : zip(failed, reasons).map { "\($0.name): \($1)" }.joined(separator: "; ")
        let notRun = report.phases.filter { $0.status == .skipped && $0.reason?.hasPrefix(ProbePhase.notRunPrefix) == true }
        if !notRun.isEmpty { what += "; not run: " + notRun.map(\.name).joined(separator: ", ") }
        if failed.contains(where: { $0.status == .unauthorized }) { return CommandFailure(what, .authRejected) }
        // Every TCP/UDP phase unreachable or over the rate limit, or not run after one that could not connect.
        let network = report.phases.filter { $0.name != "ping" }
        if network.allSatisfy({ $0.status == .unreachable || $0.status == .rateLimited || notRun.map(\.name).contains($0.name) }) {
            return CommandFailure(what, .gatewayUnreachable)
        }
        return CommandFailure("\(Terminal.counted(failed.count, "phase")) failed: \(what)", .failure)
    }

    /// The exit status of a server's refusal.
    static func exitStatus(_ status: ProbeStatus) -> ExitStatus {
        switch status {
        case .unauthorized: .authRejected
        case .unreachable, .rateLimited, .timeout: .gatewayUnreachable
        default: .protocolError
        }
    }
}

import FPCore

/// A provider that can tell cheaply, before a measurement, that it cannot record
/// (so `measure` refuses up front instead of recording nothing for 20 s).
package protocol PreflightCheck: Sendable {
    /// nil when the source looks usable; else the reason it is not.
    func preflight() -> String?
}

extension GPSDProvider: PreflightCheck {
    package func preflight() -> String? {
        do {
            let s = try LineSocket.connect(host: endpoint.host, port: endpoint.port, timeoutMs: connectTimeoutMs)
            s.close()
            return nil
        } catch {
            return "gpsd is not reachable at \(endpoint): \(error.description)"
        }
    }
}

extension ModemManagerProvider: PreflightCheck {
    package func preflight() -> String? {
        if case .unavailable(let reason) = probe() { return reason }
        return nil
    }
}

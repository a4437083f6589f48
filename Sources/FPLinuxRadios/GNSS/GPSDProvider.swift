import FPCore
import Foundation

/// Where gpsd listens (`--gpsd host:port`; gpsd's default is localhost:2947).
package struct GPSDEndpoint: Sendable, Equatable, CustomStringConvertible {
    package var host: String
    package var port: UInt16
    package static let `default` = GPSDEndpoint(host: "127.0.0.1", port: 2947)

    package init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// `host`, `host:port`, `:port` or `[v6]:port`; nil for anything else.
    package init?(_ text: String) {
        var host = text, portText: Substring? = nil
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty { guard rest.hasPrefix(":") else { return nil }; portText = rest.dropFirst() }
        } else if let colon = text.lastIndex(of: ":"), text.firstIndex(of: ":") == colon {
            host = String(text[..<colon])
            portText = text[text.index(after: colon)...]
        }
        if host.isEmpty { host = Self.default.host }
        var port = Self.default.port
        if let portText { guard let p = UInt16(portText), p > 0 else { return nil }; port = p }
        self.init(host: host, port: port)
    }

    package var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// GNSS fixes from gpsd's JSON protocol: connect, `?WATCH={"enable":true,"json":true}`,
/// turn TPV reports into `geolocation[]` entries timed on the measurement clock.
package final class GPSDProvider: RadioProvider, @unchecked Sendable {
    package let radio = Radio.location
    package let endpoint: GPSDEndpoint
    let connectTimeoutMs: Int
    private let lock = NSLock()
    private var tracker = GPSDFixTracker()
    private var reader: ReaderThread?
    private var readError: String?

    package init(endpoint: GPSDEndpoint = .default, connectTimeoutMs: Int = 1500) {
        self.endpoint = endpoint
        self.connectTimeoutMs = connectTimeoutMs
    }

    var source: String { "gpsd:\(endpoint)" }

    /// Connecting and the greeting wait on the network: off the cooperative pool.
    package func start(context: CaptureContext, sink: SampleSink) async -> ProviderStatus {
        await BlockingWork.run("fprint.gpsd.start") { [self] in startWatching(context: context, sink: sink) }
    }

    private func startWatching(context: CaptureContext, sink: SampleSink) -> ProviderStatus {
        let socket: LineSocket
        do {
            socket = try LineSocket.connect(host: endpoint.host, port: endpoint.port, timeoutMs: connectTimeoutMs)
            // gpsd greets with VERSION; anything else is not gpsd.
            guard let greeting = try socket.readLine(timeoutMs: connectTimeoutMs),
                  case .version = GPSDReport(line: greeting)
            else {
                return unavailable("\(endpoint) did not greet like gpsd (no VERSION line)")
            }
            try socket.send(#"?WATCH={"enable":true,"json":true}"# + "\n")
        } catch {
            return unavailable("gpsd is not reachable at \(endpoint): \(error.description)")
        }
        let clock = context.clock
        reader = ReaderThread(name: "fprint-gpsd") { [self] shouldStop in
            while !shouldStop() {
                do {
                    guard let line = try socket.readLine(timeoutMs: 200) else { continue }
                    guard let report = GPSDReport(line: line) else { continue }
                    let fix = lock.withLock { tracker.feed(report, atMs: clock.elapsedMs()) }
                    if let fix { sink.emit(.geo(fix)) }
                } catch {
                    lock.withLock { readError = "\(error)" }
                    break
                }
            }
            socket.close()
        }
        return ProviderStatus(status: .ok, source: source)
    }

    package func advance(toMs ms: Int) async {}

    package func stop() async {
        await reader?.stop()
    }

    /// No fix at all is not "ok with zero samples": say why, so the document is never silently empty.
    package func finalStatus() async -> ProviderStatus? {
        let (fixes, reason, readError) = lock.withLock { (tracker.fixes, tracker.noFixReason, self.readError) }
        if fixes > 0 { return nil }
        if let readError { return unavailable("lost the connection to gpsd at \(endpoint): \(readError)") }
        return unavailable(reason)
    }

    private func unavailable(_ reason: String) -> ProviderStatus {
        ProviderStatus(status: .unavailable, source: source, reason: reason)
    }
}

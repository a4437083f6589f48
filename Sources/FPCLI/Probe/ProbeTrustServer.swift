import FPCore
import FPNet
import FPProbe
import FPSync
import Foundation

/// `fprint probe --trust-server URL`: fetches the public key the gateway at
/// URL signs probe results with (`GET /config/probe-key.json`, with this
/// user's credentials for that gateway) and adds it to the trusted keys
/// (`TrustedProbeKeys`). The URL is always the one the user typed: nothing a
/// result file says is ever fetched or sent a token.
struct ProbeTrustServer {
    let url: URL
    /// --token (else what `GatewayAuth` finds for the URL).
    let token: String?
    let json: Bool
    let workspace: Workspace

    /// An http(s) URL with a host, else nil.
    static func parse(_ text: String) -> URL? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty else { return nil }
        return url
    }

    func run() async throws {
        let transport = CurlHTTPTransport(userAgent: "fprint/\(Fprint.version)")
        let auth = try GatewayAuth.resolve(url, explicitToken: token, workspace: workspace, transport: transport)
        let keyURL = GatewayAuth.rootURL(of: auth.url, path: "/config/probe-key.json")
        let shown = keyURL.absoluteString
        let key = try await fetch(keyURL, auth: auth, transport: transport)
        let server = HTTPAuth.origin(of: auth.url) ?? shown
        let store = TrustedProbeKeys(paths: workspace.paths)
        var entries = try store.load()
        let added = !entries.contains { $0.key == key }
        // A key this server had before stays trusted: results it signed still verify.
        let earlier = entries.filter { $0.server == server && $0.key != key }.map(\.key.fingerprint)
        if added {
            entries.append(TrustedProbeKeys.Entry(key: key, server: server, trustedAt: ISOTime.string(Date())))
            try store.save(entries)
        }
        if json {
            Terminal.out(CanonicalJSON.string(["server": .string(server), "alg": .string(ProbeKey.algorithm), "key": .string(key.base64url),
                                               "fingerprint": .string(key.fingerprint), "added": .bool(added)]))
        } else {
            Terminal.out("\(server): \(key.fingerprint) (\(added ? "trusted now" : "already trusted"))")
        }
        if added && !earlier.isEmpty {
            Terminal.err("note: \(server) signed with \(earlier.joined(separator: ", ")) before (its gateway secret changed?); that key stays trusted too")
        }
        if added {
            Terminal.err("compare the fingerprint with what `fprint gateway probe-key` prints on the gateway; if they differ, remove the key from \(store.path)")
        }
    }

    /// The key the gateway serves; every other answer is one line and its exit status.
    func fetch(_ keyURL: URL, auth: GatewayAuth, transport: CurlHTTPTransport) async throws -> ProbeKey {
        let shown = keyURL.absoluteString
        var headers: HTTPHeaders = ["Accept": "application/json"]
        if case SyncCredentials.none = auth.credentials {
            // A credential stored for a database on this origin, as config files get.
            for field in ConfigAuthorizer(paths: workspace.paths, transport: transport).headers(for: keyURL) {
                headers[field.name] = field.value
            }
        } else {
            do { try await auth.credentials.apply(to: &headers) } catch {
                throw CommandFailure("\(shown): \(error)", .authRejected)
            }
        }
        let response: HTTPResponse
        do {
            response = try await transport.send(HTTPRequest(url: keyURL, headers: headers, timeouts: HTTPTimeouts(connect: 10, total: 30)))
        } catch {
            switch error {
            case .unreachable, .timeout: throw CommandFailure(error.description, .gatewayUnreachable)
            case .invalidURL, .invalidRequest: throw CommandFailure(error.description, .usage)
            default: throw CommandFailure(error.description, .protocolError)
            }
        }
        switch response.status {
        case 200..<300: break
        case 401, 403:
            throw CommandFailure("\(shown) answered HTTP \(response.status): no token it accepts; pass --token, set FPRINT_TOKEN or run `fprint login`",
                                 .authRejected)
        case 404:
            throw CommandFailure("\(shown) answered HTTP 404: this server serves no probe key (not an fprint gateway, or an older one)", .protocolError)
        default:
            throw CommandFailure(HTTPError.status(url: shown, code: response.status, body: "").description, .protocolError)
        }
        guard let value = try? CanonicalJSON.parse(response.body) else {
            throw CommandFailure("\(shown): the answer is not a probe key (not JSON)", .protocolError)
        }
        do { return try ProbeKey(json: value) } catch {
            throw CommandFailure("\(shown): the answer is not a probe key (\(error))", .protocolError)
        }
    }
}

import ArgumentParser
import FPConfig
import FPCore
import FPNet
import FPStore
import FPSync
import Foundation

struct Status: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show sync status: pending and refused documents, last sync, gateway, credential.",
        discussion: """
            The credential shown is the one `fprint sync` would use for the gateway URL (--gateway, $FPRINT_GATEWAY or the app config's); passwords, tokens and cookies are never printed. Documents a gateway refused are listed with its reason.

            Examples:
              fprint status
              fprint status --json | jq .refused
            """)

    @Option(help: ArgumentHelp("Gateway database URL.", valueName: "url")) var gateway: String?
    @Flag(help: "Print one JSON object.") var json = false
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var configOptions: ConfigOptions

    func perform() async throws {
        let workspace = Workspace(storeOptions: storeOptions, configOptions: configOptions)
        let store = try workspace.openStore(.read)
        // Deletions not yet synced are pending like documents.
        let (documents, pending) = try store.liveAndPendingCounts()
        let last = try LastSyncNote(paths: workspace.paths, store: store).read(fallback: store)
        let refused = try RefusalLog(store: store).all()
        let text = gateway ?? workspace.environment["FPRINT_GATEWAY"] ?? (try? workspace.loadConfig().appConfig.gatewayURL)
        let url = text.flatMap { URL(string: $0) }
        let credential = try url.map { try CredentialView.of($0, workspace: workspace) }
        if json {
            var object: JSONObject = [
                "documents": .int(Int64(documents)), "pending": .int(Int64(pending)),
                "lastSync": last ?? .null, "refused": .array(refused.map(\.json)),
                "gateway": url.map { .string(URLCredentials.split($0).url.absoluteString) } ?? .null,
            ]
            object["credential"] = credential?.json ?? .null
            Terminal.out(CanonicalJSON.string(.object(object)))
            return
        }
        Terminal.out("documents:  \(documents)")
        Terminal.out("pending:    \(pending) not yet synced")
        if let last {
            Terminal.out("last sync:  \(last["time"]?.stringValue ?? "?") with \(last["gateway"]?.stringValue ?? "?") (sent \(last["sent"]?.intValue ?? 0), received \(last["received"]?.intValue ?? 0))")
        } else {
            Terminal.out("last sync:  never")
        }
        Terminal.out("gateway:    \(text.map(HTTPError.displayURL) ?? "not configured")")
        Terminal.out("credential: \(credential?.line ?? "none (no gateway configured)")")
        if !refused.isEmpty {
            Terminal.out("refused:    \(Terminal.counted(refused.count, "document")), kept unsynced and offered again at each sync:")
            for r in refused { Terminal.out("  \(r.id) \(r.rev): \(r.reason) (\(r.gateway), \(r.time))") }
        }
    }
}

/// What `status` says about the credential of one gateway URL: never the
/// secret itself.
struct CredentialView {
    var type: String
    var user: String?
    var origin: String
    var expires: String?
    var line: String

    var json: JSONValue {
        ["type": .string(type), "user": user.map(JSONValue.string) ?? .null, "from": .string(origin),
         "expires": expires.map(JSONValue.string) ?? .null]
    }

    static func of(_ given: URL, workspace: Workspace) throws -> CredentialView {
        let (url, inURL) = URLCredentials.split(given)
        if let inURL {
            return CredentialView(type: "basic", user: inURL.user, origin: "the URL", expires: nil,
                                  line: "user \(inURL.user) and a password from the gateway URL (sent as Basic; not shown)")
        }
        if let env = workspace.environment["FPRINT_TOKEN"], !env.isEmpty { return token(env, origin: "FPRINT_TOKEN") }
        guard let (stored, key) = try CredentialFile(paths: workspace.paths).credential(for: url) else {
            return CredentialView(type: "none", user: nil, origin: "none", expires: nil,
                                  line: "none for \(HTTPAuth.databaseKey(of: url) ?? url.absoluteString) (run `fprint login --user NAME`)")
        }
        let origin = key == CredentialFile.anyGateway ? "the credentials file (saved for any gateway)" : "the credentials file"
        switch stored {
        case .bearer(let value):
            return token(value, origin: origin)
        case .session(let name, _, _, let expiresAtMs, _):
            let expires = ISOTime.string(millisecondsSince1970: expiresAtMs)
            return CredentialView(type: "session", user: name, origin: origin, expires: expires,
                                  line: "CouchDB session of user \(name) from \(origin), cookie valid until \(expires) (renewed with the stored password)")
        }
    }

    static func token(_ token: String, origin: String) -> CredentialView {
        guard let claims = TokenClaims.unverified(token) else {
            return CredentialView(type: "bearer", user: nil, origin: origin, expires: nil,
                                  line: "token from \(origin) (not a JWT; expiry unknown)")
        }
        let expires = ISOTime.string(millisecondsSince1970: claims.expiresAt * 1000)
        let expired = Double(claims.expiresAt) < Date().timeIntervalSince1970
        return CredentialView(type: "bearer", user: claims.subject, origin: origin, expires: expires,
                              line: "token of user \(claims.subject) from \(origin), \(expired ? "EXPIRED" : "expires") \(expires)")
    }
}

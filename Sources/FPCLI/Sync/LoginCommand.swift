import ArgumentParser
import FPConfig
import FPCore
import FPNet
import FPSync
import Foundation

struct Login: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Log in to a gateway (fprint's or CouchDB) and store the credential for `fprint sync`.",
        discussion: """
            Sends your name and password to the gateway's _session as a form, as CouchDB's replicator does (the password is read from the terminal without echo, or from the first line of standard input when it is not a terminal — never from arguments). fprint's gateway answers with a token, kept and sent as Bearer. CouchDB answers with an AuthSession cookie, kept with your name and password and sent as Cookie; the cookie lives Max-Age seconds (10 minutes by default) and fprint logs in again with the stored password once less than a tenth of that is left, or when the server refuses it.

            One credential is kept per gateway database URL (scheme, host, port and database), in credentials.json in the config directory, readable by you only; `fprint status` shows the one of the configured gateway.

            Examples:
              fprint login --user alice
              printf '%s\\n' "$PASSWORD" | fprint login --user alice --gateway http://gw:5984/fprint
              fprint login --user admin --gateway http://couch.example.org:5984/fprint
            """)

    @Option(help: "Your user name on the gateway.") var user: String
    @OptionGroup var client: GatewayClientOptions
    @OptionGroup var configOptions: ConfigOptions

    func perform() async throws {
        let workspace = Workspace(configOptions: configOptions)
        let url = URLCredentials.split(try client.gatewayURL(workspace)).url
        guard let key = HTTPAuth.databaseKey(of: url) else {
            throw CommandFailure("invalid gateway URL \(HTTPError.displayURL(url.absoluteString))", .usage)
        }
        let password = try Self.readPassword(user: user)
        let sessionURL = GatewayAuth.sessionURL(of: url)
        let answer: CouchSession.Answer
        // A typed `do`: `catch let error as SyncError` here crashes Swift 6.3.1's SILGen.
        do throws(SyncError) {
            answer = try await CouchSession.login(sessionURL: sessionURL, name: user, password: password,
                                            transport: client.transport())
        } catch {
            throw CommandFailure(error)
        }
        let file = CredentialFile(paths: workspace.paths)
        let name = answer.name ?? user
        if let token = answer.token, !token.isEmpty {
            try file.save(.bearer(token: token), key: key)
            let expiry = TokenClaims.unverified(token).map {
                " (expires \(ISOTime.string(millisecondsSince1970: $0.expiresAt * 1000)))"
            } ?? ""
            Terminal.err("logged in as \(name); token for \(key) stored in \(file.path)\(expiry)")
        } else if let cookie = answer.cookie {
            let expiresAtMs = Int64(cookie.expiresAt.timeIntervalSince1970 * 1000)
            try file.save(.session(name: user, password: password, cookie: cookie.value, expiresAtMs: expiresAtMs,
                                   lifetime: cookie.lifetime), key: key)
            Terminal.err("logged in as \(name); session for \(key) stored in \(file.path) (cookie renewed before it expires, every \(Int(cookie.lifetime)) s)")
        } else {
            throw CommandFailure("POST \(sessionURL.absoluteString) answered 200 with neither a token nor an AuthSession cookie", .protocolError)
        }
    }

    static func readPassword(user: String) throws -> String {
        if isatty(STDIN_FILENO) == 1 {
            guard let raw = getpass("password for \(user): ") else { throw CommandFailure("no password given", .usage) }
            return String(cString: raw)
        }
        guard let line = readLine(strippingNewline: true), !line.isEmpty else {
            throw CommandFailure("no password on standard input", .usage)
        }
        return line
    }
}

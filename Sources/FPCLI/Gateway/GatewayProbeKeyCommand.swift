import ArgumentParser
import FPCore
import FPProbe
import Foundation

/// `fprint gateway probe-key`: the public key this gateway signs probe results
/// with, read from its secret on its host: the fingerprint a user's
/// `fprint probe --trust-server` must show too.
struct GatewayProbeKey: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe-key",
        abstract: "Print the public key this gateway signs probe results with, and its fingerprint.",
        discussion: """
            The key is derived from the gateway's secret (Ed25519), so it is the same at every start and changes only with the secret. Users run `fprint probe --trust-server URL`, which fetches it from the running gateway (/config/probe-key.json) and prints its fingerprint: tell them the fingerprint this prints through another channel, so they can see that the key they trust is this one.

            Examples:
              fprint gateway probe-key
              fprint gateway probe-key --json
            """)

    @Flag(help: "One JSON object: alg, key (base64url) and fingerprint.") var json = false
    @OptionGroup var files: GatewayFiles

    func perform() async throws {
        let secret = try files.loadSecret(Workspace().paths, create: false)
        let key = ProbeSigner(gatewaySecret: secret).publicKey
        Terminal.out(json ? CanonicalJSON.string(key.json) : "\(key.fingerprint) (\(ProbeKey.algorithm) \(key.base64url))")
    }
}

import FPCore
import FPGateway
import FPProbe
import Foundation

/// Starts the gateway's probe endpoints (`--probe-port`), with the signer of
/// the gateway's secret and its check of tokens (ledger and users file included).
enum ProbeService {
    static func start(host: String, port: Int, signer: ProbeSigner, tokens: TokenCheck) throws -> ProbeServer {
        let server = ProbeServer(ProbeServer.Config(host: host, port: UInt16(port), signer: signer) { token in
            try tokens.user(token)
        })
        do {
            let bound = try server.start()
            // Tests and scripts read the port from this line (useful with --probe-port 0).
            Terminal.err("fprint gateway: probes on tcp+udp \(host):\(bound)")
            return server
        } catch let e as ProbeSocketError where e.errno == EADDRINUSE {
            throw CommandFailure("probe port \(port) on \(host) is in use: choose --probe-port", .portInUse)
        } catch {
            throw CommandFailure("probe port \(port) on \(host): \(error)", .usage)
        }
    }
}

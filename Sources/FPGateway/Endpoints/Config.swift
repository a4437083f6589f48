import FPCore
import Foundation
import HTTPTypes

/// `/config/…`: the app config, scenarios and other files, so a team needs
/// one server. URLs in the app config point at the configured public URL,
/// never at the request's Host header (which any client can set).
extension CouchHandler {
    func configFile(_ request: CouchRequest) throws -> Reply {
        let name = request.segments.dropFirst().joined(separator: "/")
        guard request.method == .get else { throw CouchError.methodNotAllowed }
        if name == "app-config.json", var app = config.appConfig {
            let base = config.publicURL ?? "http://127.0.0.1:\(request.localPort)"
            app["gatewayURL"] = .string("\(base)/\(config.databaseName)")
            app["authURL"] = .string("\(base)/_session")
            app["scenariosURL"] = .string("\(base)/config/scenarios.json")
            return .json(.ok, app)
        }
        if name == "scenarios.json", let scenarios = config.scenarios { return .json(.ok, scenarios) }
        guard let data = config.files[name] else { throw CouchError.notFound() }
        return .file(data, contentType: name.hasSuffix(".json") ? "application/json" : "application/octet-stream")
    }
}

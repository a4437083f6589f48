import Foundation

/// The `Fixtures` folder a test target ships as a resource (`.copy("Fixtures")`).
/// Each test target passes its own `Bundle.module`, which only it can name.
public struct FixtureFolder: Sendable {
    public let url: URL

    public init(_ bundle: Bundle) {
        url = bundle.resourceURL!.appendingPathComponent("Fixtures")
    }

    public func url(_ name: String) -> URL { url.appendingPathComponent(name) }

    public func data(_ name: String) throws -> Data { try Data(contentsOf: url(name)) }

    public func text(_ name: String) throws -> String { try String(contentsOf: url(name), encoding: .utf8) }
}
